"""``python -m storage.backup SRC DST``: a consistent copy of the bot's database.

SRC is a SQLite file (``DATABASE_PATH``) or a PostgreSQL URL (``DATABASE_URL``). For
PostgreSQL the copy is ``pg_dump``'s custom-format archive (one consistent snapshot, safe
while the bot runs), checked by ``pg_restore --list``; restore it into an empty database
with ``pg_restore --no-owner -d URL DST``. ``pg_dump`` is looked for on ``PATH``, then in
``/usr/lib/postgresql/*/bin`` (it must be as new as the server).

For SQLite, safe while the bot runs: SQLite's online backup API copies a snapshot of the database
(the WAL included) page by page, so the copy is never half-written. Do not copy the
``.sqlite3`` file alone with ``cp`` while the bot runs: recent commits live in the
``-wal`` file next to it until a checkpoint.

The copy is written to ``DST.tmp`` first, checked (``PRAGMA integrity_check``) and then
renamed over ``DST``, so an interrupted backup never leaves a broken ``DST``.
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import sqlite3
import subprocess
import sys

from .backends import check_schema
from .connection import StorageError, describe, is_postgres

__all__ = ["backup", "backup_postgres", "pg_tool", "main"]


def pg_tool(name: str) -> str:
    """The path of PostgreSQL's client program ``name`` (``pg_dump``, ``pg_restore``)."""
    found = shutil.which(name)
    if found:
        return found
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version, reverse=True):
        if os.access(os.path.join(folder, name), os.X_OK):
            return os.path.join(folder, name)
    raise FileNotFoundError(f"{name} not found: install PostgreSQL's client programs")


def _version(folder: str) -> int:
    number = os.path.basename(os.path.dirname(folder))
    return int(number) if number.isdigit() else 0


def backup_postgres(url: str, dst: str) -> int:
    """Dump the database at ``url`` to ``dst`` (custom format); its schema version.

    Raises :class:`~storage.StorageError` when the dump or its check fails."""
    version = check_schema(url)
    tmp = dst + ".tmp"
    try:
        for command in (
            [pg_tool("pg_dump"), "--format=custom", "--no-owner", f"--file={tmp}", url],
            [pg_tool("pg_restore"), "--list", tmp],
        ):
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                lines = (done.stderr.strip() or "failed").splitlines()
                raise StorageError(f"{os.path.basename(command[0])} {describe(url)}: {lines[0]}")
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    os.replace(tmp, dst)
    return version


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
        description="Copy the bot's database safely, also while the bot runs.",
    )
    parser.add_argument("src", help="the bot's database (DATABASE_PATH or DATABASE_URL)")
    parser.add_argument("dst", help="the copy to write (replaced if it exists)")
    args = parser.parse_args(argv)
    try:
        if is_postgres(args.src):
            version = backup_postgres(args.src, args.dst)
        else:
            version = backup(args.src, args.dst)
    except (OSError, sqlite3.Error, StorageError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{describe(args.src)} -> {args.dst} (schema version {version})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
