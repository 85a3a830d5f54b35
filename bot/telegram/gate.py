"""The gate in front of the Bot API: a fixed number of requests in flight, answers first."""

from __future__ import annotations

import asyncio
from collections import deque

__all__ = ["Gate"]


class Gate:
    """At most ``slots`` holders at once; the others wait in order, urgent ones first.

    Urgent: answers to button presses, which Telegram drops when later than ~15 s, while
    edits may wait (they coalesce in the outbox).
    """

    __slots__ = ("_free", "_waiting")

    def __init__(self, slots: int) -> None:
        self._free = slots
        self._waiting: tuple[deque[asyncio.Future[None]], ...] = (deque(), deque())
        """Holders-to-be waiting: urgent ones, then the rest."""

    def take_now(self) -> bool:
        """Take a slot if one is free and nobody waits for it."""
        if self._free > 0 and not (self._waiting[0] or self._waiting[1]):
            self._free -= 1
            return True
        return False

    async def wait(self, urgent: bool) -> None:
        """Wait for a slot in turn."""
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting[0 if urgent else 1].append(turn)
        try:
            await turn
        except BaseException:
            if turn.done() and not turn.cancelled():
                self.release()  # given a slot, but cancelled: pass it on
            raise

    async def acquire(self, urgent: bool) -> None:
        """Take a slot, waiting in turn if none is free."""
        if not self.take_now():
            await self.wait(urgent)

    def release(self) -> None:
        """Give the slot to the next waiting (urgent first), or back."""
        for queue in self._waiting:
            while queue:
                turn = queue.popleft()
                if not turn.done():
                    turn.set_result(None)
                    return
        self._free += 1
