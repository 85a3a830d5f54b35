"""One process per database: a second ``python -m bot`` on the same file refuses to start
with one line, and the lock goes with its process, even killed (issue 17, item 5)."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from storage import StorageError, lock_database
from tests.bot_helpers import bot_env, start_bot_process
from tests.fakes import FakeBotApiServer, FakeTelegram, FloodLimits


def _holder(lock_file: Path, pid: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if lock_file.exists() and lock_file.read_text().strip() == str(pid):
            return
        time.sleep(0.05)
    raise TimeoutError(f"process {pid} did not take the lock")


def test_a_second_process_on_the_same_database_refuses_to_start(tmp_path: Path) -> None:
    fake = FakeTelegram(flood=FloodLimits(enabled=False))
    server = FakeBotApiServer(fake)
    server.start_in_thread()
    env = bot_env(fake, server, tmp_path)
    lock_file = Path(env["DATABASE_PATH"] + ".lock")
    first = start_bot_process(env, Path.cwd())
    try:
        _holder(lock_file, first.pid)
        second = start_bot_process(env, Path.cwd())
        out, err = second.communicate(timeout=30)
        assert second.returncode == 2
        lines = err.strip().splitlines()
        assert len(lines) == 1, err
        assert "in use by another bot process" in lines[0] and str(first.pid) in lines[0]
        assert first.poll() is None  # the first one goes on
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
        third = start_bot_process(env, Path.cwd())  # a killed process leaves no stale lock
        try:
            _holder(lock_file, third.pid)
        finally:
            third.terminate()
            third.communicate(timeout=30)
    finally:
        if first.poll() is None:
            first.kill()
            first.communicate(timeout=10)
        server.stop()


def test_the_lock_is_exclusive_and_released(tmp_path: Path) -> None:
    path = str(tmp_path / "db.sqlite3")
    held = lock_database(path)
    with pytest.raises(StorageError, match="in use by another bot process"):
        lock_database(path)
    held.release()
    lock_database(path).release()
    lock_database(":memory:").release()
