"""Every layout of the unknown cards consistent with what a seat knows.

The exhaustive counterpart of :mod:`.sampling`, for claims that must hold whatever the
hidden cards are: each hidden hand gets its exact number of cards, never one of a suit it
has shown a void in, talon cards stay with the declarer or in his discard, and the cards
left over make the sink.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from math import comb

from ..cards import Card
from ..seats import Seat
from .knowledge import SINK, Knowledge

__all__ = ["Layout", "every_layout", "layout_count"]

Layout = tuple[dict[Seat, frozenset[Card]], tuple[Card, ...]]
"""Every active hand (first hand first) and the sink, as :func:`.sampling.sample_layout`."""


def _allowed(know: Knowledge, seat: Seat) -> frozenset[Card]:
    """The unknown cards ``seat`` may hold."""
    void = know.voids.get(seat, frozenset())
    only = know.only
    return frozenset(
        c for c in know.unknown if c.suit not in void and (c not in only or int(seat) in only[c])
    )


def layout_count(know: Knowledge) -> int:
    """How many layouts :func:`every_layout` yields, counted without dealing them: the
    unknown cards grouped by the holders each may go to, the ways to split every group."""
    hidden = list(know.hidden)
    allowed = [_allowed(know, s) for s in hidden]
    groups: dict[frozenset[int], int] = {}
    for card in know.unknown:
        where = {i for i, cards in enumerate(allowed) if card in cards}
        only = know.only.get(card)
        if only is None or SINK in only:
            where.add(SINK)
        holders = frozenset(where)
        groups[holders] = groups.get(holders, 0) + 1
    # ways[(n0, n1, ...)]: the ways to put the groups seen so far, n_i cards to hidden[i].
    want = tuple(know.hidden[s] for s in hidden)
    ways: dict[tuple[int, ...], int] = {tuple(0 for _ in hidden): 1}
    for holders, size in groups.items():
        step: dict[tuple[int, ...], int] = {}
        for counts, n in ways.items():
            for split in _splits(size, [i in holders for i in range(len(hidden))]):
                to_sink = size - sum(split)
                if to_sink and SINK not in holders:
                    continue
                after = tuple(a + b for a, b in zip(counts, split, strict=True))
                if any(a > w for a, w in zip(after, want, strict=True)):
                    continue
                ways_here = _multinomial(size, [*split, to_sink])
                step[after] = step.get(after, 0) + n * ways_here
        ways = step
    return ways.get(want, 0)


def _splits(size: int, open_to: list[bool]) -> Iterator[list[int]]:
    """Every way to give ``size`` cards or fewer to the holders open to them."""
    if not open_to:
        yield []
        return
    for n in range(size + 1 if open_to[0] else 1):
        for rest in _splits(size - n, open_to[1:]):
            yield [n, *rest]


def _multinomial(size: int, parts: list[int]) -> int:
    total, left = 1, size
    for part in parts:
        total *= comb(left, part)
        left -= part
    return total


def every_layout(know: Knowledge) -> Iterator[Layout]:
    """Each layout once, the hidden hands dealt in the order of :attr:`Knowledge.hidden`."""
    seats = [(s, n, _allowed(know, s)) for s, n in know.hidden.items()]
    # A card narrowed down to hands only cannot be left over for the sink.
    in_hand = frozenset(c for c, holders in know.only.items() if SINK not in holders)
    for dealt in _deal(know.unknown, seats):
        rest = know.unknown.difference(*dealt.values())
        if rest & in_hand:
            continue
        hands = dict(know.known)
        hands.update(dealt)
        yield {s: hands[s] for s in know.order}, tuple(sorted(rest))


def _deal(
    rest: frozenset[Card], seats: list[tuple[Seat, int, frozenset[Card]]]
) -> Iterator[dict[Seat, frozenset[Card]]]:
    if not seats:
        yield {}
        return
    (seat, n, allowed), later = seats[0], seats[1:]
    for hand in combinations(sorted(rest & allowed), n):
        taken = frozenset(hand)
        for others in _deal(rest - taken, later):
            others[seat] = taken
            yield others
