"""Resuming the tables after a restart without keeping anybody waiting.

The bot answers updates from its start: the tables are only listed then
(:meth:`~bot.core.resumable.Resumable.list_tables`) and resumed in the background, the
most recently active first, at most :data:`AT_ONCE` of them with messages on their way at
a time, so that an answer to a person never queues behind thousands of messages shown
again in the bot's overall budget (~30 requests a second). An update that concerns a table
not resumed yet (a press on it, a command in its group, a message of one of its players)
has that table resumed first (:func:`before_update`, a handler ahead of all others): the
press is applied to the table as stored, never answered "out of date" for a live table.
Each table is resumed once, by whichever comes first, and its timer is armed then.

A message is shown again only if it does not show what it must: the outbox compares the
digest its row holds (:mod:`.shown`, read with the table), written when a message is
sent, every :data:`SHOWN_EVERY` seconds (:meth:`Resumer.save_shown`) and at the stop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Iterable
from typing import Any, Protocol

from telegram import Update
from telegram.ext import Application, CallbackContext, TypeHandler

from bot.core.robots import is_robot
from bot.core.service import TableService
from bot.render.callbacks import decode, from_base36
from bot.render.i18n import t

from .outbox import Outbox
from .presenter import Presenter
from .scheduler import EVICT_AFTER

__all__ = ["Resumer", "AT_ONCE", "SHOWN_EVERY", "add_handler"]

log = logging.getLogger(__name__)

AT_ONCE = 32
"""Tables resumed in the background whose messages may be on their way at once: at ~1-4
requests a table, an answer to a person waits behind ~1-4 seconds of them at most."""
SHOWN_EVERY = 10.0
"""Seconds between two writes of what the tables' messages show (those that changed).

A message's id is written as soon as it is sent; only its digest waits. A hand changes at
every move, so a longer wait writes each message once for several moves (at a move every
few seconds, 2 s wrote nearly every change: ~1 % of the bot's CPU under load). After a
crash, a message changed in the last seconds is edited once more, to what it shows."""
SENT_WAIT = 60.0
"""The longest wait for one table's messages before its place goes to the next table (a
group's budget may hold them back)."""


class Resumer:
    """Resumes the listed tables: in the background, and at once when an update needs one."""

    def __init__(self, service: TableService, presenter: Presenter, outbox: Outbox) -> None:
        self.service = service
        self.presenter = presenter
        self.outbox = outbox
        self.hold: asyncio.Event | None = None
        """While set to an unset event, the background waits before each table (tests)."""
        self.done = asyncio.Event()
        """Set once every listed table was resumed."""
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._background: list[asyncio.Task[None]] = []
        self._told = 0
        """How many of the service's set-aside tables the groups were told of."""

    async def start(self) -> None:
        """List the tables (nothing read yet) and start resuming them in the background."""
        order = await self.service.resumable.list_tables(closed_within=EVICT_AFTER)
        log.info("%d table(s) to resume", len(order))
        self._background = [
            asyncio.create_task(self._run(order), name="resume"),
            asyncio.create_task(self._keep_shown(), name="shown"),
        ]

    async def stop(self) -> None:
        """Stop resuming (the bot stops: the rest resumes at the next start)."""
        tasks = [*self._background, *self._tasks.values()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def save_shown(self) -> None:
        """Store what the tables' messages show; a failure is only logged (tried again)."""
        await self.presenter.store.flush()

    async def resume(self, table_ids: Iterable[int]) -> None:
        """Resume these listed tables now (or wait for those under way): read, shown again
        and their timers armed."""
        tasks = [self._task(table_id) for table_id in table_ids]
        if tasks:  # (not gather: a handler cancelled would cancel the shared work)
            await asyncio.wait(tasks)

    async def before(self, update: Update) -> None:
        """Resume what ``update`` concerns before any handler sees it."""
        chat = update.effective_chat
        user = update.effective_user
        concerned = self.service.resumable.concerned
        ids = concerned(
            table_id=_named_table(update),
            chat_id=chat.id if chat is not None else None,
            user_id=user.id if user is not None else None,
        )
        message = update.effective_message
        if message is not None and message.migrate_from_chat_id is not None:
            ids += concerned(chat_id=message.migrate_from_chat_id)
        await self.resume(ids)

    # ------------------------------------------------------------------ the work

    def _task(self, table_id: int) -> asyncio.Task[None]:
        task = self._tasks.get(table_id)
        if task is None:
            task = asyncio.create_task(self._one(table_id), name=f"resume:{table_id}")
            self._tasks[table_id] = task
            task.add_done_callback(lambda _: self._tasks.pop(table_id, None))
        return task

    async def _one(self, table_id: int) -> None:
        """Resume one table and show what it must show; one that cannot be shown (a value
        its timer or its messages cannot take) is set aside."""
        try:
            effects = await self.service.resumable.resume_table(table_id)
            await self.presenter.store.load(table_id)  # which message shows what
            try:
                self.presenter.show(effects)
            except Exception as exc:
                await self.service.resumable.put_aside(effects[0].table, exc)
        except Exception:
            log.exception("table %s: resuming failed", table_id)
        for _, chat_id, lang in self.service.resumable.set_aside[self._told :]:
            if chat_id is not None:  # in the group's language, when its row still says it
                text = t(lang or self.service.registry.defaults.lang, "restart.set_aside")
                self.outbox.post(chat_id, text)
        self._told = len(self.service.resumable.set_aside)

    async def _run(self, order: list[int]) -> None:
        """Resume ``order`` one table after the other (reading and replaying a table is the
        event loop's work: one at a time, an update waits for one table's share at most),
        with the messages of :data:`AT_ONCE` tables at most on their way."""
        began = time.monotonic()
        room = asyncio.Semaphore(AT_ONCE)
        running: set[asyncio.Task[None]] = set()
        for table_id in order:
            if self.hold is not None:
                await self.hold.wait()
            if table_id not in self.service.resumable.listed:
                continue  # resumed already, for an update that concerned it
            await room.acquire()
            try:
                await self.resume([table_id])
            except BaseException:
                room.release()
                raise
            task = asyncio.create_task(self._sent(table_id, room))
            running.add(task)
            task.add_done_callback(running.discard)
        if running:
            await asyncio.wait(running)
        log.info("resumed %d table(s) in %.1f s", len(order), time.monotonic() - began)
        self.done.set()

    async def _sent(self, table_id: int, room: asyncio.Semaphore) -> None:
        """Wait until the resumed table's messages went out (or were found unchanged)."""
        try:
            table = self.service.registry.get(table_id)
            if table is None:
                return
            chats = {table.chat_id, *(p.user_id for _, p in table.seated() if not is_robot(p))}
            marks = {chat_id: self._mark(chat_id) for chat_id in chats - self.outbox.blocked}
            until = time.monotonic() + SENT_WAIT
            while marks and time.monotonic() < until:
                await asyncio.wait(marks.values(), timeout=1.0)
                # a chat that blocked the bot meanwhile dropped its queue, the mark with it
                marks = {
                    c: m for c, m in marks.items() if not (m.done() or c in self.outbox.blocked)
                }
        finally:
            room.release()

    def _mark(self, chat_id: int) -> asyncio.Future[None]:
        """A future done once what is queued for ``chat_id`` now went out."""
        sent: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def run() -> bool:
            if not sent.done():
                sent.set_result(None)
            return False  # no request: nothing to pace

        self.outbox.call(chat_id, run)
        return sent

    async def _keep_shown(self) -> None:
        while True:
            await asyncio.sleep(SHOWN_EVERY)
            await self.save_shown()


def _named_table(update: Update) -> int | None:
    """The table a press or a deep link (``/start s<table>``, ``r<table>_<seat>``) names."""
    query = update.callback_query
    if query is not None:
        data = decode(query.data)
        return data.table_id if data is not None else None
    message = update.effective_message
    words = (message.text or "").split() if message is not None else []
    if len(words) == 2 and words[0].startswith("/start") and words[1][:1] in ("s", "r"):
        with contextlib.suppress(ValueError):
            return from_base36(words[1][1:].partition("_")[0])
    return None


class _Shared(Protocol):
    """What this module reads of ``bot_data`` (:class:`bot.telegram.runtime.BotData`,
    which imports this module)."""

    resumer: Resumer | None


async def before_update(update: object, context: CallbackContext[Any, Any, Any, _Shared]) -> None:
    """Resume the tables an update concerns before it is handled (a handler of group -1)."""
    resumer = context.bot_data.resumer
    if resumer is not None and isinstance(update, Update):
        await resumer.before(update)


def add_handler(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Register :func:`before_update` ahead of every other handler (group -1)."""
    application.add_handler(TypeHandler(Update, before_update, block=True), group=-1)
