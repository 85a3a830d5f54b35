"""The handlers' shared parts live in a typed ``bot_data`` (:class:`BotData`), set at the
start and the storage let go at the shutdown."""

from __future__ import annotations

from pathlib import Path

from bot.telegram.resuming import Resumer
from bot.telegram.runtime import BotData, Runtime, runtime
from storage import Storage
from tests.bot_helpers import open_and_start, running_bot


async def test_the_handlers_share_the_parts_through_a_typed_bot_data(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        data = h.app.bot_data
        assert type(data) is BotData
        assert type(data.rt) is Runtime and type(data.resumer) is Resumer
        assert type(data.storage) is Storage and data.rt.service.storage is data.storage
        await open_and_start(h)  # the handlers find the runtime there
        assert h.rt.service.registry.open_table(h.group.id) is not None
        assert runtime(h.app.context_types.context.from_update(None, h.app)) is data.rt
    assert data.storage is None
