"""Lookup tables over one suit's 8 ranks, built once at import.

Each is indexed by ``(alive << 8) | held``: ``alive`` the suit's cards still in a hand
(or on the table in the current trick), ``held`` one hand's cards of the suit, a subset
of ``alive`` (entries where it is not are never read: they hold ``()``, 0 or False).
"""

from __future__ import annotations

__all__ = ["REPS", "REPS_LOW", "COMPRESS", "BITS", "RUN", "DUCK", "NTH", "Reps"]

Reps = tuple[tuple[tuple[int, ...], ...], ...]


def _subsets() -> list[tuple[int, int]]:
    """Every ``(alive, held)`` with ``held`` a subset of ``alive`` (3^8 of them)."""
    out = []
    for alive in range(256):
        sub = alive
        while True:
            out.append((alive, sub))
            if sub == 0:
                break
            sub = (sub - 1) & alive
    return out


_SUBSETS = _subsets()


def _representatives() -> tuple[Reps, Reps]:
    """For each suit, ``(alive << 8) | held`` → the cards worth trying, high to low
    (and the same low to high).

    Cards of one hand in one suit with no other live card of the suit between them
    are equal (they win and lose the same tricks), so only the top of each run is
    tried; "live" means still in a hand or on the table in the current trick.
    """
    ranks: dict[int, tuple[int, ...]] = {}
    for alive, held in _SUBSETS:
        reps: list[int] = []
        above_held = False  # is the next live card above ours held by us?
        for rank in range(7, -1, -1):
            bit = 1 << rank
            if not alive & bit:
                continue
            if held & bit:
                if not above_held:
                    reps.append(rank)
                above_held = True
            else:
                above_held = False
        ranks[(alive << 8) | held] = tuple(reps)
    high: list[tuple[tuple[int, ...], ...]] = []
    low: list[tuple[tuple[int, ...], ...]] = []
    for suit in range(4):
        table: list[tuple[int, ...]] = [()] * 65536
        table_low: list[tuple[int, ...]] = [()] * 65536
        base = suit * 8
        for index, held_ranks in ranks.items():
            cards = tuple(base + r for r in held_ranks)
            table[index] = cards
            table_low[index] = cards[::-1]
        high.append(tuple(table))
        low.append(tuple(table_low))
    return tuple(high), tuple(low)


REPS, REPS_LOW = _representatives()
""":data:`REPS`: high to low; :data:`REPS_LOW`: the same cards low to high."""


def _compress() -> tuple[int, ...]:
    """``(alive << 8) | held`` → ``held`` renumbered by rank among the live cards only.

    Positions that differ only in cards already gone have equal relative ranks and
    the same value, so the transposition table keys them alike.
    """
    table = [0] * 65536
    for alive, sub in _SUBSETS:
        out = 0
        index = 0
        for rank in range(8):
            if alive >> rank & 1:
                if sub >> rank & 1:
                    out |= 1 << index
                index += 1
        table[(alive << 8) | sub] = out | (index << 8)
    return tuple(table)


COMPRESS = _compress()
BITS = tuple(x & 255 for x in COMPRESS)


def _top_runs() -> tuple[int, ...]:
    """``(alive << 8) | held`` → how many of the highest live cards are held in a row."""
    table = [0] * 65536
    for alive, held in _SUBSETS:
        count = 0
        for rank in range(7, -1, -1):
            if alive >> rank & 1:
                if not held >> rank & 1:
                    break
                count += 1
        table[(alive << 8) | held] = count
    return tuple(table)


RUN = _top_runs()


def _duckable() -> tuple[bool, ...]:
    """``(alive << 8) | held`` → can the holder lose every trick of this suit the others
    lead? True when his i-th lowest card is below their i-th lowest, for every i: he
    then answers each lead with his highest card below it and the condition holds on."""
    table = [False] * 65536
    for alive, held in _SUBSETS:
        mine = [r for r in range(8) if held >> r & 1]
        theirs = [r for r in range(8) if alive >> r & 1 and not held >> r & 1]
        table[(alive << 8) | held] = all(a < u for a, u in zip(mine, theirs, strict=False))
    return tuple(table)


DUCK = _duckable()
# (live cards of a suit << 3) | index among them from the bottom → rank.
NTH = tuple(
    next(
        (r for r in range(8) if (alive & ((2 << r) - 1)).bit_count() == i + 1 and alive >> r & 1), 0
    )
    for alive in range(256)
    for i in range(8)
)
