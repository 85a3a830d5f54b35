"""The analysis worker process ends with the bot's process, even when the bot is killed; a
worker killed or hung is replaced, and a hung one does not hold the bot's exit."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.telegram.analysing import LIMIT, Analyst

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
    _wait_gone(pid, "the analysis worker outlived the killed bot")


def _wait_gone(pid: int, what: str = "the worker is still running") -> None:
    deadline = time.monotonic() + 20  # (the worker looks for the bot every second)
    while _running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(pid), what


def _answer(deal: object) -> int:
    """The stand-in analysis (in the worker): ``"hang"`` never answers (announcing itself
    on stdout first); anything else is answered with the worker's pid."""
    if deal == "hang":
        print(os.getpid(), flush=True)
        time.sleep(3600)
    return os.getpid()


async def _one(analyst: Analyst, deal: object, what: str) -> list[int]:
    got: list[int] = []
    analyst.start(deal, what, got.append)  # type: ignore[arg-type]
    await asyncio.gather(*analyst.tasks)
    return got


@pytest.mark.waits
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
async def test_a_killed_worker_is_replaced(caplog: pytest.LogCaptureFixture) -> None:
    """Killed between deals (the OOM killer): the next deal is analysed by a new worker,
    with one WARNING and no traceback."""
    analyst = Analyst()
    analyst.analyse = _answer  # type: ignore[assignment]
    try:
        [first] = await _one(analyst, "deal", "deal 1")
        os.kill(first, signal.SIGKILL)
        # until it is reaped: a killed process shows as a zombie while its other threads
        # are still dying, and it holds its pipes until the last one is gone
        deadline = time.monotonic() + 20
        while os.path.exists(f"/proc/{first}") and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert not os.path.exists(f"/proc/{first}")
        with caplog.at_level(logging.WARNING, "bot.telegram.analysing"):
            [second] = await _one(analyst, "deal", "deal 2")
        assert second != first
        assert [(r.levelname, r.getMessage(), r.exc_info) for r in caplog.records] == [
            ("WARNING", "the analysis worker died; a new one is started", None)
        ]
        assert await _one(analyst, "deal", "deal 3") == [second]  # and it stays
    finally:
        analyst.close()


@pytest.mark.waits
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
async def test_a_worker_killed_during_an_analysis_is_replaced(
    caplog: pytest.LogCaptureFixture,
) -> None:
    analyst = Analyst()
    analyst.analyse = _answer  # type: ignore[assignment]
    try:
        [first] = await _one(analyst, "deal", "deal 1")
        got: list[int] = []
        with caplog.at_level(logging.WARNING, "bot.telegram.analysing"):
            analyst.start("hang", "deal 2", got.append)  # type: ignore[arg-type]
            await asyncio.sleep(0)  # submitted: the worker is busy with it
            os.kill(first, signal.SIGKILL)
            await asyncio.gather(*analyst.tasks)
        assert got == []
        assert [(r.levelname, r.getMessage(), r.exc_info) for r in caplog.records] == [
            ("WARNING", "deal 2 not analysed: the analysis worker died; a new one is started", None)
        ]
        [second] = await _one(analyst, "deal", "deal 3")
        assert second != first
    finally:
        analyst.close()


@pytest.mark.waits
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
async def test_a_hung_worker_is_killed_and_replaced(caplog: pytest.LogCaptureFixture) -> None:
    """An analysis past its time limit: its worker is killed, the next deal gets a new one."""
    analyst = Analyst()
    analyst.analyse = _answer  # type: ignore[assignment]
    try:
        [first] = await _one(analyst, "deal", "deal 1")
        analyst.limit = 0.2  # the worker has started: only the hung call meets this limit
        with caplog.at_level(logging.WARNING, "bot.telegram.analysing"):
            assert await _one(analyst, "hang", "deal 2") == []
        assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
            ("WARNING", "deal 2 not analysed: no answer in 0 s; the analysis worker is replaced")
        ]
        _wait_gone(first)
        analyst.limit = LIMIT
        [second] = await _one(analyst, "deal", "deal 3")
        assert second != first
    finally:
        analyst.close()


STOPPING = """
import asyncio, signal
from bot.telegram.analysing import Analyst
from tests.telegram.test_analysing_worker import _answer

async def main():
    analyst = Analyst()
    analyst.analyse = _answer
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    analyst.start("hang", "deal 1", print)
    await stop.wait()
    analyst.close()  # as the bot's shutdown does

asyncio.run(main())
"""
"""A stand-in for the bot whose analysis hangs, stopped by SIGTERM."""


@pytest.mark.waits
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_sigterm_ends_the_bot_while_an_analysis_hangs() -> None:
    bot = subprocess.Popen([sys.executable, "-c", STOPPING], cwd=ROOT, stdout=subprocess.PIPE)
    assert bot.stdout is not None
    try:
        pid = int(bot.stdout.readline())  # the worker is in the hung analysis
        bot.send_signal(signal.SIGTERM)
        assert bot.wait(timeout=60) == 0  # not held by the hung worker (it sleeps an hour)
        _wait_gone(pid)
    finally:
        bot.kill()
        bot.wait()
