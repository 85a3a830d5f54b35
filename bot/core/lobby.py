"""The lobby of a table: seats, settings, cancelling and expiry.

Pure changes of a :class:`~bot.core.model.Table` (see :mod:`bot.core.play`): each checks
first and raises :class:`~bot.core.errors.Rejected` before it changes anything.
"""

from __future__ import annotations

from dataclasses import replace

from bot.preferans.seats import Seat

from .effects import Effect, LobbyClosed, LobbyShown, Seated, TimerChanged
from .errors import Rejected
from .model import SETTING_CHOICES, TABLE_KEYS, Player, Status, Table
from .names import StandIn, clean_name, named

__all__ = [
    "in_lobby",
    "check_sit",
    "sit",
    "wait",
    "stand",
    "show_settings",
    "change_setting",
    "cancel",
    "expire",
]


def in_lobby(table: Table) -> None:
    if table.status != Status.LOBBY:
        raise Rejected("err.stale")


def check_sit(table: Table, user_id: int) -> None:
    """Raise unless ``user_id`` may sit down now."""
    in_lobby(table)
    if table.seat_of(user_id) is not None:
        raise Rejected("err.already")
    if table.full:
        raise Rejected("err.full")


def sit(table: Table, player: Player, stand_in: StandIn | None = None) -> list[Effect]:
    """Seat ``player`` in the first free seat (he can be written to privately); a name
    that shows nothing is replaced by ``stand_in``'s."""
    check_sit(table, player.user_id)
    seat = Seat(next(i for i, p in enumerate(table.seats) if p is None))
    if stand_in is not None:
        player = named(player, seat, table.settings.lang, stand_in)
    table.seats[seat] = player
    table.waiting = [p for p in table.waiting if p.user_id != player.user_id]
    return [Seated(table, seat, player), LobbyShown(table)]


WAITING_SHOWN = 5
"""At most this many people waiting for their private chat are listed (the latest)."""


def wait(table: Table, player: Player) -> list[Effect]:
    """``player`` pressed «Сесть» but the bot cannot write to him yet: the lobby lists him
    until he opens the private chat (then he sits down) or stands up."""
    check_sit(table, player.user_id)
    if any(p.user_id == player.user_id for p in table.waiting):
        return []
    player = replace(player, name=clean_name(player.name))  # shown, never recorded
    table.waiting = [*table.waiting, player][-WAITING_SHOWN:]
    return [LobbyShown(table)]


def stand(table: Table, user_id: int) -> list[Effect]:
    """Stand up; or, for one still waiting for his private chat, no longer wait."""
    in_lobby(table)
    seat = table.seat_of(user_id)
    if seat is None:
        waiting = [p for p in table.waiting if p.user_id != user_id]
        if len(waiting) == len(table.waiting):
            raise Rejected("err.not_seated")
        table.waiting = waiting
        return [LobbyShown(table)]
    table.seats[seat] = None
    return [LobbyShown(table)]


def show_settings(table: Table, user_id: int, shown: bool) -> list[Effect]:
    """Open (the owner only) or close the lobby's settings keyboard."""
    in_lobby(table)
    if shown and user_id != table.owner_id:
        raise Rejected("err.owner_only")
    table.ui.settings_open = shown
    return [LobbyShown(table)]


def change_setting(table: Table, user_id: int, key: str) -> list[Effect]:
    """Cycle one setting to its next choice (the table's owner only)."""
    in_lobby(table)
    if user_id != table.owner_id:
        raise Rejected("err.owner_only")
    choices = SETTING_CHOICES.get(key)
    if choices is None:
        raise Rejected("err.stale")
    s = table.settings
    current = s.value(key)
    index = choices.index(current) if current in choices else -1
    value = choices[(index + 1) % len(choices)]
    if key in TABLE_KEYS:
        setattr(s, key, value)
        if key == "players":
            assert isinstance(value, int)
            table.resize(value)
        if key == "convention":
            s.options.pop("whist_type", None)  # back to the new convention's preset
    else:
        assert not isinstance(value, int) or isinstance(value, bool)
        s.options[key] = value
        if value == s.rules().convention.defaults.get(key):
            s.options.pop(key)
    return [LobbyShown(table)]


def _close(table: Table, status: Status) -> list[Effect]:
    table.status = status
    table.deadline = None
    table.ui.settings_open = False
    return [LobbyClosed(table, status), TimerChanged(table)]


def cancel(table: Table, user_id: int) -> list[Effect]:
    in_lobby(table)
    if user_id != table.owner_id:
        raise Rejected("err.owner_only")
    return _close(table, Status.CANCELLED)


def expire(table: Table, now: float) -> list[Effect]:
    """Close a lobby nobody started; nothing if it is not due (or not a lobby)."""
    if table.status != Status.LOBBY or table.deadline is None:
        return []
    if now < table.deadline:
        return [TimerChanged(table)]
    return _close(table, Status.EXPIRED)
