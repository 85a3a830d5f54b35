"""Dealing the unknown cards out consistently with what a seat knows.

A sample gives every hidden hand its exact number of cards, never a card of a suit the
hand has shown a void in, and keeps talon cards with the declarer (or in his discard).
Among such layouts it prefers those that fit what the bidding showed
(:attr:`.Knowledge.fit`): a layout that contradicts it is dealt again, a few times at
most, and the one contradicting least is kept (rejection sampling with a fallback).
"""

from __future__ import annotations

import random

from ..cards import Card, Seat, Suit
from .knowledge import SINK, Knowledge

__all__ = ["sample_layout"]

_TRIES = 40
_FIT_TRIES = 12
"""Layouts dealt at most to find one that fits the bidding."""
_NO_SUITS: frozenset[Suit] = frozenset()


def sample_layout(
    know: Knowledge, rng: random.Random
) -> tuple[dict[Seat, frozenset[Card]], tuple[Card, ...]]:
    """Every active hand (known ones as they are, hidden ones dealt at random) and the sink.

    Cards are placed most-constrained first, each to a holder chosen with weight equal
    to the room left in it. A dead end restarts; after many the voids are relaxed (a
    layout is always returned, the rules of play never break). A layout that does not
    fit the bidding is dealt again (:data:`_FIT_TRIES` at most; the best kept).
    """
    layout = _deal_once(know, rng)
    fit = know.fit
    if fit is None:
        return layout
    broken = fit(layout[0])
    tries = 1
    while broken and tries < _FIT_TRIES:
        other = _deal_once(know, rng)
        tries += 1
        other_broken = fit(other[0])
        if other_broken < broken:
            layout, broken = other, other_broken
    return layout


def _deal_once(
    know: Knowledge, rng: random.Random
) -> tuple[dict[Seat, frozenset[Card]], tuple[Card, ...]]:
    """One layout by the rules of play alone."""
    holders = [int(s) for s in know.hidden]
    if know.sink:
        holders.append(SINK)
    room0 = {int(s): n for s, n in know.hidden.items()}
    room0[SINK] = know.sink
    cards = sorted(know.unknown)
    # The holders a card of each suit may go to (not a seat void in it), in holder order.
    void_of = {int(s): v for s, v in know.voids.items()}
    by_suit: list[list[int]] = []
    for suit in Suit:
        by_suit.append([h for h in holders if h == SINK or suit not in void_of.get(h, _NO_SUITS)])
    allowed: dict[Card, list[int]] = {}
    only = know.only
    for card in cards:
        options = by_suit[int(card) >> 3]
        if card in only:
            narrowed = only[card]
            options = [h for h in options if h in narrowed]
        allowed[card] = options
    # Most-constrained first: the sort key looked up, not computed per card per try.
    width = {card: len(options) for card, options in allowed.items()}
    for attempt in range(_TRIES + 1):
        relax = attempt == _TRIES
        placed = _try_place(cards, allowed, width, holders, dict(room0), rng, relax)
        if placed is not None:
            break
    else:  # pragma: no cover - the relaxed pass cannot fail
        raise AssertionError("no layout")
    hands = dict(know.known)
    for seat in know.hidden:
        hands[seat] = frozenset(placed[int(seat)])
    sink = tuple(sorted(placed.get(SINK, [])))
    return {s: hands[s] for s in know.order}, sink


def _try_place(
    cards: list[Card],
    allowed: dict[Card, list[int]],
    width: dict[Card, int],
    holders: list[int],
    room: dict[int, int],
    rng: random.Random,
    relax: bool,
) -> dict[int, list[Card]] | None:
    placed: dict[int, list[Card]] = {h: [] for h in holders}
    order = list(cards)
    rng.shuffle(order)
    if not relax:
        order.sort(key=width.__getitem__)
    randrange = rng.randrange
    for card in order:
        options = holders if relax else allowed[card]
        if len(options) == 1:
            # One place it may go: the draw is still made (the same random stream).
            holder = options[0]
            total = room[holder]
            if total <= 0:
                return None
            randrange(total)
        else:
            weights = [room[h] for h in options]
            total = sum(weights)
            if total <= 0:
                return None
            pick = randrange(total)
            holder = options[-1]
            for option, weight in zip(options, weights, strict=True):
                if pick < weight:
                    holder = option
                    break
                pick -= weight
        placed[holder].append(card)
        room[holder] -= 1
    return placed
