"""The long-running bot's garbage collector: start-up's objects frozen, the youngest
generation collected less often (bot.app.settle_collector, called by run())."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from bot import app
from bot.config import Config


@pytest.fixture
def collector() -> Iterator[None]:
    """The collector as it was, put back after the test (the test process goes on)."""
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


def test_start_up_objects_leave_the_generations(collector: None) -> None:
    gc.unfreeze()
    before = gc.get_threshold()
    app.settle_collector()
    assert gc.get_freeze_count() > 10_000  # the modules imported so far, at least
    assert gc.get_threshold() == (app.YOUNG_COLLECTION, before[1], before[2])


def test_run_settles_the_collector_before_serving(
    collector: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    served: list[tuple[int, tuple[int, int, int]]] = []
    monkeypatch.setattr(
        app, "serve", lambda *args: served.append((gc.get_freeze_count(), gc.get_threshold()))
    )
    gc.unfreeze()
    app.run(object(), Config(token="1:a"))  # type: ignore[arg-type]
    assert len(served) == 1
    frozen, threshold = served[0]
    assert frozen > 10_000 and threshold[0] == app.YOUNG_COLLECTION
