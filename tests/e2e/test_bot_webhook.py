"""Webhook mode: ``python -m bot`` with WEBHOOK_URL registers the webhook and handles
updates that Telegram POSTs to it (with the secret token checked).

The bot runs as its own process, forked from a pre-imported one (tests/e2e/bot_forks.py);
tests/e2e/test_bot_e2e.py runs the real ``python -m bot``."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from bot.__main__ import main
from tests.bot_helpers import bot_env
from tests.e2e.bot_forks import gone, shared
from tests.fakes import FakeBotApiServer, FakeTelegram


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _post(url: str, update: dict, secret: str | None) -> int:
    headers = {"Content-Type": "application/json"}
    if secret is not None:
        headers["X-Telegram-Bot-Api-Secret-Token"] = secret
    request = urllib.request.Request(url, json.dumps(update).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def _get(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return int(response.status), json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return int(exc.code), json.loads(exc.read())


@pytest.mark.waits
def test_webhook_mode_registers_and_handles_posted_updates(tmp_path: Path) -> None:
    fake = FakeTelegram()
    user = fake.add_user("Anna", started=True)
    group = fake.add_group("Club", [user])
    server = FakeBotApiServer(fake)
    server.start_in_thread()
    port = _free_port()
    # Telegram needs https: the host's proxy terminates TLS and forwards to our port.
    public = "https://preferans.example.org/tg-hook"
    hook = f"http://127.0.0.1:{port}/tg-hook"
    env = bot_env(
        fake,
        server,
        tmp_path,
        WEBHOOK_URL=public,
        WEBHOOK_LISTEN="127.0.0.1",
        PORT=str(port),
        WEBHOOK_SECRET="s3cret-token",
    )
    out_file, err_file = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    pid = shared().start(env, tmp_path, err_file, out_file)
    try:
        fake.wait_until_sync(lambda: fake.webhook_url == public, timeout=30, what="setWebhook")
        # Telegram would now POST updates; the fake queues them, we deliver them by hand.
        fake.send_text(user, group, "/newgame")
        updates = fake.pending_updates()
        assert updates
        deadline = time.monotonic() + 20
        status = 0
        while time.monotonic() < deadline:
            try:
                status = _post(hook, updates[-1], "wrong")
                break
            except OSError:
                time.sleep(0.2)  # the webhook server is still starting
        assert status in (401, 403)  # a forged update without the secret is refused
        assert _post(hook, updates[-1], "s3cret-token") == 200
        fake.wait_until_sync(
            lambda: any("pulka" in m.content.lower() for m in fake.bot_messages(group)),
            timeout=20,
            what="lobby",
        )
        lobbies = [m for m in fake.bot_messages(group) if "pulka" in m.content.lower()]
        assert len(lobbies) == 1
        # the health check on the webhook's port: the database and Telegram answer...
        health = f"http://127.0.0.1:{port}/healthz"
        assert _get(health) == (200, {"ok": True, "database": "ok", "telegram": "ok"})
        fake.fail_next("getMe", error=(500, "Internal Server Error"))
        status, report = _get(health)  # ...and then Telegram does not
        assert status == 503 and report["ok"] is False and report["database"] == "ok"
        assert report["telegram"].startswith("error: NetworkError"), report
        # the container's HEALTHCHECK asks the same endpoint
        check = subprocess.run(
            [sys.executable, "-m", "bot.healthcheck"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert check.returncode == 0, check.stderr
    finally:
        os.kill(pid, signal.SIGINT)
        if not gone(pid, 20):
            os.kill(pid, signal.SIGKILL)
            gone(pid, 10)
        server.stop()
    out, err = out_file.read_text(), err_file.read_text()
    secret = fake.token.split(":")[1]
    assert secret not in err and secret not in out
    assert "s3cret-token" not in err


def test_bad_webhook_url_is_one_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``python -m bot``'s ``main`` in-process (the test above runs the real process): the
    refused webhook ends it with status 1 and one line."""
    fake = FakeTelegram()
    server = FakeBotApiServer(fake)
    server.start_in_thread()
    env = bot_env(
        fake,
        server,
        tmp_path,
        WEBHOOK_URL="http://plain-http.example.org/hook",
        WEBHOOK_LISTEN="127.0.0.1",
        PORT=str(_free_port()),
    )
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    try:
        status = main()
    finally:
        server.stop()
        asyncio.set_event_loop(None)  # PTB closed the loop it made current: leave none
    err = capsys.readouterr().err
    assert status == 1
    last = err.strip().splitlines()[-1]
    assert last.startswith("error:") and "https" in last
    # (python-telegram-bot logs its own traceback before; the last line is ours)
