"""A restart through the core service on either backend (SQLite or PostgreSQL): every
table in play resumes where it stopped and one that cannot be read is set aside."""

from __future__ import annotations

from bot.core.model import Status
from storage import Storage
from tests.fakes import ManualClock
from tests.pg_helpers import database_target
from tests.service.helpers import GROUP, actor, press, service_on, started

__all__ = ["database_target"]


async def test_every_table_resumes_and_a_bad_one_is_set_aside(database_target: str) -> None:
    clock = ManualClock()
    before = {}
    async with service_on(database_target, clock=clock) as service:
        for chat in (GROUP, GROUP - 1, GROUP - 2):
            table = await started(service, chat_id=chat)
            await press(service, table, lambda a: True)
            before[chat] = (table.id, table.move, table.deadline, actor(table)[0])
    bad = before[GROUP - 1][0]
    store = await Storage.open(database_target)
    try:
        await store._commit(
            lambda tx: tx.execute(
                "UPDATE tables SET record = ? WHERE id = ?", ('{"format": "no such"}', bad)
            )
        )
    finally:
        await store.close()
    async with service_on(database_target, clock=clock) as service:
        await service.resumable.resume()
        for chat in (GROUP, GROUP - 2):
            again = service.registry.open_table(chat)
            assert again is not None and again.status is Status.PLAYING
            table_id, move, deadline, seat = before[chat]
            assert (again.id, again.move, again.deadline) == (table_id, move, deadline)
            assert actor(again)[0] == seat
        assert service.registry.open_table(GROUP - 1) is None
        row = await service.storage.table(bad)
        assert row is not None and row.status == "cancelled"
