"""Game-level API: replacing a player, and the whist facts the public view exposes."""

from __future__ import annotations

import json
import random

import pytest

from bot.preferans.actions import ChooseDefence, Whist
from bot.preferans.conventions import Rules
from bot.preferans.deal import Deal
from bot.preferans.game import Game
from bot.preferans.outcome import Defence, WhistAnswer
from bot.preferans.seats import Seat
from bot.preferans.views import public_view
from tests.engine_helpers import lowest_discard, random_deal, win_auction


def _to_whisting(seed: int = 3) -> Deal:
    deal = random_deal(seed)
    win_auction(deal, int(deal.first_hand), "6S")
    deal.apply(lowest_discard(deal))
    from bot.preferans.actions import Declare
    from bot.preferans.contracts import parse_contract

    assert deal.declarer is not None
    deal.apply(Declare(deal.declarer, parse_contract("6S")))
    return deal


def test_returned_whist_and_open_passer_are_public() -> None:
    deal = _to_whisting()
    first, second = deal.defenders
    deal.apply(Whist(first, WhistAnswer.PASS))
    deal.apply(Whist(second, WhistAnswer.HALF))
    view = public_view(deal)
    assert view.returned_whist is None and view.whisters == ()
    deal.apply(Whist(first, WhistAnswer.WHIST))
    view = public_view(deal)
    assert view.returned_whist == first
    assert view.whisters == (first,)
    deal.apply(ChooseDefence(first, Defence.OPEN))
    view = public_view(deal)
    assert view.open_passer == second
    assert set(view.open_hands) == {first, second}


def test_closed_defence_has_no_open_passer() -> None:
    deal = _to_whisting(5)
    first, second = deal.defenders
    deal.apply(Whist(first, WhistAnswer.WHIST))
    deal.apply(Whist(second, WhistAnswer.PASS))
    deal.apply(ChooseDefence(first, Defence.CLOSED))
    view = public_view(deal)
    assert view.open_passer is None and view.whisters == (first,)
    assert view.open_hands == {}


def test_replace_player_renames_the_seat_in_the_record() -> None:
    game = Game(Rules.preset("sochi", 10), ["Анна", "Борис", "Вера"])
    deal = game.start_deal(random.Random(1))
    game.apply(deal.legal_actions()[0])
    game.replace_player(Seat.S1, "Глеб")
    record = json.loads(json.dumps(game.to_record()))
    assert record["players"] == ["Анна", "Глеб", "Вера"]
    assert Game.from_record(record).names == ["Анна", "Глеб", "Вера"]
    with pytest.raises(ValueError):
        game.replace_player(Seat.S3, "X")
    with pytest.raises(ValueError):
        game.replace_player(Seat.S0, "  ")
