"""One process per database: a second ``python -m bot`` on the same file refuses to start
with one line, and the lock goes with its process, even killed (issue 17, item 5)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from storage import StorageError, lock_database
from tests.bot_helpers import bot_env, start_bot_process
from tests.e2e.bot_forks import alive, gone, shared
from tests.fakes import FakeBotApiServer, FakeTelegram, FloodLimits
from tests.pg_helpers import fresh_database_sync, need_server, query


def _holder(lock_file: Path, pid: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if lock_file.exists() and lock_file.read_text().strip() == str(pid):
            return
        time.sleep(0.05)
    raise TimeoutError(f"process {pid} did not take the lock")


def test_a_second_process_on_the_same_database_refuses_to_start(tmp_path: Path) -> None:
    """The first and third bots are forks of a pre-imported ``python -m bot``
    (tests/e2e/bot_forks.py), each its own process; the refused second one is the real
    ``python -m bot``, its status and stderr read."""
    fake = FakeTelegram(flood=FloodLimits(enabled=False))
    server = FakeBotApiServer(fake)
    server.start_in_thread()
    env = bot_env(fake, server, tmp_path)
    lock_file = Path(env["DATABASE_PATH"] + ".lock")
    log = tmp_path / "bot.log"
    first = shared().start(env, Path.cwd(), log)
    try:
        _holder(lock_file, first)
        second = start_bot_process(env, Path.cwd())
        out, err = second.communicate(timeout=30)
        assert second.returncode == 2
        lines = err.strip().splitlines()
        assert len(lines) == 1, err
        assert "in use by another bot process" in lines[0] and str(first) in lines[0]
        assert alive(first)  # the first one goes on
        os.kill(first, signal.SIGKILL)
        assert gone(first, 10)
        third = shared().start(env, Path.cwd(), log)  # a killed process leaves no stale lock
        try:
            _holder(lock_file, third)
        finally:
            os.kill(third, signal.SIGTERM)
            assert gone(third, 30), log.read_text()
    finally:
        if alive(first):
            os.kill(first, signal.SIGKILL)
            gone(first, 10)
        server.stop()


def test_the_lock_is_exclusive_and_released(tmp_path: Path) -> None:
    path = str(tmp_path / "db.sqlite3")
    held = lock_database(path)
    with pytest.raises(StorageError, match="in use by another bot process"):
        lock_database(path)
    held.release()
    lock_database(path).release()
    lock_database(":memory:").release()


def test_a_second_process_on_the_same_postgres_database_refuses_to_start(tmp_path: Path) -> None:
    """The same with ``DATABASE_URL``: the lock is PostgreSQL's advisory lock, held by the
    bot's own session, dropped by the server when the killed process's socket closes."""
    need_server()
    fake = FakeTelegram(flood=FloodLimits(enabled=False))
    server = FakeBotApiServer(fake)
    server.start_in_thread()
    log = tmp_path / "bot.log"
    with fresh_database_sync() as url:
        env = {**bot_env(fake, server, tmp_path), "DATABASE_URL": url}
        first = shared().start(env, Path.cwd(), log)
        try:
            fake.wait_until_sync(
                lambda: _advisory_holders(url) == 1, timeout=30, what="the first bot's lock"
            )
            second = start_bot_process(env, Path.cwd())
            out, err = second.communicate(timeout=60)
            assert second.returncode == 2
            lines = err.strip().splitlines()
            assert len(lines) == 1, err
            assert "in use by another bot process" in lines[0]
            assert url.split("@")[1] in lines[0]  # the database named, no password to hide
            assert alive(first)
            os.kill(first, signal.SIGKILL)
            assert gone(first, 10)
            third = shared().start(env, Path.cwd(), log)  # no stale lock after a SIGKILL
            try:
                fake.wait_until_sync(
                    lambda: _advisory_holders(url) == 1 and alive(third),
                    timeout=30,
                    what="the third bot's lock",
                )
                fake.wait_until_sync(
                    lambda: any(c.method == "deleteWebhook" for c in fake.calls),
                    timeout=30,
                    what="the third bot starts",
                )
            finally:
                os.kill(third, signal.SIGTERM)
                assert gone(third, 30), log.read_text()
        finally:
            if alive(first):
                os.kill(first, signal.SIGKILL)
                gone(first, 10)
            server.stop()


def _advisory_holders(url: str) -> int:
    sql = "SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
    return int(query(url, sql)[0][0])
