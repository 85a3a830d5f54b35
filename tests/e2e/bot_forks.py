"""``python -m bot`` started by forking a process that has imported the bot already.

The restart test starts the bot ~15 times per run, and a fresh interpreter spends ~1.5 s
of CPU importing python-telegram-bot, aiohttp and the bot before it does anything. A fork
of a server process that has done those imports starts at once and runs the very same
``bot.__main__.main()`` with its own environment, working directory, stdin, stdout, stderr
and pid: a SIGKILL kills that process alone, as it would a ``python -m bot``. One server
per test process (:func:`shared`) serves the tests that run the bot as a process only to
watch it from outside (restarts, webhook mode, waiting for Telegram);
tests/e2e/test_bot_e2e.py runs the real ``python -m bot``.

The server is itself a fork of the test process, which has imported all of that while
collecting the tests (a server started as a new interpreter cost those ~1.5 s once in
every test process that used it). Right after that fork it takes back what pytest changed
in the process (:func:`_detach`): the files pytest and other tests hold open, the standard
streams, logging handlers, warning and exception hooks, signal handlers, tracing and the
asyncio policy, so that each bot it forks starts as a fresh ``python -m bot`` would, with
only the imports done.
"""

from __future__ import annotations

import asyncio
import atexit
import faulthandler
import gc
import importlib
import io
import json
import logging
import os
import signal
import sys
import threading
import time
import traceback
import warnings
from fractions import Fraction
from pathlib import Path
from typing import IO, Any

__all__ = ["BotForks", "alive", "gone", "shared"]


class BotForks:
    """A server process that forks a ready ``python -m bot`` on request (from any thread)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        requests_in, requests_out = os.pipe()
        answers_in, answers_out = os.pipe()
        sys.stdout.flush()  # nothing buffered here is written twice
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            try:
                _detach(keep=(requests_in, answers_out))
                _serve(os.fdopen(requests_in, "r"), os.fdopen(answers_out, "w"))
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(0)
        os.close(requests_in)
        os.close(answers_out)
        self.pid = pid
        self._requests: IO[str] = os.fdopen(requests_out, "w")
        self._answers: IO[str] = os.fdopen(answers_in, "r")
        self._status: int | None = None
        line = self._answers.readline()
        assert line.strip() == "ready", f"the fork server did not start: {line!r}"

    def start(
        self, env: dict[str, str], cwd: Path, stderr: Path, stdout: Path | None = None
    ) -> int:
        """Fork a bot with this environment, cwd, stderr file (appended to) and stdout file
        (default: the null device); its pid."""
        request = {
            "env": env,
            "cwd": str(cwd),
            "stderr": str(stderr),
            "stdout": str(stdout) if stdout is not None else os.devnull,
        }
        with self._lock:  # one request and its answer at a time
            self._requests.write(json.dumps(request) + "\n")
            self._requests.flush()
            return int(self._answers.readline())

    def running(self) -> bool:
        if self._status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self._status = status
        return self._status is None

    def close(self) -> None:
        """End the server (it ends at the end of its requests) and wait for it, so that its
        CPU time and its bots' count as this process's children's."""
        self._requests.close()
        deadline = time.monotonic() + 10
        while self.running() and time.monotonic() < deadline:
            time.sleep(0.01)
        if self.running():
            os.kill(self.pid, signal.SIGKILL)
            _, self._status = os.waitpid(self.pid, 0)
        self._answers.close()


_shared: BotForks | None = None


def shared() -> BotForks:
    """This test process's fork server: started at the first use, closed at exit."""
    global _shared
    if _shared is None or not _shared.running():
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


def _detach(keep: tuple[int, ...]) -> None:
    """In the server, right after the fork: give up what the test process had set up, as
    if ``python -m bot`` had only done its imports. Only the forking thread goes on here."""
    # Every file the test process held open (pytest's captures, xdist's channel, sockets
    # of servers, database files and their locks) is let go. Each descriptor is pointed
    # at the null device rather than closed, so that its number is never reused while an
    # object inherited from the test process still thinks it owns it.
    null = os.open(os.devnull, os.O_RDWR)
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd not in keep and fd != null:
            try:
                os.dup2(null, fd)
            except OSError:  # the listing's own descriptor, closed by now
                pass
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False))
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), line_buffering=True)
    sys.stderr = io.TextIOWrapper(
        io.FileIO(2, "w", closefd=False), errors="backslashreplace", line_buffering=True
    )
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr
    # pytest's log capture (the bot's logging.basicConfig does nothing while the root
    # logger has handlers), its warning capture and its hooks for uncaught exceptions
    logging.root.handlers.clear()
    logging.root.setLevel(logging.WARNING)
    logging.disable(logging.NOTSET)
    importlib.reload(warnings)  # Python's own ways of showing a warning, then its filters
    warnings.filters[:] = [  # a fresh interpreter's, then those of -W and PYTHONWARNINGS
        ("default", None, DeprecationWarning, "__main__", 0),
        *(
            ("ignore", None, category, None, 0)
            for category in (
                DeprecationWarning,
                PendingDeprecationWarning,
                ImportWarning,
                ResourceWarning,
            )
        ),
    ]
    warnings._filters_mutated()  # type: ignore[attr-defined]
    warnings._processoptions(sys.warnoptions)  # -W and PYTHONWARNINGS
    sys.excepthook = sys.__excepthook__
    sys.unraisablehook = sys.__unraisablehook__
    threading.excepthook = threading.__excepthook__
    sys.settrace(None)
    sys.setprofile(None)
    threading.settrace(None)  # type: ignore[arg-type]
    threading.setprofile(None)  # type: ignore[arg-type]
    if faulthandler.is_enabled():
        faulthandler.disable()
    signal.set_wakeup_fd(-1)
    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2):
        signal.signal(signum, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # as Python sets it at start-up
    asyncio.set_event_loop_policy(None)  # no loop of a test is current
    sys.argv = [str(Path(__file__).parents[2] / "bot" / "__main__.py")]


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
    for fd in (err, out, null):
        os.close(fd)
    return entry.main()


def _reap(signum: int, frame: object) -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _serve(requests: IO[str], answers: IO[str]) -> None:
    # Everything ``python -m bot`` imports, before the first fork (the test process has
    # imported them all while collecting the tests).
    import telegram.error  # noqa: F401

    import bot.__main__  # noqa: F401
    import bot.app  # noqa: F401
    import storage  # noqa: F401
    from bot.render.i18n import LANGS, catalogue, number

    # ``python -m bot``'s main module (what a spawned worker process imports again)
    sys.modules["__main__"] = sys.modules["bot.__main__"]

    # What every bot reads at its first text (the command menu is set in both languages at
    # every start), read once here rather than in each child: the catalogues and Babel's
    # locale data, ~0.04 s of CPU a start.
    for lang in LANGS:
        catalogue(lang)
        number(lang, Fraction(1, 3))
    # The children's garbage collections leave the server's objects alone: otherwise the
    # first full collection in each child walks (and so copies, page by page) the whole
    # inherited heap. Python's advice for a fork without exec (gc.freeze's documentation).
    gc.freeze()
    # No zombies: reap each bot as it ends. Not SIG_IGN, with which the kernel reaps them
    # but their CPU time is then counted nowhere (waited for, it adds to this server's,
    # and this server's to the test process's when it ends).
    signal.signal(signal.SIGCHLD, _reap)
    print("ready", file=answers, flush=True)
    for line in requests:
        request: dict[str, Any] = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                requests.close()
                answers.close()
                code = _child(request)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            except BaseException:
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        print(pid, file=answers, flush=True)
