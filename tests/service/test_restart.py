"""A restart through the core service: tables come back from the database, and what the
group was not shown is shown again until confirmed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.core import effects as fx
from bot.core.errors import AlreadyDone, Rejected
from bot.core.model import Player, Status
from bot.core.service import Shown
from bot.preferans.actions import Bid
from tests.fakes import ManualClock
from tests.service.helpers import (
    GROUP,
    actor,
    all_pass,
    decoded,
    kinds,
    of,
    open_table,
    press,
    service_on,
    started,
    time_out,
)


async def test_a_game_resumes_where_it_stopped(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    clock = ManualClock()
    async with service_on(path, clock=clock) as service:
        table = await started(service)
        await press(service, table, lambda a: True)
        seat, _ = actor(table)
        move, deadline, seed = table.move, table.deadline, table.seed
    async with service_on(path, clock=clock) as service:
        effects = await service.resumable.resume()
        again = service.registry.open_table(GROUP)
        assert again is not None and again.status is Status.PLAYING
        assert (again.move, again.deadline, again.seed) == (move, deadline, seed)
        assert actor(again)[0] == seat
        assert kinds(effects)[-2:] == ["DealShown", "TimerChanged"]
        assert not of(effects, fx.DealEnded)


async def test_an_unconfirmed_deal_end_is_shown_again(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    async with service_on(path) as service:
        table = await started(service)
        await all_pass(service, table)
        assert table.unshown.ends == [1]
        assert not table.unshown.lobby  # the lobby was confirmed
    async with service_on(path) as service:
        effects = await service.resumable.resume()
        [end] = of(effects, fx.DealEnded)
        assert end.deal_no == 1
        table = end.table
        await service.shown(table, Shown("end", 1))
        assert table.unshown.ends == []
    async with service_on(path) as service:
        assert not of(await service.resumable.resume(), fx.DealEnded)


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
        assert await service.resumable.resume() == ()
        row = await service.storage.table(tid)
        assert row is not None and row.status == "cancelled"


async def _timed_out(path: Path, clock: ManualClock) -> tuple[Player, int]:
    """A game whose first player's time (30 s) ran out: he, and the move the timer passed
    for him at."""
    async with service_on(path, clock=clock, turn_time=30) as service:
        player, move, auto = await time_out(service, await started(service), clock)
        assert auto.action == Bid(auto.seat, None)
    return player, move


async def test_his_press_of_what_his_timeout_made_before_a_restart_is_already_done(
    tmp_path: Path,
) -> None:
    path = tmp_path / "bot.sqlite3"
    clock = ManualClock()
    player, move = await _timed_out(path, clock)
    # the bot restarts (a deploy) before his press of that pass arrives
    async with service_on(path, clock=clock, turn_time=30) as service:
        await service.resumable.resume()
        table = open_table(service)
        assert table.move == move + 1
        with pytest.raises(AlreadyDone):  # as it would have been before the restart
            await service.act(table.id, player.user_id, move, "bP", decoded(table, "bP"))
        with pytest.raises(Rejected, match="err.stale"):  # another move of his: too late
            await service.act(table.id, player.user_id, move, "b6S", decoded(table, "b6S"))
        assert table.move == move + 1


async def test_a_row_saved_before_made_moves_were_stored_loads(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    clock = ManualClock()
    player, move = await _timed_out(path, clock)
    con = sqlite3.connect(path)
    con.execute("UPDATE tables SET state = json_remove(state, '$.made_for')")
    con.commit()
    con.close()
    async with service_on(path, clock=clock, turn_time=30) as service:
        await service.resumable.resume()
        table = open_table(service)
        assert table.move == move + 1 and table.ui.made_for == []
        with pytest.raises(Rejected, match="err.stale"):  # not known as made for him
            await service.act(table.id, player.user_id, move, "bP", decoded(table, "bP"))
