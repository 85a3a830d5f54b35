"""Benchmark: bytes per archived 25-deal game, and start-up with many open tables.

    python tests/perf/storage_size.py [--games 1000] [--open 1000] [--url postgresql://…]

(for another version, run a copy of this file from that version's tree.)

Archives ``--games`` random 25-deal games as the bot does (the record written deal by
deal, the game archived in the transaction that ends it, one more save when the
settlement is shown), then reports the database's size per archived game, table by table.
Then writes ``--open`` tables in play (12 deals each, the 13th under way) and times, in a
fresh process, what a restart does with them: open the database, read every open table
and replay its record (``Game.from_record``); with the process's peak RSS.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

from bot.preferans.conventions import Rules  # noqa: E402
from bot.preferans.game import Game  # noqa: E402
from storage import Storage  # noqa: E402
from storage.rows import GameArchive, HolderRow, PlayerRow  # noqa: E402

NAMES = ["Анна", "Борис", "Вера"]


def records(count: int, deals: int, *, unfinished: bool) -> list[dict[str, Any]]:
    """``count`` records of ``deals`` random legal deals each (one more under way)."""
    out = []
    for seed in range(count):
        game = Game(Rules.preset("sochi", 1000), NAMES)
        rng = random.Random(seed)
        for _ in range(deals):
            game.start_deal(rng)
            while game.current is not None:
                game.apply(rng.choice(game.current.legal_actions()))
        if unfinished:
            game.start_deal(rng)
            for _ in range(8):
                if game.current is None:
                    break
                game.apply(rng.choice(game.current.legal_actions()))
        out.append(game.to_record())
    return out


def state(table_id: int, shown: bool | None) -> dict[str, Any]:
    """A table's state as the bot stores it (seats, message ids, holders...)."""
    return {
        "seats": [{"user_id": 1 + s, "name": n, "lang": "ru"} for s, n in enumerate(NAMES)],
        "table_slot": {"chat_id": -table_id, "message_id": 1000 + table_id},
        "hand_slots": {str(s): {"chat_id": 1 + s, "message_id": 2000 + s} for s in range(3)},
        "deal_no": 25,
        "title": "Клуб любителей преферанса",
        "sheet_message": 3000 + table_id,
        "seed": f"{table_id:032x}",
        "started_at": 1_700_000_000.0,
        "holders": [
            {"seat": s, "from_deal": 1, "user_id": 1 + s, "name": n} for s, n in enumerate(NAMES)
        ],
        "recent": [[100 + i, 1 + i % 3, f"k{i}"] for i in range(8)],
        "unshown_ends": [],
        "settlement_shown": shown,
        "archived": shown is not None,
    }


async def archive_games(store: Storage, count: int) -> None:
    pool = records(min(count, 100), 25, unfinished=False)
    for uid, name in enumerate(NAMES, start=1):
        await store.save_user(uid, name, "ru", True)
    for i in range(count):
        record = pool[i % len(pool)]
        tid = await store.create_table(-1_000_000 - i, 1, {"pulka": 1000}, state(0, None))
        common: dict[str, Any] = {"settings": {"pulka": 1000}, "deadline": None, "seats": [1, 2, 3]}
        await store.save_table(
            tid,
            status="playing",
            state=state(tid, None),
            move=1,
            record={**record, "deals": record["deals"][:1]},
            **common,
        )
        for n in range(2, 26):
            deals = {n: record["deals"][n - 1]}
            await store.save_table(
                tid,
                status="playing",
                state=state(tid, None),
                move=n,
                record=None,
                deals=deals,
                **common,
            )
        archive = GameArchive(
            status="stopped",
            convention="sochi",
            pulka=1000,
            players=3,
            deals=25,
            started_at=1.0,
            ended_at=2.0 + i,
            record=record,
            holders=tuple(HolderRow(s, 1, 1 + s, n) for s, n in enumerate(NAMES)),
            rows=tuple(PlayerRow(1 + s, s, n, deals=25) for s, n in enumerate(NAMES)),
        )
        await store.save_table(
            tid,
            status="over",
            state=state(tid, False),
            move=26,
            record=record,
            archive=archive,
            **common,
        )
        await store.save_table(
            tid, status="over", state=state(tid, True), move=27, record=record, **common
        )


async def open_tables(store: Storage, count: int) -> None:
    pool = records(min(count, 100), 12, unfinished=True)
    for i in range(count):
        tid = await store.create_table(-2_000_000 - i, 1, {"pulka": 1000}, state(0, None))
        await store.save_table(
            tid,
            status="playing",
            settings={"pulka": 1000},
            state=state(tid, None),
            record=pool[i % len(pool)],
            move=5,
            deadline=None,
            seats=[1, 2, 3],
        )


async def sizes(target: str) -> dict[str, int]:
    """Bytes per table (and index) and in all."""
    if target.startswith("postgres"):
        import asyncpg  # type: ignore[import-untyped]

        conn = await asyncpg.connect(target)
        try:
            await conn.execute("VACUUM")
            rows = await conn.fetch(
                "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class AS c "
                "JOIN pg_namespace AS n ON n.oid = c.relnamespace "
                "WHERE n.nspname = current_schema() AND c.relkind = 'r'"
            )
            total = await conn.fetchval("SELECT pg_database_size(current_database())")
        finally:
            await conn.close()
        return {**{r[0]: int(r[1]) for r in rows}, "(database)": int(total)}
    con = sqlite3.connect(target)
    try:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        out = {
            str(n): int(b)
            for n, b in con.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name")
        }
    finally:
        con.close()
    return {**out, "(file)": os.path.getsize(target)}


async def restart(target: str) -> None:
    """What the bot's start-up does with its tables: open, read each open one, replay."""
    start = time.perf_counter()
    store = await Storage.open(target)
    try:
        ids = await store.open_table_ids()
        for tid in ids:
            row = await store.table(tid)
            assert row is not None and row.record is not None
            Game.from_record(row.record)
    finally:
        await store.close()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(json.dumps({"tables": len(ids), "seconds": time.perf_counter() - start, "rss_mb": rss}))


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--open", type=int, default=1000)
    parser.add_argument("--url", help="a PostgreSQL database (emptied first) instead of SQLite")
    parser.add_argument("--restart", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.restart:
        await restart(args.restart)
        return
    with tempfile.TemporaryDirectory(prefix="storage-size-") as folder:
        await measure(args, args.url or os.path.join(folder, "bench.sqlite3"))


async def measure(args: argparse.Namespace, target: str) -> None:
    """Archive the games, print the bytes they take, then time the bot's start-ups."""
    store = await Storage.open(target)
    try:
        began = time.perf_counter()
        await archive_games(store, args.games)
        print(f"{args.games} archived 25-deal games written in {time.perf_counter() - began:.1f} s")
    finally:
        await store.close()
    table = await sizes(target)
    total = table.get("(file)", table.get("(database)", 0))
    print(f"per archived game: {total / args.games / 1024:.1f} KB ({total / 2**20:.1f} MB in all)")
    for name, size in sorted(table.items(), key=lambda kv: -kv[1])[:8]:
        print(f"  {name:<28} {size / args.games / 1024:8.2f} KB/game")
    store = await Storage.open(target)
    try:
        await open_tables(store, args.open)
    finally:
        await store.close()
    for _ in range(2):  # the second start finds the file in the page cache
        out = subprocess.run(
            [sys.executable, __file__, "--restart", target],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        print("start-up:", out.strip())


if __name__ == "__main__":
    asyncio.run(main())
