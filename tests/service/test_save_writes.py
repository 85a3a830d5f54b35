"""A move's save writes what the move changed: not the seat rows when they are as stored
(fewer statements in every move's transaction)."""

from __future__ import annotations

from typing import Any

from tests.service.helpers import PEOPLE, press, service_on, started


async def test_a_move_leaves_the_stored_seats_alone() -> None:
    async with service_on() as service:
        table = await started(service)
        calls: list[dict[str, Any]] = []
        save_table = service.storage.save_table

        async def spy(*args: Any, **kwargs: Any) -> None:
            calls.append(kwargs)
            await save_table(*args, **kwargs)

        service.storage.save_table = spy  # type: ignore[method-assign]
        await press(service, table, lambda a: True)
        await press(service, table, lambda a: True)
        assert [kw["seats"] for kw in calls] == [None, None]
        assert [kw["move"] for kw in calls] == [table.move - 1, table.move]
        # the seats written when the game started are still there
        [entry] = [e for e in await service.storage.resume_index(0.0) if e.id == table.id]
        assert entry.users == frozenset(p.user_id for p in PEOPLE[: len(table.seats)])
