"""Computer players at a table: seating them, their moves, replacing and being replaced.

A computer player is a :class:`~bot.core.model.Player` with a negative ``user_id`` (no
Telegram user has one, so it is stored, recorded and counted like anybody, and the
statistics tell it apart). Pure changes as in :mod:`bot.core.play`; the decision itself is
made by :func:`bot.preferans.robot.choose` from the seat's view only, off the lock
(:meth:`~bot.core.service.TableService.robot_move`), at the table's strength level
(:mod:`bot.preferans.robot.levels`).
"""

from __future__ import annotations

import asyncio
import logging
import random

from bot.preferans.actions import Action, Bid, Discard, Play, Whist
from bot.preferans.auto_moves import auto_action
from bot.preferans.robot import Budget, make_offer
from bot.preferans.robot.levels import choose_at, level_budget
from bot.preferans.seats import Seat, replaceable
from bot.preferans.views import SeatView

from . import play
from .effects import DealShown, Effect, LobbyShown, RobotReplaced, SeatTaken, TimerChanged
from .errors import Rejected
from .lobby import in_lobby
from .model import Player, Status, Table
from .modes import RobotPace
from .takeover import swap
from .viewcache import seat_view

__all__ = [
    "ROBOT_NAMES",
    "PACES",
    "is_robot",
    "add_robot",
    "remove_robot",
    "renamed",
    "robot_to_act",
    "decide",
    "apply_robot",
    "pause",
    "check_replace",
    "replace_with_robot",
    "check_back",
    "take_back",
]

log = logging.getLogger(__name__)

ROBOT_NAMES = {
    "ru": ("🤖 Пётр", "🤖 Ольга", "🤖 Фёдор", "🤖 Анна"),
    "en": ("🤖 Peter", "🤖 Olga", "🤖 Fedor", "🤖 Anna"),
}
"""The computer players' names by the group's language; the n-th has ``user_id`` -n-1."""

PACES = {RobotPace.FAST: (0.7, 0.4), RobotPace.NORMAL: (2.0, 1.2)}
"""Seconds a computer player waits before a bid or whist (a decision) and before a card or
a forced choice, by the table's pace setting: a person needs longer to decide than to
follow suit."""


def is_robot(player: Player | None) -> bool:
    return player is not None and player.is_robot


def _new_robot(table: Table) -> Player:
    """The first computer player not at the table yet, named in the group's language."""
    names = ROBOT_NAMES.get(table.settings.lang, ROBOT_NAMES["en"])
    taken = {p.user_id for p in table.seats if p is not None}
    n = next(i for i in range(len(names)) if -(i + 1) not in taken)
    return Player(-(n + 1), names[n], table.settings.lang)


def add_robot(table: Table, user_id: int) -> list[Effect]:
    """Seat a computer player in the first free seat (the table's owner only)."""
    in_lobby(table)
    if user_id != table.owner_id:
        raise Rejected("err.owner_only")
    if table.full:
        raise Rejected("err.full")
    seat = next(i for i, p in enumerate(table.seats) if p is None)
    table.seats[seat] = _new_robot(table)
    return [LobbyShown(table)]


def renamed(table: Table) -> list[Effect]:
    """Name the lobby's computer players in the group's language (after it changed)."""
    names = ROBOT_NAMES.get(table.settings.lang, ROBOT_NAMES["en"])
    for i, p in enumerate(table.seats):
        if p is not None and is_robot(p) and -p.user_id <= len(names):
            table.seats[i] = Player(p.user_id, names[-p.user_id - 1], table.settings.lang)
    return []


def remove_robot(table: Table, user_id: int) -> list[Effect]:
    """Take the last seated computer player away (the table's owner only)."""
    in_lobby(table)
    if user_id != table.owner_id:
        raise Rejected("err.owner_only")
    robots = [i for i, p in enumerate(table.seats) if is_robot(p)]
    if not robots:
        raise Rejected("err.no_robot")
    table.seats[robots[-1]] = None
    return [LobbyShown(table)]


def robot_to_act(table: Table) -> tuple[Player, SeatView] | None:
    """The computer player to act now and its seat's view (the only thing it may read)."""
    acting = table.to_act()
    if acting is None:
        return None
    deal, seat, player = acting
    if player is None or not is_robot(player):
        return None
    view = seat_view(deal, seat)
    return (player, view) if view.legal else None


def pause(table: Table) -> float | None:
    """How long the computer player to act waits before it acts (``None``: not its turn)."""
    found = robot_to_act(table)
    if found is None:
        return None
    think, follow = PACES.get(table.settings.robot_pace, PACES[RobotPace.NORMAL])
    legal = found[1].legal
    if len(legal) > 1 and isinstance(legal[0], Bid | Whist | Discard):
        return think
    if len(legal) > 1 and not isinstance(legal[0], Play):
        return (think + follow) / 2
    return follow


def apply_robot(
    table: Table, move: int, action: Action, now: float, seed: int | None
) -> list[Effect]:
    """Apply a computer player's ``action`` decided at ``move``; nothing if the table moved
    on meanwhile (a press, a takeover) or the seat is no longer a computer's."""
    if table.move != move:
        return []
    found = robot_to_act(table)
    if found is None or (action not in found[1].legal and action not in found[1].offers):
        return []
    player = found[0]
    press = f"robot:{move}"
    if isinstance(action, Discard):
        table.ui.discard_pick[action.seat] = action.cards
        return play.confirm_discard(table, player.user_id, move, press, now, seed)
    return play.act(table, player.user_id, move, press, action, now, seed)


def check_replace(table: Table, seat: Seat, user_id: int) -> None:
    """Raise unless a seated player may give ``seat`` (kept timing out) to a computer."""
    if table.status != Status.PLAYING or seat not in replaceable(table.timeouts):
        raise Rejected("err.not_replaceable")
    if is_robot(table.player(seat)):
        raise Rejected("err.not_replaceable")
    if table.seat_of(user_id) is None:
        raise Rejected("err.not_seated")
    people = [i for i, p in enumerate(table.seats) if p is not None and not is_robot(p)]
    if people == [seat]:  # computer players alone would play on in an empty room
        raise Rejected("err.last_person")


def replace_with_robot(table: Table, seat: Seat, user_id: int) -> list[Effect]:
    """A computer player takes the seat of a player who kept timing out (Кодекс 3.1.2)."""
    check_replace(table, seat, user_id)
    old = table.seats[seat]
    old_name = swap(table, seat, _new_robot(table))
    old_id, lang = (old.user_id, old.lang) if old is not None else (0, table.settings.lang)
    replaced = RobotReplaced(table, seat, old_name, old_id, lang)
    return [replaced, DealShown(table), TimerChanged(table)]


def check_back(table: Table, seat: Seat, user_id: int) -> None:
    """Raise unless ``user_id`` may take ``seat`` from the computer player holding it."""
    if table.status != Status.PLAYING or not is_robot(table.player(seat)):
        raise Rejected("err.not_replaceable")
    if table.seat_of(user_id) is not None:
        raise Rejected("err.already")


def take_back(table: Table, seat: Seat, player: Player) -> list[Effect]:
    """A person (the replaced player or anybody else) takes a computer player's seat."""
    check_back(table, seat, player.user_id)
    old_name = swap(table, seat, player)
    return [SeatTaken(table, seat, old_name, player), DealShown(table), TimerChanged(table)]


async def decide(table: Table, move: int, budget: Budget) -> Action | None:
    """What the computer player to act at ``move`` plays or offers (``None``: none is to act).

    Decided from a snapshot of its seat's view only, in a worker thread (a decision may take
    a second), at the table's strength level within ``budget``, seeded by the table and the
    move so a restart decides the same (a weaker player's slips too).
    """
    found = robot_to_act(table) if table.move == move else None
    if found is None:
        return None
    view = found[1]
    level = table.settings.robot_level
    rng = random.Random(f"{table.seed}:robot:{move}")
    offer_rng = random.Random(f"{table.seed}:offer:{move}")  # leaves the card choice as it was
    slip_rng = random.Random(f"{table.seed}:slip:{move}")
    offer_budget = level_budget(level, budget)

    def think() -> Action:
        offer = make_offer(view, offer_rng, offer_budget)
        return offer or choose_at(view, rng, level, slip_rng, budget)

    try:
        return await asyncio.to_thread(think)
    except Exception:  # a player bug must not stall the table: play the safe action
        log.exception("table %s: the computer player failed at move %s", table.id, move)
        return auto_action(view)
