"""Benchmark: random legal deals per second on one core (run by hand, not by CI).

    python tests/perf/engine.py [--deals N] [--seed S]

Plays complete deals choosing uniformly among the legal actions, for 3 and 4
players under each convention, and prints deals per second and card plays per
second. Target: at least 1,000 complete random deals per second.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

from bot.preferans.actions import Play  # noqa: E402
from bot.preferans.conventions import CONVENTIONS, Rules  # noqa: E402
from bot.preferans.deal import Deal  # noqa: E402
from bot.preferans.game import settings_for  # noqa: E402
from bot.preferans.seats import Seat  # noqa: E402


def run(convention: str, players: int, deals: int, seed: int) -> tuple[float, float]:
    """Play ``deals`` random deals; returns (deals/s, plays/s)."""
    rng = random.Random(seed)
    settings = settings_for(Rules.preset(convention, 20), players, 6)
    plays = 0
    start = time.perf_counter()
    for i in range(deals):
        deal = Deal.new(settings, Seat(i % players), rng)
        while not deal.is_over:
            action = rng.choice(deal.legal_actions())
            deal.apply(action)
            if isinstance(action, Play):
                plays += 1
        deal.outcome()
    elapsed = time.perf_counter() - start
    return deals / elapsed, plays / elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--deals", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {args.deals} deals per row, one core")
    print(f"{'convention':<10} {'players':>7} {'deals/s':>9} {'plays/s':>9}")
    for name in CONVENTIONS:
        for players in (3, 4):
            dps, pps = run(name, players, args.deals, args.seed)
            print(f"{name:<10} {players:>7} {dps:>9.0f} {pps:>9.0f}")


if __name__ == "__main__":
    main()
