"""The bot's database: one object with every store (tables, users, the archive, the
messages that show the tables)."""

from __future__ import annotations

from typing import Self

from .backends import open_backend
from .shown import ShownStore
from .tables import TableStore
from .users import UserStore

__all__ = ["Storage"]


class Storage(TableStore, ShownStore, UserStore):
    """An open database (:meth:`open`, :meth:`close`) with the queries of every store."""

    @classmethod
    async def open(cls, target: str) -> Self:
        """Open and migrate the SQLite file or PostgreSQL URL ``target`` (see
        :func:`storage.backends.open_backend`)."""
        backend = await open_backend(target)
        try:
            return cls(backend, await backend.tables_with("chat_id"))
        except BaseException:
            await backend.close()
            raise
