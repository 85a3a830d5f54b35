"""Fixtures of the Telegram adapter's tests."""

from __future__ import annotations

import time

import pytest

from bot.telegram import outbox, pacing, queue
from tests.fakes import FloodLimits


class StoppedClock:
    """The outbox's clock, stopped (``at``; ``None``: running): a wait for a pace never
    ends while it is, so what goes out is what the group's window lets through at once."""

    def __init__(self) -> None:
        self.at: float | None = None

    def monotonic(self) -> float:
        return time.monotonic() if self.at is None else self.at


@pytest.fixture
def stopped_clock(monkeypatch: pytest.MonkeyPatch) -> StoppedClock:
    """The outbox's clock, running until the test stops it."""
    clock = StoppedClock()
    for module in (pacing, outbox, queue):
        monkeypatch.setattr(module, "time", clock)
    return clock


def group_flood(window: float) -> FloodLimits:
    """The fake's limits: Telegram's 20 requests per ``window`` seconds in a group; the
    private chats and the bot as a whole not limited (the group's queue is what is
    tested)."""
    return FloodLimits(
        group_per_minute=20,
        group_window=window,
        private_per_second=1e4,
        private_burst=10**4,
        global_per_second=10**6,
    )
