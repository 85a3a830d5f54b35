"""End-to-end in Chromium: the bot with the fake Bot API and its Mini App server; a person
at a table with two computer players opens the table from his hand message's «🃏 Стол»
button and plays a whole deal by tapping, then reads the sheet. A forged or a stale
initData gets the refusal and no table."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import BrowserContext, Page, expect

from bot.core.model import TableSettings
from bot.core.modes import SheetMode
from tests.bot_helpers import Harness, running_bot
from tests.browser.conftest import ON_WORKERS_CHROMIUM
from tests.browser.helpers import start_table, table_button_url, tap_next
from tests.webapp.helpers import init_data, telegram_url

pytestmark = [pytest.mark.browser, pytest.mark.slow, ON_WORKERS_CHROMIUM]

HANG = 300.0
"""Seconds a deal may take at most on a busy machine: only a bound on a hang."""


async def play_deal_by_tapping(h: Harness, page: Page) -> list[str]:
    """Taps through the first deal until it is over; returns the codes tapped."""
    tapped: list[str] = []
    bid_once = [False]
    deadline = time.monotonic() + HANG
    while time.monotonic() < deadline:
        game = h.table().game
        if game is not None and game.finished_deals:
            return tapped
        code = await tap_next(page, bid_once)
        if code is None:
            await asyncio.sleep(0.05)  # the computer players' turn: look again
            continue
        tapped.append(code)
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
        await page.goto(telegram_url(table_button_url(h, me), init_data(h, me, age=0)))
        names = [p.name for p in h.table().seats if p is not None]
        await expect(page.locator(".seat .name")).to_have_count(3)
        await expect(page.locator(".seat.mine .name")).to_have_text(me.first_name)
        await expect(page.locator("#tabs .tab")).to_have_text(
            ["Взятки сдачи", "Пуля", "Прошлая сдача", "Повтор сдачи"]
        )
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


@pytest.mark.parametrize("kind", ["forged", "stale"])
async def test_forged_or_stale_init_data_gets_no_table(
    tmp_path: Path, browser: Any, kind: str
) -> None:
    async with running_bot(tmp_path, users=1, lang="ru", webapp=True) as h:
        me = h.users[0]
        await start_table(h)
        if kind == "forged":  # signed with another bot's token
            init = init_data(h, me, age=0, token="123456:" + "x" * 35)
        else:  # two days old
            init = init_data(h, me, age=2 * 86_400)
        context: BrowserContext = browser
        page = await context.new_page()
        await page.goto(telegram_url(table_button_url(h, me), init))
        refused = page.locator("#refused")
        await expect(refused).to_be_visible()
        assert (await refused.text_content() or "").strip()
        await expect(page.locator("#app")).to_be_hidden()
        await expect(page.locator(".card")).to_have_count(0)
