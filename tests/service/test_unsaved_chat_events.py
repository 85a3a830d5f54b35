"""A chat's event that cannot be saved: the bot removed from or added
to a group, a group migrated, a player who blocks the bot. Each table is changed on its
own; one that cannot be saved is left as it was, logged in one line, and redone later."""

from __future__ import annotations

import logging
import sqlite3
from typing import Any

import pytest

from bot.core.errors import PartlySaved
from bot.core.service import TableService
from tests.service.helpers import GROUP, PEOPLE, kinds, service_on, started

OTHER_GROUP = GROUP - 1
NEW_GROUP = -1_000_000_000_100


class Disk:
    """Fails the storage's writes of ``tables`` (table ids) and of the named methods."""

    def __init__(self, service: TableService) -> None:
        self.tables: set[int] = set()
        self.methods: set[str] = set()
        storage = service.storage
        real_save = storage.save_table

        async def save_table(table_id: int, *args: Any, **kwargs: Any) -> None:
            if table_id in self.tables:
                raise sqlite3.OperationalError("database or disk is full")
            await real_save(table_id, *args, **kwargs)

        storage.save_table = save_table  # type: ignore[method-assign]
        for name in ("set_private_ok", "save_user", "move_chat"):
            setattr(storage, name, self._failing(name, getattr(storage, name)))

    def _failing(self, name: str, real: Any) -> Any:
        async def write(*args: Any, **kwargs: Any) -> Any:
            if name in self.methods:
                raise sqlite3.OperationalError("database or disk is full")
            return await real(*args, **kwargs)

        return write


def errors(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_group_lost_that_cannot_be_saved_changes_nothing_until_redone(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with service_on() as service:
        table = await started(service)
        disk = Disk(service)
        disk.tables.add(table.id)
        with pytest.raises(PartlySaved) as failed:
            await service.group_lost(GROUP)
        assert failed.value.effects == () and not table.paused
        assert len(errors(caplog)) == 1 and errors(caplog)[0].exc_info is None
        with pytest.raises(PartlySaved):  # still full: still as it was
            await failed.value.redo()
        assert not table.paused
        disk.tables.clear()
        assert kinds(await failed.value.redo()) == ["Paused", "TimerChanged"] and table.paused
        row = await service.storage.table(table.id)
        assert row is not None and row.state["paused"] is True
        assert await service.group_lost(GROUP) == ()  # done once


async def test_a_blocked_player_at_two_tables_the_saved_one_is_shown_the_other_redone() -> None:
    async with service_on() as service:
        first = await started(service)
        second = await started(service, chat_id=OTHER_GROUP)
        uid = PEOPLE[2].user_id
        disk = Disk(service)
        disk.methods.add("set_private_ok")
        with pytest.raises(PartlySaved) as failed:  # his own row: nothing changed yet
            await service.blocked(uid)
        assert failed.value.effects == () and await service.registry.can_write(uid)
        assert not first.blocked_noted and not second.blocked_noted
        disk.methods.clear()
        disk.tables.add(second.id)
        with pytest.raises(PartlySaved) as partly:
            await failed.value.redo()
        assert kinds(partly.value.effects) == ["PlayerBlocked"]
        assert partly.value.effects[0].table is first
        assert uid in first.blocked_noted and uid not in second.blocked_noted
        assert not await service.registry.can_write(uid)
        disk.tables.clear()
        effects = await partly.value.redo()  # only the table left: the group told once
        assert kinds(effects) == ["PlayerBlocked"] and effects[0].table is second
        assert uid in second.blocked_noted


async def test_a_migration_that_cannot_be_saved_moves_nothing_until_redone() -> None:
    async with service_on() as service:
        table = await started(service)
        disk = Disk(service)
        disk.methods.add("move_chat")
        with pytest.raises(PartlySaved) as failed:
            await service.migrate(GROUP, NEW_GROUP)
        assert table.chat_id == GROUP and service.registry.open_table(GROUP) is table
        disk.methods.clear()
        disk.tables.add(table.id)
        with pytest.raises(PartlySaved) as partly:
            await failed.value.redo()
        assert table.chat_id == GROUP  # undone in memory
        disk.tables.clear()
        assert kinds(await partly.value.redo()) == ["TableMoved"]
        assert table.chat_id == NEW_GROUP and service.registry.open_table(NEW_GROUP) is table
        row = await service.storage.last_table(NEW_GROUP)
        assert row is not None and row.id == table.id


async def test_unblocked_that_cannot_be_saved_is_redone_whole() -> None:
    async with service_on() as service:
        table = await started(service)
        uid = PEOPLE[1].user_id
        await service.blocked(uid)
        disk = Disk(service)
        disk.methods.add("save_user")
        with pytest.raises(PartlySaved) as failed:
            await service.unblocked(PEOPLE[1])
        assert not await service.registry.can_write(uid) and uid in table.blocked_noted
        disk.methods.clear()
        assert kinds(await failed.value.redo()) == ["HandShown"]
        assert await service.registry.can_write(uid) and uid not in table.blocked_noted
