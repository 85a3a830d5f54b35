"""The views the core and the Telegram side ask for after a move: the public view built
once per state of a deal and shared by every seat view (bot/core/viewcache.py)."""

from __future__ import annotations

import gc
import weakref

from bot.core.viewcache import public_view, seat_view
from bot.preferans import views
from bot.preferans.seats import Seat
from tests.engine_helpers import random_deal


def test_the_public_view_is_built_once_per_state_of_the_deal() -> None:
    deal = random_deal(1)
    kept = public_view(deal)
    assert public_view(deal) is kept and kept == views.public_view(deal)
    for s in range(3):
        view = seat_view(deal, Seat(s))
        assert view.public is kept and view == views.seat_view(deal, Seat(s))
    action = deal.legal_actions()[0]
    deal.apply(action)
    after = public_view(deal)
    assert after is not kept and after == views.public_view(deal)
    assert after.auction == (action,) and kept.auction == ()
    assert seat_view(deal, Seat(2)).public is after


def test_a_seat_view_is_built_once_per_state_of_the_deal() -> None:
    deal = random_deal(2)
    actor = deal.actor
    assert actor is not None
    kept = seat_view(deal, actor)
    assert seat_view(deal, actor) is kept and kept.legal == tuple(deal.legal_actions())
    other = seat_view(deal, Seat((int(actor) + 1) % 3))
    assert other is not kept and other.legal == ()
    deal.apply(deal.legal_actions()[0])
    after = seat_view(deal, actor)
    assert after is not kept and after == views.seat_view(deal, actor)
    assert after.legal == () and kept.legal != ()


def test_deals_in_the_same_state_keep_their_own_views() -> None:
    a, b = random_deal(1, dealer=0), random_deal(1, dealer=1)
    assert public_view(a).dealer == Seat(0) and public_view(b).dealer == Seat(1)
    copy = a.replay()
    assert public_view(copy) == public_view(a) and public_view(copy) is not public_view(a)


def test_a_view_kept_does_not_keep_its_deal() -> None:
    deal = random_deal(1)
    seat_view(deal, Seat(1))
    gone = weakref.ref(deal)
    del deal
    gc.collect()
    assert gone() is None
