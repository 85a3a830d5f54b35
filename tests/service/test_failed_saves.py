"""A change whose save fails is undone: the game goes on once the database recovers and
ends exactly as a run that never failed."""

from __future__ import annotations

import logging
import sqlite3
from typing import Any

import pytest

from bot.core import effects as fx
from bot.core.errors import AlreadyDone, NotSaved
from bot.core.model import Status, Table
from bot.core.service import TableService
from bot.preferans.actions import Action, Bid
from bot.preferans.game import Game
from tests.fakes import ManualClock
from tests.service.helpers import PEOPLE, actor, pick, service_on, started


def CHOOSE(a: Action) -> bool:
    return not isinstance(a, Bid) or a.contract is None


"""Pass every bid, play the first legal card: all-pass deals, each one card play."""
DEALS = 2


class Disk:
    """Makes the storage's writes fail while ``failing`` (as on a full disk)."""

    def __init__(self, service: TableService) -> None:
        self.failing = False
        self.failures = 0
        real = service.storage.save_table

        async def save_table(*args: Any, **kwargs: Any) -> None:
            if self.failing:
                self.failures += 1
                raise sqlite3.OperationalError("database or disk is full")
            await real(*args, **kwargs)

        service.storage.save_table = save_table  # type: ignore[method-assign]


async def _step(service: TableService, table: Table, clock: ManualClock, n: int) -> None:
    """Step ``n`` of the script: mostly the player to act presses, sometimes his time runs
    out (the timer acts for him)."""
    if n % 7 == 3:
        clock.now = max(clock.now, (table.deadline or clock.now) + 1)
        effects = await service.timeout(table.id, table.move)
        if effects and all(isinstance(e, fx.TimerChanged) for e in effects):
            raise NotSaved()  # the timer's change was not saved: it is re-armed
        return
    _, player = actor(table)
    await service.act(table.id, player.user_id, table.move, f"p{n}", pick(table, CHOOSE))


async def _play(service: TableService, clock: ManualClock, fail: set[int]) -> tuple[Table, int]:
    """Play the script; at each step in ``fail`` the disk is full for a few tries."""
    disk = Disk(service)
    table = await started(service)
    assert table.game is not None
    n = 0
    while len(table.game.finished_deals) < DEALS:
        tries = 3 if n in fail else 0
        while True:
            disk.failing = tries > 0
            before = (table.move, table.game.to_record(), table.deadline)
            try:
                await _step(service, table, clock, n)
                break
            except NotSaved:
                assert tries > 0
                tries -= 1
                assert (table.move, table.game.to_record()) == before[:2]
        n += 1
    for player in PEOPLE[:2]:  # the stop is saved with the archive: it fails once too
        disk.failing = n in fail
        with pytest.raises(NotSaved) if disk.failing else _nothing():
            await service.vote_stop(table.id, player.user_id)
        disk.failing = False
        if n in fail:
            await service.vote_stop(table.id, player.user_id)
    assert table.status == Status.OVER
    return table, disk.failures


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


async def test_a_failing_disk_changes_nothing_and_the_game_ends_as_undisturbed() -> None:
    async with service_on(clock=(c1 := ManualClock())) as calm:
        undisturbed, none = await _play(calm, c1, set())
        assert none == 0
        calm_row = await calm.storage.table(undisturbed.id)
    fail = set(range(0, 200, 5)) | set(range(40, 60))
    async with service_on(clock=(c2 := ManualClock())) as service:
        table, failures = await _play(service, c2, fail)
        row = await service.storage.table(table.id)
    assert failures > 60
    assert undisturbed.game is not None and table.game is not None
    assert table.game.sheet == undisturbed.game.sheet
    assert table.game.to_record() == undisturbed.game.to_record()
    assert row is not None and calm_row is not None
    assert row.record == calm_row.record == table.game.to_record()
    assert row.status == "over" and table.archived


async def test_a_failed_press_is_undone_logged_once_and_can_be_pressed_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with service_on() as service:
        table = await started(service)
        disk = Disk(service)
        seat, player = actor(table)
        move, deadline, passes = table.move, table.deadline, pick(table, CHOOSE)
        disk.failing = True
        with caplog.at_level(logging.ERROR), pytest.raises(NotSaved) as info:
            await service.act(table.id, player.user_id, move, "bP", passes)
        assert info.value.key == "err.not_saved" and info.value.alert
        errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert len(errors) == 1 and "not saved" in errors[0].getMessage()
        assert errors[0].exc_info is None  # one line, no traceback
        assert (table.move, table.deadline, actor(table)[0]) == (move, deadline, seat)
        assert table.recent == []  # the undone press is not remembered as done
        disk.failing = False
        effects = await service.act(table.id, player.user_id, move, "bP", passes)
        assert any(isinstance(e, fx.TurnPassed) for e in effects)
        with pytest.raises(AlreadyDone):
            await service.act(table.id, player.user_id, move, "bP", passes)


async def test_a_timeout_that_cannot_be_saved_is_tried_again_later() -> None:
    clock = ManualClock()
    async with service_on(clock=clock) as service:
        table = await started(service)
        disk = Disk(service)
        seat, _ = actor(table)
        move = table.move
        assert table.deadline is not None
        clock.now = table.deadline + 1
        disk.failing = True
        effects = await service.timeout(table.id, move)
        assert [type(e) for e in effects] == [fx.TimerChanged]
        assert table.move == move and actor(table)[0] == seat
        assert table.deadline == pytest.approx(clock.now + 5.0)
        disk.failing = False
        effects = await service.timeout(table.id, move)  # went off early: not due yet
        assert table.move == move and not any(isinstance(e, fx.TurnPassed) for e in effects)
        clock.now = table.deadline + 1
        effects = await service.timeout(table.id, move)
        assert table.move == move + 1 and any(isinstance(e, fx.TurnPassed) for e in effects)


def deal_records(kept: object) -> int:
    """The deal records (dicts with "moves") held by ``kept`` through containers and
    slotted objects, a game's own deals aside."""
    count, stack, seen = 0, [kept], set()
    while stack:
        item = stack.pop()
        if id(item) in seen or isinstance(item, Game | str | int):
            continue
        seen.add(id(item))
        if isinstance(item, dict):
            count += "moves" in item
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        else:
            stack.extend(getattr(item, name) for name in getattr(item, "__slots__", ()))
    return count


async def test_the_undo_keeps_the_deal_under_way_not_a_copy_of_the_record() -> None:
    """What a failed save is undone to is rebuilt from the game's own finished deals: a
    copy of the whole record kept beside each game was ~6 KB of objects a deal, a third of
    a long game's memory."""
    async with service_on(clock=(clock := ManualClock())) as service:
        table = await started(service)
        assert table.game is not None
        n = 0
        while len(table.game.finished_deals) < DEALS or table.game.current is None:
            await _step(service, table, clock, n)
            n += 1
        await _step(service, table, clock, n)  # a move of deal 3 (one deal's row written)
        assert deal_records(service.registry.writer._records[table.id]) == 1
        disk = Disk(service)
        disk.failing = True
        stored = table.game.to_record()
        with pytest.raises(NotSaved):
            await _step(service, table, clock, n + 1)
        assert table.game.to_record() == stored
