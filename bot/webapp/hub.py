"""The open Mini App sockets by table, and the sending of each one's state.

A socket is bound to one user and one table. After every change of a table each of its
sockets is woken; a socket's sender builds that user's state when it sends, so changes
that come while a frame is on its way coalesce into one frame of the latest state.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["Hub", "Viewer"]

log = logging.getLogger(__name__)

Send = Callable[[dict[str, Any]], Awaitable[None]]

PER_USER = 3
"""Sockets one user may have open on one table (a phone and a desktop, and one opening)."""
GOING_AWAY = 1001


class Viewer:
    """One open socket: its user, table and language, and the task that sends its state."""

    def __init__(
        self,
        user_id: int,
        table_id: int,
        lang: str,
        send: Send,
        render: Callable[[Viewer], dict[str, Any] | None],
        close: Callable[[int, bytes], Awaitable[object]],
    ) -> None:
        self.user_id = user_id
        self.table_id = table_id
        self.lang = lang
        self.send = send
        self.render = render
        self.close = close
        """Closes the socket with a code and a reason."""
        self.frames = 0
        """States sent so far."""
        self._due = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._due.set()  # the first state at once
        self._task = asyncio.create_task(self._run(), name=f"webapp-{self.table_id}")

    def wake(self) -> None:
        self._due.set()

    async def _run(self) -> None:
        while True:
            await self._due.wait()
            self._due.clear()
            try:
                state = self.render(self)  # the table as it is now: the latest change
            except Exception:  # a state that cannot be built: the next change tries again
                log.exception("table %s: the mini app's state failed", self.table_id)
                continue
            if state is None:
                continue
            try:
                await self.send(state)
            except (ConnectionError, RuntimeError) as exc:  # closing: the reader ends it
                log.debug("table %s: a state not sent: %r", self.table_id, exc)
                return
            self.frames += 1

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


class Hub:
    """Every open socket, by table; tells the chat side who watches which table."""

    def __init__(self) -> None:
        self.viewers: dict[int, dict[Viewer, None]] = {}
        """Per table, its open sockets, oldest first."""
        self.on_last_close: Callable[[int, int], None] = lambda user_id, table_id: None
        """Called with ``(user_id, table_id)`` when a user's last socket of a table closes."""

    def join(self, viewer: Viewer) -> list[Viewer]:
        """Start sending ``viewer`` its state; returns its user's oldest sockets of the table
        beyond :data:`PER_USER`, for the caller to close (each costs a state at every
        change)."""
        viewers = self.viewers.setdefault(viewer.table_id, {})
        mine = [v for v in viewers if v.user_id == viewer.user_id]
        viewers[viewer] = None
        viewer.start()
        return mine[: max(0, len(mine) + 1 - PER_USER)]

    async def leave(self, viewer: Viewer) -> None:
        await viewer.stop()
        viewers = self.viewers.get(viewer.table_id)
        if viewers is None or viewer not in viewers:
            return
        del viewers[viewer]
        if not viewers:
            del self.viewers[viewer.table_id]
        if not self.watching(viewer.user_id, viewer.table_id):
            self.on_last_close(viewer.user_id, viewer.table_id)

    def watching(self, user_id: int, table_id: int) -> bool:
        """Whether ``user_id`` has the table open in the Mini App now."""
        return any(v.user_id == user_id for v in self.viewers.get(table_id, ()))

    def changed(self, table_id: int) -> None:
        """The table changed: each of its sockets gets the new state."""
        for viewer in self.viewers.get(table_id, ()):
            viewer.wake()

    async def close(self) -> None:
        """The server stops: every socket is closed (its reader then ends)."""
        self.on_last_close = lambda user_id, table_id: None  # no hand message brought now
        viewers = [v for table in self.viewers.values() for v in table]
        for viewer in viewers:
            await viewer.stop()
        # side by side: each waits a moment for its browser to answer the close
        await asyncio.gather(*(v.close(GOING_AWAY, b"the bot stops") for v in viewers))
