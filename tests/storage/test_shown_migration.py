"""Migration 008 on a database the previous schema wrote: the message ids and digests a
table's state and its ``shown`` column held become rows of ``shown`` (both backends), so an
upgraded bot edits the messages it sent instead of sending them again; then the rows are
written and read back on their own."""

from __future__ import annotations

import json
from typing import Any

import pytest

from storage import SCHEMA_VERSION, ShownRow, Storage
from storage import postgres as pg_backend
from storage import sqlite as sqlite_backend
from storage.connection import migrations

GROUP = -1001
OLD = 7
"""The schema before the messages had rows of their own."""


def _slot(chat: int, message_id: int | None) -> dict[str, Any]:
    return {"chat_id": chat, "message_id": message_id}


PLAYING = {
    "deal_no": 4,
    "table_slot": _slot(GROUP, 40),
    "hand_slots": {"0": _slot(1, 41), "1": _slot(2, 42), "2": _slot(3, None)},
    "vote": _slot(GROUP, 45),
    "sheet_message": 39,
    "sheet_photo": True,
    "reminder": _slot(2, 46),
    "live_buttons": [[_slot(GROUP, 47), "Место 2 свободно"]],
    "unshown_ends": [
        {"deal_no": 3, "table_slot": _slot(GROUP, 30), "hand_slots": {"0": _slot(1, 31)}}
    ],
    "lobby_message": 10,
    "settlement_shown": None,
}
SHOWN = {f"{GROUP}:40": "t4", "1:41": "h41", f"{GROUP}:30": "t3", "1:31": "h31", "9:9": "x"}


async def _old_database(target: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A database at schema 7 with a game in play, a lobby and a damaged row."""
    every = migrations

    def old(dialect: str = "sqlite") -> list[tuple[int, str, str]]:
        return every(dialect)[:OLD]

    with monkeypatch.context() as patch:
        patch.setattr(sqlite_backend, "migrations", old)
        patch.setattr(pg_backend, "migrations", old)
        store = await Storage.open(target)
    try:
        assert await store.schema_version() == OLD
        rows = [
            (1, GROUP, "playing", json.dumps(PLAYING), json.dumps(SHOWN)),
            (2, GROUP - 1, "lobby", json.dumps({"table_slot": _slot(GROUP - 1, 5)}), "{bad"),
            (3, GROUP - 2, "cancelled", "{not json", None),
            (4, GROUP - 3, "cancelled", "[1, 2]", "[]"),
        ]
        for row in rows:

            def insert(tx: Any, row: tuple[object, ...] = row) -> Any:
                return tx.execute(
                    "INSERT INTO tables (id, chat_id, owner_id, status, settings, state, move, "
                    "created_at, updated_at, shown) VALUES (?, ?, 1, ?, '{}', ?, 0, 0, 0, ?)",
                    row,
                )

            await store._commit(insert)
    finally:
        await store.close()


async def test_the_messages_of_a_running_game_survive_the_upgrade(
    target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _old_database(target, monkeypatch)
    store = await Storage.open(target)
    try:
        assert await store.schema_version() == SCHEMA_VERSION
        got = sorted(await store.shown_rows(1), key=lambda r: (r.kind, r.part, r.chat))
        assert got == [
            ShownRow(1, 1, "hand", 3, 31, "h31"),
            ShownRow(1, 1, "hand", 4, 41, "h41"),
            ShownRow(1, 2, "hand", 4, 42, None),
            ShownRow(1, GROUP, "live", 47, 47, None, "Место 2 свободно"),
            ShownRow(1, 2, "reminder", 0, 46, None),
            ShownRow(1, GROUP, "sheet", 0, 39, None, "photo"),
            ShownRow(1, GROUP, "table", 0, 10, None),
            ShownRow(1, GROUP, "table", 3, 30, "t3"),
            ShownRow(1, GROUP, "table", 4, 40, "t4"),
            ShownRow(1, GROUP, "vote", 4, 45, None),
        ]
        # a lobby's message is its deal 0; an unreadable digest is as none (edited again)
        assert await store.shown_rows(2) == [ShownRow(2, GROUP - 1, "table", 0, 5, None)]
        assert await store.shown_rows(3) == []  # a damaged state moves nothing, stops nothing
        assert await store.shown_rows(4) == []
        row = await store.table(1)  # a started game's lobby still to close: a flag now
        assert row is not None and row.state["deal_no"] == 4 and row.state["lobby_unshown"]
        row = await store.table(2)
        assert row is not None and "lobby_unshown" not in row.state
    finally:
        await store.close()


async def test_the_rows_are_written_replaced_and_forgotten(target: str) -> None:
    store = await Storage.open(target)
    try:
        table = await store.create_table(GROUP, 1, {}, {})
        other = await store.create_table(GROUP - 1, 1, {}, {})
        first = [ShownRow(table, GROUP, "table", 1, 7, "aa"), ShownRow(table, 1, "hand", 1, 8)]
        await store.save_shown([*first, ShownRow(other, 2, "hand", 1, 9, "cc")])
        assert sorted(await store.shown_rows(table), key=lambda r: r.kind) == first[::-1]
        edited = ShownRow(table, 1, "hand", 1, 8, "bb")
        await store.save_shown([edited], gone=[(table, GROUP, "table", 1)])
        assert await store.shown_rows(table) == [edited]
        await store.forget_shown(table)
        assert await store.shown_rows(table) == []
        assert await store.shown_rows(other) == [ShownRow(other, 2, "hand", 1, 9, "cc")]
    finally:
        await store.close()
