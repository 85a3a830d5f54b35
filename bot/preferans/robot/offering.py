"""Offers for a computer player: answering one, and making one when the end is certain.

Both read the seat's view only. The hidden cards are dealt out by :mod:`.sampling` and
each layout is solved exactly; an offer is accepted when it gives the seat's side at
least what it expects on average (the rule is :func:`~bot.preferans.offer_value.gives_best`),
and made only when every layout gives the same result and the offer claims exactly it,
so nothing is conceded and nobody is asked to accept less than best play gives him.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator

from ..actions import Accept, Offer
from ..offer_value import counted_seat, gives_best, goal_for
from ..outcome import DealKind
from ..seats import Seat
from ..solver import BudgetExceeded, Position, Solver
from ..views import SeatView
from .card_play import Budget, layout_position
from .knowledge import knowledge_of
from .sampling import sample_layout

__all__ = ["answer_offer", "make_offer", "OFFER_FROM_TRICKS", "OFFER_SAMPLES"]

OFFER_FROM_TRICKS = 7
"""A computer player thinks of offering from this many tricks left (late positions solve
in milliseconds, and cold endings come late)."""
OFFER_SAMPLES = 8
"""At most this many sampled layouts per offer decision."""


def _leader(view: SeatView, offer: Offer | None) -> Seat:
    """Who leads the trick the offer is made at (the offerer, or in open defence the
    passer whose cards the whister moves)."""
    pub = view.public
    if offer is None:
        assert pub.to_act is not None
        return pub.to_act
    if pub.open_passer is not None and offer.seat != pub.declarer:
        last = pub.last_trick
        return last.winner if last is not None and last.winner is not None else pub.first_hand
    return offer.seat


def _values(
    view: SeatView, rng: random.Random, budget: Budget, counted: Seat, offer: Offer | None
) -> Iterator[int]:
    """The counted seat's tricks from here with best play, layout by layout (an unsolved
    layout is left out)."""
    pub = view.public
    assert pub.kind is not None
    know = knowledge_of(view)
    exact = not know.hidden and know.sink == 0
    solver = Solver(goal_for(pub.kind), counted)
    leader = _leader(view, offer)
    for _ in range(1 if exact else min(budget.samples, OFFER_SAMPLES)):
        hands, sink = sample_layout(know, rng)
        pos: Position = layout_position(view, know, hands, sink)
        if pos.leader != leader and not pos.trick:
            pos = dataclasses.replace(pos, leader=leader)
        room = budget.total - solver.nodes
        if room <= 0:
            return  # the decision's positions are spent, as in card play
        try:
            yield solver.solve(pos, budget=min(budget.nodes, room))
        except BudgetExceeded:
            continue


def answer_offer(view: SeatView, rng: random.Random, budget: Budget) -> Accept:
    """Accept the open offer when it gives this seat's side at least what best play is
    expected to give it; refuse when in doubt (a refusal concedes nothing)."""
    pub = view.public
    offer = pub.offer
    if offer is None or pub.kind is None:
        raise ValueError("there is no offer to answer")
    counted = counted_seat(pub.kind, pub.declarer, view.seat)
    values = list(_values(view, rng, budget, counted, offer))
    if not values:
        return Accept(view.seat, False)
    expected = sum(values) / len(values)
    return Accept(view.seat, gives_best(offer, view.seat, pub.kind, pub.declarer, expected))


def make_offer(view: SeatView, rng: random.Random, budget: Budget) -> Offer | None:
    """The offer to make now, if any: the one of ``view.offers`` that claims exactly what
    every sampled layout gives this seat's side with best play."""
    pub = view.public
    offers = view.offers
    if not offers or pub.kind is None:
        return None
    left = sum(offers[0].tricks)
    if not 2 <= left <= OFFER_FROM_TRICKS:
        return None
    me = offers[0].seat
    counted = counted_seat(pub.kind, pub.declarer, me)
    fair = [o for o in offers if _fair(o, me, pub.kind, left)]
    value: int | None = None
    for v in _values(view, rng, budget, counted, None):
        if value is not None and v != value:
            return None  # the end is not certain
        value = v
        if not any(o.tricks[counted] == v for o in fair):
            return None
    if value is None:
        return None
    return next((o for o in fair if o.tricks[counted] == value), None)


def _fair(offer: Offer, me: Seat, kind: DealKind, left: int) -> bool:
    """On all-pass an offer can only be "the rest are mine": giving the others tricks
    would ask them to take what they are trying not to."""
    return kind is not DealKind.ALL_PASS or offer.tricks[me] == left
