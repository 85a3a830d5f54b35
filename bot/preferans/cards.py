"""Cards, suits, ranks and the 32-card deck."""

from __future__ import annotations

import random
from collections.abc import Iterable
from enum import IntEnum

__all__ = [
    "Suit",
    "Rank",
    "Card",
    "DECK",
    "parse_card",
    "parse_cards",
    "sort_hand",
]


class Suit(IntEnum):
    """The four suits in ladder order: ♠ < ♣ < ♦ < ♥ (Кодекс 3.3.7)."""

    SPADES = 0
    CLUBS = 1
    DIAMONDS = 2
    HEARTS = 3

    @property
    def letter(self) -> str:
        """The record-format letter: S, C, D or H."""
        return "SCDH"[self]

    @property
    def symbol(self) -> str:
        """The suit symbol: ♠ ♣ ♦ ♥."""
        return "♠♣♦♥"[self]

    @property
    def is_red(self) -> bool:
        return self in (Suit.DIAMONDS, Suit.HEARTS)

    @classmethod
    def from_letter(cls, letter: str) -> Suit:
        index = "SCDH".find(letter.upper())
        if index < 0 or len(letter) != 1:
            raise ValueError(f"unknown suit {letter!r}")
        return cls(index)


class Rank(IntEnum):
    """Ranks from seven to ace."""

    SEVEN = 0
    EIGHT = 1
    NINE = 2
    TEN = 3
    JACK = 4
    QUEEN = 5
    KING = 6
    ACE = 7

    @property
    def label(self) -> str:
        """The record-format label: 7 8 9 10 J Q K A."""
        return _RANK_LABELS[self]

    @classmethod
    def from_label(cls, label: str) -> Rank:
        try:
            return cls(_RANK_LABELS.index(label.upper()))
        except ValueError:
            raise ValueError(f"unknown rank {label!r}") from None


_RANK_LABELS = ("7", "8", "9", "10", "J", "Q", "K", "A")


class Card(IntEnum):
    """One of the 32 cards; the value is ``suit * 8 + rank``.

    An ``IntEnum`` keeps cards hashable, ordered and cheap to compare, which the
    engine's hot loops rely on.
    """

    S7 = 0
    S8 = 1
    S9 = 2
    S10 = 3
    SJ = 4
    SQ = 5
    SK = 6
    SA = 7
    C7 = 8
    C8 = 9
    C9 = 10
    C10 = 11
    CJ = 12
    CQ = 13
    CK = 14
    CA = 15
    D7 = 16
    D8 = 17
    D9 = 18
    D10 = 19
    DJ = 20
    DQ = 21
    DK = 22
    DA = 23
    H7 = 24
    H8 = 25
    H9 = 26
    H10 = 27
    HJ = 28
    HQ = 29
    HK = 30
    HA = 31

    @property
    def suit(self) -> Suit:
        return _SUITS[self]

    @property
    def rank(self) -> Rank:
        return _RANKS[self]

    @property
    def code(self) -> str:
        """Record notation: rank then suit, e.g. ``10H``, ``AS``."""
        return _CODES[self]

    @classmethod
    def of(cls, suit: Suit, rank: Rank) -> Card:
        return cls(int(suit) * 8 + int(rank))

    def __str__(self) -> str:
        return self.code


_SUITS = tuple(Suit(i // 8) for i in range(32))
_RANKS = tuple(Rank(i % 8) for i in range(32))
_CODES = tuple(_RANK_LABELS[i % 8] + "SCDH"[i // 8] for i in range(32))
_BY_CODE = {code: Card(i) for i, code in enumerate(_CODES)}

DECK: tuple[Card, ...] = tuple(Card)


def parse_card(text: str) -> Card:
    """Parse record notation (``7S`` … ``AH``); raises ``ValueError`` naming the text."""
    if not isinstance(text, str):
        raise ValueError(f"unknown card {text!r}")
    card = _BY_CODE.get(text.strip().upper())
    if card is None:
        raise ValueError(f"unknown card {text!r}")
    return card


def parse_cards(texts: Iterable[str]) -> list[Card]:
    """Parse several cards; raises ``ValueError`` on the first unknown one."""
    return [parse_card(t) for t in texts]


def sort_hand(cards: Iterable[Card]) -> list[Card]:
    """Cards grouped by suit (♠ ♣ ♦ ♥), high to low inside a suit."""
    return sorted(cards, key=_HAND_ORDER.__getitem__)


_HAND_ORDER = tuple(c ^ 7 for c in range(32))
"""A card's place in :func:`sort_hand`: suit, then the rank reversed (``suit * 8 + 7 - rank``),
looked up in C rather than keyed by a Python function (views sort every hand)."""


def shuffled_deck(rng: random.Random) -> list[Card]:
    """A shuffled copy of the deck; randomness comes only from ``rng``."""
    deck = list(DECK)
    rng.shuffle(deck)
    return deck
