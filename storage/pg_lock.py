"""One bot process per PostgreSQL database: an advisory lock (``flock``'s place).

The lock is taken with ``pg_advisory_lock`` (waiting at most :data:`WAIT` seconds) on a
connection of its own, opened before anything starts and held by a thread with its own
event loop for the whole life of the process (the bot's loop starts later and asyncpg's
connections belong to one loop). The server releases the lock when its connection
ends in any way: a process killed by ``SIGKILL`` closes its socket, so a crash never
leaves a stale lock behind.

The connection can also end under a running bot (the server restarted, the network cut,
``pg_terminate_backend``), and the lock with it: then a second process could take it and
both would run. So the lock is checked every :data:`CHECK_EVERY` seconds (one cheap query
on its connection); a lost lock is taken again at once on a new connection if nobody else
holds it (a server restart need not stop the bot), and if another process took it
meanwhile, this one is told (:attr:`~storage.lock.DatabaseLock.on_lost`: the bot stops)
with one ERROR line. While the server cannot be reached the lock is tried again at each
check (the bot cannot save anything meanwhile either).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from typing import Any

import asyncpg  # type: ignore[import-untyped]

from .connection import StorageError, describe
from .lock import DatabaseLock

__all__ = ["PostgresLock", "lock_postgres", "LOCK_KEY", "APP_NAME", "HOLDER", "CHECK_EVERY"]

log = logging.getLogger(__name__)

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
HELD = (
    "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted "
    "AND pid = pg_backend_pid() AND objid = $1)"
)
"""Whether this connection holds the lock (``$1``: its low half)."""
CHECK_EVERY = 10.0
"""Seconds between two checks that the lock is still held (two processes could run this
long at most, after a lost connection let another one in)."""


class PostgresLock(DatabaseLock):
    """The held advisory lock; :meth:`release` (or the process's end) lets another in."""

    def __init__(self, url: str, every: float = CHECK_EVERY) -> None:
        super().__init__(None)
        self._url = url
        self._every = every
        self._unreachable = False
        """The last try to take a lost lock again could not reach the server."""
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

    async def _connect(self) -> Any:
        from .postgres import connect

        # named after the process, for the messages below and pg_stat_activity
        return await connect(self._url, f"{APP_NAME} {os.getpid()}")

    async def _hold(self) -> None:
        conn: Any = await self._connect()
        try:
            try:
                # a killed holder's connection ends as soon as the server reads its closed
                # socket: a restart right after a crash waits for that, a second process
                # is refused after the wait
                await conn.execute(f"SET lock_timeout = '{WAIT}s'")
                await conn.execute("SELECT pg_advisory_lock($1)", LOCK_KEY)
                await conn.execute("RESET lock_timeout")
            except asyncpg.LockNotAvailableError:
                raise StorageError(
                    f"the database {describe(self._url)} is in use by another bot process "
                    f"(pid {await _holder(conn)}); run one process per database"
                ) from None
            self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
            self._ready.set()
            while not await self._released_within(self._every):
                conn = await self._check(conn)
                if self.lost is not None:
                    return
        finally:
            if conn is not None:
                await conn.close()  # the server drops the lock with its connection

    async def _released_within(self, seconds: float) -> bool:
        assert self._stop is not None
        try:
            await asyncio.wait_for(self._stop.wait(), seconds)
        except TimeoutError:
            return False
        return True

    async def _check(self, conn: Any | None) -> Any | None:
        """The lock's connection after a check: the same one while it holds the lock, a new
        one that took it again, or ``None`` (the server out of reach, or the lock lost for
        good: :attr:`lost` set)."""
        if conn is not None:
            try:
                if await asyncio.wait_for(conn.fetchval(HELD, LOCK_KEY & 0xFFFFFFFF), WAIT):
                    return conn
                why = "it is not held any more"
            except Exception as exc:  # noqa: BLE001 - the connection is gone, whatever the error
                why = f"its connection was lost ({type(exc).__name__})"
            log.warning("the database lock: %s; taking it again", why)
            conn.terminate()
        return await self._take_again()

    async def _take_again(self) -> Any | None:
        """Take the lost lock on a new connection, unless another process holds it now."""
        try:
            conn = await asyncio.wait_for(self._connect(), WAIT)
        except (StorageError, TimeoutError) as exc:
            if not self._unreachable:
                log.warning("the database lock cannot be taken again yet: %s", exc)
            self._unreachable = True
            return None
        self._unreachable = False
        try:
            if await conn.fetchval("SELECT pg_try_advisory_lock($1)", LOCK_KEY):
                log.warning("the database lock is held again (no other bot process took it)")
                return conn
            owner = await _holder(conn)
        except Exception as exc:  # noqa: BLE001 - lost again: tried at the next check
            log.warning("the database lock cannot be taken again yet: %r", exc)
            conn.terminate()
            return None
        await conn.close()
        self.lost = (
            f"the database {describe(self._url)} is in use by another bot process (pid "
            f"{owner}) since this one's lock was lost with its connection; this one stops"
        )
        log.error("%s", self.lost)
        if self.on_lost is not None:
            self.on_lost(self.lost)
        return None

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


async def _holder(conn: Any) -> str:
    """The process id of the bot process that holds the lock, as its connection's name says."""
    owner = await conn.fetchval(HOLDER, LOCK_KEY & 0xFFFFFFFF)
    return str(owner or "").removeprefix(APP_NAME).strip() or "?"


def lock_postgres(url: str) -> PostgresLock:
    """Take the database's process lock, or raise :class:`StorageError` (one line) when
    another process holds it or the server cannot be reached."""
    lock = PostgresLock(url)
    lock.acquire()
    return lock
