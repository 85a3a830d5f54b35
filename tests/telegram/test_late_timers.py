"""A timer the event loop could not run on time still runs, late: APScheduler's default
drops a job more than 1 s late with one WARNING (on a loaded machine, a turn timer or a
computer player's move lost, and the table waiting for ever)."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Any

import pytest

from tests.bot_helpers import running_bot


@pytest.mark.waits
async def test_a_timer_due_while_the_loop_was_held_runs_late(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_bot(tmp_path) as h:
        jobs = h.app.job_queue
        assert jobs is not None
        ran = asyncio.Event()

        async def due(context: Any) -> None:
            ran.set()

        caplog.set_level(logging.WARNING, "apscheduler")
        jobs.run_once(due, 0.05)
        time.sleep(1.5)  # the loop held (CPU starved, a long stretch): 1.45 s late
        await asyncio.wait_for(ran.wait(), 30)  # (the time-out only bounds a hang)
        assert [r.getMessage() for r in caplog.records if r.name.startswith("apscheduler")] == []
