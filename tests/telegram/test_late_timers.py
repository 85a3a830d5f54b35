"""The tables' timers run however late they are, and the scheduler keeps the INFO log quiet."""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import datetime
from pathlib import Path
from typing import Any, cast

import pytest

from bot.telegram.scheduler import JobKind
from tests.bot_helpers import open_and_start, running_bot
from tests.fakes import ManualClock

OLD_GRACE = 1.0
"""APScheduler's default ``misfire_grace_time``: a job later than this was dropped."""


async def test_a_job_runs_after_the_event_loop_was_held_past_the_grace(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        await open_and_start(h)
        # the table's own timers (its turn's) are armed to run however late
        jobs = h.rt.scheduler.timers[h.table().id]
        assert jobs
        assert [j.job.misfire_grace_time for j in jobs] == [None] * len(jobs)
        ran = asyncio.Event()

        async def mark(_: Any) -> None:
            ran.set()

        h.app.job_queue.run_once(mark, 0.0)
        # the loop is held (a long synchronous step) past the old grace before the
        # scheduler gets to look at the job
        time.sleep(OLD_GRACE + 0.3)
        await asyncio.wait_for(ran.wait(), 10)


async def test_the_scheduler_adds_and_runs_jobs_without_info_lines(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_bot(tmp_path) as h:
        ran = asyncio.Event()

        async def mark(_: Any) -> None:
            ran.set()

        with caplog.at_level(logging.INFO):
            h.app.job_queue.run_once(mark, 0.0)
            await asyncio.wait_for(ran.wait(), 10)
            await h.idle()
    assert logging.getLogger("apscheduler.scheduler").getEffectiveLevel() == logging.WARNING
    assert [r.getMessage() for r in caplog.records if r.name.startswith("apscheduler")] == []


async def test_a_turn_arms_its_tick_alone_and_the_tick_the_reminder_and_timeout(
    tmp_path: Path,
) -> None:
    """Each move arms its turn's jobs anew: the half-time tick alone at once, the reminder
    and the timeout once the tick ran (a job costs the scheduler; most turns end before)."""
    clock = ManualClock()
    async with running_bot(tmp_path, clock=clock) as h:
        await open_and_start(h)
        table = h.table()
        assert table.settings.turn_time == 60
        jobs = h.rt.scheduler.timers[table.id]
        assert [cast(tuple[str, ...], j.data)[0] for j in jobs] == ["tick"]
        clock.advance(30)  # half time: the tick runs
        await h.rt.scheduler.on_timer(JobKind.TICK, table.id, table.move)
        jobs = h.rt.scheduler.timers[table.id]
        assert [cast(tuple[str, ...], j.data)[0] for j in jobs] == ["remind", "turn"]
        due = {cast(tuple[str, ...], j.data)[0]: cast(datetime, j.next_t).timestamp() for j in jobs}
        due = {kind: at - time.time() for kind, at in due.items()}
        assert due["remind"] == pytest.approx(15, abs=2) and due["turn"] == pytest.approx(30, abs=2)


async def test_a_move_keeps_the_earlier_tick_and_that_tick_arms_the_current_one(
    tmp_path: Path,
) -> None:
    """A move at a person's pace costs the scheduler no job: the previous move's tick,
    due sooner, is kept; when it runs it finds the move changed and arms this move's tick
    (so the current turn's tick, reminder and timeout still come, on time)."""
    clock = ManualClock()
    async with running_bot(tmp_path, clock=clock) as h:
        await open_and_start(h)
        table = h.table()
        sched = h.rt.scheduler
        [first] = sched.timers[table.id]
        assert first.data == ("tick", table.id, table.move)
        clock.advance(10)
        await h.act(lambda deal, codes: "bP")
        assert table.move == first.data[2] + 1
        assert sched.timers[table.id] == [first]  # kept, not replaced
        clock.advance(20)  # the first tick's time: 30 s after the first turn began
        await sched.on_timer(*cast(tuple[JobKind, int, int], first.data))
        [tick] = sched.timers[table.id]
        assert tick is not first and tick.data == ("tick", table.id, table.move)
        assert tick.next_t is not None
        due = tick.next_t.timestamp() - time.time()
        assert due == pytest.approx(10, abs=2)  # 30 s after this move, 20 s of it passed
        clock.advance(10)
        await sched.on_timer(*cast(tuple[JobKind, int, int], tick.data))
        assert [cast(tuple[str, ...], j.data)[0] for j in sched.timers[table.id]] == [
            "remind",
            "turn",
        ]
