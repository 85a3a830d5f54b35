"""Whether an offer gives a seat its best in one layout: the offer against the solver's value."""

from __future__ import annotations

import pytest

from bot.preferans.actions import Offer
from bot.preferans.offer_value import gives_best, offer_position
from bot.preferans.outcome import DealKind
from bot.preferans.seats import Seat
from bot.preferans.solver import Position
from tests.engine.test_offers import all_pass_deal, game_deal, misere_deal, play_to_trick

S0, S1, S2 = Seat(0), Seat(1), Seat(2)


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


@pytest.mark.parametrize("make", [game_deal, misere_deal, all_pass_deal])
def test_while_an_offer_waits_the_leader_stays_on_lead(make: object) -> None:
    deal = make(7)  # type: ignore[operator]
    play_to_trick(deal, 6)
    before = Position.from_deal(deal)
    deal.apply(deal.offer_actions()[0])
    assert deal.actor != before.leader
    assert offer_position(deal) == before
