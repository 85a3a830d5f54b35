"""``python -m storage.backup`` on PostgreSQL: a pg_dump archive that restores to the
same tables (the SQLite backup: tests/e2e/test_persistence.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from storage import SCHEMA_VERSION, Storage
from storage.backup import backup_postgres, main, pg_tool
from tests.pg_helpers import fresh_database, need_server

RECORD = {"format": "preferans-record/1", "players": ["А", "Б", "В"], "deals": [{"n": 1}]}


async def test_a_postgres_backup_restores_to_the_same_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    need_server()
    dump = tmp_path / "bot.dump"
    async with fresh_database() as url:
        store = await Storage.open(url)
        try:
            await store.save_user(1, "Анна", "ru", True)
            tid = await store.create_table(-5, 1, {"pulka": 10}, {"k": "в"})
            await store.save_table(
                tid,
                status="playing",
                settings={"pulka": 10},
                state={"k": "в"},
                record=RECORD,
                move=3,
                deadline=None,
                seats=[1, None, None],
            )
            assert backup_postgres(url, str(dump)) == SCHEMA_VERSION  # while it is open
        finally:
            await store.close()
        proc = subprocess.run(
            [sys.executable, "-m", "storage.backup", url, str(tmp_path / "cli.dump")],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
        assert f"(schema version {SCHEMA_VERSION})" in proc.stdout
    assert not (tmp_path / "bot.dump.tmp").exists()
    async with fresh_database() as copy:
        restored = subprocess.run(
            [pg_tool("pg_restore"), "--no-owner", "-d", copy, str(dump)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert restored.returncode == 0, restored.stderr
        store = await Storage.open(copy)
        try:
            assert await store.schema_version() == SCHEMA_VERSION
            row = await store.table(tid)
            assert row is not None and row.record == RECORD and row.state == {"k": "в"}
            user = await store.user(1)
            assert user is not None and user.name == "Анна"
            again = await store.create_table(-6, 1, {}, {})  # the id sequence came along
            assert again == tid + 1
        finally:
            await store.close()
    capsys.readouterr()
    assert main(["postgresql://nobody@127.0.0.1:1/none", str(tmp_path / "x.dump")]) == 2
    assert capsys.readouterr().err.startswith("error: cannot connect to the database")
