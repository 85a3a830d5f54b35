"""Is an offer worth accepting? The offer against best play, by the exact solver.

An offer ("остальные мои", record format "Offers") is *guaranteed* for a seat when it
gives the seat's side at least what that side takes from here with best play against
it, every card known: a declarer in a trick game counts his own tricks (the more the
better), a defender counts the declarer's (the fewer the better); on misère the other
way round; on all-pass each player counts his own tricks, the other two playing against
him. The rule lives in :func:`gives_best`; :class:`OfferCheck` is a frozen snapshot of a
live deal that can be solved off the event loop.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

from .actions import Offer
from .cards import Seat
from .deal import Deal, Phase
from .outcome import DealKind
from .solver import BudgetExceeded, Goal, Position, Solver

__all__ = [
    "counted_seat",
    "wants_more",
    "gives_best",
    "goal_for",
    "offer_position",
    "OfferCheck",
    "offer_check",
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


@dataclass(frozen=True, slots=True)
class OfferCheck:
    """What to solve for the offers of one moment of a deal (a frozen snapshot)."""

    position: Position
    kind: DealKind
    declarer: Seat | None
    wanted: tuple[tuple[Seat, tuple[Offer, ...]], ...]
    """Each seat to advise, with the offers it decides on (makes or answers)."""

    def run(self, budget: int | None = None) -> dict[Seat, frozenset[Offer]]:
        """The offers guaranteed for each seat; a seat whose value the solver could not
        find within ``budget`` positions gets none (nothing is claimed unproved)."""
        goal = goal_for(self.kind)
        values: dict[Seat, int | None] = {}
        out: dict[Seat, frozenset[Offer]] = {}
        for seat, offers in self.wanted:
            counted = counted_seat(self.kind, self.declarer, seat)
            if counted not in values:
                try:
                    values[counted] = Solver(goal, counted).solve(self.position, budget=budget)
                except BudgetExceeded:
                    values[counted] = None
            value = values[counted]
            if value is None:
                continue
            sure = frozenset(
                o for o in offers if gives_best(o, seat, self.kind, self.declarer, value)
            )
            if sure:
                out[seat] = sure
        return out


def offer_check(deal: Deal, seats: Iterable[Seat]) -> OfferCheck | None:
    """The check of the offers ``seats`` decide on now: the open offer for the seat that
    answers it, the usual offers for the leader; ``None`` when there is nothing to check."""
    if deal.phase is not Phase.PLAY or deal.kind is None:
        return None
    wanted: list[tuple[Seat, tuple[Offer, ...]]] = []
    open_offer = deal.open_offer
    for seat in seats:
        if deal.actor != seat:
            continue
        if open_offer is not None:
            wanted.append((seat, (open_offer.offer,)))
        else:
            offers = tuple(deal.offer_actions_for(seat))
            if offers:
                wanted.append((seat, offers))
    if not wanted:
        return None
    return OfferCheck(offer_position(deal), deal.kind, deal.declarer, tuple(wanted))
