"""Offers at a table ("остальные мои"): which of a person's offers the solver proves.

The rule (an offer must give a seat at least its best-play value in every layout of the
cards it cannot see) is the engine's (:mod:`bot.preferans.offer_marks`); here only when
to ask it and where its answer is kept, for the buttons' "✅ гарантировано".
:meth:`TableService.change <bot.core.service.TableService.change>` runs the check after
any change that passed the turn, in a worker thread off the lock, and notes it under the
lock.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable

from bot.preferans.actions import Offer
from bot.preferans.offer_marks import OfferCheck, offer_check
from bot.preferans.seats import Seat

from .effects import Effect, Effects, HandShown
from .errors import Rejected
from .model import Status, Table

__all__ = ["OFFER_BUDGET", "SURE_LEADS_TRICKS", "offers_to_check", "note_sure", "checked"]

Note = Callable[[Callable[[Table], Iterable[Effect]]], Awaitable[Effects]]
"""Runs a change of the table under its lock (the service's, never saved)."""

OFFER_BUDGET = 20_000
"""Solver positions (about a quarter of a second) for checking a person's offers over all
the layouts he cannot tell apart; past it only what no layout can beat is marked."""

SURE_LEADS_TRICKS = 7
"""A leader's offers are checked by the solver from this many tricks left (an open offer
is checked whenever it is made): each check then costs at most about a tenth of a second
(tests/perf/README.md, "Offers")."""


def offers_to_check(table: Table) -> OfferCheck | None:
    """What the solver should check for the person to act now ("✅ гарантировано" next to
    his offer or answer buttons; computer players judge offers themselves)."""
    if table.status != Status.PLAYING or table.game is None or table.game.current is None:
        return None
    deal = table.game.current
    actor = deal.actor
    player = table.player(actor) if actor is not None else None
    if actor is None or player is None or player.is_robot:
        return None
    if deal.open_offer is None and 11 - deal.trick_number > SURE_LEADS_TRICKS:
        return None  # early leads are the dearest to solve and cold claims come late
    return offer_check(deal, [actor])


def note_sure(table: Table, move: int, sure: dict[Seat, frozenset[Offer]]) -> list[Effect]:
    """Remember the offers proved guaranteed at ``move`` (nothing if the table moved on)."""
    if table.move != move or not sure:
        return []
    table.ui.offer_sure = (move, sure)
    return [HandShown(table, seat) for seat in sure]


async def checked(table: Table, before: int, effects: Effects, note: Note) -> Effects:
    """``effects`` of a change made at move ``before`` and, when the person to act now
    decides on offers, the solver's check of them: run in a worker thread off the lock,
    noted under it by ``note``."""
    if table.move == before:  # refused, undone or not due: nothing new to check
        return effects
    check = offers_to_check(table)
    if check is None:
        return effects
    move = table.move
    sure = await asyncio.to_thread(check.run, OFFER_BUDGET)
    try:
        return effects + await note(lambda tb: note_sure(tb, move, sure))
    except Rejected:  # the table was closed meanwhile
        return effects
