"""Screenshots of the Mini App's table for docs/images/, run by hand:

    python -m tests.browser.screenshots

The bot with the fake Bot API and its Mini App server, a person and two computer players;
the person taps through the auction and the first tricks, and the table is taken when a
card lies on it and he is to play: on a phone (390×844) in Telegram's light and dark
themes and on a narrow phone (320 px)."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path

from playwright.async_api import BrowserContext, Page, async_playwright, expect

from bot.core.model import TableSettings
from bot.core.modes import SheetMode
from tests.bot_helpers import Harness, running_bot
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.browser.helpers import start_table, table_button_url, tap_next
from tests.fakes import FakeTelegram
from tests.webapp.helpers import init_data, telegram_url

OUT = Path(__file__).resolve().parents[2] / "docs" / "images"

# Telegram's own theme colours (Android, day and night)
LIGHT = {
    "bg_color": "#ffffff",
    "text_color": "#000000",
    "hint_color": "#707579",
    "link_color": "#3390ec",
    "button_color": "#3390ec",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#f4f4f5",
    "section_bg_color": "#ffffff",
    "accent_text_color": "#3390ec",
}
DARK = {
    "bg_color": "#212121",
    "text_color": "#ffffff",
    "hint_color": "#aaaaaa",
    "link_color": "#8774e1",
    "button_color": "#8774e1",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#181818",
    "section_bg_color": "#212121",
    "accent_text_color": "#8774e1",
}


async def play_until_a_card_lies(page: Page) -> None:
    """Taps until three tricks are played and a card lies on the table for the person."""
    bid_once = [False]
    for _ in range(20_000):
        done = await page.locator(".seat .taken").all_text_contents()
        lying = await page.locator(".centre .trick .card").count()
        mine = await page.locator("#hand .card-btn:enabled").count()
        if sum(int(t.split()[-1]) for t in done) >= 3 and lying and mine:
            return
        if await tap_next(page, bid_once) is None:
            await asyncio.sleep(0.05)
    raise AssertionError("no moment to take")


async def shoot(context: BrowserContext, h: Harness) -> None:
    me = h.users[0]
    url, init = table_button_url(h, me), init_data(h, me, age=0)
    page = await context.new_page()
    await page.set_viewport_size({"width": 390, "height": 844})
    await page.goto(telegram_url(url, init, LIGHT))
    await play_until_a_card_lies(page)
    for name, width, height, theme in [
        ("webapp-light.png", 390, 844, LIGHT),
        ("webapp-dark.png", 390, 844, DARK),
        ("webapp-narrow.png", 320, 700, LIGHT),
    ]:
        await page.set_viewport_size({"width": width, "height": height})
        await page.goto(telegram_url(url, init, theme))
        await page.reload()  # the hash alone changed: load the page again
        await expect(page.locator("#hand .card-btn:enabled").first).to_be_visible()
        await page.screenshot(path=str(OUT / name))
        print(OUT / name)
    await page.close()


async def main() -> None:
    fake = FakeTelegram()
    anna = fake.add_user("Анна", language_code="ru", username="anna")
    group = fake.add_group("Преферанс по пятницам", [anna])
    fake.user_starts_bot(anna)
    settings = TableSettings(pulka=10, turn_time=120, sheet=SheetMode.TEXT)
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    with tempfile.TemporaryDirectory() as tmp:
        async with (
            running_bot(
                Path(tmp),
                fake=fake,
                people=[anna],
                group=group,
                lang="ru",
                defaults=settings,
                webapp=True,
            ) as h,
            async_playwright() as pw,
        ):
            await start_table(h)
            context = await pw.chromium.launch_persistent_context(
                profile,
                executable_path=CHROMIUM,
                args=CHROMIUM_ARGS,
                headless=True,
                device_scale_factor=2,
            )
            await context.route("**/telegram.org/**", lambda route: route.abort())
            try:
                await shoot(context, h)
            finally:
                await context.close()
    shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
