"""The chats around a table through the core service: the bot removed and added back,
a group migrated to a supergroup, a player who blocks the bot, message ids learned."""

from __future__ import annotations

import pytest

from bot.core import effects as fx
from bot.core.errors import Rejected
from tests.fakes import ManualClock
from tests.service.helpers import (
    GROUP,
    PEOPLE,
    actor,
    kinds,
    lobby_of,
    of,
    press,
    service_on,
    started,
)

NEW_GROUP = -1_000_000_000_100


async def test_the_bot_removed_pauses_and_added_back_resumes() -> None:
    clock = ManualClock()
    async with service_on(clock=clock) as service:
        table = await started(service)
        effects = await service.group_lost(GROUP)
        assert kinds(effects) == ["Paused", "TimerChanged"] and table.paused
        assert await service.group_lost(GROUP) == ()  # already paused
        _, player = actor(table)
        with pytest.raises(Rejected, match="err.paused"):
            await press(service, table, lambda a: True)
        with pytest.raises(Rejected, match="err.paused"):
            service.registry.pressed(table.id)
        clock.advance(3600)
        move = table.move
        assert await service.timeout(table.id, move) == ()  # no timer acts while paused
        assert table.move == move
        effects = await service.group_back(GROUP)
        assert kinds(effects) == ["Resumed", "TimerChanged"] and not table.paused
        assert table.deadline == clock.now + table.settings.turn_time
        row = await service.storage.table(table.id)
        assert row is not None and row.state["paused"] is False


async def test_a_migrated_group_takes_its_tables_and_history_along() -> None:
    async with service_on() as service:
        table = await started(service)
        effects = await service.migrate(GROUP, NEW_GROUP)
        assert kinds(effects) == ["TableMoved"]
        assert table.chat_id == NEW_GROUP
        assert (
            service.registry.open_table(NEW_GROUP) is table
            and service.registry.open_table(GROUP) is None
        )
        row = await service.storage.last_table(NEW_GROUP)
        assert row is not None and row.id == table.id
        assert await service.migrate(GROUP, NEW_GROUP) == ()  # nothing left there


async def test_a_player_who_blocks_the_bot_is_noted_once() -> None:
    async with service_on() as service:
        table = await lobby_of(service, 2)
        effects = await service.blocked(PEOPLE[1].user_id)
        assert kinds(effects) == ["LobbyShown", "PlayerBlocked"]
        assert table.seat_of(PEOPLE[1].user_id) is None  # a lobby seat is freed
        assert not await service.registry.can_write(PEOPLE[1].user_id)
    async with service_on() as service:
        table = await started(service)
        uid = PEOPLE[2].user_id
        [blocked] = of(await service.blocked(uid), fx.PlayerBlocked)
        assert blocked.name == PEOPLE[2].name and table.seat_of(uid) is not None
        writes: list[int] = []

        async def set_private_ok(user_id: int, ok: bool) -> None:
            writes.append(user_id)

        service.storage.set_private_ok = set_private_ok  # type: ignore[method-assign]
        assert await service.blocked(uid) == ()  # the group was told already
        assert writes == []  # and the database too: each failed send lands here
        del service.storage.set_private_ok
        effects = await service.unblocked(PEOPLE[2])
        assert kinds(effects) == ["HandShown"] and await service.registry.can_write(uid)
        seat = table.seat_of(uid)
        assert seat is not None
        # /start again (his buttons were lost): the hand is sent anew, as a new message
        [shown] = of(await service.unblocked(PEOPLE[2]), fx.HandShown)
        assert (shown.seat, shown.anew) == (seat, True)
