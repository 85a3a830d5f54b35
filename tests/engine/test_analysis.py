"""A deal's analysis: best play from the start and the cards that changed its
value, checked against a plain minimax over the engine on short endings and on a hand
built so that one known card throws tricks away."""

from __future__ import annotations

import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.preferans import analysis
from bot.preferans.actions import Accept, ChooseDefence, Offer, Play
from bot.preferans.analysis import Analysis, Change, analyse
from bot.preferans.deal import Deal, Phase
from bot.preferans.outcome import DealKind, Defence
from bot.preferans.seats import Seat
from bot.preferans.solver import Goal, Position, goal_of, solve
from tests.engine.test_solver import _deal_in_play, brute, brute_card_values
from tests.engine_helpers import (
    P,
    W,
    bid,
    card,
    discard_and_declare,
    make_deal,
    play,
    random_deal,
    whist,
)

S0, S1, S2 = Seat(0), Seat(1), Seat(2)


def _played_out(seed: int, kind: str, players: int) -> Deal:
    rng = random.Random(seed)
    deal = _deal_in_play(rng, kind, players)
    while not deal.is_over:
        deal.apply(rng.choice(deal.legal_actions()))
    return deal


def _at_trick(deal: Deal, trick: int) -> tuple[Deal, list[Play]]:
    """A copy of ``deal`` at the first card of ``trick`` and the plays after it."""
    live = Deal(
        deal.settings,
        deal.dealer,
        [deal.initial_hand(Seat(s)) for s in range(deal.players)],
        deal.talon,
    )
    log = list(deal.log)
    while not (
        live.phase is Phase.PLAY
        and live.trick_number == trick
        and not [tc for tc in live.current_trick if not tc.from_talon]
    ):
        live.apply(log.pop(0))
    return live, [a for a in log if isinstance(a, Play)]


def _minimax_value(deal: Deal, goal: Goal, seat: Seat) -> int:
    if deal.is_over:
        return deal.tricks[seat]
    return deal.tricks[seat] + brute(Position.from_deal(deal), goal, seat)


def _reference(deal: Deal, trick: int) -> Analysis:
    """The analysis from ``trick`` on, every value by a plain minimax over every card."""
    live, plays = _at_trick(deal, trick)
    goal = goal_of(live)
    counted = live.active if goal is Goal.ALL_PASS else (live.declarer,)
    first = {s: _minimax_value(live, goal, s) for s in counted if s is not None}
    start = live.replay()
    changes = []
    for action in plays:
        seat = action.seat if goal is Goal.ALL_PASS else live.declarer
        assert seat is not None
        before = _minimax_value(live, goal, seat)
        number = live.trick_number
        live.apply(action)
        after = _minimax_value(live, goal, seat)
        if after != before:
            changes.append(Change(number, action.seat, action.card, after - before))
    if goal is Goal.ALL_PASS:
        best = tuple(first.get(Seat(s)) for s in range(deal.players))
    else:
        seat = start.declarer
        assert seat is not None
        value = first[seat]
        while not start.is_over:
            mover = start.to_act
            assert mover is not None
            values = brute_card_values(Position.from_deal(start), goal, seat)
            taken = start.tricks[seat]
            start.apply(Play(mover, min(c for c, v in values.items() if taken + v == value)))
        best = tuple(start.tricks)
    assert deal.kind is not None
    sits_out = deal.dealer if deal.players == 4 else None
    return Analysis(deal.kind, deal.declarer, best, tuple(changes), tuple(deal.tricks), sits_out)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    kind=st.sampled_from(("game", "misere", "all-pass", "all-pass-closed")),
    players=st.sampled_from((3, 4)),
    trick=st.sampled_from((8, 9, 10)),
)
@example(seed=41362, kind="game", players=3, trick=8)  # the value jumps by 2 on one card
def test_an_ending_matches_the_minimax(seed: int, kind: str, players: int, trick: int) -> None:
    deal = _played_out(seed, kind, players)
    assert analyse(deal, from_trick=trick) == _reference(deal, trick)


def test_a_whole_trick_game_adds_up_to_its_tricks() -> None:
    for seed in (0, 3):
        deal = _played_out(seed, "game", 3)
        result = analyse(deal)
        assert result is not None and deal.declarer is not None
        live, _ = _at_trick(deal, 1)
        # best play from the start: the exact value, on one line whose tricks add up to 10
        assert result.value == solve(Position.from_deal(live), Goal.TRICKS, deal.declarer)
        assert sum(t for t in result.best if t is not None) == 10
        # every trick the declarer gained or lost on the way is one of the changes
        total = result.best[deal.declarer]
        assert total is not None
        assert total + sum(c.delta for c in result.changes) == deal.tricks[deal.declarer]


def test_all_pass_changes_only_count_against_the_player_of_the_card() -> None:
    deal = _played_out(5, "all-pass", 3)
    result = analyse(deal, from_trick=4)
    assert result is not None and result.declarer is None and result.value is None
    assert all(c.delta > 0 for c in result.changes)


def _cold_nine_no_trumps() -> Deal:
    """Anna (seat 0) holds every spade and A♥ 7♥: 9 tricks if she cashes them, 1 if she
    gives up the lead with 7♥ first (Boris runs his eight clubs)."""
    deal = make_deal(
        {
            0: "AS KS QS JS 10S 9S 8S 7S AH 7H",
            1: "AC KC QC JC 10C 9C 8C 7C KH QH",
            2: "AD KD QD JD 10D 9D 8D JH 10H 9H",
        },
        "7D 8H",
        dealer=2,
    )
    bid(deal, 0, "6S")
    bid(deal, 1, "pass")
    bid(deal, 2, "pass")
    discard_and_declare(deal, "7D 8H", "9NT")
    whist(deal, 1, W)
    whist(deal, 2, P)
    deal.apply(ChooseDefence(S1, Defence.CLOSED))
    return deal


def test_a_known_card_that_throws_tricks_away() -> None:
    deal = _cold_nine_no_trumps()
    deal.apply(Play(S0, card("7H")))
    play(deal, 1, "KH")
    play(deal, 2, "9H")
    result = analyse(deal)
    assert result is not None
    assert result.kind is DealKind.GAME and result.value == 9
    assert result.best[0] == 9 and sum(t or 0 for t in result.best) == 10
    assert [c.to_json() for c in result.changes] == [
        {"trick": 1, "seat": 0, "card": "7H", "delta": -8}
    ]


def test_each_change_is_signed_for_the_reader_and_the_tricks_taken_are_kept() -> None:
    # Anna's 7♥ costs her 8 tricks; Boris, on lead with K♥, gives them back with Q♥ instead
    # of running his clubs (his own mistake: bad for him and Vera, good for Anna).
    deal = _cold_nine_no_trumps()
    for seat, code in ((0, "7H"), (1, "KH"), (2, "9H"), (1, "QH"), (2, "10H"), (0, "AH")):
        play(deal, seat, code)
    result = analyse(deal)
    assert result is not None and result.sits_out is None
    assert result.taken == (1, 1, 0)  # so far: Boris won trick 1, Anna trick 2
    assert [c.to_json() for c in result.changes] == [
        {"trick": 1, "seat": 0, "card": "7H", "delta": -8},
        {"trick": 2, "seat": 1, "card": "QH", "delta": 8},
    ]
    lost, gave = result.changes
    assert [result.gain(lost, s) for s in (S0, S1, S2)] == [-8, 8, 8]
    assert [result.gain(gave, s) for s in (S0, S1, S2)] == [8, -8, -8]


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    kind=st.sampled_from(("game", "misere", "all-pass")),
    players=st.sampled_from((3, 4)),
)
def test_a_change_is_a_loss_for_the_side_that_played_it(seed: int, kind: str, players: int) -> None:
    # Every change is a mistake: bad for the hand that played it and its partner, good
    # for the other side; none of the sitting-out dealer's, and on all-pass none of the
    # others'.
    deal = _played_out(seed, kind, players)
    result = analyse(deal, from_trick=8)
    assert result is not None and result.taken == tuple(deal.tricks)
    assert result.sits_out == (deal.dealer if players == 4 else None)
    for change in result.changes:
        for seat in map(Seat, range(players)):
            gain = result.gain(change, seat)
            if seat == result.sits_out or (result.declarer is None and seat != change.seat):
                assert gain is None
            elif result.declarer is None or (seat == result.declarer) == (
                change.seat == result.declarer
            ):
                assert gain == -abs(change.delta) != 0
            else:
                assert gain == abs(change.delta) != 0
    if result.declarer is None:
        # All-pass: the others can only lower a player's limit, so what he took is at most
        # his limit with best play plus what his own cards cost him.
        for i, limit in enumerate(result.best):
            seat = Seat(i)
            if limit is not None:
                own = sum(c.delta for c in result.changes if c.seat == seat)
                assert result.taken[seat] <= limit + own


def test_misere_changes_are_signed_the_other_way() -> None:
    # A misère value is the tricks the declarer is forced to take: +1 is bad for him.
    found = Analysis(
        DealKind.MISERE, S1, (0, 1, 0), (Change(3, S1, card("8H"), 1),), (0, 1, 9), None
    )
    assert [found.gain(found.changes[0], s) for s in (S0, S1, S2)] == [1, -1, 1]
    found = Analysis(
        DealKind.MISERE, S1, (0, 1, 0), (Change(3, S2, card("8H"), -1),), (0, 0, 10), None
    )
    assert [found.gain(found.changes[0], s) for s in (S0, S1, S2)] == [-1, 1, -1]


def test_best_play_changes_nothing_and_an_accepted_offer_ends_the_analysis() -> None:
    deal = _cold_nine_no_trumps()
    for code in ("AS", "KS", "QS"):
        play(deal, 0, code)
        play(deal, 1, "7C" if code == "AS" else ("8C" if code == "KS" else "9C"))
        play(deal, 2, "8D" if code == "AS" else ("9D" if code == "KS" else "10D"))
    deal.apply(Offer(S0, (6, 1, 0)))
    deal.apply(Accept(S1, True))
    deal.apply(Accept(S2, True))
    assert deal.is_over and deal.tricks == [9, 1, 0]
    result = analyse(deal)
    assert result is not None and result.taken == (9, 1, 0)
    assert result.to_json() == {"best": [9, 1, 0], "changes": []}


def test_a_deal_without_play_has_no_analysis() -> None:
    deal = random_deal(3, dealer=2)
    bid(deal, 0, "6S")
    bid(deal, 1, "pass")
    bid(deal, 2, "pass")
    held = sorted(deal.hand(S0))
    discard_and_declare(deal, f"{held[0].code} {held[1].code}", "6S")
    whist(deal, 1, P)
    whist(deal, 2, P)
    assert deal.is_over
    assert analyse(deal) is None


def test_a_card_that_keeps_the_value_costs_one_question(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hand that moves can only keep or worsen its side's value: whether it changed is
    one null-window question, not two."""
    deal = _played_out(3, "game", 3)
    asked: list[int] = []

    class Counting(analysis.Solver):
        def at_least(self, pos: Position, k: int, *, budget: int | None = None) -> bool:
            asked.append(k)
            return super().at_least(pos, k, budget=budget)

    monkeypatch.setattr(analysis, "Solver", Counting)
    monkeypatch.setattr(analysis, "_best_line", lambda deal, *_: tuple(deal.tricks))
    found = analyse(deal)
    assert found is not None
    cards = sum(isinstance(a, Play) for a in deal.log)
    assert (cards, len(found.changes)) == (30, 2)
    # at most one question for each card that kept it (none where the trick count left
    # settles it, nor after the last card): two each asked 42
    assert len(asked) == 25
