"""What one seat knows about the cards in play, read from its :class:`SeatView` only.

Known: its own hand, hands it moves (open defence), hands lying face up, every card
played (the finished tricks are public), the talon where it was shown. Inferred: a
player who did not follow suit is void in it (and, in a trick game, void in trumps too
when he did not trump); what the bidding and whisting showed (:mod:`.inference`).
Everything else is unknown and is dealt out by :mod:`.sampling`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cards import DECK, Card, Suit
from ..outcome import DealKind
from ..seats import Seat
from ..views import SeatView
from .inference import Fit, bidding_fit

__all__ = ["Knowledge", "SINK", "knowledge_of", "active_seats"]

SINK = -1
"""Holder index of cards out of play that the seat cannot see: the declarer's discard,
an unturned all-pass talon."""


@dataclass(frozen=True, slots=True)
class Knowledge:
    """The card layout as far as one seat knows it."""

    order: tuple[Seat, Seat, Seat]
    """Active seats, first hand first."""
    known: dict[Seat, frozenset[Card]]
    """Hands the seat can see (its own, controlled and open hands)."""
    hidden: dict[Seat, int]
    """Active seats whose cards are unknown, with how many they hold."""
    sink: int
    """Unknown cards out of play (discard, unturned talon)."""
    unknown: frozenset[Card]
    """Cards whose place is not known: they fill the hidden hands and the sink."""
    voids: dict[Seat, frozenset[Suit]]
    """Suits a hidden seat has shown it does not hold."""
    only: dict[Card, frozenset[int]]
    """Cards whose holder is narrowed down (talon cards taken by the declarer)."""
    fit: Fit | None = None
    """What the auction and whisting showed about the hidden hands (:mod:`.inference`):
    a likelihood for sampling, never a rule (every layout stays possible)."""


_DECK = frozenset(DECK)
_ACE = 7
_DISCARD = frozenset({SINK})
_SUITS = tuple(Suit)


def active_seats(view: SeatView) -> tuple[Seat, Seat, Seat]:
    """The three seats holding cards this deal, first hand first."""
    pub = view.public
    first = pub.first_hand
    second = first.next(pub.players)
    return (first, second, second.next(pub.players))


def knowledge_of(view: SeatView, *, certain: bool = False) -> Knowledge:
    """Everything ``view`` reveals about where the cards are.

    ``certain`` keeps only what is sure (for a «✅» mark, true in every layout); otherwise
    a strong player's reading is added: a misère declarer threw the talon's aces."""
    pub = view.public
    order = active_seats(view)
    known: dict[Seat, frozenset[Card]] = {}
    if view.seat in order:
        known[view.seat] = frozenset(view.hand)
    for seat, cards in view.controlled.items():
        known[seat] = frozenset(cards)
    for seat, cards in pub.open_hands.items():
        known[seat] = frozenset(cards)
    if view.offer_hand and pub.offer is not None:  # shown to those who answer an offer
        known[pub.offer.seat] = frozenset(view.offer_hand)
    played: set[Card] = set()
    for trick in pub.played_tricks:
        played.update(tc.card for tc in trick.cards)
    played.update(tc.card for tc in pub.current_trick)
    seen = set(played)
    for hand in known.values():
        seen.update(hand)
    seen.update(view.discard)
    seen.update(view.remembered_discard)
    unknown = _DECK.difference(seen)
    hidden = {s: pub.hand_sizes[s] for s in order if s not in known}
    sink = len(unknown) - sum(hidden.values())
    only: dict[Card, frozenset[int]] = {}
    if pub.kind is not DealKind.ALL_PASS and pub.declarer is not None:
        # Кодекс 3.4.1: the talon was shown and taken by the declarer: each talon card
        # not played is in his hand or in his discard.
        holders = (
            frozenset({int(pub.declarer), SINK}) if pub.declarer in hidden else frozenset({SINK})
        )
        # A misère declarer throws the talon's aces (a sure trick for him otherwise): the
        # others take it that they lie in the discard. Only a reading: he may keep one
        # beside a void, so it is never used where a mark must hold in every layout.
        misere = pub.kind is DealKind.MISERE and not certain
        for card in pub.talon:
            if card in unknown:
                only[card] = _DISCARD if misere and card & 7 == _ACE else holders
    return Knowledge(
        order=order,
        known=known,
        hidden=hidden,
        sink=sink,
        unknown=unknown,
        voids=_voids(view, hidden),
        only=only,
        fit=bidding_fit(view, hidden) if hidden else None,
    )


def _voids(view: SeatView, hidden: dict[Seat, int]) -> dict[Seat, frozenset[Suit]]:
    """Suits each hidden seat failed to follow (and trumps it failed to play)."""
    if not hidden:
        return {}
    pub = view.public
    trump = int(pub.trump) if pub.kind is DealKind.GAME and pub.trump is not None else -1
    voids: dict[Seat, set[Suit]] = {s: set() for s in hidden}
    tricks = [t.cards for t in pub.played_tricks]
    if pub.current_trick:
        tricks.append(pub.current_trick)
    for cards in tricks:
        lead = -1
        for tc in cards:
            suit = int(tc.card) >> 3
            if lead < 0:
                lead = suit  # a talon card on all-pass names the suit too
                continue
            if tc.seat is None or tc.from_talon or suit == lead:
                continue
            void = voids.get(tc.seat)
            if void is not None:
                void.add(_SUITS[lead])
                if trump >= 0 and suit != trump:
                    void.add(_SUITS[trump])
    return {s: frozenset(v) for s, v in voids.items()}
