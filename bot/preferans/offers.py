"""Offers ("остальные мои"): the leader proposes how the remaining tricks end.

Record format, "Offers": before the first card of a trick its leader may offer the
tricks each seat takes from those not yet played; the other seats that play answer in
turn from the offerer's left; one refusal withdraws the offer (the offerer still
leads), all accepting end the deal with the tricks taken so far plus the offer. In
open defence the lone whister offers and answers for both defenders (Кодекс 3.8.5:
he moves the passer's cards). The deal (deal.py) keeps the open offer and calls the
pure checks here, so these rules live in one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .actions import Accept, IllegalAction, Offer, Reason
from .seats import Seat

__all__ = [
    "OpenOffer",
    "offerer_for",
    "answer_order",
    "check_offer_shape",
    "verify_offer",
    "verify_answer",
    "sensible_offers",
    "after_offer",
    "accepted",
]


@dataclass(frozen=True, slots=True)
class OpenOffer:
    """An offer waiting for answers."""

    offer: Offer
    leader: Seat
    """The hand that leads the trick (it still leads if the offer is refused)."""
    answerers: tuple[Seat, ...]
    """Every seat that answers, in order from the offerer's left."""
    answered: int = 0
    """How many of :attr:`answerers` have accepted so far."""

    @property
    def waiting(self) -> Seat:
        """The seat whose answer is due."""
        return self.answerers[self.answered]

    def accepted_by(self) -> tuple[Seat, ...]:
        return self.answerers[: self.answered]


def offerer_for(leader: Seat, passer: Seat | None, whister: Seat | None) -> Seat:
    """Who decides for the leading hand: in open defence the whister moves the passer's."""
    if passer is not None and whister is not None and leader == passer:
        return whister
    return leader


def answer_order(offerer: Seat, active: Sequence[Seat], passer: Seat | None) -> tuple[Seat, ...]:
    """The seats that answer, clockwise from the offerer's left; the open-defence passer's
    answer is given by the whister, so he does not answer himself."""
    i = active.index(offerer) if offerer in active else 0
    order = [active[(i + k) % len(active)] for k in range(1, len(active))]
    return tuple(s for s in order if s != passer)


def check_offer_shape(offer: Offer, players: int) -> None:
    """Raise ``ValueError`` unless ``offer`` gives one whole, non-negative number of tricks
    per player: any other is the caller's bug (a record's move is parsed into this shape)."""
    tricks = offer.tricks
    if len(tricks) != players:
        raise ValueError(f"{offer}: give one number per player ({players})")
    if any(n < 0 for n in tricks):
        raise ValueError(f"{offer}: tricks cannot be negative")


def verify_offer(
    offer: Offer,
    *,
    players: int,
    playing: Sequence[Seat],
    may_offer: Seat,
    trick_started: bool,
    tricks_left: int,
) -> None:
    """Raise :class:`IllegalAction` unless ``offer`` fits (record format, "Offers")."""
    if trick_started:
        raise IllegalAction(
            Reason.OFFER_MID_TRICK,
            f"{offer}: a card of this trick is already played, offer before the lead",
        )
    if offer.seat != may_offer:
        raise IllegalAction(
            Reason.OFFER_NOT_LEADER,
            f"{offer}: only seat {int(may_offer)}, who leads this trick, may offer",
        )
    check_offer_shape(offer, players)
    tricks = offer.tricks
    for seat in range(players):
        if Seat(seat) not in playing and tricks[seat]:
            raise IllegalAction(
                Reason.OFFER_BAD_TRICKS,
                f"{offer}: seat {seat} does not play this deal and takes no tricks",
            )
    if sum(tricks) != tricks_left:
        raise IllegalAction(
            Reason.OFFER_BAD_TRICKS,
            f"{offer}: the numbers must sum to the {tricks_left} tricks left, not {sum(tricks)}",
        )


def verify_answer(answer: Accept, open_offer: OpenOffer | None) -> None:
    """Raise :class:`IllegalAction` unless ``answer`` is the answer due now."""
    if open_offer is None:
        raise IllegalAction(Reason.NO_OFFER, f"{answer}: there is no offer to answer")
    if answer.seat not in open_offer.answerers:
        raise IllegalAction(
            Reason.NOT_ANSWERING,
            f"{answer}: seat {int(answer.seat)} does not answer this offer "
            f"(seats {', '.join(str(int(s)) for s in open_offer.answerers)} do)",
        )
    if answer.seat != open_offer.waiting:
        raise IllegalAction(
            Reason.NOT_YOUR_TURN,
            f"{answer}: it is seat {int(open_offer.waiting)}'s turn to answer the offer",
        )


def after_offer(open_offer: OpenOffer, answer: Accept) -> OpenOffer | None:
    """The offer after ``answer``: ``None`` when refused, else with one more acceptance
    (all have accepted when :func:`accepted` says so)."""
    if not answer.accepted:
        return None
    return OpenOffer(
        open_offer.offer, open_offer.leader, open_offer.answerers, open_offer.answered + 1
    )


def accepted(open_offer: OpenOffer) -> bool:
    """Every answerer has accepted."""
    return open_offer.answered >= len(open_offer.answerers)


def sensible_offers(
    seat: Seat,
    *,
    players: int,
    playing: Sequence[Seat],
    tricks_left: int,
    declarer: Seat | None,
    declarer_needs: int | None,
) -> list[Offer]:
    """The usual offers of ``seat``: all the rest to one playing seat ("остальные мои",
    "остальные ваши"), and for a declarer in a trick game the contract exactly and one
    down (the rest to one defender). Any other fitting offer is legal too."""
    shares: list[dict[Seat, int]] = [{s: tricks_left} for s in playing]
    if declarer is not None and seat == declarer and declarer_needs is not None:
        defenders = [s for s in playing if s != declarer]
        for mine in (declarer_needs, declarer_needs - 1):
            if 0 < mine < tricks_left:
                shares.extend({declarer: mine, d: tricks_left - mine} for d in defenders)
    seen: set[tuple[int, ...]] = set()
    out: list[Offer] = []
    for share in shares:
        tricks = tuple(share.get(Seat(s), 0) for s in range(players))
        if tricks not in seen:
            seen.add(tricks)
            out.append(Offer(seat, tricks))
    return out
