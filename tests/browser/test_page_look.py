"""The Mini App's page as it looks: Telegram's theme (from the URL's hash or Telegram's
script), and tap targets and widths on phones and desktop."""

from typing import Any

import pytest
from playwright.async_api import BrowserContext, expect

from tests.browser.conftest import ON_WORKERS_CHROMIUM
from tests.browser.fake_table import FakeTableServer, bid_state, open_page, page_url, play_state

pytestmark = [pytest.mark.browser, ON_WORKERS_CHROMIUM]


async def test_telegram_dark_theme_from_the_hash(browser: Any, server: FakeTableServer) -> None:
    server.on_hello = [play_state()]
    theme = {
        "bg_color": "#17212b",
        "text_color": "#f5f5f5",
        "button_color": "#5288c1",
        "button_text_color": "#ffffff",
        "secondary_bg_color": "#232e3c",
    }
    page = await open_page(browser, server, theme=theme)
    await expect(page.locator("html")).to_have_attribute("data-scheme", "dark")
    await expect(page.locator("body")).to_have_css("background-color", "rgb(23, 33, 43)")
    await expect(page.locator("#moves .move")).to_have_css("border-top-color", "rgb(82, 136, 193)")


async def test_telegrams_script_gives_init_data_and_theme_when_loaded(
    browser: Any, server: FakeTableServer
) -> None:
    server.on_hello = [play_state()]
    context: BrowserContext = browser
    page = await context.new_page()
    # what telegram-web-app.js sets up, as a stand-in (the real one is not fetched here)
    await page.add_init_script("""window.Telegram = {WebApp: {
        initData: "from-the-script", colorScheme: "dark",
        themeParams: {bg_color: "#101010", button_color: "#aa3300"},
        calls: [], ready() { this.calls.push("ready") }, expand() { this.calls.push("expand") },
        onEvent(name) { this.calls.push(name) }}};""")
    await page.goto(page_url(server.base))
    assert await server.next_frame() == {"t": "hello", "init": "from-the-script", "table": 12}
    await expect(page.locator("html")).to_have_attribute("data-scheme", "dark")
    await expect(page.locator("body")).to_have_css("background-color", "rgb(16, 16, 16)")
    await page.wait_for_function("() => document.readyState === 'complete'")
    await expect(page.locator("#hand .card-btn")).to_have_count(8)
    # told once, though the page starts Telegram's side at its start and again on load
    assert await page.evaluate("() => Telegram.WebApp.calls") == ["ready", "expand", "themeChanged"]


@pytest.mark.parametrize("width", [320, 430, 1024])
async def test_every_tap_target_is_40_px_and_nothing_overflows(
    browser: Any, server: FakeTableServer, width: int
) -> None:
    """The discard: twelve cards in hand, the longest status, every button there is."""
    state = bid_state()
    cards = ["AS", "KS", "QS", "JS", "10S", "AC", "KC", "AD", "KD", "AH", "KH", "7H"]
    state["hand"] = [{"card": c, "data": f"c:t:{c}", "marked": c in ("7H", "KH")} for c in cards]
    state["status"] = ["Торговля: Аня 6♠️ · 🤖 Борис Петрович пас · 🤖 Вера пас"] * 4
    state["buttons"].append([{"text": "✅ Снести отмеченные карты", "data": "c:k"}])
    state["deal"] = 3
    server.on_hello = [state]
    page = await open_page(browser, server, width=width, height=800)
    await expect(page.locator("#hand .card-btn")).to_have_count(12)
    await page.locator("[data-tab=replay]").click()
    await expect(page.locator(".deal-btn")).to_have_count(2)
    small = await page.evaluate("""() => [...document.querySelectorAll('button, summary')]
        .filter(b => b.offsetParent !== null)
        .map(b => [b.textContent || b.dataset.card, b.getBoundingClientRect()])
        .filter(([, r]) => r.width < 40 || r.height < 40)
        .map(([name, r]) => `${name} ${Math.round(r.width)}x${Math.round(r.height)}`)""")
    assert small == []
    assert await page.evaluate("() => document.documentElement.scrollWidth") <= width


async def test_the_review_wraps_and_the_sheet_keeps_its_columns(
    browser: Any, server: FakeTableServer
) -> None:
    long = "Сдача 1: 🤖 Пётр — 6 ♥️, 4 взятки, без двух. Запись: 🤖 Пётр — гора +4; " * 3
    server.on_hello = [play_state(review=long, sheet="x" * 60)]
    page = await open_page(browser, server, width=320)
    await page.locator("[data-tab=review]").click()
    review = page.locator("#panel pre")
    await expect(review).to_have_text(long)
    # wrapped within the panel: no wider than it
    assert await review.evaluate("p => p.scrollWidth <= p.parentElement.clientWidth")
    await page.locator("[data-tab=sheet]").click()
    sheet = page.locator("#panel pre")
    await expect(sheet).to_have_text("x" * 60)
    assert await sheet.evaluate("p => p.getClientRects().length === 1 && p.scrollHeight < 40")
    assert await page.evaluate("() => document.documentElement.scrollWidth") <= 320


@pytest.mark.parametrize(
    ("scheme", "background"), [("light", "rgb(255, 255, 255)"), ("dark", "rgb(23, 33, 43)")]
)
async def test_without_telegrams_colours_the_systems_scheme_decides(
    browser: Any, server: FakeTableServer, scheme: str, background: str
) -> None:
    server.on_hello = [play_state()]
    context: BrowserContext = browser
    page = await context.new_page()
    await page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    await page.goto(page_url(server.base))
    await expect(page.locator("#hand .card-btn")).to_have_count(8)
    await expect(page.locator("body")).to_have_css("background-color", background)
    assert await page.locator("html").get_attribute("data-scheme") is None


async def test_at_four_the_player_across_sits_above_the_two_beside(
    browser: Any, server: FakeTableServer
) -> None:
    state = play_state()
    state["seats"].append(
        {
            "seat": 3,
            "name": "Григорий Константинопольский",
            "robot": False,
            "dealer": True,
            "turn": False,
            "cards": 0,
            "tricks": 0,
            "role": "",
        }
    )
    server.on_hello = [state]
    page = await open_page(browser, server, width=320)
    await expect(page.locator(".others.four .seat")).to_have_count(3)
    box = {}
    for place in ("left", "top", "right"):
        found = await page.locator(f".seat.place-{place}").bounding_box()
        assert found is not None
        box[place] = found
    assert box["top"]["y"] + box["top"]["height"] <= box["left"]["y"] == box["right"]["y"]
    assert box["left"]["x"] + box["left"]["width"] <= box["right"]["x"]
    await expect(page.locator(".seat.place-top .name")).to_have_text("🤖 Вера")
    assert await page.evaluate("() => document.documentElement.scrollWidth") <= 320
