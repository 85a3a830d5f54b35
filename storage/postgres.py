"""The PostgreSQL backend, for hosts without a lasting disk (``DATABASE_URL``).

The driver is asyncpg: a maintained asyncio-native driver (MagicStack, releases for every
new Python and PostgreSQL), with its own implementation of PostgreSQL's binary protocol
rather than a wrapper over libpq, so it needs no system library, ships wheels for the
usual platforms, and is the fastest Python driver for PostgreSQL. The bot speaks SQL with
``?`` placeholders; they become ``$1, $2…`` here.

One connection, used by one coroutine at a time, as SQLite's: writes are group-committed
(one transaction, one savepoint per job); the schema version lives in ``schema_version``
(PostgreSQL has no ``user_version``).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import Any, Self

import asyncpg  # type: ignore[import-untyped]

from .connection import (
    SCHEMA_VERSION,
    ConstraintError,
    Fetch,
    GroupCommit,
    Job,
    StorageError,
    describe,
    migrations,
    newer_error,
    statements,
)

__all__ = ["PostgresBackend", "check_schema", "connect"]

log = logging.getLogger(__name__)

_MIGRATION_LOCK = 4_242_007
"""``pg_advisory_xact_lock`` key: two processes starting together migrate one at a time."""


@cache
def numbered(sql: str) -> str:
    """``?`` placeholders as PostgreSQL's ``$1, $2…`` (no ``?`` inside our literals)."""
    count = 0

    def number(_: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return f"${count}"

    return re.sub(r"\?", number, sql)


async def connect(url: str, name: str = "preferans-bot") -> Any:
    """An asyncpg connection to ``url`` (``application_name`` ``name``), or
    :class:`StorageError` in one line."""
    try:
        return await asyncpg.connect(url, timeout=30, server_settings={"application_name": name})
    except (TimeoutError, OSError, asyncpg.PostgresError, ValueError) as exc:
        raise StorageError(f"cannot connect to the database {describe(url)}: {exc}") from None


async def _version(conn: Any) -> int:
    exists = await conn.fetchval("SELECT to_regclass('schema_version') IS NOT NULL")
    if not exists:
        return 0
    return int(await conn.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_version"))


def check_schema(url: str) -> int:
    """The schema version of the database at ``url`` (0 if it has no tables yet)."""

    async def check() -> int:
        conn = await connect(url)
        try:
            return await _version(conn)
        finally:
            await conn.close()

    # a thread of its own: callable also where an event loop runs (asyncio.run refuses)
    with ThreadPoolExecutor(1) as pool:
        version = pool.submit(asyncio.run, check()).result()
    if version > SCHEMA_VERSION:
        raise newer_error(url, version, SCHEMA_VERSION)
    return version


class _Recorder:
    """A :class:`~storage.connection.Tx` that keeps a job's statements to run them."""

    def __init__(self) -> None:
        self.statements: list[tuple[str, list[Sequence[Any]], bool]] = []

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> None:
        self.statements.append((numbered(sql), [tuple(parameters)], False))

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> None:
        self.statements.append((numbered(sql), [tuple(p) for p in parameters], True))


class PostgresBackend:
    """An open PostgreSQL database; use :meth:`open` and :meth:`close`."""

    open_filter = (
        "WHERE status IN ('lobby', 'playing') OR (status = 'over' AND CASE WHEN "
        "json_valid(state) THEN (state::jsonb -> 'settlement_shown') IN ('false', '0') "
        "OR CASE WHEN jsonb_typeof(state::jsonb -> 'unshown_ends') = 'array' "
        "THEN jsonb_array_length(state::jsonb -> 'unshown_ends') > 0 ELSE false END "
        "ELSE false END)"
    )
    """Tables to resume, as SQLite's filter (``json_valid`` is migration 001's function)."""

    def __init__(self, conn: Any, target: str) -> None:
        self._writes = GroupCommit(self._run_batch, _error)
        self._lock = self._writes.lock  # asyncpg refuses overlapping use of a connection
        self.commit = self._writes.commit
        self._conn = conn
        self.target = target

    @classmethod
    async def open(cls, url: str) -> Self:
        conn = await connect(url)
        try:
            await _migrate(conn, url, migrations("postgres"))
        except BaseException:
            await conn.close()
            raise
        return cls(conn, url)

    async def close(self) -> None:
        await self._writes.wait()
        await self._conn.close()

    async def _connection(self) -> Any:
        """(Under the lock.) The connection, opened again if the server closed it (a
        restart or a failover of a managed database): what was under way when it closed
        failed, the next use goes through."""
        if self._conn.is_closed():
            log.warning("the database connection was closed; connecting again")
            self._conn = await connect(self.target)
        return self._conn

    async def _run_batch(self, jobs: list[Job]) -> list[tuple[bool, Any]]:
        results: list[tuple[bool, Any]] = []
        await self._connection()
        async with self._conn.transaction():
            for job in jobs:
                tx = _Recorder()
                try:
                    value = job(tx)
                except Exception as exc:  # the job failed before any statement ran
                    results.append((False, exc))
                    continue
                try:
                    async with self._conn.transaction():  # a savepoint
                        for sql, rows, many in tx.statements:
                            if many:
                                if rows:
                                    await self._conn.executemany(sql, rows)
                            else:
                                await self._conn.execute(sql, *rows[0])
                except Exception as exc:  # this job alone, as SQLite's savepoints
                    if self._conn.is_closed():
                        raise  # the whole batch failed
                    results.append((False, _error(exc)))
                else:
                    results.append((True, value))
        return results

    async def fetch(self, sql: str, args: Sequence[Any] = ()) -> list[Sequence[Any]]:
        async with self._lock:
            return await self._fetch(sql, args)

    async def _fetch(self, sql: str, args: Sequence[Any] = ()) -> list[Sequence[Any]]:
        try:
            return list(await (await self._connection()).fetch(numbered(sql), *args))
        except asyncpg.PostgresError as exc:
            raise _error(exc) from exc

    async def write_fetch(self, sql: str, args: Sequence[Any] = ()) -> list[Sequence[Any]]:
        return await self.fetch(sql, args)  # one statement: its own transaction

    async def reads(self, body: Callable[[Fetch], Awaitable[Any]]) -> Any:
        async with self._lock:
            await self._connection()
            async with self._conn.transaction(isolation="repeatable_read"):
                return await body(self._fetch)

    async def schema_version(self) -> int:
        async with self._lock:
            return await _version(await self._connection())

    async def tables_with(self, column: str) -> list[str]:
        rows = await self.fetch(
            "SELECT table_name FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND column_name = ? "
            "AND table_name IN (SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE') "
            "ORDER BY table_name",
            (column,),
        )
        return [str(r[0]) for r in rows]


def _error(exc: BaseException) -> BaseException:
    """A constraint violation as :class:`ConstraintError`; anything else as it is."""
    if isinstance(exc, asyncpg.IntegrityConstraintViolationError):
        return ConstraintError(str(exc))
    return exc


async def _migrate(conn: Any, url: str, todo: list[tuple[int, str, str]]) -> None:
    """The migrations newer than the database's version, in one transaction or none."""
    name = ""
    try:
        async with conn.transaction():
            await conn.execute(f"SELECT pg_advisory_xact_lock({_MIGRATION_LOCK})")
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"
            )
            version = await _version(conn)
            if version > len(todo):
                raise newer_error(url, version, len(todo))
            for number, name, sql in todo[version:]:
                log.info("applying migration %s", name)
                for statement in statements(sql):
                    await conn.execute(statement)
                await conn.execute("DELETE FROM schema_version")
                await conn.execute("INSERT INTO schema_version VALUES ($1)", number)
    except asyncpg.PostgresError as exc:
        raise StorageError(
            f"database {describe(url)}: migration {name} failed ({exc}); nothing was changed"
        ) from None
