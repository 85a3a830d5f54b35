"""PostgreSQL's one-process lock lost with its connection while the bot runs (a server
restart, the network): taken again when nobody else holds it, else the bot is told to stop
(one ERROR line), so two bot processes never go on side by side."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from storage.pg_lock import APP_NAME, LOCK_KEY, PostgresLock
from tests.pg_helpers import fresh_database, need_server

HOLDERS = (
    "SELECT pid, granted FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 "
    "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
)


async def _until(what: str, ok: Callable[[], Awaitable[bool]], timeout: float = 30.0) -> None:
    """Wait until ``ok()``; the timeout only bounds a hang."""
    deadline = time.monotonic() + timeout
    while not await ok():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        await asyncio.sleep(0.05)


async def _holders(conn: Any) -> list[tuple[int, bool]]:
    return [(r[0], r[1]) for r in await conn.fetch(HOLDERS, LOCK_KEY & 0xFFFFFFFF)]


async def _connect(url: str, name: str = "test") -> Any:
    import asyncpg  # type: ignore[import-untyped]

    return await asyncpg.connect(url, server_settings={"application_name": name})


async def test_a_lock_lost_with_its_connection_is_taken_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    need_server()
    async with fresh_database() as url:
        lost: list[str] = []
        lock = PostgresLock(url, every=0.1)
        lock.on_lost = lost.append
        lock.acquire()
        admin = await _connect(url)
        try:
            [(pid, granted)] = await _holders(admin)
            assert granted
            with caplog.at_level(logging.WARNING, logger="storage.pg_lock"):
                await admin.execute("SELECT pg_terminate_backend($1)", pid)  # a server restart

                async def again() -> bool:
                    return [h for h in await _holders(admin) if h[1] and h[0] != pid] != []

                await _until("the lock taken again", again)
            assert lock.lost is None and lost == []
            lines = [r.getMessage() for r in caplog.records]
            assert lines[0].startswith("the database lock: its connection was lost")
            assert lines[-1] == "the database lock is held again (no other bot process took it)"
            lock.release()

            async def free() -> bool:
                return await _holders(admin) == []

            await _until("the lock released", free)
        finally:
            lock.release()
            await admin.close()


async def test_a_lock_another_process_took_meanwhile_stops_the_bot(
    caplog: pytest.LogCaptureFixture,
) -> None:
    need_server()
    async with fresh_database() as url:
        told = threading.Event()
        lost: list[str] = []

        def on_lost(reason: str) -> None:
            lost.append(reason)
            told.set()

        lock = PostgresLock(url, every=0.1)
        lock.on_lost = on_lost
        lock.acquire()
        admin = await _connect(url)
        other = await _connect(url, f"{APP_NAME} 4242")  # a second bot process, waiting
        try:
            [(pid, granted)] = await _holders(admin)
            assert granted
            waiting = asyncio.create_task(other.execute("SELECT pg_advisory_lock($1)", LOCK_KEY))

            async def queued() -> bool:
                return len(await _holders(admin)) == 2

            await _until("the second process waiting", queued)
            with caplog.at_level(logging.WARNING, logger="storage.pg_lock"):
                await admin.execute("SELECT pg_terminate_backend($1)", pid)
                await waiting  # the waiting one gets the lock the moment it is dropped
                assert await asyncio.to_thread(told.wait, 30)
            assert lost == [lock.lost]
            assert lock.lost == (
                f"the database {url} is in use by another bot process (pid 4242) since this "
                "one's lock was lost with its connection; this one stops"
            )
            errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
            assert [r.getMessage() for r in errors] == [lock.lost]
            [(holder, granted)] = await _holders(admin)  # this one did not take it back
            assert granted and holder != pid
        finally:
            lock.release()
            await other.close()
            await admin.close()
