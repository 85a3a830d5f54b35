"""How fast the outbox sends, and how one request is tried again: the bot's only pacing and
retry layer.

Telegram's limits: ~30 requests a second for the whole bot, 20 a minute per group, about
one a second per private chat. All three are kept here, in front of the outbox's per-chat
workers, not by python-telegram-bot's ``AIORateLimiter`` under them: the outbox knows what
it is holding back (a table message waiting only gets its newest state, a new message keeps
its place, an answer to a button press is never held back), the limiter does not. With both,
a ``RetryAfter`` was waited out by the limiter up to three times (stopping every request of
the bot meanwhile) and then four times more by the outbox, and the limiter's leaky bucket
let through bursts that Telegram's sliding minute refuses. Here each ``RetryAfter`` is
waited out once, for as long as Telegram says, and the request is sent again; a network
error (a timeout, a reset, a 5xx) is tried again a few times after a short pause, then the
outbox keeps the message due and tries again later (:meth:`Outbox._again`).

A group's minute is shared by priority. The game's messages (table edits, results, sheets)
keep a steady pace and never use the last :data:`ANSWER_RESERVE` of the window; answers to
people (a command's answer, the lobby after a press) may use the whole window at once, a
short burst an even spacing would not allow: a settings press shows in a moment, not six
seconds later, and a command typed during a busy game finds room at once.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any, Final

from telegram import CallbackQuery
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TelegramError, TimedOut

from .edits import answer_query
from .queue import ChatQueue

__all__ = [
    "answer_press",
    "Pacing",
    "ANSWER_RESERVE",
    "ANSWER_SHARE",
    "ANSWERS_AHEAD",
    "ANSWERS_WINDOW",
    "flood_wait",
]

log = logging.getLogger(__name__)

MAX_ATTEMPTS: Final = 4
"""Tries of a request that meets network errors before the outbox keeps it for later."""
ANSWER_RESERVE: Final = 0.2
"""The share of a group's window (4 of Telegram's 20 a minute) the game's messages leave
to answers to people."""
ANSWER_SHARE: Final = 0.25
"""The share of a group's message budget the answers waiting behind the game's messages
(:attr:`ChatQueue.later`) may use."""
ANSWERS_AHEAD: Final = 5
"""Answers to one member that go ahead of a group's table edits per :data:`ANSWERS_WINDOW`
seconds; more of his wait until his share allows, so one member cannot flood the group (a
member asking /rules, /history, /top and /stats in a row is not flooding it)."""
ANSWERS_WINDOW: Final = 60.0


def flood_wait(exc: RetryAfter) -> float:
    """The seconds Telegram asked to wait (a ``timedelta``: the opt-in is in
    :func:`bot.app.build_application`)."""
    delay = exc.retry_after
    return delay.total_seconds() if isinstance(delay, timedelta) else float(delay)


class Pacing:
    """The limits, per chat and for all chats together (``overall_rate`` requests a second,
    one every ``1 / overall_rate`` seconds rather than bursts; 0: none)."""

    def __init__(
        self,
        *,
        private_interval: float,
        group_limit: int,
        group_window: float,
        group_fast_interval: float,
        overall_rate: float,
        retry_base: float,
    ) -> None:
        self.private_interval = private_interval
        self.group_limit = group_limit
        self.group_window = group_window
        self.group_fast_interval = group_fast_interval
        self.overall_interval = 1.0 / overall_rate if overall_rate > 0 else 0.0
        self.retry_base = retry_base
        self._last = -1e9
        """When the last request to any chat went (monotonic seconds)."""
        self._turn = asyncio.Lock()
        """Requests take their turn one by one (first come, first served), so that a busy
        event loop never lets the waiting ones go in a burst."""

    def wait(self, chat: ChatQueue) -> float:
        """Seconds to wait before the game's next request to ``chat``.

        Private chats: one request per ``private_interval``. Groups: the game's messages
        never fill more than :meth:`game_limit` of any ``group_window`` (the rest is kept
        for answers, :meth:`wait_first`); a few may follow each other every
        ``group_fast_interval``, then one goes every ``group_window / (group_limit // 2)``
        (6 s at Telegram's 20 a minute), a pace that never reaches that limit, so the table
        never stalls for long; coalescing keeps its latest state meanwhile.
        """
        now = time.monotonic()
        held = self._held(chat, self.game_limit(), now)
        if held is not None:
            return held
        steady = max(1, self.group_limit // 2)
        if len(chat.window) < self.game_limit() - steady:
            interval = self.group_fast_interval
        else:
            interval = self.group_window / steady
        return chat.last + interval - now

    def wait_first(self, chat: ChatQueue) -> float:
        """Seconds before an answer to a person may go (a command's answer, the lobby after
        a press): in a group only the whole window counts, not the game's even pacing."""
        now = time.monotonic()
        held = self._held(chat, self.group_limit, now)
        if held is not None:
            return held
        return chat.last + self.group_fast_interval - now

    def game_limit(self) -> int:
        """The most requests of the game's messages in a group's window."""
        reserve = max(1, round(self.group_limit * ANSWER_RESERVE))
        return max(1, self.group_limit - reserve)

    def _held(self, chat: ChatQueue, limit: int, now: float) -> float | None:
        """The wait a pause after failures, a private chat's pace or a group window holding
        ``limit`` requests impose (requests older than the window are forgotten); ``None``
        for a group with room."""
        paused = chat.pause_until - now
        if paused > 0:
            return paused
        if chat.chat_id > 0:
            return chat.last + self.private_interval - now
        window = chat.window
        while window and window[0] <= now - self.group_window:
            window.popleft()
        if len(window) < limit:
            return None
        return window[len(window) - limit] + self.group_window - now

    def wait_in(self, chat: ChatQueue, lane: object) -> float:
        """Seconds before the first of ``chat``'s ``lane`` may go: its answers to people
        (:meth:`wait_first`), the game's messages (:meth:`wait`) or the answers behind
        them (:meth:`wait_answer`)."""
        if lane is chat.answers:
            return self.wait_first(chat)
        return self.wait_answer(chat) if lane is chat.later else self.wait(chat)

    def wait_answer(self, chat: ChatQueue) -> float:
        """Seconds before an answer behind the game's messages may go: in a group only while
        less than :data:`ANSWER_SHARE` of the window is used, so the game keeps the rest."""
        wait = self.wait(chat)
        if chat.chat_id > 0 or len(chat.window) < self.group_limit * ANSWER_SHARE:
            return wait
        return max(wait, chat.window[0] + self.group_window - time.monotonic(), 0.01)

    async def _overall(self) -> None:
        """Wait for this request's turn among all chats' (first come, first served)."""
        if not self.overall_interval:
            return
        async with self._turn:
            wait = self._last + self.overall_interval - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            self._last = time.monotonic()

    async def request(self, call: Callable[[], Awaitable[Any]]) -> Any:
        """``call()`` (one Bot API request) in its turn: ``RetryAfter`` is waited out and the
        request sent again; a network error is tried again up to :data:`MAX_ATTEMPTS` times,
        then raised (the outbox keeps the message due)."""
        attempt = 0
        while True:
            await self._overall()
            try:
                return await call()
            except RetryAfter as exc:
                seconds = flood_wait(exc)
                log.info("flood control: waiting %.1f s", seconds)
                await asyncio.sleep(seconds + 0.1)
            except (TimedOut, NetworkError) as exc:  # 5xx, timeouts, connection resets
                attempt += 1
                if isinstance(exc, BadRequest | Forbidden) or attempt >= MAX_ATTEMPTS:
                    raise
                await asyncio.sleep(0.5 * self.retry_base * attempt)


async def answer_press(
    query: CallbackQuery,
    text: str | None = None,
    *,
    alert: bool = False,
    url: str | None = None,
) -> None:
    """Answer a button press; timeouts, resets and 5xx are retried (an answer later than
    ~15 s is useless, so no flood wait), a refused answer is only logged."""
    for attempt in range(1, 4):
        try:
            await answer_query(query.get_bot(), query.id, text, alert=alert, url=url)
            return
        except TelegramError as exc:
            retry = isinstance(exc, NetworkError) and not isinstance(exc, BadRequest)
            if not retry or attempt == 3:
                log.info("answering a button press failed: %s", exc)
                return
            await asyncio.sleep(0.3 * attempt)
