"""Property tests: whole random deals under every rule option, checked at every step.

Each example deals a deck in an order hypothesis draws (tests/strategies.py), plays the
deal to the end choosing uniformly among the legal actions, and after every action
checks the invariants in tests/engine_helpers.py (cards accounted for, legal actions
consistent with ``can``, the referee's reading of the log, privacy of the views), tries a
sample of illegal actions (each must be refused and change nothing), and at the end
checks the outcome and that the record rebuilds the same deal.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.preferans.actions import (
    Action,
    Bid,
    ChooseDefence,
    Declare,
    Discard,
    IllegalAction,
    Play,
    Whist,
)
from bot.preferans.cards import DECK, shuffled_deck
from bot.preferans.contracts import LADDER
from bot.preferans.deal import Deal, DealSettings, Phase
from bot.preferans.outcome import DealKind, Defence, WhistAnswer
from bot.preferans.seats import Seat
from tests.engine_helpers import (
    assert_same_state,
    check_invariants,
    check_outcome,
    snapshot,
)
from tests.strategies import DealPlan, deals

PROFILE = settings(
    max_examples=100,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def all_candidate_actions(deal: Deal, rng: random.Random, n: int) -> list[Action]:
    """``n`` random actions of every kind for random seats (mostly illegal)."""
    kinds: list[Callable[[Seat], Action]] = [
        lambda seat: Bid(seat, rng.choice([None, *LADDER])),
        lambda seat: Discard(seat, (rng.choice(DECK), rng.choice(DECK))),
        lambda seat: Declare(seat, rng.choice(LADDER)),
        lambda seat: Whist(seat, rng.choice(list(WhistAnswer))),
        lambda seat: ChooseDefence(seat, rng.choice(list(Defence))),
        lambda seat: Play(seat, rng.choice(DECK)),
    ]
    seats = [Seat(s) for s in range(deal.players)]
    out = [kinds[rng.randrange(6)](seat) for seat in (rng.choice(seats) for _ in range(n))]
    if (to_act := deal.to_act) is not None:  # near misses: right seat and phase, wrong content
        out += [Play(to_act, rng.choice(DECK)), Bid(to_act, rng.choice(LADDER))]
        out += [kinds[i](to_act) for i in (3, 1, 2)]
    return out


def _check_illegal(
    deal: Deal, rng: random.Random, legal: list[Action], n: int, before: tuple[Any, ...]
) -> int:
    """Random actions that are not legal are refused and leave everything unchanged
    (``before``: the deal's snapshot)."""
    refused = 0
    for action in all_candidate_actions(deal, rng, n):
        if action in legal:
            assert deal.can(action)
            continue
        assert not deal.can(action), f"{action} accepted but not in legal_actions()"
        try:
            deal.apply(action)
        except IllegalAction as exc:
            assert str(exc), "an IllegalAction needs a message"
        else:  # pragma: no cover - a failure path
            raise AssertionError(f"{action} applied but not in legal_actions()")
        refused += 1
    assert snapshot(deal) == before, "a refused action changed the deal"
    return refused


def _play_whole_deal(
    plan: DealPlan, rng: random.Random, illegal_per_step: int, low_contracts: bool = False
) -> Deal:
    deal = plan.deal()
    steps = 0
    while True:
        # Where illegal actions are tried, one snapshot serves the invariants' view checks
        # and the "nothing changed" comparison (the views are most of this test's CPU).
        tries = illegal_per_step > 0 and not deal.is_over
        tries = tries and (steps % 3 == 0 or deal.phase is not Phase.PLAY)
        seen = snapshot(deal) if tries else None
        check_invariants(deal, seen)
        if deal.is_over:
            break
        legal = deal.legal_actions()
        assert legal
        if low_contracts and deal.phase is Phase.CONTRACT and rng.random() < 0.7:
            action = legal[0]  # the lowest contract allowed
        elif rng.random() < 0.3:
            actor = deal.actor
            assert actor is not None
            assert deal.legal_actions_for(actor) == legal
            action = rng.choice(deal.legal_actions_for(actor))
        else:
            action = rng.choice(legal)
        if seen is not None:
            _check_illegal(deal, rng, legal, illegal_per_step, seen)
        deal.apply(action)
        steps += 1
        assert steps < 200
    # over: nothing is legal any more, every action is refused
    assert deal.legal_actions() == []
    _check_illegal(deal, rng, [], 6, snapshot(deal))
    check_outcome(deal)
    out = deal.outcome()
    if out.tricks is not None:
        assert sum(out.tricks) == 10
        assert deal.trick_number == 10
    # the deal rebuilds from its log and from its record
    assert_same_state(deal, deal.replay())
    assert_same_state(deal, Deal.from_json(plan.settings, deal.to_json()))
    return deal


# The choices of play come from random.Random(a drawn seed), not from hypothesis's
# st.randoms(): through hypothesis every choice was a draw, a quarter of the test's CPU.
SEEDS = st.integers(0, 2**32 - 1)


@pytest.mark.slow
@PROFILE
@given(plan=deals(), play_seed=SEEDS)
def test_random_deals_keep_every_invariant(plan: DealPlan, play_seed: int) -> None:
    _play_whole_deal(plan, random.Random(play_seed), illegal_per_step=4)


@settings(
    max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(plan=deals(), play_seed=SEEDS, cut=st.floats(0, 1))
def test_unfinished_deal_round_trips(plan: DealPlan, play_seed: int, cut: float) -> None:
    """A deal stopped anywhere rebuilds from its record and goes on identically."""
    rng = random.Random(play_seed)
    deal = plan.deal()
    full = plan.deal()
    actions: list[Action] = []
    while not full.is_over:
        action = rng.choice(full.legal_actions())
        full.apply(action)
        actions.append(action)
    stop = int(cut * len(actions))
    for action in actions[:stop]:
        deal.apply(action)
    rebuilt = Deal.from_json(plan.settings, deal.to_json())
    assert_same_state(deal, rebuilt)
    assert_same_state(deal, deal.replay())
    for action in actions[stop:]:
        assert rebuilt.can(action)
        rebuilt.apply(action)
    assert_same_state(full, rebuilt)


def test_every_option_combination_plays_through() -> None:
    """Each combination of the options (and 3/4 players) once, without hypothesis.

    The sweep must meet all-pass, misère, played and unplayed games, open and closed
    defence and every whist answer.
    """
    seen: set[str] = set()
    rng = random.Random(2024)
    combos = itertools.product(
        (3, 4),
        (False, True),
        (False, True),
        (False, True),
        (False, True),
        ("lead", "closed"),
        (6, 7),
    )
    for i, (players, jumps, ten, stalingrad, half, talon, min_level) in enumerate(combos):
        plan = DealPlan(
            DealSettings(
                players=players,
                jumps=jumps,
                ten_checked=ten,
                stalingrad=stalingrad,
                half_whist=half,
                raspasy_talon=talon,
                min_level=min_level,
            ),
            Seat(i % players),
            tuple(shuffled_deck(random.Random(rng.randrange(2**32)))),
        )
        deal = _play_whole_deal(plan, rng, illegal_per_step=0, low_contracts=True)
        out = deal.outcome()
        seen.add(out.kind.value)
        if out.kind is DealKind.GAME:
            seen.add("played" if out.tricks is not None else "not played")
            if out.defence is not None:
                seen.add(out.defence.value)
            seen.update(a.value for a in out.whists.values())
    assert {"all-pass", "misere", "game", "played", "not played", "open", "closed"} <= seen
    assert {"whist", "pass", "half"} <= seen
