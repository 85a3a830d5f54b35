"""``python -m bot`` as a process of its own, for the tests that watch the bot from outside
(restarts and kills, webhook mode, start-up, stopping): a pid to signal, and waits for it
to end.

Each bot is started through multiprocessing's fork server, which has imported the bot
once (``set_forkserver_preload``): a fresh interpreter spends ~0.7 s of CPU importing
python-telegram-bot, aiohttp and the bot, and the restart test alone starts the bot ~15
times. The server is a fresh interpreter itself, with nothing of pytest's in it; each bot
is a fork of it that takes its own environment, working directory and standard streams
and then runs ``bot.__main__.main()``, as ``python -m bot`` does. SIGKILL kills that
process alone.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import signal
import sys
import threading
from multiprocessing.process import BaseProcess
from pathlib import Path

__all__ = ["alive", "gone", "send", "start"]

_context = multiprocessing.get_context("forkserver")
_context.set_forkserver_preload(["bot.__main__", "bot.app", "storage"])
_lock = threading.Lock()
_bots: dict[int, BaseProcess] = {}


def _run(env: dict[str, str], cwd: str, stderr: str, stdout: str) -> None:
    """In the forked bot: its environment, directory and streams, then ``python -m bot``."""
    import bot.__main__ as entry

    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    null = os.open(os.devnull, os.O_RDONLY)
    out = os.open(stdout, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    err = os.open(stderr, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    for fd, target in ((null, 0), (out, 1), (err, 2)):
        os.dup2(fd, target)
        os.close(fd)
    sys.exit(entry.main())


def start(env: dict[str, str], cwd: Path, stderr: Path, stdout: Path | None = None) -> int:
    """Start ``python -m bot`` with this environment and working directory, its standard
    error appended to ``stderr`` and its output to ``stdout`` (default: the null device);
    its pid."""
    args = (env, str(cwd), str(stderr), str(stdout or os.devnull))
    bot = _context.Process(target=_run, args=args, daemon=False)
    bot.start()
    assert bot.pid is not None
    with _lock:
        _bots[bot.pid] = bot
    return bot.pid


def alive(pid: int) -> bool:
    """Whether the bot started as ``pid`` still runs. A process has ended only once all
    its threads are gone: a killed bot's database thread holds its files until then."""
    return _bots[pid].is_alive()


def gone(pid: int, timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for the bot ``pid`` to end; whether it has."""
    bot = _bots[pid]
    bot.join(timeout)
    return not bot.is_alive()


def send(pid: int, signum: int = signal.SIGTERM) -> None:
    """Send the bot ``pid`` a signal, unless it has ended (the fork server reaps its
    processes as they end, so its pid may be gone already)."""
    if alive(pid):
        try:
            os.kill(pid, signum)
        except ProcessLookupError:  # it ended just now
            pass


@atexit.register
def _end_leftovers() -> None:
    """A bot a failed test left running is killed when the test process ends (it would
    otherwise wait for it: multiprocessing joins its children at exit)."""
    for pid, bot in list(_bots.items()):
        if bot.is_alive():
            send(pid, signal.SIGKILL)  # (it may end meanwhile)
            bot.join(10)
