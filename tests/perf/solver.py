"""Benchmark of the exact open-card solver (run by hand; prints its figures).

    python tests/perf/solver.py --deals 100 --seed 1

Full 30-card deals come from the engine's shuffle (the first hand leads): a trick
game with a random trump and with no trump (the declarer a random active seat), a
misère and an all-pass with the talon leading tricks 1 and 2; then, half as many of
each, every first card's value (what card play asks of each sampled layout). "Last 5 tricks" are
positions with five cards in each hand, dealt at random, every goal in turn. Each
position is solved by a fresh :class:`Solver`, so nothing is learnt across positions.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bot.preferans.cards import Card, Suit
from bot.preferans.deal import Deal, DealSettings
from bot.preferans.seats import Seat
from bot.preferans.solver import Goal, Position, Solver

__all__ = ["solver_figures", "main"]

_KINDS = ("trump", "no-trump", "misere", "all-pass")


def _full_position(kind: str, rng: random.Random) -> tuple[Position, Goal, Seat]:
    players = rng.choice((3, 4))
    deal = Deal.new(DealSettings(players=players), Seat(rng.randrange(players)), rng)
    order = (deal.active[0], deal.active[1], deal.active[2])
    hands = {s: deal.hand(s) for s in order}
    seat = rng.choice(order)
    if kind == "all-pass":
        owner = deal.dealer if players == 4 else None
        pos = Position(hands, order, order[0], (), None, deal.talon, owner)
        return pos, Goal.ALL_PASS, seat
    trump = Suit(rng.randrange(4)) if kind == "trump" else None
    goal = Goal.MISERE if kind == "misere" else Goal.TRICKS
    return Position(hands, order, order[0], (), trump), goal, seat


def _small_position(tricks: int, rng: random.Random, index: int) -> tuple[Position, Goal, Seat]:
    deck = list(Card)
    rng.shuffle(deck)
    order = (Seat(0), Seat(1), Seat(2))
    hands = {s: frozenset(deck[i * tricks : (i + 1) * tricks]) for i, s in enumerate(order)}
    goal = list(Goal)[index % 3]
    trump = Suit(rng.randrange(4)) if goal is Goal.TRICKS and rng.random() < 0.8 else None
    return Position(hands, order, rng.choice(order), (), trump), goal, rng.choice(order)


def _timed(pos: Position, goal: Goal, seat: Seat, values: bool = False) -> tuple[float, int]:
    """CPU seconds (this process only, so other jobs on the machine matter less) and
    positions searched for one solve (``values``: every first card's value, as card
    play asks) by a fresh solver."""
    solver = Solver(goal, seat)
    start = time.process_time()
    if values:
        solver.card_values(pos)
    else:
        solver.solve(pos)
    return time.process_time() - start, solver.nodes


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def solver_figures(seed: int, deals: int) -> dict[str, float]:
    """CPU milliseconds per solve (p50/p99/max per kind), positions searched (p50/max,
    independent of the machine's load) and positions per CPU second."""
    rng = random.Random(seed)
    figures: dict[str, float] = {}
    total_time = 0.0
    total_nodes = 0
    for kind in _KINDS:
        times = []
        counts: list[float] = []
        for _ in range(deals):
            spent, nodes = _timed(*_full_position(kind, rng))
            times.append(spent * 1000)
            counts.append(nodes)
            total_time += spent
            total_nodes += nodes
        figures[f"full {kind} p50 ms"] = statistics.median(times)
        figures[f"full {kind} p99 ms"] = _pct(times, 0.99)
        figures[f"full {kind} max ms"] = max(times)
        figures[f"full {kind} p50 positions"] = statistics.median(counts)
        figures[f"full {kind} max positions"] = max(counts)
    for kind in _KINDS:
        # Card play's question at the first lead: the value of every card.
        times = []
        for _ in range(max(1, deals // 2)):  # one at least: players.py --quick asks for 1
            spent, nodes = _timed(*_full_position(kind, rng), values=True)
            times.append(spent * 1000)
            total_time += spent
            total_nodes += nodes
        figures[f"values {kind} p50 ms"] = statistics.median(times)
        figures[f"values {kind} max ms"] = max(times)
    small = []
    for i in range(deals * 4):
        spent, nodes = _timed(*_small_position(5, rng, i))
        small.append(spent * 1000)
        total_time += spent
        total_nodes += nodes
    figures["last 5 tricks p50 ms"] = statistics.median(small)
    figures["last 5 tricks p99 ms"] = _pct(small, 0.99)
    figures["positions per second"] = total_nodes / max(total_time, 1e-9)
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100, help="full deals per kind")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", action="store_true", help="cProfile the run")
    args = parser.parse_args(argv)
    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.runcall(solver_figures, args.seed, args.deals)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
        return
    for name, value in solver_figures(args.seed, args.deals).items():
        print(f"{name:>30}: {value:10.1f}")


if __name__ == "__main__":
    main()
