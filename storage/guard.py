"""Before the bot starts: the database target checked and its one-process lock taken,
for either backend (:mod:`storage.lock` for a SQLite file, :mod:`storage.pg_lock` for a
PostgreSQL URL)."""

from __future__ import annotations

from .connection import is_postgres
from .lock import DatabaseLock, check_path, lock_database

__all__ = ["check_target", "lock_target"]


def check_target(target: str) -> None:
    """A SQLite path's problems as :class:`~storage.StorageError` (a URL is checked by
    connecting, in :func:`lock_target`)."""
    if not is_postgres(target):
        check_path(target)


def lock_target(target: str) -> DatabaseLock:
    """The database's process lock; :class:`~storage.StorageError` when another process
    holds it (or the server cannot be reached)."""
    if not is_postgres(target):
        return lock_database(target)
    from .pg_lock import lock_postgres  # asyncpg only for a URL (storage.backends)

    return lock_postgres(target)
