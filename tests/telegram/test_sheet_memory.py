"""The sheet pictures' memory: drawn one at a time in one thread, and the pictures kept to
be sent again bounded by their bytes."""

from __future__ import annotations

import asyncio
import os
import threading
from typing import Any, cast

from bot.core.service import TableService
from bot.preferans.conventions import Rules
from bot.preferans.game import Game
from bot.telegram.drawing import DRAWN_BYTES, painter
from bot.telegram.outbox import Outbox
from bot.telegram.sheet import SheetMessages, SheetSnapshot

SNAPSHOT = SheetSnapshot(Game(Rules.preset("sochi", 20), ["Анна", "Борис", "Вера"]))


def sheets(draw: Any) -> SheetMessages:
    """Sheet messages that only draw (no outbox, no service are used by ``_draw``)."""
    return SheetMessages(cast(Outbox, None), cast(TableService, None), render_picture=draw)


async def test_many_tables_pictures_are_drawn_in_one_thread() -> None:
    """A picture holds ~10 MB of image buffers while it is drawn: deals ending together
    at many tables draw their pictures in turn, not side by side."""
    threads: list[str] = []

    def draw(game: Game, lang: str) -> bytes:
        threads.append(threading.current_thread().name)
        return b"png"

    messages = sheets(draw)
    drawn = await asyncio.gather(*(messages._draw(i, SNAPSHOT, "ru") for i in range(6)))
    assert drawn == [b"png"] * 6
    assert threads == ["sheet-picture_0"] * 6
    assert threading.main_thread().name not in threads


async def test_the_pictures_kept_are_bounded_by_their_bytes() -> None:
    big = DRAWN_BYTES // 4 + 1  # four are over the bound, three are not
    calls: list[int] = []

    def draw(game: Game, lang: str) -> bytes:
        calls.append(1)
        return bytes(big)

    messages = sheets(draw)
    for table_id in range(10):
        await messages._draw(table_id, SNAPSHOT, "ru")
    assert list(messages._drawn.pictures) == [7, 8, 9]
    assert (
        messages._drawn.bytes
        == 3 * big
        == sum(len(d[2]) for d in messages._drawn.pictures.values())
    )
    await messages._draw(9, SNAPSHOT, "ru")  # kept: not drawn again
    assert len(calls) == 10
    await messages._draw(6, SNAPSHOT, "ru")  # dropped: drawn again, the oldest goes
    assert len(calls) == 11 and list(messages._drawn.pictures) == [8, 9, 6]
    messages.forget(8)
    assert list(messages._drawn.pictures) == [9, 6] and messages._drawn.bytes == 2 * big


def test_a_forked_process_draws_in_a_thread_of_its_own() -> None:
    """A fork has none of its parent's threads: the parent's drawing thread, already
    running, would never take the child's pictures."""
    assert painter().submit(threading.current_thread).result().name == "sheet-picture_0"
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: one picture's turn, then out without pytest's clean-up
        code = 1
        try:
            thread = painter().submit(threading.current_thread).result(timeout=30)
            os.write(write, thread.name.encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    with os.fdopen(read) as got:
        assert (os.waitstatus_to_exitcode(status), got.read()) == (0, "sheet-picture_0")
