"""A computer player and offers: it answers from what its seat sees and offers only a
certain end. On all-pass after the talon tricks an answerer sees every hand (its own, the
offerer's shown one, the third is the rest), so the solver's exact value is the judge."""

from __future__ import annotations

import random

import pytest

from bot.preferans.actions import Accept, Offer
from bot.preferans.deal import Deal
from bot.preferans.offer_value import goal_for, offer_position
from bot.preferans.robot import FAST, answer_offer, make_offer
from bot.preferans.seats import Seat
from bot.preferans.solver import solve
from bot.preferans.views import seat_view
from tests.engine.test_offers import all_pass_deal, game_deal, play_to_trick
from tests.engine_helpers import bid, make_deal


def cold_all_pass() -> Deal:
    """All-pass where seat 1 holds every spade and A♣ K♣: from trick 3 (his lead, Кодекс
    3.7.6.1) he takes every trick whatever anybody plays."""
    deal = make_deal(
        {
            0: "JC QC KD AD 7H 8H 9H 10H JH QH",
            1: "7S 8S 9S 10S JS QS KS AS AC KC",
            2: "7C 8C 9C 10C 7D 8D 9D 10D JD QD",
        },
        "KH AH",
    )
    for _ in range(3):
        assert deal.to_act is not None
        bid(deal, int(deal.to_act), "pass")
    return deal


def _all_to(deal: Deal, seat: Seat) -> Offer:
    return next(o for o in deal.offer_actions() if o.tricks[seat] == sum(o.tricks))


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_all_pass_answers_follow_the_exact_value(seed: int) -> None:
    deal = all_pass_deal(seed)
    play_to_trick(deal, 5)
    leader = deal.actor
    assert leader is not None and deal.kind is not None
    answerer = leader.next(3)
    value = solve(offer_position(deal), goal_for(deal.kind), answerer)
    # the leader offers the answerer every trick left: fair only if he cannot avoid them
    deal.apply(_all_to(deal, answerer))
    view = seat_view(deal, answerer)
    answer = answer_offer(view, random.Random(seed), FAST)
    assert answer == Accept(answerer, value >= 6)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_an_offer_giving_the_robot_side_everything_is_accepted(seed: int) -> None:
    deal = game_deal(seed)
    play_to_trick(deal, 7)
    leader = deal.actor
    assert leader is not None
    answerer = leader.next(3)
    deal.apply(_all_to(deal, answerer))
    answer = answer_offer(seat_view(deal, answerer), random.Random(seed), FAST)
    assert answer == Accept(answerer, True)


@pytest.mark.parametrize("seed", range(1, 7))
def test_an_all_pass_leader_offers_only_a_certain_all_mine(seed: int) -> None:
    deal = all_pass_deal(seed)
    play_to_trick(deal, 6)
    leader = deal.actor
    assert leader is not None and deal.kind is not None
    value = solve(offer_position(deal), goal_for(deal.kind), leader)
    made = make_offer(seat_view(deal, leader), random.Random(seed), FAST)
    if value == 5:  # every trick left is his whatever he does
        assert made == _all_to(deal, leader)
    else:
        assert made is None


def test_no_offer_without_offers_to_make_or_too_early() -> None:
    deal = game_deal(2)
    play_to_trick(deal, 1)
    leader = deal.actor
    assert leader is not None
    assert make_offer(seat_view(deal, leader), random.Random(1), FAST) is None  # 10 left
    follower = leader.next(3)
    assert make_offer(seat_view(deal, follower), random.Random(1), FAST) is None
    with pytest.raises(ValueError):
        answer_offer(seat_view(deal, leader), random.Random(1), FAST)


def test_a_cold_leader_offers_all_mine_and_the_answers_follow_the_value() -> None:
    deal = cold_all_pass()
    play_to_trick(deal, 4)
    leader = deal.actor
    assert leader == Seat(1)
    made = make_offer(seat_view(deal, leader), random.Random(1), FAST)
    assert made == _all_to(deal, leader)
    deal.apply(made)
    answerer = leader.next(3)
    assert answer_offer(seat_view(deal, answerer), random.Random(1), FAST).accepted
    deal.apply(Accept(answerer, False))
    # every trick to the next seat instead: he would take none, so he refuses
    deal.apply(_all_to(deal, answerer))
    assert not answer_offer(seat_view(deal, answerer), random.Random(1), FAST).accepted


def test_a_refused_offer_is_not_made_again_in_the_same_position() -> None:
    """A refusal leaves the position as it was: the computer player does not offer the same
    again (a timer refusing for an absent player made it go round for ever); at the next
    trick's lead it may."""
    deal = cold_all_pass()
    play_to_trick(deal, 4)
    leader = deal.actor
    assert leader is not None
    mine = make_offer(seat_view(deal, leader), random.Random(1), FAST)
    assert mine == _all_to(deal, leader)
    deal.apply(mine)
    deal.apply(Accept(leader.next(3), False))
    assert deal.actor == leader and deal.open_offer is None
    assert mine not in deal.offer_actions() and mine not in seat_view(deal, leader).offers
    assert make_offer(seat_view(deal, leader), random.Random(1), FAST) is None
    again = Deal.from_json(deal.settings, deal.to_json())  # a restart remembers it too
    assert mine not in again.offer_actions()
    deal.apply(mine)  # still legal (a record may hold it), only not offered
    deal.apply(Accept(leader.next(3), False))
    for _ in range(3):  # the trick is played: a new position
        deal.apply(deal.legal_actions()[0])
    assert deal.actor == leader and deal.trick_number == 5
    assert make_offer(seat_view(deal, leader), random.Random(1), FAST) == _all_to(deal, leader)
