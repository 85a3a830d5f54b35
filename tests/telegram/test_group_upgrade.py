"""A group upgraded to a supergroup: Telegram sends two updates (``migrate_to_chat_id`` in
the old group, ``migrate_from_chat_id`` in the new one), handled at the same time; the
tables move once, and the second migration is a no-op at its source."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from bot.core.effects import Effects
from tests.bot_helpers import running_bot


async def test_both_upgrade_updates_move_the_tables_once(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        await h.say(h.users[0], "/newgame")
        table = h.table()
        old = h.group
        service, storage = h.service, h.service.storage
        migrate, move_chat = service.migrate, storage.move_chat
        both = asyncio.Event()
        started: list[tuple[int, int]] = []
        results: list[Effects] = []
        moves: list[tuple[int, int]] = []

        async def counted_migrate(old_id: int, new_id: int) -> Effects:
            started.append((old_id, new_id))
            if len(started) == 2:
                both.set()
            effects = await migrate(old_id, new_id)
            results.append(effects)
            return effects

        async def held_move(old_id: int, new_id: int) -> None:
            # the first move waits until the second update is being handled too
            await both.wait()
            moves.append((old_id, new_id))
            await move_chat(old_id, new_id)

        service_: Any = service
        storage_: Any = storage
        service_.migrate, storage_.move_chat = counted_migrate, held_move
        new = h.fake.upgrade_to_supergroup(old)
        await h.idle()
        assert started == [(old.id, new.id)] * 2  # both updates reached the core
        assert moves == [(old.id, new.id)]  # stored once
        assert table.chat_id == new.id
        assert sorted(len(e) for e in results) == [0, 1]  # the second one changed nothing
        lobbies = [m for m in h.fake.bot_messages(new) if m.buttons]
        assert len(lobbies) == 1
