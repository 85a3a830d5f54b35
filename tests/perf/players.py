"""Computer players benchmark: speed, strength and behaviour. Run by hand.

    python tests/perf/players.py                     # the figures of tests/perf/README.md
    python tests/perf/players.py --quick             # a smoke run

Prints, on fixed seeds and one core:
- decision time per action (p50/p99) and per whole deal of the computer player, in CPU
  time of this process (so other jobs on a shared machine do not inflate it);
- solver figures from tests/perf/solver.py when that benchmark is present;
- strength: settlement per deal (whists) of one computer player against two baseline
  players (random legal; rule of thumb), whole pulkas of Сочинка, 95% confidence
  intervals over pulkas;
- behaviour of computer-only tables: all-pass share, misères per 100 deals, share of
  whisted games, share of contracts made.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.preferans.actions import Action  # noqa: E402
from bot.preferans.conventions import Rules  # noqa: E402
from bot.preferans.game import Game  # noqa: E402
from bot.preferans.outcome import DealKind, DealOutcome, WhistAnswer  # noqa: E402
from bot.preferans.robot import FAST, STRONG, Budget, choose  # noqa: E402
from bot.preferans.robot.baseline import random_player, rule_player  # noqa: E402
from bot.preferans.views import SeatView, seat_view  # noqa: E402

Player = Callable[[SeatView, random.Random], Action]

MAX_DEALS = 200
"""A pulka not over by then is stopped (Sochi: unclosed pulkas go to gora); none was."""


def robot(budget: Budget) -> Player:
    def play(view: SeatView, rng: random.Random) -> Action:
        return choose(view, rng, budget=budget)

    return play


@dataclass
class Tally:
    """Behaviour and timing of the deals played."""

    deals: int = 0
    all_pass: int = 0
    misere: int = 0
    misere_made: int = 0
    games: int = 0
    whisted: int = 0
    made: int = 0
    decision_times: list[float] = field(default_factory=list)
    deal_times: list[float] = field(default_factory=list)

    def add(self, outcome: DealOutcome) -> None:
        self.deals += 1
        if outcome.kind is DealKind.ALL_PASS:
            self.all_pass += 1
        elif outcome.kind is DealKind.MISERE:
            self.misere += 1
            declarer = outcome.declarer
            if outcome.tricks is not None and declarer is not None:
                self.misere_made += outcome.tricks[declarer] == 0
        else:
            self.games += 1
            contract = outcome.contract
            declarer = outcome.declarer
            assert contract is not None and declarer is not None
            if any(a is WhistAnswer.WHIST for a in outcome.whists.values()):
                self.whisted += 1
            if outcome.tricks is None or outcome.tricks[declarer] >= contract.level:
                self.made += 1


def play_pulka(
    rules: Rules, players: list[Player], seed: int, tally: Tally, timed: set[int], max_deals: int
) -> Game:
    """One pulka to its end (or ``max_deals``, then stopped); times the seats in ``timed``."""
    game = Game(rules, [f"p{i}" for i in range(len(players))])
    rng = random.Random(seed)
    deal_rng = random.Random(seed * 7919 + 1)
    while not game.over:
        if game.deal_count >= max_deals:
            game.stop()
            break
        deal = game.start_deal(deal_rng)
        spent = 0.0
        while game.current is not None:
            actor = deal.actor
            assert actor is not None
            view = seat_view(deal, actor)
            start = time.process_time()
            action = players[int(actor)](view, rng)
            took = time.process_time() - start
            if int(actor) in timed:
                tally.decision_times.append(took)
                spent += took
            game.apply(action)
        if timed:
            tally.deal_times.append(spent)
        tally.add(game.finished_deals[-1].outcome)
    return game


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def mean_ci(values: list[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, float("nan")
    return mean, 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def behaviour(label: str, tally: Tally) -> None:
    d = max(1, tally.deals)
    g = max(1, tally.games)
    print(
        f"  {label}: {tally.deals} deals; all-pass {100 * tally.all_pass / d:.1f}%; "
        f"misère {100 * tally.misere / d:.1f} per 100 deals "
        f"({tally.misere_made}/{tally.misere} made); games {100 * tally.games / d:.1f}%, "
        f"whisted {100 * tally.whisted / g:.1f}% of games, made {100 * tally.made / g:.1f}%"
    )


def timing(label: str, tally: Tally) -> None:
    t = tally.decision_times
    dt = tally.deal_times
    print(
        f"  {label}: {len(t)} decisions, p50 {1000 * pct(t, 0.5):.1f} ms, "
        f"p99 {1000 * pct(t, 0.99):.0f} ms, max {1000 * max(t):.0f} ms; "
        f"per deal (all three seats) p50 {pct(dt, 0.5):.2f} s, p99 {pct(dt, 0.99):.2f} s, "
        f"max {max(dt):.2f} s"
    )


def computer_tables(
    convention: str, players: int, budget: Budget, deals: int, seed: int, pulka: int = 10
) -> Tally:
    """``deals`` deals of computer-only pulkas (a new pulka whenever one ends)."""
    tally = Tally()
    rules = Rules.preset(convention, pulka=pulka)
    p = 0
    while tally.deals < deals:
        left = deals - tally.deals
        play_pulka(
            rules, [robot(budget)] * players, seed + p, tally, set(range(players)), max_deals=left
        )
        p += 1
    return tally


def strength(
    opponent: Player, budget: Budget, pulkas: int, seed: int
) -> tuple[float, float, int, int]:
    """Settlement per deal of one computer player against two ``opponent``s: mean, 95%
    half-width, deals, pulkas stopped at ``MAX_DEALS``."""
    rules = Rules.preset("sochi", pulka=10)
    per_deal: list[float] = []
    deals = stopped = 0
    tally = Tally()
    for p in range(pulkas):
        seat = p % 3
        players: list[Player] = [opponent] * 3
        players[seat] = robot(budget)
        game = play_pulka(rules, players, seed + p, tally, set(), max_deals=MAX_DEALS)
        result = game.settlement()
        assert result is not None
        n = len(game.finished_deals)
        deals += n
        stopped += game.stopped
        per_deal.append(float(result[seat]) / n)
    mean, half = mean_ci(per_deal)
    return mean, half, deals, stopped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--full-deals", type=int, default=60, help="deals timed on full budget")
    parser.add_argument("--deals", type=int, default=400, help="deals per behaviour table")
    parser.add_argument("--pulkas", type=int, default=100, help="pulkas per strength match")
    parser.add_argument("--solver-deals", type=int, default=10, help="full deals per kind")
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    parser.add_argument(
        "--parts",
        default="timing,solver,behaviour,strength",
        help="comma-separated: timing, solver, behaviour, strength (or strength-random, "
        "strength-rule); separate processes can run parts side by side",
    )
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    if args.quick:
        args.full_deals, args.deals, args.pulkas, args.solver_deals = 4, 20, 4, 1
    seed = args.seed
    print(f"Python {sys.version.split()[0]}; seed {seed}")

    if "timing" in parts:
        print(f"Computer-only tables, Сочинка, 3 players, full budget {STRONG}:")
        full = computer_tables("sochi", 3, STRONG, args.full_deals, seed)
        timing("decision time", full)
        behaviour("behaviour", full)
    if "solver" in parts:
        solver_part(seed, args.solver_deals)
    if "behaviour" in parts:
        behaviour_part(seed, args.deals)
    opponents: list[tuple[str, Player]] = [
        (name, player)
        for key, name, player in (
            ("random", "random legal", random_player),
            ("rule", "rule of thumb", rule_player),
        )
        if "strength" in parts or f"strength-{key}" in parts
    ]
    if opponents:
        strength_part(seed, args.pulkas, opponents)


def solver_part(seed: int, deals: int) -> None:
    try:
        from tests.perf.solver import solver_figures
    except ImportError:
        print("Solver figures: tests/perf/solver.py has no solver_figures() yet")
    else:
        print(f"Solver figures (tests/perf/solver.py, {deals} full deals per kind):")
        for name, value in solver_figures(seed, deals).items():
            print(f"  {name}: {value:.1f}")


def behaviour_part(seed: int, deals: int) -> None:
    print(f"Behaviour of computer-only tables, cheap budget {FAST}:")
    for i, convention in enumerate(("sochi", "leningrad", "rostov")):
        for players in (3, 4):
            tally = computer_tables(
                convention, players, FAST, deals, seed + 1000 * (2 * i + players)
            )
            behaviour(f"{convention} {players}p", tally)
            if convention == "sochi" and players == 3:
                timing("decision time", tally)


def strength_part(seed: int, pulkas: int, opponents: list[tuple[str, Player]]) -> None:
    print("Strength: one computer player (cheap budget) against two baseline players,")
    print("Сочинка pulkas of 10, the computer's seat rotating; settlement in whists per deal,")
    print("mean over pulkas ± 95% CI:")
    for name, opponent in opponents:
        mean, half, deals, stopped = strength(opponent, FAST, pulkas, seed)
        print(
            f"  vs two {name}: {mean:+.2f} ± {half:.2f} ({pulkas} pulkas, {deals} deals, "
            f"{stopped} stopped at {MAX_DEALS} deals)"
        )


if __name__ == "__main__":
    main()
