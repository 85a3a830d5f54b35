"""After a restart each table is shown and its timer armed on its own: one that cannot be
(a value no timer or message can take) is set aside with one log line, its group told, and
the other tables play on."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest

from bot.core.effects import Effects, TimerChanged
from bot.render.i18n import t
from bot.telegram.recovery import resume
from bot.telegram.shown import MessageStore
from tests.service.helpers import press, service_on, started


class Outbox:
    def __init__(self) -> None:
        self.posts: list[tuple[int, str]] = []

    def post(self, chat_id: int, text: str) -> None:
        self.posts.append((chat_id, text))


class Presenter:
    """Shows effects; arming the timer of table ``bad`` fails as a deadline no timer can
    hold did (``OverflowError`` in the job queue's ``run_once``)."""

    def __init__(self, bad: int) -> None:
        self.bad = bad
        self.shown: list[int] = []
        self.outbox = Outbox()
        self.store = MessageStore()

    def show(self, effects: Effects) -> None:
        for e in effects:
            if isinstance(e, TimerChanged) and e.table.id == self.bad:
                raise OverflowError("date value out of range")
            self.shown.append(e.table.id)


async def test_a_table_that_cannot_be_shown_is_set_aside_and_the_others_resume(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "bot.sqlite3"
    async with service_on(path) as service:
        first = await started(service, chat_id=-1)
        bad = await started(service, chat_id=-2)
        last = await started(service, chat_id=-3)
    async with service_on(path) as service:
        presenter = Presenter(bad.id)
        with caplog.at_level(logging.WARNING):
            await resume(service, presenter)  # type: ignore[arg-type]
        lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        assert len(lines) == 1 and f"table {bad.id} cannot be resumed" in lines[0]
        assert "OverflowError" in lines[0] and "\n" not in lines[0]
        assert service.resumable.set_aside == [(bad.id, -2, "ru")]
        assert presenter.outbox.posts == [(-2, t("ru", "restart.set_aside"))]
        assert set(presenter.shown) == {first.id, bad.id, last.id}
        assert sorted(service.registry.tables) == [first.id, last.id]
        row = await service.storage.table(bad.id)
        assert row is not None and row.status == "cancelled"
        for chat_id in (-1, -3):  # the others play on
            table = service.registry.open_table(chat_id)
            assert table is not None
            move = table.move
            await press(service, table, lambda a: True)
            assert table.move == move + 1


async def test_a_set_aside_group_is_told_in_its_own_language(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    async with service_on(path) as service:
        bad = await started(service, chat_id=-2)
    con = sqlite3.connect(path)
    english = "UPDATE tables SET settings = json_set(settings, '$.lang', 'en') WHERE id = ?"
    con.execute(english, (bad.id,))
    con.commit()
    con.close()
    async with service_on(path) as service:
        presenter = Presenter(bad.id)
        await resume(service, presenter)  # type: ignore[arg-type]
        assert presenter.outbox.posts == [(-2, t("en", "restart.set_aside"))]
        assert service.resumable.set_aside == [(bad.id, -2, "en")]
