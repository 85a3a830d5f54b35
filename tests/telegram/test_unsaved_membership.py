"""A membership update whose change cannot be saved never reaches PTB's error handler:
one ERROR line, the state unchanged, and the change applied again
from the job queue, waiting longer each time, until the database takes it."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, cast

import pytest
from telegram.constants import ChatMemberStatus, ChatType

from bot.core.effects import Effects
from bot.telegram.membership import migrated, my_chat_member
from bot.telegram.runtime import BotData, Runtime
from bot.telegram.shown import MessageStore
from tests.service.helpers import GROUP, kinds, service_on, started
from tests.service.test_unsaved_chat_events import NEW_GROUP, Disk


@dataclass
class JobQueue:
    jobs: list[tuple[Any, float]] = field(default_factory=list)

    def run_once(self, callback: Any, when: float, name: str | None = None) -> None:
        self.jobs.append((callback, when))

    async def run_next(self) -> float:
        callback, when = self.jobs.pop(0)
        await callback(None)
        return when


@dataclass
class Shown:
    effects: list[Effects] = field(default_factory=list)

    def show(self, effects: Effects) -> None:
        self.effects.append(effects)


def _runtime(service: Any) -> tuple[Runtime, JobQueue, Shown, Any]:
    jq, shown = JobQueue(), Shown()
    app = SimpleNamespace(job_queue=jq)
    rt = Runtime(app, service, None, None, shown, None, MessageStore())  # type: ignore[arg-type]
    context = SimpleNamespace(bot_data=BotData(rt))
    return rt, jq, shown, context


def _left(chat_id: int) -> Any:
    change = SimpleNamespace(
        chat=SimpleNamespace(id=chat_id, type=ChatType.GROUP),
        new_chat_member=SimpleNamespace(status=ChatMemberStatus.LEFT),
        from_user=None,
    )
    return SimpleNamespace(my_chat_member=change)


async def test_the_bot_removed_on_a_full_disk_is_applied_once_the_disk_recovers(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with service_on() as service:
        table = await started(service)
        rt, jq, shown, context = _runtime(service)
        disk = Disk(service)
        disk.tables.add(table.id)
        await my_chat_member(_left(GROUP), context)
        errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert len(errors) == 1 and errors[0].exc_info is None
        assert not table.paused and [kinds(e) for e in shown.effects] == [[]]
        assert await jq.run_next() == 5.0  # still full: tried again, later
        assert not table.paused and len(jq.jobs) == 1
        disk.tables.clear()
        assert await jq.run_next() == 10.0
        assert table.paused and kinds(shown.effects[-1]) == ["Paused", "TimerChanged"]
        assert jq.jobs == []


async def test_a_migration_on_a_full_disk_is_applied_later() -> None:
    async with service_on() as service:
        table = await started(service)
        rt, jq, shown, context = _runtime(service)
        disk = Disk(service)
        disk.methods.add("move_chat")
        message = SimpleNamespace(migrate_to_chat_id=NEW_GROUP, chat_id=GROUP)
        await migrated(cast(Any, SimpleNamespace(effective_message=message)), context)
        assert table.chat_id == GROUP and len(jq.jobs) == 1
        disk.methods.clear()
        await jq.run_next()
        assert table.chat_id == NEW_GROUP and kinds(shown.effects[-1]) == ["TableMoved"]
        await rt.on_migrated(GROUP, NEW_GROUP)  # the update again: nothing left to move
        assert shown.effects[-1] == ()
