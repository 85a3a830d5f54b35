"""A lean HTTP/1.1 client for the Bot API: PTB's ``BaseRequest`` on plain asyncio streams.

PTB's default ``HTTPXRequest`` (httpx + httpcore + anyio) costs 1-2 ms of CPU per Bot API call;
this one costs tens of microseconds, and the bot makes several calls per button press.

It speaks only what the Bot API needs: ``POST`` (form or multipart) and ``GET``, HTTP/1.1 with
keep-alive, over TCP (a local Bot API server, a test fake) or TLS. Proxies are not supported:
use PTB's ``HTTPXRequest`` when a proxy is needed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import ssl
import time
import zlib
from collections import deque
from typing import Final
from urllib.parse import quote, urlsplit

from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import ODVInput, UploadFileDict
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

__all__ = ["Gate", "LeanRequest", "PROXY_VARIABLES"]

log = logging.getLogger(__name__)

MAX_HEADER_BYTES: Final = 64 * 1024
"""Longest response head (status line and headers) accepted; also the longest chunk-size line."""
MAX_BODY_BYTES: Final = 50 * 1024 * 1024
"""Largest response body accepted (Bot API downloads are at most 20 MB)."""
IDLE_TTL: Final = 30.0
"""Seconds an idle kept-alive connection may wait for reuse; servers drop older ones anyway."""

_IO_CHUNK: Final = 64 * 1024
"""Bytes per socket read or write that each get the full read or write timeout, like httpx."""
_URGENT_SUFFIX: Final = "/answerCallbackQuery"
PROXY_VARIABLES: Final = ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")
_POOL_TIMEOUT_MESSAGE: Final = (
    "Pool timeout: All connections in the connection pool are occupied. Request was *not* sent "
    "to Telegram. Consider adjusting the connection pool size or the pool timeout."
)
_HEX_DIGITS: Final = b"0123456789abcdefABCDEF"
# Form encoding without a Python-level loop per byte (urlencode's quote_plus has one, and a
# message with a keyboard is ~1 KB): each byte becomes three cells -- itself, or '%' and two hex
# digits -- then the NUL fillers go. The output is byte for byte urlencode's.
_URL_SAFE: Final = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~"
_URL_SAFE_STR: Final = _URL_SAFE.decode("ascii")
_QUOTE_LEAD: Final = bytes(
    b if b in _URL_SAFE else (0x2B if b == 0x20 else 0x25) for b in range(256)
)  # the byte itself, '+' for a space, or '%'
_QUOTE_HI: Final = bytes(
    0 if b in _URL_SAFE or b == 0x20 else b"0123456789ABCDEF"[b >> 4] for b in range(256)
)
_QUOTE_LO: Final = bytes(
    0 if b in _URL_SAFE or b == 0x20 else b"0123456789ABCDEF"[b & 15] for b in range(256)
)
# multipart names and filenames are escaped like httpx does (the HTML5 form encoding)
_FORM_ESCAPES: Final[dict[int, str]] = {
    ord('"'): "%22",
    ord("\\"): "\\\\",
    **{c: f"%{c:02X}" for c in range(0x20) if c != 0x1B},
}


class _ProtocolError(Exception):
    """The server's bytes are not an acceptable HTTP/1.1 response."""


class _NoResponse(Exception):
    """The connection broke before any byte of the response arrived (maybe a stale one)."""


class _Target:
    """What one URL (with one HTTP method) resolves to; cached, parsing URLs isn't free."""

    __slots__ = ("head", "host", "key", "name", "port", "tls")

    def __init__(self, method: str, url: str) -> None:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https"):
            raise NetworkError(f"LeanRequest: unsupported URL scheme {scheme!r}")
        self.tls = scheme == "https"
        host = parts.hostname or ""
        try:
            port = parts.port
        except ValueError:
            raise NetworkError("LeanRequest: the URL has a bad port") from None
        if not host:
            raise NetworkError("LeanRequest: the URL has no host")
        if not host.isascii():
            host = host.encode("idna").decode("ascii")
        default_port = 443 if self.tls else 80
        self.host = host
        self.port = port or default_port
        self.key = (scheme, host, self.port)
        path = parts.path or "/"
        # The last path segment names the API method; only that (never the path: it holds the
        # token) may appear in errors. A token has a ':', so it never passes isalnum().
        last = path.rstrip("/").rpartition("/")[2]
        if path.startswith("/file/"):
            self.name = "file download"
        elif last.isascii() and last.isalnum() and len(last) <= 64:
            self.name = last
        else:
            self.name = "request"
        target = f"{path}?{parts.query}" if parts.query else path
        if not target.isascii():
            target = quote(target, safe="/?&=%:@!$'()*+,;-._~")
        host_header = f"[{host}]" if ":" in host else host
        if self.port != default_port:
            host_header = f"{host_header}:{self.port}"
        self.head = (
            f"{method} {target} HTTP/1.1\r\nHost: {host_header}\r\n"
            f"User-Agent: {BaseRequest.USER_AGENT}\r\nAccept: */*\r\nConnection: keep-alive\r\n"
        ).encode("ascii")

    @property
    def where(self) -> str:
        return f"{self.host}:{self.port}"


class _Conn:
    """One kept-alive connection."""

    __slots__ = ("idle_since", "reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.idle_since = 0.0

    def usable(self) -> bool:
        """Whether an idle connection may carry a request: the server has neither closed it nor
        sent anything unasked (a stray byte would be read as the next response)."""
        reader = self.reader
        return not (
            reader.at_eof()
            or reader.exception() is not None
            or self.writer.is_closing()
            or getattr(reader, "_buffer", None)  # no public way to peek; absent => trust it
        )

    def close(self) -> None:
        self.writer.close()

    def abort(self) -> None:
        """Close at once: the connection is half-used, or in an unknown state."""
        self.writer.transport.abort()


class _Call:
    """The one timer of a request. Each phase (pool wait, connect, each socket write or read)
    moves the deadline; the timer is only re-armed when it fires before the deadline, as a
    timer handle per phase would cost more than the rest of the request."""

    __slots__ = ("deadline", "fired", "handle", "loop", "phase", "task")

    def __init__(self, loop: asyncio.AbstractEventLoop, task: asyncio.Task[object]) -> None:
        self.loop = loop
        self.task = task
        self.phase = ""
        self.deadline: float | None = None
        self.handle: asyncio.TimerHandle | None = None
        self.fired = False

    def arm(self, phase: str, seconds: float | None) -> None:
        """Start a phase that may take ``seconds`` (None: forever)."""
        self.phase = phase
        if seconds is None or self.fired:
            self.deadline = None
            return
        deadline = self.loop.time() + seconds
        self.deadline = deadline
        handle = self.handle
        if handle is None or handle.when() > deadline:
            if handle is not None:
                handle.cancel()
            self.handle = self.loop.call_at(deadline, self._expire)

    def disarm(self) -> None:
        self.deadline = None
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None

    def _expire(self) -> None:
        self.handle = None
        deadline = self.deadline
        if deadline is None:
            return
        if self.loop.time() < deadline:
            self.handle = self.loop.call_at(deadline, self._expire)
            return
        self.fired = True
        self.task.cancel()


class Gate:
    """At most ``slots`` holders at once; the others wait in order, urgent ones first.

    Urgent: answers to button presses, which Telegram drops when later than ~15 s, while
    edits may wait (they coalesce in the outbox).
    """

    __slots__ = ("_free", "_waiting")

    def __init__(self, slots: int) -> None:
        self._free = slots
        self._waiting: tuple[deque[asyncio.Future[None]], ...] = (deque(), deque())
        """Holders-to-be waiting: urgent ones, then the rest."""

    def take_now(self) -> bool:
        """Take a slot if one is free and nobody waits for it."""
        if self._free > 0 and not (self._waiting[0] or self._waiting[1]):
            self._free -= 1
            return True
        return False

    async def wait(self, urgent: bool) -> None:
        """Wait for a slot in turn."""
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting[0 if urgent else 1].append(turn)
        try:
            await turn
        except BaseException:
            if turn.done() and not turn.cancelled():
                self.release()  # given a slot, but cancelled: pass it on
            raise

    async def acquire(self, urgent: bool) -> None:
        """Take a slot, waiting in turn if none is free."""
        if not self.take_now():
            await self.wait(urgent)

    def release(self) -> None:
        """Give the slot to the next waiting (urgent first), or back."""
        for queue in self._waiting:
            while queue:
                turn = queue.popleft()
                if not turn.done():
                    turn.set_result(None)
                    return
        self._free += 1


class LeanRequest(BaseRequest):
    """PTB's ``BaseRequest`` on asyncio streams: HTTP/1.1, a keep-alive connection pool per
    (scheme, host, port), ``https`` verified with the system's CA certificates.

    At most ``connections`` requests are in flight; the others wait in turn, except answers to
    button presses, which go first (Telegram drops an answer later than ~15 s; edits may wait,
    they coalesce). Waiting longer than the pool timeout raises ``TimedOut``; pass
    ``pool_timeout=None`` to wait for as long as it takes.

    Timeouts mean what they mean for ``HTTPXRequest``: the read and write timeouts apply to each
    socket operation, the connect timeout to opening a connection (TLS handshake included),
    the pool timeout to waiting for a free slot. ``media_write_timeout`` is the write timeout
    of uploads. ``ssl_context`` replaces ``ssl.create_default_context()`` for ``https`` (a
    private CA, say). Proxies are not supported: use ``HTTPXRequest`` for them.
    """

    __slots__ = (
        "_active",
        "_closed",
        "_connect_timeout",
        "_connections",
        "_gate",
        "_idle",
        "_media_write_timeout",
        "_pool_timeout",
        "_read_timeout",
        "_ssl",
        "_targets",
        "_write_timeout",
    )

    def __init__(
        self,
        connections: int = 32,
        read_timeout: float | None = 5.0,
        write_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
        pool_timeout: float | None = 1.0,
        media_write_timeout: float | None = 20.0,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        if connections < 1:
            raise ValueError("connections must be at least 1")
        self._connections = connections
        self._read_timeout = read_timeout
        self._write_timeout = write_timeout
        self._connect_timeout = connect_timeout
        self._pool_timeout = pool_timeout
        self._media_write_timeout = media_write_timeout
        self._gate = Gate(connections)
        self._idle: dict[tuple[str, str, int], deque[_Conn]] = {}
        """Idle connections per (scheme, host, port), the most recently used last."""
        self._active: set[_Conn] = set()
        self._targets: dict[tuple[str, str], _Target] = {}
        self._ssl = ssl_context
        self._closed = False
        if any(os.environ.get(v) for v in PROXY_VARIABLES):
            # httpx would go through the proxy; say so rather than connect directly unnoticed
            # (not naming the proxy: its URL may hold credentials)
            log.warning("a proxy is configured in the environment, but LeanRequest ignores it")

    @property
    def read_timeout(self) -> float | None:
        """The default read timeout (see ``BaseRequest.read_timeout``)."""
        return self._read_timeout

    async def initialize(self) -> None:
        """Make the request usable again after ``shutdown`` (connections open lazily)."""
        self._closed = False

    async def shutdown(self) -> None:
        """Close every connection; requests in flight fail, later ones raise RuntimeError."""
        if self._closed:
            return
        self._closed = True
        for conn in self._active:
            conn.abort()
        self._active.clear()
        idle = [conn for conns in self._idle.values() for conn in conns]
        self._idle.clear()
        for conn in idle:
            conn.close()
        if idle:  # let TLS say goodbye, briefly
            waits = [asyncio.ensure_future(_wait_closed(conn.writer)) for conn in idle]
            _, pending = await asyncio.wait(waits, timeout=1.0)
            for task in pending:
                task.cancel()

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        """See ``BaseRequest.do_request``: the status code and the body, whatever the status."""
        if self._closed:
            raise RuntimeError("This LeanRequest is shut down; initialize() it to use it again")
        target = self._targets.get((method, url))
        if target is None:
            target = self._target(method, url)
        files = request_data.multipart_data if request_data else None
        if isinstance(read_timeout, DefaultValue):
            read_timeout = self._read_timeout
        if isinstance(connect_timeout, DefaultValue):
            connect_timeout = self._connect_timeout
        if isinstance(pool_timeout, DefaultValue):
            pool_timeout = self._pool_timeout
        if isinstance(write_timeout, DefaultValue):
            write_timeout = self._media_write_timeout if files else self._write_timeout
        payload = _encode(target.head, request_data, files)

        task = asyncio.current_task()
        if task is None:
            raise RuntimeError("LeanRequest.do_request must run in an asyncio task")
        call = _Call(task.get_loop(), task)
        cancelling = task.cancelling()
        try:
            await self._acquire(url.endswith(_URGENT_SUFFIX), call, pool_timeout)
            try:
                return await self._send(
                    target, payload, call, read_timeout, write_timeout, connect_timeout
                )
            finally:
                self._release()
        except asyncio.CancelledError:
            # Our timer's cancellation (and nobody else's) is a timeout, as in asyncio.timeout.
            if not call.fired or task.uncancel() > cancelling:
                raise
            if call.phase == "pool":
                raise TimedOut(_POOL_TIMEOUT_MESSAGE) from None
            raise TimedOut(f"Timed out ({call.phase} timeout, {target.name})") from None
        finally:
            call.disarm()

    def _target(self, method: str, url: str) -> _Target:
        target = _Target(method, url)
        if len(self._targets) >= 1024:  # only a handful of URLs exist; file downloads add more
            self._targets.clear()
        self._targets[(method, url)] = target
        return target

    async def _acquire(self, urgent: bool, call: _Call, pool_timeout: float | None) -> None:
        """Take an in-flight slot, waiting in turn (answers to presses first) if none is free."""
        if self._gate.take_now():
            return
        if pool_timeout is not None:
            call.arm("pool", pool_timeout)
        await self._gate.wait(urgent)
        if pool_timeout is not None:
            call.arm("", None)

    def _release(self) -> None:
        self._gate.release()

    async def _send(
        self,
        target: _Target,
        payload: list[bytes],
        call: _Call,
        read_timeout: float | None,
        write_timeout: float | None,
        connect_timeout: float | None,
    ) -> tuple[int, bytes]:
        """One exchange on an idle connection or a new one; a stale idle one is replaced once."""
        conn = self._take_idle(target.key)
        reused = conn is not None
        try:
            while True:
                if conn is None:
                    conn = await self._connect(target, call, connect_timeout)
                if self._closed:
                    conn.abort()
                    raise RuntimeError("This LeanRequest was shut down")
                self._active.add(conn)
                try:
                    status, body, keep = await _exchange(
                        conn, payload, call, read_timeout, write_timeout
                    )
                except _NoResponse as exc:
                    self._drop(conn)
                    conn = None
                    if reused and not self._closed:
                        # The server closed the kept-alive connection as we sent: it has seen
                        # nothing, so sending again is safe.
                        reused = False
                        log.debug("stale connection to %s; retrying", target.where)
                        continue
                    raise _ProtocolError(f"connection lost before the response: {exc}") from exc
                except BaseException:
                    self._drop(conn)  # half-used (cancelled, timed out, garbled): never reuse
                    raise
                self._active.discard(conn)
                if keep and not self._closed:
                    self._put_idle(target.key, conn)
                else:
                    conn.close()
                return status, body
        except _ProtocolError as exc:
            raise NetworkError(
                f"LeanRequest: {target.name} to {target.where} failed: {exc}"
            ) from exc
        except TimeoutError as exc:  # the OS gave up (ETIMEDOUT), not our timer
            raise TimedOut(f"Timed out ({target.name} to {target.where}: {exc})") from exc
        except OSError as exc:  # refused, reset, DNS, TLS...
            raise NetworkError(
                f"LeanRequest: {target.name} to {target.where} failed: {type(exc).__name__}: {exc}"
            ) from exc

    async def _connect(self, target: _Target, call: _Call, connect_timeout: float | None) -> _Conn:
        call.arm("connect", connect_timeout)
        if target.tls:
            if self._ssl is None:
                self._ssl = ssl.create_default_context()  # loading CAs takes ms: once, lazily
            reader, writer = await asyncio.open_connection(
                target.host,
                target.port,
                ssl=self._ssl,
                server_hostname=target.host,
                limit=MAX_HEADER_BYTES,
                happy_eyeballs_delay=0.25,
            )
        else:
            reader, writer = await asyncio.open_connection(
                target.host, target.port, limit=MAX_HEADER_BYTES, happy_eyeballs_delay=0.25
            )
        log.debug("connected to %s", target.where)
        return _Conn(reader, writer)

    def _take_idle(self, key: tuple[str, str, int]) -> _Conn | None:
        idle = self._idle.get(key)
        if not idle:
            return None
        now = time.monotonic()
        while idle:
            conn = idle.pop()
            if now - conn.idle_since < IDLE_TTL and conn.usable():
                return conn
            conn.close()  # too old, or closed by the server: try the next
        return None

    def _put_idle(self, key: tuple[str, str, int], conn: _Conn) -> None:
        now = time.monotonic()
        conn.idle_since = now
        idle = self._idle.get(key)
        if idle is None:
            idle = self._idle[key] = deque()
        # Shed the oldest while busy: with LIFO reuse they would otherwise idle forever.
        while idle and (now - idle[0].idle_since >= IDLE_TTL or len(idle) >= self._connections):
            idle.popleft().close()
        idle.append(conn)

    def _drop(self, conn: _Conn) -> None:
        self._active.discard(conn)
        conn.abort()


async def _wait_closed(writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(Exception):
        await writer.wait_closed()


def _quote_plus(value: str) -> bytes:
    """``urllib.parse.quote_plus(value)`` as bytes, several times faster."""
    if not value.rstrip(_URL_SAFE_STR):
        return value.encode("ascii")
    raw = value.encode()
    cells = bytearray(3 * len(raw))
    cells[0::3] = raw.translate(_QUOTE_LEAD)
    cells[1::3] = raw.translate(_QUOTE_HI)
    cells[2::3] = raw.translate(_QUOTE_LO)
    return bytes(cells.translate(None, b"\0"))


def _json_parameters(request_data: RequestData) -> dict[str, str]:
    """``request_data.json_parameters``, which JSON-encodes each value twice; PTB documents
    encoding ``parameters`` like this instead."""
    return {
        name: value if isinstance(value, str) else json.dumps(value)
        for name, value in request_data.parameters.items()
    }


def _form_param(value: str) -> bytes:
    return value.translate(_FORM_ESCAPES).encode()


def _encode(
    head: bytes, request_data: RequestData | None, files: UploadFileDict | None
) -> list[bytes]:
    """The request as bytes to write: form fields URL-encoded, or multipart with the files
    (as httpx encodes ``data=`` and ``files=``)."""
    fields = _json_parameters(request_data) if request_data else None
    if files:
        boundary = os.urandom(16).hex().encode("ascii")
        parts: list[bytes] = []
        for name, value in (fields or {}).items():
            parts += (
                b'--%s\r\nContent-Disposition: form-data; name="%s"\r\n\r\n'
                % (boundary, _form_param(name)),
                value.encode(),
                b"\r\n",
            )
        for name, (filename, content, mimetype) in files.items():
            disposition = b'--%s\r\nContent-Disposition: form-data; name="%s"' % (
                boundary,
                _form_param(name),
            )
            if filename:
                disposition += b'; filename="%s"' % _form_param(filename)
            if mimetype:
                disposition += b"\r\nContent-Type: " + mimetype.translate(_FORM_ESCAPES).encode()
            if not isinstance(content, bytes):
                with contextlib.suppress(OSError):  # io.UnsupportedOperation: not seekable
                    content.seek(0)
                content = content.read()
            parts += (disposition, b"\r\n\r\n", content, b"\r\n")
        parts.append(b"--%s--\r\n" % boundary)
        length = sum(len(part) for part in parts)
        content_type = b"multipart/form-data; boundary=" + boundary
        return [
            head,
            b"Content-Type: %s\r\nContent-Length: %d\r\n\r\n" % (content_type, length),
            *parts,
        ]
    if fields:
        body = b"&".join(_quote_plus(k) + b"=" + _quote_plus(v) for k, v in fields.items())
        return [
            head
            + b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n"
            % len(body)
            + body
        ]
    if head.startswith(b"GET "):
        return [head + b"\r\n"]
    return [head + b"Content-Length: 0\r\n\r\n"]


async def _exchange(
    conn: _Conn,
    payload: list[bytes],
    call: _Call,
    read_timeout: float | None,
    write_timeout: float | None,
) -> tuple[int, bytes, bool]:
    """Write the request, read the response: (status, body, whether to keep the connection)."""
    reader, writer = conn.reader, conn.writer
    try:
        if len(payload) == 1 and len(payload[0]) <= _IO_CHUNK:
            writer.write(payload[0])
            if writer.transport.get_write_buffer_size():
                call.arm("write", write_timeout)  # else drain() can't block: spare the timer
            await writer.drain()
        else:
            for piece in _pieces(payload):
                writer.write(piece)
                call.arm("write", write_timeout)
                await writer.drain()
        call.arm("read", read_timeout)
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as exc:
        if exc.partial:
            raise _ProtocolError("connection closed inside the response head") from exc
        raise _NoResponse("the server closed the connection") from exc
    except (ConnectionResetError, BrokenPipeError, ConnectionAbortedError) as exc:
        if getattr(reader, "_buffer", None):  # part of a response came: it must not be resent
            raise _ProtocolError(f"{type(exc).__name__} inside the response head") from exc
        raise _NoResponse(f"{type(exc).__name__}: {exc}") from exc
    except asyncio.LimitOverrunError as exc:
        raise _ProtocolError(f"response head over {MAX_HEADER_BYTES} bytes") from exc

    try:
        status, http10, headers = _parse_head(head)
        while 100 <= status < 200:  # 100 Continue and friends: the real response follows
            if status == 101:
                raise _ProtocolError("unexpected 101 Switching Protocols")
            call.arm("read", read_timeout)
            status, http10, headers = _parse_head(await reader.readuntil(b"\r\n\r\n"))

        tokens = {t.strip() for t in headers.get(b"connection", b"").lower().split(b",")}
        keep = b"keep-alive" in tokens if http10 else b"close" not in tokens
        coding = headers.get(b"transfer-encoding")
        length = headers.get(b"content-length")
        if status in (204, 304):
            body = b""
        elif coding is not None:
            if coding.lower().rsplit(b",", 1)[-1].strip() == b"chunked":
                body = await _read_chunked(reader, call, read_timeout)
            else:  # a coding we can't frame: the body ends with the connection
                body, keep = await _read_to_eof(reader, call, read_timeout), False
        elif length is not None:
            body = await _read_exactly(reader, _content_length(length), call, read_timeout)
        else:
            body, keep = await _read_to_eof(reader, call, read_timeout), False
        encoding = headers.get(b"content-encoding")
        if encoding is not None:
            body = _decode(body, encoding)
    except asyncio.IncompleteReadError as exc:
        raise _ProtocolError("connection closed inside the response") from exc
    except asyncio.LimitOverrunError as exc:
        raise _ProtocolError(f"response line over {MAX_HEADER_BYTES} bytes") from exc
    return status, body, keep


def _pieces(payload: list[bytes]) -> list[memoryview]:
    """The payload in pieces of at most ``_IO_CHUNK`` bytes, each written within the timeout."""
    pieces: list[memoryview] = []
    for part in payload:
        view = memoryview(part)
        for start in range(0, len(view), _IO_CHUNK):
            pieces.append(view[start : start + _IO_CHUNK])
    return pieces


def _parse_head(head: bytes) -> tuple[int, bool, dict[bytes, bytes]]:
    """(status, whether HTTP/1.0, headers with lower-case names; repeated ones comma-joined)."""
    lines = head[:-4].split(b"\r\n")
    version, _, rest = lines[0].partition(b" ")
    code = rest[:3]
    if (
        version not in (b"HTTP/1.1", b"HTTP/1.0")
        or len(code) != 3
        or not code.isdigit()
        or rest[3:4] not in (b"", b" ")
    ):
        raise _ProtocolError(f"bad status line {lines[0][:80]!r}")
    headers: dict[bytes, bytes] = {}
    name = b""
    for line in lines[1:]:
        if line[:1] in (b" ", b"\t") and name:  # obsolete line folding
            headers[name] += b" " + line.strip()
            continue
        name, colon, value = line.partition(b":")
        name = name.strip().lower()
        if not colon or not name:
            raise _ProtocolError(f"bad header line {line[:80]!r}")
        value = value.strip()
        if name in headers:
            headers[name] += b", " + value
        else:
            headers[name] = value
    return int(code), version == b"HTTP/1.0", headers


def _content_length(value: bytes) -> int:
    values = {v.strip() for v in value.split(b",")}
    if len(values) != 1:
        raise _ProtocolError("conflicting Content-Length headers")
    length = values.pop()
    if not length.isdigit():
        raise _ProtocolError(f"bad Content-Length {length[:20]!r}")
    size = int(length)
    if size > MAX_BODY_BYTES:
        raise _ProtocolError(f"response body over {MAX_BODY_BYTES} bytes")
    return size


async def _read_exactly(
    reader: asyncio.StreamReader, size: int, call: _Call, read_timeout: float | None
) -> bytes:
    call.arm("read", read_timeout)
    if size <= _IO_CHUNK:
        return await reader.readexactly(size)
    body = bytearray()
    while len(body) < size:
        chunk = await reader.read(min(size - len(body), _IO_CHUNK))
        if not chunk:
            raise asyncio.IncompleteReadError(bytes(body), size)
        body += chunk
        call.arm("read", read_timeout)
    return bytes(body)


async def _read_chunked(
    reader: asyncio.StreamReader, call: _Call, read_timeout: float | None
) -> bytes:
    body = bytearray()
    while True:
        call.arm("read", read_timeout)
        size_field = (await reader.readuntil(b"\r\n")).partition(b";")[0].strip()
        if not size_field or len(size_field) > 16 or size_field.strip(_HEX_DIGITS):
            raise _ProtocolError(f"bad chunk size {size_field[:20]!r}")
        size = int(size_field, 16)
        if size == 0:
            break
        if len(body) + size > MAX_BODY_BYTES:
            raise _ProtocolError(f"response body over {MAX_BODY_BYTES} bytes")
        chunk = await _read_exactly(reader, size + 2, call, read_timeout)
        if chunk[-2:] != b"\r\n":
            raise _ProtocolError("chunk not followed by CRLF")
        body += memoryview(chunk)[:-2]
    trailers = 0
    while True:  # trailer fields, ignored
        call.arm("read", read_timeout)
        line = await reader.readuntil(b"\r\n")
        if line == b"\r\n":
            return bytes(body)
        trailers += len(line)
        if trailers > MAX_HEADER_BYTES:
            raise _ProtocolError(f"trailers over {MAX_HEADER_BYTES} bytes")


async def _read_to_eof(
    reader: asyncio.StreamReader, call: _Call, read_timeout: float | None
) -> bytes:
    body = bytearray()
    while True:
        call.arm("read", read_timeout)
        chunk = await reader.read(_IO_CHUNK)
        if not chunk:
            return bytes(body)
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise _ProtocolError(f"response body over {MAX_BODY_BYTES} bytes")


def _decode(body: bytes, encoding: bytes) -> bytes:
    """Undo gzip/deflate; we don't ask for them, but a server may send them anyway. Unknown
    codings are passed through, as httpx does."""
    for coding in reversed(encoding.lower().split(b",")):
        coding = coding.strip()
        if coding in (b"gzip", b"x-gzip"):
            body = _inflate(body, 16 + zlib.MAX_WBITS)
        elif coding == b"deflate":
            try:
                body = _inflate(body, zlib.MAX_WBITS)
            except _ProtocolError:  # some servers send raw deflate
                body = _inflate(body, -zlib.MAX_WBITS)
    return body


def _inflate(body: bytes, wbits: int) -> bytes:
    inflater = zlib.decompressobj(wbits)
    try:
        out = inflater.decompress(body, MAX_BODY_BYTES + 1)
    except zlib.error as exc:
        raise _ProtocolError(f"bad compressed body: {exc}") from exc
    if len(out) > MAX_BODY_BYTES:
        raise _ProtocolError(f"response body over {MAX_BODY_BYTES} bytes")
    return out
