"""The worker process that analyses ended deals (issue 15), apart from the bot's event loop.

A deal's analysis is seconds of pure-Python CPU at worst: in a thread it would hold the
GIL against the event loop, so it runs in one child process at a lower priority, and the
bot only waits for its answer. Started on first use with ``spawn`` (a fork would copy the
bot's threads and locks). It ends itself when the bot's process is gone, however it went.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor

from bot.preferans.analysis import Analysis, analyse
from bot.preferans.deal import Deal

__all__ = ["Analyst", "worker", "NICE"]

log = logging.getLogger(__name__)

NICE = 10
"""How much lower the worker's priority is: play first, analysis with what is left."""


PARENT_CHECK = 1.0
"""Seconds between the worker's looks at whether the bot's process is still there."""


def _follow(parent: int) -> None:
    """End this process once ``parent`` (the bot) is gone: its queue holds both ends of its
    pipe, so it would never see the bot die and would wait forever (seen: ~40 MB left
    behind by every killed bot)."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK)
    os._exit(0)


def _start(parent: int) -> None:
    """The worker's start: a lower priority, and its end tied to the bot's."""
    try:
        os.nice(NICE)
    except OSError:  # not allowed here: it still runs apart from the event loop
        pass
    threading.Thread(target=_follow, args=(parent,), name="follow-bot", daemon=True).start()


def worker() -> Executor:
    """One worker process for the analyses, one deal at a time."""
    return ProcessPoolExecutor(
        1,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_start,
        initargs=(os.getpid(),),
    )


class Analyst:
    """Runs the ended deals' analyses in the worker process and hands each result on."""

    def __init__(self) -> None:
        self.analyse: Callable[[Deal], Analysis | None] = analyse
        """The analysis run in the worker process (tests analyse only the last tricks)."""
        self.tasks: set[asyncio.Task[None]] = set()
        """Analyses under way (kept referenced until done)."""
        self.executor: Executor | None = None
        """Where the analyses run: a worker process, made on first use."""

    def start(self, deal: Deal, what: str, done: Callable[[Analysis], None]) -> None:
        """Analyse ``deal`` (``what`` names it in the log), then call ``done`` with the
        result; a failure leaves one log line and no call."""
        if self.executor is None:
            self.executor = worker()
        executor = self.executor

        async def run() -> None:
            try:
                loop = asyncio.get_running_loop()
                found = await loop.run_in_executor(executor, self.analyse, deal)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - a review without its line, never a crash
                log.exception("%s not analysed", what)
                return
            if found is not None:
                done(found)

        task = asyncio.get_running_loop().create_task(run())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def close(self) -> None:
        """Stop the analyses (the bot stops): their reviews stay without the line."""
        for task in list(self.tasks):
            task.cancel()
        if self.executor is not None:
            self.executor.shutdown(wait=False, cancel_futures=True)
            self.executor = None
