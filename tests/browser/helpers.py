"""The browser tests' side of the bot: the «🃏 Стол» button's URL, a table of a person and
two computer players, and a player's pick among what the page lets him tap."""

from __future__ import annotations

import asyncio

from playwright.async_api import Page, expect
from playwright.async_api import TimeoutError as PlaywrightTimeout

from bot.preferans.robot import Budget
from tests.bot_helpers import WEBAPP_URL, Harness, code_of, open_and_start
from tests.fakes import FakeUser
from tests.webapp.helpers import base_url

CHEAP = Budget(samples=2, nodes=200, total=400)
"""Computer players that think little: the test is about the page."""


def table_button_url(h: Harness, user: FakeUser) -> str:
    """The «🃏 Стол» web_app button's URL on the user's hand message (as the bot last sent
    or edited its keyboard), served locally."""
    mid = h.hand(user).message_id
    urls = []
    for call in h.fake.calls:
        markup, result = call.params.get("reply_markup"), (call.response or {}).get("result")
        sent = result.get("message_id") if isinstance(result, dict) else None
        if isinstance(markup, dict) and call.params.get("chat_id") == user.id:
            if mid in (call.params.get("message_id"), sent):
                rows = markup["inline_keyboard"]
                urls = [str(b["web_app"]["url"]) for row in rows for b in row if "web_app" in b]
    assert len(urls) == 1 and urls[0].startswith(WEBAPP_URL), urls
    return f"{base_url(h)}/app/{urls[0].removeprefix(WEBAPP_URL)}"


async def start_table(h: Harness) -> None:
    """A table of the person and two computer players (fast pace), started."""
    h.service.robots.budget = CHEAP
    h.rt.scheduler.robot_scale = 0.02
    await open_and_start(h, settings_presses=("Lo", "Lxr", "Lb", "La", "La"))
    for _ in range(2000):  # the hand message with its buttons is on its way
        await h.idle()
        if h.hand_message(h.users[0]) is not None:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("no hand message")


def choose(presses: list[str], marked: int, bid_once: list[bool]) -> str | None:
    """A player's pick among the page's legal presses: bid 6♠ once, then pass; discard the
    first two cards; the lowest contract; whist, closed; refuse offers; the first card."""
    codes = {code_of(d): d for d in presses}
    if any(c.startswith("t") for c in codes):  # the discard: mark two, then confirm
        if marked >= 2 and "k" in codes:
            return codes["k"]
        return next(d for c, d in codes.items() if c.startswith("t"))
    if "b6S" in codes and not bid_once[0]:
        bid_once[0] = True
        return codes["b6S"]
    for wanted in ("bP", "wW", "dC", "aN"):
        if wanted in codes:
            return codes[wanted]
    for prefix in ("c", "p"):
        found = [d for c, d in codes.items() if c.startswith(prefix)]
        if found:
            return found[0]
    return None


async def legal_presses(page: Page) -> tuple[list[str], int]:
    """What the page lets the player tap now (none while a press awaits its answer)."""
    found = await page.evaluate("""() => document.body.classList.contains('pressed') ? [] :
        [...document.querySelectorAll('#moves .move:enabled, #hand .card-btn:enabled')]
        .map(b => b.dataset.press)""")
    marked = await page.locator("#hand .card-btn.marked").count()
    return [str(d) for d in found], marked


async def tap_next(page: Page, bid_once: list[bool]) -> str | None:
    """Taps what :func:`choose` picks and waits for the server's answer; the code tapped, or
    None when there is nothing to tap now."""
    presses, marked = await legal_presses(page)
    data = choose(presses, marked, bid_once)
    if data is None:
        return None
    try:
        await page.locator(f"[data-press='{data}']").click(timeout=10_000)
    except PlaywrightTimeout:
        return None  # a new state took the button away: look again
    # the tap is answered by a new state (or a toast) before the next one
    await expect(page.locator("body")).not_to_have_class("pressed")
    return code_of(data)
