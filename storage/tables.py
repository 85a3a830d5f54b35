"""Tables: their settings, state and game record (one row per deal), and their seats.

A table's game is its pulka record (``preferans-record/1``), stored as a log per deal:
``tables.record`` holds the record without its ``deals`` and the ``deals`` table one row
per deal, so an accepted action rewrites only its own deal. :class:`TableRow` always
carries the whole record again. A game that ends is archived in the same transaction
(:func:`storage.archive.write_archive`).
"""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any

import aiosqlite

from .archive import ArchiveStore, write_archive
from .connection import StorageError, dumps
from .rows import GameArchive, TableRow

__all__ = ["TableStore"]


class TableStore(ArchiveStore):
    """The ``tables``, ``deals`` and ``seats`` tables."""

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
                write_archive(conn, table_id, archive)

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
                (*values, dumps(header), table_id),
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
            [(table_id, n, dumps(d)) for n, d in sorted(changed.items())],
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

    async def open_tables(self) -> list[TableRow]:
        """Tables to resume after a restart: in the lobby, in play, or over with the end of
        a deal or the settlement not shown yet (``unshown_ends``, ``settlement_shown``)."""
        return await self._tables(_OPEN + " ORDER BY id")

    async def open_table_ids(self) -> list[int]:
        """The ids of :meth:`open_tables`, read one by one with :meth:`table` so that one
        row that cannot be decoded does not keep the others from being read."""
        return await self._ids(_OPEN + " ORDER BY id")

    async def unarchived_table_ids(self) -> list[int]:
        """The ids of :meth:`unarchived_tables`."""
        return await self._ids(_UNARCHIVED)

    async def set_aside(self, table_id: int) -> int | None:
        """Take a table that cannot be read out of play (``cancelled``, its data kept as it
        is for the operator); returns its chat id when that can be read."""
        async with self._write:
            await self._db.execute(
                "UPDATE tables SET status = 'cancelled' WHERE id = ?", (table_id,)
            )
            async with self._db.execute(
                "SELECT chat_id FROM tables WHERE id = ? AND typeof(chat_id) = 'integer'",
                (table_id,),
            ) as cur:
                row = await cur.fetchone()
        return int(row[0]) if row is not None else None

    async def _ids(self, where: str) -> list[int]:
        async with self._db.execute("SELECT id FROM tables " + where) as cur:
            return [int(r[0]) for r in await cur.fetchall()]

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
        return await self._tables(_UNARCHIVED)

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


_OPEN = (
    "WHERE status IN ('lobby', 'playing') OR (status = 'over' AND CASE WHEN json_valid(state) "
    "THEN json_extract(state, '$.settlement_shown') = 0 "
    "OR json_array_length(state, '$.unshown_ends') > 0 ELSE 0 END)"
)
"""Tables to resume (a finished one whose state cannot be read is not waited for)."""
_UNARCHIVED = (
    "WHERE status = 'over' AND record IS NOT NULL "
    "AND id NOT IN (SELECT table_id FROM games) ORDER BY id"
)


def _with_deals(header: dict[str, Any], deals: list[dict[str, Any]]) -> dict[str, Any]:
    """The whole record again, its keys in the usual order."""
    record: dict[str, Any] = {
        k: header[k] for k in ("format", "rules", "players", "start") if k in header
    }
    record["deals"] = deals
    record.update((k, v) for k, v in header.items() if k not in record)
    return record
