"""Where the database lives: its path checked (:func:`check_path`), and one bot process per
database, by an OS lock on the database file itself (:func:`lock_database`).

Two processes on one file would split Telegram's updates between them and each keep its
own tables in memory, so a second one must refuse to start. The lock is ``fcntl.flock``
(exclusive, non-blocking) rather than SQLite's ``locking_mode=EXCLUSIVE``:
SQLite takes its exclusive lock only at the first write and then also shuts out every
reader (a backup, ``sqlite3`` in a shell, a statistics query), while ``flock`` is taken
before anything starts, blocks nobody's reads, and is released by the kernel when the
process ends in any way (even ``SIGKILL``), so a crash never leaves a stale lock behind.

It is taken on the database file, not on a file named after the path: a lock belongs to
the file (its inode), so a second process that reaches the same file through a symlink or
a hard link meets it too, where a side file ``<path>.lock`` would differ with the path.
``flock`` does not touch SQLite's own locks (``fcntl`` record locks on Linux). The lock's
descriptor stays open until :meth:`DatabaseLock.release`, after the database is closed:
closing a descriptor of the file drops the process's record locks, SQLite's included.
The side file ``<path>.lock`` holds the owner's process id, for the message only.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable

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

    def __init__(self, fd: int | None) -> None:
        self._fd = fd
        self.lost: str | None = None
        """Why the lock was lost while the process ran (a file's lock never is; PostgreSQL's
        can be, with its connection: :mod:`storage.pg_lock`)."""
        self.on_lost: Callable[[str], None] | None = None
        """Called (from another thread) once the lock is lost for good, with :attr:`lost`."""

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = None


def lock_database(path: str) -> DatabaseLock:
    """Take the database's process lock, or raise :class:`StorageError` (one line) when
    another process holds it. The database file is created empty if it is missing (an
    empty file is a new database to SQLite)."""
    if path == ":memory:" or path.startswith("file:"):
        return DatabaseLock(None)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise StorageError(f"cannot open the database {path}: {exc.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        owner = _owner(path)
        raise StorageError(
            f"the database {path} is in use by another bot process"
            + (f" (pid {owner})" if owner else "")
            + "; run one process per database"
        ) from None
    lock = DatabaseLock(fd)
    try:  # the owner's id, for another process's message; the lock does not depend on it
        with open(path + ".lock", "w", encoding="ascii") as side:
            side.write(str(os.getpid()))
    except OSError:
        pass
    return lock


def _owner(path: str) -> str:
    """The holder's process id as its side file says, at the path given or the real one
    (through a symlink); empty when unknown (a hard link names no other path)."""
    for candidate in dict.fromkeys((path, os.path.realpath(path))):
        try:
            with open(candidate + ".lock", encoding="ascii") as side:
                owner = side.read().strip()[:20]
        except OSError:
            continue
        if owner.isdigit():
            return owner
    return ""
