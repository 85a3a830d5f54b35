"""The database connection: the backend a target names, numbered migrations, and the
interface every store writes and reads through.

A target is a SQLite file path (``DATABASE_PATH``, the embedded default) or a PostgreSQL
URL (``DATABASE_URL``, ``postgres://…`` or ``postgresql://…``): :mod:`storage.backends`
opens it with :mod:`storage.sqlite` or :mod:`storage.postgres`. Both run the same numbered
migrations (``migrations/NNN_name.sql``; where the SQL differs, one file per dialect,
``NNN_name.sqlite.sql`` and ``NNN_name.postgres.sql``) inside one transaction, refuse a
database written by a newer version of the code, and commit every write before the
caller goes on (:meth:`Database._commit`).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from functools import cache
from importlib import resources
from typing import Any, Protocol
from urllib.parse import urlsplit, urlunsplit

__all__ = [
    "Database",
    "StorageError",
    "ConstraintError",
    "SCHEMA_VERSION",
    "migrations",
    "dumps",
    "is_postgres",
    "describe",
    "Tx",
    "Backend",
    "GroupCommit",
]

_NAME = re.compile(r"^(\d{3})_[a-z0-9_]+(?:\.(sqlite|postgres))?\.sql$")


class StorageError(RuntimeError):
    """The database cannot be used (e.g. it is newer than this code)."""


class ConstraintError(StorageError):
    """A write broke a constraint of the schema (e.g. a second open table in a chat)."""


def is_postgres(target: str) -> bool:
    """Whether ``target`` is a PostgreSQL URL rather than a SQLite path."""
    return target.startswith(("postgres://", "postgresql://"))


def describe(target: str) -> str:
    """``target`` for logs and messages: a URL's password is never shown."""
    if not is_postgres(target):
        return target
    parts = urlsplit(target)
    if parts.password is None:
        return target
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def migrations(dialect: str = "sqlite") -> list[tuple[int, str, str]]:
    """``(number, file name, sql)`` of every migration of ``dialect``, in order; numbers
    must be 1, 2, 3… (a number has one shared file or one file per dialect)."""
    return list(_migrations(dialect))


@cache
def _migrations(dialect: str) -> tuple[tuple[int, str, str], ...]:
    """The migration files, read once (every start of the bot opens the database)."""
    found = []
    for entry in resources.files("storage").joinpath("migrations").iterdir():
        match = _NAME.match(entry.name)
        if match and match.group(2) in (None, dialect):
            found.append((int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort()
    for expected, (number, name, _) in enumerate(found, start=1):
        if number != expected:
            raise StorageError(f"migration {name}: expected number {expected:03d}")
    return tuple(found)


SCHEMA_VERSION = len(migrations())
if SCHEMA_VERSION != len(migrations("postgres")):
    raise StorageError("the dialects' migrations must have the same numbers")


def newer_error(target: str, version: int, known: int) -> StorageError:
    setting = "DATABASE_URL" if is_postgres(target) else "DATABASE_PATH"
    return StorageError(
        f"database {describe(target)} has schema version {version}, newer than this bot "
        f"knows ({known}); upgrade the bot or use another {setting}"
    )


class Tx(Protocol):
    """What a write job may do: statements without results (``?`` placeholders).

    ``sqlite3.Connection`` is one; the PostgreSQL backend records the statements and
    runs them in its transaction."""

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Any: ...

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> Any: ...


Job = Callable[[Any], Any]
"""A write job: ``job(tx)`` with a :class:`Tx`, run inside the writer's transaction."""
Fetch = Callable[[str, Sequence[Any]], Awaitable[list[Sequence[Any]]]]


class Backend(Protocol):
    """One open database of one dialect (:mod:`storage.sqlite`, :mod:`storage.postgres`)."""

    target: str
    open_filter: str
    """The ``WHERE`` clause of the tables to resume (it reads the JSON state)."""

    async def commit(self, job: Job) -> Any: ...

    async def fetch(self, sql: str, args: Sequence[Any] = ()) -> list[Sequence[Any]]: ...

    async def write_fetch(self, sql: str, args: Sequence[Any] = ()) -> list[Sequence[Any]]: ...

    async def reads(self, body: Callable[[Fetch], Awaitable[Any]]) -> Any: ...

    async def schema_version(self) -> int: ...

    async def tables_with(self, column: str) -> list[str]: ...

    async def close(self) -> None: ...


RunBatch = Callable[[list[Job]], Awaitable[list[tuple[bool, Any]]]]
"""(Under the writer's lock.) One transaction for the jobs, one savepoint each: ``(True,
result)`` or ``(False, exception)`` per job, committed on return."""


class GroupCommit:
    """The writer both backends use: jobs queued while a transaction is being written go
    together into the next one (``run_batch``, one commit for all of them)."""

    def __init__(
        self,
        run_batch: RunBatch,
        failure: Callable[[BaseException], BaseException] = lambda exc: exc,
    ) -> None:
        self._run_batch = run_batch
        self._failure = failure
        """The error the callers of a batch that failed as a whole get."""
        self.lock = asyncio.Lock()
        """One coroutine at a time on the connection: transactions must not interleave."""
        self._jobs: list[tuple[Job, asyncio.Future[Any]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def commit(self, job: Job) -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._jobs.append((job, future))
        if self._writer is None:
            self._writer = asyncio.create_task(self._write_jobs())
        return await future

    async def _write_jobs(self) -> None:
        try:
            while self._jobs:
                async with self.lock:
                    batch, self._jobs = self._jobs, []
                    try:
                        results = await self._run_batch([job for job, _ in batch])
                    except BaseException as exc:
                        for _, future in batch:
                            if not future.done():
                                future.set_exception(self._failure(exc))
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

    async def wait(self) -> None:
        """Until the jobs queued are written (before the connection closes)."""
        if self._writer is not None:
            await asyncio.gather(self._writer, return_exceptions=True)


class Database:
    """An open database of either backend (``Storage.open`` opens one); :meth:`close`."""

    def __init__(self, backend: Backend, chat_tables: list[str]) -> None:
        self._backend = backend
        self._chat_tables = chat_tables
        """The tables with a ``chat_id`` column (read at opening: a group's move is then
        one write, queued at once)."""

    async def close(self) -> None:
        await self._backend.close()

    async def _commit(self, job: Job) -> Any:
        """Run ``job(tx)`` in a write transaction; return its result once committed.

        Group commit: the jobs queued while a transaction is being written go together into
        the next one, which commits once for all of them. Each job has its own savepoint:
        one that fails is rolled back alone and its error is raised to its caller. Nobody
        returns before his transaction is committed.
        """
        return await self._backend.commit(job)

    async def _write_fetch(self, sql: str, args: Sequence[Any] = ()) -> list[Sequence[Any]]:
        """One write statement with ``RETURNING``, committed; its rows."""
        return await self._backend.write_fetch(sql, args)

    async def _reads(self, body: Callable[[Fetch], Awaitable[Any]]) -> Any:
        """``body(fetch)``: several queries that see one state (no write in between)."""
        return await self._backend.reads(body)

    async def schema_version(self) -> int:
        return await self._backend.schema_version()

    async def fetchall(self, sql: str, args: Sequence[Any] = ()) -> list[Sequence[Any]]:
        """Rows of a query (``?`` placeholders; never inside another coroutine's write)."""
        return await self._backend.fetch(sql, tuple(args))

    async def fetchone(self, sql: str, args: Sequence[Any] = ()) -> Sequence[Any] | None:
        rows = await self.fetchall(sql, args)
        return rows[0] if rows else None


def dumps(value: Any) -> str | None:
    return (
        json.dumps(value, ensure_ascii=False, separators=(",", ":")) if value is not None else None
    )


def statements(sql: str) -> list[str]:
    """Split a migration into statements: no semicolons inside literals in our files, but
    a ``$$``-quoted function body keeps its own."""
    lines = [line for line in sql.splitlines() if not line.strip().startswith("--")]
    out: list[str] = []
    pending = ""
    for part in "\n".join(lines).split(";"):
        pending = f"{pending};{part}" if pending else part
        if pending.count("$$") % 2 == 0:
            if pending.strip():
                out.append(pending.strip())
            pending = ""
    if pending.strip():
        out.append(pending.strip())
    return out
