"""The worker process that analyses ended deals (issue 15), apart from the bot's event loop.

A deal's analysis is seconds of pure-Python CPU at worst: in a thread it would hold the
GIL against the event loop, so it runs in one child process at a lower priority, and the
bot only waits for its answer. Started on first use with ``spawn`` (a fork would copy the
bot's threads and locks).
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import Executor, ProcessPoolExecutor

__all__ = ["worker", "NICE"]

NICE = 10
"""How much lower the worker's priority is: play first, analysis with what is left."""


def _lower_priority() -> None:
    try:
        os.nice(NICE)
    except OSError:  # not allowed here: it still runs apart from the event loop
        pass


def worker() -> Executor:
    """One worker process for the analyses, one deal at a time."""
    return ProcessPoolExecutor(
        1, mp_context=multiprocessing.get_context("spawn"), initializer=_lower_priority
    )
