"""Persistence of tables and users in SQLite (aiosqlite), with numbered migrations.

``connection`` opens and migrates the file, ``rows`` are the typed rows, and one store per
idea (``tables``, ``users``, ``archive``) holds the queries; :class:`Storage` has them all.
Nothing here imports the bot: the bot builds the rows it stores.
"""

from .connection import SCHEMA_VERSION, StorageError, check_schema
from .db import Storage
from .lock import DatabaseLock, check_path, lock_database
from .rows import GameArchive, HolderRow, PlayerRow, TableRow, UserRow

__all__ = [
    "Storage",
    "StorageError",
    "TableRow",
    "UserRow",
    "HolderRow",
    "PlayerRow",
    "GameArchive",
    "SCHEMA_VERSION",
    "check_schema",
    "DatabaseLock",
    "lock_database",
    "check_path",
]
