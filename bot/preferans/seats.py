"""Seats at the table, who sits out a deal and when a seat may be taken over."""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum

__all__ = ["Seat", "REPLACE_AFTER", "sits_out", "replaceable"]


class Seat(IntEnum):
    """A seat at the table, clockwise from 0."""

    S0 = 0
    S1 = 1
    S2 = 2
    S3 = 3

    def next(self, players: int) -> Seat:
        """The seat to the left (clockwise) at a table of ``players``."""
        return Seat((int(self) + 1) % players)


REPLACE_AFTER = 2
"""Consecutive timeouts after which another player may take the seat (Кодекс 3.1.2)."""


def sits_out(players: int, dealer: Seat, seat: Seat) -> bool:
    """With four players the dealer takes no part in the deal (Кодекс 3.2.10)."""
    return players == 4 and seat == dealer


def replaceable(timeouts: Mapping[Seat, int]) -> list[Seat]:
    """Seats whose player kept timing out: another player may take them (Кодекс 3.1.2)."""
    return sorted(s for s, n in timeouts.items() if n >= REPLACE_AFTER)
