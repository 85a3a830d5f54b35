"""One process per database: a second ``python -m bot`` on the same file refuses to start
with one line, and the lock goes with its process, even killed."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from storage import StorageError, lock_database
from storage.pg_lock import APP_NAME, HOLDER, LOCK_KEY
from tests.bot_helpers import bot_env, start_bot_process
from tests.e2e.bot_process import alive, gone, send, start
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
    """Three ``python -m bot`` processes on one database: the first holds it, the second
    is refused (its status and stderr read), the third takes it once the first is killed."""
    fake = FakeTelegram(flood=FloodLimits(enabled=False))
    server = FakeBotApiServer(fake)
    server.start_in_thread()
    try:
        env = bot_env(fake, server, tmp_path)
        lock_file = Path(env["DATABASE_PATH"] + ".lock")
        first, line = _refused(env, tmp_path / "bot.log", lambda pid: _holder(lock_file, pid))
        assert str(first) in line
    finally:
        server.stop()


def _refused(env: dict[str, str], log: Path, holds: Callable[[int], None]) -> tuple[int, str]:
    """A first bot holds the lock (``holds(pid)`` waits for it), a second one is refused,
    the first is killed, a third takes the lock: the first's pid and the refusal's line."""
    first = start(env, Path.cwd(), log)
    try:
        holds(first)
        second = start_bot_process(env, Path.cwd())
        out, err = second.communicate(timeout=60)
        assert second.returncode == 2
        lines = err.strip().splitlines()
        assert len(lines) == 1, err
        assert "in use by another bot process" in lines[0]
        assert alive(first)  # the first one goes on
        send(first, signal.SIGKILL)
        assert gone(first, 10)
        third = start(env, Path.cwd(), log)  # a killed process leaves no stale lock
        try:
            holds(third)
        finally:
            send(third, signal.SIGTERM)
            assert gone(third, 30), log.read_text()
    finally:
        if alive(first):
            send(first, signal.SIGKILL)
            gone(first, 10)
    return first, lines[0]


def test_the_lock_is_exclusive_and_released(tmp_path: Path) -> None:
    path = str(tmp_path / "db.sqlite3")
    held = lock_database(path)
    with pytest.raises(StorageError, match="in use by another bot process"):
        lock_database(path)
    held.release()
    lock_database(path).release()
    lock_database(":memory:").release()


@pytest.mark.waits  # the refused second bot waits out the lock's 5 s (storage/pg_lock.py)
def test_a_second_process_on_the_same_postgres_database_refuses_to_start(tmp_path: Path) -> None:
    """The same with ``DATABASE_URL``: the lock is PostgreSQL's advisory lock, held by the
    bot's own connection, dropped by the server when the killed process's socket closes."""
    need_server()
    fake = FakeTelegram(flood=FloodLimits(enabled=False))
    server = FakeBotApiServer(fake)
    server.start_in_thread()

    def holds(pid: int) -> None:
        fake.wait_until_sync(lambda: _holder_pid(url) == str(pid), timeout=30, what="the lock")

    try:
        with fresh_database_sync() as url:
            env = {**bot_env(fake, server, tmp_path), "DATABASE_URL": url}
            first, line = _refused(env, tmp_path / "bot.log", holds)
            assert url.split("@")[1] in line  # the database named (no password to hide)
            assert f"(pid {first})" in line
    finally:
        server.stop()


@pytest.mark.waits  # the bot checks its lock every 10 s (storage/pg_lock.py)
def test_a_bot_whose_postgres_lock_another_process_took_stops(tmp_path: Path) -> None:
    """The bot's lock connection ends (a server restart, the network) and a second process
    takes the lock meanwhile: the bot stops with one ERROR line and a failure status, so
    the two never go on side by side."""
    need_server()
    fake = FakeTelegram(flood=FloodLimits(enabled=False))
    server = FakeBotApiServer(fake)
    server.start_in_thread()
    try:
        with fresh_database_sync() as url:
            env = {**bot_env(fake, server, tmp_path), "DATABASE_URL": url}
            log = tmp_path / "bot.log"
            with log.open("w") as out:
                bot = subprocess.Popen(
                    [sys.executable, "-m", "bot"], env=env, stdout=out, stderr=subprocess.STDOUT
                )
            try:
                fake.wait_until_sync(
                    lambda: _holder_pid(url) == str(bot.pid), timeout=30, what="the lock"
                )
                asyncio.run(_take_over(url, bot))
            finally:
                if bot.poll() is None:
                    bot.kill()
                    bot.wait()
            lines = log.read_text().strip().splitlines()
            reason = (
                f"the database {url} is in use by another bot process (pid 4242) since this "
                "one's lock was lost with its connection; this one stops"
            )
            assert bot.returncode == 1
            assert [x.split(" ", 2)[2] for x in lines if " ERROR " in x] == [
                f"ERROR storage.pg_lock: {reason}"
            ]
            assert lines[-1] == f"error: {reason}"
    finally:
        server.stop()


async def _take_over(url: str, bot: subprocess.Popen[bytes]) -> None:
    """A second process waits for the lock; the bot's lock connection is ended (the second
    one gets the lock at that moment), and the lock is held until the bot has stopped."""
    import asyncpg  # type: ignore[import-untyped]

    holders = (
        "SELECT pid, granted FROM pg_locks WHERE locktype = 'advisory' "
        f"AND objid = {LOCK_KEY & 0xFFFFFFFF} AND database = "
        "(SELECT oid FROM pg_database WHERE datname = current_database())"
    )
    admin = await asyncpg.connect(url)
    other = await asyncpg.connect(url, server_settings={"application_name": f"{APP_NAME} 4242"})
    try:
        [(pid, _)] = await admin.fetch(holders)
        waiting = asyncio.create_task(other.execute("SELECT pg_advisory_lock($1)", LOCK_KEY))
        deadline = time.monotonic() + 30
        while len(await admin.fetch(holders)) < 2:  # the second one is queued
            assert time.monotonic() < deadline and not waiting.done()
            await asyncio.sleep(0.05)
        await admin.execute("SELECT pg_terminate_backend($1)", pid)
        await waiting
        await asyncio.to_thread(bot.wait, 60)
    finally:
        await other.close()
        await admin.close()


def _holder_pid(url: str) -> str:
    """The process id in the name of the connection holding the bot's lock ("" if none)."""
    rows = query(url, HOLDER.replace("$1", str(LOCK_KEY & 0xFFFFFFFF)))
    return str(rows[0][0]).removeprefix(APP_NAME).strip() if rows else ""


@pytest.mark.parametrize("link", ["symlink", "hard link"])
def test_a_second_process_through_a_link_refuses_to_start(tmp_path: Path, link: str) -> None:
    """The lock belongs to the database file: another path to the same file (a symlink, a
    hard link) meets it, and the second ``python -m bot`` refuses with one line."""
    fake = FakeTelegram(flood=FloodLimits(enabled=False))
    server = FakeBotApiServer(fake)
    server.start_in_thread()
    env = bot_env(fake, server, tmp_path)
    log = tmp_path / "bot.log"
    first = start(env, Path.cwd(), log)
    try:
        _holder(Path(env["DATABASE_PATH"] + ".lock"), first)
        other = tmp_path / "elsewhere"
        other.mkdir()
        linked = other / "same.sqlite3"
        if link == "symlink":
            linked.symlink_to(env["DATABASE_PATH"])
        else:
            os.link(env["DATABASE_PATH"], linked)
        second = start_bot_process({**env, "DATABASE_PATH": str(linked)}, Path.cwd())
        try:
            out, err = second.communicate(timeout=60)
        finally:
            second.kill()  # (it ran before the lock was taken on the file)
            second.wait()
        assert second.returncode == 2
        lines = err.strip().splitlines()
        assert len(lines) == 1, err
        assert lines[0].startswith(f"error: the database {linked} is in use by another bot")
        if link == "symlink":  # the side file at the real path names the holder
            assert f"(pid {first})" in lines[0]
        assert alive(first)
    finally:
        send(first, signal.SIGKILL)
        gone(first, 10)
        server.stop()


def test_the_lock_holds_through_links_in_process(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    held = lock_database(str(path))
    assert path.exists() and path.stat().st_size == 0  # created empty: a new database
    (tmp_path / "sym.sqlite3").symlink_to(path)
    os.link(path, tmp_path / "hard.sqlite3")
    for other in ("sym.sqlite3", "hard.sqlite3"):
        with pytest.raises(StorageError, match="in use by another bot process"):
            lock_database(str(tmp_path / other))
    held.release()
    lock_database(str(tmp_path / "hard.sqlite3")).release()
