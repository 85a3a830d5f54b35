"""What waits in a chat's outgoing queue (:mod:`bot.telegram.outbox`), and how Telegram's
refusals of an edit are told apart."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum

from telegram import InlineKeyboardMarkup
from telegram.error import BadRequest

from .shown import Slot

__all__ = [
    "Content",
    "Pending",
    "Sound",
    "Post",
    "Delete",
    "Show",
    "Call",
    "ChatQueue",
    "SWEEP_FROM",
    "Chats",
    "message_gone",
    "not_modified",
    "no_rights",
]

Content = tuple[str, InlineKeyboardMarkup | None]
"""A message's text and buttons."""
Pending = Content | Callable[[], Content | None]
"""What a slot is to show: its content, or how to render it when it is sent (``None``:
nothing to send any more)."""

_GONE = ("not found", "can't be edited", "cant be edited")
_NO_RIGHTS = ("not enough rights", "have no rights", "chat_write_forbidden", "chat_restricted")


def not_modified(exc: BadRequest) -> bool:
    """Telegram refused an edit that would change nothing: the message shows it already."""
    return "not modified" in exc.message.lower()


def message_gone(exc: BadRequest, *more: str) -> bool:
    """Telegram refused an edit because the message cannot be edited any more (deleted, too
    old; or for one of ``more`` reasons): it must be sent anew."""
    low = exc.message.lower()
    return any(s in low for s in (*_GONE, *more))


def no_rights(exc: BadRequest) -> bool:
    """Telegram refused because the bot may not write in the group now (its rights were
    withdrawn, or the group was made read-only); it is still a member."""
    low = exc.message.lower()
    return any(s in low for s in _NO_RIGHTS)


class Sound(Enum):
    """Whether a new message rings its chat (an edit never does).

    Private messages ring: each is for one person (the 4-player dealer's hand of a deal he
    sits out does not: ``Slot.silent``). A group rings only for the lobby, a game's start
    (its first table message) and its end (the settlement): deal results, sheets, table
    messages, answers to commands and the rest come quietly, or a pulka would ring the
    group ~70 times.
    """

    RING = "ring"
    QUIET = "quiet"

    @property
    def disable_notification(self) -> bool:
        """The value of the Bot API's ``disable_notification``."""
        return self is Sound.QUIET

    @classmethod
    def default(cls, chat_id: int) -> Sound:
        """A chat's routine message: a private chat (positive id) rings, a group does not."""
        return cls.RING if chat_id > 0 else cls.QUIET


@dataclass(slots=True)
class Post:
    text: str
    markup: InlineKeyboardMarkup | None
    done: Callable[[int], Awaitable[None]] | None = None
    """Called with the sent message's id."""
    sound: Sound = Sound.RING
    due: Callable[[], bool] | None = None
    """Sent only if this still says so when its turn comes (else dropped)."""
    who: int | None = None
    """The member this answers, while it waits beyond his share (:meth:`ChatQueue.promote`)."""


@dataclass(slots=True)
class Delete:
    message_id: int


@dataclass(slots=True, eq=False)
class Show:
    slot: Slot
    sound: Sound = Sound.RING
    """How the slot's message rings if it is sent (not edited)."""
    content: Content | None = None
    """What is being sent (taken from the chat's ``waiting`` when its turn comes)."""
    fixed: Pending | None = None
    """The last state of an epoch (:meth:`Outbox.show_lazy`): sent as it is, not replaced
    by a newer state (that waits behind it)."""


@dataclass(slots=True, eq=False)
class Call:
    run: Callable[[], Awaitable[int]]
    """Returns how many requests it made."""


SWEEP_FROM = 256
"""Chats' queues held before the quiet ones are first looked for (:class:`Chats`)."""


class Chats(dict[int, "ChatQueue"]):
    """Each chat's queue, made when first needed. The queues of chats quiet for longer
    than any pace looks back are forgotten (such a queue is as a new one would be, and
    each held ~4 KB for good, for every player and group the bot ever wrote to): looked
    for when the queues doubled since the last time, so it costs nothing per message."""

    def __init__(self) -> None:
        super().__init__()
        self._sweep_at = SWEEP_FROM

    def of(self, chat_id: int, horizon: float) -> ChatQueue:
        """``chat_id``'s queue (``horizon``: seconds a quiet queue is still kept)."""
        chat = self.get(chat_id)
        if chat is None:
            if len(self) >= self._sweep_at:
                since = time.monotonic() - horizon
                for quiet in [i for i, c in self.items() if c.quiet(since)]:
                    del self[quiet]
                self._sweep_at = max(SWEEP_FROM, 2 * len(self))
            chat = self[chat_id] = ChatQueue(chat_id)
        return chat


class ChatQueue:
    """One chat's queue, pacing window and state after failures."""

    __slots__ = (
        "chat_id",
        "queue",
        "task",
        "last",
        "waiting",
        "epochs",
        "window",
        "answers",
        "later",
        "asked",
        "backoff",
        "pause_until",
        "sending",
        "refused",
        "woken",
    )

    def __init__(self, chat_id: int) -> None:
        self.chat_id = chat_id
        self.window: deque[float] = deque()
        """When recent requests to this (group) chat were made."""
        self.queue: deque[Post | Delete | Show | Call] = deque()
        self.task: asyncio.Task[None] | None = None
        self.last = -1e9
        self.waiting: dict[int, Pending] = {}
        """Slot id -> latest content for slots queued here."""
        self.epochs: dict[int, object] = {}
        """Slot id -> the epoch of its waiting content, when it has one."""
        self.answers: deque[Post | Show] = deque()
        """Answers to people in a group (a command's, the lobby after a press): sent before
        everything in :attr:`queue` (a table message waiting there coalesces, so it loses
        nothing)."""
        self.later: deque[Post] = deque()
        """Other answers (a private chat's, a member's beyond his share): after the game's."""
        self.asked: dict[int, deque[float]] = {}
        """Member -> when his recent answers were let ahead of the game's messages."""
        self.backoff = 0.0
        """The pause after the last failed attempt (0 after a success)."""
        self.sending: int | None = None
        """The slot (its id) whose content is being sent now, tries included."""
        self.pause_until = -1e9
        """Nothing is sent to this chat before (Telegram kept failing)."""
        self.refused = False
        """The bot may not write in this group now (logged once; sent when it may)."""
        self.woken = asyncio.Event()
        """Set when an answer to a person is queued: the worker stops waiting (:meth:`nap`)."""

    async def nap(self, seconds: float) -> None:
        """Wait ``seconds``, or less if an answer to a person is queued meanwhile: the wait
        was for the game's pace, which an answer does not keep."""
        self.woken.clear()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await self.woken.wait()

    def show(
        self, slot: Slot, content: Pending, sound: Sound | None, epoch: object, answer: bool = False
    ) -> None:
        """Queue ``slot`` to show ``content`` (once: a newer state replaces a waiting one).
        A state of another ``epoch`` than the waiting state's does not replace it: that one
        was the last of its epoch (a trick's end, say) and is sent; the new one waits
        behind it. ``answer``: it answers a press (the lobby): it goes with the answers."""
        key = id(slot)
        if key in self.waiting:
            before = self.epochs.get(key)
            if before is not None and epoch is not None and epoch != before:
                for item in (*self.answers, *self.queue):  # the epoch's last state stays
                    if isinstance(item, Show) and id(item.slot) == key and item.fixed is None:
                        item.fixed = self.waiting.pop(key)
                        break
        if key not in self.waiting:
            if sound is None:
                sound = Sound.QUIET if slot.silent else Sound.default(slot.chat_id)
            (self.answers if answer else self.queue).append(Show(slot, sound))
        elif answer:
            self.hurry(slot)
        self.waiting[key] = content
        if epoch is None:
            self.epochs.pop(key, None)
        else:
            self.epochs[key] = epoch

    def take(self, item: Show) -> Content | None:
        """What ``item`` sends now (rendered now if it was queued unrendered)."""
        pending = item.fixed
        if pending is None:
            pending = self.waiting.pop(id(item.slot), None)
            self.epochs.pop(id(item.slot), None)
        return pending() if callable(pending) else pending

    def forget(self, slot: Slot) -> None:
        """Send nothing more of ``slot``: its waiting state and an epoch's kept last state."""
        key = id(slot)
        self.waiting.pop(key, None)
        self.epochs.pop(key, None)
        for item in (*self.answers, *self.queue):
            if isinstance(item, Show) and item.slot is slot:
                item.fixed = None

    def unshown(self, slot: Slot) -> bool:
        """Whether a state of ``slot`` is still waiting here or being sent."""
        if id(slot) in (self.sending, *self.waiting):
            return True
        return any(
            isinstance(i, Show) and i.slot is slot and i.fixed for i in (*self.answers, *self.queue)
        )

    def keep(self, item: Post | Delete | Show | Call) -> None:
        """``item`` was not taken: it goes first again. A slot is sent with its latest
        content (one queued meanwhile wins); a call (a sheet, say) runs again, so nothing
        queued behind it overtakes it."""
        if isinstance(item, Post | Call):
            self.queue.appendleft(item)
        elif isinstance(item, Show) and item.fixed is not None:  # an epoch's end: as it was
            item.fixed = item.content or item.fixed
            self.queue.appendleft(item)
        elif isinstance(item, Show) and item.content is not None:
            if (key := id(item.slot)) not in self.waiting:  # else a newer state is queued
                self.waiting[key] = item.content
                self.queue.appendleft(Show(item.slot, item.sound))

    def hurry(self, slot: Slot) -> None:
        """``slot``, queued behind the game's messages, now answers a person: it moves
        ahead with the answers (still coalescing: its content stays in :attr:`waiting`)."""
        queued = next((i for i in self.queue if isinstance(i, Show) and i.slot is slot), None)
        if queued is not None:
            self.queue.remove(queued)
            self.answers.append(queued)

    def answer(self, text: str, sound: Sound, who: int | None, limit: int, window: float) -> None:
        """Queue an answer to ``who`` (a group's member; ``None`` in a private chat): ahead
        of the game's messages for ``limit`` of his answers per ``window`` seconds, else
        after them until his share allows (:meth:`promote`). A repeat of an answer still
        queued is merged into it."""
        if any(isinstance(p, Post) and p.text == text for p in self.answers):
            return
        late = next((p for p in self.later if p.text == text), None)
        if who is not None and self.ahead(who, limit, window):
            if late is not None:
                self.later.remove(late)
            self.answers.append(late or Post(text, None, sound=sound))
        elif late is None:
            self.later.append(Post(text, None, sound=sound, who=who))

    def promote(self, limit: int, window: float) -> None:
        """A member's answers that wait beyond his share go ahead once it allows (his oldest
        answer ahead left the window): the guard delays him, it never buries him behind a
        game whose messages are always due."""
        for post in list(self.later):
            if post.who is not None and self.ahead(post.who, limit, window):
                self.later.remove(post)
                self.answers.append(post)

    def drop(self) -> None:
        """Forget everything queued (nobody can receive it)."""
        self.queue.clear()
        self.answers.clear()
        self.later.clear()
        self.waiting.clear()
        self.epochs.clear()

    def quiet(self, since: float) -> bool:
        """Nothing queued, being sent or held back, and no request nor failure since
        ``since`` (``time.monotonic()``): this queue paces as a new one would."""
        return (
            self.task is None
            and not (self.queue or self.answers or self.later or self.waiting or self.epochs)
            and self.sending is None
            and not self.refused
            and self.backoff == 0.0
            and max(self.last, self.pause_until) < since
            and not (self.window and self.window[-1] >= since)
            and not any(times and times[-1] >= since for times in self.asked.values())
        )

    def ahead(self, who: int, limit: int, window: float) -> bool:
        """Whether ``who``'s answer may go ahead of the game's messages: fewer than
        ``limit`` of his went ahead in the last ``window`` seconds (then it is counted)."""
        now = time.monotonic()
        times = self.asked.setdefault(who, deque())
        while times and times[0] <= now - window:
            times.popleft()
        for gone in [w for w, ts in self.asked.items() if not ts and w != who]:
            del self.asked[gone]
        if len(times) >= limit:
            return False
        times.append(now)
        return True
