"""A restart through the core service: tables come back from the database, and what the
group was not shown is shown again until confirmed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.core import effects as fx
from bot.core.model import Status, Table
from bot.core.service import Shown, TableService
from bot.preferans.actions import Bid
from tests.service.helpers import (
    GROUP,
    Clock,
    actor,
    kinds,
    legal,
    of,
    press,
    service_on,
    started,
)


async def _all_pass(service: TableService, table: Table) -> None:
    """Everybody passes, then the all-pass deal is played to its end."""
    deal_no = table.deal_no
    while table.deal_no == deal_no:
        actions = legal(table)
        passes = [a for a in actions if isinstance(a, Bid) and a.contract is None]
        target = passes[0] if passes else actions[0]
        await press(service, table, target.__eq__)


async def test_a_game_resumes_where_it_stopped(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    clock = Clock()
    async with service_on(path, clock=clock) as service:
        table = await started(service)
        await press(service, table, lambda a: True)
        seat, _ = actor(table)
        move, deadline, seed = table.move, table.deadline, table.seed
    async with service_on(path, clock=clock) as service:
        effects = await service.resume()
        again = service.open_table(GROUP)
        assert again is not None and again.status is Status.PLAYING
        assert (again.move, again.deadline, again.seed) == (move, deadline, seed)
        assert actor(again)[0] == seat
        assert kinds(effects)[-2:] == ["DealShown", "TimerChanged"]
        assert not of(effects, fx.DealEnded)


async def test_an_unconfirmed_deal_end_is_shown_again(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    async with service_on(path) as service:
        table = await started(service)
        await _all_pass(service, table)
        assert [e.deal_no for e in table.unshown.ends] == [1]
        # the lobby was confirmed; the table message was never sent (nothing shows here)
        assert table.unshown.lobby_message is None
        slot = table.messages.table_slot
        assert slot is not None and (slot.chat_id, slot.message_id) == (GROUP, None)
    async with service_on(path) as service:
        effects = await service.resume()
        [end] = of(effects, fx.DealEnded)
        assert end.deal_no == 1
        table = end.table
        await service.shown(table, Shown("end", 1))
        assert table.unshown.ends == []
    async with service_on(path) as service:
        assert not of(await service.resume(), fx.DealEnded)


async def test_a_table_that_cannot_be_read_is_closed(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    async with service_on(path) as service:
        table = await started(service)
        tid = table.id
    con = sqlite3.connect(path)
    con.execute("""UPDATE tables SET record = '{"format": "no such format"}'""")
    con.commit()
    con.close()
    async with service_on(path) as service:
        assert await service.resume() == ()
        row = await service.storage.table(tid)
        assert row is not None and row.status == "cancelled"
