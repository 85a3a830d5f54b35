"""The samplers weigh layouts by what the auction and whisting showed."""

from __future__ import annotations

import random

from bot.preferans.actions import ChooseDefence, Play
from bot.preferans.cards import Card, Suit
from bot.preferans.deal import Deal
from bot.preferans.outcome import Defence, WhistAnswer
from bot.preferans.robot import choose
from bot.preferans.robot.evaluation import declarer_tricks
from bot.preferans.robot.inference import bidding_fit
from bot.preferans.robot.knowledge import knowledge_of
from bot.preferans.robot.sampling import sample_layout
from bot.preferans.seats import Seat
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


def _king_jack_guess() -> Deal:
    """6NT by seat 1; seat 0 bid up to 6♥ and whists alone (closed), seat 2 passed at once.
    After seven tricks and a diamond to seat 0's ace he leads ♥8: the declarer, second
    to play with ♥K J, cannot see where ♥A, ♥Q and ♥10 are (seat 2 holds two of them)."""
    deal = make_deal(
        {
            1: "AS KS QS JS 10S AC KC 7D KH JH",
            0: "AD KD QD 9D AH 8H 10C 9C 8C 7C",
            2: "9S 8S 7S JD 10D 8D QH 10H 9H 7H",
        },
        "QC JC",
    )
    bids(deal, (1, "6S"), (2, "pass"), (0, "6C"), (1, "6D"), (0, "6H"), (1, "6NT"), (0, "pass"))
    discard_and_declare(deal, "QC JC", "6NT")
    whist(deal, 2, WhistAnswer.PASS)
    whist(deal, 0, WhistAnswer.WHIST)
    deal.apply(ChooseDefence(S0, Defence.CLOSED))
    tricks = (
        "AS 7S 7C",
        "KS 8S 8C",
        "QS 9S 9C",
        "JS 9H 9D",
        "10S 7H QD",
        "AC 8D 10C",
        "KC 10D KD",
        "7D JD AD",
    )
    for trick in tricks:
        for code in trick.split():
            actor = deal.actor
            assert actor is not None
            play(deal, int(actor), code)
    play(deal, 0, "8H")
    return deal


def test_the_bidder_holds_the_ace() -> None:
    """With ♥A over him (seat 0 led from it) the king wins now; with it behind him, the
    jack. By the cards alone seat 2, holding two of the three, more likely has it, and the
    earlier player guessed (the jack on seeds 1, 3 and 4); but seat 0 bid 6♥, which his
    cards without the ace do not count to, and seat 2 passed at once: the king."""
    deal = _king_jack_guess()
    for seed in range(1, 6):
        action = choose(seat_view(deal, S1), random.Random(seed))
        assert action == Play(S1, Card.HK)
