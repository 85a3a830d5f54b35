"""The tables' timers on python-telegram-bot's JobQueue (``run_once``).

Each table has at most one set of jobs, armed from its saved deadline after every change
(:class:`~bot.core.effects.TimerChanged`): a lobby's expiry, or the turn's reminder and
timeout, and a forced card's pause; a closed table's eviction from memory. A job keyed to
an old move does nothing, but a turn's half-time tick: a move keeps the earlier move's tick
(due sooner) instead of replacing it, and that tick, once it runs, arms the current one.

Every job runs, however late (:func:`configure_jobs`): APScheduler's default would drop a
job whose time passed more than a second ago -- when the event loop was busy -- and a
computer player's move, a forced card or a turn's timeout would never happen.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from enum import StrEnum
from typing import Any, Final, cast

from telegram.ext import CallbackContext, Job, JobQueue

from bot.core.effects import Effects
from bot.core.forced import forced_move
from bot.core.model import Status, Table
from bot.core.robots import pause
from bot.core.service import TableService

__all__ = [
    "Scheduler",
    "JobKind",
    "REMIND_BEFORE",
    "NUDGE_AFTER",
    "EVICT_AFTER",
    "FORCED_PAUSE",
    "turn_jobs",
    "configure_jobs",
    "JOB_DEFAULTS",
]

log = logging.getLogger(__name__)

REMIND_BEFORE = 15.0
"""Seconds before the turn deadline when the player is reminded (at most a third of it)."""
NUDGE_AFTER = 60.0
"""With the turn timer off, seconds after which the player to act is reminded once: the
only ping a player who wants one "only when I am slow" gets then (a minute is long for a
bid or a card, short enough that the table is not left waiting for long)."""
FORCED_PAUSE = 1.0
"""Seconds a player's only legal card waits before it plays itself (he sees it coming)."""
EVICT_AFTER = 600.0
"""Seconds a closed table stays in memory (late presses on it get the precise answers)."""


class JobKind(StrEnum):
    """What a table's timer does when it goes off (:meth:`Scheduler.on_timer`)."""

    EVICT = "evict"
    """A closed table leaves memory."""
    EXPIRE = "expire"
    """An unstarted lobby expires."""
    ROBOT = "robot"
    """A computer player acts."""
    FORCED = "forced"
    """A player's only legal card plays itself."""
    REMIND = "remind"
    """The player to act is reminded."""
    TICK = "tick"
    """Half of the turn's time is gone: the hand message shows the time left."""
    TURN = "turn"
    """The turn's time ran out."""


JOB_DEFAULTS: Final = {"misfire_grace_time": None, "coalesce": True}
"""APScheduler's defaults for every job: run however late (no grace after which a job is
dropped as "missed"); a repeating job that fell behind runs once, not once per missed time."""


def configure_jobs(job_queue: JobQueue[Any] | None) -> None:
    """Make every job of ``job_queue`` run even when late (:data:`JOB_DEFAULTS`; before it
    starts) and keep the scheduler's routine lines (a job added, run, done: one each per
    timer) off the INFO log; its warnings and errors still show."""
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
    if job_queue is not None:
        # configure() replaces the whole configuration: PTB's own goes in again
        job_queue.scheduler.configure(
            job_defaults=JOB_DEFAULTS, **job_queue.scheduler_configuration
        )


def turn_jobs(turn: int, delay: float | None) -> list[tuple[float, JobKind]]:
    """The jobs of a person's turn as (seconds from now, kind), ``delay`` seconds before its
    deadline (``None``: the timer is off, ``turn`` is 0).

    The hand message shows the time left rounded up to 5 s, so it is never less than the
    real time; an edit brings it up to date at half time ("tick") and at the reminder. An
    absolute deadline ("until 21:04:30") would need no edits, but the bot does not know
    the player's time zone, and a countdown every few seconds would cost a request each
    (1 per second per chat at most): two edits per slow turn, none for a quick one.
    """
    if not turn or delay is None:
        return [(NUDGE_AFTER, JobKind.REMIND)]
    jobs = []
    before = min(REMIND_BEFORE, turn / 3)
    if turn / 2 >= before + 5 and delay > turn / 2:
        jobs.append((delay - turn / 2, JobKind.TICK))
    if turn >= 6 and delay > before:
        jobs.append((delay - before, JobKind.REMIND))
    jobs.append((delay + 0.05, JobKind.TURN))
    return jobs


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
        unseen: Callable[[Table], bool] = lambda table: False,
    ) -> None:
        self.jq = job_queue
        self.service = service
        self.show = show
        self.pending = pending
        """Whether something of the table is still queued to be shown (keeps it in memory)."""
        self.forgotten = forgotten
        """Called when a table left memory."""
        self.unseen = unseen
        """Whether the buttons of the table's player to act are still waiting to be sent
        (then his time does not run out: he would lose a turn he never saw)."""
        self.robot_scale = 1.0
        """Multiplies the computer players' pauses (tests make them short)."""
        self.forced_pause: float | None = FORCED_PAUSE
        """Seconds before a forced card plays itself (``None``: never; tests)."""
        self.timers: dict[int, list[Job[Any]]] = {}
        """Table id -> its scheduled jobs (looking them up by name scans every job)."""
        self.ticks: dict[int, tuple[Job[Any], float]] = {}
        """Table id -> its half-time tick among them and when it is due (the service's
        clock): a later move keeps it rather than replace it with a later one."""

    def arm(self, table: Table) -> None:
        """(Re)schedule the table's timer from its deadline and status."""
        jq = self.jq
        if jq is None:
            return
        name = f"table:{table.id}"
        plan = self._plan(table)
        old = self.timers.pop(table.id, [])
        tick = self.ticks.pop(table.id, None)
        if len(plan) == 1 and plan[0][1][0] == JobKind.TICK and tick is not None and tick[0] in old:
            job, due = tick
            if due <= self.service.clock() + plan[0][0] and jq.scheduler.get_job(job.job.id):
                # the last move's tick is kept: it comes first, finds the move changed and
                # arms this one then (a move at a person's pace costs no job)
                self.timers[table.id], self.ticks[table.id] = [job], tick
                old.remove(job)
                plan = []
        for job in old:
            if jq.scheduler.get_job(job.job.id) is not None:  # not run yet
                job.schedule_removal()
        jobs = self.timers.setdefault(table.id, [])
        for when, data in plan:
            job = jq.run_once(self._job, when, data=data, name=name)
            jobs.append(job)
            if data[0] == JobKind.TICK:
                self.ticks[table.id] = (job, self.service.clock() + when)

    def _plan(self, table: Table) -> list[tuple[float, tuple[JobKind, int, int]]]:
        """The table's jobs now, as (seconds from now, (kind, table id, move))."""
        if not table.status.open:
            # a closed table leaves memory once everything of it was shown (its rows stay)
            return [(EVICT_AFTER, (JobKind.EVICT, table.id, 0))]
        robot = pause(table)
        if robot is not None:  # a computer player acts after a pause; it never times out
            wait = robot * self.robot_scale
            if table.ui.retry_at is not None:  # its move was not saved: not before then
                wait = max(wait, table.ui.retry_at - self.service.clock())
            return [(wait, (JobKind.ROBOT, table.id, table.move))]
        plan = []
        if self.forced_pause is not None and not table.paused and forced_move(table) is not None:
            # the only legal card plays itself after a pause (if the player's setting allows)
            plan.append((self.forced_pause, (JobKind.FORCED, table.id, table.move)))
        if table.paused or (table.deadline is None and table.status != Status.PLAYING):
            return plan
        delay = max(0.0, table.deadline - self.service.clock()) if table.deadline else None
        if table.status == Status.LOBBY:
            return [*plan, ((delay or 0.0) + 0.05, (JobKind.EXPIRE, table.id, 0))]
        kinds = turn_jobs(table.settings.turn_time, delay)
        # every move arms them anew and a job costs the scheduler (its add and removal
        # are a good part of the bot's CPU per move): the half-time tick alone, which arms
        # the reminder and the timeout when it runs (most turns end before it; a late job
        # still runs, so the timeout is never lost)
        for when, kind in kinds[:1] if kinds[0][1] == JobKind.TICK else kinds:
            plan.append((when, (kind, table.id, table.move)))
        return plan

    async def _job(self, context: CallbackContext[Any, Any, Any, Any]) -> None:
        """A table's timer went off."""
        job = context.job
        assert job is not None
        kind, table_id, move = cast("tuple[JobKind, int, int]", job.data)
        await self.on_timer(kind, table_id, move)

    async def on_timer(self, kind: JobKind, table_id: int, move: int) -> None:
        """Expire a lobby, remind a player, act for him, let a computer player act, or
        evict a closed table."""
        match kind:
            case JobKind.EVICT:
                table = self.service.registry.get(table_id)
                if table is not None:
                    self.evict(table)
            case JobKind.EXPIRE:
                self.show(await self.service.expire(table_id))
            case JobKind.ROBOT:
                self.show(await self.service.robots.robot_move(table_id, move))
            case JobKind.FORCED:
                self.show(await self.service.forced_play(table_id, move))
            case JobKind.REMIND:
                self.show(self.service.registry.remind(table_id, move))
            case JobKind.TICK:
                try:  # (nothing for an older move)
                    self.show(self.service.registry.tick(table_id, move))
                finally:  # the timeout is armed only now: never lost to a failed edit
                    self.ticks.pop(table_id, None)
                    table = self.service.registry.get(table_id)
                    if table is not None and table.status.open:
                        # the reminder and the timeout from now, or (a tick kept from an
                        # earlier move) the current move's tick
                        self.arm(table)
            case _:  # JobKind.TURN
                table = self.service.registry.get(table_id)
                late = table is not None and self.unseen(table)
                self.show(await self.service.timeout(table_id, move, unseen=late))

    def evict(self, table: Table) -> bool:
        """Forget a closed table that was shown in full; else try again later."""
        if self.pending(table.id) or not self.service.registry.forget(table.id):
            if not table.status.open:
                self.arm(table)
            return False
        self.timers.pop(table.id, None)
        self.ticks.pop(table.id, None)
        self.forgotten(table.id)
        return True
