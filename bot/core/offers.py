"""Offers at a table ("остальные мои"): which of a person's offers the solver proves.

The rule (an offer must give a seat at least its best-play value in every layout of the
cards it cannot see) is the engine's (:mod:`bot.preferans.offer_marks`); here only when
to ask it and where its answer is kept, for the buttons' "✅ гарантировано".
:meth:`TableService.change <bot.core.service.TableService.change>` runs the check after
any change that passed the turn to a person answering an open offer, in a worker thread
off the lock, and notes it under the lock.

A leader's offers are checked only once he opens them (his hand shows one «🤝» button
instead of the offers): people seldom offer, and the check on every lead was about a tenth
of the bot's CPU. An open offer is checked for the seat that answers it when it is made.
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
from .play import turn_of

__all__ = [
    "OFFER_BUDGET",
    "SURE_LEADS_TRICKS",
    "offers_to_check",
    "note_sure",
    "checked",
    "open_offers",
]

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
    """What the solver should check for the person to act now without being asked: the
    open offer he answers ("✅" on his accept button; computer players judge offers
    themselves). His own offers wait until he opens them (:func:`open_offers`)."""
    if table.status != Status.PLAYING or table.game is None or table.game.current is None:
        return None
    deal = table.game.current
    actor = deal.actor
    player = table.player(actor) if actor is not None else None
    if actor is None or player is None or player.is_robot or deal.open_offer is None:
        return None
    return offer_check(deal, [actor])


def _opened(table: Table, move: int, seat: Seat, sure: frozenset[Offer] | None) -> list[Effect]:
    """Show (``sure``: the offers proved, maybe none) or hide ``seat``'s offer buttons at
    ``move``; nothing if the table moved on meanwhile."""
    if table.move != move:
        return []
    marks = {} if table.ui.offer_sure[0] != move else dict(table.ui.offer_sure[1])
    if sure is None:
        marks.pop(seat, None)
    else:
        marks[seat] = sure
    table.ui.offer_sure = (move, marks)
    return [HandShown(table, seat)]


async def open_offers(table: Table, user_id: int, move: int, shown: bool, note: Note) -> Effects:
    """``user_id`` opens (``shown``) or closes his offer buttons at ``move``: opening runs
    the solver's check of them in a worker thread off the lock (from
    :data:`SURE_LEADS_TRICKS` tricks left: earlier ones are shown without marks), noted
    under the lock by ``note``. Refused unless he is to act with offers to make."""
    seat, view = turn_of(table, user_id, move)
    if not view.offers:
        raise Rejected("err.stale")  # mid-trick or the deal moved on: no offers now
    if not shown:
        return await note(lambda tb: _opened(tb, move, seat, None))
    deal = table.game.current if table.game is not None else None
    check = None
    if deal is not None and 11 - deal.trick_number <= SURE_LEADS_TRICKS:
        check = offer_check(deal, [seat])  # early leads: the dearest to solve, rarely cold
    sure = await asyncio.to_thread(check.run, OFFER_BUDGET) if check is not None else {}
    return await note(lambda tb: _opened(tb, move, seat, sure.get(seat, frozenset())))


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
