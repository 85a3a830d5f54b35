"""Outgoing messages, paced per chat and coalesced.

Each chat has one worker that sends its messages in order. A kept-up-to-date message
(:class:`~.shown.Slot`) waits in the queue at most once: showing it again while it
waits only replaces the text, so the latest state always shows and bursts of edits
collapse into one. Telegram's limits (per private chat, per group, for the whole bot) are
kept by :mod:`.pacing`, the only pacing and retry layer (no ``AIORateLimiter`` under it);
while a group's queue waits, its table message coalesces, and a person's answer goes first.

"Message is not modified" is ignored; a message that cannot be edited any more is sent
anew; ``RetryAfter`` is waited out; timeouts, resets and 5xx are retried with a growing
pause; ``Forbidden`` (a player blocked the bot, or the bot left a group) is reported to
``on_forbidden``, and nothing more goes to a player who blocked the bot until he writes to
it again (:meth:`Outbox.unblock`); ``ChatMigrated`` (the group is a supergroup now) to
``on_migrated``, and the posts for the old id go to the new one. A group that withdrew the
bot's rights to write keeps its messages (results, sheets) due, tried again with a growing
pause, with one WARNING for the group.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from telegram import CallbackQuery, InlineKeyboardMarkup
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TimedOut,
)

from .bottom import ChatEnds
from .edits import delete, digest, edit_text, markup_json, send_text
from .pacing import ANSWERS_AHEAD, ANSWERS_WINDOW, Pacing, answer_press
from .queue import (
    Call,
    ChatQueue,
    Chats,
    Delete,
    Pending,
    Post,
    Show,
    Sound,
    message_gone,
    no_rights,
    not_modified,
)
from .shown import Slot

__all__ = ["Outbox", "Sound", "message_gone", "not_modified"]

log = logging.getLogger(__name__)


class Outbox:
    """Per-chat ordered, paced, coalescing sender."""

    def __init__(
        self,
        bot: Any,
        *,
        private_interval: float = 1.0,
        group_limit: int = 20,
        group_window: float = 60.0,
        group_fast_interval: float = 0.5,
        on_sent: Callable[[Slot], Awaitable[None]] | None = None,
        on_forbidden: Callable[[int], Awaitable[None]] | None = None,
        retry_base: float = 1.0,
        retry_cap: float = 60.0,
        overall_rate: float = 0.0,
    ) -> None:
        self.bot = bot
        self.retry_base = retry_base
        """The first pause after Telegram failed to take a message; it doubles up to
        ``retry_cap`` while the failures last."""
        self.retry_cap = retry_cap
        self.pacing = Pacing(
            private_interval=private_interval,
            group_limit=group_limit,
            group_window=group_window,
            group_fast_interval=group_fast_interval,
            overall_rate=overall_rate,
            retry_base=retry_base,
        )
        self.on_sent = on_sent
        self.on_forbidden = on_forbidden
        self.on_migrated: Callable[[int, int], Awaitable[None]] | None = None
        """Called with (old, new) chat id when a group turned out to be a supergroup now."""
        self._chats = Chats()
        self._shown: OrderedDict[tuple[int, int], str] = OrderedDict()
        self._closed = False
        self.ends = ChatEnds()
        """The latest messages the bot knows of in each chat (while running)."""
        self.blocked: set[int] = set()
        """Players who blocked the bot: nothing is sent to them until :meth:`unblock`."""

    # ------------------------------------------------------------------ API

    def show(
        self,
        slot: Slot,
        text: str,
        markup: InlineKeyboardMarkup | None = None,
        *,
        sound: Sound | None = None,
        answer: bool = False,
    ) -> None:
        """Make ``slot`` show ``text`` (send it the first time, edit it later); ``sound``:
        how it rings if it is sent (default: :meth:`Sound.default`, quiet for a silent
        slot); ``answer``: it answers a press (the lobby): it goes with the answers."""
        self.show_lazy(slot, (text, markup), sound=sound, answer=answer)

    def show_lazy(
        self,
        slot: Slot,
        render: Pending,
        *,
        sound: Sound | None = None,
        epoch: object = None,
        answer: bool = False,
    ) -> None:
        """:meth:`show` with the text rendered by ``render()`` only when it is sent (``None``:
        nothing to send any more), so a state replaced while it waits costs nothing; see
        :meth:`ChatQueue.show` for ``epoch``."""
        if slot.chat_id not in self.blocked:
            chat = self._chat(slot.chat_id)
            chat.show(slot, render, sound, epoch, answer)
            self._kick(chat)

    def post(
        self,
        chat_id: int,
        text: str,
        markup: InlineKeyboardMarkup | None = None,
        *,
        done: Callable[[int], Awaitable[None]] | None = None,
        sound: Sound | None = None,
        due: Callable[[], bool] | None = None,
    ) -> None:
        """Send a new message (in order with everything else for that chat) unless ``due()``
        says no when its turn comes; ``done`` gets its id; ``sound``: :meth:`Sound.default`."""
        self._enqueue(chat_id, Post(text, markup, done, sound or Sound.default(chat_id), due))

    def answer_command(self, chat_id: int, text: str, *, who: int | None = None) -> None:
        """Answer ``who``'s command: in a group ahead of the table edits (they coalesce and
        lose nothing), for :data:`.pacing.ANSWERS_AHEAD` answers a member a minute, his
        others when his share allows; a private chat's after the game's messages. A repeat
        of an answer still queued is merged into it."""
        if chat_id not in self.blocked:
            chat, sound = self._chat(chat_id), Sound.default(chat_id)
            chat.answer(text, sound, who if chat_id < 0 else None, ANSWERS_AHEAD, ANSWERS_WINDOW)
            self._kick(chat)

    def delete(self, chat_id: int, message_id: int) -> None:
        self._enqueue(chat_id, Delete(message_id))

    def call(self, chat_id: int, run: Callable[[], Awaitable[int]]) -> None:
        """Run ``run`` in ``chat_id``'s worker, in order with its messages and paced like one;
        it returns how many requests it made (each counts in a group's window). Wrap its Bot
        API calls in :meth:`retry`; it runs again if Telegram keeps failing, so it must be
        safe to repeat."""
        self._enqueue(chat_id, Call(run))

    def unblock(self, chat_id: int) -> None:
        """The player wrote to the bot again (``/start``, or unblocked it): send to him."""
        self.blocked.discard(chat_id)

    def _enqueue(self, chat_id: int, item: Post | Delete | Call) -> None:
        if chat_id in self.blocked:
            return
        chat = self._chat(chat_id)
        chat.queue.append(item)
        self._kick(chat)

    def probe(self, slot: Slot) -> None:
        """Edit ``slot`` next time even unchanged (no sound; one its reader deleted: anew)."""
        self._shown.pop((slot.chat_id, slot.message_id or 0), None)
        slot.shown = None

    async def retry(self, call: Callable[[], Awaitable[Any]]) -> Any:
        """``call()`` (one Bot API request) paced and retried as the outbox's own
        (:meth:`Pacing.request`)."""
        return await self.pacing.request(call)

    async def answer(
        self,
        query: CallbackQuery,
        text: str | None = None,
        *,
        alert: bool = False,
        url: str | None = None,
    ) -> None:
        """Answer a button press (:func:`.pacing.answer_press`)."""
        await answer_press(query, text, alert=alert, url=url)

    async def drain(self, timeout: float | None = None) -> None:
        """Wait until every queue is empty."""

        async def _wait() -> None:
            while True:
                tasks = [c.task for c in self._chats.values() if c.task is not None]
                if not tasks:
                    return
                await asyncio.gather(*tasks, return_exceptions=True)

        await asyncio.wait_for(_wait(), timeout)

    async def close(self, timeout: float = 5.0) -> None:
        """Flush what is queued (within ``timeout``), then stop."""
        try:
            await self.drain(timeout)
        except TimeoutError:
            log.warning("outbox: dropping unsent messages at shutdown")
        self._closed = True
        for chat in self._chats.values():
            if chat.task is not None:
                chat.task.cancel()

    def drop(self, slot: Slot) -> bool:
        """Never send ``slot`` if it was not sent yet and is not on its way (its queued
        content is dropped); ``False`` if it was or is being sent: edit it instead."""
        chat = self._chats.get(slot.chat_id)
        if slot.message_id is not None or (chat is not None and chat.sending == id(slot)):
            return False
        if chat is not None:
            chat.forget(slot)
        return True

    def unshown(self, slot: Slot) -> bool:
        """Whether ``slot``'s latest content is still waiting to go out."""
        chat = self._chats.get(slot.chat_id)
        return chat is not None and chat.unshown(slot)

    def pending(self) -> int:
        return sum(len(c.queue) + len(c.answers) + len(c.later) for c in self._chats.values())

    # ------------------------------------------------------------------ worker

    def _chat(self, chat_id: int) -> ChatQueue:
        return self._chats.of(chat_id, max(self.pacing.group_window, ANSWERS_WINDOW))

    def _kick(self, chat: ChatQueue) -> None:
        if chat.task is None and not self._closed:
            chat.task = asyncio.create_task(self._run(chat), name=f"outbox:{chat.chat_id}")
        elif chat.answers:  # the worker may be waiting out the game's pace: not for these
            chat.woken.set()

    async def _run(self, chat: ChatQueue) -> None:
        try:
            while chat.answers or chat.queue or chat.later:
                chat.promote(ANSWERS_AHEAD, ANSWERS_WINDOW)
                lane = chat.answers or chat.queue or chat.later
                wait = self.pacing.wait_in(chat, lane)
                if wait > 0:  # an answer may arrive (or be promoted) meanwhile: it goes first
                    await chat.nap(min(wait, 0.5) if chat.later else wait)
                    continue
                item = lane.popleft()
                chat.sending = id(item.slot) if isinstance(item, Show) else None
                try:
                    sent = await self._do(chat, item)
                except Forbidden as exc:
                    sent = True
                    log.info("chat %s: forbidden (%s)", chat.chat_id, exc.message)
                    if chat.chat_id > 0:  # he blocked the bot: nothing more till he writes
                        self.blocked.add(chat.chat_id)
                        chat.drop()
                    if self.on_forbidden is not None:
                        await self.on_forbidden(chat.chat_id)
                except ChatMigrated as exc:
                    sent = True
                    new_id = int(exc.new_chat_id)
                    log.info("chat %s: migrated to %s", chat.chat_id, new_id)
                    if self.on_migrated is not None:
                        await self.on_migrated(chat.chat_id, new_id)
                    if isinstance(item, Post):  # slots are shown again by on_migrated
                        self._enqueue(new_id, item)
                except (TimedOut, NetworkError, RetryAfter) as exc:
                    sent = True
                    if isinstance(exc, BadRequest) and no_rights(exc):
                        self._refused(chat, item, exc)
                    elif isinstance(exc, BadRequest):  # refused: a bug of ours
                        log.exception("chat %s: sending failed", chat.chat_id)
                    else:  # Telegram kept failing: an outage, not a bug; it stays due
                        self._again(chat, item, exc)
                except Exception:
                    sent = True
                    log.exception("chat %s: sending failed", chat.chat_id)
                else:
                    chat.backoff = 0.0
                    if chat.refused:
                        chat.refused = False
                        log.info("chat %s: the bot may write there again", chat.chat_id)
                chat.sending = None
                if sent:
                    chat.last = time.monotonic()
                    if chat.chat_id < 0:  # a call may have made several requests
                        chat.window.extend([chat.last] * int(sent))
        finally:
            chat.task = None

    def _refused(self, chat: ChatQueue, item: Post | Delete | Show | Call, exc: Exception) -> None:
        """The group withdrew the bot's rights to write: ``item`` stays due (a refused
        request changed nothing), one WARNING per group."""
        if not chat.refused:
            chat.refused = True
            what = "chat %s: the bot may not write there (%s); its messages wait until it may"
            log.warning(what, chat.chat_id, exc)
        self._pause(chat)
        chat.keep(item)

    def _again(self, chat: ChatQueue, item: Post | Delete | Show | Call, exc: Exception) -> None:
        """Telegram did not take ``item``: it stays due and goes first after a pause that
        grows while the failures last (a message is never dropped for an outage)."""
        self._pause(chat)
        what = "chat %s: Telegram did not take a message (%s); trying again in %.0f s"
        log.warning(what, chat.chat_id, exc, chat.backoff)
        chat.keep(item)

    def _pause(self, chat: ChatQueue) -> None:
        chat.backoff = min(self.retry_cap, max(self.retry_base, chat.backoff * 2))
        chat.pause_until = time.monotonic() + chat.backoff

    async def _do(self, chat: ChatQueue, item: Post | Delete | Show | Call) -> int:
        """Perform one queued item; ``False`` if nothing was sent."""
        if isinstance(item, Call):
            return await item.run()
        if isinstance(item, Post) and item.due is not None and not item.due():
            return False
        if isinstance(item, Post):  # (the answer is not parsed either: see edits.py)
            keyboard, quiet = markup_json(item.markup), item.sound.disable_notification
            message_id = await self.pacing.request(
                lambda: send_text(self.bot, chat.chat_id, item.text, keyboard, silent=quiet)
            )
            self.ends.sent(chat.chat_id, message_id)
            if item.done is not None:
                await item.done(message_id)
            return True
        if isinstance(item, Delete):
            try:
                bot, chat_id, message_id = self.bot, chat.chat_id, item.message_id
                await self.pacing.request(lambda: delete(bot, chat_id, message_id))
                self.ends.deleted(chat_id, message_id)
            except BadRequest as exc:
                log.debug("chat %s: delete failed: %s", chat.chat_id, exc.message)
            return True
        slot = item.slot
        content = item.content = chat.take(item)
        if content is None:
            return False
        text, keyboard = content[0], markup_json(content[1])  # (sent as it is: see edits.py)
        fingerprint = digest(text, keyboard)  # kept with the slot: see shown.py
        if slot.message_id is not None:
            key = (slot.chat_id, slot.message_id)
            if fingerprint in (slot.shown, self._shown.get(key)):
                return False
            slot.shown = None  # unknown until Telegram took the edit (stored: shown.py)
            try:  # (the edited message Telegram answers is not read: see edits.py)
                await self.pacing.request(
                    lambda: edit_text(self.bot, slot.chat_id, slot.message_id, text, keyboard)
                )
            except BadRequest as exc:
                if not_modified(exc):
                    self._remember(slot, key, fingerprint)
                    return True
                if message_gone(exc):
                    slot.message_id = slot.shown = None  # gone: show it as a new message
                else:
                    raise
            else:
                self._remember(slot, key, fingerprint)
                return True
        quiet = item.sound.disable_notification
        message_id = await self.pacing.request(
            lambda: send_text(self.bot, slot.chat_id, text, keyboard, silent=quiet)
        )
        slot.message_id = message_id
        self.ends.sent(slot.chat_id, message_id)
        self._remember(slot, (slot.chat_id, message_id), fingerprint)
        if self.on_sent is not None:
            await self.on_sent(slot)
        return True

    def _remember(self, slot: Slot, key: tuple[int, int], fingerprint: str) -> None:
        self._shown[key] = slot.shown = fingerprint
        self._shown.move_to_end(key)
        while len(self._shown) > 5000:
            self._shown.popitem(last=False)
