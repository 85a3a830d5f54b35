"""Benchmark of a deal's analysis (run by hand, prints its figures).

    python tests/perf/analysis.py --deals 30 --seed 1 [--fresh]

Random deals driven to the play of each kind (a trick game, a misère, an all-pass; 3 or 4
players), played out with random legal cards (many value changes: the hard case), then
analysed by :func:`bot.preferans.analysis.analyse`: its solvers keep their transposition
tables from one position of the deal to the next. ``--fresh`` gives every question a
fresh solver instead, to show what the reuse saves. Times are CPU seconds per deal.
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

from bot.preferans import analysis
from bot.preferans.deal import Deal
from bot.preferans.solver import Goal, Position, Solver
from bot.preferans.solver import Solver as _Reused
from tests.engine.test_solver import _deal_in_play

__all__ = ["analysis_figures", "main"]

_KINDS = ("game", "misere", "all-pass")


class _Fresh(_Reused):
    """A solver that forgets everything between questions (for comparison)."""

    def __init__(self, goal: Goal, seat: object) -> None:
        super().__init__(goal, seat)  # type: ignore[arg-type]

    def solve(self, pos: Position, *, budget: int | None = None) -> int:
        return _Reused(self.goal, self.seat).solve(pos, budget=budget)

    def at_least(self, pos: Position, k: int, *, budget: int | None = None) -> bool:
        return _Reused(self.goal, self.seat).at_least(pos, k, budget=budget)

    def at_least_after(self, pos: Position, card: object, k: int) -> bool:
        return _Reused(self.goal, self.seat).at_least_after(pos, card, k)  # type: ignore[arg-type]


def _played(kind: str, rng: random.Random) -> Deal:
    deal = _deal_in_play(rng, kind, rng.choice((3, 4)))
    while not deal.is_over:
        deal.apply(rng.choice(deal.legal_actions()))
    return deal


def analysis_figures(seed: int, deals: int, *, fresh: bool = False) -> dict[str, list[float]]:
    """CPU seconds of each deal's analysis, per kind."""
    analysis.Solver = _Fresh if fresh else Solver  # type: ignore[misc]
    try:
        rng = random.Random(seed)
        out: dict[str, list[float]] = {}
        for kind in _KINDS:
            times = out[kind] = []
            for _ in range(deals):
                deal = _played(kind, rng)
                start = time.process_time()
                analysis.analyse(deal)
                times.append(time.process_time() - start)
        return out
    finally:
        analysis.Solver = Solver  # type: ignore[misc]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fresh", action="store_true", help="a fresh solver per question")
    args = parser.parse_args(argv)
    figures = analysis_figures(args.seed, args.deals, fresh=args.fresh)
    label = "fresh solver per question" if args.fresh else "tables reused"
    print(f"{label}\n| kind | deals | p50 ms | p90 ms | p99 ms | max ms | mean ms |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for kind, times in figures.items():
        ms = [t * 1000 for t in times]
        print(
            f"| {kind} | {len(ms)} | {_pct(ms, 0.5):.0f} | {_pct(ms, 0.9):.0f} | "
            f"{_pct(ms, 0.99):.0f} | {max(ms):.0f} | {statistics.mean(ms):.0f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
