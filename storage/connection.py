"""The database connection: opening, numbered migrations and the group-committing writer.

Migrations (``migrations/NNN_name.sql``) run at start-up inside one transaction and set
``PRAGMA user_version``; a database written by a newer version of the code is refused.
WAL and foreign keys are on.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sqlite3
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any, Self

import aiosqlite

__all__ = ["Database", "StorageError", "SCHEMA_VERSION", "migrations", "check_schema", "dumps"]

log = logging.getLogger(__name__)

_NAME = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")


class StorageError(RuntimeError):
    """The database cannot be used (e.g. it is newer than this code)."""


def migrations() -> list[tuple[int, str, str]]:
    """``(number, file name, sql)`` of every migration, in order; numbers must be 1, 2, 3…"""
    return list(_migrations())


@cache
def _migrations() -> tuple[tuple[int, str, str], ...]:
    """The migration files, read once (every start of the bot opens the database)."""
    found = []
    for entry in resources.files("storage").joinpath("migrations").iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort()
    for expected, (number, name, _) in enumerate(found, start=1):
        if number != expected:
            raise StorageError(f"migration {name}: expected number {expected:03d}")
    return tuple(found)


SCHEMA_VERSION = len(migrations())


def _newer_error(path: str, version: int, known: int) -> StorageError:
    return StorageError(
        f"database {path} has schema version {version}, newer than this bot knows "
        f"({known}); upgrade the bot or use another DATABASE_PATH"
    )


def check_schema(path: str) -> int:
    """The schema version of the database at ``path`` (0 if it does not exist yet).

    Raises :class:`StorageError` when the file is not a database or is newer than this
    code, before anything else starts (``python -m bot`` checks this first).
    """
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
        raise _newer_error(path, version, SCHEMA_VERSION)
    return version


class Database:
    """An open database; use :meth:`open` and :meth:`close`."""

    def __init__(self, db: aiosqlite.Connection, path: str) -> None:
        self._db = db
        self.path = path
        self._write = asyncio.Lock()
        """One writer at a time: coroutines share the connection, so transactions must not
        interleave."""
        self._jobs: list[tuple[Callable[[sqlite3.Connection], Any], asyncio.Future[Any]]] = []
        self._writer: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, path: str) -> Self:
        """Open (creating if needed) and migrate the database at ``path``.

        Raises :class:`StorageError` (one line for people) when it cannot be opened, is
        newer than this code, or a migration fails (the database is then unchanged).
        """
        try:
            db = await aiosqlite.connect(path, isolation_level=None)
        except sqlite3.Error as exc:
            raise StorageError(f"cannot open the database {path}: {exc}") from None
        try:
            db.row_factory = aiosqlite.Row
            store = cls(db, path)
            await store._migrate()
        except sqlite3.Error as exc:
            await db.close()
            raise StorageError(f"cannot use the database {path}: {exc}") from None
        except BaseException:
            await db.close()
            raise
        return store

    async def close(self) -> None:
        if self._writer is not None:
            await asyncio.gather(self._writer, return_exceptions=True)
        await self._db.close()

    async def _commit(self, job: Callable[[sqlite3.Connection], Any]) -> Any:
        """Run ``job(connection)`` in a write transaction; return its result once committed.

        Group commit: the jobs queued while a transaction is being written go together into
        the next one, which runs in one hop to the database thread and commits once (one
        fsync) for all of them, instead of a round trip per statement and a commit per save.
        Each job has its own savepoint: one that fails is rolled back alone and its error is
        raised to its caller. Nobody returns before his transaction is committed.
        """
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._jobs.append((job, future))
        if self._writer is None:
            self._writer = asyncio.create_task(self._write_jobs())
        return await future

    async def _write_jobs(self) -> None:
        try:
            while self._jobs:
                async with self._write:
                    batch, self._jobs = self._jobs, []
                    jobs = [job for job, _ in batch]
                    try:
                        # aiosqlite's own thread hop (untyped): one hop for the whole batch
                        results = await self._db._execute(  # type: ignore[no-untyped-call]
                            _run_jobs, self._db._conn, jobs
                        )
                    except BaseException as exc:
                        for _, future in batch:
                            if not future.done():
                                future.set_exception(exc)
                        if not isinstance(exc, Exception):
                            raise
                        continue
                for (_, future), (ok, value) in zip(batch, results, strict=True):
                    if future.done():
                        continue
                    if ok:
                        future.set_result(value)
                    else:
                        future.set_exception(value)
        finally:
            self._writer = None

    async def _migrate(self) -> None:
        """Set the connection up and bring the schema up to date, in one hop to the
        database thread (a start-up's ~30 statements each took their own)."""
        # aiosqlite's own thread hop (untyped), as in _write_jobs
        await self._db._execute(  # type: ignore[no-untyped-call]
            _set_up, self._db._conn, self.path, migrations()
        )

    async def schema_version(self) -> int:
        async with self._db.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def fetchall(self, sql: str, args: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        """Rows of a query (never inside another coroutine's transaction)."""
        async with self._write:
            async with self._db.execute(sql, args) as cur:
                return list(await cur.fetchall())


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
        raise _newer_error(path, version, known)
    if version == known:
        return
    conn.execute("BEGIN IMMEDIATE")
    name = ""
    try:
        for number, name, sql in todo[version:]:
            log.info("applying migration %s", name)
            for statement in _statements(sql):
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


def _run_jobs(
    conn: sqlite3.Connection, jobs: list[Callable[[sqlite3.Connection], Any]]
) -> list[tuple[bool, Any]]:
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


def dumps(value: Any) -> str | None:
    return (
        json.dumps(value, ensure_ascii=False, separators=(",", ":")) if value is not None else None
    )


def _statements(sql: str) -> list[str]:
    """Split a migration into statements (no semicolons inside literals in our files)."""
    lines = [line for line in sql.splitlines() if not line.strip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]
