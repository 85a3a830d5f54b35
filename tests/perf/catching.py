"""Misère catching benchmark: of the misères perfect defence catches, how many the catchers
catch. Run by hand.

    python tests/perf/catching.py --misere 30                  # new catchers vs the earlier
    python tests/perf/catching.py --misere 30 --against rule   # one catcher vs rules of thumb
    python tests/perf/catching.py --quick

Deals are dealt at random until one seat holds a hand the computer player would call
misère with (``robot/bidding.py``: ``misere_worthy``); that seat calls misère, the others
pass, and the computer player discards for it. The misère is *catchable* when the exact
solver, every hand open and the discard known, finds that the declarer takes a trick
against best defence; only catchable misères are played. The declarer is always the new
computer player (``--budget``).

Default: the catchers are the earlier computer player (``--base``, extracted as in
``strength.py``) and then the new one, both at the same budget: how many misères each
pair catches. ``--against rule``: a duplicate match of one catcher seat, the new player
against the rule-of-thumb player (``rule_player``), the other catcher a rule-of-thumb
player; gain in whists per deal and seat, 95 % interval, as ``strength.py``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.preferans.actions import Action, Bid, action_from_json  # noqa: E402
from bot.preferans.cards import Card  # noqa: E402
from bot.preferans.contracts import MISERE  # noqa: E402
from bot.preferans.conventions import Rules  # noqa: E402
from bot.preferans.deal import Phase  # noqa: E402
from bot.preferans.robot import FAST, STRONG, Budget, choose  # noqa: E402
from bot.preferans.robot.baseline import rule_player  # noqa: E402
from bot.preferans.robot.bidding import DEFAULT_STYLE, misere_worthy  # noqa: E402
from bot.preferans.seats import Seat  # noqa: E402
from bot.preferans.solver import Goal, Position, Solver  # noqa: E402
from bot.preferans.views import seat_view  # noqa: E402
from tests.perf.strength import Table, deal_result, load_old, mean_ci  # noqa: E402

BASE = "fae4a89"
"""The commit whose catchers are the earlier ones."""
CATCHER_TIMES: list[float] = []
"""CPU seconds of every decision of a new catcher with a choice."""


def misere_deals(count: int, seed: int) -> list[tuple[int, int, list[list[Card]], list[Card]]]:
    """``count`` deals (dealer, declarer, hands, talon) with a misère hand at the declarer."""
    rng = random.Random(seed)
    out: list[tuple[int, int, list[list[Card]], list[Card]]] = []
    while len(out) < count:
        cards = [Card(c) for c in range(32)]
        rng.shuffle(cards)
        hands = [cards[0:10], cards[10:20], cards[20:30]]
        for seat in range(3):
            if misere_worthy(tuple(hands[seat]), DEFAULT_STYLE):
                out.append((len(out) % 3, seat, hands, cards[30:32]))
                break
    return out


def _apply(table: Table, action: Action) -> None:
    table.deal.apply(action)
    if table.old is not None:
        old = table.old
        table.old_deal.apply(old.actions.action_from_json(action.to_json(), 3))


def call_misere(table: Table, declarer: int, budget: Budget) -> None:
    """The forced auction (misère by ``declarer``, the others pass), his discard and call."""
    deal = table.deal
    rng = random.Random(declarer)
    while deal.phase is not Phase.PLAY:
        actor = deal.actor
        assert actor is not None
        view = seat_view(deal, actor)
        first = view.legal[0]
        if isinstance(first, Bid):
            want = MISERE if int(actor) == declarer else None
            action: Action = next(
                a for a in view.legal if isinstance(a, Bid) and a.contract == want
            )
        else:
            action = choose(view, rng, budget=budget)
        _apply(table, action)


def catchable(table: Table, declarer: int) -> bool:
    """Whether best defence, every card open, makes the declarer take a trick."""
    deal = table.deal
    order = tuple(deal.active)
    pos = Position(
        hands={s: frozenset(deal.hand(s)) for s in order},
        order=(order[0], order[1], order[2]),
        leader=order[0],
        trick=(),
        trump=None,
    )
    return Solver(Goal.MISERE, Seat(declarer)).at_least(pos, 1)


def play_out(table: Table, declarer: int, catchers: dict[int, str], budget: Budget) -> None:
    """Play the cards: the declarer and catchers marked ``"new"`` by the new player, the
    others by the earlier one (``"old"``) or by rules of thumb (``"rule"``)."""
    deal = table.deal
    rng = random.Random(declarer * 31 + 7)
    old = table.old
    while not deal.is_over:
        actor = deal.actor
        assert actor is not None
        who = "new" if int(actor) == declarer else catchers[int(actor)]
        view = seat_view(deal, actor)
        if who == "new":
            start = time.process_time()
            action = choose(view, rng, budget=budget)
            if int(actor) != declarer and len(view.legal) > 1:
                CATCHER_TIMES.append(time.process_time() - start)
        elif who == "rule":
            action = rule_player(view, rng)
        else:
            o_view = old.views.seat_view(table.old_deal, old.cards.Seat(int(actor)))
            o_budget = old.robot.Budget(
                samples=budget.samples, nodes=budget.nodes, total=budget.total
            )
            o_action = old.robot.choose(o_view, rng, budget=o_budget)
            action = action_from_json(o_action.to_json(), 3)
        _apply(table, action)


MisereDeal = tuple[int, int, list[list[Card]], list[Card]]


def one_misere(old: Any, spec: MisereDeal, budget: Budget) -> dict[str, Any] | None:
    """Play one dealt misère (``None`` if not catchable): catches by each side and, against
    the rules of thumb, the gain of each catcher seat."""
    dealer, declarer, hands, talon = spec
    rules = Rules.preset("sochi")

    def table() -> Table:
        t = Table(old, rules, dealer, hands, talon)
        call_misere(t, declarer, budget)
        return t

    if not catchable(table(), declarer):
        return None
    catchers = [s for s in range(3) if s != declarer]
    caught = {"old": 0, "new": 0, "rule": 0}
    gains: list[float] = []
    sides = ("old", "new") if old is not None else ("rule",)
    results: dict[str, tuple[float, ...]] = {}
    for side in sides:
        t = table()
        play_out(t, declarer, dict.fromkeys(catchers, side), budget)
        caught[side] += t.deal.tricks[declarer] > 0
        results[side] = deal_result(t.deal)
    if old is None:
        for seat in catchers:
            t = table()
            other = catchers[0] + catchers[1] - seat
            play_out(t, declarer, {seat: "new", other: "rule"}, budget)
            caught["new"] += t.deal.tricks[declarer] > 0
            gains.append(deal_result(t.deal)[seat] - results["rule"][seat])
    return {"caught": caught, "gains": gains}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--misere", type=int, default=30, help="catchable misères to play")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--base", default=BASE)
    parser.add_argument("--against", choices=("earlier", "rule"), default="earlier")
    parser.add_argument("--budget", choices=("fast", "strong"), default="strong")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.misere = 2
    budget = STRONG if args.budget == "strong" else FAST
    old: Any = load_old(args.base) if args.against == "earlier" else None
    print(f"Python {sys.version.split()[0]}; seed {args.seed}; budget {args.budget}")
    played = 0
    caught = {"old": 0, "new": 0, "rule": 0}
    gains: list[float] = []
    start = time.process_time()
    for spec in misere_deals(10 * args.misere, args.seed):
        if played >= args.misere:
            break
        result = one_misere(old, spec, budget)
        if result is None:
            continue
        played += 1
        for side, n in result["caught"].items():
            caught[side] += n
        gains.extend(result["gains"])
        print(f"  misère {played}: caught {result['caught']}", flush=True)
    if not played:
        print("  nothing measured")
        sys.exit(1)
    print(f"  {played} catchable misères, {time.process_time() - start:.0f} s CPU")
    times = sorted(CATCHER_TIMES)
    if times:
        p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
        print(
            f"  new catchers' decisions: {len(times)}, p50 {1000 * times[len(times) // 2]:.0f} ms,"
            f" p99 {1000 * p99:.0f} ms, max {1000 * times[-1]:.0f} ms CPU"
        )
    if old is not None:
        print(f"  caught by the earlier catchers ({args.base}): {caught['old']} of {played}")
        print(f"  caught by the new catchers: {caught['new']} of {played}")
    else:
        mean, half = mean_ci(gains)
        print(f"  caught by two rule-of-thumb catchers: {caught['rule']} of {played}")
        print(f"  one new catcher with one rule-of-thumb: {caught['new']} of {2 * played}")
        print(f"  the new catcher's gain: {mean:+.2f} ± {half:.2f} whists per deal and seat")


if __name__ == "__main__":
    main()
