"""A caller's bug is told apart from a move the rules refuse.

:class:`IllegalAction` is for what a player may try at the table (out of turn, a card he
must not play, a bid too low); a malformed action or a call out of order is the caller's
bug and raises a plain ``TypeError`` or ``ValueError``, changing nothing.
"""

from __future__ import annotations

import random

import pytest

from bot.preferans.actions import (
    Accept,
    Bid,
    ChooseDefence,
    Declare,
    Discard,
    IllegalAction,
    Offer,
    Play,
    Whist,
)
from bot.preferans.cards import Card, Suit
from bot.preferans.contracts import Contract
from bot.preferans.conventions import Rules
from bot.preferans.deal import Deal, Phase
from bot.preferans.game import Game
from bot.preferans.outcome import Defence, WhistAnswer
from bot.preferans.seats import Seat
from tests.engine_helpers import (
    W,
    assert_caller_error,
    lowest_discard,
    play_randomly,
    random_deal,
    whist,
    win_auction,
)
from tests.engine_helpers import c as contract

S1, S3 = Seat(1), Seat(3)


def _in_play(seed: int = 3) -> Deal:
    """6♠ by seat 1, both defenders whist: the first lead is due."""
    deal = random_deal(seed)
    win_auction(deal, 1, "6S")
    deal.apply(lowest_discard(deal))
    deal.apply(Declare(S1, contract("6S")))
    for seat in deal.defenders:
        whist(deal, seat, W)
    assert deal.phase is Phase.PLAY
    return deal


@pytest.mark.parametrize("thing", ["seat 1 bids 6S", None, ("bid", 1, "6S"), Card.SA])
def test_what_is_not_an_action_is_a_type_error(thing: object) -> None:
    assert_caller_error(random_deal(), thing, TypeError, "is not an action")


def test_not_an_action_is_a_type_error_while_an_offer_waits() -> None:
    deal = _in_play()
    leader = deal.to_act
    assert leader is not None
    deal.apply(next(o for o in deal.offer_actions() if o.seat == leader))
    assert deal.open_offer is not None
    assert_caller_error(deal, "accept", TypeError, "is not an action")


@pytest.mark.parametrize(
    "action",
    [
        Bid(S3, None),
        Bid(S3, Contract(6, Suit.SPADES)),
        Discard(S3, (Card.SA, Card.SK)),
        Declare(S3, Contract(6, Suit.SPADES)),
        Whist(S3, WhistAnswer.WHIST),
        ChooseDefence(S3, Defence.OPEN),
        Play(S3, Card.SA),
        Offer(S3, (10, 0, 0)),
        Accept(S3, True),
    ],
    ids=str,
)
def test_a_seat_not_at_a_table_of_three_is_a_value_error(action: object) -> None:
    assert_caller_error(random_deal(), action, ValueError, "no seat 3 at a table of 3")


def test_a_seat_not_at_the_table_is_a_value_error_in_the_play_and_after_it() -> None:
    deal = _in_play()
    assert_caller_error(deal, Play(S3, Card.SA), ValueError, "no seat 3 at a table of 3")
    play_randomly(deal, random.Random(1))
    assert_caller_error(deal, Play(S3, Card.SA), ValueError, "no seat 3 at a table of 3")
    negative = Play(-1, Card.SA)  # type: ignore[arg-type]  # no Seat is negative
    assert_caller_error(deal, negative, ValueError, "no seat -1 at a table of 3")


@pytest.mark.parametrize(
    ("tricks", "fragment"),
    [
        ((10, 0), "one number per player (3)"),
        ((10, 0, 0, 0), "one number per player (3)"),
        ((11, -1, 0), "tricks cannot be negative"),
    ],
)
def test_an_offer_of_the_wrong_shape_is_a_value_error(
    tricks: tuple[int, ...], fragment: str
) -> None:
    deal = _in_play()
    leader = deal.to_act
    assert leader is not None
    assert_caller_error(deal, Offer(leader, tricks), ValueError, fragment)
    # whatever the phase: the shape is wrong before any rule is asked
    assert_caller_error(random_deal(), Offer(S1, tricks), ValueError, fragment)


def _over_game() -> Game:
    """A game to a pulka of 1, played at random until it is over (two deals)."""
    game = Game(Rules.preset("sochi", 1), ["Анна", "Борис", "Вера"])
    rng = random.Random(1)
    while not game.over:
        deal = game.start_deal(rng)
        while game.current is not None:
            game.apply(rng.choice(deal.legal_actions()))
    return game


def test_a_game_out_of_order_is_a_value_error() -> None:
    game = Game(Rules.preset("sochi", 20), ["Анна", "Борис", "Вера"])
    with pytest.raises(ValueError, match="no deal in progress") as info:
        game.apply(Bid(S1, None))
    assert type(info.value) is ValueError
    deal = game.start_deal(random.Random(1))
    with pytest.raises(ValueError, match="the current deal is not over") as info:
        game.start_deal(random.Random(2))
    assert type(info.value) is ValueError
    assert game.current is deal and game.deal_count == 1
    over = _over_game()
    deals = len(over.finished_deals)
    with pytest.raises(ValueError, match="the game is over") as info:
        over.start_deal(random.Random(3))
    assert type(info.value) is ValueError
    assert over.current is None and len(over.finished_deals) == deals


def test_a_legal_move_rejection_stays_an_illegal_action() -> None:
    """The dealer of a 4-player table sits at it but not in the deal: a player's mistake."""
    deal = random_deal(players=4)
    with pytest.raises(IllegalAction, match="turn"):
        deal.verify(Bid(Seat(0), None))
