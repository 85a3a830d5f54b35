"""Persistence of tables and users in SQLite (aiosqlite, the default) or PostgreSQL
(asyncpg, with ``DATABASE_URL``), with numbered migrations.

``connection`` opens and migrates the database through its backend (``sqlite``,
``postgres``), ``rows`` are the typed rows, and one store per idea (``tables``, ``users``,
``archive``) holds the queries; :class:`Storage` has them all. ``guard`` checks the target
and takes the one-process lock. Nothing here imports the bot: the bot builds the rows it
stores.
"""

from .backends import check_schema
from .connection import SCHEMA_VERSION, StorageError, describe, is_postgres
from .db import Storage
from .guard import check_target, lock_target
from .lock import DatabaseLock, check_path, lock_database
from .rows import GameArchive, HolderRow, PlayerRow, ResumeEntry, ShownRow, TableRow, UserRow

__all__ = [
    "Storage",
    "StorageError",
    "TableRow",
    "ShownRow",
    "ResumeEntry",
    "UserRow",
    "HolderRow",
    "PlayerRow",
    "GameArchive",
    "SCHEMA_VERSION",
    "check_schema",
    "DatabaseLock",
    "lock_database",
    "check_path",
    "check_target",
    "lock_target",
    "describe",
    "is_postgres",
]
