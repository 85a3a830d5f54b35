"""``auto_moves.forced_card``: the card a player must play when he has no choice (such
a card plays itself)."""

from __future__ import annotations

import random

from bot.preferans.actions import Offer, Play
from bot.preferans.auto_moves import forced_card
from bot.preferans.seats import Seat
from bot.preferans.views import seat_view
from tests.engine.test_analysis import _cold_nine_no_trumps
from tests.engine_helpers import card, play, random_deal


def test_one_card_of_the_suit_led_is_forced_two_are_not() -> None:
    deal = _cold_nine_no_trumps()
    assert forced_card(seat_view(deal, Seat(0))) is None  # the lead: any of ten cards
    for trick in (("AS", "7C", "8D"), ("KS", "8C", "9D")):
        for seat, code in enumerate(trick):
            play(deal, seat, code)
    play(deal, 0, "AH")
    assert forced_card(seat_view(deal, Seat(1))) is None  # K♥ or Q♥
    play(deal, 1, "KH")
    assert forced_card(seat_view(deal, Seat(2))) is None  # three hearts
    play(deal, 2, "9H")
    play(deal, 0, "7H")
    # Boris has Q♥ only: forced; Vera has J♥ 10♥: not; nobody else is asked
    assert forced_card(seat_view(deal, Seat(1))) == Play(Seat(1), card("QH"))
    assert forced_card(seat_view(deal, Seat(2))) is None
    play(deal, 1, "QH")
    assert forced_card(seat_view(deal, Seat(2))) is None
    assert forced_card(seat_view(deal, Seat(0))) is None  # not his turn: nothing legal


def test_the_last_trick_is_forced_for_every_hand_and_nothing_else_is() -> None:
    rng = random.Random(4)
    for seed in range(6):
        deal = random_deal(seed)
        while not deal.is_over:
            actor = deal.actor
            assert actor is not None
            view = seat_view(deal, actor)
            plays = [a for a in view.legal if isinstance(a, Play)]
            forced = forced_card(view)
            assert forced == (plays[0] if len(plays) == 1 and len(view.legal) == 1 else None)
            if deal.trick_number == 10:
                assert forced is not None
            deal.apply(forced or rng.choice(deal.legal_actions()))


def test_an_open_offer_is_answered_not_played() -> None:
    deal = _cold_nine_no_trumps()
    deal.apply(Offer(Seat(0), (10, 0, 0)))
    assert forced_card(seat_view(deal, Seat(1))) is None
