"""End-to-end in Chromium: the bot with the fake Bot API and its Mini App server; a person
at a table with two computer players opens the table from his hand message's «🃏 Стол»
button and plays a whole deal by tapping, then reads the sheet. A forged or a stale
initData gets the refusal and no table."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import time
import urllib.parse
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import BrowserContext, Page, expect

from bot.core.model import TableSettings
from bot.core.modes import SheetMode
from bot.preferans.robot import Budget
from tests.bot_helpers import WEBAPP_URL, Harness, code_of, is_alert, running_bot
from tests.fakes import FakeUser

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHEAP = Budget(samples=2, nodes=200, total=400)
"""Computer players that think little: the test is about the page."""
HANG = 300.0
"""Seconds a deal may take at most on a busy machine: only a bound on a hang."""


def signed_init_data(token: str, user: FakeUser, *, auth_date: float) -> str:
    """initData as Telegram signs it (core.telegram.org/bots/webapps, "Validating data"):
    HMAC-SHA256 of the sorted ``key=value`` lines, keyed by HMAC-SHA256("WebAppData", token)."""
    person = {"id": user.id, "first_name": user.first_name,
              "language_code": user.language_code}
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
        urls = [str(b["web_app"]["url"]) for row in markup["inline_keyboard"] for b in row
                if "web_app" in b]
    assert len(urls) == 1, urls
    assert urls[0].startswith(WEBAPP_URL), urls[0]
    miniapp = h.app.bot_data.miniapp
    assert miniapp is not None, "the Mini App is off"
    port = miniapp.port
    return f"http://127.0.0.1:{port}/app/" + urls[0][len(WEBAPP_URL):]


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


async def play_deal_by_tapping(h: Harness, page: Page) -> list[str]:
    """Taps through the first deal until it is over; returns the codes tapped."""
    tapped: list[str] = []
    bid_once = [False]
    deadline = time.monotonic() + HANG
    while time.monotonic() < deadline:
        game = h.table().game
        if game is not None and game.finished_deals:
            return tapped
        presses, marked = await legal_presses(page)
        data = choose(presses, marked, bid_once)
        if data is None:
            await asyncio.sleep(0.05)  # the computer players' turn: look again
            continue
        await page.locator(f"[data-press='{data}']").click()
        tapped.append(code_of(data))
        # the tap is answered by a new state (or a toast) before the next one
        await expect(page.locator("body")).not_to_have_class("pressed")
    raise AssertionError(f"the deal did not end; tapped {tapped}")


async def test_a_person_plays_a_deal_in_the_mini_app_and_sees_the_sheet(
    tmp_path: Path, browser: Any
) -> None:
    settings = TableSettings(pulka=2, turn_time=120, sheet=SheetMode.TEXT)
    async with running_bot(tmp_path, users=1, lang="ru", defaults=settings, webapp=True) as h:
        me = h.users[0]
        await start_table(h)
        context: BrowserContext = browser
        page = await context.new_page()
        init = signed_init_data(h.fake.token, me, auth_date=time.time())
        await page.goto(with_init(table_button_url(h, me), init))
        names = [p.name for p in h.table().seats if p is not None]
        await expect(page.locator(".seat .name")).to_have_count(3)
        await expect(page.locator(".seat.mine .name")).to_have_text(me.first_name)
        await expect(page.locator("#tabs .tab")).to_have_text(
            ["Взятки сдачи", "Пуля", "Прошлая сдача", "Повтор сдачи"])
        tapped = await play_deal_by_tapping(h, page)
        assert any(c.startswith("p") for c in tapped), tapped  # cards were played by tapping
        # the sheet, a tap away
        await page.locator("[data-tab=sheet]").click()
        sheet = page.locator("#panel pre")
        for name in names:
            await expect(sheet).to_contain_text(name.removeprefix("🤖 "))
        # the deal just played, in the review and in the replay
        await page.locator("[data-tab=review]").click()
        await expect(page.locator("#panel pre")).to_contain_text("Сдача 1")
        await page.locator("[data-tab=replay]").click()
        await page.locator(".deal-btn[data-deal='1']").click()
        await expect(page.locator(".replay .counter")).to_have_text("0 / 30")
        await page.locator("[data-step=last]").click()
        await expect(page.locator(".replay .result")).to_contain_text("Сдача 1")
        assert h.fake.unanswered_callbacks() == []
        await page.close()  # the person closes the table before the bot stops


@pytest.mark.parametrize("kind", ["forged", "stale"])
async def test_forged_or_stale_init_data_gets_no_table(
    tmp_path: Path, browser: Any, kind: str
) -> None:
    async with running_bot(tmp_path, users=1, lang="ru", webapp=True) as h:
        me = h.users[0]
        await start_table(h)
        if kind == "forged":  # signed with another bot's token
            init = signed_init_data("123456:" + "x" * 35, me, auth_date=time.time())
        else:  # two days old
            init = signed_init_data(h.fake.token, me, auth_date=time.time() - 2 * 86_400)
        context: BrowserContext = browser
        page = await context.new_page()
        await page.goto(with_init(table_button_url(h, me), init))
        refused = page.locator("#refused")
        await expect(refused).to_be_visible()
        assert (await refused.text_content() or "").strip()
        await expect(page.locator("#app")).to_be_hidden()
        await expect(page.locator(".card")).to_have_count(0)
