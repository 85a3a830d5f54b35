"""The computer players' seats: seated in the lobby, acting on their turn, taking over a
seat that kept timing out and giving it back (:mod:`.robots` holds the changes).

A part of :class:`~bot.core.service.TableService`, which owns the lock and the save: these
methods change a table only through its ``_change``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable

from bot.preferans.robot import Budget
from bot.preferans.robot.hints import Hint
from bot.preferans.seats import Seat

from . import robots
from .effects import Effect, Effects, MustStartPrivate, TimerChanged
from .hints import Hints
from .model import Player, Table
from .names import StandIn, named
from .persist import SAVE_RETRY, NotSaved
from .play import Rejected
from .registry import TableRegistry

__all__ = ["RobotSeats"]


class RobotSeats(TableRegistry):
    """The computer players' part of the table service."""

    robot_budget: Budget
    """How hard computer players think over their cards."""
    stand_in: StandIn
    seed: int | None
    hints: Hints
    """The «💡» hints being worked out."""

    async def _change(
        self,
        table: Table,
        change: Callable[[Table], Iterable[Effect]],
        *,
        save: bool | None = None,
    ) -> Effects:
        raise NotImplementedError  # TableService: under the table's lock, then saved

    async def _sure(self, table: Table, changed: Awaitable[Effects]) -> Effects:
        raise NotImplementedError  # TableService: the offers the next person may rely on

    async def add_robot(self, table_id: int, user_id: int) -> Effects:
        """The owner seats a computer player in the lobby."""
        return await self._change(self._pressed(table_id), lambda tb: robots.add_robot(tb, user_id))

    async def remove_robot(self, table_id: int, user_id: int) -> Effects:
        return await self._change(
            self._pressed(table_id), lambda tb: robots.remove_robot(tb, user_id)
        )

    async def robot_move(self, table_id: int, move: int) -> Effects:
        """The computer player to act at ``move`` decides and acts.

        It decides from a snapshot of its seat's view only, in a worker thread and off the
        lock (a decision may take a second); the action applies only if the table did not
        move on meanwhile. A move that could not be saved is tried again a little later, as
        a person's timer is (nobody would press anything to make it go on).
        """
        table = self.tables.get(table_id)
        action = None if table is None else await robots.decide(table, move, self.robot_budget)
        if table is None or action is None:
            return ()
        changed = self._change(
            table, lambda tb: robots.apply_robot(tb, move, action, self.clock(), self.seed)
        )
        try:
            return await self._sure(table, changed)
        except NotSaved:
            table.ui.retry_at = self.clock() + SAVE_RETRY
            return (TimerChanged(table),)
        except Rejected:  # the table was closed meanwhile
            return ()

    async def hint(self, table_id: int, user_id: int, move: int) -> Hint:
        """What the strongest computer player would do for ``user_id`` on turn at ``move``
        (the table's «💡» button); changes nothing."""
        return await self.hints.get(self._pressed(table_id), user_id, move)

    async def replace_with_robot(self, table_id: int, seat: Seat, user_id: int) -> Effects:
        """A seated player gives the seat of one who kept timing out to a computer player."""
        return await self._change(
            self._pressed(table_id), lambda tb: robots.replace_with_robot(tb, seat, user_id)
        )

    async def take_back(self, table_id: int, seat: Seat, player: Player) -> Effects:
        """``player`` takes a computer player's seat (back), or is asked to open the private
        chat first."""
        table = self._pressed(table_id)
        robots.check_back(table, seat, player.user_id)
        if not await self.can_write(player.user_id):
            await self.remember_user(player)
            return (MustStartPrivate(table, player, seat),)
        await self.remember_user(player, private_ok=True)
        player = named(player, seat, table.settings.lang, self.stand_in)
        return await self._change(table, lambda tb: robots.take_back(tb, seat, player))
