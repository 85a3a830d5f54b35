"""The bot's own HTTP front on asyncio's streams: the limits every public port keeps.

Used by the webhook's server (:mod:`bot.telegram.webhook`) and, in polling mode, in front
of the Mini App's server (:mod:`bot.webapp.server`). Neither PTB's tornado server nor
aiohttp's has a cap on open connections or a time limit for a request's headers (1,100
slow sockets used up the descriptors, and the accept loop then logged an ERROR on every
turn); here every limit is ours:

- a request's line and headers must arrive within :attr:`Limits.idle` seconds and
  :attr:`Limits.head` bytes; what the handler reads of the body, within the same time;
- at most :attr:`Limits.connections` connections wait for their headers or an answer
  (a quarter of the descriptors if fewer): one more closes the oldest still waiting for
  its headers (a slow socket), so a real request always gets in; with none waiting, the
  new one is closed unread;
- a request the handler hands on (:class:`PassTo`) goes, headers first, to a server on
  the loopback, and its bytes are passed both ways until either side closes (a WebSocket
  lives long): at most :attr:`Limits.passed` such connections at once (an eighth of the
  descriptors if fewer: each holds three); one more closes the oldest the server behind
  has not vouched for (:func:`vouch`: a signed user's socket), so that sockets opened and
  left silent cannot keep the players out; with every one vouched for, it gets ``503``;
- any other answer is a status with an optional JSON body, one per connection
  (``Connection: close``);
- the accept loop's "out of descriptors" error is one WARNING until accepting works again.

At start the soft limit on descriptors is raised to the hard one (at most
:data:`DESCRIPTORS`), as Go's runtime does: a service manager's default soft limit of 1,024
would otherwise cap the connections well below the numbers above.
"""

from __future__ import annotations

import asyncio
import logging
import os
import resource
import time
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.config import ConfigError

__all__ = ["Front", "Head", "Limits", "PassTo", "Answer", "vouch", "IDLE", "HEADERS"]

log = logging.getLogger(__name__)

IDLE = 10.0
"""Seconds a connection may take to deliver its request's headers (and a body read)."""
HEADERS = 16 * 1024
"""Bytes of request line and headers at most."""
MAX_CONNECTIONS = 256
"""Connections waiting for their headers or an answer (Telegram uses up to 40)."""
MAX_PASSED = 1024
"""Connections handed to the server behind at once (a WebSocket each open page)."""
DESCRIPTORS = 65_536
"""The soft limit on descriptors is raised to at most this."""
CHUNK = 1 << 16


@dataclass(frozen=True)
class Limits:
    """A front's limits (the caps are lowered to fit the descriptors, see the module)."""

    idle: float = IDLE
    head: int = HEADERS
    connections: int = MAX_CONNECTIONS
    passed: int = MAX_PASSED


@dataclass(frozen=True)
class Head:
    """A request's line and headers as they came."""

    method: str
    target: str
    headers: dict[str, str]
    """Names in lower case."""
    raw: bytes

    @property
    def path(self) -> str:
        return self.target.split("?", 1)[0]


@dataclass(frozen=True)
class PassTo:
    """The request goes to the server at ``host:port`` (on the loopback)."""

    host: str
    port: int


Answer = int | tuple[int, bytes] | PassTo
"""A status, a status with a JSON body, or the request handed on."""
Handler = Callable[[Head, asyncio.StreamReader], Awaitable[Answer]]
_Stream = tuple[asyncio.StreamReader, asyncio.StreamWriter]
Link = tuple[str, int, int]
"""A connection handed on as the server behind sees it: its peer's address and port, and
its own port."""

_LISTENING: weakref.WeakSet[Front] = weakref.WeakSet()


def vouch(link: Link) -> None:
    """The server behind a front vouches for a connection it was handed (a signed user's
    socket): it is no longer among the first to close when every place is taken."""
    for front in _LISTENING:
        front.handed.pop(link, None)


class _Passed:
    """A request handed on (``upstream``: the connection to the server behind)."""

    def __init__(self, upstream: _Stream, link: Link) -> None:
        self.upstream = upstream
        self.link = link


class _AcceptErrors(logging.Filter):
    """asyncio logs "socket.accept() out of system resource" with a traceback each second
    while descriptors run out; here it is one WARNING until a connection is accepted."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name_ = name
        self.told = False

    def filter(self, record: logging.LogRecord) -> bool:
        if not str(record.msg).startswith("socket.accept() out of system resource"):
            return True
        if self.told:
            return False
        self.told = True
        exc = record.exc_info[1] if record.exc_info else None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        record.msg = f"{self.name_}: cannot accept connections (%s); waiting"
        record.args = (exc,)
        record.exc_info, record.exc_text = None, None
        return True


class Front:
    """A listening socket whose every connection keeps :class:`Limits`; ``handle`` answers
    each request from its head (reading a body itself, if it wants one)."""

    def __init__(self, name: str, handle: Handler, limits: Limits | None = None) -> None:
        self.name = name
        """In the log's lines ("webhook", "mini app")."""
        self.handle = handle
        self.limits = limits or Limits()
        self.server: asyncio.Server | None = None
        self.port = 0
        """The port it listens on, once started."""
        self.waiting: OrderedDict[asyncio.StreamWriter, None] = OrderedDict()
        """Open connections still waiting for their headers, oldest first."""
        self.open = 0
        """Connections waiting for their headers or an answer (not those handed on)."""
        self.passed = 0
        """Connections handed on, open now."""
        self.handed: OrderedDict[Link, asyncio.StreamWriter] = OrderedDict()
        """Connections handed on that nobody vouched for yet, oldest first."""
        self.cap, self.passed_cap = self._caps()
        self.accept_errors = _AcceptErrors(name)

    def _caps(self) -> tuple[int, int]:
        soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        cap = min(self.limits.connections, max(16, soft // 4))
        return cap, min(self.limits.passed, max(16, soft // 8))

    async def start(self, listen: str, port: int) -> None:
        """Listen (a port that cannot be had is a :class:`ConfigError`, one line)."""
        _raise_descriptor_limit()
        self.cap, self.passed_cap = self._caps()
        logging.getLogger("asyncio").addFilter(self.accept_errors)
        try:
            self.server = await asyncio.start_server(
                self._connection, listen, port, limit=self.limits.head, backlog=128
            )
        except OSError as exc:  # the port is taken, say: one line, as a bad setting
            logging.getLogger("asyncio").removeFilter(self.accept_errors)
            why = os.strerror(exc.errno) if exc.errno else str(exc)
            raise ConfigError(f"the {self.name} cannot listen on {listen}:{port}: {why}") from None
        self.port = int(self.server.sockets[0].getsockname()[1])
        _LISTENING.add(self)

    def close(self) -> None:
        """Stop listening and drop the connections waiting for their headers."""
        logging.getLogger("asyncio").removeFilter(self.accept_errors)
        _LISTENING.discard(self)
        if self.server is not None:
            self.server.close()
            for writer in list(self.waiting):
                writer.transport.abort()
            self.server = None

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accept_errors.told = False  # accepting works again
        if self.open >= self.cap:
            if not self.waiting:  # every slot is a request being answered: no room
                writer.transport.abort()
                return
            oldest = next(iter(self.waiting))  # the slowest to send its headers
            del self.waiting[oldest]
            oldest.transport.abort()
        self.open += 1
        self.waiting[writer] = None
        passed: _Passed | None = None
        try:
            async with asyncio.timeout(self.limits.idle):
                try:
                    answer = await self._request(reader, writer)
                except asyncio.LimitOverrunError:
                    answer = 431
                if isinstance(answer, _Passed):
                    passed = answer
                    self.open -= 1  # counted among the passed ones from now on
                else:
                    writer.write(
                        _response(*answer) if isinstance(answer, tuple) else _response(answer)
                    )
                    await writer.drain()
            if passed is not None:  # no time limit once its headers came
                await _both_ways((reader, writer), passed.upstream)
            writer.close()  # after the answer: an unread body is dropped with the socket
        except (TimeoutError, ConnectionError, asyncio.IncompleteReadError):
            pass  # a slow or broken client: dropped below
        finally:
            self.waiting.pop(writer, None)
            if passed is not None:
                self.passed -= 1
                self.handed.pop(passed.link, None)
                passed.upstream[1].transport.abort()
            else:
                self.open -= 1
            if not writer.transport.is_closing():
                writer.transport.abort()

    async def _request(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> int | tuple[int, bytes] | _Passed:
        """Read one request's head and answer it."""
        raw = await reader.readuntil(b"\r\n\r\n")
        self.waiting.pop(writer, None)  # a request arrived: no longer a slow socket
        lines = raw.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3:
            return 400
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if sep:
                headers[name.strip().lower()] = value.strip()
        answer = await self.handle(Head(parts[0], parts[1], headers, raw), reader)
        if isinstance(answer, PassTo):
            return await self._pass(raw, answer, writer)
        return answer

    async def _pass(self, raw: bytes, to: PassTo, client: asyncio.StreamWriter) -> int | _Passed:
        """A connection to the server behind, the request's head sent on."""
        if self.passed >= self.passed_cap:
            if not self.handed:
                return 503
            _link, oldest = self.handed.popitem(last=False)
            oldest.transport.abort()
        try:
            upstream = await asyncio.open_connection(to.host, to.port)
        except OSError as exc:
            log.warning("%s: %s:%d cannot be reached: %s", self.name, to.host, to.port, exc)
            return 503
        self.passed += 1
        host, port = upstream[1].get_extra_info("sockname")[:2]
        link = (host, port, to.port)
        self.handed[link] = client
        upstream[1].write(raw)
        return _Passed(upstream, link)


def _raise_descriptor_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = DESCRIPTORS if hard == resource.RLIM_INFINITY else min(hard, DESCRIPTORS)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError) as exc:  # a sandbox may refuse: the caps follow soft
            log.debug("the descriptor limit stays %d: %s", soft, exc)


async def _both_ways(client: _Stream, upstream: _Stream) -> None:
    """Bytes passed between the client and the server behind until either side closes."""

    async def one_way(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        try:
            while data := await source.read(CHUNK):
                sink.write(data)
                await sink.drain()
        except ConnectionError:
            pass
        finally:
            sink.close()  # what is written goes out first; the other way ends with it

    await asyncio.gather(one_way(client[0], upstream[1]), one_way(upstream[0], client[1]))


_REASONS = {
    200: "OK",
    400: "Bad Request",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    411: "Length Required",
    413: "Content Too Large",
    431: "Request Header Fields Too Large",
    503: "Service Unavailable",
}


def _response(status: int, body: bytes = b"") -> bytes:
    date = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime())
    kind = "Content-Type: application/json\r\nCache-Control: no-store\r\n" if body else ""
    return (
        f"HTTP/1.1 {status} {_REASONS[status]}\r\nDate: {date}\r\n{kind}"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode("ascii") + body
