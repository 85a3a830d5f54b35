"""The browser tests' side of the bot: initData signed as Telegram signs it, the «🃏 Стол»
button's URL, a table of a person and two computer players, and a player's pick among what
the page lets him tap."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import urllib.parse

from playwright.async_api import Page, expect
from playwright.async_api import TimeoutError as PlaywrightTimeout

from bot.preferans.robot import Budget
from tests.bot_helpers import WEBAPP_URL, Harness, code_of, is_alert
from tests.fakes import FakeUser

CHEAP = Budget(samples=2, nodes=200, total=400)
"""Computer players that think little: the test is about the page."""


def signed_init_data(token: str, user: FakeUser, *, auth_date: float) -> str:
    """initData as Telegram signs it (core.telegram.org/bots/webapps, "Validating data"):
    HMAC-SHA256 of the sorted ``key=value`` lines, keyed by HMAC-SHA256("WebAppData", token)."""
    person = {"id": user.id, "first_name": user.first_name, "language_code": user.language_code}
    fields = {
        "query_id": f"AAH{user.id}",
        "user": json.dumps(person, ensure_ascii=False, separators=(",", ":")),
        "auth_date": str(int(auth_date)),
    }
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    fields["hash"] = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    return urllib.parse.urlencode(fields, quote_via=urllib.parse.quote)


def table_button_url(h: Harness, user: FakeUser) -> str:
    """The «🃏 Стол» web_app button's URL on the user's hand message (as the bot last sent
    or edited its keyboard), served locally."""
    hand = h.hand(user)
    urls = []
    for call in h.fake.calls:
        params = call.params
        markup = params.get("reply_markup")
        if params.get("chat_id") != user.id or not isinstance(markup, dict):
            continue
        result = (call.response or {}).get("result")
        sent = result.get("message_id") if isinstance(result, dict) else None
        if hand.message_id not in (params.get("message_id"), sent):
            continue
        urls = [
            str(b["web_app"]["url"])
            for row in markup["inline_keyboard"]
            for b in row
            if "web_app" in b
        ]
    assert len(urls) == 1, urls
    assert urls[0].startswith(WEBAPP_URL), urls[0]
    miniapp = h.app.bot_data.miniapp
    assert miniapp is not None, "the Mini App is off"
    port = miniapp.port
    return f"http://127.0.0.1:{port}/app/" + urls[0][len(WEBAPP_URL) :]


def with_init(url: str, init: str) -> str:
    """The URL as Telegram opens it: initData in the hash."""
    return f"{url}#tgWebAppData={urllib.parse.quote(init, safe='')}&tgWebAppVersion=7.0"


async def _press_lobby(h: Harness, code: str) -> None:
    slot = h.table_slot()
    assert slot is not None and slot.message_id is not None
    lobby = h.fake.message(h.group.id, slot.message_id)
    data = next(d for _, d in lobby.buttons if d and code_of(d) == code)
    answer = await h.press(h.users[0], lobby, data)
    assert not is_alert(answer), (code, answer)


async def start_table(h: Harness) -> None:
    """A table of the person and two computer players (fast pace), started."""
    h.service.robots.budget = CHEAP
    h.rt.scheduler.robot_scale = 0.02
    await h.say(h.users[0], "/newgame")
    for code in ("Lo", "Lxr", "Lb", "La", "La", "Ls", "Lg"):
        await _press_lobby(h, code)
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
