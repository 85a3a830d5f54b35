"""A computer player's move that cannot be saved (a full disk) is tried again a little later,
as a person's timer is: the table goes on once the disk is back, without a restart."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from bot.core import effects as fx
from bot.core import robots
from bot.core.model import TableSettings
from bot.core.modes import SheetMode
from bot.core.persist import SAVE_RETRY
from bot.preferans.robot import Budget
from tests.bot_helpers import button, is_alert, running_bot, simple_policy, take_turn
from tests.fakes import ManualClock
from tests.service.helpers import press, service_on
from tests.service.test_failed_saves import Disk
from tests.service.test_robots import OWNER, _robot_table

CHEAP = Budget(samples=2, nodes=200, total=400)


async def _until(check: object, seconds: float, what: str) -> None:
    """Wait (looking every few milliseconds) until ``check()`` is true."""
    assert callable(check)
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(what)
        await asyncio.sleep(0.005)


@pytest.mark.slow
@pytest.mark.waits
async def test_a_robot_move_during_a_full_disk_is_made_once_the_disk_is_back(
    tmp_path: Path,
) -> None:
    settings = TableSettings(pulka=2, turn_time=0, sheet=SheetMode.TEXT)
    async with running_bot(tmp_path, users=1, defaults=settings) as h:
        h.service.robots.budget = CHEAP
        h.rt.scheduler.robot_scale = 1000.0  # the computer players wait until told
        me = h.users[0]
        await h.say(me, "/newgame")
        for code in ("La", "La", "Ls", "Lg"):  # two computer players, sit, start
            slot = h.table_slot()
            assert slot is not None and slot.message_id is not None
            lobby = h.fake.message(h.group.id, slot.message_id)
            data = button(lobby, code)
            assert not is_alert(await h.press(me, lobby, data)), code
        table = h.table()
        policy = simple_policy()
        while robots.robot_to_act(table) is None:
            await take_turn(h, policy)
        move = table.move
        full_at: list[int] = []  # the move being saved when the disk was full
        save_table = h.service.storage.save_table

        async def once_full(*args: Any, **kwargs: Any) -> None:
            if not full_at:  # full for this one save, back at once
                full_at.append(table.move)
                raise sqlite3.OperationalError("database or disk is full")
            await save_table(*args, **kwargs)

        h.service.storage.save_table = once_full  # type: ignore[method-assign]
        h.rt.scheduler.robot_scale = 0.02
        h.rt.scheduler.arm(table)  # its turn now: it acts and the save fails
        # tried again SAVE_RETRY seconds later (before: never, until a restart)
        await _until(lambda: table.move > move, 30 + SAVE_RETRY, "the table stays stuck")
        assert full_at == [move + 1]  # the computer player's move, saved at the second try


async def test_an_unsaved_robot_move_asks_to_be_timed_again() -> None:
    clock = ManualClock()
    async with service_on(clock=clock) as service:
        table = await _robot_table(service)
        service.robots.budget = CHEAP
        await service.start(table.id, OWNER.user_id)
        while robots.robot_to_act(table) is None:
            await press(service, table, lambda a: True)
        move = table.move
        disk = Disk(service)
        disk.failing = True
        effects = await service.robots.robot_move(table.id, move)
        assert [type(e) for e in effects] == [fx.TimerChanged]
        assert table.move == move and table.ui.retry_at == clock.now + SAVE_RETRY
        disk.failing = False
        assert await service.robots.robot_move(table.id, move)
        assert table.move > move
