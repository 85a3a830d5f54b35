"""The computer player's judgement in hand-made positions: what a sound player does."""

from __future__ import annotations

import random

from bot.preferans.actions import Bid, ChooseDefence, Declare, Discard, Whist
from bot.preferans.cards import DECK, Suit
from bot.preferans.contracts import MISERE, Contract, parse_contract
from bot.preferans.deal import Deal, DealSettings, Phase
from bot.preferans.outcome import Defence, WhistAnswer
from bot.preferans.robot import Budget, choose
from bot.preferans.robot.bidding import (
    DEFAULT_STYLE,
    _auction_fit,
    _close,
    max_contract,
    misere_worthy,
)
from bot.preferans.robot.evaluation import declarer_tricks, defender_tricks, misere_holes
from bot.preferans.robot.judging import Judgement
from bot.preferans.seats import Seat
from bot.preferans.views import seat_view
from tests.engine_helpers import bids, cards, make_deal, whist

S0, S1, S2 = Seat.S0, Seat.S1, Seat.S2
THINK = Budget(samples=8, nodes=3000, total=20000)

# Dealer seat 0: seat 1 is the first hand and bids first, then seat 2, then seat 0.
COLD = "AS KS QS JS 10S AC KC QC AD AH"
HOPELESS = "KS 9S 8S QC 10C 8C JD 9D 10H 8H"
CLEAN_MISERE = "7S 9S JS 7C 8C 7D 9D 7H 8H 10H"


def robots_until(deal: Deal, phase: Phase, budget: Budget = THINK) -> None:
    rng = random.Random(5)
    while not deal.is_over and deal.phase is not phase:
        actor = deal.actor
        assert actor is not None
        deal.apply(choose(seat_view(deal, actor), rng, budget=budget))


def test_counts_a_cold_hand() -> None:
    assert declarer_tricks(cards(COLD), Suit.SPADES) >= 8.5
    plan = max_contract(tuple(cards(COLD)), DEFAULT_STYLE)
    assert plan is not None and plan.level >= 9


def test_bids_and_declares_a_cold_eight() -> None:
    deal = make_deal(
        {
            1: COLD,
            2: "9S 8S 7S JC 10C 9C KD QD JD 10D",
            0: "8C 7C 9D 8D 7D KH QH JH 10H 9H",
        },
        "8H 7H",
    )
    robots_until(deal, Phase.WHIST)
    assert deal.declarer == S1
    assert deal.contract is not None and deal.contract.level >= 8


def first_hand_deal(hand: str) -> Deal:
    """Seat 1 (first hand) holds ``hand``; the other cards are dealt round in deck order."""
    rest = [c for c in DECK if c not in cards(hand)]
    return Deal(DealSettings(), S0, [rest[0:20:2], cards(hand), rest[1:20:2]], rest[20:22])


def test_passes_a_hopeless_hand() -> None:
    deal = first_hand_deal(HOPELESS)
    assert choose(seat_view(deal, S1), random.Random(1)) == Bid(S1, None)


def test_calls_misere_with_a_clean_hand() -> None:
    assert misere_holes(cards(CLEAN_MISERE)) == 0
    assert misere_worthy(tuple(cards(CLEAN_MISERE)), DEFAULT_STYLE)
    deal = first_hand_deal(CLEAN_MISERE)
    assert choose(seat_view(deal, S1), random.Random(1)) == Bid(S1, MISERE)


def test_no_misere_with_holes() -> None:
    assert not misere_worthy(tuple(cards(HOPELESS)), DEFAULT_STYLE)


def test_says_here_instead_of_raising() -> None:
    """An earlier seat with the same strength holds the bid with "здесь" (Кодекс 3.3.7)."""
    deal = make_deal(
        {
            1: "AS KS QS JS 9S AC KC 7D 8D 7H",
            2: "AH KH QH JH 9H AD 8S 9D 10D 8H",
            0: "7S 10S 7C 8C 9C 10C JC QC JD QD",
        },
        "KD 10H",
    )
    bids(deal, (1, "6S"), (2, "6C"), (0, "pass"))
    assert choose(seat_view(deal, S1), random.Random(1)) == Bid(S1, Contract(6, Suit.CLUBS))


def _whist_deal(defender: str, contract: str, second: str = "") -> Deal:
    """Seat 1 declares ``contract`` holding the top trumps; seat 2 (first to answer)
    holds ``defender``, seat 0 ``second`` or what is left."""
    target = parse_contract(contract)
    given = cards(defender) + cards(second)
    rest = [c for c in DECK if c not in given]
    trumps = sorted((c for c in rest if c.suit is target.trump), reverse=True)
    others = sorted((c for c in rest if c.suit is not target.trump), reverse=True)
    declarer = (trumps + others)[:10]
    left = [c for c in rest if c not in declarer]
    hand0 = cards(second) if second else left[:10]
    talon = left[-2:]
    deal = Deal(DealSettings(), S0, [hand0, declarer, cards(defender)], talon)
    bids(deal, (1, "6S"), (2, "pass"), (0, "pass"))
    deal.apply(Discard(S1, (talon[0], talon[1])))
    deal.apply(Declare(S1, target))
    return deal


def test_whists_against_six_with_two_aces() -> None:
    hand = "AS KS 8S AC 9C 8C 7D 8D 9D 10D"
    assert defender_tricks(cards(hand), Suit.HEARTS) >= 2
    deal = _whist_deal(hand, "6H")
    assert deal.phase is Phase.WHIST and deal.to_act == S2
    assert choose(seat_view(deal, S2), random.Random(1)) == Whist(S2, WhistAnswer.WHIST)


def test_passes_against_seven_with_nothing() -> None:
    deal = _whist_deal("7S 8S 9S 7C 8C 9C 7D 8D 10D JD", "7H")
    assert choose(seat_view(deal, S2), random.Random(1)) == Whist(S2, WhistAnswer.PASS)


def test_whists_an_ace_against_eight() -> None:
    deal = _whist_deal("AS 8S 9S 7C 8C 9C 7D 8D 10D JD", "8H")
    assert choose(seat_view(deal, S2), random.Random(1)) == Whist(S2, WhistAnswer.WHIST)


def test_half_whist_with_a_middling_hand_after_a_pass() -> None:
    deal = _whist_deal(
        "KS QS JS KC QC JC KD QD 9D 10S", "6H", second="AS 8S 9S 7C 8C 9C 7D 8D 10D JD"
    )
    assert deal.to_act == S2
    whist(deal, 2, WhistAnswer.PASS)
    assert choose(seat_view(deal, S0), random.Random(1)) == Whist(S0, WhistAnswer.HALF)


def test_lone_whister_with_a_weak_hand_lies_down() -> None:
    deal = _whist_deal("AS KS 8S AC KC 8C 7D 8D 9D 10D", "6H")
    whist(deal, 2, WhistAnswer.WHIST)
    whist(deal, 0, WhistAnswer.PASS)
    assert deal.phase is Phase.DEFENCE
    action = choose(seat_view(deal, S2), random.Random(1))
    assert isinstance(action, ChooseDefence) and action.defence is Defence.OPEN


def test_catches_a_misere_with_a_hole() -> None:
    """The declarer keeps a singleton ten; the catchers lead under it and make him take."""
    deal = make_deal(
        {
            2: "10S 10C 10D 7H 8H 9H JH QH KH AH",
            1: "7S 9S JS KS 7C 9C JC KC 7D 9D",
            0: "8S QS AS 8C QC AC 8D JD QD KD",
        },
        "10H AD",
    )
    bids(deal, (1, "pass"), (2, "misere"), (0, "pass"))
    robots_until(deal, Phase.DONE)
    assert deal.tricks[2] >= 1


def test_declarer_keeps_his_aces_in_the_discard() -> None:
    deal = make_deal(
        {
            1: "AS KS QS JS 9S AC 8C 7D 8D AH",
            2: "7S 8S 10S 7C 9C 10C JC QC KC JD",
            0: "QD KD AD 7H 8H 9H 10H JH QH KH",
        },
        "9D 10D",
    )
    bids(deal, (1, "6S"), (2, "pass"), (0, "pass"))
    action = choose(seat_view(deal, S1), random.Random(1))
    assert isinstance(action, Discard)
    assert all(int(c.rank) < 7 for c in action.cards)
    deal.apply(action)
    declare = choose(seat_view(deal, S1), random.Random(1))
    assert isinstance(declare, Declare) and declare.contract.trump is Suit.SPADES


def test_whists_when_stalingrad_obliges() -> None:
    """Option stalingrad: 6♠ must be whisted by both, even with nothing."""
    deal = make_deal(
        {
            1: "AS KS QS JS 10S AC KC QC AD AH",
            2: "7S 8S 7C 8C 9C 7D 8D 9D 7H 8H",
            0: "9S 10C JC 10D JD QD KD 9H 10H JH",
        },
        "QH KH",
        stalingrad=True,
    )
    bids(deal, (1, "6S"), (2, "pass"), (0, "pass"))
    deal.apply(Discard(S1, tuple(cards("QH KH"))))
    deal.apply(Declare(S1, Contract(6, Suit.SPADES)))
    robots_until(deal, Phase.PLAY)
    assert set(deal.whisters) == {S2, S0}


def test_ducks_every_trick_of_an_all_pass_with_low_cards() -> None:
    deal = make_deal(
        {
            1: "7S 8S 9S 7C 8C 7D 8D 9D 7H 8H",
            2: "10S JS QS 9C 10C JC 10D JD 9H 10H",
            0: "KS AS QC KC AC QD KD JH QH KH",
        },
        "AD AH",
    )
    bids(deal, (1, "pass"), (2, "pass"), (0, "pass"))
    robots_until(deal, Phase.DONE)
    assert deal.tricks[1] == 0


def test_more_layouts_continue_the_same_judgement() -> None:
    """More layouts dealt for a close answer add to the first ones instead of dealing
    them again: twelve then twelve more are the first twenty-four of one stream."""
    mine = cards("AS KS QS 9S 8S AC 9C 8D 7D 7H")
    order = (S1, S2, S0)
    candidates = [(Suit.SPADES, None), (None, None)]
    step = Judgement(S1, order, mine, (), candidates, talon=True)
    step.more(12, 10**6)
    first = list(step.best)
    step.more(12, 10**6)
    whole = Judgement(S1, order, mine, (), candidates, talon=True)
    whole.more(24, 10**6)
    assert step.dealt == 24
    assert len(first) == 12
    assert step.best[:12] == first
    assert step.best == whole.best
    assert step.tricks == whole.tricks


def test_close_shares_ask_for_more_layouts() -> None:
    """Within one standard error of the share required (0.7 of 12 layouts: ±0.13) the
    layouts cannot tell; well above or below they can."""
    assert _close([6] * 9 + [5] * 3, 0.7)  # 6 made in 0.75
    assert _close([7] * 8 + [5] * 4, 0.7)  # 6 and 7 made in 0.67
    assert not _close([6] * 12, 0.7)  # 6 always, 7 never
    assert not _close([8] * 11 + [6], 0.7)  # 6, 7 in 1.0; 8 in 0.92; 9 never
    assert not _close([5] * 12, 0.7)


def test_layouts_fit_the_passes_and_the_calls() -> None:
    """Seat 1 passed and seat 2 called 6♠: in the layouts seat 0 deals itself, seat 1
    holds no hand the counts would have bid seven on, seat 2 a hand worth a game."""
    deal = make_deal(
        {
            1: "7S 8S 9S 7C 8C 9C 7D 8D 7H 8H",
            2: "AS KS QS JS 10S AC KC QC AD AH",
            0: "9D 10D JD QD KD 9H 10H JH QH KH",
        },
        "10C JC",
    )
    bids(deal, (1, "pass"), (2, "6S"))
    fits = _auction_fit(seat_view(deal, S0))
    assert fits is not None
    strong = frozenset(cards("AS KS QS JS 10S AC KC QC AD AH"))
    weak = frozenset(cards("7S 8S 9S 7C 8C 9C 7D 8D 7H 8H"))
    assert fits({S1: weak, S2: strong})
    assert not fits({S1: strong, S2: weak})
    assert not fits({S1: weak, S2: weak})
