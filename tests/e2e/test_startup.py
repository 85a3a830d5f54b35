"""Start-up says what is wrong in one line and waits for Telegram (issue 17, item 9)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.config import Config, ConfigError
from storage import StorageError, check_path
from tests.bot_helpers import bot_env
from tests.e2e.bot_forks import alive, gone, shared
from tests.fakes import FakeBotApiServer, FakeTelegram, FloodLimits


def _run(env: dict[str, str], timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot"], env=env, capture_output=True, text=True, timeout=timeout
    )


def _main(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    """``python -m bot``'s ``main`` in-process with this environment: status, stderr. (A
    refusal comes before any import of python-telegram-bot: the first database case below
    runs the real process, stderr and all.)"""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    status = main()
    return status, capsys.readouterr().err


@pytest.fixture
def served(tmp_path: Path):  # type: ignore[no-untyped-def]
    fake = FakeTelegram(flood=FloodLimits(enabled=False))
    server = FakeBotApiServer(fake)
    server.start_in_thread()
    try:
        yield fake, bot_env(fake, server, tmp_path)
    finally:
        server.stop()


@pytest.mark.parametrize("token", ["123:abc def", "123:abc/def", "123:abc\r\nHost: x", "abc"])
def test_a_malformed_token_is_refused_before_any_request(  # type: ignore[no-untyped-def]
    served, token: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake, env = served
    status, err = _main({**env, "BOT_TOKEN": token}, monkeypatch, capsys)
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1, err
    assert "BOT_TOKEN is malformed" in lines[0] and token.strip() not in lines[0]
    assert fake.calls == []


def test_each_database_path_problem_has_its_own_line(  # type: ignore[no-untyped-def]
    served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake, env = served
    cases = {
        str(tmp_path): "is a folder",
        "/dev/null": "not a regular file",
        str(tmp_path / "missing" / "db.sqlite3"): "does not exist",
    }
    for i, (path, says) in enumerate(cases.items()):
        if i == 0:  # the real process
            done = _run({**env, "DATABASE_PATH": path})
            status, err = done.returncode, done.stderr
        else:
            status, err = _main({**env, "DATABASE_PATH": path}, monkeypatch, capsys)
        lines = err.strip().splitlines()
        assert status == 2 and len(lines) == 1, err
        assert says in lines[0]
    assert fake.calls == []


def test_permission_problems_are_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Read-only folder and unreadable file (the tests may run as root, whom permissions do
    not stop, so ``os.access`` answers as for an ordinary user)."""
    db = tmp_path / "db.sqlite3"
    real = os.access
    monkeypatch.setattr(
        os, "access", lambda p, mode: False if str(p) == str(tmp_path) else real(p, mode)
    )
    with pytest.raises(StorageError, match="folder of DATABASE_PATH .* is read-only"):
        check_path(str(db))
    db.write_bytes(b"")
    monkeypatch.setattr(os, "access", lambda p, mode: str(p) != str(db) or mode != os.R_OK)
    with pytest.raises(StorageError, match="cannot be read"):
        check_path(str(db))
    monkeypatch.setattr(os, "access", lambda p, mode: str(p) != str(db) or mode != os.W_OK)
    with pytest.raises(StorageError, match="is read-only"):
        check_path(str(db))
    monkeypatch.setattr(os, "access", real)
    check_path(str(db))


@pytest.mark.parametrize(
    "defaults",
    [
        '{"players": 7}',
        '{"players": true}',
        '{"turn_time": -5}',
        '{"turn_time": 100000}',
        '{"pulka": 0}',
        '{"lang": "de"}',
        '{"sheet": "png"}',
        '{"colour": "red"}',
        '{"options": []}',
        "[]",
    ],
)
def test_test_settings_are_validated(defaults: str) -> None:
    with pytest.raises(ConfigError, match="PREFERANS_DEFAULTS"):
        Config.from_env({"BOT_TOKEN": "1:x", "PREFERANS_DEFAULTS": defaults})


def test_good_test_settings_pass() -> None:
    cfg = Config.from_env(
        {"BOT_TOKEN": "1:x", "PREFERANS_DEFAULTS": '{"pulka": 2, "turn_time": 0, "players": 4}'}
    )
    assert cfg.table_defaults["players"] == 4
    assert cfg.pacing and cfg.analysis  # both on unless switched off
    cfg = Config.from_env({"BOT_TOKEN": "1:x", "PREFERANS_ANALYSIS": "off"})
    assert cfg.pacing and not cfg.analysis


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
@pytest.mark.waits
def test_an_unreachable_api_is_waited_for(tmp_path: Path) -> None:
    fake = FakeTelegram(flood=FloodLimits(enabled=False))
    user = fake.add_user("Anna", language_code="en")
    port = _free_port()
    env = {
        **os.environ,
        "BOT_TOKEN": fake.token,
        "TELEGRAM_API_URL": f"http://127.0.0.1:{port}",
        "DATABASE_PATH": str(tmp_path / "db.sqlite3"),
        "PYTHONPATH": str(Path.cwd()),
    }
    log = tmp_path / "bot.log"
    log.write_text("")
    # its own process, forked from a pre-imported bot (tests/e2e/bot_forks.py)
    pid = shared().start(env, tmp_path, log)
    server = None
    try:
        deadline = time.monotonic() + 30
        while log.read_text().count("cannot be reached") < 2 and time.monotonic() < deadline:
            assert alive(pid), log.read_text()
            time.sleep(0.05)
        text = log.read_text()
        assert text.count("cannot be reached") >= 2 and "Traceback" not in text, text
        assert all("WARNING" in line for line in text.splitlines() if "cannot be reached" in line)
        server = FakeBotApiServer(fake, port=port)
        server.start_in_thread()
        # it started once Telegram was back: it polls and answers (a getUpdates call is
        # recorded only when it returns, after a long poll's 10 s if nothing comes)
        fake.user_starts_bot(user)
        fake.wait_until_sync(
            lambda: fake.bot_messages(user.id), timeout=30, what=f"/start; see {log}"
        )
        assert fake.calls_to("getUpdates"), log.read_text()
    finally:
        os.kill(pid, signal.SIGTERM)
        assert gone(pid, 30), "SIGTERM did not stop the bot"
        if server is not None:
            server.stop()
