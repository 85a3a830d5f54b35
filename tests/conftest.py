"""How the suite is spread over pytest-xdist's workers (the goal: the whole suite in ≤ 100 s).

``python -m pytest -n auto`` is the suite's command. The longest tests (marked ``slow``) are
sent first and one test at a time, so that no worker is left with a long test at the end
while the other idles; ``-n auto`` starts two workers more than there are cores, as the
end-to-end tests spend part of their time waiting for the bot.
"""

from __future__ import annotations

import os
import sys

import pytest

# Some machines (this one among them) export PYTHONDONTWRITEBYTECODE=1. Then every xdist
# worker compiles the project and rewrites the asserts of ~130 test modules anew on every
# run: ~6 of its ~9 s of start-up CPU (`pytest --collect-only`: 9.3 s against 3.3 s with the
# caches). The suite keeps its caches in __pycache__ (ignored by git) as Python does by
# default; the workers inherit the environment, so they write them too.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


@pytest.hookimpl(optionalhook=True)  # only with pytest-xdist installed
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto``: the cores this process may use, plus two (``PYTEST_XDIST_AUTO_NUM_WORKERS``
    still decides when set). On the 2-core machine four workers ran the suite in 86-94 s,
    three in 94-96 s: a third of the end-to-end tests' time is waiting for the bot."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist's own hook reads it
    return _cores() + 2


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # the controller (or a run without xdist)
        from tests.warm_caches import warm

        warm(config.rootpath, _cores())
    # xdist's "load" mode hands each worker a block of consecutive tests at the start;
    # with the slow tests first, one worker would get all of them. One at a time instead
    # (an explicit --maxschedchunk still wins).
    if getattr(config.option, "maxschedchunk", 0) is None:
        config.option.maxschedchunk = 1


LONGEST = (
    "test_restart_kill.py::",
    "test_hostile_fuzz.py::",
    "test_hostile_privacy.py::",
    "test_every_decision_is_legal_many_deals[sochi-3-options0-",
)
"""The longest tests, longest first (wall time on the 2-core machine): a bot killed and
restarted ~15 times, the fuzz and privacy games over HTTP, 400 robot deals at the test
budget. The last long test to start decides the suite's time."""

WAIT_SPACING = 5.0
"""Seconds of CPU work (estimated as below) between two tests marked ``waits``. Those spend
3-6 s mostly waiting (Telegram's limits, retries, an outage, a process's start): when they
were handed out together, all four workers waited and both cores idled for ~5 s. Apart,
at most one or two wait at a time while the other workers keep the cores busy."""

SLOW_COST, OTHER_COST = 3.0, 0.07
"""Rough CPU seconds of a working test, marked ``slow`` or not, for the spacing."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest tests first, then the other slow ones, then the rest, with the tests
    that mostly wait spread among them (see :data:`WAIT_SPACING`): the same order in every
    worker, as xdist requires."""

    def rank(item: pytest.Item) -> int:
        for place, name in enumerate(LONGEST):
            if name in item.nodeid:
                return place
        return len(LONGEST) + (item.get_closest_marker("slow") is None)

    ordered = sorted(items, key=rank)
    waiting = [i for i in ordered if i.get_closest_marker("waits")]
    working = [i for i in ordered if not i.get_closest_marker("waits")]
    head = sum(1 for i in working if rank(i) < len(LONGEST))
    items[:] = working[:head]
    work = WAIT_SPACING  # the first waiting test right after the longest ones
    for item in working[head:]:
        if waiting and work >= WAIT_SPACING:
            items.append(waiting.pop(0))
            work = 0.0
        items.append(item)
        work += SLOW_COST if item.get_closest_marker("slow") else OTHER_COST
    items.extend(waiting)
