"""Hypothesis profiles: the suite draws the same examples on every run, so it fails only
when the code changes; ``--hypothesis-profile=explore`` draws new ones, many more, by hand."""

import os

from hypothesis import settings

# The bot opts in to PTB's time periods as timedelta when it builds its application
# (bot/app.py); tests that use the transport without an application run as it does.
os.environ["PTB_TIMEDELTA"] = "true"

settings.register_profile("default", derandomize=True, database=None)
settings.register_profile("explore", max_examples=2000, deadline=None)
settings.load_profile("default")


def pytest_xdist_auto_num_workers(config: object) -> int | None:
    """``-n auto``: two workers a core. Half of the suite's time is waiting, not CPU: bots
    started as processes of their own, Telegram's limits, timeouts and retries kept to
    real time, browsers; a second worker on each core runs tests meanwhile. Measured on
    the 2-core machine with nothing else running: 2 workers 175–204 s, 4 workers
    121–139 s (+11 % CPU), 6 workers 133 s (tests/perf/README.md, "Test suite time").
    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still decides when set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist's own hook reads it
    return 2 * len(os.sched_getaffinity(0))
