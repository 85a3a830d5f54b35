"""A player's open tables (``Registry.tables_of``, asked for each hand message rendered):
found through the seats noted at every change, not by reading every table's seats."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.core.model import Table
from bot.core.service import TableService
from tests.service.helpers import GROUP, PEOPLE, lobby_of, service_on, started


def _ids(service: TableService, user_id: int) -> list[int]:
    return [tb.id for tb in service.registry.tables_of(user_id)]


async def test_a_players_tables_follow_his_seats() -> None:
    async with service_on() as service:
        anna, boris, vera = PEOPLE[:3]
        first = await lobby_of(service, 2)  # Anna and Boris
        second = await lobby_of(service, 1, chat_id=GROUP - 1)  # Anna
        assert _ids(service, anna.user_id) == [first.id, second.id]
        assert _ids(service, boris.user_id) == [first.id]
        assert _ids(service, vera.user_id) == []
        await service.stand(first.id, boris.user_id)
        assert _ids(service, boris.user_id) == []
        await service.registry.remember_user(vera, private_ok=True)
        await service.sit(first.id, vera)
        assert _ids(service, vera.user_id) == [first.id]
        await service.cancel(second.id, anna.user_id)  # closed: not an open table
        assert _ids(service, anna.user_id) == [first.id]
        assert service.registry.forget(second.id)
        await service.sit(first.id, boris)
        assert _ids(service, boris.user_id) == [first.id]


async def test_resumed_tables_are_found(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    async with service_on(path) as service:
        table = await started(service)
    async with service_on(path) as service:
        await service.resumable.resume()
        for player in PEOPLE[:3]:
            assert _ids(service, player.user_id) == [table.id]
        assert _ids(service, PEOPLE[3].user_id) == []


async def test_only_the_players_own_tables_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each hand rendered asks for its player's tables: the other tables' seats are not
    read (that scan grew with the tables held: ~126 us at 200 tables, timed alone)."""
    async with service_on() as service:
        mine = await lobby_of(service, 1)  # Anna
        for n in range(1, 6):  # five more lobbies, Gleb's, where Anna does not sit
            await service.open_lobby(GROUP - n, PEOPLE[3], "Клуб")
        assert len([tb for tb in service.registry.tables.values() if tb.status.open]) == 6
        read: list[int] = []
        seat_of = Table.seat_of

        def counted(table: Table, user_id: int) -> Any:
            read.append(table.id)
            return seat_of(table, user_id)

        monkeypatch.setattr(Table, "seat_of", counted)
        assert _ids(service, PEOPLE[0].user_id) == [mine.id]
        assert read == [mine.id]
