"""The analysis worker process ends with the bot's process, even when the bot is killed."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

BOT = """
import os, sys
from bot.telegram.analysing import worker
executor = worker()
print(executor.submit(os.getpid).result(), flush=True)
sys.stdin.read()
"""
"""A stand-in for the bot: starts the worker as the bot does, then waits to be killed."""


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie waiting for its reaper is not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


@pytest.mark.waits
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_the_worker_ends_when_the_bot_is_killed() -> None:
    bot = subprocess.Popen(
        [sys.executable, "-c", BOT], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert bot.stdout is not None
    pid = int(bot.stdout.readline())
    assert _running(pid)
    bot.kill()  # SIGKILL: no shutdown of the executor, nothing closed
    bot.wait()
    deadline = time.monotonic() + 20  # it looks every second
    while _running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(pid), "the analysis worker outlived the killed bot"
