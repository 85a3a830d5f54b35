"""What the auction and the whisting showed about the hands a seat cannot see.

A player who called a game holds a hand worth about that many tricks; one who passed at
his first call, nothing worth a game; a misère caller, a low hand; a declarer, the
tricks of his contract; a whister, tricks against it. :func:`bidding_fit` turns that into
how far a sampled layout falls short of them, which :mod:`.sampling` keeps low by dealing
again and mending (with a fallback when nothing fits: people do not bid by the book). The
thresholds are the computer player's own hand counts (:mod:`.evaluation`) with a margin of
a trick or more, so that a hand a person would reasonably bid is never ruled out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..cards import Card, Suit
from ..contracts import Contract
from ..outcome import DealKind, WhistAnswer
from ..seats import Seat
from ..views import SeatView
from .evaluation import (
    TRUMP_CHOICES,
    defender_tricks,
    hand_masks,
    masks_declarer_tricks,
    masks_misere_holes,
)
from .whisting import whist_thresholds

__all__ = ["Fit", "bidding_fit"]

Fit = Callable[[Mapping[Seat, frozenset[Card]]], float]
"""How far a layout of the hidden hands falls short of the signs, summed over them in
tricks (holes for a misère caller); 0: it fits them all."""

_HOPE = 2.5
"""Tricks a caller's ten cards may count short of his bid: the talon's hope (1.5, as the
bidding counts it) and a trick of margin."""
_PASS_BELOW = 6.0
"""A first-call pass: the hand counts under this many tricks in every strain."""
_DECLARER_SHORT = 1.5
"""Tricks a declarer's kept ten may count short of his contract."""
_MISERE_HOLES = 2
"""Holes a misère caller's ten may have (the talon and the discard mend one or two)."""
_WHIST_SHORT = 0.8
"""Tricks a whister's hand may count short of what whisting beside a partner takes."""

Sign = Callable[[frozenset[Card]], float]
"""A hand's ten cards (held and played) → how far they fall short of a sign (0: fit)."""


def bidding_fit(view: SeatView, hidden: Mapping[Seat, int]) -> Fit | None:
    """The signs the table gave about the ``hidden`` seats' hands, or ``None`` if none."""
    pub = view.public
    played: dict[Seat, set[Card]] = {s: set() for s in hidden}
    for trick in (*(t.cards for t in pub.played_tricks), pub.current_trick):
        for tc in trick:
            if tc.seat in played and not tc.from_talon:
                played[tc.seat].add(tc.card)
    signs: dict[Seat, list[Sign]] = {s: [] for s in hidden}
    called: set[Seat] = set()
    highest: dict[Seat, int] = {}  # each defender's highest game call
    top = 0  # the highest game level called so far
    for bid in pub.auction:
        first = bid.seat not in called
        called.add(bid.seat)
        contract = bid.contract
        if contract is not None and not contract.misere:
            top = max(top, contract.level)
        if bid.seat not in signs:
            continue
        if contract is None:
            # Passing at once over nothing or a six: no hand worth a game.
            if first and top <= 6:
                signs[bid.seat].append(_no_game)
        elif contract.misere:
            signs[bid.seat].append(_low)
        elif bid.seat != pub.declarer:
            highest[bid.seat] = max(highest.get(bid.seat, 0), contract.level)
    for seat, level in highest.items():
        signs[seat].append(_worth(level))
    declarer, contract = pub.declarer, pub.contract
    if pub.kind is DealKind.GAME and contract is not None:
        if declarer in signs:
            signs[declarer].append(_makes(contract.level, contract.trump))
        for whist in pub.whists:
            if whist.answer is WhistAnswer.WHIST and whist.seat in signs:
                signs[whist.seat].append(_whists(contract))
    if not any(signs.values()):
        return None
    kept = {s: (frozenset(played[s]), tuple(v)) for s, v in signs.items() if v}

    def fit(hands: Mapping[Seat, frozenset[Card]]) -> float:
        short = 0.0
        for seat, (gone, checks) in kept.items():
            ten = hands[seat] | gone
            for check in checks:
                short += check(ten)
        return short

    return fit


def _best(ten: frozenset[Card]) -> float:
    masks = hand_masks(ten)
    return max(masks_declarer_tricks(masks, trump) for trump in TRUMP_CHOICES)


def _no_game(ten: frozenset[Card]) -> float:
    return max(0.0, _best(ten) - _PASS_BELOW + 0.01)


def _low(ten: frozenset[Card]) -> float:
    return float(max(0, masks_misere_holes(hand_masks(ten)) - _MISERE_HOLES))


def _worth(level: int) -> Sign:
    def check(ten: frozenset[Card]) -> float:
        return max(0.0, level - _HOPE - _best(ten))

    return check


def _makes(level: int, trump: Suit | None) -> Sign:
    def check(ten: frozenset[Card]) -> float:
        return max(0.0, level - _DECLARER_SHORT - masks_declarer_tricks(hand_masks(ten), trump))

    return check


def _whists(contract: Contract) -> Sign:
    need = whist_thresholds(contract)[0] - _WHIST_SHORT

    def check(ten: frozenset[Card]) -> float:
        return max(0.0, need - defender_tricks(ten, contract.trump))

    return check
