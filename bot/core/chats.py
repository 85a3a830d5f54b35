"""What happens to the chats around a table, not to the game.

- The bot removed from a group: its open tables pause (no timer acts, no press is taken,
  the players hear it privately); added back, they resume with a fresh table message and
  a fresh turn clock.
- A group upgraded to a supergroup: its tables move to the new chat id and are shown
  again there.
- A player blocks the bot: the group is told once, a lobby seat is freed, a game seat is
  kept (the timer acts for him); unblocking brings his hand message back.

Pure changes of a :class:`~bot.core.model.Table`, run by the service under the lock.
"""

from __future__ import annotations

import logging

from .effects import (
    Effect,
    HandShown,
    LobbyShown,
    Paused,
    PlayerBlocked,
    Resumed,
    TableMoved,
    TimerChanged,
)
from .model import Status, Table
from .play import arm

__all__ = ["pause", "resume", "move_chat", "blocked", "unblocked"]

log = logging.getLogger(__name__)


def pause(table: Table) -> list[Effect]:
    """The bot cannot write to the group any more."""
    if table.paused or not table.status.open:
        return []
    table.paused = True
    return [Paused(table), TimerChanged(table)]


def resume(table: Table, now: float) -> list[Effect]:
    """The bot is in the group again: a fresh table message (the old one is far up)."""
    if not table.paused:
        return []
    table.paused = False
    if table.status == Status.PLAYING:
        arm(table, now)
    log.info("table %s resumed in chat %s", table.id, table.chat_id)
    return [Resumed(table), TimerChanged(table)]


def move_chat(table: Table, new_chat_id: int) -> list[Effect]:
    """The group is a supergroup now: the old chat cannot be written to."""
    table.chat_id = new_chat_id
    if not table.status.open:
        return []
    return [] if table.paused else [TableMoved(table)]


def blocked(table: Table, user_id: int) -> list[Effect]:
    """``user_id`` blocked the bot: unseat him from a lobby, tell the group once."""
    seat = table.seat_of(user_id)
    if seat is None:
        return []
    player = table.seats[seat]
    assert player is not None
    effects: list[Effect] = []
    if table.status == Status.LOBBY:
        table.seats[seat] = None
        effects.append(LobbyShown(table))
    if user_id not in table.blocked_noted:
        table.blocked_noted.add(user_id)
        effects.append(PlayerBlocked(table, player.name))
    return effects


def unblocked(table: Table, user_id: int, anew: bool = True) -> list[Effect]:
    """``user_id`` opened his private chat (again, or pressed /start there): his hand is
    sent anew as a new message (``anew``), so a player who lost his buttons can always get
    them back; else (a deep link, or his hand is the last message there) it is brought up
    to date where it is."""
    table.blocked_noted.discard(user_id)
    seat = table.seat_of(user_id)
    if seat is None or table.status != Status.PLAYING:
        return []
    return [HandShown(table, seat, anew=anew)]
