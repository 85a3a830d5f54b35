"""The auction (торговля): how high a hand may go, misère, and "здесь".

A hand is worth the tricks it counts (:func:`.evaluation.declarer_tricks`) plus what the
talon usually adds: two more cards to choose from before discarding the worst two. The
player bids up the ladder while the next step is within that; repeats the highest bid
("здесь", Кодекс 3.3.7) instead of raising when he sits earlier; calls misère as his
first call with a clean hand (Кодекс 3.3.9).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..actions import Bid
from ..cards import Card
from ..contracts import MISERE, Contract
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


def choose_bid(view: SeatView, style: Style = DEFAULT_STYLE) -> Bid:
    """The bid for the seat's turn in the auction; always one of ``view.legal``."""
    legal = [a for a in view.legal if isinstance(a, Bid)]
    pass_bid = next(a for a in legal if a.contract is None)
    pub = view.public
    hand = view.hand
    called_before = any(b.seat == view.seat and b.contract is not None for b in pub.auction)
    misere_bid = next((a for a in legal if a.contract == MISERE), None)
    if misere_bid is not None and not called_before and misere_worthy(hand, style):
        trick_plan = max_contract(hand, style)
        if trick_plan is None or trick_plan.level <= 7:
            return misere_bid
    # A hand that would suffer on all-pass stretches half a trick to play a game.
    stretch = 0.5 if allpass_tricks(hand) >= style.allpass_fear else 0.0
    plan = max_contract(hand, style, stretch)
    if plan is None:
        return pass_bid
    high = pub.highest_bid
    trick_bids = [a for a in legal if a.contract is not None and not a.contract.misere]
    here = next((a for a in trick_bids if a.contract == high), None)
    if here is not None and here.contract is not None and here.contract.step <= plan.step:
        return here
    raises = sorted(
        (a for a in trick_bids if a.contract != high and a.contract is not None),
        key=lambda a: a.contract.step if a.contract is not None else 0,
    )
    if raises and raises[0].contract is not None and raises[0].contract.step <= plan.step:
        return raises[0]
    return pass_bid
