"""Persistence of tables and users in SQLite (aiosqlite), with numbered migrations."""

from .db import (
    SCHEMA_VERSION,
    GameArchive,
    Storage,
    StorageError,
    TableRow,
    UserRow,
    check_schema,
)

__all__ = [
    "Storage",
    "StorageError",
    "TableRow",
    "UserRow",
    "GameArchive",
    "SCHEMA_VERSION",
    "check_schema",
]
