"""Seats at the table."""

from __future__ import annotations

from enum import IntEnum

__all__ = ["Seat"]


class Seat(IntEnum):
    """A seat at the table, clockwise from 0."""

    S0 = 0
    S1 = 1
    S2 = 2
    S3 = 3

    def next(self, players: int) -> Seat:
        """The seat to the left (clockwise) at a table of ``players``."""
        return Seat((int(self) + 1) % players)
