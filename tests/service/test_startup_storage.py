"""A database that cannot serve the bot at start-up (its write lock held by another
connection, a full disk) is waited for: each call is tried again after a growing pause, one
WARNING line each; a healthy game is never taken for a damaged one, and the damaged one is
still set aside once the database lets it."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bot.core.model import Status
from bot.core.service import TableService
from tests.service.helpers import actor, open_table, press, service_on, started


class Unwell:
    """Makes the storage's calls named fail (as a full disk or a lock that outlasts the
    busy timeout do): each its first ``times`` calls, or while :attr:`failing`."""

    def __init__(self, service: TableService, *names: str, times: int = 10**6) -> None:
        self.failing = True
        self.calls: dict[str, int] = {}
        for name in names:
            self._wrap(service, name, times)

    def _wrap(self, service: TableService, name: str, times: int) -> None:
        real = getattr(service.storage, name)

        async def call(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] = self.calls.get(name, 0) + 1
            if self.failing and self.calls[name] <= times:
                raise sqlite3.OperationalError("database or disk is full")
            return await real(*args, **kwargs)

        setattr(service.storage, name, call)


async def test_a_full_disk_at_start_up_is_waited_for_and_the_game_resumes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "bot.sqlite3"
    async with service_on(path) as service:
        table = await started(service, chat_id=-1)
        await press(service, table, lambda a: True)
        healthy = (table.id, table.move, actor(table)[0])
        bad = await started(service, chat_id=-2)
    con = sqlite3.connect(path)
    con.execute("UPDATE tables SET state = '{\"seats\": [' WHERE id = ?", (bad.id,))
    con.commit()
    con.close()
    async with service_on(path) as service:
        Unwell(service, "table", "set_aside", "save_table", times=2)
        pauses: list[float] = []

        async def pause(seconds: float) -> None:
            pauses.append(seconds)

        service.registry.steady.sleep = pause
        with caplog.at_level(logging.WARNING):
            effects = await service.resumable.resume()
        assert pauses == [1.0, 2.0] * 3  # each call went through at its third try
        warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
        assert all(r.exc_info is None for r in warnings)
        said = [r.getMessage() for r in warnings]
        assert len(said) == 6 and all("database or disk is full" in m for m in said)
        assert [m.split(" failed")[0] for m in said[::2]] == [  # the most recent first
            f"reading table {bad.id}",
            f"setting table {bad.id} aside",
            f"table {healthy[0]}: saving at start-up",
        ]
        errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
        assert len(errors) == 1 and f"table {bad.id} cannot be resumed" in errors[0]
        assert service.resumable.set_aside == [(bad.id, -2, "ru")]  # the damaged one, once readable
        table_id, move, seat = healthy
        table = open_table(service, -1)
        assert table is not None and table.id == table_id and table.status is Status.PLAYING
        assert table.move == move and actor(table)[0] == seat
        assert any(e.table is table for e in effects)  # shown again
        row = await service.storage.table(table_id)
        assert row is not None and row.status == "playing" and row.move == move
        await press(service, table, lambda a: True)
        assert table.move == move + 1


async def test_a_save_at_start_up_tried_again_keeps_the_table(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Only the save fails (a lock held past the busy timeout): the table is neither set
    aside nor left half-resumed; the pauses grow up to the cap."""
    path = tmp_path / "bot.sqlite3"
    async with service_on(path) as service:
        table = await started(service)
        move = table.move
    async with service_on(path) as service:
        disk = Unwell(service, "save_table")
        pauses: list[float] = []

        async def pause(seconds: float) -> None:
            pauses.append(seconds)
            disk.failing = len(pauses) < 8

        service.registry.steady.sleep = pause
        with caplog.at_level(logging.WARNING):
            await service.resumable.resume()
        assert pauses == [1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0]
        assert disk.calls["save_table"] == 9
        messages = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        assert len(messages) == 8 and all("saving at start-up" in m for m in messages)
        assert service.resumable.set_aside == []
        table = open_table(service, table.chat_id)
        assert table is not None and table.status is Status.PLAYING and table.move == move
