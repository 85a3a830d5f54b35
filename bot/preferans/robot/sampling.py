"""Dealing the unknown cards out consistently with what a seat knows.

A sample gives every hidden hand its exact number of cards, never a card of a suit the
hand has shown a void in, and keeps talon cards with the declarer (or in his discard).
Among such layouts it prefers those that fit what the bidding showed
(:attr:`.Knowledge.fit`): a layout that contradicts it is dealt again, a few times at
most; the one contradicting least is then mended by swapping cards between the hidden
hands, and kept even if some sign still does not fit (rejection sampling with a fallback).
"""

from __future__ import annotations

import random

from ..cards import Card, Suit
from ..seats import Seat
from .inference import Fit
from .knowledge import SINK, Knowledge

__all__ = ["sample_layout"]

_TRIES = 40
_FIT_TRIES = 8
"""Layouts dealt at most to find one that fits the bidding."""
_MEND_STEPS = 200
"""Card swaps tried at most to mend a layout that still does not fit it."""
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
    if broken:
        layout = _mend(know, fit, layout, broken, rng)
    return layout


def _mend(
    know: Knowledge,
    fit: Fit,
    layout: tuple[dict[Seat, frozenset[Card]], tuple[Card, ...]],
    broken: float,
    rng: random.Random,
) -> tuple[dict[Seat, frozenset[Card]], tuple[Card, ...]]:
    """Swap cards between the hidden holders while that breaks no more signs, until the
    layout fits them all or :data:`_MEND_STEPS` swaps were tried (a sign few random
    layouts fit, such as a declarer's long trumps, is reached in a few swaps)."""
    held: dict[int, list[Card]] = {int(s): sorted(layout[0][s]) for s in know.hidden}
    if know.sink:
        held[SINK] = list(layout[1])
    holders = [h for h, cards in held.items() if cards]
    if len(holders) < 2:
        return layout
    void_of = {int(s): v for s, v in know.voids.items()}

    def may_hold(holder: int, card: Card) -> bool:
        if holder != SINK and card.suit in void_of.get(holder, _NO_SUITS):
            return False
        only = know.only.get(card)
        return only is None or holder in only

    hands = dict(layout[0])
    for _ in range(_MEND_STEPS):
        a, b = rng.sample(holders, 2)
        i, j = rng.randrange(len(held[a])), rng.randrange(len(held[b]))
        x, y = held[a][i], held[b][j]
        if not (may_hold(b, x) and may_hold(a, y)):
            continue
        held[a][i], held[b][j] = y, x
        trial = dict(hands)
        for h in (a, b):
            if h != SINK:
                trial[Seat(h)] = frozenset(held[h])
        now = fit(trial)
        if now <= broken:
            hands, broken = trial, now
            if not broken:
                break
        else:
            held[a][i], held[b][j] = x, y
    return hands, tuple(sorted(held.get(SINK, [])))


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
