"""What a seat knows, and layouts sampled from it: consistent with everything shown."""

from __future__ import annotations

import functools
import random

import pytest

from bot.preferans.actions import Play
from bot.preferans.cards import DECK, Card
from bot.preferans.deal import Deal, DealSettings, Phase
from bot.preferans.outcome import DealKind
from bot.preferans.robot import FAST, choose
from bot.preferans.robot.knowledge import SINK, knowledge_of
from bot.preferans.robot.sampling import sample_layout
from bot.preferans.seats import Seat
from bot.preferans.views import seat_view


def _positions(players: int, seeds: range, **options: str) -> list[tuple[Deal, Seat]]:
    """(deal copy, seat to move) at every card play of robot-played deals."""
    return [p for seed in seeds for p in _played(players, seed, tuple(sorted(options.items())))]


@functools.cache
def _played(
    players: int, seed: int, options: tuple[tuple[str, str], ...]
) -> tuple[tuple[Deal, Seat], ...]:
    """One robot-played deal's positions. The robot's play is most of these tests' CPU and
    the same seeds serve several tests: each deal is played once per process (the tests
    only read the copies)."""
    deal = Deal.new(
        DealSettings(players=players, **dict(options)),  # type: ignore[arg-type]
        Seat(seed % players),
        random.Random(seed),
    )
    rng = random.Random(seed)
    out: list[tuple[Deal, Seat]] = []
    while not deal.is_over:
        actor = deal.actor
        assert actor is not None
        if deal.phase is Phase.PLAY:
            out.append((deal.replay(), actor))
        deal.apply(choose(seat_view(deal, actor), rng, budget=FAST))
    return tuple(out)


def _check_layouts(deal: Deal, seat: Seat) -> None:
    view = seat_view(deal, seat)
    know = knowledge_of(view)
    truth = {s: deal.hand(s) for s in deal.active}
    # What is known is true; the truth is one of the layouts the knowledge allows.
    for s, hand in know.known.items():
        assert hand == truth[s]
    for s, size in know.hidden.items():
        assert size == len(truth[s])
        assert not ({c.suit for c in truth[s]} & know.voids[s]), "a void that is not one"
        assert truth[s] <= know.unknown
    for card, holders in know.only.items():
        place = next((int(s) for s, h in truth.items() if card in h), SINK)
        assert place in holders
    assert know.sink == len(know.unknown) - sum(know.hidden.values())
    rng = random.Random(1)
    for _ in range(5):
        hands, sink = sample_layout(know, rng)
        assert set(hands) == set(deal.active)
        for s in deal.active:
            assert len(hands[s]) == len(truth[s])
            if s in know.known:
                assert hands[s] == truth[s]
            else:
                assert not ({c.suit for c in hands[s]} & know.voids[s])
        dealt = [c for h in hands.values() for c in h] + list(sink)
        assert len(dealt) == len(set(dealt))
        assert len(sink) == know.sink
        assert {c for s in know.hidden for c in hands[s]} | set(sink) == know.unknown
        for card, holders in know.only.items():
            place = next((int(s) for s, h in hands.items() if card in h), SINK)
            assert place in holders


def test_layouts_match_what_the_seat_knows_three_players() -> None:
    positions = _positions(3, range(8))
    assert len(positions) > 100
    for deal, seat in positions:
        _check_layouts(deal, seat)


def test_layouts_match_what_the_seat_knows_four_players_rostov_talon() -> None:
    for deal, seat in _positions(4, range(6), raspasy_talon="closed"):
        _check_layouts(deal, seat)


def test_a_void_is_learnt_from_play() -> None:
    for deal, seat in _positions(3, range(10)):
        view = seat_view(deal, seat)
        know = knowledge_of(view)
        for trick in view.public.played_tricks:
            lead = trick.cards[0].card.suit
            for tc in trick.cards:
                if tc.seat in know.hidden and not tc.from_talon and tc.card.suit is not lead:
                    assert lead in know.voids[tc.seat]


def test_sampling_spreads_the_unknown_cards() -> None:
    """Over many layouts, each unknown card lands in more than one place."""
    for seed in range(60):
        deal = Deal.new(DealSettings(), Seat.S0, random.Random(seed))
        rng = random.Random(0)
        while not deal.is_over and deal.phase is not Phase.PLAY:
            deal.apply(choose(seat_view(deal, deal.actor or Seat.S0), rng, budget=FAST))
        if deal.phase is Phase.PLAY and deal.kind is DealKind.GAME:
            break
    else:
        pytest.fail("no played game in 60 deals")
    defender = next(s for s in deal.active if s != deal.declarer)
    know = knowledge_of(seat_view(deal, defender))
    places: dict[Card, set[int]] = {}
    rng = random.Random(2)
    for _ in range(200):
        hands, sink = sample_layout(know, rng)
        for s, hand in hands.items():
            for c in hand:
                places.setdefault(c, set()).add(int(s))
        for c in sink:
            places.setdefault(c, set()).add(SINK)
    spread = [c for c in know.unknown if c not in know.only]
    assert spread and all(len(places[c]) >= 2 for c in spread)
    assert set(DECK) >= set(places)


def test_search_only_sees_legal_cards() -> None:
    for deal, seat in _positions(3, range(3)):
        view = seat_view(deal, seat)
        action = choose(view, random.Random(0), budget=FAST)
        assert isinstance(action, Play) and action in view.legal
