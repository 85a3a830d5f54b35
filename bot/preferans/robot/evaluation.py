"""Hand evaluation: how many tricks a hand is worth, and how safe it is for misère.

These are the counts a Preferans player makes at a glance before bidding or whisting:
sure tricks from the top of each suit, length tricks once the other cards of a suit are
gone, trumps and ruffs, and for misère the "holes" (cards that can be forced to take a
trick). They are estimates, not searches: the card play uses the exact solver.

Every count is a sum over the four suits of what one suit is worth, which depends only
on the ranks held in it; so each suit's worth is worked out once, at import, for all
256 rank sets (:func:`hand_masks` gives a hand's four), and a count is four look-ups.
The talon discard asks for 66 ten-card hands × 5 trumps per decision, hence the tables.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations

from ..cards import Card, Suit

__all__ = [
    "suit_ranks",
    "hand_masks",
    "without",
    "declarer_tricks",
    "masks_declarer_tricks",
    "best_trumps",
    "defender_tricks",
    "misere_holes",
    "masks_misere_holes",
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

_DECLARER_SCALE = 0.9
_DECLARER_SHIFT = -0.4
_DEFENDER_SCALE = 0.7
_DEFENDER_SHIFT = 0.3


def suit_ranks(cards: Iterable[Card]) -> tuple[tuple[int, ...], ...]:
    """Ranks held in each suit (0 = seven … 7 = ace), high to low."""
    by_suit: list[list[int]] = [[], [], [], []]
    for card in cards:
        by_suit[int(card) >> 3].append(int(card) & 7)
    return tuple(tuple(sorted(r, reverse=True)) for r in by_suit)


def hand_masks(cards: Iterable[Card]) -> list[int]:
    """Each suit's ranks held as an 8-bit mask (bit r: rank r), spades to hearts."""
    masks = [0, 0, 0, 0]
    for card in cards:
        c = int(card)
        masks[c >> 3] |= 1 << (c & 7)
    return masks


def without(masks: Sequence[int], cards: Iterable[Card]) -> list[int]:
    """``masks`` with ``cards`` taken out (a discard tried, a card dropped)."""
    out = list(masks)
    for card in cards:
        c = int(card)
        out[c >> 3] &= ~(1 << (c & 7))
    return out


# ------------------------------------------------------------------ one suit's worth
# Each function below values one suit from its ranks (high to low); the tables hold
# its value for every rank set, so the float sums below add the same numbers in the
# same order as a count made card by card.


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


def _no_trump_suit(ranks: tuple[int, ...]) -> tuple[float, bool]:
    """A declarer's suit in no trump, and whether it lacks a stopper."""
    tricks = _top_tricks(ranks, False)
    # No trump: a long suit runs once its top is gone, but a suit without a stopper
    # lets the defenders run theirs (Кодекс 3.9: no ruffing).
    if len(ranks) >= 5 and tricks >= 2:
        tricks += 0.5 * (len(ranks) - 4)
    return tricks, not ranks or (tricks < 0.5 and len(ranks) <= 2)


def _side_suit(ranks: tuple[int, ...]) -> float:
    """A declarer's side suit beside trumps: the defenders ruff the third round on."""
    tricks = _top_tricks(ranks, False)
    extra = max(0.0, tricks - 2)
    return min(tricks, 2.0) + 0.6 * extra


def _defender_suit(ranks: tuple[int, ...], is_trump: bool, no_trump: bool) -> float:
    """A defender's tricks in one suit (``is_trump``: the declarer's trump suit)."""
    held = set(ranks)
    value = 0.0
    for i, rank in enumerate(ranks):
        higher = sum(1 for r in range(rank + 1, 8) if r not in held)
        if higher <= i:
            # Side suits: the declarer ruffs from the second or third round.
            value += 1.0 if (is_trump or no_trump or i == 0) else 0.55 if i == 1 else 0.2
        elif higher == i + 1 and len(ranks) >= i + 2:
            value += 0.45 if is_trump else 0.3
    if no_trump and len(ranks) >= 5 and value >= 1:
        value += 0.4 * (len(ranks) - 4)
    return value


def _holes(ranks: tuple[int, ...]) -> int:
    """1 if the suit, held from the bottom, has a card above the safe line (rank 2i)."""
    for i, rank in enumerate(sorted(ranks)):
        if rank > 2 * i:
            return 1
    return 0


def _allpass_steps(ranks: tuple[int, ...]) -> tuple[float, ...]:
    """What each card of the suit adds to the all-pass count, lowest card first."""
    return tuple(
        0.5 if rank < 6 else 0.8 for i, rank in enumerate(sorted(ranks)) if rank > 2 * i + 1
    )


_RANKS = tuple(tuple(r for r in range(7, -1, -1) if m >> r & 1) for m in range(256))
_LENGTH = tuple(len(r) for r in _RANKS)
_SHORT = tuple(max(0, 2 - n) for n in _LENGTH)
_TRUMP_SUIT = tuple(_top_tricks(r, True) for r in _RANKS)
_SIDE_SUIT = tuple(_side_suit(r) for r in _RANKS)
_NT_SUIT = tuple(_no_trump_suit(r)[0] for r in _RANKS)
# An unstopped suit in no trump: the defenders run it. A void is the worst of all (they
# hold all eight cards of it and take tricks until they choose to stop).
_NT_OPEN = tuple((2.0 if not r else 0.6) if _no_trump_suit(r)[1] else 0.0 for r in _RANKS)
_DEF_NT = tuple(_defender_suit(r, False, True) for r in _RANKS)
_DEF_TRUMP = tuple(_defender_suit(r, True, False) for r in _RANKS)
_DEF_SIDE = tuple(_defender_suit(r, False, False) for r in _RANKS)
_HOLES = tuple(_holes(r) for r in _RANKS)
_ALLPASS = tuple(_allpass_steps(r) for r in _RANKS)


# ------------------------------------------------------------------ whole hands


def declarer_tricks(cards: Iterable[Card], trump: Suit | None) -> float:
    """Expected tricks of a declarer's hand playing with ``trump`` (``None``: no trump)."""
    return masks_declarer_tricks(hand_masks(cards), trump)


def masks_declarer_tricks(masks: Sequence[int], trump: Suit | None) -> float:
    """:func:`declarer_tricks` of the hand whose :func:`hand_masks` are ``masks``."""
    total = 0.0
    if trump is None:
        for m in masks:
            total -= _NT_OPEN[m]
            total += _NT_SUIT[m]
    else:
        t = int(trump)
        side = _SIDE_SUIT
        m0, m1, m2, m3 = masks
        values = [side[m0], side[m1], side[m2], side[m3]]
        values[t] = _TRUMP_SUIT[masks[t]]
        # Added one by one in suit order (a float sum depends on the order).
        total = total + values[0] + values[1] + values[2] + values[3]
        # Ruffs: short side suits with trumps to spare after drawing the defenders'.
        trump_len = _LENGTH[masks[t]]
        spare = max(0, trump_len - 4)
        short_of = _SHORT  # whole numbers: any order
        short = short_of[m0] + short_of[m1] + short_of[m2] + short_of[m3] - short_of[masks[t]]
        total += 0.6 * min(spare, short)
        if trump_len <= 3:
            total -= 0.8 * (4 - trump_len)  # too few trumps to keep control
    # Calibrated against played deals: the raw count runs about a trick high (the
    # defenders' best play and bad splits); tests/perf/players.py shows the fit.
    return max(0.0, min(10.0, _DECLARER_SCALE * total + _DECLARER_SHIFT))


def best_trumps(cards: Iterable[Card]) -> tuple[Suit | None, float]:
    """The trump choice that makes the most tricks, and that estimate."""
    masks = hand_masks(cards)
    best: tuple[Suit | None, float] = (None, -1.0)
    for trump in TRUMP_CHOICES:
        value = masks_declarer_tricks(masks, trump)
        if value > best[1] + 1e-9:
            best = (trump, value)
    return best


def defender_tricks(cards: Iterable[Card], trump: Suit | None) -> float:
    """Tricks a defender's hand is expected to take against a declarer playing ``trump``."""
    masks = hand_masks(cards)
    total = 0.0
    t = -1 if trump is None else int(trump)
    for s in range(4):
        m = masks[s]
        if m:
            total += _DEF_NT[m] if t < 0 else _DEF_TRUMP[m] if s == t else _DEF_SIDE[m]
    if t >= 0 and masks[t]:
        short = sum(1 for s in range(4) if s != t and _LENGTH[masks[s]] <= 1)
        total += 0.3 * min(short, _LENGTH[masks[t]])
    # Calibrated like the declarer's count: strong defending hands take less than they show.
    return _DEFENDER_SCALE * total + _DEFENDER_SHIFT


def misere_holes(cards: Iterable[Card]) -> int:
    """Cards a misère player can be forced to win a trick with.

    In a suit held from the bottom, the i-th lowest card is safe while it is no higher
    than rank 2i (7, 9, J, K: an outstanding card fits under each of them); each card
    above that line is a hole, and a suit led by the player himself (the first hand)
    is safest with a seven.
    """
    return masks_misere_holes(hand_masks(cards))


def masks_misere_holes(masks: Sequence[int]) -> int:
    """:func:`misere_holes` of the hand whose :func:`hand_masks` are ``masks``."""
    return _HOLES[masks[0]] + _HOLES[masks[1]] + _HOLES[masks[2]] + _HOLES[masks[3]]


def best_misere_discard(cards: Iterable[Card]) -> tuple[tuple[Card, Card], int]:
    """The two cards whose discard leaves the fewest holes (highest cards on ties)."""
    hand = sorted(cards, key=lambda c: (int(c) & 7, int(c)), reverse=True)
    masks = hand_masks(hand)
    best: tuple[tuple[Card, Card], int] | None = None
    for pair in combinations(hand, 2):
        score = masks_misere_holes(without(masks, pair))
        if best is None or score < best[1]:
            best = ((pair[0], pair[1]), score)
    assert best is not None
    return best


def allpass_tricks(cards: Iterable[Card]) -> float:
    """Tricks a hand is likely to be forced to take on all-pass (high cards without cover)."""
    total = 0.0
    for m in hand_masks(cards):
        for step in _ALLPASS[m]:
            total += step
    return total
