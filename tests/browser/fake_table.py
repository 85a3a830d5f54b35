"""A stand-in for the Mini App server: the page's files and a WebSocket that the test
scripts frame by frame (aiohttp on 127.0.0.1), to test the page alone."""

import asyncio
import json
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web
from playwright.async_api import BrowserContext, Page

from bot.webapp.state import strings
from tests.browser.conftest import STATIC
from tests.webapp.helpers import telegram_url

Frame = dict[str, Any]

INIT = "query_id=AAE&user=%7B%22id%22%3A5%7D&auth_date=1700000000&hash=ab12"
"""The initData the page is opened with (the stand-in server checks nothing)."""


def page_url(base: str, *, theme: dict[str, str] | None = None) -> str:
    """The page as Telegram opens it: the table in the query, initData in the hash."""
    return telegram_url(f"{base}?t=12", INIT, theme)


async def open_page(
    browser: Any, server: "FakeTableServer", *, width: int = 0, height: int = 700, **kw: Any
) -> Page:
    """A new tab of ``browser`` (the fixture) at the stand-in server's page (``width``: a
    window of that size instead of the phone the fixture opens)."""
    context: BrowserContext = browser
    page = await context.new_page()
    if width:
        await page.set_viewport_size({"width": width, "height": height})
    await page.goto(page_url(server.base, **kw))
    return page


class FakeTableServer:
    """Serves /app/ like the real server; records what the page sends; sends what it is told."""

    def __init__(self) -> None:
        self.received: asyncio.Queue[Frame] = asyncio.Queue()
        self.sockets: list[web.WebSocketResponse] = []
        self.on_hello: list[Frame] = []  # frames sent in answer to each hello
        self.connects = 0
        self._runner: web.AppRunner | None = None
        self.base = ""

    async def start(self) -> "FakeTableServer":
        app = web.Application()
        app.router.add_get("/app/", self._index)
        app.router.add_get("/app/ws", self._ws)
        app.router.add_static("/app/static/", STATIC)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.base = f"http://127.0.0.1:{port}/app/"
        return self

    async def stop(self) -> None:
        await self.close()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _index(self, request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "index.html")

    async def _ws(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self.sockets.append(ws)
        self.connects += 1
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                frame = json.loads(msg.data)
                await self.received.put(frame)
                if frame.get("t") == "hello":
                    for answer in self.on_hello:
                        await ws.send_json(answer)
        finally:
            self.sockets.remove(ws)
        return ws

    async def next_frame(self, timeout: float = 30) -> Frame:
        """The next frame the page sent."""
        return await asyncio.wait_for(self.received.get(), timeout)

    async def send(self, frame: Frame) -> None:
        """Sends a frame to every open socket."""
        for ws in list(self.sockets):
            await ws.send_json(frame)

    async def close(self, code: int = WSCloseCode.OK) -> None:
        """Closes every socket with ``code`` (by default as a restarting server would)."""
        for ws in list(self.sockets):
            await ws.close(code=code)


STRINGS = strings("ru")  # the server's own words for the page

SHEET = (
    "            Пуля  Гора  Висты\n"
    "Аня           4     0   Боб 12, Вера 0\n"
    "Боб           0     2   Аня 0, Вера 4\n"
    "Вера          2     0   Аня 8, Боб 0\n"
)


def _trick(winner: int, *cards: tuple[int, str]) -> Frame:
    return {"cards": [{"seat": s, "card": c} for s, c in cards], "winner": winner}


def play_state(**changes: Any) -> Frame:
    """A state in the middle of play: Аня (seat 0, the viewer) to play the second card."""
    keys = ("seat", "name", "robot", "dealer", "turn", "cards", "tricks", "role")
    seats = [
        (0, "Аня", False, False, True, 8, 1, "вист"),
        (1, "🤖 Борис Петрович", True, False, False, 7, 1, "играет"),
        (2, "🤖 Вера", True, True, False, 8, 0, "пас"),
    ]
    hand = "KS 10S QC 9C KD 8D AH 10H".split()
    state: Frame = {
        "t": "state",
        "lang": "ru",
        "strings": STRINGS,
        "table": 12,
        "deal": 2,
        "move": 17,
        "over": False,
        "me": 0,
        "seats": [dict(zip(keys, seat, strict=True)) for seat in seats],
        "status": ["Сдача 2 · играет Борис Петрович: 7♥", "Аня — вист, Вера — пас"],
        "trick": [{"seat": 1, "card": "QH"}],
        "tricks": [
            _trick(1, (1, "AS"), (2, "7S"), (0, "8S")),
            _trick(0, (0, "AD"), (1, "7D"), (2, "9D")),
        ],
        "talon": [],
        "open": {},
        "hand": [
            {"card": c, "data": f"c:h:{c}" if c[-1] == "H" else None, "marked": False} for c in hand
        ],
        "buttons": [[{"text": "🏳 Сдаюсь", "data": "c:h:give"}]],
        "turn_left": 95,
        "sheet": SHEET,
        "review": "Сдача 1: Вера играла 6♠ и взяла 6 взяток.",
    }
    state.update(changes)
    return state


def bid_state() -> Frame:
    """The auction: Аня to bid; her hand has no card to play, the bids are buttons."""
    state = play_state(trick=[], tricks=[], deal=1, move=2)
    state["hand"] = [{"card": c["card"], "data": None, "marked": False} for c in state["hand"]]
    rows = [[("6♠️", "6S"), ("6♣️", "6C"), ("6♦️", "6D")], [("Мизер", "mis"), ("Пас", "pass")]]
    state["buttons"] = [[{"text": t, "data": f"c:b:{d}"} for t, d in row] for row in rows]
    state["status"] = ["Торговля: Борис Петрович — 6♠"]
    return state
