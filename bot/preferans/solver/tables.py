"""Lookup tables over one suit's 8 ranks, built once at import.

Each is indexed by ``(alive << 8) | held``: ``alive`` the suit's cards still in a hand
(or on the table in the current trick), ``held`` one hand's cards of the suit, a subset
of ``alive`` (entries where it is not are never read: they hold ``()``, 0 or False).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

__all__ = ["REPS", "REPS_LOW", "COMPRESS", "BITS", "RUN", "DUCK", "NTH", "Reps"]

Reps = tuple[tuple[tuple[int, ...], ...], ...]
_T = TypeVar("_T")


_Subset = tuple[int, int, int, tuple[int, ...]]


def _live_subsets() -> list[_Subset]:
    """Every ``(alive, held)`` with ``held`` a subset of ``alive`` (3^8 of them), as
    ``(alive, held, compressed, live)``: ``compressed`` is ``held`` renumbered by rank
    among the live cards only, ``live`` the live ranks from the bottom.

    Built suit size by suit size from the subsets of the live ranks, so that the tables
    below follow from a few hundred distinct relative shapes (a process imports them
    once; the loop card by card over every entry cost ~0.15 s per process).
    """
    out = []
    for alive in range(256):
        live = tuple(r for r in range(8) if alive >> r & 1)
        held_of = [0]
        for r in live:
            bit = 1 << r
            held_of += [h | bit for h in held_of]
        for compressed, held in enumerate(held_of):
            out.append((alive, held, compressed, live))
    return out


_SUBSETS = _live_subsets()


def _representatives(subsets: list[_Subset]) -> tuple[Reps, Reps]:
    """For each suit, ``(alive << 8) | held`` → the cards worth trying, high to low
    (and the same low to high).

    Cards of one hand in one suit with no other live card of the suit between them
    are equal (they win and lose the same tricks), so only the top of each run is
    tried; "live" means still in a hand or on the table in the current trick. Among
    the live cards renumbered from the bottom, a held card is the top of its run when
    the next one up is not held.
    """
    empty: tuple[int, ...] = ()
    high = [[empty] * 65536 for _ in range(4)]
    low = [[empty] * 65536 for _ in range(4)]
    # One tuple per suit and set of ranks, shared by every entry with those cards.
    cards: dict[tuple[int, int], tuple[int, ...]] = {}
    for alive, held, compressed, live in subsets:
        run_tops = compressed & ~(compressed >> 1)
        tops = 0
        for i, rank in enumerate(live):
            if run_tops >> i & 1:
                tops |= 1 << rank
        index = (alive << 8) | held
        for suit in range(4):
            down = cards.get((suit, tops))
            if down is None:
                down = cards[(suit, tops)] = tuple(
                    suit * 8 + r for r in range(7, -1, -1) if tops >> r & 1
                )
                cards[(suit, tops | 256)] = down[::-1]
            high[suit][index] = down
            low[suit][index] = cards[(suit, tops | 256)]
    return tuple(tuple(t) for t in high), tuple(tuple(t) for t in low)


REPS, REPS_LOW = _representatives(_SUBSETS)
""":data:`REPS`: high to low; :data:`REPS_LOW`: the same cards low to high."""


def _compress(subsets: list[_Subset]) -> tuple[int, ...]:
    """``(alive << 8) | held`` → ``held`` renumbered by rank among the live cards only
    (bits 0-7) and how many cards are live (bits 8-11).

    Positions that differ only in cards already gone have equal relative ranks and
    the same value, so the transposition table keys them alike.
    """
    table = [0] * 65536
    for alive, held, compressed, live in subsets:
        table[(alive << 8) | held] = compressed | (len(live) << 8)
    return tuple(table)


COMPRESS = _compress(_SUBSETS)
BITS = tuple(x & 255 for x in COMPRESS)


def _by_shape(subsets: list[_Subset], value: Callable[[int, int], _T], empty: _T) -> tuple[_T, ...]:
    """A table whose entry depends only on the relative shape: ``value(live, compressed)``
    for ``live`` cards of which the ``compressed`` ones are held, worked out once a shape."""
    shapes: dict[int, _T] = {}
    table = [empty] * 65536
    for alive, held, compressed, live in subsets:
        shape = compressed | (len(live) << 8)
        entry = shapes.get(shape)
        if entry is None:
            entry = shapes[shape] = value(len(live), compressed)
        table[(alive << 8) | held] = entry
    return tuple(table)


def _top_run(live: int, held: int) -> int:
    """How many of the highest of ``live`` cards are held in a row."""
    count = 0
    for index in range(live - 1, -1, -1):
        if not held >> index & 1:
            break
        count += 1
    return count


RUN = _by_shape(_SUBSETS, _top_run, 0)
"""``(alive << 8) | held`` → how many of the highest live cards are held in a row."""


def _duckable(live: int, held: int) -> bool:
    """Can the holder lose every trick of this suit the others lead? True when his i-th
    lowest card is below their i-th lowest, for every i: he then answers each lead with
    his highest card below it and the condition holds on."""
    mine = [i for i in range(live) if held >> i & 1]
    theirs = [i for i in range(live) if not held >> i & 1]
    return all(a < u for a, u in zip(mine, theirs, strict=False))


DUCK = _by_shape(_SUBSETS, _duckable, False)
"""``(alive << 8) | held`` → :func:`_duckable` (ranks compare as their places among the
live cards do)."""
del _SUBSETS  # needed only to build the tables above (~0.5 MB kept in every process)
# (live cards of a suit << 3) | index among them from the bottom → rank.
NTH = tuple(
    live[i] if i < len(live) else 0
    for live in (tuple(r for r in range(8) if alive >> r & 1) for alive in range(256))
    for i in range(8)
)
