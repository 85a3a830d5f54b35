"""The storage tests run on both backends: a SQLite file and a PostgreSQL database."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.pg_helpers import fresh_database, need_server


@pytest.fixture(params=["sqlite", "postgres"])
async def target(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A new database of each backend: a file path or a URL."""
    if request.param == "sqlite":
        yield str(tmp_path / "bot.sqlite3")
        return
    need_server()
    async with fresh_database() as url:
        yield url
