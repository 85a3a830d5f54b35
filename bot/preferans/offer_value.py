"""Is an offer worth accepting? The offer against best play, by the exact solver.

With every card known, an offer ("остальные мои", record format "Offers") gives a seat
its best when it gives the seat's side at least what that side takes from here with best
play against it: a declarer in a trick game counts his own tricks (the more the better),
a defender counts the declarer's (the fewer the better); on misère the other way round;
on all-pass each player counts his own tricks, the other two playing against him. The
rule lives in :func:`gives_best`. A player does not know every card: which offers he is
told are guaranteed, over every layout of the cards he cannot see, is :mod:`.offer_marks`."""

from __future__ import annotations

import dataclasses

from .actions import Offer
from .deal import Deal
from .outcome import DealKind
from .seats import Seat
from .solver import Goal, Position

__all__ = [
    "counted_seat",
    "wants_more",
    "gives_best",
    "goal_for",
    "offer_position",
]


def counted_seat(kind: DealKind, declarer: Seat | None, seat: Seat) -> Seat:
    """Whose tricks decide for ``seat``: the declarer's in a trick game and on misère,
    his own on all-pass."""
    if kind is DealKind.ALL_PASS or declarer is None:
        return seat
    return declarer


def wants_more(kind: DealKind, declarer: Seat | None, seat: Seat) -> bool:
    """Whether ``seat`` wants the :func:`counted_seat`'s tricks high: the declarer of a
    trick game and the misère defenders do; a trick game's defenders, the misère declarer
    and every all-pass player want them low."""
    if kind is DealKind.GAME:
        return seat == declarer
    if kind is DealKind.MISERE:
        return seat != declarer
    return False


def gives_best(
    offer: Offer, seat: Seat, kind: DealKind, declarer: Seat | None, value: float
) -> bool:
    """Whether ``offer`` gives ``seat``'s side at least ``value``: the counted seat's
    tricks from here with best play against ``seat`` (or what ``seat`` expects)."""
    tricks = offer.tricks[counted_seat(kind, declarer, seat)]
    return tricks >= value if wants_more(kind, declarer, seat) else tricks <= value


def goal_for(kind: DealKind) -> Goal:
    """The solver's objective for a deal of ``kind``."""
    if kind is DealKind.MISERE:
        return Goal.MISERE
    if kind is DealKind.ALL_PASS:
        return Goal.ALL_PASS
    return Goal.TRICKS


def offer_position(deal: Deal) -> Position:
    """The open-card position of a deal in play; while an offer is open the trick's
    leader (not the seat answering) is on lead."""
    pos = Position.from_deal(deal)
    open_offer = deal.open_offer
    if open_offer is not None and not pos.trick and not pos.talon_leads:
        pos = dataclasses.replace(pos, leader=open_offer.leader)
    return pos
