"""The backend a target names: a SQLite file (:mod:`storage.sqlite`) or a PostgreSQL URL
(:mod:`storage.postgres`)."""

from __future__ import annotations

from .connection import Backend, is_postgres
from .sqlite import SqliteBackend
from .sqlite import check_schema as sqlite_schema

__all__ = ["open_backend", "check_schema"]


async def open_backend(target: str) -> Backend:
    """Open (creating if needed) and migrate the database ``target``.

    Raises :class:`~storage.StorageError` (one line for people) when it cannot be opened,
    is newer than this code, or a migration fails (the database is then unchanged).
    """
    if is_postgres(target):
        # imported only for a URL: asyncpg costs a SQLite bot ~4.5 MB and ~50 ms at start
        from .postgres import PostgresBackend

        return await PostgresBackend.open(target)
    return await SqliteBackend.open(target)


def check_schema(target: str) -> int:
    """The schema version of the database ``target`` (0 if it does not exist yet).

    Raises :class:`~storage.StorageError` when it is not a database or is newer than this
    code, before anything else starts (``python -m bot`` checks this first).
    """
    if is_postgres(target):
        from .postgres import check_schema as postgres_schema

        return postgres_schema(target)
    return sqlite_schema(target)
