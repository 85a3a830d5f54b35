"""What was played, read for the players: finished games, statistics, records.

A part of :class:`~bot.core.service.TableService` (``service.archive``): the Telegram side
reads the archive (:mod:`storage.archive`) only through it, for ``/history``, ``/stats``,
``/top``, ``/export`` and ``/pulka``. Nothing here changes anything.
"""

from __future__ import annotations

from typing import Any

from storage import Storage, archive
from storage.archive import GameSummary, Totals

from .model import Status

__all__ = ["Archive", "GameSummary", "Totals", "Record"]

Record = tuple[int, dict[str, Any]]
"""A game's table id and its ``preferans-record/1`` record."""


class Archive:
    """The finished and stopped games in the storage."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    async def games(
        self, *, chat_id: int | None = None, user_id: int | None = None, limit: int = 10
    ) -> list[GameSummary]:
        """The last ``limit`` games of a chat, or of a player in every chat, newest first."""
        if chat_id is not None:
            return await archive.history(self.storage, chat_id, limit)
        return await archive.history(self.storage, user_id=user_id, limit=limit)

    async def totals(self, user_id: int, chat_id: int | None = None) -> Totals:
        """A player's statistics in one chat, or over every chat (``chat_id=None``)."""
        return await archive.totals(self.storage, user_id, chat_id)

    async def top(self, chat_id: int, limit: int, *, robots: bool = False) -> list[Totals]:
        """The chat's people (or its computer players) by net whists, best first."""
        return await archive.top(self.storage, chat_id, limit, robots=robots)

    async def last_of_chat(self, chat_id: int) -> Record | None:
        """The record of the chat's last finished or stopped game; one the archive does not
        hold is read from its table."""
        found = await archive.last_record(self.storage, chat_id=chat_id)
        if found is not None:
            return found
        row = await self.storage.last_table(chat_id)
        if row is not None and row.record and row.status == Status.OVER:
            return row.id, row.record
        return None

    async def last_of_player(self, user_id: int) -> Record | None:
        """The record of the last finished or stopped game ``user_id`` played."""
        return await archive.last_record(self.storage, user_id=user_id)
