"""Start-up says what is wrong in one line and waits for Telegram and for the database; a
table that would break it is set aside while the others play."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.config import Config, ConfigError
from bot.core.model import TableSettings
from bot.core.modes import SheetMode
from bot.render.i18n import t
from storage import StorageError, check_path
from tests.bot_helpers import bot_env, is_alert, open_and_start, running_bot
from tests.e2e.bot_process import alive, gone, send, start
from tests.fakes import FakeBotApiServer, FakeTelegram, FakeUser, FloodLimits


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
    # its own process (tests/e2e/bot_process.py)
    pid = start(env, tmp_path, log)
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
        send(pid, signal.SIGTERM)
        assert gone(pid, 30), "SIGTERM did not stop the bot"
        if server is not None:
            server.stop()


@dataclass(frozen=True)
class Game:
    """A started game: its table and chat, the player to act, his hand message, the move."""

    table_id: int
    chat_id: int
    user: FakeUser
    hand: int
    move: int


def _games_in_progress(
    tmp_path: Path, fake: FakeTelegram, groups: int = 1, turn_time: int = 0
) -> list[Game]:
    """A started game in each of ``groups`` groups in tmp_path/db.sqlite3, played
    in-process by the same Application."""

    async def build() -> list[Game]:
        settings = TableSettings(turn_time=turn_time, sheet=SheetMode.TEXT)
        games = []
        async with running_bot(tmp_path, fake=fake, db_name="db.sqlite3", defaults=settings) as h:
            for n in range(groups):
                if n:
                    h = dataclasses.replace(h, group=fake.add_group(f"Club {n}", h.users))
                await open_and_start(h)
                user = h.actor()
                assert user is not None
                msg = h.hand_message(user)
                assert msg is not None and msg.buttons
                table = h.table()
                games.append(Game(table.id, table.chat_id, user, msg.message_id, table.move))
        return games

    return asyncio.run(build())


def _table_row(db: Path, table_id: int) -> tuple[str, int]:
    con = sqlite3.connect(db)
    try:
        sql = "SELECT status, move FROM tables WHERE id = ?"
        status, move = con.execute(sql, (table_id,)).fetchone()
        return str(status), int(move)
    finally:
        con.close()


def _stop(pid: int) -> None:
    """SIGTERM, unless it has exited already; it is gone within 30 s."""
    if alive(pid):
        send(pid, signal.SIGTERM)
    assert gone(pid, 30), "SIGTERM did not stop the bot"


def _press_on(fake: FakeTelegram, game: Game, log: Path) -> None:
    """The player to act presses his hand message's first button: answered, no alert."""
    msg = fake.message(game.user.id, game.hand)
    data = next(d for _, d in msg.buttons if d)
    query = fake.press(game.user, msg, data)
    fake.wait_until_sync(
        lambda: fake.callback_answers.get(query), timeout=30, what=f"an answer; {log}"
    )
    assert not is_alert(fake.callback_answer(query))


@pytest.mark.slow
@pytest.mark.waits
def test_a_database_locked_at_start_up_is_waited_for_and_the_game_resumes(
    tmp_path: Path,
) -> None:
    """Another connection holds the database's write lock while the bot starts, longer than
    two saves wait for it (~11 s: before, ~7 s cancelled the healthy table and ~10 s made the
    bot exit with a traceback): the bot waits, one WARNING a try, and the game goes on."""
    fake = FakeTelegram(flood=FloodLimits(enabled=False))
    [game] = _games_in_progress(tmp_path, fake)
    db = tmp_path / "db.sqlite3"
    assert _table_row(db, game.table_id) == ("playing", game.move)
    server = FakeBotApiServer(fake)
    server.start_in_thread()
    # the write lock, as a sqlite3 shell holds it, in a process of its own
    hold = "import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
    hold += "c.execute('BEGIN IMMEDIATE'); print('held', flush=True); sys.stdin.read()"
    holder = subprocess.Popen(
        [sys.executable, "-c", hold, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
    log = tmp_path / "bot.log"
    log.write_text("")
    env = bot_env(fake, server, tmp_path, PREFERANS_PACING="off", PREFERANS_ANALYSIS="off")
    pid = start(env, tmp_path, log)
    try:
        deadline = time.monotonic() + 90
        while log.read_text().count("saving at start-up failed") < 2:
            assert alive(pid), "the bot exited:\n" + log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        holder.communicate(timeout=30)  # its stdin closed: it lets go and ends
        fake.wait_until_sync(
            lambda: "resumed 1 table(s)" in log.read_text(), timeout=60, what=f"resume; {log}"
        )
        _press_on(fake, game, log)
        assert _table_row(db, game.table_id) == ("playing", game.move + 1)
        text = log.read_text()
        warnings = [line for line in text.splitlines() if "saving at start-up failed" in line]
        # (a third try fails too if this test let go of the lock late, 7 s after the second)
        assert len(warnings) >= 2 and all(" WARNING " in w for w in warnings), text
        assert "database is locked" in warnings[0]
        assert " ERROR " not in text and "Traceback" not in text and "set aside" not in text
        assert alive(pid)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
        _stop(pid)
        server.stop()


@pytest.mark.slow
def test_a_table_whose_deadline_no_timer_can_hold_is_set_aside_and_the_other_plays(
    tmp_path: Path,
) -> None:
    """A deadline of 1e308 made ``run_once`` raise ``OverflowError`` while the tables were
    shown at start-up: the bot exited, at every start. Now that table is set aside with one
    log line, its group is told, and the other group's game goes on."""
    fake = FakeTelegram(flood=FloodLimits(enabled=False))
    bad, good = _games_in_progress(tmp_path, fake, groups=2, turn_time=300)
    db = tmp_path / "db.sqlite3"
    con = sqlite3.connect(db)
    con.execute("UPDATE tables SET deadline = 1e308 WHERE id = ?", (bad.table_id,))
    con.commit()
    con.close()
    server = FakeBotApiServer(fake)
    server.start_in_thread()
    log = tmp_path / "bot.log"
    log.write_text("")
    env = bot_env(fake, server, tmp_path, PREFERANS_PACING="off", PREFERANS_ANALYSIS="off")
    told = t("en", "restart.set_aside")  # the group's language, not the bot's default
    pid = start(env, tmp_path, log)
    try:
        fake.wait_until_sync(
            lambda: (
                not alive(pid) or any(m.content == told for m in fake.bot_messages(bad.chat_id))
            ),
            timeout=60,
            what=f"the group told; {log}",
        )
        assert alive(pid), "the bot exited:\n" + log.read_text()
        _press_on(fake, good, log)
        assert _table_row(db, good.table_id) == ("playing", good.move + 1)
        assert _table_row(db, bad.table_id) == ("cancelled", bad.move)
        text = log.read_text()
        errors = [line for line in text.splitlines() if " ERROR " in line]
        assert len(errors) == 1 and f"table {bad.table_id} cannot be resumed" in errors[0], text
        assert "Traceback" not in text, text
        assert alive(pid)
    finally:
        _stop(pid)
        server.stop()
