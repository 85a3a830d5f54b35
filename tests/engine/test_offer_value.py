"""Whether an offer is guaranteed for a seat: the offer against the exact solver's value."""

from __future__ import annotations

import pytest

from bot.preferans.actions import Accept, Offer
from bot.preferans.cards import Seat
from bot.preferans.deal import Deal
from bot.preferans.offer_value import (
    counted_seat,
    gives_best,
    goal_for,
    offer_check,
    offer_position,
)
from bot.preferans.outcome import DealKind
from bot.preferans.solver import Position, solve
from tests.engine.test_offers import all_pass_deal, game_deal, misere_deal, play_to_trick

S0, S1, S2 = Seat(0), Seat(1), Seat(2)


def _value(deal: Deal, seat: Seat) -> int:
    assert deal.kind is not None
    counted = counted_seat(deal.kind, deal.declarer, seat)
    return solve(Position.from_deal(deal), goal_for(deal.kind), counted)


def test_the_rule_in_a_trick_game_misere_and_all_pass() -> None:
    offer = Offer(S1, (1, 3, 0))
    # trick game, declarer 1: he wants many, the defenders few of his tricks
    assert gives_best(offer, S1, DealKind.GAME, S1, 3)
    assert not gives_best(offer, S1, DealKind.GAME, S1, 4)
    assert gives_best(offer, S0, DealKind.GAME, S1, 3)
    assert not gives_best(offer, S0, DealKind.GAME, S1, 2)
    # misère: the other way round
    assert gives_best(offer, S1, DealKind.MISERE, S1, 3)
    assert not gives_best(offer, S1, DealKind.MISERE, S1, 2)
    assert not gives_best(offer, S2, DealKind.MISERE, S1, 4)
    # all-pass: each counts his own tricks, the fewer the better
    assert gives_best(offer, S0, DealKind.ALL_PASS, None, 1)
    assert not gives_best(offer, S0, DealKind.ALL_PASS, None, 0)
    assert gives_best(offer, S2, DealKind.ALL_PASS, None, 0)


def test_the_declarer_is_guaranteed_exactly_his_best_value_or_more() -> None:
    deal = game_deal(5)
    play_to_trick(deal, 5)
    assert deal.declarer is not None and deal.actor is not None
    value = _value(deal, deal.declarer)
    check = offer_check(deal, [deal.actor])
    assert check is not None
    sure = check.run().get(deal.actor, frozenset())
    for offer in deal.offer_actions():
        mine = offer.tricks[deal.declarer]
        is_declarer = deal.actor == deal.declarer
        assert (offer in sure) == (mine >= value if is_declarer else mine <= value)


@pytest.mark.parametrize("make", [game_deal, misere_deal, all_pass_deal])
def test_an_answerer_is_told_against_the_value_from_the_leaders_lead(make: object) -> None:
    deal = make(7)  # type: ignore[operator]
    play_to_trick(deal, 6)
    leader = deal.to_act
    assert leader is not None and deal.kind is not None
    before = Position.from_deal(deal)
    offer = deal.offer_actions()[0]
    deal.apply(offer)
    # the position keeps the leader on lead while the answer is due
    assert offer_position(deal) == before
    answerer = deal.actor
    assert answerer is not None
    counted = counted_seat(deal.kind, deal.declarer, answerer)
    value = solve(before, goal_for(deal.kind), counted)
    check = offer_check(deal, [answerer, leader])
    assert check is not None and [s for s, _ in check.wanted] == [answerer]
    sure = check.run().get(answerer, frozenset())
    assert (offer in sure) == gives_best(offer, answerer, deal.kind, deal.declarer, value)


def test_nothing_is_claimed_past_the_budget_or_out_of_turn() -> None:
    deal = game_deal(5)
    play_to_trick(deal, 1)
    actor = deal.actor
    assert actor is not None
    others = [s for s in deal.active if s != actor]
    assert offer_check(deal, others) is None
    check = offer_check(deal, [actor])
    assert check is not None
    assert check.run(budget=1) == {}


def test_a_refused_offer_leaves_nothing_to_answer() -> None:
    deal = game_deal(5)
    play_to_trick(deal, 8)
    offer = deal.offer_actions()[0]
    deal.apply(offer)
    answerer = deal.actor
    assert answerer is not None
    deal.apply(Accept(answerer, False))
    check = offer_check(deal, [answerer])
    assert check is None
