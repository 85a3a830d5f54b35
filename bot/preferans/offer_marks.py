"""Which offers a player is told are guaranteed («✅»): true whatever the cards he cannot see.

An offer is marked for a seat only when it gives the seat's side at least what best play
against it gives (:func:`~.offer_value.gives_best`) in *every* layout of the cards that
seat cannot see, consistent with what it knows: its own hand, the hands it moves, the open
hands, the cards played and the voids they showed, the talon, the offerer's hand shown to
those who answer (:mod:`.robot.knowledge`). Judged on the real layout alone a mark would
give the hidden cards away: a «✅» on «Без одной» would tell the declarer at her lead that
the defenders' cards beat her contract.

The layouts are dealt out one by one (:mod:`.robot.layouts`) and each is asked one
null-window question of the exact solver per offer still standing; a layout where an
offer falls short strikes it off. Where the layouts are too many, or the solver's budget
runs out before every layout is answered, nothing but the offers no layout can beat is
marked: a missing mark is a pity, a wrong one a leak. Cost: tests/perf/README.md, "Offers".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

from .actions import Offer
from .deal import Deal, Phase
from .offer_value import counted_seat, goal_for, wants_more
from .outcome import DealKind
from .robot.card_play import layout_position
from .robot.knowledge import knowledge_of
from .robot.layouts import every_layout, layout_count
from .seats import Seat
from .solver import BudgetExceeded, Solver
from .views import SeatView, seat_view

__all__ = ["MAX_LAYOUTS", "SeatCheck", "OfferCheck", "offer_check", "offer_buttons"]

MAX_LAYOUTS = 1000
"""Past this many layouts of the hidden cards only the offers no layout can beat are
marked. A declarer with 6 tricks left has 924 (her check cost up to ~0.13 s on the shared
2-core machine); with 7 left, 3,432, and with the cap lifted half those checks ran out of
the bot's 20,000 positions anyway (tests/perf/README.md, "Offers")."""


@dataclass(frozen=True, slots=True)
class SeatCheck:
    """One seat to advise: the offers it decides on (makes or answers) and what it sees."""

    seat: Seat
    offers: tuple[Offer, ...]
    view: SeatView


@dataclass(frozen=True, slots=True)
class OfferCheck:
    """What to solve for the offers of one moment of a deal (a frozen snapshot, solved off
    the event loop)."""

    kind: DealKind
    declarer: Seat | None
    leader: Seat | None
    """The hand on lead while an offer waits for answers (the view shows the answerer to
    act), else ``None``."""
    wanted: tuple[SeatCheck, ...]

    def run(self, budget: int | None = None) -> dict[Seat, frozenset[Offer]]:
        """The offers guaranteed for each seat, ``budget`` solver positions per seat."""
        goal = goal_for(self.kind)
        solvers: dict[Seat, Solver] = {}
        out: dict[Seat, frozenset[Offer]] = {}
        for check in self.wanted:
            counted = counted_seat(self.kind, self.declarer, check.seat)
            solver = solvers.setdefault(counted, Solver(goal, counted))
            sure = self._sure(check, solver, budget)
            if sure:
                out[check.seat] = sure
        return out

    def _sure(self, check: SeatCheck, solver: Solver, budget: int | None) -> frozenset[Offer]:
        more = wants_more(self.kind, self.declarer, check.seat)
        counted = solver.seat
        left = sum(check.offers[0].tricks)
        # All the tricks left to a seat that wants them (none to one that does not) cannot
        # be beaten in any layout; the rest must hold in each one.
        sure = {o for o in check.offers if o.tricks[counted] == (left if more else 0)}
        # The hardest to hold first: where it holds, every offer after it holds as well.
        pending = sorted(
            (o for o in check.offers if o not in sure),
            key=lambda o: o.tricks[counted],
            reverse=not more,
        )
        if not pending:
            return frozenset(sure)
        know = knowledge_of(check.view, certain=True)
        if layout_count(know) > MAX_LAYOUTS:
            return frozenset(sure)
        start = solver.nodes
        try:
            for hands, sink in every_layout(know):
                pos = layout_position(check.view, know, hands, sink)
                if self.leader is not None and not pos.trick and not pos.talon_leads:
                    pos = dataclasses.replace(pos, leader=self.leader)
                while pending:
                    t = pending[0].tricks[counted]
                    room = None if budget is None else budget - (solver.nodes - start)
                    if more:  # holds unless the counted seat can take more than t here
                        holds = not solver.at_least(pos, t + 1, budget=room)
                    else:  # holds unless the counted seat can be kept under t here
                        holds = solver.at_least(pos, t, budget=room)
                    if holds:
                        break
                    pending.pop(0)
                if not pending:
                    break
        except BudgetExceeded:
            return frozenset(sure)
        return frozenset(sure.union(pending))


def offer_check(deal: Deal, seats: Iterable[Seat]) -> OfferCheck | None:
    """The check of the offers ``seats`` decide on now: the open offer for the seat that
    answers it, the usual offers for the leader; ``None`` when there is nothing to check."""
    if deal.phase is not Phase.PLAY or deal.kind is None:
        return None
    wanted: list[SeatCheck] = []
    open_offer = deal.open_offer
    for seat in seats:
        if deal.actor != seat:
            continue
        if open_offer is None and not deal.offer_actions_for(seat):
            continue  # (mid-trick: no offers, and no view to build)
        view = seat_view(deal, seat)
        if open_offer is not None:
            offers: tuple[Offer, ...] = (open_offer.offer,)
        else:  # only those with a button: a mark on no button helps nobody
            offers = tuple(o for _, o in offer_buttons(view))
        if offers:
            if seat == deal.declarer and deal.discard:
                # Кодекс 3.4.9 bars looking at the discard after the first lead, not
                # remembering it: the declarer put those cards aside herself.
                view = dataclasses.replace(view, discard=deal.discard)
            wanted.append(SeatCheck(seat, offers, view))
    if not wanted:
        return None
    leader = open_offer.leader if open_offer is not None else None
    return OfferCheck(deal.kind, deal.declarer, leader, tuple(wanted))


def offer_buttons(sv: SeatView) -> list[tuple[str, Offer]]:
    """The offers worth a button (at most three, from ``sv.offers``), each with its kind:
    ``mine`` (the rest are mine); ``yours`` (to the declarer from a defender, to a whister
    from the declarer); ``one_down`` for a trick-game declarer. All-pass: only ``mine``
    (to give the others tricks, each would have to be named)."""
    pv = sv.public
    offers = sv.offers
    if not offers:
        return []
    me = offers[0].seat
    left = sum(offers[0].tricks)

    def all_to(seat: Seat | None) -> Offer | None:
        return next((o for o in offers if seat is not None and o.tricks[seat] == left), None)

    out: list[tuple[str, Offer | None]] = [("mine", all_to(me))]
    declarer = pv.declarer
    if pv.kind is not DealKind.ALL_PASS and declarer is not None:
        if me == declarer:
            seats = map(Seat, range(pv.players))
            others = [s for s in seats if s != me and any(o.tricks[s] for o in offers)]
            # the tricks given away go to a whister (the one who pays for them)
            whister = next((s for s in pv.whisters if s in others), others[0] if others else None)
            if pv.kind is DealKind.GAME and pv.contract is not None and whister is not None:
                down = pv.contract.level - pv.tricks[me] - 1
                one_down = next(
                    (o for o in offers if 0 < down == o.tricks[me] == left - o.tricks[whister]),
                    None,
                )
                out.append(("one_down", one_down))
            out.append(("yours", all_to(whister)))
        else:
            out.append(("yours", all_to(declarer)))
    return [(kind, o) for kind, o in out if o is not None][:3]
