"""``python -m bot.recompute FILE_OR_URL``: rebuild the per-player statistics from the archive.

The archive keeps each game's whole record; the statistics rows (``game_players``) are the
bot's computation (:func:`bot.stats.game_rows`) and can always be rebuilt from them.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from bot.stats import recompute_rows
from storage import Storage, StorageError
from storage.archive import recompute

__all__ = ["main"]


async def _main_async(path: str) -> int:
    storage = await Storage.open(path)
    try:
        return await recompute(storage, recompute_rows)
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
        done = asyncio.run(_main_async(args.database))
    except StorageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"recomputed the statistics of {done} game(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
