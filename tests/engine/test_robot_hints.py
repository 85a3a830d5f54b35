"""The «💡» hint: the strongest computer player's move (as ``bot.replay --hint``), its
reason, and nothing hidden from the seat behind it."""

from __future__ import annotations

import random

import pytest

from bot.preferans.actions import Bid, Declare, Discard, Play, Whist
from bot.preferans.conventions import Rules
from bot.preferans.deal import Deal
from bot.preferans.game import Game
from bot.preferans.outcome import WhistAnswer
from bot.preferans.robot import STRONG, choose, player
from bot.preferans.robot.hints import Hint, hint
from bot.preferans.robot.simple_play import simple_card
from bot.preferans.seats import Seat
from bot.preferans.views import seat_view
from bot.render.hint import hint_text
from bot.render.text import card as card_text
from bot.replay import hint_move
from tests.engine.test_robot_levels import HANDS, whist_position
from tests.engine_helpers import bids, c, cards, make_deal


def _two_whisters(hands: dict[int, str]) -> Deal:
    """6♥ by seat 0 (discarding 7♠ 7♦), whisted by both: seat 1 leads the first trick."""
    deal = make_deal(hands, "AD 7D", dealer=0)
    bids(deal, (1, "pass"), (2, "pass"), (0, "6S"))
    deal.apply(Discard(Seat(0), (cards("7S")[0], cards("7D")[0])))
    deal.apply(Declare(Seat(0), c("6H")))
    deal.apply(Whist(Seat(1), WhistAnswer.WHIST))
    deal.apply(Whist(Seat(2), WhistAnswer.WHIST))
    return deal


def test_the_hint_is_the_replay_hint() -> None:
    game = Game(Rules.preset("sochi", pulka=10), ["Anna", "Boris", "Vera"])
    deal = game.start_deal(random.Random(5))
    for _ in range(2):
        game.apply(choose(seat_view(deal, deal.actor or Seat(0)), random.Random(0)))
    actor = deal.actor
    assert actor is not None
    found = hint(seat_view(deal, actor))
    assert found.action.to_json() == hint_move(game)
    assert found.action == choose(seat_view(deal, actor), random.Random(0), budget=STRONG)


def test_a_pass_in_the_auction_names_the_bid_it_lacks() -> None:
    deal = make_deal(HANDS, "AD 7D", dealer=0)
    found = hint(seat_view(deal, Seat(1)))
    assert found == Hint(Bid(Seat(1), None), "bid.pass", contract=c("6S"))
    ru, en = hint_text(found, "ru"), hint_text(found, "en")
    assert ru == "💡 Компьютер на вашем месте: пас\nНа 6\u202f♠️ не хватает взяток."
    assert en == "💡 The computer in your seat: pass\nNot enough tricks for 6\u202f♠️."


def test_a_half_whist_says_how_many_tricks_the_hand_counts() -> None:
    found = hint(whist_position())
    assert found == Hint(Whist(Seat(2), WhistAnswer.HALF), "whist.half", tricks=2, contract=c("6H"))
    assert hint_text(found, "ru") == (
        "💡 Компьютер на вашем месте: полвиста\nНа руке около 2 взяток — вистовать одному мало."
    )
    assert hint_text(found, "en") == (
        "💡 The computer in your seat: half-whist\n"
        "The hand holds about 2 tricks: too few to whist alone."
    )


def test_a_card_says_whether_the_layouts_or_the_rules_of_thumb_chose_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    deal = _two_whisters(HANDS)
    lead = hint(seat_view(deal, Seat(1)))
    # searched from the first trick: the sampled layouts choose the lead
    assert lead == Hint(Play(Seat(1), cards("8C")[0]), "card.layouts")
    assert hint_text(lead, "ru") == (
        "💡 Компьютер на вашем месте: 8♣️\nЛучшая карта в среднем по разобранным раскладам."
    )
    deal.apply(lead.action)
    # no layout solved within the budget: the rules of thumb play, and the hint says so
    monkeypatch.setattr(player, "search_card", lambda *_: None)
    second = hint(seat_view(deal, Seat(2)))
    assert second == Hint(Play(Seat(2), simple_card(seat_view(deal, Seat(2)))), "card.rules")
    assert second is not None and isinstance(second.action, Play)
    assert hint_text(second, "en") == (
        f"💡 The computer in your seat: {card_text(second.action.card)}\n"
        "No layout was solved in time: the card by the rules of thumb."
    )


def test_the_hint_reads_only_the_seats_own_view() -> None:
    """Other hands changed where seat 1 cannot see: the same hint, at every decision."""
    # the declarer's ace of spades and king of diamonds change places with seat 2's cards
    moved = dict(HANDS)
    moved[0] = "7S KS 10C KC JD 10D 8H 9H KH AH"
    moved[2] = "8S 10S QS AS 7C QC AC 8D KD QH"
    auction = (make_deal(HANDS, "AD 7D", dealer=0), make_deal(moved, "AD 7D", dealer=0))
    play = (_two_whisters(HANDS), _two_whisters(moved))
    for first, second in (auction, play):
        assert first.hand(Seat(0)) != second.hand(Seat(0))
        assert first.hand(Seat(1)) == second.hand(Seat(1))
        assert hint(seat_view(first, Seat(1))) == hint(seat_view(second, Seat(1)))
