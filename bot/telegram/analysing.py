"""The worker process that analyses ended deals (a player's «🔍» press), apart from the
bot's event loop.

A deal's analysis is seconds of pure-Python CPU at worst: in a thread it would hold the
GIL against the event loop, so it runs in one child process at a lower priority, and the
bot only waits for its answer. Started on first use with ``spawn`` (a fork would copy the
bot's threads and locks). It ends itself when the bot's process is gone, however it went.

A worker that died (the OOM killer) or gave no answer in :data:`LIMIT` seconds (hung, or
stopped) is killed and left behind: that deal's review stays without its line (one
WARNING; the button may be pressed again), and the next analysis starts a new worker. A
``ProcessPoolExecutor`` keeps a broken pool broken for good, and one with a hung call
holds the interpreter's exit (it joins its threads), so :meth:`Analyst.close` kills the
worker rather than wait for it.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import wait

from bot.preferans.analysis import Analysis, analyse
from bot.preferans.deal import Deal

__all__ = ["Analyst", "worker", "NICE", "LIMIT"]

log = logging.getLogger(__name__)

NICE = 10
"""How much lower the worker's priority is: play first, analysis with what is left."""


LIMIT = 60.0
"""Seconds a deal's analysis may take in the worker: the longest measured takes ~3 s of
CPU (tests/perf/README.md), at a lower priority on a busy machine several times that."""

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


def worker() -> ProcessPoolExecutor:
    """One worker process for the analyses, one deal at a time."""
    return ProcessPoolExecutor(
        1,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_start,
        initargs=(os.getpid(),),
    )


def _alive(executor: ProcessPoolExecutor) -> bool:
    """Whether the worker still runs (none is started before the first analysis). Its
    sentinel tells without reaping it (the pool's own thread may be reaping it); a pool
    that saw it die marks itself broken before it forgets the process, so the processes
    are taken first."""
    processes = list((executor._processes or {}).values())
    if executor._broken:
        return False
    return not wait([process.sentinel for process in processes], timeout=0)


class Analyst:
    """Runs the ended deals' analyses in the worker process and hands each result on."""

    def __init__(self, limit: float = LIMIT) -> None:
        self.analyse: Callable[[Deal], Analysis | None] = analyse
        """The analysis run in the worker process (tests analyse only the last tricks)."""
        self.limit = limit
        """Seconds one analysis may take before its worker is killed and replaced."""
        self.tasks: set[asyncio.Task[None]] = set()
        """Analyses under way or waiting their turn (kept referenced until done)."""
        self.executor: ProcessPoolExecutor | None = None
        """Where the analyses run: a worker process, made on first use and after a loss."""
        self._turn: asyncio.Lock | None = None
        """One analysis at a time, so that its time limit counts its own work only."""

    def start(
        self,
        deal: Deal,
        what: str,
        done: Callable[[Analysis], None],
        failed: Callable[[], None] = lambda: None,
    ) -> None:
        """Analyse ``deal`` (``what`` names it in the log), then call ``done`` with the
        result; a failure leaves one log line and calls ``failed``."""
        if self._turn is None:
            self._turn = asyncio.Lock()
        turn = self._turn

        async def run() -> None:
            async with turn:
                found = await self._run(deal, what)
            if found is not None:
                done(found)
            else:
                failed()

        task = asyncio.get_running_loop().create_task(run())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _run(self, deal: Deal, what: str) -> Analysis | None:
        """One analysis in the worker; a lost worker is killed and forgotten."""
        if self.executor is not None and not _alive(self.executor):
            log.warning("the analysis worker died; a new one is started")
            self._kill()
        if self.executor is None:
            self.executor = worker()
        loop = asyncio.get_running_loop()
        try:
            return await asyncio.wait_for(
                loop.run_in_executor(self.executor, self.analyse, deal), self.limit
            )
        except TimeoutError:
            log.warning(
                "%s not analysed: no answer in %.0f s; the analysis worker is replaced",
                what,
                self.limit,
            )
        except BrokenProcessPool:
            log.warning("%s not analysed: the analysis worker died; a new one is started", what)
        except Exception:  # noqa: BLE001 - a review without its line, never a crash
            log.exception("%s not analysed", what)
            return None
        self._kill()
        return None

    def _kill(self) -> None:
        """End the worker at once, whatever it is doing (a hung one would hold the exit)."""
        executor, self.executor = self.executor, None
        if executor is None:
            return
        for process in list((executor._processes or {}).values()):
            process.kill()
        executor.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the analyses (the bot stops): their reviews stay without the line."""
        for task in list(self.tasks):
            task.cancel()
        self._kill()
