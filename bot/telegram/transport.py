"""The Bot API transport: python-telegram-bot's ``BaseRequest`` on one aiohttp session.

At most ``connections`` requests are in flight; the others wait at a :class:`Gate`, where
answers to button presses go first: Telegram drops an answer later than ~15 s, while message
edits may wait (the outbox coalesces them). PTB's default client (httpx) costs several times
as much CPU per call (tests/perf/README.md), and the bot makes several calls per press.

A proxy is read from the environment once, at construction, by the standard library
(``urllib.request.getproxies``, as curl and httpx read it): ``HTTPS_PROXY``/``https_proxy``
for ``https`` URLs, ``HTTP_PROXY``/``http_proxy`` for ``http`` ones, ``ALL_PROXY``/
``all_proxy`` for both, ``NO_PROXY``/``no_proxy`` to bypass (``urllib.request.
proxy_bypass_environment``). Only HTTP(S) proxies are supported (aiohttp's ``proxy=``,
CONNECT for ``https``); a SOCKS proxy is refused at start-up rather than silently bypassed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
import urllib.request
from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import urlsplit

import aiohttp
from aiohttp.abc import AbstractStreamWriter
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

from bot.config import ConfigError
from bot.telegram.gate import Gate

__all__ = ["AiohttpRequest", "UnsupportedProxy", "read_proxies"]

log = logging.getLogger(__name__)

IDLE_TTL: Final = 30.0
"""Seconds an idle kept-alive connection waits for reuse before it is closed."""

_URGENT_SUFFIX: Final = "/answerCallbackQuery"
_POOL_TIMEOUT_MESSAGE: Final = (
    "Pool timeout: All connections in the connection pool are occupied. Request was *not* sent "
    "to Telegram. Consider adjusting the connection pool size or the pool timeout."
)
# Writing a body this small only fills the socket's buffer, which never blocks: no need to
# time it (aiohttp pauses writing above 64 KiB by default).
_UNTIMED_WRITE_BYTES: Final = 64 * 1024
_JSON: Final = "application/json"


class UnsupportedProxy(ConfigError):
    """The environment names a proxy this transport cannot use (SOCKS, say); ``python -m
    bot`` prints it as one line and exits, like any bad setting."""


class _Target:
    """What one URL resolves to (cached: a handful of Bot API URLs are used over and over)."""

    __slots__ = ("mask", "name", "proxy", "urgent", "where")

    def __init__(self, url: str, proxies: Mapping[str, str]) -> None:
        parts = urlsplit(url)
        self.urgent = url.endswith(_URGENT_SUFFIX)
        path = parts.path
        # Only the API method's name may appear in errors and logs, never the path: it holds
        # the token (``/bot<token>/<method>``, ``/file/bot<token>/<file path>``).
        segments = path.split("/")
        self.mask = next((s[3:] for s in segments if s.startswith("bot") and ":" in s), "")
        last = segments[-1]
        if path.startswith("/file/"):
            self.name = "file download"
        elif last.isascii() and last.isalnum() and len(last) <= 64:
            self.name = last
        else:
            self.name = "request"
        try:
            self.where = f"{parts.hostname}:{parts.port or ''}".rstrip(":")
        except ValueError:  # a bad port
            self.where = str(parts.hostname)
        scheme = parts.scheme.lower()
        self.proxy: str | None = proxies.get(scheme) or proxies.get("all")
        # NO_PROXY as urllib reads it (its function is public, but not in typeshed)
        bypass = urllib.request.proxy_bypass_environment  # type: ignore[attr-defined]
        if self.proxy is not None and bypass(parts.netloc.rpartition("@")[2], dict(proxies)):
            self.proxy = None

    def masked(self, text: str) -> str:
        return text.replace(self.mask, "<token>") if self.mask else text


def read_proxies(proxies: Mapping[str, str] | None = None) -> dict[str, str]:
    """The proxy settings as ``urllib.request.getproxies()`` reads them from this process's
    environment (``proxies``: given instead, for tests): scheme (``https``, ``http``,
    ``all``) -> proxy URL, ``no`` -> the bypass list.

    Raises :class:`UnsupportedProxy` for a proxy that is not HTTP(S).
    """
    found = dict(urllib.request.getproxies() if proxies is None else proxies)
    for scheme in ("https", "http", "all"):
        url = found.get(scheme)
        if url and urlsplit(url).scheme.lower() not in ("http", "https"):
            # not naming the proxy: its URL may hold a password
            raise UnsupportedProxy(
                f"the {scheme} proxy set in the environment is not an HTTP(S) proxy; "
                "the Bot API transport (aiohttp) supports only HTTP(S) proxies"
            )
    return found


class _TimedPayload(aiohttp.Payload):
    """Another payload, written within ``seconds`` (aiohttp itself has no write timeout).

    aiohttp writes a body in its own task; the ``TimeoutError`` raised here reaches the
    caller as the request's error (aiohttp keeps timeouts apart from other write errors).
    """

    def __init__(self, inner: aiohttp.Payload, seconds: float) -> None:
        super().__init__(inner, headers=inner.headers)
        self._inner = inner
        self._seconds = seconds
        self._size = inner.size
        self.timed_out = False

    def decode(self, encoding: str = "utf-8", errors: str = "strict") -> str:
        return self._inner.decode(encoding, errors)

    async def write(self, writer: AbstractStreamWriter) -> None:
        await self.write_with_length(writer, None)

    async def write_with_length(
        self, writer: AbstractStreamWriter, content_length: int | None
    ) -> None:
        try:
            async with asyncio.timeout(self._seconds):
                await self._inner.write_with_length(writer, content_length)
        except TimeoutError:
            self.timed_out = True
            raise

    async def close(self) -> None:
        await self._inner.close()


class AiohttpRequest(BaseRequest):
    """PTB's ``BaseRequest`` on one ``aiohttp.ClientSession``: kept-alive connections, no
    cookie jar, ``https`` verified with the system's CA certificates (or ``ssl_context``).

    At most ``connections`` requests are in flight; the others wait in turn, answers to
    button presses first. Waiting longer than the pool timeout raises ``TimedOut``; pass
    ``pool_timeout=None`` to wait for as long as it takes.

    Timeouts mean what they mean for PTB's ``HTTPXRequest``: the connect timeout bounds
    opening a connection (TLS and the proxy's CONNECT included), the read timeout each wait
    for the server's bytes, the pool timeout the wait for a slot; the write timeout bounds
    writing a large body (``media_write_timeout`` for uploads) -- a body under 64 KiB only
    fills the socket's buffer, which never waits. The proxy is read once, here, from the
    process's environment (``proxies``: the settings instead, for tests).
    """

    __slots__ = (
        "_closed",
        "_connect_timeout",
        "_connections",
        "_gate",
        "_media_write_timeout",
        "_pool_timeout",
        "_proxies",
        "_read_timeout",
        "_session",
        "_ssl",
        "_targets",
        "_timeouts",
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
        proxies: Mapping[str, str] | None = None,
    ) -> None:
        if connections < 1:
            raise ValueError("connections must be at least 1")
        self._connections = connections
        self._read_timeout = read_timeout
        self._write_timeout = write_timeout
        self._connect_timeout = connect_timeout
        self._pool_timeout = pool_timeout
        self._media_write_timeout = media_write_timeout
        self._ssl = ssl_context
        self._proxies = read_proxies(proxies)
        self._gate = Gate(connections)
        self._session: aiohttp.ClientSession | None = None
        self._closed = False
        self._targets: dict[str, _Target] = {}
        self._timeouts: dict[tuple[float | None, float | None], aiohttp.ClientTimeout] = {}
        if self.uses_proxy:
            log.info("Bot API requests go through the proxy set in the environment")

    @property
    def read_timeout(self) -> float | None:
        """The default read timeout (see ``BaseRequest.read_timeout``)."""
        return self._read_timeout

    @property
    def uses_proxy(self) -> bool:
        """Whether a proxy was found in the environment (for start-up checks and tests)."""
        return any(self._proxies.get(scheme) for scheme in ("https", "http", "all"))

    async def initialize(self) -> None:
        """Open the session (again, after ``shutdown``)."""
        self._closed = False
        if self._session is None:
            self._session = self._new_session()

    async def shutdown(self) -> None:
        """Close the session; requests in flight fail, later ones raise RuntimeError."""
        self._closed = True
        session, self._session = self._session, None
        if session is not None:
            await session.close()

    def _new_session(self) -> aiohttp.ClientSession:
        connector = aiohttp.TCPConnector(
            limit=self._connections,
            limit_per_host=self._connections,
            keepalive_timeout=IDLE_TTL,
            ssl=self._ssl if self._ssl is not None else True,
        )
        return aiohttp.ClientSession(
            connector=connector,
            cookie_jar=aiohttp.DummyCookieJar(),  # the Bot API sets no cookies; keep none
            headers={"User-Agent": self.USER_AGENT},
            timeout=aiohttp.ClientTimeout(total=None),  # per request, from the arguments
            trust_env=False,  # the proxy was read once, in __init__
        )

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = BaseRequest.DEFAULT_NONE,
        write_timeout: Any = BaseRequest.DEFAULT_NONE,
        connect_timeout: Any = BaseRequest.DEFAULT_NONE,
        pool_timeout: Any = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        """See ``BaseRequest.do_request``: the status code and the body, whatever the status."""
        session = self._session
        if session is None:
            if self._closed:
                raise RuntimeError("This AiohttpRequest is shut down; initialize() it again")
            session = self._session = self._new_session()
        target = self._targets.get(url)
        if target is None:
            target = self._target(url)
        # ``BaseRequest.DEFAULT_NONE`` means "not passed": use this request's defaults
        default = BaseRequest.DEFAULT_NONE
        if read_timeout is default:
            read_timeout = self._read_timeout
        if connect_timeout is default:
            connect_timeout = self._connect_timeout
        if pool_timeout is default:
            pool_timeout = self._pool_timeout
        body: aiohttp.Payload | None = None
        if request_data is not None:
            if request_data.contains_files:
                if write_timeout is default:
                    write_timeout = self._media_write_timeout
                body = _multipart(request_data)
            elif request_data.parameters:
                body = aiohttp.BytesPayload(request_data.json_payload, content_type=_JSON)
        if write_timeout is default:
            write_timeout = self._write_timeout
        if body is not None and write_timeout is not None:
            if body.size is None or body.size > _UNTIMED_WRITE_BYTES:
                body = _TimedPayload(body, write_timeout)
        timeout = self._timeouts.get((connect_timeout, read_timeout))
        if timeout is None:
            timeout = aiohttp.ClientTimeout(
                total=None, connect=connect_timeout, sock_read=read_timeout
            )
            self._timeouts[(connect_timeout, read_timeout)] = timeout

        gate = self._gate
        if not gate.take_now():
            try:
                async with asyncio.timeout(pool_timeout):
                    await gate.wait(target.urgent)
            except TimeoutError:
                raise TimedOut(_POOL_TIMEOUT_MESSAGE) from None
        failure: str | None = None
        timed_out = False
        try:
            async with session.request(
                method,
                url,
                data=body,
                timeout=timeout,
                proxy=target.proxy,
                allow_redirects=False,
            ) as response:
                return response.status, await response.read()
        except TimeoutError as exc:  # aiohttp's, or the body's write timeout
            timed_out = True
            failure = _timeout_phase(exc, body)
        except (aiohttp.ClientError, OSError, ValueError) as exc:
            failure = f"{type(exc).__name__}: {exc}"
        finally:
            gate.release()
        # Raised outside the ``except``: aiohttp's messages may quote the URL, which holds the
        # token, and a chained exception would carry it into logs.
        if timed_out:
            raise TimedOut(f"Timed out ({failure}, {target.name})")
        raise NetworkError(
            f"Bot API transport: {target.name} to {target.where} failed: "
            + target.masked(str(failure))
        )

    def _target(self, url: str) -> _Target:
        target = _Target(url, self._proxies)
        if len(self._targets) >= 1024:  # only a handful of URLs exist; file downloads add more
            self._targets.clear()
        self._targets[url] = target
        return target


def _timeout_phase(exc: BaseException, body: aiohttp.Payload | None) -> str:
    if isinstance(body, _TimedPayload) and body.timed_out:
        return "write timeout"
    if isinstance(exc, aiohttp.ConnectionTimeoutError):
        return "connect timeout"
    if isinstance(exc, aiohttp.SocketTimeoutError):
        return "read timeout"
    return "timeout"


def _multipart(request_data: RequestData) -> aiohttp.Payload:
    """The parameters and files as ``multipart/form-data`` (as httpx encodes ``files=``)."""
    form = aiohttp.FormData()
    for name, value in request_data.json_parameters.items():
        form.add_field(name, value)
    for name, (filename, content, mimetype) in request_data.multipart_data.items():
        if not isinstance(content, bytes):
            with contextlib.suppress(OSError):  # io.UnsupportedOperation: not seekable
                content.seek(0)  # uploads start from the beginning, as with httpx
            content = content.read()
        form.add_field(name, content, filename=filename, content_type=mimetype)
    return form()
