"""The Telegram messages that show each table: which message shows which part of it and a
digest of what it last showed (written by the Telegram side, apart from the table's row)."""

from __future__ import annotations

from collections.abc import Sequence

from .connection import Database, Tx
from .rows import ShownRow

__all__ = ["ShownStore"]

_KEY = "table_id = ? AND chat = ? AND kind = ? AND part = ?"


class ShownStore(Database):
    """The ``shown`` table."""

    async def shown_rows(self, table_id: int) -> list[ShownRow]:
        """Every message kept for the table."""
        rows = await self.fetchall(
            "SELECT chat, kind, part, message_id, digest, note FROM shown WHERE table_id = ?",
            (table_id,),
        )
        return [
            ShownRow(table_id, int(r[0]), str(r[1]), int(r[2]), int(r[3]), r[4], r[5]) for r in rows
        ]

    async def save_shown(
        self, rows: Sequence[ShownRow], gone: Sequence[tuple[int, int, str, int]] = ()
    ) -> None:
        """Write ``rows`` and delete ``gone`` (``(table id, chat, kind, part)``) in one
        transaction."""

        def job(tx: Tx) -> None:
            if gone:
                tx.executemany(f"DELETE FROM shown WHERE {_KEY}", list(gone))
            if rows:
                tx.executemany(
                    "INSERT INTO shown (table_id, chat, kind, part, message_id, digest, note) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (table_id, chat, kind, part) "
                    "DO UPDATE SET message_id = excluded.message_id, digest = excluded.digest, "
                    "note = excluded.note",
                    [
                        (r.table_id, r.chat, r.kind, r.part, r.message_id, r.digest, r.note)
                        for r in rows
                    ],
                )

        if rows or gone:
            await self._commit(job)

    async def forget_shown(self, table_id: int) -> None:
        """The table's messages are not kept any more (it closed and left memory)."""
        await self._commit(
            lambda tx: tx.execute("DELETE FROM shown WHERE table_id = ?", (table_id,))
        )
