"""The Mini App's tests' side: initData signed as Telegram signs it, the page's URL, a
socket that keeps every frame."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import urllib.parse
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import pytest

from bot.webapp import guard
from bot.webapp.guard import Rate
from tests.bot_helpers import Harness
from tests.fakes import FakeUser

Frame = dict[str, Any]
FRAME_WAIT = 30.0
"""Seconds a test waits for a frame at most: only a bound on a hang."""


def init_data(h: Harness, user: FakeUser, *, age: float = 5.0, token: str | None = None) -> str:
    """initData as Telegram signs it for ``user`` (``token``: another bot's), independently
    of the server's code (core.telegram.org/bots/webapps, "Validating data"): HMAC-SHA256 of
    the sorted ``key=value`` lines, keyed by HMAC-SHA256("WebAppData", token)."""
    person = {"id": user.id, "first_name": user.first_name, "language_code": user.language_code}
    fields = {
        "query_id": f"AAH{user.id}",
        "user": json.dumps(person, ensure_ascii=False, separators=(",", ":")),
        "auth_date": str(int(time.time() - age)),
    }
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    secret = hmac.new(b"WebAppData", (token or h.fake.token).encode(), hashlib.sha256).digest()
    fields["hash"] = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    return urllib.parse.urlencode(fields, quote_via=urllib.parse.quote)


def telegram_url(url: str, init: str, theme: dict[str, str] | None = None) -> str:
    """``url`` as Telegram opens it: initData (and the theme) in the hash."""
    hash_ = {"tgWebAppData": init, "tgWebAppVersion": "7.0"}
    if theme is not None:
        hash_["tgWebAppThemeParams"] = json.dumps(theme)
    return f"{url}#{urllib.parse.urlencode(hash_, quote_via=urllib.parse.quote)}"


def base_url(h: Harness) -> str:
    server = h.app.bot_data.miniapp
    assert server is not None, "the Mini App is off"
    return f"http://127.0.0.1:{server.port}"


class Socket:
    """An open WebSocket of the page: every frame it got is kept in :attr:`frames`."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.frames: list[Frame] = []

    async def send(self, frame: Frame) -> None:
        await self.ws.send_str(json.dumps(frame))

    async def receive(self) -> Frame | None:
        """The next frame (``None``: the socket closed)."""
        message = await self.ws.receive(timeout=FRAME_WAIT)
        if message.type != aiohttp.WSMsgType.TEXT:
            return None
        frame = json.loads(message.data)
        assert isinstance(frame, dict)
        self.frames.append(frame)
        return frame

    async def until(self, wanted: Callable[[Frame], bool]) -> Frame:
        """Frames are read until one is ``wanted``."""
        while True:
            frame = await self.receive()
            assert frame is not None, f"closed ({self.ws.close_code}) before the frame wanted"
            if wanted(frame):
                return frame

    async def state(self, wanted: Callable[[Frame], bool] = lambda f: True) -> Frame:
        return await self.until(lambda f: f["t"] == "state" and wanted(f))

    async def press(self, data: str) -> None:
        await self.send({"t": "press", "data": data})


@asynccontextmanager
async def opened(
    h: Harness, user: FakeUser, table_id: int, *, init: str | None = None
) -> AsyncIterator[Socket]:
    """A socket of the page that said ``hello`` for ``table_id`` as ``user``."""
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(base_url(h) + "/app/ws") as ws:
            socket = Socket(ws)
            hello = {"t": "hello", "init": init or init_data(h, user), "table": table_id}
            await socket.send(hello)
            yield socket


def actor_and_other(h: Harness) -> tuple[FakeUser, FakeUser]:
    """The player to act and another player of the table."""
    actor = h.actor()
    assert actor is not None, "nobody is to act"
    return actor, next(u for u in h.users if u is not actor)


@asynccontextmanager
async def two_sockets(h: Harness) -> AsyncIterator[tuple[Socket, Socket, Frame]]:
    """Sockets of the player to act and of another, each past its first state; with the
    acting player's first state."""
    actor, other = actor_and_other(h)
    table_id = h.table().id
    async with opened(h, actor, table_id) as mine, opened(h, other, table_id) as theirs:
        first = await mine.state()
        await theirs.state()
        yield mine, theirs, first


@pytest.fixture(autouse=True)
def unlimited_presses(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests press at machine speed (computer players at a fraction of their pace):
    the per-user limit on frames would refuse some, more often the faster the machine.
    tests/webapp/test_limits.py gives its servers limits of their own."""
    monkeypatch.setattr(guard, "PRESSES", Rate(burst=1_000_000, per_second=1_000_000.0))
