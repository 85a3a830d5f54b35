"""``python -m bot.recompute FILE_OR_URL``: rebuild the per-player statistics from the archive.

The archive keeps each game's whole record; the statistics rows (``game_players``) are the
bot's computation (:func:`bot.stats.game_rows`) and can always be rebuilt from them, under
the rules the bot scores by now. A record those rules no longer accept (a game that would
have ended earlier under a corrected scoring rule) keeps its archived rows, and is named.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from typing import Any

from bot.preferans.record import RecordError
from bot.stats import recompute_rows
from storage import HolderRow, PlayerRow, Storage, StorageError
from storage.archive import recompute

__all__ = ["main"]


async def _main_async(path: str) -> tuple[int, list[str]]:
    """The games rebuilt, and one line for each game kept as archived."""
    kept: list[str] = []

    def compute(record: dict[str, Any], holders: Sequence[HolderRow]) -> list[PlayerRow] | None:
        try:
            return recompute_rows(record, holders)
        except RecordError as exc:
            names = ", ".join(str(n) for n in record.get("players", []))
            kept.append(f"kept as archived, the game of {names}: {exc}")
            return None

    storage = await Storage.open(path)
    try:
        return await recompute(storage, compute), kept
    finally:
        await storage.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bot.recompute",
        description="Rebuild the per-player statistics from the archived game records.",
    )
    parser.add_argument(
        "database", help="the bot's SQLite file (DATABASE_PATH) or PostgreSQL URL (DATABASE_URL)"
    )
    parser.add_argument("--recompute", action="store_true", help="(kept for old scripts)")
    args = parser.parse_args(argv)
    try:
        done, kept = asyncio.run(_main_async(args.database))
    except StorageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for line in kept:
        print(line, file=sys.stderr)
    print(f"recomputed the statistics of {done} game(s)")
    return 1 if kept else 0


if __name__ == "__main__":
    sys.exit(main())
