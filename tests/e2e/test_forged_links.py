"""Forged deep links (``/start <payload>``) never crash a handler: every payload gets an
answer and nothing is logged at ERROR."""

from __future__ import annotations

import random
from pathlib import Path

from bot.core.model import TableSettings
from bot.core.modes import SheetMode
from bot.render.callbacks import to_base36
from tests.bot_helpers import open_and_start, running_bot
from tests.hostile_helpers import ErrorLog

QUICK = TableSettings(pulka=2, turn_time=60, sheet=SheetMode.TEXT)
ALPHABET = "rs_-0123456789az+ ０١²z_"


def _payloads(table_id: int) -> list[str]:
    tid = to_base36(table_id)
    fixed = [
        f"r{tid}_-100",
        f"r{tid}_-1",
        f"r{tid}_3",
        f"r{tid}_99999999999999999999",
        f"r{tid}_",
        f"r{tid}",
        f"r{tid}_0_1",
        f"r{tid}_０",
        f"r{tid}_١",
        f"r{tid}_²",
        f"r{tid}_+1",
        f"r{tid}_ 1",
        f"r{tid}_1e3",
        "r_1",
        "r-1_0",
        f"r{'z' * 13}_0",
        "rzz_0",
        "r0_0",
        "s",
        "s-1",
        "szzzzzzzzzzzz",
        "szz",
        "s0",
        f"s{tid}_1",
        f"s{tid.upper()}",
        "x1",
        "_",
    ]
    rng = random.Random(17)
    fuzz = [
        rng.choice("rs") + "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(1, 12)))
        for _ in range(40)
    ]
    return fixed + fuzz


async def test_forged_deep_links_are_answered_and_never_crash(tmp_path: Path) -> None:
    with ErrorLog() as errors:
        async with running_bot(tmp_path, users=4, defaults=QUICK) as h:
            await open_and_start(h)
            table = h.table()
            outsider = h.users[3]
            for payload in _payloads(table.id):
                before = len(h.fake.bot_messages(outsider))
                await h.start_bot(outsider, payload)
                await h.idle()
                assert len(h.fake.bot_messages(outsider)) > before, payload  # he got an answer
                assert not errors.lines(), (payload, errors.lines())
            assert outsider.id not in [p.user_id for p in table.seats if p is not None]


CODES = ["R-1", "R99", "R١", "R3", "Lx", "Lxzz", "Ls", "t", "tZZ", "u10X", "k", "b", "bZZ", "p"]


async def test_forged_presses_are_answered_and_never_crash(tmp_path: Path) -> None:
    """The siblings of the deep link: forged button data on the table and hand messages."""
    with ErrorLog() as errors:
        async with running_bot(tmp_path, users=4, defaults=QUICK) as h:
            await open_and_start(h)
            table = h.table()
            tid = to_base36(table.id)
            rng = random.Random(17)
            data = [f"{tid}:{to_base36(table.move)}:{code}" for code in CODES]
            data += [f"{tid}:{m}:{c}" for m, c in (("-1", "bP"), ("zzzzzzzzzzzzz", "bP"))]
            data += [
                "".join(rng.choice("0123456789az:-_RLtubkpV") for _ in range(rng.randrange(1, 20)))
                for _ in range(30)
            ]
            user = h.actor()
            assert user is not None
            hand = h.hand_message(user)
            group_msg = h.table_message()
            assert hand is not None and group_msg is not None
            for forged in data:
                for who, msg in ((user, hand), (h.users[3], group_msg)):
                    qid = h.fake.press(who, msg, forged, force=True)
                    await h.idle()
                    assert qid in h.fake.callback_answers, forged
                    assert not errors.lines(), (forged, errors.lines())
            assert table.move == h.table().move and h.actor() is user
