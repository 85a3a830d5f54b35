"""The tables the service holds, and what can be read of them and of users without a change.

:class:`~bot.core.service.TableService` builds on it; nothing here locks or saves a table.
"""

from __future__ import annotations

import asyncio
from typing import Any

from bot.preferans.game import Game
from bot.preferans.policy import public_record
from storage import Storage

from .model import NOTIFY_MODES, Player, Status, Table
from .persist import Writer
from .play import Rejected

__all__ = ["TableRegistry"]


class TableRegistry:
    """The bot's tables in memory, looked up by id, chat or player; the users' settings."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.tables: dict[int, Table] = {}
        self._notify: dict[int, str] = {}
        self._autoplay: dict[int, bool] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        self._writer = Writer(storage)

    def _table(self, table_id: int) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise Rejected("err.stale")
        return table

    def _pressed(self, table_id: int) -> Table:
        """The table a player's press or command changes: not while it is paused."""
        table = self._table(table_id)
        if table.paused:
            raise Rejected("err.paused")
        return table

    # ------------------------------------------------------------------ reading

    def get(self, table_id: int) -> Table | None:
        return self.tables.get(table_id)

    def open_table(self, chat_id: int) -> Table | None:
        """The chat's table in the lobby or in play."""
        for table in self.tables.values():
            if table.chat_id == chat_id and table.status.open:
                return table
        return None

    def tables_of(self, user_id: int) -> list[Table]:
        """Open tables where ``user_id`` sits."""
        return [
            tb for tb in self.tables.values() if tb.status.open and tb.seat_of(user_id) is not None
        ]

    async def last_game(self, chat_id: int) -> tuple[Table, Game] | None:
        """The chat's current or most recent game (for ``/pulka``)."""
        table = self.open_table(chat_id)
        if table is not None and table.game is not None:
            return table, table.game
        old = await self._writer.load_last(chat_id, self.tables)
        return (old, old.game) if old is not None and old.game is not None else None

    async def chat_lang(self, chat_id: int) -> str | None:
        """The language of the chat's open or most recent table (``None``: never had one)."""
        table = self.open_table(chat_id)
        if table is not None:
            return table.settings.lang
        row = await self.storage.last_table(chat_id)
        lang = row.settings.get("lang") if row is not None else None
        return lang if isinstance(lang, str) else None

    def live_record(self, table: Table) -> dict[str, Any] | None:
        """The public record of a game in play (its current deal left out), for /export."""
        if table.status != Status.PLAYING or table.game is None:
            return None
        return public_record(table.game)

    def joinable(self, table_id: int) -> Table:
        """The table a deep link names, unless it cannot be joined now."""
        table = self._table(table_id)
        if table.paused:
            raise Rejected("err.paused")
        return table

    # ------------------------------------------------------------------ users

    async def remember_user(self, player: Player, *, private_ok: bool | None = None) -> None:
        await self.storage.save_user(player.user_id, player.name, player.lang, private_ok)

    async def notify_mode(self, user_id: int) -> str:
        """The player's turn-notification setting (:data:`NOTIFY_MODES`), cached."""
        mode = self._notify.get(user_id)
        if mode is None:
            mode = self._notify[user_id] = await self.storage.notify_mode(user_id)
        return mode

    async def set_notify_mode(self, player: Player, mode: str) -> None:
        """Store the player's turn-notification setting."""
        if mode not in NOTIFY_MODES:
            raise Rejected("err.illegal")
        await self.remember_user(player)
        await self.storage.set_notify_mode(player.user_id, mode)
        self._notify[player.user_id] = mode

    async def autoplay(self, user_id: int) -> bool:
        """Whether the player's forced cards play themselves (issue 15), cached."""
        on = self._autoplay.get(user_id)
        if on is None:
            on = self._autoplay[user_id] = await self.storage.autoplay(user_id)
        return on

    async def set_autoplay(self, player: Player, on: bool) -> None:
        await self.remember_user(player)
        await self.storage.set_autoplay(player.user_id, on)
        self._autoplay[player.user_id] = on

    async def can_write(self, user_id: int) -> bool:
        row = await self.storage.user(user_id)
        return bool(row and row.private_ok)

    def _in_chat(self, chat_id: int) -> list[Table]:
        return [tb for tb in list(self.tables.values()) if tb.chat_id == chat_id]


    def forget(self, table_id: int) -> bool:
        """Drop a closed table from memory (its rows stay); ``False`` while it is not done
        (open, busy, or something of it still to be shown)."""
        table = self.tables.get(table_id)
        if table is None:
            return True
        lock = self._locks.get(table_id)
        if table.status.open or (lock and lock.locked()) or table.unshown.anything:
            return False
        del self.tables[table_id]
        self._locks.pop(table_id, None)
        self._writer.forget(table_id)
        return True

