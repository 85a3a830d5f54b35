"""A move button's code read back as an engine action (what the adapter hands the core)."""

from __future__ import annotations

import random

import pytest

from bot.preferans.actions import Action, Discard
from bot.preferans.deal import Deal
from bot.preferans.views import public_view, seat_view
from bot.render.callbacks import action_code, action_of
from tests.engine.test_offers import open_deal
from tests.engine_helpers import random_deal


def _buttons(deal: Deal) -> list[Action]:
    """Every action the player deciding now gets a button for (a discard is marked card
    by card instead)."""
    actor = deal.actor
    if actor is None:
        return []
    view = seat_view(deal, actor)
    return [a for a in (*view.legal, *view.offers) if not isinstance(a, Discard)]


def _read_back(deal: Deal, rng: random.Random) -> set[str]:
    """Play ``deal`` out at random, offers made and answered on the way; every button's
    code must read back as its own action. Returns the kinds of actions read."""
    kinds: set[str] = set()
    while (actor := deal.actor) is not None:
        view = public_view(deal)
        for action in _buttons(deal):
            assert action_of(action_code(action), view) == action
            kinds.add(type(action).__name__)
        offers = seat_view(deal, actor).offers
        if offers and rng.random() < 0.3:
            deal.apply(rng.choice(offers))
        else:
            deal.apply(rng.choice(deal.legal_actions()))
    return kinds


def test_every_button_reads_back_as_its_action() -> None:
    rng = random.Random(1)
    kinds: set[str] = set()
    for seed in range(12):
        kinds |= _read_back(random_deal(seed, players=3 + seed % 2), rng)
    kinds |= _read_back(open_deal(), rng)
    assert kinds == {"Bid", "Declare", "Whist", "ChooseDefence", "Play", "Offer", "Accept"}


def test_in_open_defence_the_whister_moves_the_passers_cards_and_offers_for_him() -> None:
    deal = open_deal()  # the passer's hand leads, the whister decides
    view = public_view(deal)
    assert view.to_act != view.actor
    buttons = _buttons(deal)
    assert any(a.seat == view.to_act for a in buttons)  # the passer's cards
    assert any(a.seat == view.actor for a in buttons)  # the whister's offers
    for action in buttons:
        assert action_of(action_code(action), view) == action
    assert "Play" in _read_back(deal, random.Random(1))


@pytest.mark.parametrize(
    "code",
    [
        "p7s",
        "p1H",
        "pZZ",
        "b6s",
        "bmisere",
        "bMM",
        "b",
        "c",
        "wX",
        "w",
        "dX",
        "aYY",
        "a",
        "o",
        "o1-x",
        "o+1-9-0",
        "o١-9-0",
        "x6S",
        "Ls",
        "V",
        "k",
    ],
)
def test_a_code_that_is_not_a_buttons_names_no_action(code: str) -> None:
    assert action_of(code, public_view(random_deal(1))) is None


def test_nothing_is_named_once_the_deal_is_over() -> None:
    deal = random_deal(2)
    view = public_view(deal)
    code = action_code(deal.legal_actions()[0])
    while deal.actor is not None:
        deal.apply(deal.legal_actions()[0])
    assert action_of(code, view) is not None and action_of(code, public_view(deal)) is None
