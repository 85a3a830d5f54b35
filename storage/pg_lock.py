"""One bot process per PostgreSQL database: an advisory lock (``flock``'s place).

The lock is taken with ``pg_advisory_lock`` (waiting at most :data:`WAIT` seconds) on a
connection of its own, opened before anything starts and held by a thread with its own
event loop for the whole life of the process (the bot's loop starts later and asyncpg's
connections belong to one loop). The server releases the lock when its connection
ends in any way: a process killed by ``SIGKILL`` closes its socket, so a crash never
leaves a stale lock behind.
"""

from __future__ import annotations

import asyncio
import os
import threading
from typing import Any

import asyncpg  # type: ignore[import-untyped]

from .connection import StorageError, describe
from .lock import DatabaseLock

__all__ = ["PostgresLock", "lock_postgres", "LOCK_KEY", "APP_NAME", "HOLDER"]

LOCK_KEY = 7_346_012_301
"""The advisory lock's key (``bigint``); advisory locks are per database."""
WAIT = 5
"""Seconds to wait for a lock another connection holds before refusing to start."""
APP_NAME = "preferans-bot lock, pid"
"""The lock connection's ``application_name``, followed by the process id."""
HOLDER = (
    "SELECT a.application_name FROM pg_locks AS l JOIN pg_stat_activity AS a "
    "ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted AND l.objid = $1 "
    "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
    "LIMIT 1"
)
"""The ``application_name`` of the connection that holds the lock (``$1``: its low half)."""


class PostgresLock(DatabaseLock):
    """The held advisory lock; :meth:`release` (or the process's end) lets another in."""

    def __init__(self, url: str) -> None:
        super().__init__(None)
        self._url = url
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, name="database-lock", daemon=True)

    def _run(self) -> None:
        try:
            asyncio.run(self._hold())
        except BaseException as exc:  # reported to the starting thread
            self._error = exc
        finally:
            self._ready.set()

    async def _hold(self) -> None:
        from .postgres import connect

        # the connection is named after the process, for the message below and pg_stat_activity
        conn: Any = await connect(self._url, f"{APP_NAME} {os.getpid()}")
        try:
            try:
                # a killed holder's connection ends as soon as the server reads its closed
                # socket: a restart right after a crash waits for that, a second process
                # is refused after the wait
                await conn.execute(f"SET lock_timeout = '{WAIT}s'")
                await conn.execute("SELECT pg_advisory_lock($1)", LOCK_KEY)
                await conn.execute("RESET lock_timeout")
            except asyncpg.LockNotAvailableError:
                owner = await conn.fetchval(HOLDER, LOCK_KEY & 0xFFFFFFFF)
                pid = str(owner or "").removeprefix(APP_NAME).strip() or "?"
                raise StorageError(
                    f"the database {describe(self._url)} is in use by another bot process "
                    f"(pid {pid}); run one process per database"
                ) from None
            self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
            self._ready.set()
            await self._stop.wait()
        finally:
            await conn.close()  # the server drops the lock with its connection

    def acquire(self) -> None:
        self._thread.start()
        self._ready.wait()
        if self._error is not None:
            self._thread.join()
            raise self._error

    def release(self) -> None:
        if self._loop is not None and self._stop is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
            self._thread.join(10)
        self._loop = None


def lock_postgres(url: str) -> PostgresLock:
    """Take the database's process lock, or raise :class:`StorageError` (one line) when
    another process holds it or the server cannot be reached."""
    lock = PostgresLock(url)
    lock.acquire()
    return lock
