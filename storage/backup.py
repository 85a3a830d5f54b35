"""``python -m storage.backup SRC DST``: a consistent copy of the bot's database.

Safe while the bot runs: SQLite's online backup API copies a snapshot of the database
(the WAL included) page by page, so the copy is never half-written. Do not copy the
``.sqlite3`` file alone with ``cp`` while the bot runs: recent commits live in the
``-wal`` file next to it until a checkpoint.

The copy is written to ``DST.tmp`` first, checked (``PRAGMA integrity_check``) and then
renamed over ``DST``, so an interrupted backup never leaves a broken ``DST``.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys

__all__ = ["backup", "main"]


def backup(src: str, dst: str, *, pages: int = 256) -> int:
    """Copy the database ``src`` to ``dst``; returns the copy's schema version.

    Raises ``FileNotFoundError`` when ``src`` does not exist and ``sqlite3.DatabaseError``
    when it is not a database or the copy fails its integrity check.
    """
    if not os.path.exists(src):
        raise FileNotFoundError(f"no database at {src}")
    tmp = dst + ".tmp"
    if os.path.exists(tmp):
        os.remove(tmp)
    source = sqlite3.connect(f"file:{src}?mode=ro", uri=True)
    try:
        target = sqlite3.connect(tmp)
        try:
            source.backup(target, pages=pages)
            target.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
            check = target.execute("PRAGMA integrity_check").fetchone()[0]
            if check != "ok":
                raise sqlite3.DatabaseError(f"the copy failed its integrity check: {check}")
            version = int(target.execute("PRAGMA user_version").fetchone()[0])
        finally:
            target.close()
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    finally:
        source.close()
    os.replace(tmp, dst)
    return version


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m storage.backup",
        description="Copy the bot's SQLite database safely, also while the bot runs.",
    )
    parser.add_argument("src", help="the bot's database (DATABASE_PATH)")
    parser.add_argument("dst", help="the copy to write (replaced if it exists)")
    args = parser.parse_args(argv)
    try:
        version = backup(args.src, args.dst)
    except (OSError, sqlite3.Error) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{args.src} -> {args.dst} (schema version {version})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
