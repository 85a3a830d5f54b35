"""The computer player: legal at every decision, blind to hidden cards, deterministic."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from bot.preferans.actions import Action, Play
from bot.preferans.cards import Card
from bot.preferans.conventions import Rules
from bot.preferans.deal import Deal, Phase
from bot.preferans.game import Game
from bot.preferans.outcome import DealKind
from bot.preferans.robot import Budget, choose
from bot.preferans.robot.baseline import random_player, rule_player
from bot.preferans.seats import Seat
from bot.preferans.views import SeatView, seat_view

CHEAP = Budget(samples=1, nodes=150, total=150)

Player = Callable[[SeatView, random.Random], Action]

CONFIGS: list[tuple[str, int, dict[str, Any]]] = [
    ("sochi", 3, {}),
    ("sochi", 4, {}),
    ("leningrad", 3, {"jumps": True}),
    ("leningrad", 4, {"stalingrad": True, "ten_checked": True}),
    ("rostov", 3, {"half_whist": False, "raspasy_exit": [6, 7, 7]}),
    ("rostov", 4, {"jumps": True, "raspasy_exit": [7]}),
    ("sochi", 3, {"stalingrad": True, "raspasy_exit": [7, 8]}),
    ("leningrad", 3, {"ten_checked": True, "whist_type": "greedy"}),
]


def robot(view: SeatView, rng: random.Random) -> Action:
    return choose(view, rng, budget=CHEAP)


def play_deal(deal: Deal, players: list[Player], rng: random.Random) -> list[Action]:
    """Play ``deal`` out; every action must be legal for the seat that takes it."""
    taken: list[Action] = []
    while not deal.is_over:
        actor = deal.actor
        assert actor is not None
        view = seat_view(deal, actor)
        action = players[int(actor)](view, rng)
        assert action in view.legal, f"{action} is not legal in {deal.phase}"
        assert deal.can(action)
        deal.apply(action)
        taken.append(action)
    return taken


def run_game(
    convention: str,
    seats: int,
    options: dict[str, Any],
    players: list[Player],
    seed: int,
    deals: int,
) -> Game:
    """Up to ``deals`` deals of a pulka, every action legal and applied through the game."""
    game = Game(Rules.preset(convention, pulka=10, **options), [f"p{i}" for i in range(seats)])
    rng = random.Random(seed)
    deal_rng = random.Random(seed + 1000)
    while not game.over and game.deal_count < deals:
        deal = game.start_deal(deal_rng)
        while game.current is not None:
            actor = deal.actor
            assert actor is not None
            view = seat_view(deal, actor)
            action = players[int(actor)](view, rng)
            assert action in view.legal, f"{action} is not legal in {deal.phase}"
            game.apply(action)
    return game


@pytest.mark.parametrize(("convention", "seats", "options"), CONFIGS)
def test_every_decision_is_legal_robots_only(
    convention: str, seats: int, options: dict[str, Any]
) -> None:
    game = run_game(convention, seats, options, [robot] * seats, seed=len(options), deals=8)
    # a pulka to 10 is not over in 8 deals in any of these configurations
    assert len(game.finished_deals) == 8 and not game.over


@pytest.mark.parametrize(("convention", "seats", "options"), CONFIGS)
def test_every_decision_is_legal_among_random_players(
    convention: str, seats: int, options: dict[str, Any]
) -> None:
    """Random neighbours reach what robots rarely bid: misères, tens, half-whists."""
    kinds: set[DealKind] = set()
    for seed in range(3):
        players: list[Player] = [random_player] * seats
        players[seed % seats] = robot
        players[(seed + 1) % seats] = rule_player if seed else random_player
        game = run_game(convention, seats, options, players, seed=seed, deals=6)
        kinds.update(f.outcome.kind for f in game.finished_deals)
    assert DealKind.GAME in kinds


GLANCE = Budget(samples=1, nodes=10, total=10)
"""Card play that solves only the last tricks: what is legal does not depend on how deep
the search looks, and the bidding, talon and whisting are the same at any budget."""


def glance(view: SeatView, rng: random.Random) -> Action:
    return choose(view, rng, budget=GLANCE)


# The first configuration at the test budget, 400 deals (40 seeds of 10), in four parts of
# ten seeds so that xdist can run them side by side; the others at a glance, 160 deals
# each (at 400 deals and the test budget the eight took ~140 s of CPU).
MANY_DEALS = [
    pytest.param(
        *CONFIGS[0], range(start, start + 10), id=f"sochi-3-options0-seeds{start}-{start + 9}"
    )
    for start in (0, 10, 20, 30)
] + [
    pytest.param(*config, range(16), id=f"{config[0]}-{config[1]}-options{i}")
    for i, config in enumerate(CONFIGS)
    if i
]


@pytest.mark.slow
@pytest.mark.parametrize(("convention", "seats", "options", "seeds"), MANY_DEALS)
def test_every_decision_is_legal_many_deals(
    convention: str, seats: int, options: dict[str, Any], seeds: range
) -> None:
    first = (convention, seats, options) == CONFIGS[0]
    player = robot if first else glance
    for seed in seeds:
        players: list[Player] = [player] * seats
        if seed % 2:
            players[seed % seats] = random_player
        run_game(convention, seats, options, players, seed=seed, deals=10)


def _actions(seed: int) -> list[Action]:
    deal = Deal.new(
        Game(Rules.preset(), ["a", "b", "c"]).next_settings(), Seat.S0, random.Random(seed)
    )
    return play_deal(deal, [robot] * 3, random.Random(7))


def test_same_seed_same_decisions() -> None:
    for seed in range(6):
        assert _actions(seed) == _actions(seed)


def test_choose_refuses_a_view_with_nothing_to_decide() -> None:
    deal = Deal.new(
        Game(Rules.preset(), ["a", "b", "c"]).next_settings(), Seat.S0, random.Random(1)
    )
    idle = next(s for s in (Seat.S0, Seat.S1, Seat.S2) if s != deal.actor)
    with pytest.raises(ValueError):
        choose(seat_view(deal, idle), random.Random(1))


# ------------------------------------------------------------------ privacy


def _swap_hidden(deal: Deal, seat: Seat, rng: random.Random) -> Deal | None:
    """The same deal with unplayed cards of one suit swapped between two hands ``seat``
    cannot see, replayed move by move: every public fact stays the same."""
    view = seat_view(deal, seat)
    visible = view.visible_cards()
    hidden = [
        s
        for s in deal.active
        if s != seat and s not in view.controlled and s not in deal.open_hands
    ]
    if len(hidden) < 2:
        return None
    a, b = hidden
    pairs = [
        (x, y)
        for x in deal.hand(a)
        for y in deal.hand(b)
        if x.suit is y.suit and x not in visible and y not in visible
    ]
    if not pairs:
        return None
    x, y = rng.choice(pairs)
    hands = [set(deal.initial_hand(Seat(s))) for s in range(deal.players)]
    hands[a].remove(x)
    hands[a].add(y)
    hands[b].remove(y)
    hands[b].add(x)
    other = Deal(deal.settings, deal.dealer, hands, deal.talon)
    for action in deal.log:
        other.apply(action)
    return other


@pytest.mark.parametrize("players", [3, 4])
def test_decisions_never_depend_on_hidden_cards(players: int) -> None:
    """Swap hidden cards for other ones consistent with the play: same view, same choice."""
    rng = random.Random(players)
    checked = 0
    for seed in range(12):
        settings = Game(Rules.preset(), ["a", "b", "c", "d"][:players]).next_settings()
        deal = Deal.new(settings, Seat(seed % players), random.Random(seed))
        while not deal.is_over:
            actor = deal.actor
            assert actor is not None
            view = seat_view(deal, actor)
            other = _swap_hidden(deal, actor, rng)
            action = choose(view, random.Random(seed), budget=CHEAP)
            if other is not None:
                assert seat_view(other, actor) == view
                assert other.hand(actor) == deal.hand(actor)
                assert choose(seat_view(other, actor), random.Random(seed), budget=CHEAP) == action
                checked += 1
            deal.apply(action)
    assert checked > 100


def test_a_view_holds_no_hidden_card() -> None:
    """What choose() is given: the seat's view, which the engine keeps free of hidden cards."""
    deal = Deal.new(
        Game(Rules.preset(), ["a", "b", "c"]).next_settings(), Seat.S0, random.Random(3)
    )
    while not deal.is_over:
        actor = deal.actor
        assert actor is not None
        view = seat_view(deal, actor)
        others: set[Card] = set()
        for s in deal.active:
            if s != actor and s not in view.controlled and s not in deal.open_hands:
                others |= deal.hand(s)
        assert not (view.visible_cards() & others)
        deal.apply(choose(view, random.Random(0), budget=CHEAP))


def test_finished_tricks_are_in_the_public_view() -> None:
    played = 0
    for seed in range(6):
        deal = Deal.new(
            Game(Rules.preset(), ["a", "b", "c"]).next_settings(), Seat.S0, random.Random(seed)
        )
        play_deal(deal, [robot] * 3, random.Random(0))
        assert deal.phase is Phase.DONE
        tricks = seat_view(deal, Seat.S1).public.played_tricks
        if not deal.trick_number:
            assert tricks == ()
            continue
        played += 1
        assert [t.number for t in tricks] == list(range(1, 11))
        plays = [a.card for a in deal.log if isinstance(a, Play)]
        assert [tc.card for t in tricks for tc in t.cards if not tc.from_talon] == plays
        assert sum(1 for t in tricks for s in [t.winner] if s is not None) == 10
    assert played
