"""The strength levels against the strong player, and the «💡» hint's time. Run by hand.

    python tests/perf/levels.py --deals 100         # duplicate deals, then hint timings
    python tests/perf/levels.py --full --deals 40 --levels beginner --hints 0
    python tests/perf/levels.py --deals 4 --hints 1    # a smoke run

**Duplicate deals.** Every deal is played by three strong players (the reference), then
with one seat, in turn each, given to a weaker level; the seat's gain is its result in
whists (one deal scored alone, Сочинка, pulka points as gora, as ``strength.py``) minus
the same seat's in the reference. Card play thinks at ``FAST`` for every level (capped
by it), the strong player judges the auction and contract at the full ``STRONG.judge``;
with ``--full`` every level has its own budget as in the bot (the strong one ``STRONG``).

**Hints.** The CPU time of :func:`bot.preferans.robot.hints.hint` (the strong budget) at
every decision of a few deals played by the strong player, by kind of decision.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.preferans.cards import Card  # noqa: E402
from bot.preferans.deal import Deal, DealSettings  # noqa: E402
from bot.preferans.robot import FAST, STRONG, Budget  # noqa: E402
from bot.preferans.robot.hints import hint  # noqa: E402
from bot.preferans.robot.levels import choose_at  # noqa: E402
from bot.preferans.seats import Seat  # noqa: E402
from bot.preferans.views import seat_view  # noqa: E402
from tests.perf.players import mean_ci, pct  # noqa: E402
from tests.perf.strength import deal_result  # noqa: E402

BASE = replace(FAST, judge=STRONG.judge)


def _deal(index: int, seed: int) -> Deal:
    rng = random.Random(seed * 100003 + index)
    order = list(range(32))
    rng.shuffle(order)
    deck = [Card(c) for c in order]
    hands = [deck[0:10], deck[10:20], deck[20:30]]
    return Deal(DealSettings(players=3), Seat(index % 3), hands, deck[30:32])


def _play(index: int, seed: int, levels: dict[int, str], base: Budget = BASE) -> tuple[float, ...]:
    deal = _deal(index, seed)
    move = 0
    while not deal.is_over:
        actor = deal.actor
        assert actor is not None
        view = seat_view(deal, actor)
        level = levels.get(int(actor), "strong")
        slip = random.Random(f"{seed}:{index}:slip:{move}")
        deal.apply(choose_at(view, random.Random(f"{seed}:{index}:{move}"), level, slip, base))
        move += 1
    return deal_result(deal)


def duplicate(deals: int, seed: int, levels: list[str], base: Budget) -> None:
    print(f"Duplicate deals, {deals} × 3 seats, against three strong players ({base}):")
    for level in levels:
        gains: list[float] = []
        start = time.process_time()
        for i in range(deals):
            reference = _play(i, seed, {}, base)
            for seat in range(3):
                gains.append(_play(i, seed, {seat: level}, base)[seat] - reference[seat])
        mean, half = mean_ci(gains)
        changed = sum(1 for g in gains if g != 0)
        spent = time.process_time() - start
        print(
            f"  {level:8s}: {mean:+6.2f} ± {half:4.2f} whists per deal and seat "
            f"({changed} of {len(gains)} seat-deals changed; {spent:.0f} s CPU)"
        )


def hint_times(deals: int, seed: int) -> None:
    times: dict[str, list[float]] = {}
    for i in range(deals):
        deal = _deal(10_000 + i, seed)
        while not deal.is_over:
            actor = deal.actor
            assert actor is not None
            view = seat_view(deal, actor)
            start = time.process_time()
            found = hint(view)
            kind = type(found.action).__name__
            times.setdefault(kind, []).append(time.process_time() - start)
            deal.apply(found.action)
    every = [t for ts in times.values() for t in ts]
    print(f"Hint time ({len(every)} hints, {deals} deals):")
    for kind, ts in [("all", every), *sorted(times.items())]:
        print(
            f"  {kind:13s} n={len(ts):4d}  p50 {pct(ts, 0.5) * 1000:6.0f} ms  "
            f"p99 {pct(ts, 0.99) * 1000:6.0f} ms  max {max(ts) * 1000:6.0f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=60)
    parser.add_argument("--hints", type=int, default=6, help="deals played for the hint times")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--levels", default="amateur,beginner", help="the levels measured")
    parser.add_argument("--full", action="store_true", help="the bot's budgets, not FAST")
    args = parser.parse_args()
    if args.deals:
        duplicate(args.deals, args.seed, args.levels.split(","), STRONG if args.full else BASE)
    if args.hints:
        hint_times(args.hints, args.seed)


if __name__ == "__main__":
    main()
