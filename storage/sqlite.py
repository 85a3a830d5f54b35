"""The SQLite backend (aiosqlite): the embedded default, a file at ``DATABASE_PATH``.

Migrations run at start-up inside one transaction and set ``PRAGMA user_version``. WAL
and foreign keys are on. Reads go to aiosqlite's thread; writes are written on the event
loop's own thread, the jobs queued meanwhile in one transaction (group commit, one fsync
for all of them): see :meth:`SqliteBackend._run_batch`.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Self

import aiosqlite

from .connection import (
    SCHEMA_VERSION,
    ConstraintError,
    Fetch,
    GroupCommit,
    Job,
    StorageError,
    migrations,
    newer_error,
    statements,
)

__all__ = ["SqliteBackend", "check_schema"]

log = logging.getLogger(__name__)

COMPACT_DEALS = 6
"""The migration that drops the deal rows an archived record holds: the file is compacted
(``VACUUM``) once after it, outside its transaction."""


def check_schema(path: str) -> int:
    """The schema version of the SQLite file at ``path`` (0 if it does not exist yet)."""
    if path == ":memory:" or path.startswith("file:"):
        return 0
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.OperationalError:
        return 0  # no file yet: created at start-up
    try:
        version = int(con.execute("PRAGMA user_version").fetchone()[0])
    except sqlite3.DatabaseError as exc:
        raise StorageError(f"database {path} cannot be read: {exc}") from None
    finally:
        con.close()
    if version > SCHEMA_VERSION:
        raise newer_error(path, version, SCHEMA_VERSION)
    return version


class SqliteBackend:
    """An open SQLite database; use :meth:`open` and :meth:`close`."""

    open_filter = (
        "WHERE status IN ('lobby', 'playing') OR (status = 'over' AND CASE WHEN "
        "json_valid(state) THEN json_extract(state, '$.settlement_shown') = 0 "
        "OR json_array_length(state, '$.unshown_ends') > 0 ELSE 0 END)"
    )
    """Tables to resume (a finished one whose state cannot be read is not waited for)."""

    def __init__(self, db: aiosqlite.Connection, target: str) -> None:
        self._writes = GroupCommit(self._run_batch)
        self._lock = self._writes.lock
        self.commit = self._writes.commit
        self._db = db
        self.target = target

    @classmethod
    async def open(cls, path: str) -> Self:
        try:
            # used by the event loop's thread too (for writes, under the writer's lock)
            db = await aiosqlite.connect(path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise StorageError(f"cannot open the database {path}: {exc}") from None
        try:
            db.row_factory = aiosqlite.Row
            store = cls(db, path)
            # aiosqlite's own thread hop (untyped): the set-up's ~30 statements in one
            await db._execute(  # type: ignore[no-untyped-call]
                _set_up, db._conn, path, migrations()
            )
        except sqlite3.Error as exc:
            await db.close()
            raise StorageError(f"cannot use the database {path}: {exc}") from None
        except BaseException:
            await db.close()
            raise
        return store

    async def close(self) -> None:
        await self._writes.wait()
        await self._db.close()

    async def _run_batch(self, jobs: list[Job]) -> list[tuple[bool, Any]]:
        """Write the batch here, on the event loop's thread (under the writer's lock, so no
        read is running on aiosqlite's thread meanwhile).

        Not on aiosqlite's thread: the database thread sleeps between two moves and the
        event loop often sleeps while it writes, and each wake-up costs far more than the
        write. A move's save (~60 us of SQLite alone, timed back to back) cost ~630 us of
        CPU with the hop and ~370 us here, saves 10 ms apart on the shared 2-core machine;
        under the load benchmark the database thread alone spent ~0.5 ms of CPU a save
        (tests/perf/README.md). The loop waits for the commit's fsync: ~0.1 ms on that
        machine's disk, one for all the moves of a batch.
        """
        return _run_jobs(self._db._conn, jobs)

    async def fetch(self, sql: str, args: Sequence[Any] = ()) -> list[Sequence[Any]]:
        async with self._lock:
            return await self._fetch(sql, args)

    async def _fetch(self, sql: str, args: Sequence[Any] = ()) -> list[Sequence[Any]]:
        async with self._db.execute(sql, tuple(args)) as cur:
            return list(await cur.fetchall())

    async def write_fetch(self, sql: str, args: Sequence[Any] = ()) -> list[Sequence[Any]]:
        async with self._lock:
            try:
                return await self._fetch(sql, args)  # autocommit: committed on return
            except sqlite3.IntegrityError as exc:
                raise ConstraintError(str(exc)) from exc

    async def reads(self, body: Callable[[Fetch], Awaitable[Any]]) -> Any:
        async with self._lock:  # nobody writes in between (one connection, autocommit)
            return await body(self._fetch)

    async def schema_version(self) -> int:
        rows = await self.fetch("PRAGMA user_version")
        return int(rows[0][0]) if rows else 0

    async def tables_with(self, column: str) -> list[str]:
        names = await self.fetch("SELECT name FROM sqlite_master WHERE type = 'table'")
        out = []
        for (name,) in names:
            columns = await self.fetch(f'PRAGMA table_info("{name}")')
            if column in {str(c[1]) for c in columns}:
                out.append(str(name))
        return out


def _set_up(conn: sqlite3.Connection, path: str, todo: list[tuple[int, str, str]]) -> None:
    """(In the database thread.) Foreign keys, the busy timeout and WAL on; then the
    migrations newer than the database's version in one transaction, or none of them."""
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA busy_timeout = 5000")
    if path != ":memory:":
        conn.execute("PRAGMA journal_mode = WAL")
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    known = len(todo)
    if version > known:
        raise newer_error(path, version, known)
    if version == known:
        return
    conn.execute("BEGIN IMMEDIATE")
    name = ""
    try:
        for number, name, sql in todo[version:]:
            log.info("applying migration %s", name)
            for statement in statements(sql):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number}")
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        conn.execute("ROLLBACK")
        raise StorageError(
            f"database {path}: migration {name} failed ({exc}); nothing was changed"
        ) from None
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    if 0 < version < COMPACT_DEALS <= known and path != ":memory:":
        # the pages the dropped deal rows held go back to the file system, once
        log.info("compacting the database (once, after migration %03d)", COMPACT_DEALS)
        conn.execute("VACUUM")
        check = [str(r[0]) for r in conn.execute("PRAGMA integrity_check").fetchall()]
        if check != ["ok"]:  # not caused by the migration (it ran in one transaction)
            log.error("the database fails its integrity check: %s", "; ".join(check)[:500])


def _run_jobs(conn: sqlite3.Connection, jobs: list[Job]) -> list[tuple[bool, Any]]:
    """(In the database thread.) One transaction for ``jobs``, one savepoint each; returns
    ``(True, result)`` or ``(False, exception)`` per job."""
    results: list[tuple[bool, Any]] = []
    conn.execute("BEGIN IMMEDIATE")
    try:
        for job in jobs:
            conn.execute("SAVEPOINT job")
            try:
                value = job(conn)
            except Exception as exc:
                conn.execute("ROLLBACK TO job")
                conn.execute("RELEASE job")
                results.append((False, exc))
            else:
                conn.execute("RELEASE job")
                results.append((True, value))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return results
