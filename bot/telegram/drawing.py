"""The sheet pictures' memory: one thread draws them all, and the last ones are kept."""

from __future__ import annotations

import os
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from typing import Generic, TypeVar

__all__ = ["painter", "Kept", "DRAWN_BYTES"]

DRAWN_BYTES = 2 << 20
"""Pictures kept to be sent again unchanged: 35-60 of 35-60 KB (one grows with its game)."""

_PAINTERS: dict[int, ThreadPoolExecutor] = {}
S = TypeVar("S")


def painter() -> ThreadPoolExecutor:
    """The one thread that draws every table's pictures, in turn (a process's own: a fork
    has none of its parent's threads). A picture holds ~10 MB of image buffers while drawn;
    many deals ending at once drew up to six side by side in asyncio's threads, the bot's
    peak memory (tests/perf/README.md)."""
    pid = os.getpid()
    if pid not in _PAINTERS:
        _PAINTERS[pid] = ThreadPoolExecutor(1, thread_name_prefix="sheet-picture")
    return _PAINTERS[pid]


class Kept(Generic[S]):
    """Each table's last picture with what it shows (``S``, its language, the PNG), for
    the tables drawn last, :data:`DRAWN_BYTES` in all: ``/pulka`` again on an unchanged
    sheet is not drawn again (~40 ms of CPU each)."""

    def __init__(self, limit: int = DRAWN_BYTES) -> None:
        self.limit = limit
        self.pictures: OrderedDict[int, tuple[S, str, bytes]] = OrderedDict()
        self.bytes = 0
        """The bytes of the PNGs kept."""

    def get(self, table_id: int) -> tuple[S, str, bytes] | None:
        return self.pictures.get(table_id)

    def put(self, table_id: int, drawn: tuple[S, str, bytes] | None) -> None:
        """The table's last picture is ``drawn`` (``None``: none); the oldest ones go
        beyond the limit (the newest stays, however large)."""
        old = self.pictures.pop(table_id, None)
        if old is not None:
            self.bytes -= len(old[2])
        if drawn is not None:
            self.pictures[table_id] = drawn
            self.bytes += len(drawn[2])
        while self.bytes > self.limit and len(self.pictures) > 1:
            self.bytes -= len(self.pictures.popitem(last=False)[1][2])
