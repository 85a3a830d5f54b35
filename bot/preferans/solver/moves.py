"""The cards worth trying in a position, in the order the search tries them.

Equal cards are merged: of a hand's cards in one suit with no other live card between
them only the top one is tried (:data:`.tables.REPS`). Hands and the live cards are
bitmasks, a card the bit ``suit * 8 + rank``.
"""

from __future__ import annotations

from .bounds import SUIT_MASK
from .tables import REPS, REPS_LOW, RUN, Reps

__all__ = ["moves", "follow_cards", "lead_cards", "TOPS_HIGH", "REST_LOW", "LOW_FIRST"]

# How a hand orders its leads (see :attr:`.search.Core.lead_order`).
TOPS_HIGH = 0  # the suits' top cards first, high to low, then the rest high to low
REST_LOW = 1  # cards that are not the top of their suit first, low to high, then the tops
LOW_FIRST = 2  # hearts to spades, low to high within a suit


def moves(hand: int, suit: int, trump: int, alive: int) -> list[int]:
    """Representative legal cards of ``hand`` when ``suit`` was led (-1: leading)."""
    return list(follow_cards(hand, suit, trump, alive, REPS))


def follow_cards(
    hand: int, suit: int, trump: int, alive: int, reps: Reps
) -> tuple[int, ...] | list[int]:
    """:func:`moves` from ``reps`` (:data:`REPS`: high to low in each suit, suits
    spades first; :data:`REPS_LOW`: low to high, hearts first), without a copy."""
    if suit >= 0:
        cards = hand & SUIT_MASK[suit]
        if cards:
            shift = suit * 8
            return reps[suit][(((alive >> shift) & 255) << 8) | (cards >> shift)]
        # Кодекс: no card of the suit led — a trump must be played if held.
        if trump >= 0 and hand & SUIT_MASK[trump]:
            shift = trump * 8
            return reps[trump][(((alive >> shift) & 255) << 8) | ((hand >> shift) & 255)]
    if reps is REPS_LOW:
        return _all_low(hand, alive)
    s0, s1, s2, s3 = reps
    return [
        *s0[((alive & 255) << 8) | (hand & 255)],
        *s1[(alive & 0xFF00) | ((hand >> 8) & 255)],
        *s2[((alive >> 8) & 0xFF00) | ((hand >> 16) & 255)],
        *s3[((alive >> 16) & 0xFF00) | (hand >> 24)],
    ]


_L0, _L1, _L2, _L3 = REPS_LOW
_H0, _H1, _H2, _H3 = REPS


def _all_low(hand: int, alive: int) -> list[int]:
    """Every representative of ``hand``: hearts to spades, low to high in each suit."""
    return [
        *_L3[((alive >> 16) & 0xFF00) | (hand >> 24)],
        *_L2[((alive >> 8) & 0xFF00) | ((hand >> 16) & 255)],
        *_L1[(alive & 0xFF00) | ((hand >> 8) & 255)],
        *_L0[((alive & 255) << 8) | (hand & 255)],
    ]


def lead_cards(hand: int, alive: int, order: int) -> list[int]:
    """The leads of ``hand`` worth trying, in the ``order`` of :attr:`.search.Core.lead_order`.

    A suit's top card is "top" when no other hand holds a card above it (only the
    highest of a suit's representatives can be, and is when the suit's highest live
    card is ours); the orders sort by that, then by card.
    """
    if order == LOW_FIRST:
        return _all_low(hand, alive)
    i3 = ((alive >> 16) & 0xFF00) | (hand >> 24)
    i2 = ((alive >> 8) & 0xFF00) | ((hand >> 16) & 255)
    i1 = (alive & 0xFF00) | ((hand >> 8) & 255)
    i0 = ((alive & 255) << 8) | (hand & 255)
    run = RUN
    if order == TOPS_HIGH:
        # Tops high to low, then the rest high to low (hearts first: higher cards).
        r3, r2, r1, r0 = _H3[i3], _H2[i2], _H1[i1], _H0[i0]
        tops = []
        if run[i3]:
            tops.append(r3[0])
            r3 = r3[1:]
        if run[i2]:
            tops.append(r2[0])
            r2 = r2[1:]
        if run[i1]:
            tops.append(r1[0])
            r1 = r1[1:]
        if run[i0]:
            tops.append(r0[0])
            r0 = r0[1:]
        return [*tops, *r3, *r2, *r1, *r0]
    # REST_LOW: the cards that are not tops low to high (spades first: lower cards),
    # then the tops low to high.
    r0, r1, r2, r3 = _L0[i0], _L1[i1], _L2[i2], _L3[i3]
    tops = []
    if run[i0]:
        tops.append(r0[-1])
        r0 = r0[:-1]
    if run[i1]:
        tops.append(r1[-1])
        r1 = r1[:-1]
    if run[i2]:
        tops.append(r2[-1])
        r2 = r2[:-1]
    if run[i3]:
        tops.append(r3[-1])
        r3 = r3[:-1]
    return [*r0, *r1, *r2, *r3, *tops]
