"""SIGTERM ends the bot within a container's 10 s grace even while Telegram holds every
request without an answer (the stop's steps each have their share of the time)."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from tests.bot_helpers import bot_env
from tests.e2e.bot_process import gone, send, start
from tests.fakes import FakeBotApiServer, FakeTelegram, FloodLimits

GRACE = 10.0
"""Seconds between SIGTERM and SIGKILL in a container (Docker's and Kubernetes' default)."""


@pytest.mark.waits
def test_sigterm_ends_the_bot_within_the_grace_while_answers_hang(tmp_path: Path) -> None:
    fake = FakeTelegram(flood=FloodLimits(enabled=False))
    user = fake.add_user("Anna", started=True)
    group = fake.add_group("Club", [user])
    server = FakeBotApiServer(fake, injected_timeout_hold=60.0)
    server.start_in_thread()
    log = tmp_path / "bot.log"
    pid = start(bot_env(fake, server, tmp_path), tmp_path, log)
    try:
        fake.wait_until_sync(lambda: fake.calls_to("getUpdates"), timeout=30, what="polling")
        fake.fail_when(lambda method, params: method != "getUpdates", "timeout")
        fake.send_text(user, group, "/newgame")
        fake.user_starts_bot(user)
        fake.wait_until_sync(
            lambda: [c for c in fake.calls_to("sendMessage") if c.status == "timeout"],
            timeout=30,
            what="a send held without an answer",
        )
        fake.fail_when(lambda method, params: True, "timeout")  # the polls hang too
        send(pid, signal.SIGTERM)
        signalled = time.monotonic()
        ended = gone(pid, 30)
        took = time.monotonic() - signalled
    finally:
        if not gone(pid, 0):
            send(pid, signal.SIGKILL)
            gone(pid, 10)
        server.stop()
    assert ended and took <= GRACE, f"{took:.1f} s\n{log.read_text()[-3000:]}"
