"""``python -m bot`` started by forking an interpreter that has imported the bot already.

The restart test starts the bot ~15 times per run, and a fresh interpreter spends ~1.5 s
of CPU importing python-telegram-bot, aiohttp and the bot before it does anything. A fork
of a server process that has done those imports starts at once and runs the very same
``bot.__main__.main()`` with its own environment, working directory, stderr and pid: a
SIGKILL kills that process alone, as it would a ``python -m bot``. One server per test
process (:func:`shared`) serves the tests that run the bot as a process only to watch it
from outside (restarts, webhook mode, waiting for Telegram); tests/e2e/test_bot_e2e.py
runs the real ``python -m bot``.
"""

from __future__ import annotations

import atexit
import gc
import json
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
from fractions import Fraction
from pathlib import Path

__all__ = ["BotForks", "alive", "gone", "shared"]


class BotForks:
    """A server process that forks a ready ``python -m bot`` on request (from any thread)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        env = {**os.environ, "PYTHONPATH": str(Path.cwd())}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.e2e.bot_forks"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line.strip() == "ready", f"the fork server did not start: {line!r}"

    def start(
        self, env: dict[str, str], cwd: Path, stderr: Path, stdout: Path | None = None
    ) -> int:
        """Fork a bot with this environment, cwd, stderr file (appended to) and stdout file
        (default: the null device); its pid."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        request = {
            "env": env,
            "cwd": str(cwd),
            "stderr": str(stderr),
            "stdout": str(stdout) if stdout is not None else os.devnull,
        }
        with self._lock:  # one request and its answer at a time
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
            return int(self.proc.stdout.readline())

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


_shared: BotForks | None = None


def shared() -> BotForks:
    """This test process's fork server: started at the first use (~1.5 s of CPU, what one
    ``python -m bot`` costs before it does anything), closed at exit."""
    global _shared
    if _shared is None or _shared.proc.poll() is not None:
        _shared = BotForks()
        atexit.register(_shared.close)
    return _shared


def gone(pid: int, timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for the process to be gone; whether it is."""
    deadline = time.monotonic() + timeout
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def alive(pid: int) -> bool:
    """Whether the process is there at all. The fork server reaps its children as they end,
    and a child is reaped only once all its threads are gone (a killed bot's main thread
    can be a zombie while its SQLite thread still holds the files: the database lock)."""
    return os.path.exists(f"/proc/{pid}")


def _child(request: dict[str, str]) -> int:
    import bot.__main__ as entry

    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    err = os.open(request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    out = os.open(request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(out, 1)
    os.dup2(err, 2)
    return entry.main()


def _reap(signum: int, frame: object) -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _serve() -> None:
    # Everything ``python -m bot`` imports, before the first fork.
    import telegram.error  # noqa: F401

    import bot.__main__  # noqa: F401
    import bot.app  # noqa: F401
    import storage  # noqa: F401
    from bot.render.i18n import LANGS, catalogue, number

    # What every bot reads at its first text (the command menu is set in both languages at
    # every start), read once here rather than in each child: the catalogues and Babel's
    # locale data, ~0.04 s of CPU a start.
    for lang in LANGS:
        catalogue(lang)
        number(lang, Fraction(1, 3))
    # The children's garbage collections leave the server's objects alone: otherwise the
    # first full collection in each child walks (and so copies, page by page) the whole
    # imported heap. Python's advice for a fork without exec (gc.freeze's documentation).
    gc.freeze()

    # No zombies: reap each bot as it ends. Not SIG_IGN, with which the kernel reaps them
    # but their CPU time is then counted nowhere (waited for, it adds to this server's,
    # and this server's to the test process's when it ends).
    signal.signal(signal.SIGCHLD, _reap)
    print("ready", flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                code = _child(request)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            except BaseException:
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        print(pid, flush=True)


if __name__ == "__main__":
    _serve()
