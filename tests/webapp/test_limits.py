"""The Mini App's own port with nothing in front (polling mode): the bot's front keeps its
limits (slow heads dropped, connections capped, no bodies), frames are bounded in size and
each user's presses and openings are limited. Real sockets on 127.0.0.1, with tiny limits
set here; every wait is on a condition, bounded only against a hang."""

from __future__ import annotations

import asyncio
import dataclasses
import socket as net
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.config import ConfigError
from bot.front import Limits
from bot.render.callbacks import encode
from bot.render.i18n import t
from bot.webapp.guard import Guard, Rate
from bot.webapp.server import CLOSE_FLOOD, CLOSE_TOO_OFTEN, WebServer
from tests.bot_helpers import Harness, code_of, open_and_start, running_bot

from .helpers import FRAME_WAIT, Socket, init_data

NEVER = 1e-9
"""A refill rate that gives nothing back within a test."""


@asynccontextmanager
async def limited(h: Harness, **changes: Any) -> AsyncIterator[WebServer]:
    """The bot's Mini App on a port of its own, behind its front, with ``changes`` to its
    wiring (its hub is the bot's: the table's changes reach its sockets)."""
    miniapp = h.app.bot_data.miniapp
    assert miniapp is not None
    server = WebServer(dataclasses.replace(miniapp.wiring, **changes), "127.0.0.1", 0)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def until(condition: Callable[[], bool]) -> None:
    """Wait for ``condition`` (the server's side of a connection, seen from here)."""
    async with asyncio.timeout(FRAME_WAIT):
        while not condition():
            await asyncio.sleep(0.005)


async def dropped(reader: asyncio.StreamReader) -> bool:
    """Whether the server closes the connection (before :data:`FRAME_WAIT`)."""
    try:
        async with asyncio.timeout(FRAME_WAIT):
            return await reader.read() == b""
    except ConnectionResetError:
        return True


async def status_of(port: int, request: bytes) -> str:
    """The status line the server answers ``request`` with."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(request)
        async with asyncio.timeout(FRAME_WAIT):
            line = await reader.readline()
        return line.decode().strip()
    finally:
        writer.close()


async def one_response(reader: asyncio.StreamReader) -> bytes:
    """One whole HTTP response (with ``Content-Length``)."""
    async with asyncio.timeout(FRAME_WAIT):
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        return head + await reader.readexactly(length)


@asynccontextmanager
async def socket_of(server: WebServer) -> AsyncIterator[Socket]:
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(f"http://127.0.0.1:{server.port}/app/ws") as ws:
            yield Socket(ws)


async def hello(h: Harness, socket: Socket, user_index: int) -> None:
    user = h.users[user_index]
    await socket.send({"t": "hello", "init": init_data(h, user), "table": h.table().id})


async def test_a_client_that_never_finishes_its_head_is_dropped(tmp_path: Path) -> None:
    limits = Limits(idle=2.0)  # (a real request on a busy machine comes well within it)
    async with running_bot(tmp_path, webapp=True) as h, limited(h, limits=limits) as s:
        # the first request's head, half sent: the front drops it
        reader, writer = await asyncio.open_connection("127.0.0.1", s.port)
        writer.write(b"GET /app/ws HTTP/1.1\r\nHost: x\r\n")
        assert await dropped(reader)
        writer.close()
        # a second request on a kept-alive connection, half sent: the server behind drops it
        reader, writer = await asyncio.open_connection("127.0.0.1", s.port)
        writer.write(b"GET /app/none HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = await one_response(reader)
        assert answer.startswith(b"HTTP/1.1 404 ")
        assert b"connection: close" not in answer.lower()  # kept alive
        writer.write(b"GET /app/ HTTP/1.1\r\nHost: x\r\n")
        assert await dropped(reader)
        writer.close()
        assert s.front is not None
        await until(lambda: s.front is not None and s.front.open == s.front.passed == 0)


async def test_only_the_mini_apps_requests_without_a_body_are_handed_on(tmp_path: Path) -> None:
    async with running_bot(tmp_path, webapp=True) as h, limited(h) as s:
        head = "{} {} HTTP/1.1\r\nHost: x\r\n{}\r\n"
        post = head.format("POST", "/app/ws", "Content-Length: 99999999\r\n").encode()
        assert await status_of(s.port, post) == "HTTP/1.1 405 Method Not Allowed"
        body = head.format("GET", "/app/", "Content-Length: 99999999\r\n").encode()
        assert await status_of(s.port, body) == "HTTP/1.1 413 Content Too Large"
        chunked = head.format("GET", "/app/", "Transfer-Encoding: chunked\r\n").encode()
        assert await status_of(s.port, chunked) == "HTTP/1.1 413 Content Too Large"
        other = head.format("GET", "/admin", "").encode()
        assert await status_of(s.port, other) == "HTTP/1.1 404 Not Found"
        health = head.format("GET", "/healthz", "").encode()
        assert await status_of(s.port, health) == "HTTP/1.1 200 OK"


async def test_connections_over_the_cap_are_refused(tmp_path: Path) -> None:
    limits = Limits(idle=600.0, connections=2, passed=1)
    async with running_bot(tmp_path, webapp=True) as h, limited(h, limits=limits) as s:
        await open_and_start(h)
        front = s.front
        assert front is not None and (front.cap, front.passed_cap) == (2, 1)
        slow = []
        for _ in range(2):  # two slow sockets take the two places
            reader, writer = await asyncio.open_connection("127.0.0.1", s.port)
            writer.write(b"GET /app/ HTTP/1.1\r\n")
            slow.append((reader, writer))
            await until(lambda: len(front.waiting) == len(slow))
        # one more: the oldest slow one makes room, and a socket of the page gets in
        async with socket_of(s) as silent:
            assert await dropped(slow[0][0])
            # a socket handed on no longer counts among those waiting or being answered
            await until(lambda: (front.open, front.passed, len(front.waiting)) == (1, 1, 1))
            # it holds the one place handed on, but without hello nobody vouched for it:
            # the next request takes its place
            health = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
            assert await status_of(s.port, health) == "HTTP/1.1 200 OK"
            assert await silent.receive() is None
        await until(lambda: front.passed == 0)
        async with socket_of(s) as socket:
            await hello(h, socket, 0)
            await socket.state()  # a signed user's socket: vouched for
            # every place for a connection handed on is taken for good: one more is refused
            status = await status_of(s.port, b"GET /app/ HTTP/1.1\r\nHost: x\r\n\r\n")
            assert status == "HTTP/1.1 503 Service Unavailable"
            await socket.press("garbage")  # and the player's socket works on
            toast = await socket.until(lambda f: f["t"] == "toast")
            assert toast["text"] == t("en", "err.stale")
        await until(lambda: front.passed == 0)  # the socket closed: its place is free again
        assert await status_of(s.port, health) == "HTTP/1.1 200 OK"
        await until(lambda: front.open == 1)  # the slow socket left still waits
        assert len(front.waiting) == 1
        for _reader, writer in slow:
            writer.close()


async def test_an_oversized_frame_closes_the_socket(tmp_path: Path) -> None:
    async with running_bot(tmp_path, webapp=True) as h, limited(h, max_frame=2048) as s:
        await open_and_start(h)
        async with socket_of(s) as socket:  # before hello
            await socket.ws.send_str("x" * 2049)
            assert await socket.receive() is None
            assert socket.ws.close_code == aiohttp.WSCloseCode.MESSAGE_TOO_BIG
        async with socket_of(s) as socket:  # after
            await hello(h, socket, 0)
            await socket.state()
            await socket.send({"t": "press", "data": "x" * 2048})
            assert await socket.receive() is None
            assert socket.ws.close_code == aiohttp.WSCloseCode.MESSAGE_TOO_BIG


async def test_a_press_flood_is_refused_while_another_players_press_goes_through(
    tmp_path: Path,
) -> None:
    presses = Guard(Rate(burst=3, per_second=NEVER))
    async with running_bot(tmp_path, webapp=True) as h, limited(h, presses=presses) as s:
        await open_and_start(h)
        table = h.table()
        actor = h.actor()
        assert actor is not None
        seat = table.seat_of(actor.id)
        assert seat is not None
        flooder = h.users.index(next(u for u in h.users if table.seat_of(u.id) == seat.next(3)))
        async with socket_of(s) as mine, socket_of(s) as theirs:
            await hello(h, mine, h.users.index(actor))
            await hello(h, theirs, flooder)
            first = await mine.state()
            await theirs.state()
            for _ in range(3):  # his three presses are answered as in the chat
                await theirs.press("garbage")
                toast = await theirs.until(lambda f: f["t"] == "toast")
                assert toast["text"] == t("en", "err.stale")
            too_fast = {"t": "toast", "code": "too_fast", "text": t("en", "webapp.too_fast")}
            await theirs.press("garbage")
            assert await theirs.until(lambda f: f["t"] == "toast") == too_fast
            # the player to act still plays
            move = first["move"]
            bid = next(b for r in first["buttons"] for b in r if code_of(b["data"]) == "bP")
            await mine.press(bid["data"])
            after = await mine.state(lambda f: f["move"] > move)
            assert h.actor() is h.users[flooder] and table.move == after["move"]
            # now the flooder's turn: his legal pass is refused, and changes nothing
            await theirs.press(encode(table.id, table.move, "bP"))
            assert await theirs.until(lambda f: f["t"] == "toast") == too_fast
            assert table.move == after["move"] and len(h.deal().auction) == 1
            assert t("ru", "webapp.too_fast") == "Слишком много нажатий подряд: подождите секунду."
            # pressing on past his allowance again: the socket closes
            for _ in range(2):
                await theirs.press("garbage")
            assert await theirs.until(lambda f: f["t"] == "toast") == too_fast
            assert await theirs.receive() is None
            assert theirs.ws.close_code == CLOSE_FLOOD
            assert table.move == after["move"]


async def test_sockets_opened_too_often_are_refused(tmp_path: Path) -> None:
    openings = Guard(Rate(burst=2, per_second=NEVER))
    async with running_bot(tmp_path, webapp=True) as h, limited(h, openings=openings) as s:
        await open_and_start(h)
        for _ in range(2):
            async with socket_of(s) as socket:
                await hello(h, socket, 0)
                await socket.state()
        async with socket_of(s) as socket:
            await hello(h, socket, 0)
            refused = await socket.receive()
            assert await socket.receive() is None
        assert refused == {
            "t": "refused",
            "code": "too_often",
            "text": t("en", "webapp.refused.too_often"),
        }
        assert socket.ws.close_code == CLOSE_TOO_OFTEN
        assert socket.frames == [refused]  # nothing of the table
        async with socket_of(s) as socket:  # another player opens it as usual
            await hello(h, socket, 1)
            assert (await socket.state())["table"] == h.table().id


async def test_a_taken_port_is_one_clear_line(tmp_path: Path) -> None:
    async with running_bot(tmp_path, webapp=True) as h:
        miniapp = h.app.bot_data.miniapp
        assert miniapp is not None
        with net.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            port = taken.getsockname()[1]
            server = WebServer(miniapp.wiring, "127.0.0.1", port)
            with pytest.raises(ConfigError) as refused:
                await server.start()
        assert str(refused.value) == (
            f"the mini app cannot listen on 127.0.0.1:{port}: Address already in use"
        )
        assert server.runner is not None and not server.runner.addresses  # nothing left open
