"""Hand evaluation: how many tricks a hand is worth, and how safe it is for misère.

These are the counts a Preferans player makes at a glance before bidding or whisting:
sure tricks from the top of each suit, length tricks once the other cards of a suit are
gone, trumps and ruffs, and for misère the "holes" (cards that can be forced to take a
trick). They are estimates, not searches: the card play uses the exact solver.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

from ..cards import Card, Suit

__all__ = [
    "suit_ranks",
    "declarer_tricks",
    "best_trumps",
    "defender_tricks",
    "misere_holes",
    "best_misere_discard",
    "allpass_tricks",
    "TRUMP_CHOICES",
]

TRUMP_CHOICES: tuple[Suit | None, ...] = (
    Suit.SPADES,
    Suit.CLUBS,
    Suit.DIAMONDS,
    Suit.HEARTS,
    None,
)


def suit_ranks(cards: Iterable[Card]) -> tuple[tuple[int, ...], ...]:
    """Ranks held in each suit (0 = seven … 7 = ace), high to low."""
    by_suit: list[list[int]] = [[], [], [], []]
    for card in cards:
        by_suit[int(card) >> 3].append(int(card) & 7)
    return tuple(tuple(sorted(r, reverse=True)) for r in by_suit)


def _top_tricks(ranks: tuple[int, ...], trump: bool) -> float:
    """Tricks one suit takes for its holder when the other side leads or follows.

    A card wins when the outstanding cards above it are no more than the cards of ours
    in front of it (each of those draws one of them): A, K-x, Q-x-x … A card just one
    short of that is a finesse-like half chance. In trumps, once the other eight minus
    our length are gone, every trump left is a winner (length tricks).
    """
    held = set(ranks)
    length = len(ranks)
    out = 0.0
    for i, rank in enumerate(ranks):
        higher = sum(1 for r in range(rank + 1, 8) if r not in held)
        if higher <= i or (trump and i >= 8 - length):
            out += 1.0
        elif higher == i + 1 and length >= i + 2:
            out += 0.35
    return out


def declarer_tricks(cards: Iterable[Card], trump: Suit | None) -> float:
    """Expected tricks of a declarer's hand playing with ``trump`` (``None``: no trump)."""
    ranks = suit_ranks(cards)
    total = 0.0
    trump_len = 0 if trump is None else len(ranks[trump])
    for suit in Suit:
        suit_cards = ranks[suit]
        if trump is not None and suit is trump:
            total += _top_tricks(suit_cards, True)
            continue
        tricks = _top_tricks(suit_cards, False)
        if trump is None:
            # No trump: a long suit runs once its top is gone, but a suit without a
            # stopper lets the defenders run theirs (Кодекс 3.9: no ruffing).
            if len(suit_cards) >= 5 and tricks >= 2:
                tricks += 0.5 * (len(suit_cards) - 4)
            if not suit_cards or (tricks < 0.5 and len(suit_cards) <= 2):
                total -= 0.6
        else:
            # Side suits: the defenders ruff the third round and later.
            extra = max(0.0, tricks - 2)
            tricks = min(tricks, 2.0) + 0.6 * extra
        total += tricks
    if trump is not None:
        # Ruffs: short side suits with trumps to spare after drawing the defenders'.
        spare = max(0, trump_len - 4)
        short = sum(max(0, 2 - len(ranks[s])) for s in Suit if s is not trump)
        total += 0.6 * min(spare, short)
        if trump_len <= 3:
            total -= 0.8 * (4 - trump_len)  # too few trumps to keep control
    # Calibrated against played deals: the raw count runs about a trick high (the
    # defenders' best play and bad splits); tests/perf/players.py shows the fit.
    return max(0.0, min(10.0, _DECLARER_SCALE * total + _DECLARER_SHIFT))


_DECLARER_SCALE = 0.9
_DECLARER_SHIFT = -0.4
_DEFENDER_SCALE = 0.7
_DEFENDER_SHIFT = 0.3


def best_trumps(cards: Iterable[Card]) -> tuple[Suit | None, float]:
    """The trump choice that makes the most tricks, and that estimate."""
    hand = tuple(cards)
    best: tuple[Suit | None, float] = (None, -1.0)
    for trump in TRUMP_CHOICES:
        value = declarer_tricks(hand, trump)
        if value > best[1] + 1e-9:
            best = (trump, value)
    return best


def defender_tricks(cards: Iterable[Card], trump: Suit | None) -> float:
    """Tricks a defender's hand is expected to take against a declarer playing ``trump``."""
    ranks = suit_ranks(cards)
    total = 0.0
    trump_len = 0 if trump is None else len(ranks[trump])
    for suit in Suit:
        suit_cards = ranks[suit]
        if not suit_cards:
            continue
        held = set(suit_cards)
        is_trump = trump is not None and suit is trump
        value = 0.0
        for i, rank in enumerate(suit_cards):
            higher = sum(1 for r in range(rank + 1, 8) if r not in held)
            if higher <= i:
                # Side suits: the declarer ruffs from the second or third round.
                value += 1.0 if (is_trump or trump is None or i == 0) else 0.55 if i == 1 else 0.2
            elif higher == i + 1 and len(suit_cards) >= i + 2:
                value += 0.45 if is_trump else 0.3
        if trump is None and len(suit_cards) >= 5 and value >= 1:
            value += 0.4 * (len(suit_cards) - 4)
        total += value
    if trump is not None and trump_len >= 1:
        short = sum(1 for s in Suit if s is not trump and len(ranks[s]) <= 1)
        total += 0.3 * min(short, trump_len)
    # Calibrated like the declarer's count: strong defending hands take less than they show.
    return _DEFENDER_SCALE * total + _DEFENDER_SHIFT


def misere_holes(cards: Iterable[Card]) -> int:
    """Cards a misère player can be forced to win a trick with.

    In a suit held from the bottom, the i-th lowest card is safe while it is no higher
    than rank 2i (7, 9, J, K: an outstanding card fits under each of them); each card
    above that line is a hole, and a suit led by the player himself (the first hand)
    is safest with a seven.
    """
    holes = 0
    for suit_cards in suit_ranks(cards):
        for i, rank in enumerate(sorted(suit_cards)):
            if rank > 2 * i:
                holes += 1
                break
    return holes


def best_misere_discard(cards: Iterable[Card]) -> tuple[tuple[Card, Card], int]:
    """The two cards whose discard leaves the fewest holes (highest cards on ties)."""
    hand = sorted(cards, key=lambda c: (int(c) & 7, int(c)), reverse=True)
    best: tuple[tuple[Card, Card], int] | None = None
    for pair in combinations(hand, 2):
        rest = [c for c in hand if c not in pair]
        score = misere_holes(rest)
        if best is None or score < best[1]:
            best = ((pair[0], pair[1]), score)
    assert best is not None
    return best


def allpass_tricks(cards: Iterable[Card]) -> float:
    """Tricks a hand is likely to be forced to take on all-pass (high cards without cover)."""
    total = 0.0
    for suit_cards in suit_ranks(cards):
        low = sorted(suit_cards)
        for i, rank in enumerate(low):
            if rank > 2 * i + 1:
                total += 0.5 if rank < 6 else 0.8
    return total
