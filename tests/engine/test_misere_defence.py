"""Misère catchers: classic catches, each position from a deal where the earlier catchers
let a catchable misère go (checked by the exact solver, every card open)."""

from __future__ import annotations

import random

import pytest

from bot.preferans.actions import Bid, Declare, Discard, Play
from bot.preferans.cards import Card
from bot.preferans.contracts import MISERE
from bot.preferans.deal import Deal, Phase
from bot.preferans.robot import choose
from bot.preferans.robot.misere_defence import misere_catch
from bot.preferans.seats import Seat
from bot.preferans.solver import Goal, Position, Solver
from bot.preferans.views import seat_view
from tests.engine_helpers import card, cards, make_deal


def _misere(
    dealer: int, declarer: int, hands: dict[int, str], talon: str, discard: str, moves: str
) -> Deal:
    """``declarer`` calls misère (the others pass), discards, and the cards ``moves`` follow."""
    deal = make_deal(hands, talon, dealer=dealer)
    while deal.phase is Phase.AUCTION:
        actor = deal.actor
        assert actor is not None
        deal.apply(Bid(actor, MISERE if int(actor) == declarer else None))
    thrown = cards(discard)
    deal.apply(Discard(Seat(declarer), (thrown[0], thrown[1])))
    deal.apply(Declare(Seat(declarer), MISERE))
    for code in moves.split():
        actor = deal.actor
        assert actor is not None
        deal.apply(Play(actor, card(code)))
    return deal


def _catching(deal: Deal) -> set[Card]:
    """The cards of the seat on move after which the declarer can still be caught."""
    assert deal.declarer is not None
    values = Solver(Goal.MISERE, deal.declarer).card_values(Position.from_deal(deal))
    return {c for c, tricks in values.items() if tricks >= 1}


def _robot_card(deal: Deal) -> Card:
    actor = deal.actor
    assert actor is not None
    action = choose(seat_view(deal, actor), random.Random(1))
    assert isinstance(action, Play)
    return action.card


def _plan_card(deal: Deal) -> Card:
    """The catcher's card with no search at all: the plan alone."""
    actor = deal.actor
    assert actor is not None
    return misere_catch(seat_view(deal, actor), random.Random(1), 0, 0, 0)


# Catchable misères the earlier catchers let go: (dealer, declarer, hands, talon, discard,
# cards played so far), the earlier catchers' card, and the one card keeping the catch
# (None: several do).
POSITIONS: dict[str, tuple[tuple[int, int, dict[int, str], str, str, str], Card, Card | None]] = {
    # ♦8 under the declarer's lone ♦9 (seat 1), the partner following with ♦7: he must take
    # it. ♦10, or a suit he may be void in (the earlier catcher's ♥10), lets him go.
    "killing card under his singleton": (
        (
            0,
            1,
            {
                0: "KS AS KC AC 8D 10D 8H 10H QH KH",
                1: "7S 8S 9S 10S JS 7C 8C 10C JC 9D",
                2: "QS 9C QC 7D JD KD AD 7H 9H AH",
            },
            "JH QD",
            "QD JH",
            "7S QS KS KC JC 9C AS JS AD AC 10C QC",
        ),
        Card.H10,
        Card.D8,
    ),
    # ♥7 is the one card below the declarer's lone ♥8 (seat 2): led now it catches; ♥9 (the
    # earlier choice) lets him play under, and the seven alone no longer forces him.
    "the seven kept for his eight": (
        (
            1,
            2,
            {
                0: "10S AS 8C 9C JC KC 10D JD QD AD",
                1: "10C AC 8D KD 7H 9H 10H JH QH KH",
                2: "7S 8S 9S JS QS 7C 7D 9D 8H AH",
            },
            "KS QC",
            "QC AH",
            "7S AS AC 10D 8D 9D KC 10C 7C JD KD 7D",
        ),
        Card.H9,
        Card.H7,
    ),
    # Seat 0 on lead: only ♣10, under the partner's ♣K, keeps the catch: the partner takes
    # the lead and plays the declarer's spades from the side that holds ♠7.
    "the lead handed to the partner": (
        (
            2,
            2,
            {
                0: "JS KS AS 10C AC JD QD KD AD AH",
                1: "7S 9S 10S QC KC 7D 8D 10D 8H QH",
                2: "QS 7C 8C 9C JC 9D 7H 9H 10H KH",
            },
            "JH 8S",
            "9D KH",
            "AC QC JC AH QH JH",
        ),
        Card.DJ,
        Card.C10,
    ),
    # The first lead. He kept the talon's ♦A beside ♦8 (he can throw it on a suit he is
    # void in): a catcher sure the ace was discarded led ♠7 into his void, letting him go.
    "a talon ace kept": (
        (
            0,
            2,
            {
                0: "9S KS AS JC QC KC JD QD KD 9H",
                1: "7S 10S JS QS 10C 7D 9D 10D QH AH",
                2: "8S 7C 8C 9C 8D 7H 8H 10H JH KH",
            },
            "AD AC",
            "8S AC",
            "",
        ),
        Card.S7,
        None,
    ),
    # The first lead against a hand clean at first sight: ♦8 lets him go.
    "a hand clean at first sight": (
        (
            0,
            0,
            {
                0: "7S 8S JS KS 9C QC 7H 8H 10H QH",
                1: "9S QS 10C KC 8D JD QD KD 9H JH",
                2: "10S AS 7C JC AC 7D 10D AD KH AH",
            },
            "9D 8C",
            "KS 9D",
            "",
        ),
        Card.D8,
        None,
    ),
}


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_the_catchers_keep_the_catch(name: str) -> None:
    """The robot keeps the catch the earlier catchers let go; where one card does, the
    plan alone (no search) finds it too."""
    spec, earlier, only = POSITIONS[name]
    deal = _misere(*spec)
    keep = _catching(deal)
    assert earlier not in keep
    assert _robot_card(deal) in keep
    if only is not None:
        assert keep == {only}
        assert _robot_card(deal) == only
        assert _plan_card(deal) == only
