"""The Mini App's aiohttp server: the page, its files, its WebSocket and ``/healthz``.

``GET /app/`` is the page, ``GET /app/static/...`` its files, ``GET /app/ws`` the
WebSocket (docs/webapp.md: the first frame is ``hello`` with Telegram's signed
``initData``; the socket is then bound to that user and table, and gets only his view).
A press goes through the chat's own press path (:attr:`Wiring.press`).

The aiohttp server listens on the loopback. On its own port (polling mode) the bot's front
(:mod:`bot.front`: a cap on connections, a time and size limit for each request's head)
takes the connections and hands on only the Mini App's requests without a body; with a
webhook, the webhook's front does (:mod:`bot.telegram.webhook`). Requests after the first
on a kept-alive connection keep the same time limit (aiohttp's ``keepalive_timeout``).
Every user's frames and openings are limited (:mod:`.guard`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import aiohttp.web as web
from aiohttp import WSMsgType

from bot.core.model import Table
from bot.core.service import TableService
from bot.front import Answer, Front, Head, Limits, PassTo, vouch
from bot.render.i18n import lang_of, t

from . import guard
from .auth import MAX_AGE, AuthError, StaleAuth, WebAppUser, check_init_data
from .guard import Guard
from .hub import Hub, Viewer
from .replay import replay_frame
from .state import table_state

__all__ = [
    "Wiring",
    "WebServer",
    "build_app",
    "STATIC",
    "HELLO_TIMEOUT",
    "CLOSE_AUTH",
    "CLOSE_NO_TABLE",
    "CLOSE_FLOOD",
    "CLOSE_TOO_OFTEN",
]

log = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
HELLO_TIMEOUT = 10.0
"""Seconds a new socket has to say ``hello``."""
MAX_FRAME = 8192
"""Bytes a frame from the page may hold (a press is under 100)."""
CLOSE_WAIT = 1.0
"""Seconds a close waits for the browser's answer."""
SHUTDOWN = 1.0
"""Seconds the stop waits for requests under way (within the bot's stop budget)."""
CLOSE_AUTH = 4401
CLOSE_NO_TABLE = 4404
CLOSE_PROTOCOL = 4400
CLOSE_HELLO_TIMEOUT = 4408
CLOSE_REPLACED = 4409
"""The user opened the table more often than :data:`~.hub.PER_USER` at once: the oldest
socket closes."""
CLOSE_TOO_OFTEN = 4429
"""The user opened sockets faster than :data:`~.guard.OPENINGS` allows."""
CLOSE_FLOOD = 1008
"""Frames kept coming past :data:`~.guard.PRESSES` without waiting (no page does that)."""
APP = "/app/"
HEALTH = "/healthz"

Press = Callable[[WebAppUser, str], Awaitable[str | None]]
"""A press from the page: the chat's press path; returns the answer's text, if any."""


@dataclass(eq=False)
class Wiring:
    """What the server needs of the bot."""

    token: str
    service: TableService
    press: Press
    hub: Hub = field(default_factory=Hub)
    max_age: float = MAX_AGE
    static: Path = STATIC
    hello_timeout: float = HELLO_TIMEOUT
    limits: Limits = field(default_factory=Limits)
    """The front's limits (on the Mini App's own port) and each request's time."""
    max_frame: int = MAX_FRAME
    presses: Guard = field(default_factory=lambda: Guard(guard.PRESSES))
    """Frames after ``hello``, per user."""
    openings: Guard = field(default_factory=lambda: Guard(guard.OPENINGS))
    """Sockets opened, per user."""
    now: Callable[[], float] = time.time
    """The wall clock ``auth_date`` is checked against (Telegram's clock)."""
    ready: Callable[[int, int], Awaitable[None]] | None = None
    """Resumes table ``(table_id, user_id)`` needs after a start, before it is looked up."""
    health: Callable[[], Awaitable[tuple[bool, dict[str, Any]]]] | None = None


class WebServer:
    """The server of :func:`build_app` on the loopback, listening until :meth:`stop`; with
    ``public``, behind the bot's front on ``listen:port``."""

    def __init__(self, wiring: Wiring, listen: str, port: int, *, public: bool = True) -> None:
        self.wiring = wiring
        self.listen = listen
        self.port = port
        """The port it is reached on (the one asked for, or the one given for 0, once
        started)."""
        self.upstream = ("127.0.0.1", 0)
        """Where the aiohttp server listens (for a front to hand requests to)."""
        self.front = Front("mini app", self._front, wiring.limits) if public else None
        self.runner: web.AppRunner | None = None

    async def start(self) -> None:
        # a socket still open at the stop is closed by the hub; nothing else lingers
        self.runner = web.AppRunner(
            build_app(self.wiring),
            access_log=None,
            shutdown_timeout=SHUTDOWN,
            keepalive_timeout=self.wiring.limits.idle,  # the next request's head, in time
            lingering_time=0,  # a body nobody reads is not waited for: the socket closes
        )
        await self.runner.setup()
        site = web.TCPSite(self.runner, self.upstream[0], 0)
        await site.start()
        for address in self.runner.addresses:  # (host, port, ...) of each socket
            self.upstream = (self.upstream[0], int(address[1]))
        if self.front is None:
            self.listen, self.port = self.upstream
            return
        try:
            await self.front.start(self.listen, self.port)
        except BaseException:
            await self.runner.cleanup()
            raise
        self.port = self.front.port

    async def stop(self) -> None:
        """Close every socket, then the server."""
        if self.front is not None:
            self.front.close()
        await self.wiring.hub.close()
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None

    async def _front(self, head: Head, reader: asyncio.StreamReader) -> Answer:
        return self.admit(head)

    def admit(self, head: Head) -> Answer:
        """What a front hands on to this server: the Mini App's requests, none with a body
        (it reads none); anything else is answered there, unread."""
        if not (head.path.startswith(APP) or head.path == HEALTH):
            return 404
        if head.method not in ("GET", "HEAD"):
            return 405
        if "transfer-encoding" in head.headers or head.headers.get("content-length", "0") != "0":
            return 413
        return PassTo(*self.upstream)


def build_app(wiring: Wiring) -> web.Application:
    app = web.Application(client_max_size=64 * 1024)
    app.router.add_get(APP, partial(_page, wiring))
    app.router.add_get(APP + "ws", partial(_socket, wiring))
    app.router.add_get(HEALTH, partial(_health, wiring))
    if wiring.static.is_dir():
        app.router.add_static(APP + "static/", wiring.static, follow_symlinks=False)
    return app


async def _page(wiring: Wiring, request: web.Request) -> web.StreamResponse:
    page = wiring.static / "index.html"
    if not page.is_file():
        raise web.HTTPNotFound()
    return web.FileResponse(page, headers={"Cache-Control": "no-cache"})


async def _health(wiring: Wiring, request: web.Request) -> web.Response:
    if wiring.health is None:
        return web.json_response({"ok": True})
    healthy, report = await wiring.health()
    return web.json_response(report, status=200 if healthy else 503)


class _Refused(Exception):
    def __init__(self, code: str, close: int, lang: str) -> None:
        super().__init__(code)
        self.code = code
        self.close = close
        self.lang = lang


async def _socket(wiring: Wiring, request: web.Request) -> web.StreamResponse:
    ws = web.WebSocketResponse(
        heartbeat=30.0, max_msg_size=wiring.max_frame, timeout=CLOSE_WAIT
    )  # a bigger frame closes the socket (1009) before it is read
    await ws.prepare(request)
    lock = asyncio.Lock()

    async def send(frame: dict[str, Any]) -> None:
        async with lock:  # the state's sender and the answers to presses take turns
            await ws.send_str(json.dumps(frame, ensure_ascii=False))

    try:
        user, table, lang = await _hello(wiring, ws)
    except _Refused as exc:
        text = t(exc.lang, f"webapp.refused.{exc.code}")
        await send({"t": "refused", "code": exc.code, "text": text})
        await ws.close(code=exc.close, message=exc.code.encode())
        return ws
    except _Closed as exc:
        await ws.close(code=exc.code, message=exc.why.encode())
        return ws

    _vouch(request)

    def close(code: int, why: bytes) -> Awaitable[bool]:
        return ws.close(code=code, message=why)

    viewer = Viewer(user.id, table.id, lang, send, lambda v: _state(wiring, v), close)
    try:
        for old in wiring.hub.join(viewer):  # the same user's oldest sockets of the table
            await old.close(CLOSE_REPLACED, b"opened again")
        refused = 0  # frames refused in a row on this socket
        async for message in ws:
            if message.type not in (WSMsgType.TEXT, WSMsgType.BINARY):
                continue
            frame = _frame(message.data) if message.type == WSMsgType.TEXT else None
            if wiring.presses.take(user.id):  # every frame counts: a binary flood too
                refused = 0
                if frame is not None:
                    await _answer(wiring, user, viewer, frame, send)
                continue
            refused += 1
            if refused > wiring.presses.rate.burst:  # not waiting for the answers: a flood
                log.info("mini app: user %d's frames come too fast; socket closed", user.id)
                await ws.close(code=CLOSE_FLOOD, message=b"too many frames")
                break
            if frame is not None and frame.get("t") in ("press", "replay"):
                text = t(viewer.lang, "webapp.too_fast")  # and nothing done
                await send({"t": "toast", "code": "too_fast", "text": text})
    finally:
        await wiring.hub.leave(viewer)
    return ws


def _vouch(request: web.Request) -> None:
    """A signed user's socket: the front that handed it on keeps it when every place is
    taken (:func:`bot.front.vouch`)."""
    transport = request.transport
    peer = transport.get_extra_info("peername") if transport is not None else None
    own = transport.get_extra_info("sockname") if transport is not None else None
    if peer is not None and own is not None:
        vouch((peer[0], peer[1], own[1]))


class _Closed(Exception):
    def __init__(self, code: int, why: str) -> None:
        super().__init__(why)
        self.code = code
        self.why = why


def _frame(text: str) -> dict[str, Any] | None:
    try:
        frame = json.loads(text)
    except ValueError:
        return None
    return frame if isinstance(frame, dict) else None


async def _hello(wiring: Wiring, ws: web.WebSocketResponse) -> tuple[WebAppUser, Table, str]:
    """The first frame: who the signed user is and which of his tables he opens."""
    try:
        message = await asyncio.wait_for(ws.receive(), wiring.hello_timeout)
    except TimeoutError:
        raise _Closed(CLOSE_HELLO_TIMEOUT, "hello expected") from None
    frame = _frame(message.data) if message.type == WSMsgType.TEXT else None
    if frame is None or frame.get("t") != "hello":
        raise _Closed(CLOSE_PROTOCOL, "hello expected")
    init = frame.get("init")
    try:
        user = check_init_data(
            init if isinstance(init, str) else "",
            wiring.token,
            now=wiring.now(),
            max_age=wiring.max_age,
        )
    except StaleAuth as exc:
        log.info("mini app: stale initData refused (%s)", exc)
        raise _Refused("stale_auth", CLOSE_AUTH, "ru") from None
    except AuthError as exc:
        log.info("mini app: initData refused (%s)", exc)
        raise _Refused("auth", CLOSE_AUTH, "ru") from None
    lang = lang_of(user.language_code)
    if not wiring.openings.take(user.id):  # before the table is looked up and its state built
        log.info("mini app: user %d opens sockets too often", user.id)
        raise _Refused("too_often", CLOSE_TOO_OFTEN, lang)
    table_id = frame.get("table")
    if type(table_id) is not int or table_id <= 0:
        raise _Refused("no_table", CLOSE_NO_TABLE, lang)
    if wiring.ready is not None:
        await wiring.ready(table_id, user.id)
    table = wiring.service.registry.get(table_id)
    if table is None:
        raise _Refused("no_table", CLOSE_NO_TABLE, lang)
    seat = table.seat_of(user.id)
    player = table.player(seat) if seat is not None else None
    if player is None:
        raise _Refused("not_at_table", CLOSE_NO_TABLE, lang)
    return user, table, player.lang


def _state(wiring: Wiring, viewer: Viewer) -> dict[str, Any] | None:
    """The viewer's state of his table now (``None``: the table is forgotten)."""
    service = wiring.service
    table = service.registry.get(viewer.table_id)
    if table is None:
        return None
    ranks = service.registry.card_ranks(viewer.user_id)
    return table_state(table, viewer.user_id, viewer.lang, now=service.clock(), ranks=ranks)


async def _answer(
    wiring: Wiring,
    user: WebAppUser,
    viewer: Viewer,
    frame: dict[str, Any],
    send: Callable[[dict[str, Any]], Awaitable[None]],
) -> None:
    """A frame after ``hello``: a press, a replay asked for; anything else is ignored."""
    kind = frame.get("t")
    if kind == "press":
        data = frame.get("data")
        text = await wiring.press(user, data if isinstance(data, str) else "")
        if text:
            await send({"t": "toast", "text": text})
    elif kind == "replay":
        table = wiring.service.registry.get(viewer.table_id)
        deal_no = frame.get("deal")
        reply = None
        if table is not None and type(deal_no) is int:
            reply = replay_frame(table, deal_no, viewer.lang)
        await send(reply or {"t": "toast", "text": t(viewer.lang, "webapp.no_replay")})
