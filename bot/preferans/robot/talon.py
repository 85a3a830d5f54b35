"""After the auction: which two cards to discard and which contract to name (Кодекс 3.4).

Every pair of the twelve cards is tried as the discard with every trump; the declarer
keeps the ten that count the most tricks, then names the highest contract they make
with a little to spare, never below his bid. A misère declarer discards the pair that
leaves the fewest holes.
"""

from __future__ import annotations

from itertools import combinations

from ..actions import Declare, Discard
from ..cards import Card, Suit
from ..contracts import MISERE, Contract
from ..views import SeatView
from .evaluation import (
    TRUMP_CHOICES,
    best_misere_discard,
    hand_masks,
    masks_declarer_tricks,
    without,
)

__all__ = ["choose_discard", "choose_contract", "contract_tricks"]

_SAFETY = 0.3
"""Tricks to spare before naming a contract above the bid."""


def choose_discard(view: SeatView) -> Discard:
    """The discard for the declarer's twelve cards; always one of ``view.legal``."""
    legal = [a for a in view.legal if isinstance(a, Discard)]
    hand = tuple(view.hand)
    bid = view.public.bid
    if bid is not None and bid.misere:
        pair, _ = best_misere_discard(hand)
        want = Discard(view.seat, pair)
    else:
        want = Discard(view.seat, _best_trick_discard(hand, bid))
    return want if want in legal else legal[0]


def _best_trick_discard(hand: tuple[Card, ...], bid: Contract | None) -> tuple[Card, Card]:
    masks = hand_masks(hand)
    # The cheapest level per trump does not depend on the pair: worked out once.
    lowest = [(trump, _lowest_level(trump, bid)) for trump in TRUMP_CHOICES]
    best: tuple[float, tuple[Card, Card]] | None = None
    for pair in combinations(hand, 2):
        rest = without(masks, pair)
        # Tricks over the cheapest contract in each trump this bid allows; the best.
        value = max(masks_declarer_tricks(rest, trump) - low for trump, low in lowest)
        # Ties: keep high cards (they win tricks), throw the low ones.
        key = value - 0.001 * (int(pair[0].rank) + int(pair[1].rank))
        if best is None or key > best[0]:
            best = (key, (pair[0], pair[1]))
    assert best is not None
    return best[1]


def _lowest_level(trump: Suit | None, bid: Contract | None) -> int:
    for level in range(6, 11):
        if bid is None or Contract(level, trump).step >= bid.step:
            return level
    return 11


def contract_tricks(cards: tuple[Card, ...], bid: Contract | None) -> tuple[Contract, float]:
    """The contract to name for these ten cards and the tricks they are expected to take."""
    best: tuple[float, Contract, float] | None = None
    masks = hand_masks(cards)
    for trump in TRUMP_CHOICES:
        low = _lowest_level(trump, bid)
        if low > 10:
            continue
        tricks = masks_declarer_tricks(masks, trump)
        level = low
        while level < 10 and tricks >= level + 1 + _SAFETY:
            level += 1
        contract = Contract(level, trump)
        # Prefer the contract most likely made, then the dearer one.
        key = (tricks - level) + 0.01 * level
        if best is None or key > best[0]:
            best = (key, contract, tricks)
    assert best is not None
    return best[1], best[2]


def choose_contract(view: SeatView) -> Declare:
    """The contract to name after the discard; always one of ``view.legal``."""
    legal = [a for a in view.legal if isinstance(a, Declare)]
    bid = view.public.bid
    if bid is not None and bid.misere:
        want = Declare(view.seat, MISERE)
    else:
        contract, _ = contract_tricks(tuple(view.hand), bid)
        want = Declare(view.seat, contract)
    return want if want in legal else min(legal, key=lambda a: a.contract.step)
