"""A fresh PostgreSQL database per test, on the server ``TEST_DATABASE_URL`` names
(``.ci/run`` starts one); without it the PostgreSQL tests are skipped, saying why."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
import pytest_asyncio

SERVER = os.environ.get("TEST_DATABASE_URL", "").strip()
SKIP_REASON = (
    "no PostgreSQL server: set TEST_DATABASE_URL=postgresql://user@host:port/db "
    "(.ci/run starts one) to run the PostgreSQL tests"
)


def need_server() -> str:
    """The server's URL, or skip the test with the reason."""
    if not SERVER:
        pytest.skip(SKIP_REASON)
    return SERVER


def _on(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path="/" + name))


async def _admin(sql: str) -> None:
    import asyncpg  # type: ignore[import-untyped]

    conn = await asyncpg.connect(need_server())
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@asynccontextmanager
async def fresh_database() -> AsyncIterator[str]:
    """The URL of a new empty database, dropped afterwards (its connections ended)."""
    name = f"test_{uuid.uuid4().hex[:16]}"
    await _admin(f'CREATE DATABASE "{name}"')
    try:
        yield _on(need_server(), name)
    finally:
        await _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def fresh_database_sync() -> Iterator[str]:
    """:func:`fresh_database` for a test without an event loop."""
    import asyncio

    name = f"test_{uuid.uuid4().hex[:16]}"
    asyncio.run(_admin(f'CREATE DATABASE "{name}"'))
    try:
        yield _on(need_server(), name)
    finally:
        asyncio.run(_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def query(url: str, sql: str) -> list[tuple[Any, ...]]:
    """The rows of ``sql`` on the database ``url``, as tuples (a test's look inside)."""
    import asyncio

    import asyncpg

    async def run() -> list[tuple[Any, ...]]:
        conn = await asyncpg.connect(url)
        try:
            return [tuple(r) for r in await conn.fetch(sql)]
        finally:
            await conn.close()

    return asyncio.run(run())


@pytest_asyncio.fixture(params=["sqlite", "postgres"])
async def database_target(request: pytest.FixtureRequest, tmp_path: object) -> AsyncIterator[str]:
    """A new database of each backend: a SQLite file path or a PostgreSQL URL (skipped,
    saying why, without a server)."""
    if request.param == "sqlite":
        yield str(tmp_path) + "/bot.sqlite3"
        return
    need_server()
    async with fresh_database() as url:
        yield url
