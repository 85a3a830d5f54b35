"""Benchmark of the offer checks of issue 15 (run by hand; prints its figures).

    python tests/perf/offers.py --deals 40 --seed 1

Deals of the engine (6♠ by the first hand, both defenders whist; misère; all-pass) are
played with the first legal card. At each lead with 7 tricks left or fewer (when the bot
checks a person's offers for "✅ гарантировано") :class:`OfferCheck` is solved with the
bot's budget; at the first lead (an open offer is checked whatever the trick) too. The
computer player's :func:`make_offer` is timed at the same late leads with the FAST and
STRONG budgets. Times are CPU time of this process.
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

from bot.core.offers import OFFER_BUDGET, SURE_LEADS_TRICKS
from bot.preferans.actions import Bid, Declare, Discard, Play, Whist
from bot.preferans.cards import Seat
from bot.preferans.contracts import parse_contract
from bot.preferans.deal import Deal, DealSettings, Phase
from bot.preferans.offer_value import offer_check
from bot.preferans.outcome import WhistAnswer
from bot.preferans.robot import FAST, STRONG, make_offer
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print("kind      | first lead check | late lead check | robot FAST | robot STRONG")
    for kind in ("game", "misere", "all-pass"):
        rng = random.Random(args.seed)
        first: list[float] = []
        late: list[float] = []
        fast: list[float] = []
        strong: list[float] = []
        for _ in range(args.deals):
            deal = _deal(kind, rng)
            while deal.phase is Phase.PLAY:
                actor = deal.actor
                assert actor is not None
                left = 11 - deal.trick_number
                if not deal.current_trick and deal.offer_actions():
                    check = offer_check(deal, [actor])
                    if check is not None and (left == 10 or left <= SURE_LEADS_TRICKS):
                        t0 = time.process_time()
                        check.run(OFFER_BUDGET)
                        (first if left == 10 else late).append(time.process_time() - t0)
                    if left <= SURE_LEADS_TRICKS:
                        view = seat_view(deal, actor)
                        for budget, out in ((FAST, fast), (STRONG, strong)):
                            t0 = time.process_time()
                            make_offer(view, random.Random(1), budget)
                            out.append(time.process_time() - t0)
                play = next(a for a in deal.legal_actions() if isinstance(a, Play))
                deal.apply(play)
        print(f"{kind:9} | {_ms(first)} | {_ms(late)} | {_ms(fast)} | {_ms(strong)}")
    print("(median / max)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
