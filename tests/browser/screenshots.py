"""Screenshots of the Mini App's table for docs/images/, run by hand:

    python -m tests.browser.screenshots

A phone (390×844) in Telegram's light and dark themes and a narrow phone (320 px), drawn from
the stand-in server's sample state."""

import asyncio
import shutil
import tempfile
from pathlib import Path

from playwright.async_api import async_playwright, expect

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.browser.fake_table import FakeTableServer, play_state
from tests.browser.test_page import page_url

OUT = Path(__file__).resolve().parents[2] / "docs" / "images"

# Telegram's own theme colours (Android, day and night)
LIGHT = {"bg_color": "#ffffff", "text_color": "#000000", "hint_color": "#707579",
         "link_color": "#3390ec", "button_color": "#3390ec", "button_text_color": "#ffffff",
         "secondary_bg_color": "#f4f4f5", "section_bg_color": "#ffffff",
         "accent_text_color": "#3390ec"}
DARK = {"bg_color": "#212121", "text_color": "#ffffff", "hint_color": "#aaaaaa",
        "link_color": "#8774e1", "button_color": "#8774e1", "button_text_color": "#ffffff",
        "secondary_bg_color": "#181818", "section_bg_color": "#212121",
        "accent_text_color": "#8774e1"}

SHOTS = [
    ("webapp-light.png", 390, 844, LIGHT),
    ("webapp-dark.png", 390, 844, DARK),
    ("webapp-narrow.png", 320, 700, LIGHT),
]


async def main() -> None:
    server = await FakeTableServer().start()
    server.on_hello = [play_state()]
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    try:
        async with async_playwright() as pw:
            context = await pw.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True,
                device_scale_factor=2)
            await context.route("**/telegram.org/**", lambda route: route.abort())
            page = await context.new_page()
            for name, width, height, theme in SHOTS:
                await page.set_viewport_size({"width": width, "height": height})
                await page.goto(page_url(server.base, theme=theme))
                await page.reload()  # the hash alone changed: load the page again
                await expect(page.locator("#hand .card-btn")).to_have_count(8)
                await page.screenshot(path=str(OUT / name))
                print(OUT / name)
            await context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
        await server.stop()


if __name__ == "__main__":
    asyncio.run(main())
