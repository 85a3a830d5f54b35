"""Start-up's storage calls, tried until the database lets them through.

At start-up nobody is waiting for an answer, so a call the database cannot serve now (its
write lock held by another connection for longer than the busy timeout, a full disk, a
server away) is tried again after a pause that doubles up to :data:`RETRY_CAP`, one
WARNING line each: it is never taken for a damaged table, which is the one thing that sets
a table aside. Damage is what reading a row's values raises (:data:`DATA_ERRORS`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

__all__ = ["Steady", "DATA_ERRORS", "RETRY_FIRST", "RETRY_CAP"]

log = logging.getLogger(__name__)

T = TypeVar("T")

DATA_ERRORS = (ValueError, TypeError, LookupError, ArithmeticError, RecursionError)
"""What a row holding wrong values raises when it is read or written: JSON that does not
parse, a number that is not one or does not fit, a record the engine refuses. Anything
else a storage call raises is the database's state of the moment."""
RETRY_FIRST = 1.0
"""Seconds before the first new try."""
RETRY_CAP = 30.0
"""The longest pause between two tries."""


class Steady:
    """Runs a storage call until it succeeds; a data error is raised at once."""

    def __init__(self) -> None:
        self.sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
        """How a pause is waited (tests count them instead)."""

    async def __call__(self, call: Callable[[], Awaitable[T]], what: str) -> T:
        pause = RETRY_FIRST
        while True:
            try:
                return await call()
            except DATA_ERRORS:
                raise
            except Exception as exc:
                log.warning(
                    "%s failed (%s: %s); trying again in %.0f s",
                    what,
                    type(exc).__name__,
                    str(exc)[:200],
                    pause,
                )
            await self.sleep(pause)
            pause = min(RETRY_CAP, pause * 2)
