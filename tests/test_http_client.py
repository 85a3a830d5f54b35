"""Tests of bot.http.LeanRequest against a scripted HTTP/1.1 server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import email.parser
import email.policy
import gzip
import io
import json
import logging
import shutil
import socket
import ssl
import subprocess
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

import pytest
from telegram import Bot, InputFile
from telegram.error import BadRequest, NetworkError, RetryAfter, TimedOut
from telegram.request import RequestData
from telegram.request._requestparameter import RequestParameter

import bot.http as lean
from bot.http import LeanRequest

TOKEN = "123456789:SECRET-token_never-shown"
ME = {"id": 123456789, "is_bot": True, "first_name": "Pref", "username": "pref_bot"}


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

    def form(self) -> dict[str, str]:
        assert self.headers["content-type"] == "application/x-www-form-urlencoded"
        return dict(parse_qsl(self.body.decode("ascii"), keep_blank_values=True))


Handler = Callable[[Req], Awaitable[bytes | None]]
"""Returns the raw response to write (the server closes the connection after it when it says
``Connection: close``), or None to close the connection without answering."""


def reply(
    body: bytes | dict[str, object] = b'{"ok":true,"result":true}',
    status: str = "200 OK",
    headers: tuple[str, ...] = (),
    version: str = "HTTP/1.1",
) -> bytes:
    if isinstance(body, dict):
        body = json.dumps(body).encode()
    head = [f"{version} {status}", "Content-Type: application/json"]
    head += [f"Content-Length: {len(body)}", *headers]
    return "\r\n".join(head).encode() + b"\r\n\r\n" + body


def answering(response: bytes) -> Handler:
    async def handler(req: Req) -> bytes:
        return response

    return handler


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
                writer.write(response)
                await writer.drain()
                if b"\r\nconnection: close\r\n" in response.partition(b"\r\n\r\n")[0].lower():
                    return
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
async def req() -> AsyncIterator[LeanRequest]:
    request = LeanRequest(read_timeout=2.0, pool_timeout=2.0)
    async with request:
        yield request


def data(**params: object) -> RequestData:
    return RequestData([RequestParameter.from_input(k, v) for k, v in params.items()])


async def until(condition: Callable[[], bool], timeout: float = 2.0) -> None:
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


async def test_post_round_trip_encodes_the_form(srv: Server, req: LeanRequest) -> None:
    markup = {"inline_keyboard": [[{"text": "6♠ & 7♥", "callback_data": "1:2:b6S"}]]}
    text = "Торговля: a+b=c & 100% «ok»\n\t~_.-"
    request_data = data(chat_id=-1001, text=text, reply_markup=markup, flag=True)
    status, body = await req.do_request(srv.url(), "POST", request_data)
    assert (status, json.loads(body)) == (200, {"ok": True, "result": {"echo": "sendMessage"}})
    (got,) = srv.requests
    assert (got.method, got.target) == ("POST", f"/bot{TOKEN}/sendMessage")
    assert got.form() == request_data.json_parameters
    assert json.loads(got.form()["reply_markup"]) == markup and got.form()["text"] == text
    assert got.body == urlencode(request_data.json_parameters).encode()  # byte for byte
    assert got.headers["host"] == f"127.0.0.1:{srv.port}"
    assert got.headers["user-agent"] == LeanRequest.USER_AGENT
    assert got.headers["connection"] == "keep-alive"


async def test_empty_post_and_get(srv: Server, req: LeanRequest) -> None:
    assert await req.post(srv.url("getMe"), data()) == {"echo": "getMe"}
    assert await req.post(srv.url("getMe")) == {"echo": "getMe"}

    async def file(r: Req) -> bytes:
        return reply(b"\x89PNG file bytes")

    srv.handler = file
    url = f"http://127.0.0.1:{srv.port}/file/bot{TOKEN}/photos/file_1.png"
    assert await req.retrieve(url) == b"\x89PNG file bytes"
    assert [(r.method, r.headers.get("content-length"), r.body) for r in srv.requests] == [
        ("POST", "0", b""),
        ("POST", "0", b""),
        ("GET", None, b""),
    ]


async def test_keep_alive_reuses_one_connection(srv: Server, req: LeanRequest) -> None:
    for _ in range(3):
        assert (await req.do_request(srv.url(), "POST", data(chat_id=1)))[0] == 200
    assert srv.connections == 1 and [r.conn for r in srv.requests] == [0, 0, 0]


async def test_concurrent_requests_use_at_most_connections(srv: Server) -> None:
    async def slow(r: Req) -> bytes:
        await asyncio.sleep(0.02)
        return reply()

    srv.handler = slow
    async with LeanRequest(connections=3, pool_timeout=None) as request:
        results = await asyncio.gather(
            *(request.do_request(srv.url(), "POST", data(n=i)) for i in range(12))
        )
    assert [status for status, _ in results] == [200] * 12
    assert srv.connections == 3


async def test_chunked_response(srv: Server, req: LeanRequest) -> None:
    async def chunked(r: Req) -> bytes:
        return (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            b"5;ext=1\r\nhello\r\n1\r\n \r\nA\r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\n"
        )

    srv.handler = chunked
    assert await req.do_request(srv.url(), "POST", data()) == (200, b"hello 0123456789")
    assert await req.do_request(srv.url(), "POST", data()) == (200, b"hello 0123456789")
    assert srv.connections == 1  # the chunked framing left the connection reusable


async def test_large_bodies_both_ways(srv: Server, req: LeanRequest) -> None:
    big = bytes(range(256)) * 1200  # 300 KiB: several socket reads and writes

    async def echo(r: Req) -> bytes:
        if r.api_method == "chunked":
            size = b"%x" % len(r.body)
            return b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%s\r\n%s\r\n0\r\n\r\n" % (
                size,
                r.body,
            )
        return reply(r.body)

    srv.handler = echo
    upload = data(document=InputFile(big, filename="big.bin"))
    for method in ("echo", "chunked"):
        status, body = await req.do_request(srv.url(method), "POST", upload)
        assert status == 200 and big in body


async def test_connection_close_and_responses_without_length(srv: Server, req: LeanRequest) -> None:
    responses = [
        reply(b"one", headers=("Connection: close",)),
        reply(b"two", version="HTTP/1.0"),  # 1.0 without keep-alive: closes
        b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nthree, to EOF",
        reply(b"four", version="HTTP/1.0", headers=("Connection: keep-alive",)),
        reply(b"five"),
    ]

    async def scripted(r: Req) -> bytes:
        response = responses.pop(0)
        if b"to EOF" in response:
            srv.writers[r.conn].write(response)
            srv.writers[r.conn].close()  # the body ends with the connection
            return b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"  # never reaches the client
        return response

    srv.handler = scripted
    bodies = [(await req.do_request(srv.url(), "POST", data()))[1] for _ in range(5)]
    assert bodies == [b"one", b"two", b"three, to EOF", b"four", b"five"]
    assert [r.conn for r in srv.requests] == [0, 1, 2, 3, 3]


async def test_idle_connection_closed_by_server_is_replaced(srv: Server, req: LeanRequest) -> None:
    assert (await req.do_request(srv.url(), "POST", data()))[0] == 200
    srv.drop_connections()
    await asyncio.sleep(0.05)  # the client's loop sees the FIN: the connection isn't reused
    assert (await req.do_request(srv.url(), "POST", data()))[0] == 200
    assert [r.conn for r in srv.requests] == [0, 1]


async def test_stale_connection_is_retried_once_on_a_fresh_one(
    srv: Server, req: LeanRequest
) -> None:
    async def close_first_reused(r: Req) -> bytes | None:
        if len(srv.requests) == 2:
            return None  # closed as the request arrived: it was never processed
        return await ok(r)

    srv.handler = close_first_reused
    assert (await req.do_request(srv.url(), "POST", data(n=1)))[0] == 200
    assert (await req.do_request(srv.url(), "POST", data(n=2)))[0] == 200
    assert [(r.conn, r.form()["n"]) for r in srv.requests] == [(0, "1"), (0, "2"), (1, "2")]


async def test_no_retry_on_a_fresh_connection_or_after_a_partial_response(
    srv: Server, req: LeanRequest
) -> None:
    async def hang_up(r: Req) -> bytes | None:
        return None

    srv.handler = hang_up
    with pytest.raises(NetworkError, match="sendMessage.*connection lost before the response"):
        await req.do_request(srv.url(), "POST", data())
    assert len(srv.requests) == 1

    async def half(r: Req) -> bytes | None:
        if len(srv.requests) == 1:
            return await ok(r)
        srv.writers[r.conn].write(b"HTTP/1.1 200 OK\r\nContent-Le")
        return None

    srv.handler = half
    srv.requests.clear()
    await req.do_request(srv.url(), "POST", data())
    with pytest.raises(NetworkError, match="inside the response head"):
        await req.do_request(srv.url(), "POST", data())
    assert len(srv.requests) == 2  # a partial response: the server saw it, no retry


async def test_idle_connections_expire(
    srv: Server, req: LeanRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lean, "IDLE_TTL", 0.0)
    for _ in range(2):
        await req.do_request(srv.url(), "POST", data())
    assert srv.connections == 2
    await until(lambda: srv.closed_by_client == 1)  # the expired one was closed, not leaked


async def test_read_timeout(srv: Server, req: LeanRequest) -> None:
    async def never(r: Req) -> bytes:
        await asyncio.sleep(30)
        raise AssertionError

    srv.handler = never
    start = time.monotonic()
    with pytest.raises(TimedOut, match=r"read timeout, sendMessage"):
        await req.do_request(srv.url(), "POST", data(), read_timeout=0.2)
    assert 0.2 <= time.monotonic() - start < 1.0
    async with LeanRequest(read_timeout=0.1) as request:  # the default, when not passed
        start = time.monotonic()
        with pytest.raises(TimedOut):
            await request.do_request(srv.url(), "POST", data())
        assert time.monotonic() - start < 0.6
    await until(lambda: srv.closed_by_client == 2)  # timed-out connections are closed


async def test_long_read_timeout_is_honoured_per_call(srv: Server) -> None:
    async def long_poll(r: Req) -> bytes:
        await asyncio.sleep(0.3)
        return reply({"ok": True, "result": []})

    srv.handler = long_poll
    async with LeanRequest(read_timeout=0.1) as request:
        assert request.read_timeout == 0.1
        url = srv.url("getUpdates")
        assert await request.post(url, data(timeout=0), read_timeout=1.0) == []
        with pytest.raises(TimedOut):
            await request.post(url, data(timeout=0))


async def test_connect_refused_is_a_network_error() -> None:
    url = f"http://127.0.0.1:{closed_port()}/bot{TOKEN}/getMe"
    async with LeanRequest() as request:
        with pytest.raises(NetworkError, match="getMe to 127.0.0.1.*ConnectionRefused") as info:
            await request.do_request(url, "POST", data())
    assert not isinstance(info.value, TimedOut)


async def test_bad_responses_are_network_errors(srv: Server, req: LeanRequest) -> None:
    cases = {
        b"SPDY/3 200 OK\r\n\r\n": "bad status line",
        b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n": "bad header line",
        b"HTTP/1.1 200 OK\r\nContent-Length: 9999999999\r\n\r\n": "body over",
        b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n": "conflicting",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n": "bad chunk size",
        b"HTTP/1.1 200 OK\r\nX: " + b"x" * (70 * 1024) + b"\r\n\r\n": "head over 65536",
    }
    for response, message in cases.items():
        srv.handler = answering(response)
        with pytest.raises(NetworkError, match=message):
            await req.do_request(srv.url(), "POST", data())
    # after all that, the request still works
    srv.handler = ok
    assert (await req.do_request(srv.url(), "POST", data()))[0] == 200


async def test_compressed_response_is_decoded(srv: Server, req: LeanRequest) -> None:
    payload = b'{"ok":true,"result":"' + b"z" * 1000 + b'"}'

    async def gzipped(r: Req) -> bytes:
        return reply(gzip.compress(payload), headers=("Content-Encoding: gzip",))

    srv.handler = gzipped
    assert await req.do_request(srv.url(), "POST", data()) == (200, payload)


async def test_multipart_upload(srv: Server, req: LeanRequest) -> None:
    handle = io.BytesIO(b"skipped? no: from the start" + bytes(range(256)))
    handle.seek(10)  # uploads start from the beginning, as with httpx
    request_data = data(
        chat_id=42,
        caption='a "quoted" caption\r\nwith Кириллица',
        photo=InputFile(b"\x89PNG\r\n\x1a\n\x00 bytes", filename='pic "1".png'),
        document=InputFile(handle, filename="notes.bin", read_file_handle=False),
    )
    assert request_data.contains_files
    status, _ = await req.do_request(srv.url("sendPhoto"), "POST", request_data)
    assert status == 200
    (got,) = srv.requests
    content_type = got.headers["content-type"]
    assert content_type.startswith("multipart/form-data; boundary=")
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + got.body
    )
    parts = {p.get_param("name", header="content-disposition"): p for p in message.iter_parts()}
    assert set(parts) == {"chat_id", "caption", "photo", "document"}
    assert parts["chat_id"].get_payload(decode=True) == b"42"
    caption = parts["caption"].get_payload(decode=True)
    assert isinstance(caption, bytes) and caption.decode() == 'a "quoted" caption\r\nwith Кириллица'
    photo = parts["photo"]
    assert photo.get_payload(decode=True) == b"\x89PNG\r\n\x1a\n\x00 bytes"
    assert photo.get_filename() == "pic %221%22.png"  # escaped like httpx (HTML5 forms)
    assert photo.get_content_type() == "image/png"
    document = parts["document"]
    assert document.get_payload(decode=True) == handle.getvalue()
    assert document.get_filename() == "notes.bin"


async def test_answers_to_presses_overtake_queued_requests(srv: Server) -> None:
    gate = asyncio.Event()

    async def held(r: Req) -> bytes:
        if r.api_method == "first":
            await gate.wait()
        return reply()

    srv.handler = held
    async with LeanRequest(connections=1, pool_timeout=None) as request:
        tasks = []
        for method in ("first", "sendMessage", "editMessageText", "answerCallbackQuery"):
            tasks.append(asyncio.create_task(request.do_request(srv.url(method), "POST", data())))
            await asyncio.sleep(0.01)
        await until(lambda: len(srv.requests) == 1)
        gate.set()
        await asyncio.gather(*tasks)
    order = [r.api_method for r in srv.requests]
    assert order == ["first", "answerCallbackQuery", "sendMessage", "editMessageText"]


async def test_pool_timeout(srv: Server) -> None:
    gate = asyncio.Event()

    async def held(r: Req) -> bytes:
        await gate.wait()
        return reply()

    srv.handler = held
    async with LeanRequest(connections=1, pool_timeout=0.1) as request:
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
    async with LeanRequest(connections=1, pool_timeout=1.0) as request:
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


async def test_outer_timeout_is_not_reported_as_ours(srv: Server, req: LeanRequest) -> None:
    async def never(r: Req) -> bytes:
        await asyncio.sleep(30)
        raise AssertionError

    srv.handler = never
    with pytest.raises(TimeoutError):  # the caller's own timeout stays a plain cancellation
        async with asyncio.timeout(0.05):
            await req.do_request(srv.url(), "POST", data())


async def test_the_token_never_shows(
    srv: Server, req: LeanRequest, caplog: pytest.LogCaptureFixture
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
        await asyncio.sleep(30)
        raise AssertionError

    srv.handler = scripted
    await expect_error(req.do_request(srv.url("garbage"), "POST", data()))
    await expect_error(req.do_request(srv.url("hangUp"), "POST", data()))
    await expect_error(req.do_request(srv.url("slow"), "POST", data(), read_timeout=0.05))
    refused = f"http://127.0.0.1:{closed_port()}/bot{TOKEN}/getMe"
    await expect_error(req.do_request(refused, "POST", data()))
    await expect_error(req.retrieve(f"http://127.0.0.1:{closed_port()}/file/bot{TOKEN}/a/b.jpg"))
    await expect_error(req.do_request(f"ftp://127.0.0.1/bot{TOKEN}/getMe", "POST", data()))
    assert len(errors) == 6
    secret = TOKEN.split(":")[1]
    for error in errors:
        chain: BaseException | None = error
        while chain is not None:
            assert secret not in str(chain) and secret not in repr(chain)
            chain = chain.__cause__ or chain.__context__
    assert "getMe" in str(errors[3]) and "file download" in str(errors[4])
    assert secret not in caplog.text


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # RetryAfter's
async def test_error_statuses_are_returned_then_raised_by_ptb(
    srv: Server, req: LeanRequest
) -> None:
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
    responses = {
        "editMessageText": reply(not_modified, "400 Bad Request"),
        "sendMessage": reply(flood, "429 Too Many Requests"),
        "getMe": reply(b"<html>oops</html>", "502 Bad Gateway"),
    }

    async def scripted(r: Req) -> bytes:
        return responses[r.api_method]

    srv.handler = scripted
    status, body = await req.do_request(srv.url("editMessageText"), "POST", data())
    assert (status, json.loads(body)) == (400, not_modified)
    with pytest.raises(BadRequest, match="not modified"):
        await req.post(srv.url("editMessageText"), data(chat_id=1))
    with pytest.raises(RetryAfter, match="Retry in 7 seconds"):
        await req.post(srv.url("sendMessage"), data(chat_id=1))
    with pytest.raises(NetworkError, match="Bad Gateway"):
        await req.post(srv.url("getMe"))
    assert srv.connections == 1  # error statuses keep the connection


async def test_shutdown_and_initialize_again(srv: Server) -> None:
    request = LeanRequest()
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
        async with LeanRequest(ssl_context=trusting) as request:
            for _ in range(2):
                assert await request.post(url) == {"echo": "getMe"}
        assert server.connections == 1 and names == ["localhost"]
        assert server.requests[0].headers["host"] == f"localhost:{port}"
        async with LeanRequest() as request:  # the system's CAs don't know this certificate
            with pytest.raises(NetworkError, match="getMe to localhost.*SSLCertVerification") as e:
                await request.do_request(url, "POST")
            assert TOKEN not in str(e.value)
    finally:
        tcp.close()


async def test_a_real_bot_over_lean_request(srv: Server) -> None:
    async def api(r: Req) -> bytes:
        if r.api_method == "getMe":
            return reply({"ok": True, "result": ME})
        assert r.api_method == "sendMessage"
        form = r.form()
        message = {
            "message_id": 7,
            "date": 0,
            "chat": {"id": int(form["chat_id"]), "type": "private"},
            "text": form["text"],
        }
        return reply({"ok": True, "result": message})

    srv.handler = api
    bot = Bot(
        TOKEN,
        base_url=f"http://127.0.0.1:{srv.port}/bot",
        request=LeanRequest(),
        get_updates_request=LeanRequest(connections=1),
    )
    async with bot:
        assert bot.username == "pref_bot"
        me = await bot.get_me()
        assert me.id == ME["id"]
        sent = await bot.send_message(5, "Пас ♠")
        assert (sent.message_id, sent.chat.id, sent.text) == (7, 5, "Пас ♠")
    assert [r.api_method for r in srv.requests] == ["getMe", "getMe", "sendMessage"]
    assert all(r.target.startswith(f"/bot{TOKEN}/") for r in srv.requests)
