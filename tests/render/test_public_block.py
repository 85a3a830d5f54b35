"""The public block of a deal is built once per view and reader, and never shows a state
other than the table's: a player's new name and an offer just refused are shown at once."""

from __future__ import annotations

from typing import Any

import pytest

from bot.core.model import OfferNote, Player
from bot.core.viewcache import public_view, seat_view
from bot.preferans.actions import Accept, Offer
from bot.preferans.seats import Seat
from bot.render import table as render
from bot.render.table import hand_text, public_block, table_text
from tests.engine.test_offers import play_to_trick
from tests.render.test_offer_render import NAMES, game_in_play, table_of


def test_the_same_view_is_rendered_once_for_the_table_and_each_hand(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game, deal = game_in_play("game")
    play_to_trick(deal, 3)
    table = table_of(game)
    built: list[tuple[object, ...]] = []
    inner = render._public_block

    def counted(*args: Any) -> list[str]:
        built.append(args)
        return inner(*args)

    monkeypatch.setattr(render, "_public_block", counted)
    group = table_text(table, public_view(deal), 1)
    hands = [hand_text(table, seat_view(deal, s), 1, "ru") for s in map(Seat, range(3))]
    assert len(built) == 1  # one block: the table's, then each hand's (no open hand)
    block = "\n\n".join(
        inner(table, public_view(deal), "ru", frozenset(), table.settings.ranks, False)
    )
    assert block in group and all(block in hand for hand in hands)
    hand_text(table, seat_view(deal, Seat(0)), 1, "en")
    assert len(built) == 2  # another language: another block
    deal.apply(deal.legal_actions()[0])
    table_text(table, public_view(deal), 1)
    assert len(built) == 3  # the next state


def test_a_new_name_and_a_refused_offer_show_at_once() -> None:
    game, deal = game_in_play("game")
    play_to_trick(deal, 5)
    table = table_of(game)
    pv = public_view(deal)
    before = public_block(table, pv, "ru")
    assert any("Анна" in line for line in before)
    table.seats[0] = Player(9, "Глеб", "ru")  # his seat taken over: the same deal
    after = public_block(table, pv, "ru")
    assert any("Глеб" in line for line in after) and not any("Анна" in line for line in after)
    offer = deal.offer_actions()[0]
    deal.apply(offer)
    answerer = deal.actor
    assert answerer is not None and isinstance(offer, Offer)
    deal.apply(Accept(answerer, False))
    quiet = public_block(table, public_view(deal), "ru")
    table.ui.offer_note = OfferNote(offer, answerer)
    noted = public_block(table, public_view(deal), "ru")
    refused = f"❌ {NAMES[answerer]} отвечает «нет»: предложение снято, Глеб ходит дальше."
    assert noted == [*quiet, refused]


def test_a_caller_may_change_the_lines_it_got() -> None:
    game, deal = game_in_play("game")
    table = table_of(game)
    lines = public_block(table, public_view(deal), "ru")
    lines.append("mine")
    assert public_block(table, public_view(deal), "ru")[-1] != "mine"
