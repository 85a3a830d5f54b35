"""The computer player's card play searches from the first trick, within its budget."""

from __future__ import annotations

import random

import pytest

from bot.preferans.actions import Bid
from bot.preferans.cards import Card
from bot.preferans.deal import Deal, DealSettings, Phase
from bot.preferans.robot import STRONG, Budget, answer_offer, card_play, offering
from bot.preferans.robot.card_play import search_card
from bot.preferans.seats import Seat
from bot.preferans.solver import BudgetExceeded, Position, Solver
from bot.preferans.views import seat_view
from tests.engine.test_offers import all_to, game_deal, play_to_trick


class _Counting(Solver):
    """A solver that counts the layouts it solved and the ones it gave up on."""

    solved = 0
    failed = 0
    most = 0
    """The most positions one solver searched (one decision's, as it is made per decision)."""

    def card_values(self, pos: Position, *, budget: int | None = None) -> dict[Card, int]:
        try:
            values = super().card_values(pos, budget=budget)
        except BudgetExceeded:
            _Counting.failed += 1
            raise
        _Counting.solved += 1
        return values

    def solve(self, pos: Position, *, budget: int | None = None) -> int:
        try:
            return super().solve(pos, budget=budget)
        finally:
            _Counting.most = max(_Counting.most, self.nodes)


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> type[_Counting]:
    _Counting.solved = _Counting.failed = _Counting.most = 0
    monkeypatch.setattr(card_play, "Solver", _Counting)
    monkeypatch.setattr(offering, "Solver", _Counting)
    return _Counting


def _all_pass_first_lead(seed: int) -> Deal:
    """An all-pass deal at its first card (the talon opens the trick)."""
    deal = Deal.new(DealSettings(players=3), Seat(0), random.Random(seed))
    while deal.phase is not Phase.PLAY:
        deal.apply([a for a in deal.legal_actions() if isinstance(a, Bid)][-1])
    return deal


@pytest.mark.parametrize("seed", [2, 3])
def test_the_first_trick_is_searched_over_every_layout_dealt(
    seed: int, counting: type[_Counting]
) -> None:
    # Ten cards a hand and a talon card to follow: the hardest decision of an all-pass.
    # Before, layouts over 10,000 positions each were left out (and after two of them the
    # rules of thumb decided); now each one dealt is solved, only the last one cut when
    # the decision's positions run out.
    deal = _all_pass_first_lead(seed)
    actor = deal.actor
    assert actor is not None and deal.trick_number == 1
    card = search_card(seat_view(deal, actor), random.Random(1), STRONG)
    assert card is not None
    assert counting.failed <= 1
    assert counting.solved >= 8


def test_answering_an_offer_keeps_to_the_decisions_positions(
    counting: type[_Counting],
) -> None:
    # Eight layouts of up to 5,000 positions each, but 300 for the whole decision: the
    # answer stops dealing layouts once they are spent, as card play does.
    deal = game_deal(3)
    play_to_trick(deal, 2)
    leader = deal.actor
    assert leader is not None
    answerer = leader.next(3)
    deal.apply(all_to(deal, answerer))
    budget = Budget(samples=8, nodes=5000, total=300)
    answer_offer(seat_view(deal, answerer), random.Random(1), budget)
    # The solver counts the position at which it finds its budget spent: one over.
    assert 0 < counting.most <= 300 + 1
