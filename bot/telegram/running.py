"""Running the Application until a stop signal, and stopping it within a container's grace.

PTB's ``run_polling`` sends every failed poll to the application's error handler (an ERROR
with a traceback each time, 7-9 per outage), and its stop waits for each step as long as
it takes: with Telegram not answering, the last ``getUpdates``, the handlers waiting for
their answers and the outbox's flush each waited out a read timeout (11 s, past a
container's 10 s between SIGTERM and SIGKILL). Here the updates are started by the caller
(polling: :func:`start_polling`; a webhook: :mod:`.webhook`), an outage is one WARNING and
one INFO when it is over (:class:`OutageWatch`), and each step of the stop has its share
of :data:`STOP_BUDGET`; what does not finish in it is left (the database is written at
every change: nothing is lost that a restart does not resume).
"""

from __future__ import annotations

import asyncio
import logging
import signal
import time
from collections.abc import Awaitable, Callable
from typing import Any

from telegram import Update
from telegram.error import NetworkError, TelegramError
from telegram.ext import Application
from telegram.request import BaseRequest, RequestData

from .incoming import slim_updates

__all__ = [
    "ALLOWED_UPDATES",
    "OutageWatch",
    "STOP_BUDGET",
    "serve",
    "start_polling",
]

log = logging.getLogger(__name__)

ALLOWED_UPDATES = [Update.MESSAGE, Update.CALLBACK_QUERY, Update.MY_CHAT_MEMBER]

STOP_BUDGET = {"updates": 1.5, "handlers": 2.0, "flush": 3.0, "shutdown": 1.0}
"""Seconds each step of the stop may take at most (7.5 in all, then the database is
closed): the updates' source, the handlers under way, the outbox's flush (and the analysis
worker's end), the Bot API client."""

OUTBOX_FLUSH = 2.5
"""Seconds the outbox may spend sending what is queued at the stop (within "flush")."""

App = Application[Any, Any, Any, Any, Any, Any]


class OutageWatch(BaseRequest):
    """The ``getUpdates`` client, watched: the first failure to reach Telegram is logged as
    one WARNING, the first answer after it as one INFO (PTB retries by itself); the updates
    are slimmed before PTB parses them (:mod:`.incoming`)."""

    def __init__(self, inner: BaseRequest) -> None:
        self.inner = inner
        self.since: float | None = None
        """When the outage began (``None``: Telegram answers)."""

    @property
    def read_timeout(self) -> float | None:
        return self.inner.read_timeout

    async def initialize(self) -> None:
        await self.inner.initialize()

    @staticmethod
    def parse_json_payload(payload: bytes) -> dict[str, Any]:
        """PTB's parsing, each pressed message cut to what the bot reads (:mod:`.incoming`)."""
        return slim_updates(BaseRequest.parse_json_payload(payload))  # type: ignore[no-any-return]

    async def shutdown(self) -> None:
        await self.inner.shutdown()

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = BaseRequest.DEFAULT_NONE,
        write_timeout: Any = BaseRequest.DEFAULT_NONE,
        connect_timeout: Any = BaseRequest.DEFAULT_NONE,
        pool_timeout: Any = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        try:
            status, body = await self.inner.do_request(
                url,
                method,
                request_data,
                read_timeout,
                write_timeout,
                connect_timeout,
                pool_timeout,
            )
        except NetworkError as exc:  # TimedOut included
            self._failed(str(exc))
            raise
        if status >= 500:  # PTB raises NetworkError: Telegram's side is down
            self._failed(f"HTTP {status}")
        elif status == 200:
            self._answered()
        return status, body

    def _failed(self, why: str) -> None:
        if self.since is None:
            self.since = time.monotonic()
            log.warning("Telegram cannot be reached for updates (%s); trying again", why)

    def _answered(self) -> None:
        if self.since is not None:
            log.info("Telegram answers again (updates were out for %.0f s)", self._lasted())
            self.since = None

    def _lasted(self) -> float:
        return time.monotonic() - (self.since or time.monotonic())


def _poll_error(exc: TelegramError) -> None:
    """PTB's report of a failed poll: an outage is the watch's one line; anything else
    (a second bot polling with this token: ``Conflict``) one line each time, no traceback."""
    if not isinstance(exc, NetworkError):
        log.error("getUpdates failed: %s", exc)


async def start_polling(app: App, *, timeout: int = 10, poll_interval: float = 0.0) -> None:
    """Start polling with the bot's error callback (``timeout``: the long poll's)."""
    assert app.updater is not None
    await app.updater.start_polling(
        poll_interval=poll_interval,
        timeout=timeout,
        allowed_updates=ALLOWED_UPDATES,
        error_callback=_poll_error,
    )


async def _stop_polling(app: App) -> None:
    if app.updater is not None and app.updater.running:
        await app.updater.stop()


def serve(
    app: App,
    start: Callable[[App], Awaitable[None]] = start_polling,
    stop: Callable[[App], Awaitable[None]] = _stop_polling,
) -> None:
    """Initialize ``app``, ``start`` its updates, run until SIGINT, SIGTERM or SIGABRT,
    then :func:`stop_app` (``stop``: the updates' source) within :data:`STOP_BUDGET`."""
    asyncio.run(_serve(app, start, stop))


async def _serve(
    app: App, start: Callable[[App], Awaitable[None]], stop: Callable[[App], Awaitable[None]]
) -> None:
    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGABRT):
        loop.add_signal_handler(sig, stopping.set)
    starting = asyncio.create_task(_start(app, start))
    signalled = asyncio.create_task(stopping.wait())
    try:
        await asyncio.wait((starting, signalled), return_when=asyncio.FIRST_COMPLETED)
        if starting.done():
            starting.result()  # a failed start (a refused webhook, say) is raised
            await signalled
        else:  # stopped while starting (resuming tables, Telegram slow)
            starting.cancel()
            await asyncio.gather(starting, return_exceptions=True)
    finally:
        signalled.cancel()
        await stop_app(app, stop)


async def _start(app: App, start: Callable[[App], Awaitable[None]]) -> None:
    await app.initialize()
    if app.post_init is not None:
        await app.post_init(app)
    await start(app)
    await app.start()
    log.info("started")


async def stop_app(app: App, stop: Callable[[App], Awaitable[None]] = _stop_polling) -> None:
    """Stop what started, each step within its share of :data:`STOP_BUDGET`."""
    await _step("updates", stop(app))
    running = app.running
    if running:
        await _step("handlers", app.stop())
    if running and app.post_stop is not None:
        await _step("flush", app.post_stop(app))
    if not app.running:
        await _step("shutdown", app.shutdown())
    if app.post_shutdown is not None:
        await app.post_shutdown(app)  # the database: closed whatever came before


async def _step(name: str, work: Awaitable[None]) -> None:
    """``work`` within its share of the budget; an error or an overrun is one line."""
    try:
        await asyncio.wait_for(work, STOP_BUDGET[name])
    except TimeoutError:
        log.warning("stopping: %s did not finish in %.1f s; left", name, STOP_BUDGET[name])
    except Exception as exc:  # noqa: BLE001 - the stop goes on to close the database
        log.warning("stopping: %s failed: %r", name, exc)
