"""The storage tests run on both backends: a SQLite file and a PostgreSQL database."""

from __future__ import annotations

from tests.pg_helpers import database_target as target

__all__ = ["target"]
