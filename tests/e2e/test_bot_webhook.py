"""Webhook mode: ``python -m bot`` with WEBHOOK_URL registers the webhook and handles
updates that Telegram POSTs to it (with the secret token checked).

The bot runs as its own process (``python -m bot``, tests/e2e/bot_process.py)."""

from __future__ import annotations

import asyncio
import json
import logging
import resource
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from bot.__main__ import main
from bot.config import Config
from bot.telegram.webhook import Webhook
from tests.bot_helpers import bot_env
from tests.e2e.bot_process import gone, send, start
from tests.fakes import FakeBotApiServer, FakeChat, FakeTelegram, FakeUser


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _post(url: str, update: dict[str, Any], secret: str | None) -> int:
    headers = {"Content-Type": "application/json"}
    if secret is not None:
        headers["X-Telegram-Bot-Api-Secret-Token"] = secret
    request = urllib.request.Request(url, json.dumps(update).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def _get(url: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return int(response.status), json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return int(exc.code), json.loads(exc.read())


def _hooked(
    tmp_path: Path, **extra: str
) -> tuple[FakeTelegram, FakeUser, FakeChat, FakeBotApiServer, int, dict[str, str]]:
    """A fake Telegram with Anna in a group, its server running, a free port for the
    webhook and the bot's environment for it."""
    fake = FakeTelegram()
    user = fake.add_user("Anna", started=True)
    group = fake.add_group("Club", [user])
    server = FakeBotApiServer(fake)
    server.start_in_thread()
    port = _free_port()
    env = bot_env(
        fake,
        server,
        tmp_path,
        WEBHOOK_URL="https://preferans.example.org/tg-hook",
        WEBHOOK_LISTEN="127.0.0.1",
        PORT=str(port),
        **extra,
    )
    return fake, user, group, server, port, env


def _stop(pid: int, server: FakeBotApiServer, sig: int) -> None:
    send(pid, sig)
    if not gone(pid, 20):
        send(pid, signal.SIGKILL)
        gone(pid, 10)
    server.stop()


def _lobby_shown(fake: FakeTelegram, group: FakeChat) -> None:
    fake.wait_until_sync(
        lambda: any("pulka" in m.content.lower() for m in fake.bot_messages(group)),
        timeout=20,
        what="lobby",
    )


@pytest.mark.waits
def test_webhook_mode_registers_and_handles_posted_updates(tmp_path: Path) -> None:
    fake, user, group, server, port, env = _hooked(tmp_path, WEBHOOK_SECRET="s3cret-token")
    # Telegram needs https: the host's proxy terminates TLS and forwards to our port.
    public = env["WEBHOOK_URL"]
    hook = f"http://127.0.0.1:{port}/tg-hook"
    out_file, err_file = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    pid = start(env, tmp_path, err_file, out_file)
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
        _lobby_shown(fake, group)
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
        _stop(pid, server, signal.SIGINT)
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


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def _head(path: str, secret: str, length: int) -> bytes:
    return (
        f"POST /{path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"X-Telegram-Bot-Api-Secret-Token: {secret}\r\nContent-Length: {length}\r\n\r\n"
    ).encode()


def _status_line(sock: socket.socket) -> str:
    data = b""
    while b"\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data.split(b"\r\n", 1)[0].decode()


HUGE = 99 * 1024 * 1024


def _push_huge_body(port: int, secret: str) -> int:
    """Headers announcing 99 MB, then as much of the body as the bot takes (1 MB at a time,
    up to 99 MB): the bytes it took before it refused."""
    sent = 0
    chunk = b"x" * (1 << 20)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(_head("tg-hook", secret, HUGE))
        try:
            while sent < HUGE:
                sock.sendall(chunk)
                sent += len(chunk)
        except (ConnectionError, TimeoutError):
            pass
    return sent


def _listening(port: int, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=10).close()
            return
        except OSError:
            assert time.monotonic() < deadline, "the webhook does not listen"
            time.sleep(0.1)


def _slow_sockets(port: int, count: int) -> list[socket.socket]:
    """``count`` connections that send half a request's headers and then nothing."""
    socks = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        sock.sendall(b"POST /tg-hook HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        socks.append(sock)
    return socks


@pytest.mark.waits
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_the_webhook_stays_responsive_under_slow_sockets_and_huge_bodies(tmp_path: Path) -> None:
    """1,100 connections that never finish their headers (past the bot's 1,024
    descriptors), and 99 MB bodies (with a wrong secret, and with the right one): the bot
    reads none of those bodies, its memory stays flat, it logs no ERROR, and Telegram's
    update still gets in and is handled."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 1400 or _hard < 1400:  # this process holds the sockets (loopback only)
        pytest.skip(f"ulimit -n is {soft}: too few descriptors for 1,100 slow sockets")
    count = 1100
    fake, user, group, server, port, env = _hooked(tmp_path, WEBHOOK_SECRET="s3cret-token")
    err_file = tmp_path / "stderr.txt"
    # the real ``python -m bot`` with a common descriptor limit: 1,100 sockets exceed it
    with err_file.open("w") as err_out:
        bot = subprocess.Popen(
            [sys.executable, "-m", "bot"],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=err_out,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (1024, _hard)),
        )
    pid = bot.pid
    socks: list[socket.socket] = []
    try:
        fake.wait_until_sync(lambda: fake.webhook_url is not None, timeout=30, what="setWebhook")
        _listening(port)
        before = _rss_mb(pid)
        socks = _slow_sockets(port, count)
        pushed = [_push_huge_body(port, "wrong") for _ in range(8)]
        assert all(sent < HUGE for sent in pushed), pushed  # refused unread
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(_head("tg-hook", "s3cret-token", HUGE))  # the right secret
            assert _status_line(sock) == "HTTP/1.1 413 Content Too Large"
        fake.send_text(user, group, "/newgame")
        hook = f"http://127.0.0.1:{port}/tg-hook"
        assert _post(hook, fake.pending_updates()[-1], "s3cret-token") == 200
        _lobby_shown(fake, group)
        assert _rss_mb(pid) < before + 40
    finally:
        for sock in socks:
            sock.close()
        bot.terminate()
        try:
            bot.wait(20)
        except subprocess.TimeoutExpired:
            bot.kill()
            bot.wait()
        server.stop()
    err = err_file.read_text()
    assert " ERROR " not in err and " CRITICAL " not in err, err[-3000:]
    assert len(err) < 20_000


@pytest.mark.waits
def test_without_a_secret_one_is_made_and_a_malformed_update_is_one_line(
    tmp_path: Path,
) -> None:
    """WEBHOOK_SECRET unset: the bot gives Telegram a secret of its own, and a stranger's
    update without it is refused; a malformed update is one short WARNING, not its body."""
    fake, user, group, server, port, env = _hooked(tmp_path)
    env.pop("WEBHOOK_SECRET", None)
    err_file = tmp_path / "stderr.txt"
    pid = start(env, tmp_path, err_file)
    hook = f"http://127.0.0.1:{port}/tg-hook"
    try:
        fake.wait_until_sync(lambda: fake.webhook_url is not None, timeout=30, what="setWebhook")
        secret = fake.webhook_secret
        assert secret is not None and len(secret) >= 32
        fake.send_text(user, group, "/newgame")
        update = fake.pending_updates()[-1]
        assert _post(hook, update, None) == 403  # a forged update, no secret
        assert _post(hook, update, "") == 403
        bad = {"update_id": "private words", "message": {"text": "private words"}}
        assert _post(hook, bad, secret) == 400
        assert _post(hook, update, secret) == 200
        _lobby_shown(fake, group)
    finally:
        _stop(pid, server, signal.SIGTERM)
    err = err_file.read_text()
    assert secret not in err
    assert "private words" not in err
    malformed = [line for line in err.splitlines() if "malformed" in line]
    assert len(malformed) == 1 and " WARNING " in malformed[0], err
    assert " ERROR " not in err and " CRITICAL " not in err and "Traceback" not in err, err


def test_the_accept_loops_error_is_one_warning_until_accepting_works_again() -> None:
    """asyncio logs "out of system resource" with a traceback each second while the
    descriptors are used up: one WARNING line, then nothing until a connection gets in."""
    hook = Webhook(Config(token="1:a", webhook_url="https://example.org/hook"))
    keep = hook.accept_errors

    def record() -> logging.LogRecord:
        try:
            raise OSError(24, "Too many open files")
        except OSError:
            info = sys.exc_info()
        return logging.LogRecord(
            "asyncio",
            logging.ERROR,
            __file__,
            1,
            "socket.accept() out of system resource",
            (),
            info,
        )

    first = record()
    assert keep.filter(first)
    assert (first.levelname, first.exc_info) == ("WARNING", None)
    assert first.getMessage() == (
        "webhook: cannot accept connections ([Errno 24] Too many open files); waiting"
    )
    assert not keep.filter(record()) and not keep.filter(record())
    keep.told = False  # (what a connection accepted does)
    assert keep.filter(record())


def test_a_taken_webhook_port_is_one_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake, _user, _group, server, port, env = _hooked(tmp_path)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", port))
        taken.listen()
        try:
            status = main()
        finally:
            server.stop()
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert status == 2
    assert last == f"error: the webhook cannot listen on 127.0.0.1:{port}: Address already in use"
