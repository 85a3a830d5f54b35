"""A person takes over the seat of a player who kept timing out (Кодекс 3.1.2).

A pure change of a :class:`~bot.core.model.Table` as in :mod:`bot.core.play`.
"""

from __future__ import annotations

from bot.preferans.seats import Seat, replaceable

from .effects import DealShown, Effect, SeatTaken, TimerChanged
from .errors import Rejected
from .model import Holder, Player, Status, Table

__all__ = ["check_take", "take_seat", "swap"]


def check_take(table: Table, seat: Seat, user_id: int) -> None:
    """Raise unless ``user_id`` may take over ``seat`` (Кодекс 3.1.2)."""
    if table.status != Status.PLAYING or seat not in replaceable(table.timeouts):
        raise Rejected("err.not_replaceable")
    if table.seat_of(user_id) is not None:
        raise Rejected("err.already")


def swap(table: Table, seat: Seat, player: Player) -> str:
    """Put ``player`` in ``seat`` from the current deal on (a person or a computer player,
    either way); returns the old holder's name. The old holder's marks and notes go."""
    old = table.seats[seat]
    table.seats[seat] = player
    if table.game is not None:
        table.game.replace_player(seat, player.name)
    table.holders.append(Holder(seat, max(table.deal_no, 1), player.user_id, player.name))
    table.timeouts[seat] = 0
    table.stop_votes.discard(seat)
    table.ui.hand_auto.pop(seat, None)
    table.ui.discard_pick.pop(seat, None)
    table.move += 1
    return old.name if old is not None else f"#{int(seat) + 1}"


def take_seat(table: Table, seat: Seat, player: Player) -> list[Effect]:
    """``player`` replaces the player of a seat who kept timing out (Кодекс 3.1.2)."""
    check_take(table, seat, player.user_id)
    old = table.seats[seat]
    old_name = swap(table, seat, player)
    old_id, lang = (old.user_id, old.lang) if old is not None else (0, table.settings.lang)
    taken = SeatTaken(table, seat, old_name, player, old_id, lang)
    return [taken, DealShown(table), TimerChanged(table)]
