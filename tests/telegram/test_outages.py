"""What a move must show is shown eventually, whatever Telegram does: messages Telegram did
not take stay due and are sent, in their latest state, once it is back.

Time is scaled by 1/100 to keep the test short: outages of 10 s, 60 s and 5 min last 0.1,
0.6 and 3 s, and the outbox's pauses between attempts (1 s doubling up to 60 s in
production) start at 0.01 s and stop growing at 0.3 s.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.core.model import Table, TableSettings
from bot.render.callbacks import decode
from tests.bot_helpers import Harness, code_of, open_and_start, running_bot
from tests.fakes import FakeUser
from tests.hostile_helpers import ErrorLog

SCALED = {"group_limit": 100_000, "group_fast_interval": 0.0, "retry_base": 0.01, "retry_cap": 0.3}


async def _until(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, what
        await asyncio.sleep(0.02)


def _refused(h: Harness) -> bool:
    """Whether Telegram refused anything but getUpdates."""
    return any(not c.ok and c.method != "getUpdates" for c in h.fake.calls)


async def _bid_during_an_outage(
    h: Harness, turn_time: int | None = None
) -> tuple[Table, FakeUser, int]:
    """Start a game, make Telegram refuse everything but getUpdates, and let the first
    player bid: the move is applied and saved (its move number returned), not shown.
    ``turn_time``: the turn timer from the bid on (the first player's turn keeps the
    table's, so that his timer cannot act before his press on a busy machine)."""
    await open_and_start(h)
    await h.idle()
    table = h.table()
    user = h.actor()
    assert user is not None
    hand = h.hand_message(user)
    assert hand is not None
    data = next(d for _, d in hand.buttons if d and code_of(d).startswith("b"))
    h.fake.fail_when(lambda method, params: method != "getUpdates", (502, "Bad Gateway"))
    move = table.move
    if turn_time is not None:
        table.settings.turn_time = turn_time
    h.fake.press(user, hand, data)
    await _until(lambda: table.move != move, "the bid was not applied")
    assert table.move == move + 1  # applied and saved, not shown yet
    return table, user, move


@pytest.mark.waits
@pytest.mark.parametrize("outage", [0.1, 0.6, 3.0], ids=["10s", "60s", "5min"])
async def test_a_move_during_an_outage_is_shown_once_telegram_is_back(
    tmp_path: Path, outage: float
) -> None:
    with ErrorLog() as errors:
        async with running_bot(tmp_path, outbox_options=SCALED) as h:
            table, user, move = await _bid_during_an_outage(h)
            # the outage counts from Telegram's first refusal of what the move shows
            await _until(lambda: _refused(h), "Telegram was never asked during the outage")
            await asyncio.sleep(outage)
            h.fake.clear_failures()
            await h.idle(timeout=30)
            nxt = h.actor()
            assert nxt is not None and nxt is not user
            new_hand = h.hand_message(nxt)
            assert new_hand is not None and new_hand.buttons
            for _, d in new_hand.buttons:
                pressed = decode(d)
                assert pressed is not None and pressed.move == table.move  # current buttons
            group_msg = h.table_message()
            assert group_msg is not None and user.first_name in group_msg.content
            await h.act(lambda deal, codes: codes[0])  # the game goes on
            assert table.move == move + 2
        assert not errors.lines(), errors.lines()


@pytest.mark.waits
async def test_no_turn_times_out_while_its_buttons_cannot_be_delivered(tmp_path: Path) -> None:
    """With a 1 s turn timer and Telegram down, the next player's buttons cannot reach him:
    his time starts again at every expiry instead of a move being made for him."""
    settings = TableSettings(turn_time=60)
    async with running_bot(tmp_path, outbox_options=SCALED, defaults=settings) as h:
        table, user, move = await _bid_during_an_outage(h, turn_time=1)
        await asyncio.sleep(3.5)  # three turns' time with nothing delivered
        assert table.move == move + 1  # nobody moved for the player who saw nothing
        h.fake.clear_failures()
        await h.idle(timeout=30)
        nxt = h.actor()
        assert nxt is not None and nxt is not user
        new_hand = h.hand_message(nxt)
        assert new_hand is not None and new_hand.buttons  # and now his time runs


@pytest.mark.waits
async def test_a_polling_outage_is_one_warning_and_one_info(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """getUpdates failing three times in a row (PTB retries after 1 s, then 1.5 s) is one
    WARNING when it begins and one INFO when Telegram answers again: no ERROR, no traceback."""
    async with running_bot(tmp_path) as h:
        caplog.set_level(logging.INFO)
        caplog.clear()
        h.fake.fail_when(lambda method, params: method == "getUpdates", (502, "Bad Gateway"))

        def failed() -> int:
            return sum(1 for c in h.fake.calls_to("getUpdates") if not c.ok)

        await _until(lambda: failed() >= 3, "getUpdates did not fail three times")
        h.fake.clear_failures()
        back = "Telegram answers again"
        await _until(lambda: back in caplog.text, "the end of the outage was not logged")
        await h.say(h.users[0], "/newgame")  # and updates come in again
        assert any("pulka" in text.lower() for text in h.group_texts())
    told = [(r.levelname, r.getMessage(), r.exc_info) for r in caplog.records]
    loud = [entry for entry in told if entry[0] != "INFO" and entry[0] != "DEBUG"]
    assert loud == [
        (
            "WARNING",
            "Telegram cannot be reached for updates (HTTP 502); trying again",
            None,
        )
    ]
    [(level, over)] = [(level, m) for level, m, _ in told if m.startswith(back)]
    assert level == "INFO"
    assert re.fullmatch(r"Telegram answers again \(updates were out for \d+ s\)", over)
