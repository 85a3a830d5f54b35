"""Webhook mode: a small HTTP server for Telegram's POSTs, with every limit enforced.

Why not PTB's ``run_webhook``: its tornado server reads a whole body (up to 100 MB) into
memory before the secret is checked (8 bodies of 99 MB with a wrong secret took the bot
from 75 to 906 MB), has no limit on open connections and no time limit for a request's
headers (1,100 slow sockets used up the descriptors, and tornado's accept loop then logged
an ERROR on every turn: 165 MB of log in 30 s), logs a malformed update at CRITICAL with
its whole body, and PTB exposes none of tornado's limits. aiohttp's server (a dependency
already) has no connection limit nor a time limit for headers either. Telegram sends one
small JSON POST at a time, so a server on asyncio's streams is a few dozen lines in which
every limit is ours:

- the secret, the path, the method and ``Content-Length`` (at most :data:`MAX_BODY`) are
  checked from the headers, before a byte of the body is read;
- headers and body must arrive within :data:`IDLE` seconds, headers within 16 KiB;
- at most :data:`MAX_CONNECTIONS` connections are open (half the descriptors if fewer);
  one more closes the oldest still waiting for its headers (a slow socket), so a real
  request always gets in;
- one request per connection (``Connection: close``);
- without ``WEBHOOK_SECRET`` a random secret is made at start and given to ``setWebhook``
  (a forged update without it is refused);
- a malformed update is one WARNING line without its content;
- the accept loop's "out of descriptors" error is one WARNING until accepting works again;
- ``GET /healthz`` answers whether the database and Telegram do (:mod:`bot.health`), for a
  container's ``HEALTHCHECK`` or a platform's probe, without the secret; requests that
  come while a check runs wait for that one (one ``getMe`` however many ask);
- with the Mini App on (``WEBAPP_URL``), a request under :data:`APP_PATH` is handed, once
  its headers came in time, to the Mini App's own server on the loopback (docs/webapp.md):
  its bytes are passed both ways until either side closes (a WebSocket lives long), at most
  :data:`MAX_PASSED` such connections at once; so one port serves the webhook, the Mini App
  and ``/healthz``.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import os
import resource
import secrets
import time
from collections import OrderedDict
from typing import Any
from urllib.parse import urlsplit

from telegram import Update

from bot import health
from bot.config import Config, ConfigError
from bot.telegram.running import ALLOWED_UPDATES, App

__all__ = ["Webhook", "MAX_BODY", "MAX_CONNECTIONS", "IDLE"]

log = logging.getLogger(__name__)

MAX_BODY = 1 << 20
"""Bytes an update may have (Telegram's are a few KiB; a message is at most 4,096 characters
with as many entities)."""
MAX_CONNECTIONS = 256
"""Connections open at once (Telegram uses up to 40, ``setWebhook``'s ``max_connections``)."""
IDLE = 10.0
"""Seconds a connection may take to deliver its request's headers and body."""
HEADERS = 16 * 1024
"""Bytes of request line and headers at most."""
SECRET_HEADER = "x-telegram-bot-api-secret-token"
APP_PATH = "/app/"
"""Where the Mini App's requests go (:mod:`bot.webapp.server`)."""
MAX_PASSED = 1024
"""Mini App connections open at once (each holds two descriptors: capped at a quarter of
the descriptors if fewer)."""
CHUNK = 1 << 16


class _AcceptErrors(logging.Filter):
    """asyncio logs "socket.accept() out of system resource" with a traceback each second
    while descriptors run out; here it is one WARNING until a connection is accepted."""

    def __init__(self) -> None:
        super().__init__()
        self.told = False

    def filter(self, record: logging.LogRecord) -> bool:
        if not str(record.msg).startswith("socket.accept() out of system resource"):
            return True
        if self.told:
            return False
        self.told = True
        exc = record.exc_info[1] if record.exc_info else None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        record.msg, record.args = "webhook: cannot accept connections (%s); waiting", (exc,)
        record.exc_info, record.exc_text = None, None
        return True


class Webhook:
    """The webhook's server and its registration with Telegram."""

    def __init__(self, config: Config) -> None:
        assert config.webhook_url is not None
        self.url = config.webhook_url
        self.path = "/" + urlsplit(config.webhook_url).path.lstrip("/")
        self.listen = config.webhook_listen
        self.port = config.webhook_port
        self.secret = config.webhook_secret or secrets.token_urlsafe(32)
        """Telegram sends it in every POST; made here when the operator gave none."""
        self.generated = config.webhook_secret is None
        self.server: asyncio.Server | None = None
        self.waiting: OrderedDict[asyncio.StreamWriter, None] = OrderedDict()
        """Open connections still waiting for their headers, oldest first."""
        self.open = 0
        soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        self.cap = min(MAX_CONNECTIONS, max(16, soft // 2))
        """Connections open at most: the bot's other files keep their descriptors."""
        self.passed = 0
        """Connections handed to the Mini App, open now."""
        self.passed_cap = min(MAX_PASSED, max(16, soft // 4))
        self.accept_errors = _AcceptErrors()
        self.app: App | None = None
        self.health: asyncio.Future[tuple[bool, dict[str, Any]]] | None = None
        """The health check under way (or the last one)."""

    async def start(self, app: App) -> None:
        """Listen, then register the webhook (Telegram may POST at once)."""
        self.app = app
        logging.getLogger("asyncio").addFilter(self.accept_errors)
        try:
            self.server = await asyncio.start_server(
                self._connection, self.listen, self.port, limit=HEADERS, backlog=128
            )
        except OSError as exc:  # the port is taken, say: one line, as a bad setting
            where = f"{self.listen}:{self.port}"
            why = os.strerror(exc.errno) if exc.errno else str(exc)
            raise ConfigError(f"the webhook cannot listen on {where}: {why}") from None
        await app.bot.set_webhook(
            url=self.url,
            allowed_updates=ALLOWED_UPDATES,
            secret_token=self.secret,
            max_connections=40,
        )
        if self.generated:
            log.info("webhook: no WEBHOOK_SECRET set; a random one was given to Telegram")

    async def stop(self, app: App) -> None:
        """Stop listening and drop the open connections (Telegram sends again what it did
        not get an answer to)."""
        logging.getLogger("asyncio").removeFilter(self.accept_errors)
        if self.health is not None:
            self.health.cancel()  # a check under way is nobody's any more
        if self.server is not None:
            self.server.close()
            for writer in list(self.waiting):
                writer.transport.abort()
            self.server = None

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accept_errors.told = False  # accepting works again
        self.open += 1
        upstream: _Stream | None = None
        if self.open > self.cap and self.waiting:
            oldest = next(iter(self.waiting))
            del self.waiting[oldest]
            oldest.transport.abort()
        self.waiting[writer] = None
        try:
            async with asyncio.timeout(IDLE):
                try:
                    answer = await self._request(reader, writer)
                except asyncio.LimitOverrunError:
                    answer = 431
                if isinstance(answer, _Passed):
                    upstream = answer.upstream
                else:
                    upstream = None
                    writer.write(
                        _response(*answer) if isinstance(answer, tuple) else _response(answer)
                    )
                    await writer.drain()
            if upstream is not None:  # the Mini App's: no time limit once its headers came
                await _both_ways((reader, writer), upstream)
            writer.close()  # after the answer: an unread body is dropped with the socket
        except (TimeoutError, ConnectionError, asyncio.IncompleteReadError):
            pass  # a slow or broken client: dropped below
        finally:
            self.waiting.pop(writer, None)
            self.open -= 1
            if upstream is not None:
                self.passed -= 1
                upstream[1].transport.abort()
            if not writer.transport.is_closing():
                writer.transport.abort()

    async def _request(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> int | tuple[int, bytes] | _Passed:
        """Read and handle one request; its HTTP status, with a JSON body where it has one."""
        head = await reader.readuntil(b"\r\n\r\n")
        self.waiting.pop(writer, None)  # a request arrived: no longer a slow socket
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3:
            return 400
        method, target, _version = parts
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if sep:
                headers[name.strip().lower()] = value.strip()
        where = target.split("?", 1)[0]
        if where == health.PATH and method == "GET" and self.app is not None:
            healthy, report = await self._health(self.app)
            return 200 if healthy else 503, json.dumps(report).encode()
        if where.startswith(APP_PATH) and where != self.path:
            return await self._pass(head)
        if where != self.path:
            return 404
        if method != "POST":
            return 405
        given = headers.get(SECRET_HEADER, "")
        if not hmac.compare_digest(given.encode("latin-1"), self.secret.encode()):
            return 403
        if "transfer-encoding" in headers:
            return 411  # Telegram sends Content-Length
        try:
            length = int(headers.get("content-length", ""))
        except ValueError:
            return 411
        if not 0 < length <= MAX_BODY:
            return 413 if length > MAX_BODY else 400
        body = await reader.readexactly(length)
        return await self._update(body)

    async def _pass(self, head: bytes) -> int | _Passed:
        """A Mini App request: a connection to its server, its headers sent on."""
        miniapp = self.app.bot_data.miniapp if self.app is not None else None
        if miniapp is None:
            return 404
        if self.passed >= self.passed_cap:
            return 503
        try:
            upstream = await asyncio.open_connection(miniapp.listen, miniapp.port)
        except OSError as exc:
            log.warning("webhook: the mini app cannot be reached: %s", exc)
            return 503
        self.passed += 1
        upstream[1].write(head)
        return _Passed(upstream)

    async def _health(self, app: App) -> tuple[bool, dict[str, Any]]:
        """The health check; requests that come while one runs share it: ``/healthz``
        needs no secret, and each check's ``getMe`` counts against the rate limit the
        game's messages share."""
        if self.health is None or self.health.done():
            self.health = asyncio.ensure_future(_checked(app))
        return await asyncio.shield(self.health)  # a dropped request leaves it to the others

    async def _update(self, body: bytes) -> int:
        assert self.app is not None
        try:
            data = json.loads(body)
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            update = Update.de_json(data, self.app.bot)
        except Exception as exc:  # noqa: BLE001 - a bad update is refused, not a crash
            log.warning("webhook: a malformed update (%d bytes) refused: %s", len(body), _why(exc))
            return 400
        await self.app.update_queue.put(update)
        return 200


_Stream = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class _Passed:
    """A request handed to the Mini App's server (``upstream``)."""

    def __init__(self, upstream: _Stream) -> None:
        self.upstream = upstream


async def _both_ways(client: _Stream, upstream: _Stream) -> None:
    """Bytes passed between the client and the Mini App until either side closes."""

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


async def _checked(app: App) -> tuple[bool, dict[str, Any]]:
    healthy, report = await health.check(app)
    if not healthy:
        log.warning("health check failed: %s", report)
    return healthy, report


def _why(exc: Exception) -> str:
    """The error in one short line, without the update's content."""
    return type(exc).__name__ + (f" at {exc.pos}" if isinstance(exc, json.JSONDecodeError) else "")


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
