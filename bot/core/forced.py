"""A forced card plays itself: when the player to act has exactly one legal
card (the engine's :func:`~bot.preferans.auto_moves.forced_card`), it is played for him after
a short pause, if his setting allows; on the last trick every remaining card follows.

Pure changes as in :mod:`bot.core.play`; the pause is the scheduler's, the setting is
read by :meth:`~bot.core.service.TableService.forced_play` before the change.
"""

from __future__ import annotations

from collections.abc import Collection

from bot.preferans.actions import Play
from bot.preferans.auto_moves import forced_card

from .effects import Effect
from .model import Table
from .play import apply_action
from .viewcache import seat_view

__all__ = ["forced_move", "play_forced"]


def forced_move(table: Table, *, robots: bool = False) -> Play | None:
    """The forced card of the player to act now, if he has no choice. A computer player's
    only with ``robots`` (it otherwise plays after its own pause)."""
    acting = table.to_act()
    if acting is None:
        return None
    deal, seat, player = acting
    if player is None or (player.is_robot and not robots):
        return None
    return forced_card(seat_view(deal, seat))


def play_forced(
    table: Table, move: int, allowed: Collection[int], now: float, seed: int | None
) -> list[Effect]:
    """Play the forced card of the player to act at ``move`` if ``allowed`` holds his user
    id; on the last trick go on while the next card is forced and allowed too. Nothing if
    the table moved on (a press, a timeout, a takeover) since the pause began."""
    if table.move != move:
        return []
    effects: list[Effect] = []
    deal_no = table.deal_no
    last = False
    while table.deal_no == deal_no:
        action = forced_move(table, robots=last)
        game = table.game
        assert game is not None
        deal = game.current
        if action is None or deal is None:
            break
        player = table.player(deal.actor) if deal.actor is not None else None
        if player is None or (player.user_id not in allowed and not player.is_robot):
            break
        # the last trick plays itself: every hand holds its one card (a computer's too)
        last = deal.trick_number == 10
        effects += apply_action(table, action, now, seed, auto=False, made=True)
        if not last:
            break
    return effects
