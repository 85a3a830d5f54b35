"""After the auction: which two cards to discard and which contract to name (Кодекс 3.4).

Every pair of the twelve cards is tried as the discard with every trump; the declarer
keeps the ten that count the most tricks, then names the contract worth the most over
sampled layouts of the defenders' cards solved exactly (:func:`contract_by_play`), or,
without a judging budget, the highest contract they count with a little to spare; never
below his bid. A misère declarer discards the pair that leaves the fewest holes.
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
from .judging import game_tricks, game_value
from .knowledge import active_seats

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


def choose_contract(view: SeatView, judge: int = 0, samples: int = 12) -> Declare:
    """The contract to name after the discard; always one of ``view.legal``.

    ``judge`` > 0: named by its value over sampled layouts solved exactly
    (:func:`contract_by_play`), the hand counts deciding only when too few were solved.
    """
    legal = [a for a in view.legal if isinstance(a, Declare)]
    bid = view.public.bid
    if bid is not None and bid.misere:
        want = Declare(view.seat, MISERE)
    else:
        contract, _ = contract_tricks(tuple(view.hand), bid)
        if judge > 0:
            contract = contract_by_play(view, bid, judge, samples) or contract
        want = Declare(view.seat, contract)
    return want if want in legal else min(legal, key=lambda a: a.contract.step)


_MIN_LAYOUTS = 4
_TRUMP_LENGTH = 1.0
"""Whists a trump in hand adds to a strain's worth when choosing between strains."""
_HOPELESS = 3.0
"""Tricks short of a strain's cheapest contract, by the hand count, not worth solving."""


def contract_by_play(
    view: SeatView, bid: Contract | None, judge: int, samples: int
) -> Contract | None:
    """The contract worth the most on average over sampled layouts of the defenders'
    cards (:func:`.judging.game_value`); ties go to the cheaper step. ``None`` when too
    few layouts were solved in budget."""
    hand = tuple(view.hand)
    masks = hand_masks(hand)
    strains: list[tuple[float, Suit | None]] = []
    for trump in TRUMP_CHOICES:
        low = _lowest_level(trump, bid)
        over = masks_declarer_tricks(masks, trump) - low
        if low <= 10 and over > -_HOPELESS:
            strains.append((over, trump))
    strains.sort(key=lambda x: -x[0])
    chosen = [trump for _, trump in strains[:3]]
    tricks = game_tricks(
        view.seat, active_seats(view), hand, view.discard, chosen, samples, judge, talon=False
    )
    best: tuple[float, Contract] | None = None
    for trump in chosen:
        values = tricks[trump]
        if len(values) < _MIN_LAYOUTS:
            continue
        # Between strains worth about the same, the longer trump suit: it keeps control
        # when the cards lie worse than in the layouts dealt (no trump has none).
        control = _TRUMP_LENGTH * (0 if trump is None else _length(masks[int(trump)]))
        for level in range(_lowest_level(trump, bid), 11):
            contract = Contract(level, trump)
            worth = sum(game_value(level, t) for t in values) / len(values) + control
            if (
                best is None
                or worth > best[0] + 1e-9
                or (worth > best[0] - 1e-9 and contract.step < best[1].step)
            ):
                best = (worth, contract)
    return None if best is None else best[1]


def _length(mask: int) -> int:
    return bin(mask).count("1")
