"""The auction (торговля): how high a hand may go, misère, and "здесь".

A hand is worth the tricks it counts (:func:`.evaluation.declarer_tricks`) plus what the
talon usually adds: two more cards to choose from before discarding the worst two. With
a judging budget that count only picks the hands and strains worth a closer look: the
ceiling is the highest contract made in most sampled layouts and worth more than passing
(:mod:`.judging`; the layouts fit the others' calls and passes, and more are dealt where
the share made is close to the threshold). The player bids up the ladder while the next
step is within that (a no-trump step only for a no-trump ceiling);
repeats the highest bid ("здесь", Кодекс 3.3.7) instead of raising when he sits earlier;
calls misère as his first call with a clean hand (Кодекс 3.3.9) that sampled layouts
show safe enough for its price.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..actions import Bid
from ..cards import Card
from ..contracts import MISERE, Contract
from ..seats import Seat
from ..views import SeatView
from .evaluation import (
    TRUMP_CHOICES,
    allpass_tricks,
    best_misere_discard,
    hand_masks,
    masks_declarer_tricks,
    masks_misere_holes,
    without,
)
from .judging import POINT, Fits, Judgement, game_value, misere_tricks, misere_value
from .knowledge import active_seats

__all__ = ["Style", "max_contract", "misere_worthy", "choose_bid"]


@dataclass(frozen=True, slots=True)
class Style:
    """Tunable judgement: how much the talon is hoped to add, how boldly to bid."""

    talon_hope: float = 1.5
    """Tricks the talon and discard add on average to a ten-card count."""
    misere_holes: int = 0
    """Holes left after discarding two cards that a misère may still have."""
    allpass_fear: float = 3.5
    """All-pass tricks from which a player stretches half a trick to bid a game."""


DEFAULT_STYLE = Style()


def max_contract(hand: tuple[Card, ...], style: Style, stretch: float = 0.0) -> Contract | None:
    """The highest contract this hand would play after the talon, ``None`` below six."""
    best: Contract | None = None
    masks = hand_masks(hand)
    for trump in TRUMP_CHOICES:
        tricks = masks_declarer_tricks(masks, trump) + style.talon_hope + stretch
        level = min(10, int(tricks + 1e-9))
        if level < 6:
            continue
        contract = Contract(level, trump)
        if best is None or contract.step > best.step:
            best = contract
    return best


def misere_worthy(hand: tuple[Card, ...], style: Style) -> bool:
    """A clean misère hand: at most ``style.misere_holes`` holes after dropping two cards.

    Two cards go to the discard, but a talon card may add a hole of its own: the hand
    must be clean without its worst card, or without its worst two when only one of
    them is a real hole.
    """
    masks = hand_masks(hand)
    one = min(masks_misere_holes(without(masks, (drop,))) for drop in hand)
    if one > style.misere_holes + 1:
        return False
    if one > style.misere_holes:
        _, two = best_misere_discard(hand)
        if two > style.misere_holes:
            return False
    high = sum(1 for c in hand if int(c.rank) >= 6)  # kings and aces
    return high <= 1


def choose_bid(
    view: SeatView, style: Style = DEFAULT_STYLE, judge: int = 0, samples: int = 12
) -> Bid:
    """The bid for the seat's turn in the auction; always one of ``view.legal``.

    ``judge`` > 0: the hand counts' plans are checked by sampled layouts solved exactly
    (:mod:`.judging`) with that many solver positions.
    """
    legal = [a for a in view.legal if isinstance(a, Bid)]
    pass_bid = next(a for a in legal if a.contract is None)
    pub = view.public
    hand = view.hand
    called_before = any(b.seat == view.seat and b.contract is not None for b in pub.auction)
    misere_bid = next((a for a in legal if a.contract == MISERE), None)
    if misere_bid is not None and not called_before and misere_worthy(hand, style):
        trick_plan = max_contract(hand, style)
        if (trick_plan is None or trick_plan.level <= 7) and (
            judge <= 0 or _misere_pays(view, judge, samples)
        ):
            return misere_bid
    # A hand that would suffer on all-pass stretches half a trick to play a game.
    suffer = allpass_tricks(hand)
    plan = max_contract(hand, style, 0.5 if suffer >= style.allpass_fear else 0.0)
    trick_bids = [a for a in legal if a.contract is not None and not a.contract.misere]
    if trick_bids and judge > 0:
        # Judged by play: hands the counts put up to a trick short are looked at too.
        wide = max_contract(hand, style, _WIDER)
        if wide is not None:
            plan = _plan_by_play(view, wide, plan, suffer, judge, samples)
    if plan is None:
        return pass_bid
    high = pub.highest_bid
    target = plan

    def within(bid: Bid) -> bool:
        # A no-trump step only for a no-trump plan: held at it, the declarer could name
        # nothing cheaper than no trump or the next level (Кодекс 3.4.3).
        c = bid.contract
        return (
            c is not None
            and c.step <= target.step
            and (c.trump is not None or target.trump is None)
        )

    here = next((a for a in trick_bids if a.contract == high), None)
    if here is not None and within(here):
        return here
    raises = sorted(
        (a for a in trick_bids if a.contract != high and a.contract is not None),
        key=lambda a: a.contract.step if a.contract is not None else 0,
    )
    # The cheapest raise within the plan (where jumps are allowed, over a no-trump step).
    raised = next((a for a in raises if within(a)), None)
    return raised if raised is not None else pass_bid


_MIN_LAYOUTS = 4
"""Solved layouts a judgement by play needs; with fewer the hand counts stand."""
_WIDER = 1.0
"""Tricks over the hand count within which the auction judges a hand by play."""
_ALLPASS_SHARE = 0.5
"""How often passing a hand ends in all-pass, for what passing costs."""
_SURE = 0.7
"""Share of the layouts a contract must make to be bid."""
_SURE_LAST = 0.6
"""The same for the last player to speak after the others passed: passing is all-pass."""
_PASSED_LEVEL = 6
"""The highest contract by the counts a player who passed may hold in the layouts."""
_MORE_ROUNDS = 1
"""Times the layouts are dealt again (as many more each time) while the answer is close."""
_CLOSE = 1.0
"""Standard errors of the share made within which the answer counts as close."""
_MISERE_MARGIN = 30.0
"""Whists a misère must be worth on average over the layouts (the price of the risk)."""


def _plan_by_play(
    view: SeatView,
    wide: Contract,
    plan: Contract | None,
    suffer: float,
    judge: int,
    samples: int,
) -> Contract | None:
    """The highest contract worth playing by sampled layouts (talon unseen), in the
    strains the hand counts rank first (``wide``'s among them); the counts' own ``plan``
    when too few layouts were solved.

    Worth playing: made in at least :data:`_SURE` of the layouts (in the strain best for
    each, as the talon decides it), and worth more on average than passing, which costs
    a hand that would take ``suffer`` tricks on all-pass about half of them (the others
    may bid instead). Named in the strain that makes it most often.
    """
    masks = hand_masks(view.hand)
    ranked = sorted(TRUMP_CHOICES, key=lambda t: -masks_declarer_tricks(masks, t))
    strains = list(dict.fromkeys((wide.trump, *ranked[:2])))
    judgement = Judgement(
        view.seat,
        active_seats(view),
        view.hand,
        (),
        [(s, None) for s in strains],
        talon=True,
        fits=_auction_fit(view),
    )
    judgement.more(samples, judge)
    pub = view.public
    last = pub.highest_bid is None and all(
        s in pub.passed for s in active_seats(view) if s != view.seat
    )
    # Everybody else passed: passing is all-pass for sure, so a game is worth a little
    # more risk.
    floor = -POINT * _ALLPASS_SHARE * suffer
    sure = _SURE_LAST if last else _SURE
    # Sequential sampling: where a level's share made is within the layouts' own noise
    # of the threshold, more layouts decide it.
    for _ in range(_MORE_ROUNDS):
        if len(judgement.best) < _MIN_LAYOUTS or not _close(judgement.best, sure):
            break
        judgement.more(samples, judge // 2)
    best = judgement.best
    tricks = dict(zip(strains, judgement.tricks, strict=True))
    if len(best) < _MIN_LAYOUTS:
        return plan
    for level in range(10, 5, -1):
        made = sum(1 for t in best if t >= level)
        worth = sum(game_value(level, t) for t in best) / len(best)
        if made >= sure * len(best) and worth >= floor:
            strain = max(
                strains,
                key=lambda s: (sum(1 for t in tricks[s] if t >= level), Contract(level, s).step),
            )
            return Contract(level, strain)
    return None


def _close(best: list[int], sure: float) -> bool:
    """Whether some level's share made lies within :data:`_CLOSE` standard errors of
    ``sure``: the layouts dealt so far cannot tell whether to bid it."""
    n = len(best)
    error = _CLOSE * math.sqrt(sure * (1 - sure) / n)
    return any(abs(sum(1 for t in best if t >= level) / n - sure) < error for level in range(6, 11))


def _misere_pays(view: SeatView, judge: int, samples: int) -> bool:
    """Whether misère is worth its risk over sampled talons and layouts."""
    tricks = misere_tricks(view.seat, active_seats(view), view.hand, samples, judge)
    if len(tricks) < _MIN_LAYOUTS:
        return True  # the hand count said clean; nothing better to go on
    return sum(misere_value(t) for t in tricks) / len(tricks) >= _MISERE_MARGIN


def _auction_fit(view: SeatView) -> Fits | None:
    """Layouts that fit the auction so far: every other player who called a game holds a
    hand worth one, and every one who passed without calling holds none worth more than
    :data:`_PASSED_LEVEL` by the counts (he would have bid it)."""
    called = {b.seat for b in view.public.auction if b.seat != view.seat and b.contract is not None}
    bidders = {
        b.seat
        for b in view.public.auction
        if b.seat != view.seat and b.contract is not None and not b.contract.misere
    }
    passers = {s for s in view.public.passed if s != view.seat and s not in called}
    if not bidders and not passers:
        return None

    def fits(hands: dict[Seat, frozenset[Card]]) -> bool:
        for seat, hand in hands.items():
            if seat in bidders and max_contract(tuple(hand), DEFAULT_STYLE) is None:
                return False
            if seat in passers:
                plan = max_contract(tuple(hand), DEFAULT_STYLE)
                if plan is not None and plan.level > _PASSED_LEVEL:
                    return False
        return True

    return fits
