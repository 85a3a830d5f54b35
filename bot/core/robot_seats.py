"""The computer players' seats: seated in the lobby, acting on their turn, taking over a
seat that kept timing out (:mod:`.robots` holds the changes); the «💡» hint.

A part of :class:`~bot.core.service.TableService` (``service.robots``): it changes a table
only through the service's ``change``, which it is given.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.preferans.robot import Budget
from bot.preferans.robot.hints import Hint
from bot.preferans.seats import Seat

from . import robots
from .effects import Effects, TimerChanged
from .errors import NotSaved, Rejected
from .hints import Hints
from .model import Table
from .persist import SAVE_RETRY, Change
from .registry import Registry

__all__ = ["RobotSeats", "Changer"]

Changer = Callable[[int | Table, Change], Awaitable[Effects]]
"""The service's one way to change a table (locked, saved, its effects returned)."""


class RobotSeats:
    """The computer players of every table, and the hints they give people."""

    def __init__(
        self, registry: Registry, change: Changer, *, budget: Budget, seed: int | None
    ) -> None:
        self.registry = registry
        self.change = change
        self.budget = budget
        """How hard computer players think over their cards."""
        self.seed = seed
        self.hints = Hints()
        """The «💡» hints being worked out."""

    async def add_robot(self, table_id: int, user_id: int) -> Effects:
        """The owner seats a computer player in the lobby."""
        return await self.change(table_id, lambda tb: robots.add_robot(tb, user_id))

    async def remove_robot(self, table_id: int, user_id: int) -> Effects:
        return await self.change(table_id, lambda tb: robots.remove_robot(tb, user_id))

    async def robot_move(self, table_id: int, move: int) -> Effects:
        """The computer player to act at ``move`` decides and acts.

        It decides from a snapshot of its seat's view only, in a worker thread and off the
        lock (a decision may take a second); the action applies only if the table did not
        move on meanwhile. A move that could not be saved is tried again a little later, as
        a person's timer is (nobody would press anything to make it go on).
        """
        table = self.registry.get(table_id)
        action = None if table is None else await robots.decide(table, move, self.budget)
        if table is None or action is None:
            return ()
        clock = self.registry.clock
        try:
            return await self.change(
                table, lambda tb: robots.apply_robot(tb, move, action, clock(), self.seed)
            )
        except NotSaved:
            table.ui.retry_at = clock() + SAVE_RETRY
            return (TimerChanged(table),)
        except Rejected:  # the table was closed meanwhile
            return ()

    async def hint(self, table_id: int, user_id: int, move: int) -> Hint:
        """What the strongest computer player would do for ``user_id`` on turn at ``move``
        (the table's «💡» button); changes nothing."""
        return await self.hints.get(self.registry.pressed(table_id), user_id, move)

    async def replace_with_robot(self, table_id: int, seat: Seat, user_id: int) -> Effects:
        """A seated player gives the seat of one who kept timing out to a computer player."""
        return await self.change(table_id, lambda tb: robots.replace_with_robot(tb, seat, user_id))
