"""What waits in a chat's outgoing queue (:mod:`bot.telegram.outbox`), and how Telegram's
refusals of an edit are told apart."""

from __future__ import annotations

import asyncio
import logging
import warnings
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from telegram import InlineKeyboardMarkup
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TimedOut

from bot.core.model import Slot

__all__ = [
    "Post",
    "Delete",
    "Show",
    "Call",
    "ChatQueue",
    "message_gone",
    "not_modified",
    "no_rights",
    "retried",
]

log = logging.getLogger("bot.telegram.outbox")  # the outbox's lines, under its name

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


@dataclass(slots=True)
class Post:
    text: str
    markup: InlineKeyboardMarkup | None
    done: Callable[[int], Awaitable[None]] | None = None
    """Called with the sent message's id."""


@dataclass(slots=True)
class Delete:
    message_id: int


@dataclass(slots=True, eq=False)
class Show:
    slot: Slot
    content: tuple[str, InlineKeyboardMarkup | None] | None = None
    """What is being sent (taken from the chat's ``waiting`` when its turn comes)."""


@dataclass(slots=True, eq=False)
class Call:
    run: Callable[[], Awaitable[bool]]


class ChatQueue:
    """One chat's queue, pacing window and state after failures."""

    __slots__ = (
        "chat_id",
        "queue",
        "task",
        "last",
        "waiting",
        "window",
        "answers",
        "answered",
        "backoff",
        "pause_until",
        "sending",
        "refused",
    )

    def __init__(self, chat_id: int) -> None:
        self.chat_id = chat_id
        self.window: deque[float] = deque()
        """When recent requests to this (group) chat were made."""
        self.queue: deque[Post | Delete | Show | Call] = deque()
        self.task: asyncio.Task[None] | None = None
        self.last = -1e9
        self.waiting: dict[int, tuple[str, InlineKeyboardMarkup | None]] = {}
        """Slot id -> latest content for slots queued here."""
        self.answers: deque[Post] = deque()
        """Answers to commands: sent after everything in :attr:`queue` (the game first)."""
        self.answered: dict[str, float] = {}
        """Answer text -> when it was last queued (the same answer is not repeated)."""
        self.backoff = 0.0
        """The pause after the last failed attempt (0 after a success)."""
        self.sending: int | None = None
        """The slot (its id) whose content is being sent now, tries included."""
        self.pause_until = -1e9
        """Nothing is sent to this chat before (Telegram kept failing)."""
        self.refused = False
        """The bot may not write in this group now (logged once; sent when it may)."""

    def keep(self, item: Post | Delete | Show | Call, *, calls: bool = False) -> None:
        """``item`` was not taken: it goes first again (a slot with its latest content, one
        queued meanwhile wins); a call only with ``calls`` (it may have sent something)."""
        if isinstance(item, Post) or (calls and isinstance(item, Call)):
            self.queue.appendleft(item)
        elif isinstance(item, Show) and item.content is not None:
            if (key := id(item.slot)) not in self.waiting:  # else a newer state is queued
                self.waiting[key] = item.content
                self.queue.appendleft(Show(item.slot))

    def drop(self) -> None:
        """Forget everything queued (nobody can receive it)."""
        self.queue.clear()
        self.answers.clear()
        self.waiting.clear()


MAX_ATTEMPTS = 4


async def retried(call: Callable[[], Awaitable[Any]], base: float) -> Any:
    """``call()``, waiting out ``RetryAfter`` and trying a network error (5xx, a timeout,
    a reset) again after ``base``-scaled pauses, :data:`MAX_ATTEMPTS` times in all."""
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            return await call()
        except RetryAfter as exc:
            if attempt == MAX_ATTEMPTS:
                raise
            with warnings.catch_warnings():  # PTB warns about the int/timedelta switch
                warnings.simplefilter("ignore")
                delay = exc.retry_after
            seconds = delay.total_seconds() if hasattr(delay, "total_seconds") else delay
            log.info("flood control: waiting %.1f s", seconds)
            await asyncio.sleep(float(seconds) + 0.1)
        except (TimedOut, NetworkError) as exc:
            if isinstance(exc, BadRequest | Forbidden) or attempt >= MAX_ATTEMPTS:
                raise
            await asyncio.sleep(0.5 * base * attempt)
    raise AssertionError("unreachable")
