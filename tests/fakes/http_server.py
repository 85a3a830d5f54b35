"""The FakeTelegram served over real HTTP/1.1 on 127.0.0.1, using only asyncio.

Usage inside a test's event loop::

    async with FakeBotApiServer(fake) as srv:
        app = Application.builder().token(fake.token).base_url(srv.base_url).build()

or, for a bot running in a subprocess or another thread::

    srv = FakeBotApiServer(fake)
    base_url = srv.start_in_thread()   # "http://127.0.0.1:PORT/bot"
    ...
    srv.stop()
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import re
import threading
import time
from dataclasses import dataclass, field
from email.utils import formatdate
from http import HTTPStatus
from types import TracebackType
from typing import Any
from urllib.parse import parse_qsl

from ._media import parse_multipart
from ._routes import route
from .telegram_state import FakeTelegram, InjectedReset, InjectedTimeout, _encode

_API_PATH = re.compile(r"^/bot(?P<token>[^/]+)/(?P<method>[A-Za-z0-9_]+)/?$")
_FILE_PATH = re.compile(r"^/file/bot(?P<token>[^/]+)/(?P<path>.+)$")
_MAX_LINE = 64 * 1024
_MAX_BODY = 64 * 1024 * 1024
_NOT_FOUND = {"ok": False, "error_code": 404, "description": "Not Found"}


@functools.lru_cache(maxsize=64)
def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


_date_cache: tuple[int, str] = (-1, "")


def _http_date() -> str:
    """``formatdate(usegmt=True)``, made once a second (it names whole seconds)."""
    global _date_cache
    now = time.time()
    second = int(now)
    if _date_cache[0] != second:
        _date_cache = (second, formatdate(second, usegmt=True))
    return _date_cache[1]


class _BadRequest(Exception):
    """The bytes on the wire are not a valid HTTP request."""


class _Conn:
    """A StreamReader with a pushback buffer (so we can watch for EOF without losing bytes)."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader = reader
        self.buf = bytearray()

    async def _fill(self) -> bool:
        chunk = await self.reader.read(65536)
        if not chunk:
            return False
        self.buf += chunk
        return True

    async def readline(self) -> bytes:
        while b"\n" not in self.buf:
            if len(self.buf) > _MAX_LINE:
                raise _BadRequest("line too long")
            if not await self._fill():
                line = bytes(self.buf)
                self.buf.clear()
                return line
        end = self.buf.index(b"\n") + 1
        line = bytes(self.buf[:end])
        del self.buf[:end]
        return line

    async def readexactly(self, size: int) -> bytes:
        while len(self.buf) < size:
            if not await self._fill():
                raise _BadRequest("connection closed in the middle of the body")
        data = bytes(self.buf[:size])
        del self.buf[:size]
        return data

    async def wait_eof(self) -> None:
        """Return once the client closes its side; keeps any bytes that arrive meanwhile."""
        while await self._fill():
            pass


@dataclass
class _Request:
    method: str
    target: str
    version: str
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""

    @property
    def keep_alive(self) -> bool:
        connection = self.headers.get("connection", "").lower()
        if self.version == "HTTP/1.0":
            return connection == "keep-alive"
        return connection != "close"


def _request_line(line: bytes) -> _Request:
    try:
        method, target, version = line.decode("latin-1").strip().split(" ", 2)
    except ValueError:
        raise _BadRequest("malformed request line") from None
    if not version.startswith("HTTP/1."):
        raise _BadRequest("unsupported HTTP version")
    return _Request(method.upper(), target, version)


def _add_header(request: _Request, line: bytes) -> None:
    name, colon, value = line.decode("latin-1").partition(":")
    if not colon:
        raise _BadRequest("malformed header")
    request.headers[name.strip().lower()] = value.strip()


def _read_head(conn: _Conn) -> _Request | None:
    """The request line and headers at once, if the buffer holds the whole head with CRLF
    line ends and no empty line before it (what clients send); None leaves the buffer as
    it was for :meth:`FakeBotApiServer._read_head_by_lines`, which reads the same lines."""
    buf = conn.buf
    end = buf.find(b"\r\n\r\n")
    if end <= 0 or buf[0] in b"\r\n":
        return None
    head = bytes(buf[:end])
    if head.count(b"\n") != head.count(b"\r\n"):
        return None  # a bare LF ends a line there too
    lines = head.split(b"\r\n")
    request = _request_line(lines[0])
    for line in lines[1:]:
        _add_header(request, line)
    del buf[: end + 4]
    return request


class FakeBotApiServer:
    """Serve a :class:`FakeTelegram` at ``http://127.0.0.1:PORT/bot<token>/<method>``."""

    def __init__(
        self,
        fake: FakeTelegram,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        injected_timeout_hold: float = 30.0,
    ) -> None:
        if host not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError("the fake Bot API server only listens on the loopback interface")
        self.fake = fake
        self.host = host
        self.port = port
        self.injected_timeout_hold = injected_timeout_hold
        self.requests_served = 0
        self.connections_opened = 0
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._writers: set[asyncio.StreamWriter] = set()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    # ------------------------------------------------------------------ addresses

    @property
    def root_url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        """For ``ApplicationBuilder.base_url``: ``http://127.0.0.1:PORT/bot``."""
        return f"{self.root_url}/bot"

    @property
    def base_file_url(self) -> str:
        """For ``ApplicationBuilder.base_file_url``: ``http://127.0.0.1:PORT/file/bot``."""
        return f"{self.root_url}/file/bot"

    # ------------------------------------------------------------------ lifecycle (async)

    async def start(self) -> FakeBotApiServer:
        """Start listening in the running event loop."""
        self._server = await asyncio.start_server(
            self._serve_connection, self.host, self.port, limit=_MAX_LINE
        )
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def aclose(self) -> None:
        """Stop listening and drop every open connection."""
        if self._server is not None:
            self._server.close()
        for writer in list(self._writers):
            writer.transport.abort()
        tasks = [t for t in self._tasks if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2.0)
            self._server = None

    async def __aenter__(self) -> FakeBotApiServer:
        return await self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    # ------------------------------------------------------------------ lifecycle (thread)

    def start_in_thread(self, timeout: float = 5.0) -> str:
        """Run the server in a background thread with its own loop; return ``base_url``."""
        if self._thread is not None:
            raise RuntimeError("already running in a thread")
        ready = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(self.start())
            except BaseException as exc:  # noqa: BLE001 - reported to the starting thread
                failure.append(exc)
                ready.set()
                loop.close()
                return
            ready.set()
            try:
                loop.run_forever()
            finally:
                loop.run_until_complete(self.aclose())
                loop.close()

        self._thread = threading.Thread(target=run, name="FakeBotApiServer", daemon=True)
        self._thread.start()
        if not ready.wait(timeout):
            raise TimeoutError("the fake Bot API server did not start in time")
        if failure:
            self._thread = None
            raise failure[0]
        return self.base_url

    def stop(self, timeout: float = 5.0) -> None:
        """Stop a server started with :meth:`start_in_thread`."""
        thread, loop = self._thread, self._loop
        if thread is None or loop is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout)
        self._thread = None
        self._loop = None

    def __enter__(self) -> FakeBotApiServer:
        self.start_in_thread()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # ------------------------------------------------------------------ HTTP

    async def _serve_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        self._writers.add(writer)
        self.connections_opened += 1
        conn = _Conn(reader)
        try:
            while True:
                try:
                    request = await self._read_request(conn, writer)
                except _BadRequest:
                    await self._write(writer, 400, b"Bad Request", "text/plain", keep_alive=False)
                    break
                if request is None:
                    break
                keep_open = await self._answer(request, conn, writer)
                self.requests_served += 1
                if not keep_open or not request.keep_alive:
                    break
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:
            # Server shutdown. Returning normally keeps Python 3.11's start_server callback
            # from logging "Exception in callback" for a cancelled connection task.
            pass
        finally:
            self._writers.discard(writer)
            if not writer.is_closing():
                writer.close()
            try:
                with contextlib.suppress(Exception):
                    await writer.wait_closed()
            except asyncio.CancelledError:
                pass  # the server stops: the socket is closed anyway
            finally:
                if task is not None:
                    self._tasks.discard(task)

    async def _read_request(self, conn: _Conn, writer: asyncio.StreamWriter) -> _Request | None:
        if not conn.buf and not await conn._fill():
            return None  # the client closed the connection between requests
        request = _read_head(conn)  # the usual case: the whole head is in the buffer
        if request is None:
            request = await self._read_head_by_lines(conn)
            if request is None:
                return None
        if request.headers.get("expect", "").lower() == "100-continue":
            writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            await writer.drain()
        if "chunked" in request.headers.get("transfer-encoding", "").lower():
            body = bytearray()
            while True:
                size_line = await conn.readline()
                try:
                    size = int(size_line.split(b";", 1)[0].strip(), 16)
                except ValueError:
                    raise _BadRequest("bad chunk size") from None
                if size == 0:
                    while (await conn.readline()) not in (b"\r\n", b"\n", b""):
                        pass
                    break
                body += await conn.readexactly(size)
                await conn.readexactly(2)
                if len(body) > _MAX_BODY:
                    raise _BadRequest("body too large")
            request.body = bytes(body)
        elif "content-length" in request.headers:
            try:
                length = int(request.headers["content-length"])
            except ValueError:
                raise _BadRequest("bad content-length") from None
            if length < 0 or length > _MAX_BODY:
                raise _BadRequest("bad content-length")
            request.body = await conn.readexactly(length)
        return request

    async def _read_head_by_lines(self, conn: _Conn) -> _Request | None:
        """The request line and headers, line by line (a head that arrives in pieces, stray
        empty lines before it, bare LF line ends)."""
        line = await conn.readline()
        while line in (b"\r\n", b"\n"):  # tolerate stray empty lines between requests
            line = await conn.readline()
        if not line:
            return None
        request = _request_line(line)
        while True:
            header = await conn.readline()
            if header in (b"\r\n", b"\n"):
                break
            if not header:
                raise _BadRequest("connection closed in the headers")
            _add_header(request, header)
        return request

    def _params(self, request: _Request, query: str) -> dict[str, Any]:
        params: dict[str, Any] = dict(parse_qsl(query, keep_blank_values=True))
        content_type = request.headers.get("content-type", "")
        kind = content_type.split(";", 1)[0].strip().lower()
        if not request.body:
            return params
        if kind == "application/json":
            data = json.loads(request.body.decode("utf-8"))
            if not isinstance(data, dict):
                raise ValueError("JSON body must be an object")
            params.update(data)
        elif kind == "multipart/form-data":
            params.update(parse_multipart(request.body, content_type))
        else:  # Telegram treats anything else as application/x-www-form-urlencoded
            params.update(parse_qsl(request.body.decode("utf-8"), keep_blank_values=True))
        return params

    async def _answer(self, request: _Request, conn: _Conn, writer: asyncio.StreamWriter) -> bool:
        """Answer one request; return False if the connection must be closed."""
        file_route, api_route, query = route(request.target, _API_PATH, _FILE_PATH)
        if file_route is not None:
            error = self.fake.check_token(file_route[0])
            content = self.fake.file_content(file_route[1]) if error is None else None
            if content is None:
                return await self._write_json(writer, 404, _NOT_FOUND, request.keep_alive)
            return await self._write(
                writer, 200, content, "application/octet-stream", keep_alive=request.keep_alive
            )
        if api_route is None:
            return await self._write_json(writer, 404, _NOT_FOUND, request.keep_alive)
        token, method = api_route
        error = self.fake.check_token(token)
        if error is not None:
            return await self._write_json(writer, error[0], error[1], request.keep_alive)
        try:
            params = self._params(request, query)
        except (ValueError, UnicodeDecodeError):
            body = {"ok": False, "error_code": 400, "description": "Bad Request: invalid request"}
            return await self._write_json(writer, 400, body, request.keep_alive)

        try:
            if method.lower() == "getupdates":
                answer = await self._long_poll(method, params, conn)
                if answer is None:
                    return False  # the client went away (e.g. PTB cancelled a long poll)
            else:  # answered at once: no need to watch the connection meanwhile
                answer = await self.fake.handle_encoded(method, params)
            status, payload = answer
        except InjectedTimeout:
            # Keep the client waiting until it gives up (its read timeout) or we hit the cap.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(conn.wait_eof(), self.injected_timeout_hold)
            writer.transport.abort()
            return False
        except InjectedReset:
            writer.transport.abort()
            return False
        except Exception as exc:  # a bug in the fake: answer 500 rather than hang the client
            body = {
                "ok": False,
                "error_code": 500,
                "description": f"Internal Server Error: {exc!r}",
            }
            return await self._write_json(writer, 500, body, keep_alive=False)
        return await self._write(
            writer, status, payload, "application/json", keep_alive=request.keep_alive
        )

    async def _long_poll(
        self, method: str, params: dict[str, Any], conn: _Conn
    ) -> tuple[int, bytes] | None:
        """getUpdates, cancelled if the client closes the connection while it waits."""
        handler = asyncio.ensure_future(self.fake.handle_encoded(method, params))
        watcher = asyncio.ensure_future(conn.wait_eof())
        try:
            done, _ = await asyncio.wait({handler, watcher}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for pending in (handler, watcher):
                if not pending.done():
                    pending.cancel()
            await asyncio.gather(handler, watcher, return_exceptions=True)
        if handler not in done or handler.cancelled():
            return None
        return handler.result()

    async def _write_json(
        self, writer: asyncio.StreamWriter, status: int, body: dict[str, Any], keep_alive: bool
    ) -> bool:
        payload = _encode(body)
        return await self._write(writer, status, payload, "application/json", keep_alive=keep_alive)

    async def _write(
        self,
        writer: asyncio.StreamWriter,
        status: int,
        payload: bytes,
        content_type: str,
        *,
        keep_alive: bool,
    ) -> bool:
        head = (
            f"HTTP/1.1 {status} {_reason(status)}\r\n"
            "Server: nginx/1.18.0\r\n"
            f"Date: {_http_date()}\r\n"
            f"Content-Type: {content_type}\r\n"
            f"Content-Length: {len(payload)}\r\n"
            f"Connection: {'keep-alive' if keep_alive else 'close'}\r\n"
            "Strict-Transport-Security: max-age=31536000; includeSubDomains; preload\r\n"
            "Access-Control-Allow-Origin: *\r\n"
            "\r\n"
        )
        writer.write(head.encode("latin-1") + payload)
        await writer.drain()
        return keep_alive
