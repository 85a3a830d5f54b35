"""Strength levels of the computer player: budgets, seeded slips, always legal and sane."""

from __future__ import annotations

import random

from bot.preferans.actions import Bid, Declare, Discard, Whist
from bot.preferans.deal import Deal
from bot.preferans.outcome import WhistAnswer
from bot.preferans.robot import FAST, STRONG, choose
from bot.preferans.robot.levels import LEVEL_NAMES, choose_at, level_budget
from bot.preferans.seats import Seat
from bot.preferans.views import SeatView, seat_view
from tests.engine_helpers import bids, c, cards, make_deal, random_deal

HANDS = {
    0: "7S AS 10C KC JD KD 8H 9H KH AH",
    1: "9S JS 8C 9C JC 9D QD 7H 10H JH",
    2: "8S 10S QS KS 7C QC AC 8D 10D QH",
}


def whist_position() -> SeatView:
    """6♥ by seat 0, seat 1 passed: seat 2 (one ace, about two tricks) is to answer."""
    deal = make_deal(HANDS, "AD 7D", dealer=0)
    bids(deal, (1, "pass"), (2, "pass"), (0, "6S"))
    deal.apply(Discard(Seat(0), (cards("7S")[0], cards("7D")[0])))
    deal.apply(Declare(Seat(0), c("6H")))
    deal.apply(Whist(Seat(1), WhistAnswer.PASS))
    return seat_view(deal, Seat(2))


def slipping(seed: int) -> bool:
    """Whether a slip generator seeded ``seed`` lets a beginner slip (its first draw)."""
    return random.Random(seed).random() < 0.25


def test_levels_strongest_first_and_their_budgets() -> None:
    assert LEVEL_NAMES == ("strong", "amateur", "beginner")
    assert level_budget("strong") is STRONG
    assert level_budget("no such level") is STRONG
    amateur, beginner = level_budget("amateur"), level_budget("beginner")
    # weaker: no judging of bids by layouts, fewer and cheaper layouts for the cards
    assert (amateur.judge, beginner.judge) == (0, 0)
    assert STRONG.samples > amateur.samples > beginner.samples
    assert STRONG.total > amateur.total > beginner.total
    # never above the table's own budget
    cheap = level_budget("beginner", FAST)
    assert (cheap.samples, cheap.nodes, cheap.total) == (3, 400, 1200)
    assert level_budget("strong", FAST) is FAST


def test_a_beginner_slips_on_a_whist_the_strong_player_half_whists() -> None:
    view = whist_position()
    strong = choose(view, random.Random(0), budget=FAST)
    assert strong == Whist(Seat(2), WhistAnswer.HALF)
    assert slipping(1) and not slipping(0)
    # a slip: counted by aces, one ace is no whist on 6
    slip = choose_at(view, random.Random(0), "beginner", random.Random(1), FAST)
    assert slip == Whist(Seat(2), WhistAnswer.PASS)
    # no slip drawn: the beginner answers as the strong player does
    assert choose_at(view, random.Random(0), "beginner", random.Random(0), FAST) == strong
    # the strong player never slips
    assert choose_at(view, random.Random(0), "strong", random.Random(1), FAST) == strong


def test_slips_are_seeded_and_bounded() -> None:
    view = whist_position()
    strong = choose(view, random.Random(0), budget=FAST)

    def slips(level: str) -> int:
        return sum(
            choose_at(view, random.Random(0), level, random.Random(seed), FAST) != strong
            for seed in range(400)
        )

    beginner, amateur = slips("beginner"), slips("amateur")
    assert 60 <= beginner <= 140  # a quarter of 400
    assert 20 <= amateur <= 60  # a tenth
    assert slips("strong") == 0
    # the same seeds decide the same, whatever the global generator holds
    random.seed(12345)
    assert slips("beginner") == beginner


def _play_out(deal: Deal, level: str, seed: int) -> None:
    """Every seat plays ``level`` to the end; checks each decision against the strong one."""
    move = 0
    while not deal.is_over:
        actor = deal.actor
        assert actor is not None
        view = seat_view(deal, actor)
        slip_rng = random.Random(f"{seed}:{move}")
        action = choose_at(view, random.Random(move), level, slip_rng, FAST)
        assert action in view.legal
        if isinstance(action, Bid):
            strong = choose(view, random.Random(move), budget=FAST)
            if action != strong:  # a slip in the auction: a pass or a modest game
                contract = action.contract
                assert contract is None or (not contract.misere and contract.level <= 7)
        deal.apply(action)
        move += 1


def test_weaker_players_stay_legal_and_never_bid_absurdly() -> None:
    for seed in range(6):
        for level in ("beginner", "amateur"):
            _play_out(random_deal(seed, dealer=seed % 3), level, seed)
