"""Card play by rules of thumb: what a club player does without counting.

Used by the computer player when the choice is forced or the search has no time, and by
the rule-of-thumb baseline player. Win cheaply when it matters, duck when tricks hurt
(misère, all-pass), lead masters, draw trumps as the declarer.
"""

from __future__ import annotations

from ..actions import Play
from ..cards import Card, Suit
from ..deal import TrickCard, beats, trick_winner
from ..outcome import DealKind
from ..seats import Seat
from ..views import SeatView
from .knowledge import knowledge_of

__all__ = [
    "simple_card",
    "catch_card",
    "mover_hand",
    "played_cards",
    "wants_tricks",
]


def mover_hand(view: SeatView) -> frozenset[Card]:
    """The hand to move: the seat's own, or the passer's it moves in open defence."""
    mover = view.public.to_act
    if mover is not None and mover in view.controlled:
        return frozenset(view.controlled[mover])
    return frozenset(view.hand)


def played_cards(view: SeatView) -> set[Card]:
    """Every card already played this deal (finished tricks and the current one)."""
    out: set[Card] = set()
    for trick in view.public.played_tricks:
        out.update(tc.card for tc in trick.cards)
    out.update(tc.card for tc in view.public.current_trick)
    return out


def wants_tricks(view: SeatView, seat: Seat) -> bool:
    """Whether ``seat`` is after tricks: the declarer's side in a game, misère catchers."""
    pub = view.public
    if pub.kind is DealKind.ALL_PASS:
        return False
    if pub.kind is DealKind.MISERE:
        return seat != pub.declarer
    return True


def _is_master(card: Card, gone: set[Card], mine: frozenset[Card]) -> bool:
    """No card of the suit above ``card`` is still in someone else's hand."""
    for rank in range(int(card.rank) + 1, 8):
        other = Card(int(card.suit) * 8 + rank)
        if other not in gone and other not in mine:
            return False
    return True


def _low(cards: list[Card]) -> Card:
    return min(cards, key=lambda c: (int(c.rank), int(c)))


def _high(cards: list[Card]) -> Card:
    return max(cards, key=lambda c: (int(c.rank), -int(c)))


def simple_card(view: SeatView) -> Card:
    """A card chosen by rules of thumb; always one of the legal plays in ``view``."""
    legal = [a.card for a in view.legal if isinstance(a, Play)]
    if not legal:
        raise ValueError("no card to play in this view")
    if len(legal) == 1:
        return legal[0]
    pub = view.public
    mover = pub.to_act
    assert mover is not None
    trump = pub.trump
    hand = mover_hand(view)
    gone = played_cards(view)
    trick = pub.current_trick
    seated = [tc for tc in trick if not tc.from_talon and tc.seat is not None]
    if not wants_tricks(view, mover):
        return _duck(legal, trick, trump, len(seated))
    leader = trick_winner(trick, trump)
    if pub.kind is DealKind.MISERE:
        return catch_card(view, legal, trick)
    if not seated and leader is None:
        return _lead(view, legal, hand, gone, mover)
    partner_wins = leader is not None and _same_side(view, leader.seat, mover)
    last = len(seated) == 2
    lead_suit = trick[0].card.suit
    winners = [c for c in legal if leader is None or beats(c, leader.card, lead_suit, trump)]
    if partner_wins:
        if last or (leader is not None and _is_master(leader.card, gone, hand)):
            return _discard_low(legal, trump)
    if winners:
        if last:
            return _low(winners)
        masters = [c for c in winners if _is_master(c, gone, hand)]
        if masters:
            return _low(masters)
        if trump is not None and all(c.suit is trump for c in winners) and lead_suit is not trump:
            return _low(winners)
    return _discard_low(legal, trump)


def catch_card(view: SeatView, legal: list[Card], trick: tuple[TrickCard, ...]) -> Card:
    """Catching a misère: force the declarer over our cards, never take his trick away.

    The declarer's cards are among the unknown ones; a card of ours below all of them in
    its suit makes him take the trick if he holds the suit.
    """
    unknown = knowledge_of(view).unknown
    lowest: dict[Suit, int] = {}
    for card in unknown:
        rank = int(card.rank)
        if card.suit not in lowest or rank < lowest[card.suit]:
            lowest[card.suit] = rank
    declarer = view.public.declarer
    played = [tc for tc in trick if tc.seat is not None]
    if not played:
        forcing = [c for c in legal if c.suit in lowest and int(c.rank) < lowest[c.suit]]
        return _high(forcing) if forcing else _low(legal)
    lead = played[0].card.suit
    top = trick_winner(trick, None)
    if top is not None and top.seat == declarer:
        # He is winning it: stay under him (the highest card that does, to keep low ones).
        # Forced over him, the trick is ours anyway: throw the highest card and keep the
        # low ones that may still force him.
        under = [c for c in legal if not beats(c, top.card, lead, None)]
        return _high(under or legal)
    following = [c for c in legal if c.suit is lead]
    if not following:
        return _high(legal)  # a discard: keep the low cards that force him later
    if lead in lowest:
        forcing = [c for c in following if int(c.rank) < lowest[lead]]
        if forcing:
            return _high(forcing)
    return _low(following)


def _same_side(view: SeatView, a: Seat | None, b: Seat) -> bool:
    pub = view.public
    if a is None:
        return False
    if a == b:
        return True
    return a != pub.declarer and b != pub.declarer


def _discard_low(legal: list[Card], trump: Suit | None) -> Card:
    side = [c for c in legal if c.suit is not trump]
    return _low(side or legal)


def _lead(
    view: SeatView, legal: list[Card], hand: frozenset[Card], gone: set[Card], mover: Seat
) -> Card:
    pub = view.public
    trump = pub.trump
    masters = [c for c in legal if _is_master(c, gone, hand)]
    if mover == pub.declarer and trump is not None:
        trumps_out = [
            Card(int(trump) * 8 + r)
            for r in range(8)
            if Card(int(trump) * 8 + r) not in gone and Card(int(trump) * 8 + r) not in hand
        ]
        mine = [c for c in legal if c.suit is trump]
        if trumps_out and mine:
            top = [c for c in mine if c in masters]
            return _high(top) if top else _low(mine)
    side_masters = [c for c in masters if c.suit is not trump]
    if side_masters:
        return _high(side_masters)
    if masters:
        return _high(masters)
    counts: dict[Suit, int] = {}
    for card in legal:
        counts[card.suit] = counts.get(card.suit, 0) + 1
    if mover != pub.declarer and trump is not None:
        counts.pop(trump, None)
    if not counts:
        return _low(legal)
    suit = max(counts, key=lambda s: (counts[s], -int(s)))
    return _low([c for c in legal if c.suit is suit])


def _duck(legal: list[Card], trick: tuple[TrickCard, ...], trump: Suit | None, seated: int) -> Card:
    """Avoid the trick: the highest card that stays under, else get rid of a high one."""
    if not trick:
        return _low(legal)
    leader = trick_winner(trick, trump)
    lead = trick[0].card.suit
    if leader is None:
        # Only a talon card on the table: follow as low as possible.
        return _low(legal)
    under = [c for c in legal if not beats(c, leader.card, lead, trump)]
    if under:
        return _high(under)
    return _high(legal) if seated == 2 else _low(legal)
