"""Tests of the Bot API transport (bot.telegram.transport) against scripted HTTP/1.1 servers
on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
import socket
import ssl
import struct
import subprocess
import time
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from telegram import Bot, InputFile
from telegram.error import BadRequest, ChatMigrated, NetworkError, RetryAfter, TimedOut
from telegram.request import RequestData
from telegram.request._requestparameter import RequestParameter  # no public constructor

from bot.app import default_request
from bot.telegram.gate import Gate
from bot.telegram.pacing import flood_wait
from bot.telegram.transport import AiohttpRequest, UnsupportedProxy, read_proxies
from tests.fakes import UploadedFile
from tests.fakes._media import parse_multipart

TOKEN = "123456789:SECRET-token_never-shown"
SECRET = TOKEN.split(":")[1]
ME = {"id": 123456789, "is_bot": True, "first_name": "Pref", "username": "pref_bot"}
RESET = b"<reset>"
"""A handler's answer: reset the connection (RST) instead of answering."""


@dataclass
class Req:
    """One request as the server saw it."""

    method: str
    target: str
    headers: dict[str, str]
    body: bytes
    conn: int

    @property
    def api_method(self) -> str:
        return self.target.rsplit("/", 1)[-1]

    def params(self) -> dict[str, object]:
        assert self.headers["content-type"] == "application/json"
        params: dict[str, object] = json.loads(self.body)
        return params


Handler = Callable[[Req], Awaitable[bytes | None]]
"""Returns the raw response to write, None to close the connection without answering, or
:data:`RESET` to reset it."""


def reply(
    body: bytes | dict[str, object] = b'{"ok":true,"result":true}',
    status: str = "200 OK",
    headers: tuple[str, ...] = (),
) -> bytes:
    if isinstance(body, dict):
        body = json.dumps(body).encode()
    head = [f"HTTP/1.1 {status}", "Content-Type: application/json"]
    head += [f"Content-Length: {len(body)}", *headers]
    return "\r\n".join(head).encode() + b"\r\n\r\n" + body


async def ok(req: Req) -> bytes:
    return reply({"ok": True, "result": {"echo": req.api_method}})


@dataclass
class Server:
    handler: Handler = ok
    requests: list[Req] = field(default_factory=list)
    connections: int = 0
    closed_by_client: int = 0
    writers: list[asyncio.StreamWriter] = field(default_factory=list)
    port: int = 0

    def url(self, method: str = "sendMessage") -> str:
        return f"http://127.0.0.1:{self.port}/bot{TOKEN}/{method}"

    def drop_connections(self) -> None:
        """Close every connection from the server's side (an idle timeout)."""
        for writer in self.writers:
            writer.close()

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = self.connections
        self.connections += 1
        self.writers.append(writer)
        try:
            while True:
                line = await reader.readline()
                if not line:
                    self.closed_by_client += 1
                    return
                method, target, _ = line.decode().split(" ", 2)
                headers: dict[str, str] = {}
                while (line := await reader.readline()) not in (b"\r\n", b""):
                    name, _, value = line.decode().partition(":")
                    headers[name.strip().lower()] = value.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                req = Req(method, target, headers, body, conn)
                self.requests.append(req)
                # run the handler, watching for the client hanging up meanwhile
                answer = asyncio.ensure_future(self.handler(req))
                hang_up = asyncio.ensure_future(reader.read(1))
                await asyncio.wait((answer, hang_up), return_when=asyncio.FIRST_COMPLETED)
                if not answer.done():
                    answer.cancel()
                    self.closed_by_client += 1
                    return
                hang_up.cancel()
                await asyncio.wait((hang_up,))
                assert hang_up.cancelled() or hang_up.result() == b"", "the client pipelined"
                if not hang_up.cancelled():
                    self.closed_by_client += 1
                    return
                response = answer.result()
                if response is None:
                    return
                if response == RESET:
                    sock = writer.get_extra_info("socket")
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    writer.transport.abort()
                    return
                writer.write(response)
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            self.closed_by_client += 1
        except asyncio.CancelledError:
            pass  # the test is over (and Python 3.11's streams would log the cancellation)
        finally:
            writer.close()


@pytest.fixture
async def srv() -> AsyncIterator[Server]:
    server = Server()
    tasks: list[asyncio.Task[None]] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        tasks.append(task)
        await server.serve(reader, writer)

    tcp = await asyncio.start_server(serve, "127.0.0.1", 0)
    server.port = tcp.sockets[0].getsockname()[1]
    try:
        yield server
    finally:
        tcp.close()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


@pytest.fixture
async def req() -> AsyncIterator[AiohttpRequest]:
    async with AiohttpRequest(read_timeout=2.0, pool_timeout=2.0, proxies={}) as request:
        yield request


def data(**params: object) -> RequestData:
    return RequestData([RequestParameter.from_input(k, v) for k, v in params.items()])


async def until(condition: Callable[[], bool], timeout: float = 60.0) -> None:
    """Wait for ``condition``; ``timeout`` only bounds a hang (the client and the server
    share this event loop: how long it takes is the machine's load, not the code's)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        await asyncio.sleep(0.005)


def closed_port() -> int:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port: int = sock.getsockname()[1]
    sock.close()
    return port


def png(width: int = 3, height: int = 2) -> bytes:
    """A small valid RGB PNG."""

    def chunk(kind: bytes, payload: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + payload))
        return struct.pack(">I", len(payload)) + kind + payload + crc

    rows = b"".join(b"\0" + bytes(range(3 * width)) for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            chunk(b"IHDR", header),
            chunk(b"IDAT", zlib.compress(rows)),
            chunk(b"IEND", b""),
        )
    )


async def test_post_sends_the_parameters_as_json(srv: Server, req: AiohttpRequest) -> None:
    markup = {"inline_keyboard": [[{"text": "6♠ & 7♥", "callback_data": "1:2:b6S"}]]}
    text = "Торговля: a+b=c & 100% «ok»\n\t~_.-"
    request_data = data(chat_id=-1001, text=text, reply_markup=markup, flag=True)
    status, body = await req.do_request(srv.url(), "POST", request_data)
    assert (status, json.loads(body)) == (200, {"ok": True, "result": {"echo": "sendMessage"}})
    (got,) = srv.requests
    assert (got.method, got.target) == ("POST", f"/bot{TOKEN}/sendMessage")
    # the values as in a form (PTB's json_parameters), which the Bot API takes in JSON too
    assert got.params() == request_data.json_parameters
    assert json.loads(str(got.params()["reply_markup"])) == markup
    assert got.params()["text"] == text
    assert got.headers["host"] == f"127.0.0.1:{srv.port}"
    assert got.headers["user-agent"] == AiohttpRequest.USER_AGENT
    assert "cookie" not in got.headers


async def test_empty_post_and_get(srv: Server, req: AiohttpRequest) -> None:
    assert await req.post(srv.url("getMe"), data()) == {"echo": "getMe"}
    assert await req.post(srv.url("getMe")) == {"echo": "getMe"}

    async def file(r: Req) -> bytes:
        return reply(b"\x89PNG file bytes")

    srv.handler = file
    url = f"http://127.0.0.1:{srv.port}/file/bot{TOKEN}/photos/file_1.png"
    assert await req.retrieve(url) == b"\x89PNG file bytes"
    assert [(r.method, r.headers.get("content-length", "0"), r.body) for r in srv.requests] == [
        ("POST", "0", b""),
        ("POST", "0", b""),
        ("GET", "0", b""),
    ]


async def test_keep_alive_reuses_one_connection(srv: Server, req: AiohttpRequest) -> None:
    for _ in range(3):
        assert (await req.do_request(srv.url(), "POST", data(chat_id=1)))[0] == 200
    assert srv.connections == 1 and [r.conn for r in srv.requests] == [0, 0, 0]


async def test_concurrent_requests_use_at_most_connections(srv: Server) -> None:
    async def slow(r: Req) -> bytes:
        await asyncio.sleep(0.02)
        return reply()

    srv.handler = slow
    async with AiohttpRequest(connections=3, pool_timeout=None, proxies={}) as request:
        results = await asyncio.gather(
            *(request.do_request(srv.url(), "POST", data(n=i)) for i in range(12))
        )
    assert [status for status, _ in results] == [200] * 12
    assert srv.connections == 3


async def test_idle_connection_closed_by_server_is_replaced(
    srv: Server, req: AiohttpRequest
) -> None:
    assert (await req.do_request(srv.url(), "POST", data()))[0] == 200
    srv.drop_connections()
    await asyncio.sleep(0.05)  # the client's loop sees the FIN: the connection isn't reused
    assert (await req.do_request(srv.url(), "POST", data()))[0] == 200
    assert [r.conn for r in srv.requests] == [0, 1]


async def test_hang_up_and_reset_are_network_errors(srv: Server, req: AiohttpRequest) -> None:
    async def scripted(r: Req) -> bytes | None:
        return {"hangUp": None, "reset": RESET}.get(r.api_method, await ok(r))

    srv.handler = scripted
    for method in ("hangUp", "reset"):
        with pytest.raises(NetworkError) as info:
            await req.do_request(srv.url(method), "POST", data())
        assert not isinstance(info.value, TimedOut)
        assert f"{method} to 127.0.0.1:{srv.port} failed" in str(info.value)
    assert (await req.do_request(srv.url(), "POST", data()))[0] == 200  # and it recovers


async def test_read_timeout(srv: Server, req: AiohttpRequest) -> None:
    async def never(r: Req) -> bytes:
        await asyncio.sleep(30)
        raise AssertionError

    srv.handler = never
    start = time.monotonic()
    with pytest.raises(TimedOut, match=r"read timeout, sendMessage"):
        await req.do_request(srv.url(), "POST", data(), read_timeout=0.2)
    # the call's 0.2 s, not the request's 2 s (a bound at 2 s: a busy machine is slow)
    assert 0.2 <= time.monotonic() - start < 2.0
    async with AiohttpRequest(read_timeout=0.1, proxies={}) as request:  # the default
        start = time.monotonic()
        with pytest.raises(TimedOut):
            await request.do_request(srv.url(), "POST", data())
        assert 0.1 <= time.monotonic() - start < 5.0  # not the class's default 5 s
    await until(lambda: srv.closed_by_client == 2)  # timed-out connections are closed


async def test_long_read_timeout_is_honoured_per_call(srv: Server) -> None:
    async def long_poll(r: Req) -> bytes:
        await asyncio.sleep(0.3)
        return reply({"ok": True, "result": []})

    srv.handler = long_poll
    async with AiohttpRequest(read_timeout=0.1, proxies={}) as request:
        assert request.read_timeout == 0.1
        url = srv.url("getUpdates")
        # the call's longer timeout: the 0.3 s answer comes in time however busy the machine
        assert await request.post(url, data(timeout=0), read_timeout=60.0) == []
        with pytest.raises(TimedOut):
            await request.post(url, data(timeout=0))


async def test_write_timeout_of_an_upload_nobody_reads() -> None:
    accepted: list[asyncio.StreamWriter] = []

    async def deaf(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(writer)  # never reads: the client's writes fill the buffers and stall

    tcp = await asyncio.start_server(deaf, "127.0.0.1", 0)
    port = tcp.sockets[0].getsockname()[1]
    upload = data(chat_id=1, document=InputFile(b"x" * (64 * 2**20), filename="big.bin"))
    try:
        async with AiohttpRequest(media_write_timeout=0.3, proxies={}) as request:
            start = time.monotonic()
            with pytest.raises(TimedOut, match="write timeout, sendDocument"):
                url = f"http://127.0.0.1:{port}/bot{TOKEN}/sendDocument"
                await request.do_request(url, "POST", upload)
            assert time.monotonic() - start < 5.0  # not the 5 s of a plain write
    finally:
        for writer in accepted:
            writer.close()
        tcp.close()


async def test_connect_refused_is_a_network_error() -> None:
    url = f"http://127.0.0.1:{closed_port()}/bot{TOKEN}/getMe"
    async with AiohttpRequest(proxies={}) as request:
        with pytest.raises(NetworkError, match="getMe to 127.0.0.1.*Cannot connect") as info:
            await request.do_request(url, "POST", data())
    assert not isinstance(info.value, TimedOut)


async def test_multipart_upload_of_a_png(srv: Server, req: AiohttpRequest) -> None:
    picture = png()
    markup = {"inline_keyboard": [[{"text": "Пуля", "callback_data": "1:0:s"}]]}
    request_data = data(
        chat_id=42,
        caption='a "quoted" caption\r\nwith Кириллица',
        reply_markup=markup,
        photo=InputFile(picture, filename="pulka.png"),
    )
    assert request_data.contains_files
    status, _ = await req.do_request(srv.url("sendPhoto"), "POST", request_data)
    assert status == 200
    (got,) = srv.requests
    content_type = got.headers["content-type"]
    assert content_type.startswith("multipart/form-data; boundary=")
    parts = parse_multipart(got.body, content_type)  # as the fake Bot API parses it
    assert set(parts) == {"chat_id", "caption", "reply_markup", "photo"}
    assert parts["chat_id"] == "42"
    assert parts["caption"] == 'a "quoted" caption\r\nwith Кириллица'
    assert json.loads(str(parts["reply_markup"])) == markup
    photo = parts["photo"]
    assert isinstance(photo, UploadedFile)
    assert (photo.content, photo.filename, photo.content_type) == (
        picture,
        "pulka.png",
        "image/png",
    )


async def test_an_upload_from_a_file_handle_starts_at_its_beginning(
    srv: Server, req: AiohttpRequest, tmp_path: Path
) -> None:
    path = tmp_path / "record.json"
    path.write_bytes(b'{"format": "preferans-record/1"}')
    with path.open("rb") as handle:
        handle.seek(10)
        upload = data(chat_id=1, document=InputFile(handle, read_file_handle=False))
        assert (await req.do_request(srv.url("sendDocument"), "POST", upload))[0] == 200
    (got,) = srv.requests
    document = parse_multipart(got.body, got.headers["content-type"])["document"]
    assert isinstance(document, UploadedFile)
    assert document.content == path.read_bytes() and document.filename == "record.json"


async def test_bot_api_errors_come_out_as_ptb_raises_them(srv: Server, req: AiohttpRequest) -> None:
    not_modified = {
        "ok": False,
        "error_code": 400,
        "description": "Bad Request: message is not modified",
    }
    flood = {
        "ok": False,
        "error_code": 429,
        "description": "Too Many Requests: retry after 7",
        "parameters": {"retry_after": 7},
    }
    migrated = {
        "ok": False,
        "error_code": 400,
        "description": "Bad Request: group chat was upgraded to a supergroup chat",
        "parameters": {"migrate_to_chat_id": -1009},
    }
    responses = {
        "editMessageText": reply(not_modified, "400 Bad Request"),
        "sendMessage": reply(flood, "429 Too Many Requests"),
        "sendPhoto": reply(migrated, "400 Bad Request"),
        "getMe": reply(b"<html>oops</html>", "502 Bad Gateway"),
        "getUpdates": reply({"ok": False, "error_code": 500, "description": "Internal"}, "500"),
    }

    async def scripted(r: Req) -> bytes:
        return responses[r.api_method]

    srv.handler = scripted
    status, body = await req.do_request(srv.url("editMessageText"), "POST", data())
    assert (status, json.loads(body)) == (400, not_modified)  # the status, whatever it is
    with pytest.raises(BadRequest, match="not modified"):
        await req.post(srv.url("editMessageText"), data(chat_id=1))
    with pytest.raises(RetryAfter) as flooded:
        await req.post(srv.url("sendMessage"), data(chat_id=1))
    # a time period is a timedelta (the bot opts in as it builds its application): no
    # PTBDeprecationWarning
    assert flooded.value.message == "Flood control exceeded. Retry in 0:00:07"
    assert flood_wait(flooded.value) == 7.0
    with pytest.raises(ChatMigrated) as moved:
        await req.post(srv.url("sendPhoto"), data(chat_id=1))
    assert moved.value.new_chat_id == -1009
    with pytest.raises(NetworkError, match="Bad Gateway"):
        await req.post(srv.url("getMe"))
    with pytest.raises(NetworkError, match="Internal"):
        await req.post(srv.url("getUpdates"))
    assert srv.connections == 1  # error statuses keep the connection


async def test_answers_to_presses_overtake_queued_requests(srv: Server) -> None:
    gate = asyncio.Event()

    async def held(r: Req) -> bytes:
        if r.api_method == "first":
            await gate.wait()
        return reply()

    srv.handler = held
    async with AiohttpRequest(connections=1, pool_timeout=None, proxies={}) as request:
        tasks = []
        for method in ("first", "sendMessage", "editMessageText", "answerCallbackQuery"):
            tasks.append(asyncio.create_task(request.do_request(srv.url(method), "POST", data())))
            await asyncio.sleep(0.01)
        await until(lambda: len(srv.requests) == 1)
        gate.set()
        await asyncio.gather(*tasks)
    order = [r.api_method for r in srv.requests]
    assert order == ["first", "answerCallbackQuery", "sendMessage", "editMessageText"]


async def test_the_gate_passes_a_cancelled_waiters_slot_on() -> None:
    gate = Gate(1)
    assert gate.take_now() and not gate.take_now()
    first = asyncio.create_task(gate.wait(urgent=False))
    second = asyncio.create_task(gate.wait(urgent=False))
    await asyncio.sleep(0)
    gate.release()  # the slot goes to ``first``...
    first.cancel()  # ...which is cancelled before it runs: the slot passes to ``second``
    await asyncio.gather(first, return_exceptions=True)
    await asyncio.wait_for(second, 1.0)
    assert not gate.take_now()
    gate.release()
    assert gate.take_now()


async def test_pool_timeout(srv: Server) -> None:
    gate = asyncio.Event()

    async def held(r: Req) -> bytes:
        await gate.wait()
        return reply()

    srv.handler = held
    async with AiohttpRequest(connections=1, pool_timeout=0.1, proxies={}) as request:
        first = asyncio.create_task(request.do_request(srv.url(), "POST", data()))
        await until(lambda: len(srv.requests) == 1)
        with pytest.raises(TimedOut, match="Pool timeout"):
            await request.do_request(srv.url(), "POST", data())
        gate.set()
        assert (await first)[0] == 200
        assert (await request.do_request(srv.url(), "POST", data()))[0] == 200  # slot back


async def test_cancellation_releases_the_slot_and_closes_the_connection(srv: Server) -> None:
    async def hang_on_first(r: Req) -> bytes:
        if r.api_method == "hang":
            await asyncio.sleep(30)
        return reply()

    srv.handler = hang_on_first
    # the pool's timeout only bounds a hang: ``queued`` is cancelled while it waits
    async with AiohttpRequest(connections=1, pool_timeout=60.0, proxies={}) as request:
        hung = asyncio.create_task(request.do_request(srv.url("hang"), "POST", data()))
        await until(lambda: len(srv.requests) == 1)
        queued = asyncio.create_task(request.do_request(srv.url("queued"), "POST", data()))
        await asyncio.sleep(0.01)
        queued.cancel()  # cancelled while waiting for the slot
        hung.cancel()  # cancelled mid-request
        for task in (hung, queued):
            with pytest.raises(asyncio.CancelledError):
                await task
        await until(lambda: srv.closed_by_client == 1)  # not returned to the pool half-read
        assert (await request.do_request(srv.url(), "POST", data()))[0] == 200
        assert [r.api_method for r in srv.requests] == ["hang", "sendMessage"]


async def test_outer_timeout_is_not_reported_as_ours(srv: Server, req: AiohttpRequest) -> None:
    async def never(r: Req) -> bytes:
        await asyncio.sleep(30)
        raise AssertionError

    srv.handler = never
    with pytest.raises(TimeoutError):  # the caller's own timeout stays a plain cancellation
        async with asyncio.timeout(0.05):
            await req.do_request(srv.url(), "POST", data())


async def test_the_token_never_shows(
    srv: Server, req: AiohttpRequest, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    errors: list[BaseException] = []

    async def expect_error(coro: Awaitable[object]) -> None:
        with pytest.raises(NetworkError) as info:
            await coro
        errors.append(info.value)

    async def scripted(r: Req) -> bytes | None:
        if r.api_method == "garbage":
            return b"garbage\r\n\r\n"
        if r.api_method == "hangUp":
            return None
        if r.api_method == "reset":
            return RESET
        await asyncio.sleep(30)
        raise AssertionError

    srv.handler = scripted
    await expect_error(req.do_request(srv.url("garbage"), "POST", data()))
    await expect_error(req.do_request(srv.url("hangUp"), "POST", data()))
    await expect_error(req.do_request(srv.url("reset"), "POST", data()))
    await expect_error(req.do_request(srv.url("slow"), "POST", data(), read_timeout=0.05))
    refused = f"http://127.0.0.1:{closed_port()}/bot{TOKEN}/getMe"
    await expect_error(req.do_request(refused, "POST", data()))
    await expect_error(req.retrieve(f"http://127.0.0.1:{closed_port()}/file/bot{TOKEN}/a/b.jpg"))
    await expect_error(req.post(f"ftp://127.0.0.1/bot{TOKEN}/getMe", data()))
    await expect_error(req.post(f"http://127.0.0.1:99999/bot{TOKEN}/getMe", data()))
    assert len(errors) == 8
    for error in errors:
        chain: BaseException | None = error
        while chain is not None:
            assert SECRET not in str(chain) and SECRET not in repr(chain)
            chain = chain.__cause__ or chain.__context__
    assert "getMe" in str(errors[4]) and "file download" in str(errors[5])
    assert SECRET not in caplog.text


async def test_shutdown_and_initialize_again(srv: Server) -> None:
    request = AiohttpRequest(proxies={})
    await request.initialize()
    assert (await request.do_request(srv.url(), "POST", data()))[0] == 200
    await request.shutdown()
    await request.shutdown()  # twice is fine
    await until(lambda: srv.closed_by_client == 1)
    with pytest.raises(RuntimeError, match="shut down"):
        await request.do_request(srv.url(), "POST", data())
    with pytest.raises(NetworkError):  # through PTB: its wrapper turns it into a NetworkError
        await request.post(srv.url(), data())
    await request.initialize()
    assert (await request.do_request(srv.url(), "POST", data()))[0] == 200
    await request.shutdown()


async def test_the_proxy_is_read_once_at_construction(
    srv: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    proxy = f"http://user:pw@127.0.0.1:{srv.port}"
    url = f"http://api.telegram.invalid/bot{TOKEN}/getMe"
    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ALL_PROXY", proxy)
    request = AiohttpRequest()
    monkeypatch.delenv("ALL_PROXY")  # later changes are not seen
    async with request:
        assert request.uses_proxy
        assert await request.post(url) == {"echo": "getMe"}
    (got,) = srv.requests
    assert got.target == url  # the absolute form: the request went to the proxy
    assert got.headers["proxy-authorization"] == "Basic dXNlcjpwdw=="  # user:pw
    assert not AiohttpRequest().uses_proxy


@pytest.mark.parametrize("no_proxy", ["example.org, 127.0.0.1", "127.0.0.1:{port}", "*"])
async def test_no_proxy_bypasses_it(srv: Server, no_proxy: str) -> None:
    proxies = {"all": "http://127.0.0.1:9", "no": no_proxy.format(port=srv.port)}
    async with AiohttpRequest(proxies=proxies) as request:
        assert request.uses_proxy
        assert await request.post(srv.url("getMe")) == {"echo": "getMe"}
    assert srv.requests[0].target == f"/bot{TOKEN}/getMe"  # straight to the server


def test_proxy_settings_are_read_by_urllib_and_socks_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTPS_PROXY", "http://a:1")
    monkeypatch.setenv("https_proxy", "http://b:2")  # the lower-case one wins
    monkeypatch.setenv("NO_PROXY", "x")
    assert read_proxies() == {"https": "http://b:2", "no": "x"}
    with pytest.raises(UnsupportedProxy, match="only HTTP") as info:
        AiohttpRequest(proxies={"all": "socks5://user:secret@10.0.0.1:1080"})
    assert "secret" not in str(info.value)
    monkeypatch.setenv("ALL_PROXY", "socks5://user:secret@10.0.0.1:1080")
    with pytest.raises(UnsupportedProxy):
        AiohttpRequest()


def test_the_bot_uses_this_transport_without_a_pool_timeout() -> None:
    request = default_request()
    assert isinstance(request, AiohttpRequest)
    assert request._pool_timeout is None  # a burst waits its turn rather than fail


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl for a certificate")
async def test_https_with_sni_keep_alive_and_verification(tmp_path: Path) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"]
        + ["-nodes", "-days", "1", "-subj", "/CN=localhost", "-keyout", str(key)]
        + ["-out", str(cert), "-addext", "subjectAltName=DNS:localhost"],
        check=True,
        capture_output=True,
    )
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(cert, key)
    names: list[str | None] = []

    def sni(sock: ssl.SSLObject, name: str | None, context: ssl.SSLContext) -> None:
        names.append(name)

    server_context.sni_callback = sni
    server = Server()
    tcp = await asyncio.start_server(server.serve, "127.0.0.1", 0, ssl=server_context)
    port = tcp.sockets[0].getsockname()[1]
    url = f"https://localhost:{port}/bot{TOKEN}/getMe"
    try:
        trusting = ssl.create_default_context(cafile=str(cert))
        async with AiohttpRequest(ssl_context=trusting, proxies={}) as request:
            for _ in range(2):
                assert await request.post(url) == {"echo": "getMe"}
        assert server.connections == 1 and names == ["localhost"]
        assert server.requests[0].headers["host"] == f"localhost:{port}"
        async with AiohttpRequest(proxies={}) as request:  # the system's CAs don't know it
            with pytest.raises(NetworkError, match="getMe to localhost.*[Cc]ertificate") as e:
                await request.do_request(url, "POST")
            assert SECRET not in str(e.value)
    finally:
        tcp.close()


async def test_a_real_bot_over_the_transport(srv: Server) -> None:
    async def api(r: Req) -> bytes:
        if r.api_method == "getMe":
            return reply({"ok": True, "result": ME})
        assert r.api_method == "sendMessage"
        params = r.params()
        message = {
            "message_id": 7,
            "date": 0,
            "chat": {"id": int(str(params["chat_id"])), "type": "private"},
            "text": params["text"],
        }
        return reply({"ok": True, "result": message})

    srv.handler = api
    bot = Bot(
        TOKEN,
        base_url=f"http://127.0.0.1:{srv.port}/bot",
        request=AiohttpRequest(proxies={}),
        get_updates_request=AiohttpRequest(connections=1, proxies={}),
    )
    async with bot:
        assert bot.username == "pref_bot"
        me = await bot.get_me()
        assert me.id == ME["id"]
        sent = await bot.send_message(5, "Пас ♠")
        assert (sent.message_id, sent.chat.id, sent.text) == (7, 5, "Пас ♠")
    assert [r.api_method for r in srv.requests] == ["getMe", "getMe", "sendMessage"]
    assert all(r.target.startswith(f"/bot{TOKEN}/") for r in srv.requests)
