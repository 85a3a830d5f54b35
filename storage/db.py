"""SQLite storage: numbered migrations (``migrations/NNN_name.sql``), tables and users.

Migrations run at start-up inside one transaction and set ``PRAGMA user_version``; a
database written by a newer version of the code is refused. WAL and foreign keys are on.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from dataclasses import dataclass
from importlib import resources
from typing import Any

import aiosqlite

__all__ = ["Storage", "StorageError", "TableRow", "UserRow", "SCHEMA_VERSION", "migrations"]

log = logging.getLogger(__name__)

_NAME = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")


class StorageError(RuntimeError):
    """The database cannot be used (e.g. it is newer than this code)."""


def migrations() -> list[tuple[int, str, str]]:
    """``(number, file name, sql)`` of every migration, in order; numbers must be 1, 2, 3…"""
    found = []
    for entry in resources.files("storage").joinpath("migrations").iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort()
    for expected, (number, name, _) in enumerate(found, start=1):
        if number != expected:
            raise StorageError(f"migration {name}: expected number {expected:03d}")
    return found


SCHEMA_VERSION = len(migrations())


@dataclass(frozen=True, slots=True)
class UserRow:
    user_id: int
    name: str
    lang: str
    private_ok: bool


@dataclass(frozen=True, slots=True)
class TableRow:
    id: int
    chat_id: int
    owner_id: int
    status: str
    settings: dict[str, Any]
    state: dict[str, Any]
    record: dict[str, Any] | None
    move: int
    deadline: float | None
    created_at: float


class Storage:
    """An open database; use :meth:`open` and :meth:`close`."""

    def __init__(self, db: aiosqlite.Connection, path: str) -> None:
        self._db = db
        self.path = path
        self._write = asyncio.Lock()
        """One writer at a time: coroutines share the connection, so transactions must not
        interleave."""

    @classmethod
    async def open(cls, path: str) -> Storage:
        """Open (creating if needed) and migrate the database at ``path``."""
        db = await aiosqlite.connect(path, isolation_level=None)
        try:
            db.row_factory = aiosqlite.Row
            await db.execute("PRAGMA foreign_keys = ON")
            await db.execute("PRAGMA busy_timeout = 5000")
            if path != ":memory:":
                await db.execute("PRAGMA journal_mode = WAL")
            store = cls(db, path)
            await store._migrate()
        except BaseException:
            await db.close()
            raise
        return store

    async def close(self) -> None:
        await self._db.close()

    async def _migrate(self) -> None:
        all_migrations = migrations()
        known = len(all_migrations)
        async with self._db.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        version = int(row[0]) if row else 0
        if version > known:
            raise StorageError(
                f"database {self.path} has schema version {version}, newer than this bot "
                f"knows ({known}); upgrade the bot or use another DATABASE_PATH"
            )
        if version == known:
            return
        await self._db.execute("BEGIN IMMEDIATE")
        try:
            for number, name, sql in all_migrations[version:]:
                log.info("applying migration %s", name)
                for statement in _statements(sql):
                    await self._db.execute(statement)
                await self._db.execute(f"PRAGMA user_version = {number}")
            await self._db.execute("COMMIT")
        except BaseException:
            await self._db.execute("ROLLBACK")
            raise

    async def schema_version(self) -> int:
        async with self._db.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    # ------------------------------------------------------------------ users

    async def save_user(
        self, user_id: int, name: str, lang: str, private_ok: bool | None = None
    ) -> None:
        """Remember a user's name and language; ``private_ok`` when known."""
        async with self._write:
            await self._save_user(user_id, name, lang, private_ok)

    async def _save_user(self, user_id: int, name: str, lang: str, private_ok: bool | None) -> None:
        now = time.time()
        if private_ok is None:
            await self._db.execute(
                "INSERT INTO users (user_id, name, lang, private_ok, updated_at) "
                "VALUES (?, ?, ?, 0, ?) ON CONFLICT (user_id) DO UPDATE SET "
                "name = excluded.name, lang = excluded.lang, updated_at = excluded.updated_at",
                (user_id, name, lang, now),
            )
        else:
            await self._db.execute(
                "INSERT INTO users (user_id, name, lang, private_ok, updated_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET "
                "name = excluded.name, lang = excluded.lang, "
                "private_ok = excluded.private_ok, updated_at = excluded.updated_at",
                (user_id, name, lang, int(private_ok), now),
            )

    async def set_private_ok(self, user_id: int, ok: bool) -> None:
        async with self._write:
            await self._db.execute(
                "UPDATE users SET private_ok = ?, updated_at = ? WHERE user_id = ?",
                (int(ok), time.time(), user_id),
            )

    async def user(self, user_id: int) -> UserRow | None:
        async with self._db.execute(
            "SELECT user_id, name, lang, private_ok FROM users WHERE user_id = ?", (user_id,)
        ) as cur:
            row = await cur.fetchone()
        if row is None:
            return None
        return UserRow(int(row[0]), str(row[1]), str(row[2]), bool(row[3]))

    # ------------------------------------------------------------------ tables

    async def create_table(
        self, chat_id: int, owner_id: int, settings: dict[str, Any], state: dict[str, Any]
    ) -> int:
        """Insert a new lobby; raises :class:`StorageError` if the chat has an open table."""
        now = time.time()
        try:
            async with self._write:
                cur = await self._db.execute(
                    "INSERT INTO tables (chat_id, owner_id, status, settings, state, move, "
                    "created_at, updated_at) VALUES (?, ?, 'lobby', ?, ?, 0, ?, ?)",
                    (chat_id, owner_id, json.dumps(settings), json.dumps(state), now, now),
                )
        except aiosqlite.IntegrityError as exc:
            raise StorageError(f"chat {chat_id} already has an open table") from exc
        assert cur.lastrowid is not None
        return int(cur.lastrowid)

    async def save_table(
        self,
        table_id: int,
        *,
        status: str,
        settings: dict[str, Any],
        state: dict[str, Any],
        record: dict[str, Any] | None,
        move: int,
        deadline: float | None,
        seats: list[int | None],
    ) -> None:
        """Write the whole table (one transaction)."""
        async with self._write:
            await self._save_table(table_id, status, settings, state, record, move, deadline, seats)

    async def _save_table(
        self,
        table_id: int,
        status: str,
        settings: dict[str, Any],
        state: dict[str, Any],
        record: dict[str, Any] | None,
        move: int,
        deadline: float | None,
        seats: list[int | None],
    ) -> None:
        await self._db.execute("BEGIN IMMEDIATE")
        try:
            await self._db.execute(
                "UPDATE tables SET status = ?, settings = ?, state = ?, record = ?, move = ?, "
                "deadline = ?, updated_at = ? WHERE id = ?",
                (
                    status,
                    json.dumps(settings),
                    json.dumps(state, ensure_ascii=False),
                    json.dumps(record, ensure_ascii=False) if record is not None else None,
                    move,
                    deadline,
                    time.time(),
                    table_id,
                ),
            )
            await self._db.execute("DELETE FROM seats WHERE table_id = ?", (table_id,))
            for seat, user_id in enumerate(seats):
                if user_id is not None:
                    await self._db.execute(
                        "INSERT INTO seats (table_id, seat, user_id) VALUES (?, ?, ?)",
                        (table_id, seat, user_id),
                    )
            await self._db.execute("COMMIT")
        except BaseException:
            await self._db.execute("ROLLBACK")
            raise

    async def open_tables(self) -> list[TableRow]:
        """Tables in the lobby or in play (to resume after a restart)."""
        return await self._tables("WHERE status IN ('lobby', 'playing') ORDER BY id")

    async def table(self, table_id: int) -> TableRow | None:
        rows = await self._tables("WHERE id = ?", (table_id,))
        return rows[0] if rows else None

    async def last_table(self, chat_id: int) -> TableRow | None:
        rows = await self._tables("WHERE chat_id = ? ORDER BY id DESC LIMIT 1", (chat_id,))
        return rows[0] if rows else None

    async def _tables(self, where: str, args: tuple[Any, ...] = ()) -> list[TableRow]:
        sql = (
            "SELECT id, chat_id, owner_id, status, settings, state, record, move, deadline, "
            "created_at FROM tables " + where
        )
        async with self._db.execute(sql, args) as cur:
            rows = await cur.fetchall()
        return [
            TableRow(
                id=int(r[0]),
                chat_id=int(r[1]),
                owner_id=int(r[2]),
                status=str(r[3]),
                settings=json.loads(r[4]),
                state=json.loads(r[5]),
                record=json.loads(r[6]) if r[6] else None,
                move=int(r[7]),
                deadline=float(r[8]) if r[8] is not None else None,
                created_at=float(r[9]),
            )
            for r in rows
        ]


def _statements(sql: str) -> list[str]:
    """Split a migration into statements (no semicolons inside literals in our files)."""
    lines = [line for line in sql.splitlines() if not line.strip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]
