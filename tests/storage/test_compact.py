"""Migration 006 on a database the previous schema wrote: the deal rows an archived record
holds are dropped, every record reads back identical and replays, the file is whole and
compacted."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

from bot.preferans.conventions import Rules
from bot.preferans.game import Game
from storage import SCHEMA_VERSION, Storage
from storage.connection import dumps, migrations, statements


def _game(seed: int, deals: int) -> dict[str, Any]:
    """A record of ``deals`` random legal deals (the last one unfinished if ``seed`` odd)."""
    game = Game(Rules.preset("sochi", 1000), ["Анна", "Борис", "Вера"])
    rng = random.Random(seed)
    for _ in range(deals):
        game.start_deal(rng)
        while game.current is not None:
            game.apply(rng.choice(game.current.legal_actions()))
    if seed % 2:
        game.start_deal(rng)
        for _ in range(6):
            assert game.current is not None
            game.apply(rng.choice(game.current.legal_actions()))
    return game.to_record()


def _old_database(
    path: Path, tables: dict[int, tuple[str, dict[str, Any], dict[str, Any] | None]]
) -> None:
    """Schema 5 (a ``WITHOUT ROWID`` deal log that keeps archived games' deals), with
    ``tables``: id -> (status, record, archived record or None)."""
    con = sqlite3.connect(path)
    try:
        for number, _, sql in migrations()[:5]:
            for statement in statements(sql):
                con.execute(statement)
            con.execute(f"PRAGMA user_version = {number}")
        for uid, name in ((1, "Анна"), (2, "Борис"), (3, "Вера")):
            con.execute(
                "INSERT INTO users (user_id, name, updated_at) VALUES (?, ?, 0)", (uid, name)
            )
        for tid, (status, record, archived) in tables.items():
            header = {k: v for k, v in record.items() if k != "deals"}
            con.execute(
                "INSERT INTO tables (id, chat_id, owner_id, status, settings, state, record, "
                "move, created_at, updated_at) VALUES (?, ?, 1, ?, '{}', ?, ?, 7, 0, 0)",
                (tid, -100 - tid, status, '{"settlement_shown": true}', dumps(header)),
            )
            con.executemany(
                "INSERT INTO deals (table_id, deal_no, data) VALUES (?, ?, ?)",
                [(tid, n, dumps(d)) for n, d in enumerate(record["deals"], start=1)],
            )
            if archived is not None:
                con.execute(
                    "INSERT INTO games VALUES "
                    "(?, ?, 'finished', 'sochi', 1000, 3, ?, 0, 1, ?, '[]')",
                    (tid, -100 - tid, len(archived["deals"]), dumps(archived)),
                )
        con.commit()
    finally:
        con.close()


def _rows(path: Path, sql: str) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(path)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


async def test_the_compacting_migration_keeps_every_record(tmp_path: Path) -> None:
    archived = _game(2, 25)
    playing = _game(3, 4)
    differs = _game(4, 6)
    other = {**differs, "deals": [*differs["deals"][:-1], {**differs["deals"][-1], "x": 1}]}
    unarchived = _game(6, 5)
    tables = {
        1: ("over", archived, archived),
        2: ("playing", playing, None),
        3: ("over", differs, other),  # its archive does not hold its deals as they are
        4: ("over", unarchived, None),
    }
    path = tmp_path / "old.sqlite3"
    _old_database(path, tables)
    size_before = path.stat().st_size
    assert (
        "WITHOUT ROWID" in _rows(path, "SELECT sql FROM sqlite_master WHERE name = 'deals'")[0][0]
    )
    for _, record, _ in tables.values():  # the records replay before
        assert Game.from_record(record).to_record() == record

    store = await Storage.open(str(path))
    try:
        assert await store.schema_version() == SCHEMA_VERSION
        for tid, (_, record, _) in tables.items():
            row = await store.table(tid)
            assert row is not None and row.record == record, tid
            assert Game.from_record(row.record).to_record() == record  # ...and after
    finally:
        await store.close()
    assert _rows(path, "PRAGMA integrity_check") == [("ok",)]
    assert _rows(path, "PRAGMA foreign_key_check") == []
    counts = _rows(path, "SELECT table_id, COUNT(*) FROM deals GROUP BY table_id ORDER BY 1")
    assert counts == [(2, 5), (3, 6), (4, 5)]  # table 1's 25 rows are gone
    assert (
        "WITHOUT ROWID"
        not in _rows(path, "SELECT sql FROM sqlite_master WHERE name = 'deals'")[0][0]
    )
    assert _rows(path, "PRAGMA freelist_count") == [(0,)]  # compacted once
    assert path.stat().st_size < size_before
