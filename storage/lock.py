"""Where the database lives: its path checked (:func:`check_path`), and one bot process per
database, by an OS lock on a side file ``<database>.lock`` (:func:`lock_database`).

Two processes on one file would split Telegram's updates between them and each keep its
own tables in memory, so a second one must refuse to start. The lock is ``fcntl.flock``
(exclusive, non-blocking) on a side file rather than SQLite's ``locking_mode=EXCLUSIVE``:
SQLite takes its exclusive lock only at the first write and then also shuts out every
reader (a backup, ``sqlite3`` in a shell, a statistics query), while ``flock`` is taken
before anything starts, blocks nobody's reads, and is released by the kernel when the
process ends in any way (even ``SIGKILL``), so a crash never leaves a stale lock behind.
The side file holds the owner's process id, for the message.
"""

from __future__ import annotations

import fcntl
import os
from typing import IO

from .connection import StorageError

__all__ = ["DatabaseLock", "lock_database", "check_path"]


def check_path(path: str) -> None:
    """Raise :class:`StorageError` with what is wrong with ``path`` as a place for the
    database, one message per problem, before SQLite gives a vaguer one."""
    if path == ":memory:" or path.startswith("file:"):
        return
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise StorageError(f"DATABASE_PATH {path} is a folder; name a file in it")
    if os.path.exists(path) and not os.path.isfile(path):
        raise StorageError(f"DATABASE_PATH {path} is not a regular file (a device?)")
    if not os.path.isdir(folder):
        raise StorageError(f"the folder of DATABASE_PATH {path} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise StorageError(
            f"the folder of DATABASE_PATH {path} is read-only: the database needs to write "
            "its journal and lock files next to it"
        )
    if os.path.exists(path):
        if not os.access(path, os.R_OK):
            raise StorageError(f"DATABASE_PATH {path} cannot be read (check its permissions)")
        if not os.access(path, os.W_OK):
            raise StorageError(f"DATABASE_PATH {path} is read-only (check its permissions)")


class DatabaseLock:
    """The held lock; :meth:`release` (or the process's end) lets another process in."""

    def __init__(self, file: IO[str] | None) -> None:
        self._file = file

    def release(self) -> None:
        if self._file is not None:
            self._file.close()  # closing the descriptor drops the flock
            self._file = None


def lock_database(path: str) -> DatabaseLock:
    """Take the database's process lock, or raise :class:`StorageError` (one line) when
    another process holds it."""
    if path == ":memory:" or path.startswith("file:"):
        return DatabaseLock(None)
    lock_path = path + ".lock"
    try:
        file = open(lock_path, "a+", encoding="ascii")  # noqa: SIM115 (held until release)
    except OSError as exc:
        raise StorageError(f"cannot create the lock file {lock_path}: {exc.strerror}") from None
    try:
        fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        file.seek(0)
        owner = file.read().strip()[:20] or "?"
        file.close()
        raise StorageError(
            f"the database {path} is in use by another bot process (pid {owner}); "
            "run one process per database"
        ) from None
    file.seek(0)
    file.truncate()
    file.write(str(os.getpid()))
    file.flush()
    return DatabaseLock(file)
