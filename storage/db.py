"""SQLite storage: numbered migrations (``migrations/NNN_name.sql``), tables and users.

Migrations run at start-up inside one transaction and set ``PRAGMA user_version``; a
database written by a newer version of the code is refused. WAL and foreign keys are on.

A table's game is its pulka record (``preferans-record/1``), stored as a log per deal:
``tables.record`` holds the record without its ``deals`` and the ``deals`` table one row
per deal, so an accepted action rewrites only its own deal. :class:`TableRow` always
carries the whole record again. Finished games are archived (``games``, ``game_players``)
in the same transaction that ends them; see :mod:`storage.archive`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from importlib import resources
from typing import Any

import aiosqlite

__all__ = [
    "Storage",
    "StorageError",
    "TableRow",
    "UserRow",
    "GameArchive",
    "SCHEMA_VERSION",
    "migrations",
    "check_schema",
]

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


@dataclass(frozen=True, slots=True)
class GameArchive:
    """A finished or stopped game as archived (``games`` row and ``game_players`` rows)."""

    status: str
    """``finished`` or ``stopped``."""
    convention: str
    pulka: int
    players: int
    deals: int
    started_at: float
    ended_at: float
    record: dict[str, Any]
    holders: list[dict[str, Any]]
    """Who held each seat from which deal on: ``{"seat", "from_deal", "user_id", "name"}``."""
    rows: list[dict[str, Any]]
    """Per player: ``user_id``, ``seat``, ``name`` and the statistics columns."""


PLAYER_COLUMNS = (
    "user_id",
    "seat",
    "name",
    "deals",
    "contracts_made",
    "contracts_failed",
    "miseres_made",
    "miseres_failed",
    "net_whists",
    "whists_written",
)


class Storage:
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
    async def open(cls, path: str) -> Storage:
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
            await db.execute("PRAGMA foreign_keys = ON")
            await db.execute("PRAGMA busy_timeout = 5000")
            if path != ":memory:":
                await db.execute("PRAGMA journal_mode = WAL")
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
        all_migrations = migrations()
        known = len(all_migrations)
        async with self._db.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        version = int(row[0]) if row else 0
        if version > known:
            raise _newer_error(self.path, version, known)
        if version == known:
            return
        await self._db.execute("BEGIN IMMEDIATE")
        name = ""
        try:
            for number, name, sql in all_migrations[version:]:
                log.info("applying migration %s", name)
                for statement in _statements(sql):
                    await self._db.execute(statement)
                await self._db.execute(f"PRAGMA user_version = {number}")
            await self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            await self._db.execute("ROLLBACK")
            raise StorageError(
                f"database {self.path}: migration {name} failed ({exc}); nothing was changed"
            ) from None
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
        await self._commit(
            partial(self._save_user, user_id=user_id, name=name, lang=lang, private_ok=private_ok)
        )

    @staticmethod
    def _save_user(
        conn: sqlite3.Connection, user_id: int, name: str, lang: str, private_ok: bool | None
    ) -> None:
        now = time.time()
        if private_ok is None:
            conn.execute(
                "INSERT INTO users (user_id, name, lang, private_ok, updated_at) "
                "VALUES (?, ?, ?, 0, ?) ON CONFLICT (user_id) DO UPDATE SET "
                "name = excluded.name, lang = excluded.lang, updated_at = excluded.updated_at",
                (user_id, name, lang, now),
            )
        else:
            conn.execute(
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
        deals: dict[int, dict[str, Any]] | None = None,
        archive: GameArchive | None = None,
    ) -> None:
        """Write the table in one transaction.

        ``record`` is the game's whole record (``None``: no game yet) — unless ``deals`` is
        given: then only those deals (deal number from 1 -> the record's deal entry) are
        written and the rest of the stored record stays (an action changes only the current
        deal). ``archive`` archives the finished game in the same transaction.
        """

        def job(conn: sqlite3.Connection) -> None:
            self._write_table(
                conn, table_id, status, settings, state, record, move, deadline, seats, deals
            )
            if archive is not None:
                self._write_archive(conn, table_id, archive)

        await self._commit(job)

    @staticmethod
    def _write_table(
        conn: sqlite3.Connection,
        table_id: int,
        status: str,
        settings: dict[str, Any],
        state: dict[str, Any],
        record: dict[str, Any] | None,
        move: int,
        deadline: float | None,
        seats: list[int | None],
        deals: dict[int, dict[str, Any]] | None,
    ) -> None:
        values: list[Any] = [
            status,
            json.dumps(settings, ensure_ascii=False),
            json.dumps(state, ensure_ascii=False),
            move,
            deadline,
            time.time(),
        ]
        if deals is None:
            header = None
            if record is not None:
                header = {k: v for k, v in record.items() if k != "deals"}
            conn.execute(
                "UPDATE tables SET status = ?, settings = ?, state = ?, move = ?, deadline = ?, "
                "updated_at = ?, record = ? WHERE id = ?",
                (*values, _dumps(header), table_id),
            )
            entries = list(record.get("deals", [])) if record is not None else []
            conn.execute(
                "DELETE FROM deals WHERE table_id = ? AND deal_no > ?", (table_id, len(entries))
            )
            changed = dict(enumerate(entries, start=1))
        else:
            conn.execute(
                "UPDATE tables SET status = ?, settings = ?, state = ?, move = ?, deadline = ?, "
                "updated_at = ? WHERE id = ?",
                (*values, table_id),
            )
            changed = deals
        conn.executemany(
            "INSERT INTO deals (table_id, deal_no, data) VALUES (?, ?, ?) "
            "ON CONFLICT (table_id, deal_no) DO UPDATE SET data = excluded.data",
            [(table_id, n, _dumps(d)) for n, d in sorted(changed.items())],
        )
        conn.execute("DELETE FROM seats WHERE table_id = ?", (table_id,))
        conn.executemany(
            "INSERT INTO seats (table_id, seat, user_id) VALUES (?, ?, ?)",
            [
                (table_id, seat, user_id)
                for seat, user_id in enumerate(seats)
                if user_id is not None
            ],
        )

    @staticmethod
    def _write_archive(conn: sqlite3.Connection, table_id: int, archive: GameArchive) -> None:
        conn.execute("DELETE FROM game_players WHERE table_id = ?", (table_id,))
        conn.execute("DELETE FROM games WHERE table_id = ?", (table_id,))
        conn.execute(
            "INSERT INTO games (table_id, chat_id, status, convention, pulka, players, deals, "
            "started_at, ended_at, record, holders) "
            "SELECT id, chat_id, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM tables WHERE id = ?",
            (
                archive.status,
                archive.convention,
                archive.pulka,
                archive.players,
                archive.deals,
                archive.started_at,
                archive.ended_at,
                _dumps(archive.record),
                _dumps(archive.holders),
                table_id,
            ),
        )
        conn.executemany(
            f"INSERT INTO game_players (table_id, chat_id, {', '.join(PLAYER_COLUMNS)}) "
            f"SELECT id, chat_id, {', '.join('?' for _ in PLAYER_COLUMNS)} "
            "FROM tables WHERE id = ?",
            [(*(row[c] for c in PLAYER_COLUMNS), table_id) for row in archive.rows],
        )

    async def archive_game(self, table_id: int, archive: GameArchive) -> None:
        """Archive (or archive again) a game on its own (old games, recomputed statistics)."""
        await self._commit(partial(self._write_archive, table_id=table_id, archive=archive))

    async def fetchall(self, sql: str, args: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        """Rows of a query (never inside another coroutine's transaction)."""
        async with self._write:
            async with self._db.execute(sql, args) as cur:
                return list(await cur.fetchall())

    async def open_tables(self) -> list[TableRow]:
        """Tables to resume after a restart: in the lobby, in play, or over with the end of
        a deal or the settlement not shown yet (``unshown_ends``, ``settlement_shown``)."""
        return await self._tables(
            "WHERE status IN ('lobby', 'playing') OR (status = 'over' AND ("
            "json_extract(state, '$.settlement_shown') = 0 "
            "OR json_array_length(state, '$.unshown_ends') > 0)) ORDER BY id"
        )

    async def table(self, table_id: int) -> TableRow | None:
        rows = await self._tables("WHERE id = ?", (table_id,))
        return rows[0] if rows else None

    async def last_table(self, chat_id: int) -> TableRow | None:
        rows = await self._tables("WHERE chat_id = ? ORDER BY id DESC LIMIT 1", (chat_id,))
        return rows[0] if rows else None

    async def move_chat(self, old_chat_id: int, new_chat_id: int) -> None:
        """A group became a supergroup: every row of ``old_chat_id`` (in any table with a
        ``chat_id`` column) now belongs to ``new_chat_id``."""
        async with self._write:
            async with self._db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
            ) as cur:
                names = [str(r[0]) for r in await cur.fetchall()]
            await self._db.execute("BEGIN IMMEDIATE")
            try:
                for name in names:
                    async with self._db.execute(f'PRAGMA table_info("{name}")') as cur:
                        columns = {str(r[1]) for r in await cur.fetchall()}
                    if "chat_id" in columns:
                        await self._db.execute(
                            f'UPDATE "{name}" SET chat_id = ? WHERE chat_id = ?',
                            (new_chat_id, old_chat_id),
                        )
                await self._db.execute("COMMIT")
            except BaseException:
                await self._db.execute("ROLLBACK")
                raise

    async def unarchived_tables(self) -> list[TableRow]:
        """Games that ended before archiving existed (a database upgraded in place)."""
        return await self._tables(
            "WHERE status = 'over' AND record IS NOT NULL "
            "AND id NOT IN (SELECT table_id FROM games) ORDER BY id"
        )

    async def _tables(self, where: str, args: tuple[Any, ...] = ()) -> list[TableRow]:
        sql = (
            "SELECT id, chat_id, owner_id, status, settings, state, record, move, deadline, "
            "created_at FROM tables " + where
        )
        async with self._write:  # a record is two queries: not in the middle of a write
            async with self._db.execute(sql, args) as cur:
                rows = await cur.fetchall()
            out = []
            for r in rows:
                record = None
                if r[6]:
                    async with self._db.execute(
                        "SELECT data FROM deals WHERE table_id = ? ORDER BY deal_no", (r[0],)
                    ) as cur:
                        deals = [json.loads(d[0]) for d in await cur.fetchall()]
                    record = _with_deals(json.loads(r[6]), deals)
                out.append(
                    TableRow(
                        id=int(r[0]),
                        chat_id=int(r[1]),
                        owner_id=int(r[2]),
                        status=str(r[3]),
                        settings=json.loads(r[4]),
                        state=json.loads(r[5]),
                        record=record,
                        move=int(r[7]),
                        deadline=float(r[8]) if r[8] is not None else None,
                        created_at=float(r[9]),
                    )
                )
        return out


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


def _dumps(value: Any) -> str | None:
    return (
        json.dumps(value, ensure_ascii=False, separators=(",", ":")) if value is not None else None
    )


def _with_deals(header: dict[str, Any], deals: list[dict[str, Any]]) -> dict[str, Any]:
    """The whole record again, its keys in the usual order."""
    record: dict[str, Any] = {
        k: header[k] for k in ("format", "rules", "players", "start") if k in header
    }
    record["deals"] = deals
    record.update((k, v) for k, v in header.items() if k not in record)
    return record


def _statements(sql: str) -> list[str]:
    """Split a migration into statements (no semicolons inside literals in our files)."""
    lines = [line for line in sql.splitlines() if not line.strip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]
