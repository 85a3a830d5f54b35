"""Strength benchmark: the computer players against an earlier version of themselves and
against the rule-of-thumb players. Run by hand.

    python tests/perf/strength.py --deals 200 --workers 2          # the duplicate match
    python tests/perf/strength.py --parts duplicate --against rule # ... against rules of thumb
    python tests/perf/strength.py --pulkas 20 --parts pulkas       # robot-only pulkas
    python tests/perf/strength.py --quick                          # a smoke run

**Duplicate match.** The earlier computer player is the package ``bot/preferans`` as it
stood at ``--base`` (a git commit; default the one before the contracts were judged by
play), extracted into a temporary directory at run time and imported under another
name; it plays from its own engine's views, kept in step with ours by the record
format's actions. Every deal is played with all three seats by the earlier player (the
reference), then with one seat given to the new player — in every phase ("all"), or
only in one phase, the earlier player deciding the rest: the auction and contract
(bids, discard, contract), whisting (whist answers, open or closed), card play (every
card but a misère catcher's) and misère catching. A seat's gain is its result in
whists (one deal scored alone, Сочинка, the pulka's points counted as gora) minus the
same seat's result in the reference: the same cards, the same neighbours. Shown: mean
gain per deal with a 95 % interval (1.96 standard errors over deal × seat). With
``--against rule`` the other players are the rule-of-thumb players
(``robot/baseline.py``: ``rule_player``) instead of the earlier computer player, and a
seat given to the new player in one phase decides the rest by those rules; the
rule-of-thumb players never call misère, so catching is measured on dealt misères
(``tests/perf/catching.py``). With ``--base-judges`` an earlier player that judges its
auction and contract by sampled layouts does so at its own full budget, as the new one
(against a ``--base`` that can: the robots of the main branch, say).

**Robot-only pulkas.** Whole pulkas of the new players (and of the earlier ones, for
comparison): share of all-pass deals and misères, and of the games named the share a
declarer could make with best play (the deal analysis, ``bot.preferans.analysis``; a
game not played out, both defenders passing, is solved the same way from its start).

Card play thinks at the cheap budget on both sides (``FAST``: what is compared is the
judgement); the new player judges the auction and contract at the full budget's
``judge``. Exits non-zero when nothing was measured.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import multiprocessing
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import asdict, replace
from io import BytesIO
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.preferans.actions import (  # noqa: E402
    Action,
    Bid,
    ChooseDefence,
    Declare,
    Discard,
    Whist,
    action_from_json,
)
from bot.preferans.analysis import analyse  # noqa: E402
from bot.preferans.conventions import Rules  # noqa: E402
from bot.preferans.deal import Deal, Phase  # noqa: E402
from bot.preferans.game import Game, settings_for  # noqa: E402
from bot.preferans.outcome import DealKind  # noqa: E402
from bot.preferans.robot import FAST, STRONG, choose  # noqa: E402
from bot.preferans.robot.baseline import rule_player  # noqa: E402
from bot.preferans.scoring import Pulka  # noqa: E402
from bot.preferans.seats import Seat  # noqa: E402
from bot.preferans.solver import Goal, Position, Solver  # noqa: E402
from bot.preferans.views import seat_view  # noqa: E402

BASE = "c730099"
"""The commit whose computer player is the earlier version."""
PHASES: tuple[str, ...] = ("all", "auction", "whisting", "play", "catching")
RUN_PHASES = PHASES
"""The phases played (``--phases``)."""
NEW_BUDGET = replace(FAST, judge=STRONG.judge, judge_samples=STRONG.judge_samples)
STRONG_PLAY = False
"""``--play-budget strong``: both sides play their cards at their own ``STRONG`` budget
(the earlier player judging by the hand counts, as at ``FAST``)."""
BASE_JUDGES = False
"""``--base-judges``: the earlier player judges the auction and contract by sampled layouts
at its own ``STRONG`` budget, as the new player does (for an earlier player that can)."""
OLD_NAME = "earlier_preferans"
RULE = "rule"
"""``--against rule``: the other players are the rule-of-thumb players."""

_old: ModuleType | None = None


def load_old(base: str) -> ModuleType:
    """``bot/preferans`` at ``base``, imported as the package :data:`OLD_NAME`."""
    global _old
    if _old is not None:
        return _old
    blob = subprocess.run(
        ["git", "-C", str(ROOT), "archive", base, "bot/preferans"],
        check=True,
        capture_output=True,
    ).stdout
    target = Path(tempfile.mkdtemp(prefix="earlier-robot-"))
    with tarfile.open(fileobj=BytesIO(blob)) as tar:
        tar.extractall(target, filter="data")
    (target / "bot" / "preferans").rename(target / OLD_NAME)
    sys.path.insert(0, str(target))
    importlib.import_module(OLD_NAME)
    for name in ("actions", "cards", "deal", "views", "robot"):
        importlib.import_module(f"{OLD_NAME}.{name}")
    _old = sys.modules[OLD_NAME]
    return _old


def old_seat(old: Any, seat: int) -> Any:
    """The earlier engine's seat (``Seat`` moved from ``cards`` to ``seats`` since)."""
    if hasattr(old.cards, "Seat"):
        return old.cards.Seat(seat)
    return importlib.import_module(f"{OLD_NAME}.seats").Seat(seat)


def phase_of(deal: Deal, action: Action) -> str:
    """The phase a decision belongs to (see the module's docstring)."""
    if isinstance(action, Bid | Discard | Declare):
        return "auction"
    if isinstance(action, Whist | ChooseDefence):
        return "whisting"
    if deal.kind is DealKind.MISERE and action.seat != deal.declarer:
        return "catching"
    return "play"


class Table:
    """One deal played in our engine and, in step, in the earlier one (``old``; ``None``:
    the others are the rule-of-thumb players)."""

    def __init__(self, old: Any, rules: Rules, dealer: int, hands: list[Any], talon: Any) -> None:
        self.deal = Deal(settings_for(rules, 3, 6), Seat(dealer), hands, talon)
        self.old = old
        if old is None:
            return
        self.old_deal = old.deal.Deal(
            old.deal.DealSettings(**asdict(self.deal.settings)),
            old_seat(old, dealer),
            [[old.cards.Card(int(c)) for c in h] for h in hands],
            [old.cards.Card(int(c)) for c in talon],
        )

    def play(self, new_seats: dict[int, str], seed: int) -> tuple[float, ...]:
        """Play to the end: seats in ``new_seats`` use the new player in that phase."""
        rng_new = random.Random(seed)
        rng_old = random.Random(seed)
        old = self.old
        while not self.deal.is_over:
            actor = self.deal.actor
            assert actor is not None
            view = seat_view(self.deal, actor)
            phase = new_seats.get(int(actor))
            action: Action | None = None
            if phase is not None:
                first = view.legal[0]
                if phase == "all" or phase_of(self.deal, first) == phase:
                    action = choose(view, rng_new, budget=STRONG if STRONG_PLAY else NEW_BUDGET)
            if action is None and old is None:
                action = rule_player(view, rng_old)
            elif action is None:
                o_view = old.views.seat_view(self.old_deal, old_seat(old, int(actor)))
                o_action = old.robot.choose(o_view, rng_old, budget=old_budget(old))
                action = action_from_json(o_action.to_json(), 3)
            self.deal.apply(action)
            if old is not None:
                self.old_deal.apply(old.actions.action_from_json(action.to_json(), 3))
        return deal_result(self.deal)


def old_budget(old: Any) -> Any:
    """The earlier player's budget (see :data:`STRONG_PLAY` and :data:`BASE_JUDGES`)."""
    judges = hasattr(old.robot.STRONG, "judge")  # bids judged by sampled layouts
    if not STRONG_PLAY:
        if judges and BASE_JUDGES:
            strong = old.robot.STRONG
            return replace(old.robot.FAST, judge=strong.judge, judge_samples=strong.judge_samples)
        return old.robot.FAST
    if judges and not BASE_JUDGES:
        return replace(old.robot.STRONG, judge=old.robot.FAST.judge)
    return old.robot.STRONG


def deal_result(deal: Deal) -> tuple[float, ...]:
    """Each seat's result in whists for this deal alone (Сочинка; pulka points as gora)."""
    pulka = Pulka(Rules.preset("sochi", pulka=1000), 3)
    pulka.score(deal.outcome())
    return tuple(float(x) for x in pulka.settlement(stopped=True))


def duplicate_deal(index: int, seed: int, base: str) -> dict[str, list[float]]:
    """Gains of the new player per phase, one per seat, on deal ``index`` (``base``:
    ``"rule"`` for the rule-of-thumb players)."""
    old = None if base == RULE else load_old(base)
    rules = Rules.preset("sochi")
    rng = random.Random(seed * 100003 + index)
    cards = list(range(32))
    rng.shuffle(cards)
    from bot.preferans.cards import Card

    deck = [Card(c) for c in cards]
    hands = [deck[0:10], deck[10:20], deck[20:30]]
    talon = deck[30:32]
    dealer = index % 3
    play_seed = seed * 7919 + index

    def table() -> Table:
        return Table(old, rules, dealer, hands, talon)

    reference = table().play({}, play_seed)
    gains: dict[str, list[float]] = {p: [] for p in PHASES}
    for phase in RUN_PHASES:
        for seat in range(3):
            result = table().play({seat: phase}, play_seed)
            gains[phase].append(result[seat] - reference[seat])
    return gains


def _worker(args: tuple[int, int, str]) -> tuple[int, dict[str, list[float]], float]:
    start = time.process_time()
    gains = duplicate_deal(*args)
    return args[0], gains, time.process_time() - start


def mean_ci(values: list[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, float("nan")
    return mean, 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def duplicate_part(deals: int, seed: int, base: str, workers: int) -> bool:
    against = "the rule-of-thumb players" if base == RULE else f"the computer player of {base}"
    print(
        f"Duplicate match, {deals} deals × 3 seats, new player (card play "
        f"{STRONG if STRONG_PLAY else FAST}, "
        f"judge {NEW_BUDGET.judge}) against {against}:"
    )
    jobs = [(i, seed, base) for i in range(deals)]
    gains: dict[str, list[float]] = {p: [] for p in PHASES}
    cpu = 0.0
    done = 0
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            for _, g, spent in pool.imap_unordered(_worker, jobs):
                cpu += spent
                done += 1
                for p in PHASES:
                    gains[p].extend(g[p])
    else:
        for job in jobs:
            _, g, spent = _worker(job)
            cpu += spent
            done += 1
            for p in PHASES:
                gains[p].extend(g[p])
    if not done:
        print("  nothing measured")
        return False
    print(f"  {done} deals, {cpu:.0f} s CPU")
    for p in RUN_PHASES:
        mean, half = mean_ci(gains[p])
        changed = sum(1 for g in gains[p] if g != 0)
        print(
            f"  {p:9s}: {mean:+7.2f} ± {half:5.2f} whists per deal and seat "
            f"({changed} of {len(gains[p])} seat-deals changed)"
        )
    return True


def makeable(deal: Deal) -> bool | None:
    """Whether the game named could be made with best play (``None``: not a game)."""
    if deal.kind is not DealKind.GAME or deal.contract is None or deal.declarer is None:
        return None
    analysis = analyse(deal)
    if analysis is not None and analysis.value is not None:
        return analysis.value >= deal.contract.level
    # Not played out (both defenders passed): solve the same start position.
    live = Deal(
        deal.settings, deal.dealer, [deal.initial_hand(Seat(s)) for s in range(3)], deal.talon
    )
    for action in deal.log:
        if live.phase is Phase.PLAY or live.is_over:
            break
        live.apply(action)
    a = live.active
    hands = {s: frozenset(live.hand(s)) for s in a}
    pos = Position(
        hands=hands, order=(a[0], a[1], a[2]), leader=a[0], trick=(), trump=deal.contract.trump
    )
    return Solver(Goal.TRICKS, deal.declarer).solve(pos) >= deal.contract.level


def pulka_part(pulkas: int, seed: int, base: str, which: str) -> bool:
    old: Any = load_old(base) if which == "earlier" else None
    rules = Rules.preset("sochi", pulka=10)
    deals = all_pass = miseres = misere_clean = games = made = 0
    times: list[float] = []
    levels: dict[int, int] = {}
    for p in range(pulkas):
        game = Game(rules, ["a", "b", "c"])
        rng = random.Random(seed + p)
        deal_rng = random.Random((seed + p) * 7919 + 1)
        while not game.over and game.deal_count < 200:
            deal = game.start_deal(deal_rng)
            if which == "earlier":
                o_deal = old.deal.Deal(
                    old.deal.DealSettings(**asdict(deal.settings)),
                    old_seat(old, int(deal.dealer)),
                    [
                        [old.cards.Card(int(c)) for c in deal.initial_hand(Seat(s))]
                        for s in range(3)
                    ],
                    [old.cards.Card(int(c)) for c in deal.talon],
                )
            while game.current is not None:
                actor = deal.actor
                assert actor is not None
                start = time.process_time()
                if which == "new":
                    budget = STRONG if STRONG_PLAY else NEW_BUDGET
                    action = choose(seat_view(deal, actor), rng, budget=budget)
                else:
                    o_view = old.views.seat_view(o_deal, old_seat(old, int(actor)))
                    o_action = old.robot.choose(o_view, rng, budget=old_budget(old))
                    action = action_from_json(o_action.to_json(), 3)
                times.append(time.process_time() - start)
                game.apply(action)
                if which == "earlier":
                    o_deal.apply(old.actions.action_from_json(action.to_json(), 3))
            deals += 1
            if deal.kind is DealKind.ALL_PASS:
                all_pass += 1
            elif deal.kind is DealKind.MISERE:
                miseres += 1
                misere_clean += deal.tricks[int(deal.declarer or 0)] == 0
            else:
                ok = makeable(deal)
                if ok is not None:
                    games += 1
                    made += ok
                    assert deal.contract is not None
                    levels[deal.contract.level] = levels.get(deal.contract.level, 0) + 1
                    if not ok:
                        print(f"    not makeable (pulka {seed + p}): {unmade(deal)}", flush=True)
        if not game.over:
            game.stop()
    if not deals:
        print("  nothing measured")
        return False
    times.sort()
    p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
    print(
        f"  {which}: {pulkas} pulkas, {deals} deals; all-pass {100 * all_pass / deals:.1f} %; "
        f"misères {miseres} ({misere_clean} clean); games {games}, makeable with best play "
        f"{made} = {100 * made / max(1, games):.1f} %; decision p99 {1000 * p99:.0f} ms CPU"
    )
    print("  games by level: " + ", ".join(f"{k}: {levels[k]}" for k in sorted(levels)))
    return True


def unmade(deal: Deal) -> str:
    """One line for a game that could not be made: hands, talon, moves (record format)."""
    hands = " | ".join(" ".join(str(c) for c in deal.initial_hand(Seat(s))) for s in range(3))
    talon = " ".join(str(c) for c in deal.talon)
    moves = " ".join(json.dumps(a.to_json(), ensure_ascii=False) for a in deal.log)
    return (
        f"dealer {int(deal.dealer)}, declarer {int(deal.declarer or 0)}, "
        f"contract {deal.contract}; hands {hands}; talon {talon}; moves {moves}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=200, help="duplicate deals")
    parser.add_argument("--pulkas", type=int, default=20, help="robot-only pulkas per side")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--base", default=BASE, help="commit of the earlier computer player")
    parser.add_argument(
        "--against",
        choices=("earlier", RULE),
        default="earlier",
        help="the duplicate match's other players: the earlier computer player or rules of thumb",
    )
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument(
        "--parts",
        default="duplicate,pulkas",
        help="duplicate, pulkas (or pulkas-new, pulkas-earlier)",
    )
    parser.add_argument(
        "--base-judges",
        action="store_true",
        help="the earlier player judges its auction and contract by play, as the new one",
    )
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--phases", default=",".join(PHASES), help="duplicate phases to play")
    parser.add_argument(
        "--play-budget", choices=("fast", "strong"), default="fast", help="card play's budget"
    )
    args = parser.parse_args()
    global RUN_PHASES, STRONG_PLAY, BASE_JUDGES
    RUN_PHASES = tuple(p for p in PHASES if p in args.phases.split(","))
    STRONG_PLAY = args.play_budget == "strong"
    BASE_JUDGES = args.base_judges
    if args.quick:
        args.deals, args.pulkas = 6, 1
    parts = set(args.parts.split(","))
    print(f"Python {sys.version.split()[0]}; seed {args.seed}")
    ok = True
    if "duplicate" in parts:
        base = RULE if args.against == RULE else args.base
        ok &= duplicate_part(args.deals, args.seed, base, args.workers)
    sides = [w for w in ("new", "earlier") if "pulkas" in parts or f"pulkas-{w}" in parts]
    if sides:
        print("Robot-only pulkas, Сочинка to 10, 3 players:")
        for which in sides:
            ok &= pulka_part(args.pulkas, args.seed, args.base, which)
    if not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
