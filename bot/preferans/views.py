"""Views: what the table may see (:class:`PublicView`) and what one seat sees (:class:`SeatView`).

The rest of the program sees a deal only through these, so a hidden card cannot leak
by mistake: a public view never holds a closed hand, the discard or an unturned talon
card; a seat view adds only that seat's own cards (and, in open defence, the passer's
cards the whister moves — which lie face up anyway — and, while it must answer an
offer, the offerer's hand).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .actions import Action, Bid, Offer, Whist
from .cards import Card, Suit, sort_hand
from .contracts import Contract
from .deal import Deal, Phase, Trick, TrickCard
from .outcome import DealKind, Defence
from .seats import Seat

__all__ = ["PublicView", "SeatView", "public_view", "seat_view"]


@dataclass(frozen=True, slots=True)
class PublicView:
    """Everything everyone at the table may see right now."""

    players: int
    dealer: Seat
    first_hand: Seat
    phase: Phase
    to_act: Seat | None
    actor: Seat | None
    auction: tuple[Bid, ...]
    highest_bid: Contract | None
    highest_bidder: Seat | None
    passed: frozenset[Seat]
    kind: DealKind | None
    declarer: Seat | None
    bid: Contract | None
    contract: Contract | None
    trump: Suit | None
    talon: tuple[Card, ...]
    """Talon cards turned face up so far."""
    whists: tuple[Whist, ...]
    whisters: tuple[Seat, ...]
    """Defenders whose answer stands at whist (a returned whist included)."""
    returned_whist: Seat | None
    """The defender who returned a half-whist (Кодекс 3.8.8), if one did."""
    defence: Defence | None
    open_passer: Seat | None
    """In open defence, the passer whose cards the lone whister moves."""
    open_hands: dict[Seat, tuple[Card, ...]]
    hand_sizes: tuple[int, ...]
    trick_number: int
    current_trick: tuple[TrickCard, ...]
    last_trick: Trick | None
    tricks: tuple[int, ...]
    offer: Offer | None = None
    """An offer waiting for answers (record format, "Offers"); its hand is not public."""
    offer_answerers: tuple[Seat, ...] = ()
    """The seats that answer the open offer, in order (the one due is :attr:`actor`)."""
    offer_accepted: tuple[Seat, ...] = ()
    """Those of :attr:`offer_answerers` who have accepted so far."""
    played_tricks: tuple[Trick, ...] = ()
    """Every finished trick of this deal: each was played face up, so the whole table has
    seen it (which suits a player could not follow, which cards are gone)."""

    def visible_cards(self) -> frozenset[Card]:
        """Every card this view shows (for privacy checks)."""
        cards: set[Card] = set(self.talon)
        for hand in self.open_hands.values():
            cards.update(hand)
        cards.update(tc.card for tc in self.current_trick)
        if self.last_trick is not None:
            cards.update(tc.card for tc in self.last_trick.cards)
        for trick in self.played_tricks:
            cards.update(tc.card for tc in trick.cards)
        return frozenset(cards)


@dataclass(frozen=True, slots=True)
class SeatView:
    """The public view plus what ``seat`` alone may see, and its legal actions."""

    public: PublicView
    seat: Seat
    hand: tuple[Card, ...]
    controlled: dict[Seat, tuple[Card, ...]] = field(default_factory=dict)
    """Other hands this seat moves (the passer's, for an open-defence whister)."""
    discard: tuple[Card, ...] = ()
    """The declarer's own discard, until the first lead (Кодекс 3.4.9)."""
    remembered_discard: tuple[Card, ...] = ()
    """The declarer's discard after the first lead: he may no longer look at it
    (Кодекс 3.4.9) but knows what he put there. Never shown, only reasoned with."""
    legal: tuple[Action, ...] = ()
    offer_hand: tuple[Card, ...] = ()
    """The offerer's hand while his offer waits for this seat's answer (record format,
    "Offers": shown to the players who must answer)."""
    offers: tuple[Offer, ...] = ()
    """The usual offers this seat may make now (kept apart from :attr:`legal`)."""

    @property
    def my_turn(self) -> bool:
        return bool(self.legal)

    def visible_cards(self) -> frozenset[Card]:
        cards = set(self.public.visible_cards())
        cards.update(self.hand)
        cards.update(self.discard)
        cards.update(self.remembered_discard)
        cards.update(self.offer_hand)
        for hand in self.controlled.values():
            cards.update(hand)
        return frozenset(cards)


_SEATS = tuple(Seat)


def public_view(deal: Deal) -> PublicView:
    """What the whole table may see now."""
    open_hands = {s: tuple(sort_hand(deal.hand(s))) for s in sorted(deal.open_hands)}
    open_offer = deal.open_offer
    return PublicView(
        players=deal.players,
        dealer=deal.dealer,
        first_hand=deal.first_hand,
        phase=deal.phase,
        to_act=deal.to_act,
        actor=deal.actor,
        auction=deal.auction,
        highest_bid=deal.highest_bid,
        highest_bidder=deal.highest_bidder,
        passed=deal.passed,
        kind=deal.kind,
        declarer=deal.declarer,
        bid=deal.bid,
        contract=deal.contract,
        trump=deal.trump,
        talon=deal.talon_shown,
        whists=deal.whist_answers,
        whisters=deal.whisters,
        returned_whist=_returned_whist(deal.whist_answers),
        defence=deal.defence,
        open_passer=deal.open_passer,
        open_hands=open_hands,
        hand_sizes=tuple(len(deal.hand(s)) for s in _SEATS[: deal.players]),
        trick_number=deal.trick_number,
        current_trick=deal.current_trick,
        last_trick=deal.last_trick,
        tricks=tuple(deal.tricks),
        offer=None if open_offer is None else open_offer.offer,
        offer_answerers=() if open_offer is None else open_offer.answerers,
        offer_accepted=() if open_offer is None else open_offer.accepted_by(),
        played_tricks=deal.played_tricks,
    )


def seat_view(deal: Deal, seat: Seat, public: PublicView | None = None) -> SeatView:
    """What the player at ``seat`` may see now, with his legal actions when it is his turn.

    ``public``: :func:`public_view` of ``deal`` as it is now, if the caller has it (a
    view of another state would be shown as this one's), else it is built here.
    """
    seat = Seat(seat)
    if not 0 <= int(seat) < deal.players:
        raise ValueError(f"no seat {int(seat)} at a table of {deal.players}")
    if public is None:
        public = public_view(deal)
    controlled: dict[Seat, tuple[Card, ...]] = {}
    passer = deal.open_passer
    if passer is not None and deal.phase is Phase.PLAY and seat in deal.whisters:
        # Кодекс 3.8.5: in open defence the lone whister moves the passer's cards.
        controlled[passer] = tuple(sort_hand(deal.hand(passer)))
    discard: tuple[Card, ...] = ()
    remembered: tuple[Card, ...] = ()
    if seat == deal.declarer and deal.discard:
        if _before_first_lead(deal):
            discard = deal.discard
        else:
            remembered = deal.discard
    return SeatView(
        public=public,
        seat=seat,
        hand=tuple(sort_hand(deal.hand(seat))),
        controlled=controlled,
        discard=discard,
        remembered_discard=remembered,
        legal=tuple(deal.legal_actions_for(seat)),
        offer_hand=_offer_hand(deal, seat),
        offers=tuple(deal.offer_actions_for(seat)),
    )


def _offer_hand(deal: Deal, seat: Seat) -> tuple[Card, ...]:
    open_offer = deal.open_offer
    if open_offer is None or seat not in open_offer.answerers:
        return ()
    return tuple(sort_hand(deal.hand(open_offer.offer.seat)))


def _returned_whist(answers: tuple[Whist, ...]) -> Seat | None:
    seats = [w.seat for w in answers]
    for i, seat in enumerate(seats):
        if seat in seats[:i]:
            return seat
    return None


def _before_first_lead(deal: Deal) -> bool:
    if deal.phase in (Phase.CONTRACT, Phase.WHIST, Phase.DEFENCE):
        return True
    return deal.phase is Phase.PLAY and deal.trick_number == 1 and not deal.current_trick
