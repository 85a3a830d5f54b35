"""The tables' timers on python-telegram-bot's JobQueue (``run_once``).

Each table has at most one set of jobs, armed from its saved deadline after every change
(:class:`~bot.core.effects.TimerChanged`): a lobby's expiry, or the turn's reminder and
timeout, and a forced card's pause; a closed table's eviction from memory. A job keyed to
an old move does nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, cast

from telegram.ext import ContextTypes, Job, JobQueue

from bot.core.effects import Effects
from bot.core.forced import forced_move
from bot.core.model import Status, Table
from bot.core.robots import pause
from bot.core.service import TableService

__all__ = ["Scheduler", "REMIND_BEFORE", "EVICT_AFTER", "FORCED_PAUSE"]

log = logging.getLogger(__name__)

REMIND_BEFORE = 15.0
"""Seconds before the turn deadline when the player is reminded (at most a third of it)."""
FORCED_PAUSE = 1.0
"""Seconds a player's only legal card waits before it plays itself (he sees it coming)."""
EVICT_AFTER = 600.0
"""Seconds a closed table stays in memory (late presses on it get the precise answers)."""


class Scheduler:
    """Arms and runs the tables' timers."""

    def __init__(
        self,
        job_queue: JobQueue[Any] | None,
        service: TableService,
        show: Callable[[Effects], None],
        *,
        pending: Callable[[int], bool] = lambda table_id: False,
        forgotten: Callable[[int], None] = lambda table_id: None,
    ) -> None:
        self.jq = job_queue
        self.service = service
        self.show = show
        self.pending = pending
        """Whether something of the table is still queued to be shown (keeps it in memory)."""
        self.forgotten = forgotten
        """Called when a table left memory."""
        self.robot_scale = 1.0
        """Multiplies the computer players' pauses (tests make them short)."""
        self.forced_pause: float | None = FORCED_PAUSE
        """Seconds before a forced card plays itself (``None``: never; tests)."""
        self.timers: dict[int, list[Job[Any]]] = {}
        """Table id -> its scheduled jobs (looking them up by name scans every job)."""

    def arm(self, table: Table) -> None:
        """(Re)schedule the table's timer from its deadline and status."""
        jq = self.jq
        if jq is None:
            return
        name = f"table:{table.id}"
        for job in self.timers.pop(table.id, ()):
            if jq.scheduler.get_job(job.job.id) is not None:  # not run yet
                job.schedule_removal()
        if not table.status.open:
            # a closed table leaves memory once everything of it was shown (its rows stay)
            data = ("evict", table.id, 0)
            self.timers[table.id] = [jq.run_once(self._job, EVICT_AFTER, data=data, name=name)]
            return
        robot = pause(table)
        if robot is not None:  # a computer player acts after a pause; it never times out
            data = ("robot", table.id, table.move)
            wait = robot * self.robot_scale
            self.timers[table.id] = [jq.run_once(self._job, wait, data=data, name=name)]
            return
        jobs: list[Job[Any]] = []
        self.timers[table.id] = jobs
        if self.forced_pause is not None and forced_move(table) is not None:
            # the only legal card plays itself after a pause (if the player's setting allows)
            data = ("forced", table.id, table.move)
            jobs.append(jq.run_once(self._job, self.forced_pause, data=data, name=name))
        if table.deadline is None or table.paused:
            return
        delay = max(0.0, table.deadline - self.service.clock())
        if table.status == Status.LOBBY:
            data = ("expire", table.id, 0)
            jobs.append(jq.run_once(self._job, delay + 0.05, data=data, name=name))
            return
        turn = table.settings.turn_time
        before = min(REMIND_BEFORE, turn / 3)
        if turn >= 6 and delay > before:
            data = ("remind", table.id, table.move)
            jobs.append(jq.run_once(self._job, delay - before, data=data, name=name))
        data = ("turn", table.id, table.move)
        jobs.append(jq.run_once(self._job, delay + 0.05, data=data, name=name))

    async def _job(self, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A table's timer went off."""
        job = context.job
        assert job is not None
        kind, table_id, move = cast("tuple[str, int, int]", job.data)
        await self.on_timer(kind, table_id, move)

    async def on_timer(self, kind: str, table_id: int, move: int) -> None:
        """Expire a lobby, remind a player, act for him, let a computer player act, or
        evict a closed table."""
        if kind == "evict":
            table = self.service.get(table_id)
            if table is not None:
                self.evict(table)
        elif kind == "expire":
            self.show(await self.service.expire(table_id))
        elif kind == "robot":
            self.show(await self.service.robot_move(table_id, move))
        elif kind == "forced":
            self.show(await self.service.forced_play(table_id, move))
        elif kind == "remind":
            self.show(self.service.remind(table_id, move))
        else:
            self.show(await self.service.timeout(table_id, move))

    def evict(self, table: Table) -> bool:
        """Forget a closed table that was shown in full; else try again later."""
        if self.pending(table.id) or not self.service.forget(table.id):
            if not table.status.open:
                self.arm(table)
            return False
        self.timers.pop(table.id, None)
        self.forgotten(table.id)
        return True
