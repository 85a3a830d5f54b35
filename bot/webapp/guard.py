"""Per-user limits on what the page asks of the bot: frames after ``hello`` (presses,
replays) and sockets opened, so that one user's flood costs neither the bot's CPU nor the
other players' time (docs/webapp.md)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Rate", "Guard", "PRESSES", "OPENINGS"]


@dataclass(frozen=True)
class Rate:
    """``burst`` at once, then ``per_second`` on average."""

    burst: int
    per_second: float


PRESSES = Rate(burst=12, per_second=4.0)
"""Frames one user may send after ``hello``, over all his sockets. The page sends a tap only
once the answer to the last one came (a discard is two marks and a confirmation in a row),
so a player never comes near it."""
OPENINGS = Rate(burst=10, per_second=1 / 6)
"""Sockets one user may open: ten at once, then ten a minute (a page opens one, and one
after each lost connection, at growing intervals)."""
KEPT = 4096
"""Users remembered before those with a full allowance are forgotten."""


class Guard:
    """A token bucket per user: :meth:`take` spends one, if there is one."""

    def __init__(self, rate: Rate, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.clock = clock
        self._buckets: dict[int, tuple[float, float]] = {}
        """Per user, his tokens when last counted, and when."""

    def take(self, user_id: int) -> bool:
        now = self.clock()
        tokens = self._tokens(user_id, now)
        allowed = tokens >= 1.0
        self._buckets[user_id] = (tokens - 1.0 if allowed else tokens, now)
        if len(self._buckets) > KEPT:
            self._forget(now)
        return allowed

    def _tokens(self, user_id: int, now: float) -> float:
        tokens, then = self._buckets.get(user_id, (float(self.rate.burst), now))
        return min(float(self.rate.burst), tokens + (now - then) * self.rate.per_second)

    def _forget(self, now: float) -> None:
        """Users whose allowance has come back in full are as good as unknown."""
        full = [u for u in self._buckets if self._tokens(u, now) >= self.rate.burst]
        for user_id in full:
            del self._buckets[user_id]
