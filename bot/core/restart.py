"""A table loaded after a restart: brought in line with its game, and what to show again.

The group sees again what it was not shown before the bot stopped
(:class:`~bot.core.model.Unshown`): a started game's lobby, ended deals, the settlement;
then the lobby or the current deal, and the timer is re-armed. A table whose stored values
would break it (:func:`check`) is set aside instead.
"""

from __future__ import annotations

import logging
import math
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
from .model import SETTING_CHOICES, Status, Table

__all__ = ["check", "reopen", "Shown", "due", "mark_shown", "MOST_MOVES", "MOST_AHEAD"]

log = logging.getLogger(__name__)

MOST_MOVES = 10**9
"""The highest move counter a table may hold: a pulka takes a few thousand moves, and the
counter must stay a small integer in any database (it only grows)."""
MOST_AHEAD = 24 * 3600.0
"""Seconds ahead of now a stored deadline may be at most (a lobby waits half an hour, a
turn five minutes): one further off was not set by the bot (a timer cannot hold it)."""
_TURN_TIMES = [v for v in SETTING_CHOICES["turn_time"] if isinstance(v, int)]


def check(table: Table, now: float) -> None:
    """Raise ``ValueError`` naming the stored value that would break a loaded table: its
    timer, its messages, the next save or anybody's turn. A table read from its row
    holds whatever the row held; the storage keeps it as it is."""
    s = table.settings
    if s.players not in SETTING_CHOICES["players"]:
        raise ValueError(f"{s.players} players")
    if not 0 <= s.turn_time <= max(_TURN_TIMES):
        raise ValueError(f"a turn time of {s.turn_time} s")
    s.rules()  # an unknown convention or option raises
    if not 0 <= table.move <= MOST_MOVES:
        raise ValueError(f"move {table.move}")
    deadline = table.deadline
    if deadline is not None and not (math.isfinite(deadline) and deadline <= now + MOST_AHEAD):
        raise ValueError(f"a deadline {deadline - now:.3g} s ahead")
    people = [p.user_id for p in table.seats if p is not None]
    if len(set(people)) != len(people):
        raise ValueError("a player in two seats")
    if table.status == Status.PLAYING and not table.full:
        raise ValueError("an empty seat in a game")  # nobody could act there, nor stop it
    game = table.game
    if game is None:
        return
    if game.players != s.players:
        raise ValueError(f"a game of {game.players} at a table of {s.players}")
    started = len(game.finished_deals) + (game.current is not None or game.abandoned is not None)
    if started != table.deal_no:  # a deal row lost: the game would deal it again
        raise ValueError(f"deal {table.deal_no}, but the record holds {started} deal(s)")


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
    if table.status in (Status.PLAYING, Status.OVER) and u.lobby:
        effects.append(LobbyClosed(table, Status.PLAYING))
    for deal_no in list(u.ends):
        if game is None or not 1 <= deal_no <= len(game.finished_deals):
            u.ends.remove(deal_no)
            continue
        log.info("table %s: showing the end of deal %d again", table.id, deal_no)
        effects.append(DealEnded(table, deal_no, game.finished_deals[deal_no - 1], {}))
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
        return what.deal_no in u.ends
    if what.kind == "settlement":
        return u.settlement
    return u.lobby


def mark_shown(table: Table, what: Shown) -> tuple[()]:
    """``what`` was shown (no effect to show)."""
    u = table.unshown
    if what.kind == "end":
        u.ends = [n for n in u.ends if n != what.deal_no]
    elif what.kind == "settlement":
        u.settlement = False
    else:
        u.lobby = False
    return ()
