"""``python -m bot`` started by forking an interpreter that has imported the bot already.

The restart test starts the bot ~15 times per run, and a fresh interpreter spends ~1.5 s
of CPU importing python-telegram-bot, aiohttp and the bot before it does anything. A fork
of a server process that has done those imports starts at once and runs the very same
``bot.__main__.main()`` with its own environment, working directory, stderr and pid: a
SIGKILL kills that process alone, as it would a ``python -m bot``. One server serves both
runs of a restart test (each its own bots); the other tests that start the bot still use
``python -m bot`` (tests/e2e/test_bot_e2e.py runs the real entry point).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import traceback
from pathlib import Path

__all__ = ["BotForks", "alive"]


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

    def start(self, env: dict[str, str], cwd: Path, stderr: Path) -> int:
        """Fork a bot with this environment, cwd and stderr file; its pid."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        request = {"env": env, "cwd": str(cwd), "stderr": str(stderr)}
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


def alive(pid: int) -> bool:
    """Whether the process is there at all. The fork server's children are reaped by the
    kernel, and only once all their threads are gone (a killed bot's main thread can be a
    zombie while its SQLite thread still holds the files: the database lock)."""
    return os.path.exists(f"/proc/{pid}")


def _child(request: dict[str, str]) -> int:
    import bot.__main__ as entry

    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    err = os.open(request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.dup2(err, 2)
    return entry.main()


def _serve() -> None:
    # Everything ``python -m bot`` imports, before the first fork.
    import telegram.error  # noqa: F401

    import bot.__main__  # noqa: F401
    import bot.app  # noqa: F401
    import storage  # noqa: F401

    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # no zombies: the kernel reaps them
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
