"""Persistence of tables and users in SQLite (aiosqlite), with numbered migrations."""

from .db import SCHEMA_VERSION, Storage, StorageError, TableRow, UserRow

__all__ = ["Storage", "StorageError", "TableRow", "UserRow", "SCHEMA_VERSION"]
