"""The bot's database: one object with every store (tables, users, the archive)."""

from __future__ import annotations

from .tables import TableStore
from .users import UserStore

__all__ = ["Storage"]


class Storage(TableStore, UserStore):
    """An open database (:meth:`open`, :meth:`close`) with the queries of every store."""
