"""Benchmark of the offer checks ("✅ гарантировано") and the computer player's offers.

    python tests/perf/offers.py --deals 40 --seed 1

Deals of the engine (6♠ by the first hand, both defenders whist; misère; all-pass) are
played with random legal cards. At each lead with 7 tricks left or fewer (when the bot
checks a person's offers) the leader's :class:`OfferCheck` is solved with the bot's budget,
over every layout of the cards he cannot see, and so is the first answerer's check of
each usual offer (an open offer is checked whatever the trick, so its check at the first
lead too). The computer player's :func:`make_offer` is timed at the same late leads with
the FAST and STRONG budgets. Times are CPU time of this process; "proved" counts the
checks whose offers were all settled (the layouts within :data:`MAX_LAYOUTS` and the
budget), the others mark only what no layout can beat.
"""

from __future__ import annotations

import argparse
import copy
import random
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bot.core.offers import OFFER_BUDGET, SURE_LEADS_TRICKS
from bot.preferans.actions import Bid, Declare, Discard, Play, Whist
from bot.preferans.contracts import parse_contract
from bot.preferans.deal import Deal, DealSettings, Phase
from bot.preferans.offer_marks import MAX_LAYOUTS, offer_check
from bot.preferans.outcome import WhistAnswer
from bot.preferans.robot import FAST, STRONG, make_offer
from bot.preferans.robot.knowledge import knowledge_of
from bot.preferans.robot.layouts import layout_count
from bot.preferans.seats import Seat
from bot.preferans.views import seat_view


def _deal(kind: str, rng: random.Random) -> Deal:
    deal = Deal.new(DealSettings(players=3), Seat(rng.randrange(3)), rng)
    first = deal.first_hand
    if kind != "all-pass":
        deal.apply(Bid(first, parse_contract("6S" if kind == "game" else "misere")))
    while deal.phase is Phase.AUCTION:
        assert deal.to_act is not None
        deal.apply(Bid(deal.to_act, None))
    if kind != "all-pass":
        held = sorted(deal.hand(first))
        deal.apply(Discard(first, (held[0], held[1])))
        deal.apply(Declare(first, parse_contract("6S" if kind == "game" else "misere")))
    while deal.phase is Phase.WHIST:
        assert deal.to_act is not None
        deal.apply(Whist(deal.to_act, WhistAnswer.WHIST))
    return deal


def _ms(xs: list[float]) -> str:
    if not xs:
        return "—"
    xs = sorted(xs)
    return f"{statistics.median(xs) * 1000:.1f} / {xs[-1] * 1000:.1f} ms (n={len(xs)})"


class _Checks:
    """Timings of one kind of check, and how many were settled over every layout."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.settled = 0
        self.cut = 0

    def time(self, deal: Deal, seat: Seat) -> None:
        check = offer_check(deal, [seat])
        if check is None:
            return
        t0 = time.process_time()
        marks = check.run(OFFER_BUDGET)
        self.times.append(time.process_time() - t0)
        if layout_count(knowledge_of(check.wanted[0].view)) <= MAX_LAYOUTS:
            self.settled += 1
            self.cut += marks != check.run()  # the budget ran out before every layout

    def __str__(self) -> str:
        return f"{_ms(self.times)}, settled {self.settled}, budget cut {self.cut}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    for kind in ("game", "misere", "all-pass"):
        rng = random.Random(args.seed)
        checks = {"declarer leads": _Checks(), "other leads": _Checks(), "answer": _Checks()}
        first = _Checks()
        fast: list[float] = []
        strong: list[float] = []
        for _ in range(args.deals):
            deal = _deal(kind, rng)
            while deal.phase is Phase.PLAY:
                actor = deal.actor
                assert actor is not None
                left = 11 - deal.trick_number
                offers = deal.offer_actions() if not deal.current_trick else []
                if offers and (left == 10 or left <= SURE_LEADS_TRICKS):
                    answered = copy.deepcopy(deal)
                    answered.apply(offers[rng.randrange(len(offers))])
                    answerer = answered.actor
                    assert answerer is not None
                    (first if left == 10 else checks["answer"]).time(answered, answerer)
                if offers and left <= SURE_LEADS_TRICKS:
                    role = "declarer" if actor == deal.declarer else "other"
                    checks[f"{role} leads"].time(deal, actor)
                    view = seat_view(deal, actor)
                    for budget, out in ((FAST, fast), (STRONG, strong)):
                        t0 = time.process_time()
                        make_offer(view, random.Random(1), budget)
                        out.append(time.process_time() - t0)
                plays = [a for a in deal.legal_actions() if isinstance(a, Play)]
                deal.apply(plays[rng.randrange(len(plays))])
        print(f"{kind}:")
        for name, found in checks.items():
            print(f"  {name:15} {found}")
        print(f"  {'first lead ans.':15} {first}")
        print(f"  {'robot FAST':15} {_ms(fast)}")
        print(f"  {'robot STRONG':15} {_ms(strong)}")
    print("(median / max)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
