"""``FakeTelegram``: an in-memory Telegram for one bot. Its Bot API answers with Telegram's
shapes, status codes and error texts; tests play the users and inspect what the bot did."""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from .methods import CONFLICT_POLL, decode
from .model import (
    ApiCall,
    ApiError,
    CallbackQueryRecord,
    FailureRule,
    FailureSpec,
    FakeChat,
    FakeUser,
    FloodError,
    FloodLimits,
    InjectedReset,
    InjectedTimeout,
    JSONDict,
    MessageView,
    StoredMessage,
)
from .people import People
from .world import Clock, Ref

T = TypeVar("T")
_ENCODER = json.JSONEncoder(ensure_ascii=False)
_NOT_FOUND: JSONDict = {"ok": False, "error_code": 404, "description": "Not Found"}


def _check(predicate: Callable[[], T | None], deadline: float, what: str) -> tuple[T | None, float]:
    """``predicate()``, and how long to wait before looking again if it is not met yet."""
    result = predicate()
    remaining = deadline - time.monotonic()
    if not result and remaining <= 0:
        raise TimeoutError(f"not met in time: {what}")
    return result, min(remaining, 0.05)


class _NothingYet(Exception):
    """A long poll found no update: it waits for one."""


def encode(body: JSONDict) -> bytes:
    """A JSON body as Telegram sends it (UTF-8, not ASCII-escaped)."""
    return _ENCODER.encode(body).encode()


class FakeTelegram(People):
    """In-memory Telegram for one bot: the Bot API, simulated users, inspection."""

    def __init__(
        self,
        token: str = "123456789:AAHfakeTokenForTestsOnly_abcdefghijk",
        *,
        clock: Clock = time.monotonic,
        flood: FloodLimits | None = None,
    ) -> None:
        super().__init__(token, clock, flood)
        self._handlers = {name.lower(): (name, fn) for name, fn in self._methods().items()}
        self._poll_gen = 0

    # ------------------------------------------------------------------ the Bot API

    def check_token(self, token: str) -> tuple[int, JSONDict] | None:
        """None for this bot's token, else Telegram's answer to a request made with it."""
        if token == self.token:
            return None
        if not token.split(":", 1)[0].isdigit():
            return 404, dict(_NOT_FOUND)
        return 401, {"ok": False, "error_code": 401, "description": "Unauthorized"}

    def handle(self, method: str, params: dict[str, Any]) -> tuple[int, JSONDict]:
        """Answer one call at once (getUpdates too: it never waits here)."""
        status, body = self._call(method, params)
        return status, json.loads(body)

    async def handle_async(self, method: str, params: dict[str, Any]) -> tuple[int, JSONDict]:
        """Like :meth:`handle`, but a getUpdates long poll waits without blocking the loop."""
        status, body = await self.handle_encoded(method, params)
        return status, json.loads(body)

    async def handle_encoded(self, method: str, params: dict[str, Any]) -> tuple[int, bytes]:
        """:meth:`handle_async` with the body as the bytes a transport sends. A newer
        getUpdates ends a waiting one with 409, as Telegram does."""
        if method.lower() != "getupdates":
            return self._call(method, params)
        with self._lock:
            self._poll_gen += 1
            ticket = self._poll_gen
            self._notify()
        deadline = time.monotonic() + float(params.get("timeout") or 0)
        first = True
        while True:
            with self._lock:
                version = self._version
                if ticket != self._poll_gen:
                    return self._answer("getUpdates", params, ApiError(409, CONFLICT_POLL))
                try:
                    return self._call("getUpdates", params, first, time.monotonic() < deadline)
                except _NothingYet:
                    pass
            first = False
            await self._wait_change(version, deadline - time.monotonic())

    def _call(
        self, method: str, raw: dict[str, Any], inject: bool = True, wait: bool = False
    ) -> tuple[int, bytes]:
        """Answer and record a call; with ``wait``, an empty getUpdates raises _NothingYet."""
        name, handler = self._handlers.get(method.lower(), (method, None))
        with self._lock:
            params = decode(raw)
            rule = self._take_failure(name, params) if inject else None
            if rule is not None and not rule.applied:
                return self._failed(name, params, rule.error)
            result: Any = ApiError(404, "Not Found")
            try:
                if method.lower() == "getupdates":
                    result = self._updates_batch(params)
                    if not result and wait and rule is None:
                        raise _NothingYet
                elif handler is not None:
                    result = handler(params)
            except ApiError as exc:
                result = exc
            if rule is not None:  # applied: the call took effect, then its answer failed
                return self._failed(name, params, rule.error)
            return self._answer(name, params, result)

    def _answer(self, method: str, params: JSONDict, result: Any) -> tuple[int, bytes]:
        """Record the call and its answer; wake the waiters."""
        if isinstance(result, ApiError):
            status, body = result.code, encode(result.body())
        else:
            status, body = 200, encode({"ok": True, "result": result})
        self._record(method, params, self.clock(), status, body)
        self._notify()
        return status, body

    def _record(
        self, method: str, params: JSONDict, now: float, status: int | str, body: bytes | None
    ) -> None:
        """Keep the call in the log :meth:`calls` reads (benchmarks keep less)."""
        self._calls.append(ApiCall(method, params, now, status, body))

    def _failed(self, method: str, params: JSONDict, error: FailureSpec) -> tuple[int, bytes]:
        if isinstance(error, str):
            self._record(method, params, self.clock(), error, None)
            self._notify()
            raise InjectedTimeout(method) if error == "timeout" else InjectedReset(method)
        code, detail = int(error[0]), error[1]
        if code != 429:
            return self._answer(method, params, ApiError(code, str(detail)))
        wait = float(detail)  # a fraction of a second scales time down (Telegram: whole ones)
        retry: int | float = int(wait) if wait.is_integer() else wait
        self._flood_errors.append(FloodError(method, None, "injected", retry, self.clock()))
        text = f"Too Many Requests: retry after {retry}"
        return self._answer(method, params, ApiError(429, text, {"retry_after": retry}))

    def _take_failure(self, method: str, params: JSONDict) -> FailureRule | None:
        for rule in self._failures:
            if rule.methods is not None and method.lower() not in rule.methods:
                continue
            if rule.predicate is not None and not rule.predicate(method, params):
                continue
            if rule.remaining is not None:
                rule.remaining -= 1
                if rule.remaining <= 0:
                    self._failures.remove(rule)
            return rule
        return None

    # ------------------------------------------------------------------ failure injection

    def fail_next(
        self,
        method: str | Iterable[str] | None,
        times: int = 1,
        error: FailureSpec = (500, "Internal Server Error"),
        *,
        applied: bool = False,
    ) -> None:
        """The next ``times`` calls of ``method`` (None: any) fail with ``error``; with
        ``applied`` a call takes effect first and only its answer is lost or replaced."""
        names = None
        if method is not None:
            names = frozenset(n.lower() for n in ([method] if isinstance(method, str) else method))
        with self._lock:
            self._failures.append(FailureRule(names, None, error, times, applied))

    def fail_when(
        self,
        predicate: Callable[[str, JSONDict], bool],
        error: FailureSpec,
        *,
        times: int | None = None,
        applied: bool = False,
    ) -> None:
        """Calls for which ``predicate(method, params)`` holds fail (``times`` None: always)."""
        with self._lock:
            self._failures.append(FailureRule(None, predicate, error, times, applied))

    def clear_failures(self) -> None:
        """Drop every failure still to come."""
        with self._lock:
            self._failures.clear()

    # ------------------------------------------------------------------ inspection

    @property
    def calls(self) -> list[ApiCall]:
        """Every Bot API call so far."""
        with self._lock:
            return list(self._calls)

    def calls_to(self, method: str) -> list[ApiCall]:
        """The calls of one method (its name in any case)."""
        name = method.lower()
        with self._lock:
            return [c for c in self._calls if c.method.lower() == name]

    @property
    def flood_errors(self) -> list[FloodError]:
        """Every 429 answered so far."""
        with self._lock:
            return list(self._flood_errors)

    @property
    def callback_queries(self) -> list[CallbackQueryRecord]:
        """Every button press so far."""
        with self._lock:
            return list(self._queries.values())

    @property
    def callback_answers(self) -> dict[str, JSONDict]:
        """Query id to the answerCallbackQuery parameters, for the answered queries."""
        with self._lock:
            return {q.id: dict(q.answer or {}) for q in self._queries.values() if q.answered}

    def callback_answer(self, query_id: str) -> JSONDict:
        """The answerCallbackQuery parameters of one query ({} while unanswered)."""
        return self.callback_answers.get(query_id, {})

    def unanswered_callbacks(self) -> list[str]:
        """The ids of the queries the bot never answered."""
        with self._lock:
            return [q.id for q in self._queries.values() if not q.answered]

    def messages(self, chat: Ref, *, include_deleted: bool = False) -> list[MessageView]:
        """A chat's messages in order, as they look now."""
        return self._views(chat, lambda msg: include_deleted or not msg.deleted)

    def bot_messages(self, chat: Ref) -> list[MessageView]:
        """The messages the bot sent in a chat and did not delete."""
        return self._views(chat, lambda m: not m.deleted and m.sender is self.bot and not m.service)

    def _views(self, chat: Ref, keep: Callable[[StoredMessage], bool]) -> list[MessageView]:
        with self._lock:
            target = self._chat(chat)
            stored = (self._messages[(target.id, i)] for i in target.message_ids)
            return [self._view(msg) for msg in stored if keep(msg)]

    def last_bot_message(self, chat: Ref) -> MessageView | None:
        """The newest message the bot sent in a chat and did not delete."""
        sent = self.bot_messages(chat)
        return sent[-1] if sent else None

    def message(self, chat: Ref, message_id: int) -> MessageView:
        """One message (a deleted one too)."""
        with self._lock:
            return self._view(self._stored(self._chat(chat).id, message_id))

    def pending_updates(self) -> list[JSONDict]:
        """The updates queued and not yet confirmed by the bot."""
        with self._lock:
            return copy.deepcopy(list(self._updates))

    def pending_update_count(self) -> int:
        """How many updates wait for the bot (no copy: for busy loops)."""
        return len(self._updates)

    def commands(self, language_code: str = "") -> list[tuple[str, str]] | None:
        """The default scope's commands for a language, None if never set."""
        with self._lock:
            stored = self._commands.get(('{"type": "default"}', language_code))
            return None if stored is None else [(c["command"], c["description"]) for c in stored]

    def user(self, user_id: int) -> FakeUser:
        """A user by id."""
        with self._lock:
            return self._user(user_id)

    def chat(self, chat_id: int) -> FakeChat:
        """A chat by id."""
        with self._lock:
            return self._chat(chat_id)

    @property
    def webhook_url(self) -> str | None:
        """The URL set by setWebhook, if any."""
        return None if self._webhook is None else str(self._webhook["url"])

    @property
    def webhook_secret(self) -> str | None:
        """The secret token set with the webhook."""
        return None if self._webhook is None else self._webhook["secret_token"]

    # ------------------------------------------------------------------ waiting

    async def wait_until(
        self, predicate: Callable[[], T | None], timeout: float = 5.0, what: str = ""
    ) -> T:
        """Wait (not blocking the loop) until ``predicate()`` is truthy; return its value."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                version = self._version
            result, pause = _check(predicate, deadline, what or f"{predicate} in {timeout}s")
            if result:
                return result
            await self._wait_change(version, pause)

    def wait_until_sync(
        self, predicate: Callable[[], T | None], timeout: float = 5.0, what: str = ""
    ) -> T:
        """:meth:`wait_until` blocking the thread, for a bot in another thread or process."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                result, pause = _check(predicate, deadline, what or f"{predicate} in {timeout}s")
                if result:
                    return result
                self._cond.wait(pause)

    async def wait_for_bot_message(
        self, chat: Ref, wanted: str | Callable[[MessageView], bool], timeout: float = 5.0
    ) -> MessageView:
        """Wait for a bot message in ``chat`` that contains ``wanted`` or satisfies it."""
        check = wanted if callable(wanted) else lambda m: wanted in m.content

        def find() -> MessageView | None:
            return next((m for m in reversed(self.bot_messages(chat)) if check(m)), None)

        return await self.wait_until(find, timeout, f"{wanted!r} in {chat}")
