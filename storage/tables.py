"""Tables: their settings, state and game record (one row per deal), and their seats.

A table's game is its pulka record (``preferans-record/1``), stored as a log per deal:
``tables.record`` holds the record without its ``deals`` and the ``deals`` table one row
per deal, so an accepted action rewrites only its own deal. A game that ends is archived
in the same transaction (:func:`storage.archive.write_archive`), and the deal rows its
archived record holds as they are are then dropped: an archived table's deals are read
from its archived record (under any deal row it kept). :class:`TableRow` always carries
the whole record again.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

from .archive import ArchiveStore, write_archive
from .connection import ConstraintError, Fetch, StorageError, Tx, dumps
from .rows import GameArchive, ResumeEntry, TableRow

__all__ = ["TableStore"]


class TableStore(ArchiveStore):
    """The ``tables``, ``deals`` and ``seats`` tables."""

    async def create_table(
        self, chat_id: int, owner_id: int, settings: dict[str, Any], state: dict[str, Any]
    ) -> int:
        """Insert a new lobby; raises :class:`StorageError` if the chat has an open table."""
        now = time.time()
        try:
            rows = await self._write_fetch(
                "INSERT INTO tables (chat_id, owner_id, status, settings, state, move, "
                "created_at, updated_at) VALUES (?, ?, 'lobby', ?, ?, 0, ?, ?) RETURNING id",
                (chat_id, owner_id, json.dumps(settings), json.dumps(state), now, now),
            )
        except ConstraintError as exc:
            raise StorageError(f"chat {chat_id} already has an open table") from exc
        return int(rows[0][0])

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
        seats: list[int | None] | None,
        deals: dict[int, dict[str, Any]] | None = None,
        archive: GameArchive | None = None,
    ) -> None:
        """Write the table in one transaction (``seats`` ``None``: the seat rows stay as
        written last, as after most moves).

        ``record`` is the game's whole record (``None``: no game yet) — unless ``deals`` is
        given: then only those deals (deal number from 1 -> the record's deal entry) are
        written and the rest of the stored record stays (an action changes only the current
        deal). ``archive`` archives the finished game in the same transaction.
        """

        def job(tx: Tx) -> None:
            self._write_table(
                tx, table_id, status, settings, state, record, move, deadline, seats, deals
            )
            if archive is not None:
                write_archive(tx, table_id, archive)

        await self._commit(job)

    @staticmethod
    def _write_table(
        tx: Tx,
        table_id: int,
        status: str,
        settings: dict[str, Any],
        state: dict[str, Any],
        record: dict[str, Any] | None,
        move: int,
        deadline: float | None,
        seats: list[int | None] | None,
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
        # one statement for the table's row (a move's save is a few statements in all)
        if deals is None:
            header = None
            if record is not None:
                header = {k: v for k, v in record.items() if k != "deals"}
            tx.execute(
                "UPDATE tables SET status = ?, settings = ?, state = ?, move = ?, deadline = ?, "
                "updated_at = ?, record = ? WHERE id = ?",
                (*values, dumps(header), table_id),
            )
            entries = list(record.get("deals", [])) if record is not None else []
            tx.execute(
                "DELETE FROM deals WHERE table_id = ? AND deal_no > ?", (table_id, len(entries))
            )
            changed = dict(enumerate(entries, start=1))
        else:
            tx.execute(
                "UPDATE tables SET status = ?, settings = ?, state = ?, move = ?, deadline = ?, "
                "updated_at = ? WHERE id = ?",
                (*values, table_id),
            )
            changed = deals
        # an archived game's deals are in its archived record (written after this, in the
        # same transaction, when the game ends now): its deal rows are not written again
        tx.executemany(
            "INSERT INTO deals (table_id, deal_no, data) SELECT ?, ?, ? "
            "WHERE NOT EXISTS (SELECT 1 FROM games WHERE table_id = ?) "
            "ON CONFLICT (table_id, deal_no) DO UPDATE SET data = excluded.data",
            [(table_id, n, dumps(d), table_id) for n, d in sorted(changed.items())],
        )
        if seats is None:
            return
        tx.execute("DELETE FROM seats WHERE table_id = ?", (table_id,))
        tx.executemany(
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
        return await self._tables(self._backend.open_filter + " ORDER BY id")

    async def open_table_ids(self) -> list[int]:
        """The ids of :meth:`open_tables`, read one by one with :meth:`table` so that one
        row that cannot be decoded does not keep the others from being read."""
        return await self._ids(self._backend.open_filter + " ORDER BY id")

    async def resume_index(self, closed_since: float) -> list[ResumeEntry]:
        """Every table to resume (:meth:`open_table_ids`) and every table closed at
        ``closed_since`` or later, none of them read: one query each, for a start-up that
        answers at once and reads each table when its turn comes (or when it is needed)."""
        where = self._backend.open_filter

        async def read(fetch: Fetch) -> list[ResumeEntry]:
            opened = await fetch(
                "SELECT id, chat_id, updated_at, CASE WHEN status = 'lobby' THEN state END "
                "FROM tables " + where,
                (),
            )
            seats = await fetch(
                "SELECT table_id, user_id FROM seats WHERE table_id IN "
                "(SELECT id FROM tables " + where + ")",
                (),
            )
            closed = await fetch(
                "SELECT id, chat_id, updated_at FROM tables WHERE updated_at >= ? "
                "AND status IN ('over', 'expired', 'cancelled')",
                (closed_since,),
            )
            people: dict[int, set[int]] = {}
            for table_id, user_id in seats:
                people.setdefault(int(table_id), set()).add(int(user_id))
            out = [
                ResumeEntry(
                    int(r[0]),
                    int(r[1]),
                    frozenset(people.get(int(r[0]), set()) | _waiting(r[3])),
                    float(r[2]),
                    True,
                )
                for r in opened
            ]
            known = {e.id for e in out}
            out += [
                ResumeEntry(int(r[0]), int(r[1]), frozenset(), float(r[2]), False)
                for r in closed
                if int(r[0]) not in known
            ]
            return out

        result: list[ResumeEntry] = await self._reads(read)
        return result

    async def unarchived_table_ids(self) -> list[int]:
        """The ids of :meth:`unarchived_tables`."""
        return await self._ids(_UNARCHIVED)

    async def set_aside(self, table_id: int) -> int | None:
        """Take a table that cannot be read out of play (``cancelled``, its data kept as it
        is for the operator); returns its chat id when that can be read."""
        rows = await self._write_fetch(
            "UPDATE tables SET status = 'cancelled' WHERE id = ? RETURNING chat_id",
            (table_id,),
        )
        chat_id = rows[0][0] if rows else None
        return chat_id if isinstance(chat_id, int) and not isinstance(chat_id, bool) else None

    async def stored_lang(self, table_id: int) -> str | None:
        """The ``lang`` a table's stored settings name, read on their own (the rest of its
        row may be damaged); ``None`` if they cannot be read."""
        row = await self.fetchone("SELECT settings FROM tables WHERE id = ?", (table_id,))
        try:
            lang = json.loads(row[0]).get("lang") if row is not None else None
        except (TypeError, ValueError, AttributeError):  # damaged too
            return None
        return lang if isinstance(lang, str) else None

    async def _ids(self, where: str) -> list[int]:
        return [int(r[0]) for r in await self.fetchall("SELECT id FROM tables " + where)]

    async def table(self, table_id: int) -> TableRow | None:
        rows = await self._tables("WHERE id = ?", (table_id,))
        return rows[0] if rows else None

    async def last_table(self, chat_id: int) -> TableRow | None:
        rows = await self._tables("WHERE chat_id = ? ORDER BY id DESC LIMIT 1", (chat_id,))
        return rows[0] if rows else None

    async def move_chat(self, old_chat_id: int, new_chat_id: int) -> None:
        """A group became a supergroup: every row of ``old_chat_id`` (in any table with a
        ``chat_id`` column) now belongs to ``new_chat_id``."""

        def job(tx: Tx) -> None:
            for name in self._chat_tables:
                tx.execute(
                    f'UPDATE "{name}" SET chat_id = ? WHERE chat_id = ?',
                    (new_chat_id, old_chat_id),
                )

        await self._commit(job)

    async def unarchived_tables(self) -> list[TableRow]:
        """Games that ended before archiving existed (a database upgraded in place)."""
        return await self._tables(_UNARCHIVED)

    async def _tables(self, where: str, args: tuple[Any, ...] = ()) -> list[TableRow]:
        sql = (
            "SELECT id, chat_id, owner_id, status, settings, state, record, move, deadline, "
            f"created_at, {_ARCHIVED} FROM tables " + where
        )

        async def read(fetch: Fetch) -> list[TableRow]:
            out = []
            for r in await fetch(sql, args):
                record = None
                if r[6]:
                    rows = await fetch(
                        "SELECT deal_no, data FROM deals WHERE table_id = ? ORDER BY deal_no",
                        (r[0],),
                    )
                    record = _with_deals(json.loads(r[6]), _deals(r[10], rows))
                out.append(_row(r, record))
            return out

        result: list[TableRow] = await self._reads(read)
        return result


_ARCHIVED = (
    "CASE WHEN record IS NOT NULL THEN (SELECT g.record FROM games AS g "
    "WHERE g.table_id = tables.id) END"
)
"""The archived record of a table with a game (NULL: not archived)."""
_UNARCHIVED = (
    "WHERE status = 'over' AND record IS NOT NULL "
    "AND id NOT IN (SELECT table_id FROM games) ORDER BY id"
)


def _row(r: Sequence[Any], record: dict[str, Any] | None) -> TableRow:
    return TableRow(
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


def _waiting(state: str | None) -> set[int]:
    """The people a lobby's stored state names as waiting to sit down (none if unreadable:
    the table is set aside when it is read)."""
    try:
        waiting = json.loads(state).get("waiting", []) if state else []
        return {int(p["user_id"]) for p in waiting}
    except (ValueError, TypeError, LookupError, AttributeError):
        return set()


def _deals(archived: str | None, rows: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
    """A table's deals: its deal rows, over its archived record's deals when it has one
    (archiving drops the rows the record holds as they are)."""
    deals: list[Any] = list(json.loads(archived)["deals"]) if archived is not None else []
    for deal_no, data in rows:
        if int(deal_no) <= len(deals):
            deals[int(deal_no) - 1] = json.loads(data)
        else:
            deals.append(json.loads(data))
    return deals


def _with_deals(header: dict[str, Any], deals: list[dict[str, Any]]) -> dict[str, Any]:
    """The whole record again, its keys in the usual order."""
    record: dict[str, Any] = {
        k: header[k] for k in ("format", "rules", "players", "start") if k in header
    }
    record["deals"] = deals
    record.update((k, v) for k, v in header.items() if k not in record)
    return record
