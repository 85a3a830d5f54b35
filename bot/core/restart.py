"""A table loaded after a restart: brought in line with its game, and what to show again.

The group sees again what it was not shown before the bot stopped
(:class:`~bot.core.model.Unshown`): a started game's lobby, ended deals, the settlement;
then the lobby or the current deal, and the timer is re-armed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Literal

from . import play
from .effects import (
    DealEnded,
    DealShown,
    Effect,
    GameOver,
    GameStopped,
    LobbyClosed,
    LobbyShown,
    TimerChanged,
)
from .model import Slot, Status, Table

__all__ = ["reopen", "Shown", "due", "mark_shown"]

log = logging.getLogger(__name__)


def reopen(table: Table, now: float, seed: int | None) -> list[Effect]:
    """Bring a loaded table in line with its game; what the group must see again."""
    effects: list[Effect] = []
    game = table.game
    if table.status == Status.PLAYING:
        if game is None:
            table.status = Status.CANCELLED
        elif game.over:
            table.status = Status.OVER
            table.deadline = None
            table.unshown.settlement = True
        elif game.current is None:
            effects += play.next_deal(table, now, seed)
        elif table.deadline is None:
            play.arm(table, now)
    if table.paused:
        return []  # the bot is not in the group: shown when it is added back
    u = table.unshown
    if table.status in (Status.PLAYING, Status.OVER) and u.lobby_message is not None:
        slot = Slot(table.chat_id, u.lobby_message)
        effects.append(LobbyClosed(table, slot, Status.PLAYING))
    for end in list(u.ends):
        if game is None or not 1 <= end.deal_no <= len(game.finished_deals):
            u.ends.remove(end)
            continue
        log.info("table %s: showing the end of deal %d again", table.id, end.deal_no)
        finished = game.finished_deals[end.deal_no - 1]
        effects.append(DealEnded(table, end.deal_no, finished, end.table_slot, end.hand_slots, {}))
    if table.status == Status.OVER and u.settlement and game is not None:
        log.info("table %s: posting the settlement again", table.id)
        if game.stopped and not u.ends:
            effects.append(GameStopped(table))
        effects.append(GameOver(table))
    if table.status == Status.LOBBY:
        effects.append(LobbyShown(table))
    elif table.status == Status.PLAYING and not any(isinstance(e, DealShown) for e in effects):
        effects.append(DealShown(table))
    effects.append(TimerChanged(table))
    return effects


@dataclass(frozen=True, slots=True)
class Shown:
    """Something the group was due to see: the end of deal ``deal_no``, the settlement,
    or the closing of a started game's lobby."""

    kind: Literal["end", "settlement", "lobby"]
    deal_no: int = 0


def due(table: Table, what: Shown) -> bool:
    """Whether ``what`` is still to be shown."""
    u = table.unshown
    if what.kind == "end":
        return any(e.deal_no == what.deal_no for e in u.ends)
    if what.kind == "settlement":
        return u.settlement
    return u.lobby_message is not None


def mark_shown(table: Table, what: Shown) -> tuple[()]:
    """``what`` was shown (no effect to show)."""
    u = table.unshown
    if what.kind == "end":
        u.ends = [e for e in u.ends if e.deal_no != what.deal_no]
    elif what.kind == "settlement":
        u.settlement = False
    else:
        u.lobby_message = None
    return ()
