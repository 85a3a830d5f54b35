"""A quiet group: only the lobby, a game's start and its end ring; the rest comes silently,
and a deal's sheet comes before the next deal's table message."""

from __future__ import annotations

import re
from pathlib import Path

from bot.core.model import TableSettings
from tests.bot_helpers import Harness, open_and_start, play_deal, running_bot, simple_policy
from tests.fakes import ApiCall, FakeTelegram

SENDS = ("sendMessage", "sendPhoto", "sendDocument")
_DEAL_TABLE = re.compile(r"🃏 <b>Deal (\d+)</b>")
_DEAL_RESULT = re.compile(r"Deal (\d+):")
SCALED = {"group_limit": 100_000, "group_fast_interval": 0.0, "retry_base": 0.01, "retry_cap": 0.3}


async def quick_deal(h: Harness) -> None:
    """6♠ by the first hand, both defenders pass: the deal ends without play."""
    first = int(h.deal().first_hand)
    await play_deal(h, simple_policy({first: ["b6S"]}, contract="c6S"))


def group_sends(fake: FakeTelegram, chat_id: int) -> list[ApiCall]:
    """The new messages the bot sent to the group, in order."""
    return [
        c
        for c in fake.calls
        if c.method in SENDS and c.params.get("chat_id") == chat_id and c.status == 200
    ]


def first_line(call: ApiCall) -> str:
    return str(call.params.get("text") or call.params.get("caption") or "").split("\n")[0]


def sheets_before_tables(sends: list[ApiCall]) -> list[tuple[str, int]]:
    """The group's deal messages in order: ("table", n) for deal n's table message,
    ("sheet", n) for the sheet with deal n's result."""
    out = []
    for c in sends:
        line = first_line(c)
        if (m := _DEAL_TABLE.match(line)) is not None:
            out.append(("table", int(m.group(1))))
        elif c.method == "sendPhoto" and (m := _DEAL_RESULT.match(line)) is not None:
            out.append(("sheet", int(m.group(1))))
    return out


async def test_only_the_lobby_the_start_and_the_end_ring_the_group(tmp_path: Path) -> None:
    async with running_bot(tmp_path, defaults=TableSettings(pulka=2)) as h:
        await open_and_start(h)
        await h.say(h.users[1], "/rules")
        table = h.table()
        assert table.game is not None
        for _ in range(12):
            if table.game.over:
                break
            await quick_deal(h)
        await h.say(h.users[2], "/pulka")
        assert table.game.finished
        sends = group_sends(h.fake, h.group.id)
        ringing = [first_line(c) for c in sends if c.params.get("disable_notification") is not True]
        assert ringing == [
            "🃏 <b>New pulka</b>",
            "🃏 <b>Deal 1</b> · Sochi, pulka to 2",
            "🏁 <b>Game over.</b> Settlement in whists:",
        ]
        quiet = [c for c in sends if c.params.get("disable_notification") is True]
        assert len(quiet) == len(sends) - 3
        deals = len(table.game.finished_deals)
        # every deal's sheet, the next deals' tables, the /rules and /pulka answers
        assert len(quiet) == deals + (deals - 1) + 2
        # private messages still ring (each is for one person)
        private = [c for c in h.fake.calls_to("sendMessage") if c.params["chat_id"] > 0]
        assert private and all(c.params.get("disable_notification") is False for c in private)
        order = sheets_before_tables(sends)
        expected = [("table", 1)]
        for n in range(1, deals + 1):
            expected += [("sheet", n)] + ([("table", n + 1)] if n < deals else [])
        assert order == expected


async def test_a_sheet_telegram_keeps_refusing_still_comes_before_the_next_deal(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path, outbox_options=SCALED) as h:
        await open_and_start(h)
        group = h.group.id
        # every new message to the group fails 16 times in a row (an outage): the sheet's
        # picture and its text fallback, then the next deal's table message
        h.fake.fail_when(
            lambda method, params: method in SENDS and params.get("chat_id") == group,
            (502, "Bad Gateway"),
            times=16,
        )
        await quick_deal(h)
        await h.idle(timeout=30)
        failed = [c for c in h.fake.calls if c.status == 502]
        assert len(failed) == 16
        assert sheets_before_tables(group_sends(h.fake, group)) == [
            ("table", 1),
            ("sheet", 1),
            ("table", 2),
        ]
