"""``python -m bot`` as a child process, for the tests that watch the bot from outside
(restarts and kills, webhook mode, start-up, stopping): a pid to signal, and waits for it
to end. The process stays this test process's child until it is waited for, so its pid
is never reused while a test may still signal it."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

__all__ = ["alive", "gone", "start"]

_lock = threading.Lock()
_children: dict[int, subprocess.Popen[bytes]] = {}


def start(env: dict[str, str], cwd: Path, stderr: Path, stdout: Path | None = None) -> int:
    """Start ``python -m bot`` with this environment and working directory, its standard
    error appended to ``stderr`` and its output to ``stdout`` (default: the null device);
    its pid."""
    with open(stderr, "ab") as err, open(stdout or os.devnull, "ab") as out:
        child = subprocess.Popen(
            [sys.executable, "-m", "bot"],
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
        )
    with _lock:
        _children[child.pid] = child
    return child.pid


def alive(pid: int) -> bool:
    """Whether the bot started as ``pid`` still runs. A process ends (and is reaped here)
    only once all its threads are gone: a killed bot's database thread holds its files
    until then."""
    return _children[pid].poll() is None


def gone(pid: int, timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for the bot ``pid`` to end; whether it has."""
    try:
        _children[pid].wait(timeout)
    except subprocess.TimeoutExpired:
        return False
    return True
