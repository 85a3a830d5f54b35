"""The samplers weigh layouts by what the auction and whisting showed."""

from __future__ import annotations

import random

from bot.preferans.cards import Card, Seat, Suit
from bot.preferans.deal import Deal
from bot.preferans.outcome import WhistAnswer
from bot.preferans.robot.evaluation import declarer_tricks
from bot.preferans.robot.inference import bidding_fit
from bot.preferans.robot.knowledge import knowledge_of
from bot.preferans.robot.sampling import sample_layout
from bot.preferans.views import seat_view
from tests.engine_helpers import bids, discard_and_declare, make_deal, play, whist

S0, S1, S2 = Seat.S0, Seat.S1, Seat.S2


def _eight_spades() -> Deal:
    """Seat 1 bids 6♠ and names 8♠; seat 2 passed at once (no game in his hand), then
    both whist; the declarer leads ♣A."""
    deal = make_deal(
        {
            1: "AS KS QS JS 10S AC KC AD 7H 8H",
            2: "9S 8S QC JC 10C 9D 8D 9H 10H JH",
            0: "7S 9C 8C KD QD JD 10D QH KH AH",
        },
        "7C 7D",
    )
    bids(deal, (1, "6S"), (2, "pass"), (0, "pass"))
    discard_and_declare(deal, "7H 8H", "8S")
    whist(deal, 2, WhistAnswer.WHIST)
    whist(deal, 0, WhistAnswer.WHIST)
    play(deal, 1, "AC")
    return deal


def test_a_defender_deals_the_declarer_a_hand_worth_his_contract() -> None:
    """Dealt by the rules of play alone, the declarer's hidden cards were any ten; now the
    layouts give him (cards still held and played together) a hand counting near eight
    tricks in spades, and the first-call passer no hand worth a game."""
    deal = _eight_spades()
    view = seat_view(deal, S2)
    know = knowledge_of(view)
    rng = random.Random(3)
    for _ in range(30):
        hands, _ = sample_layout(know, rng)
        declarer = hands[S1] | {Card.CA}
        assert declarer_tricks(declarer, Suit.SPADES) >= 6.5
        assert know.fit is not None and know.fit(hands) == 0


def test_the_signs_read_from_the_table() -> None:
    """The true layout fits every sign; a layout swapping the declarer's hand with the
    first-call passer's does not fit."""
    deal = _eight_spades()
    view = seat_view(deal, S2)
    fit = bidding_fit(view, {S1: 9, S0: 10})
    assert fit is not None
    truth = {s: frozenset(deal.hand(s)) for s in (S0, S1, S2)}
    assert fit(truth) == 0
    swapped = dict(truth)
    swapped[S0] = truth[S1] | {Card.S7}
    swapped[S1] = truth[S0] - {Card.S7}
    assert fit(swapped) > 0
