"""Webhook mode: a small HTTP server for Telegram's POSTs, with every limit enforced.

Why not PTB's ``run_webhook``: its tornado server reads a whole body (up to 100 MB) into
memory before the secret is checked (8 bodies of 99 MB with a wrong secret took the bot
from 75 to 906 MB), has no limit on open connections and no time limit for a request's
headers, logs a malformed update at CRITICAL with its whole body, and PTB exposes none of
tornado's limits. Telegram sends one small JSON POST at a time: the bot's own front
(:mod:`bot.front`: the connection cap, the time and size limits for headers, the accept
loop's error told once) with a handler of a few dozen lines in which every limit is ours:

- the secret, the path, the method and ``Content-Length`` (at most :data:`MAX_BODY`) are
  checked from the headers, before a byte of the body is read; headers and body must
  arrive within :data:`~bot.front.IDLE` seconds;
- without ``WEBHOOK_SECRET`` a random secret is made at start and given to ``setWebhook``
  (a forged update without it is refused);
- a malformed update is one WARNING line without its content;
- ``GET /healthz`` answers whether the database and Telegram do (:mod:`bot.health`), for a
  container's ``HEALTHCHECK`` or a platform's probe, without the secret; requests that
  come while a check runs wait for that one (one ``getMe`` however many ask);
- with the Mini App on (``WEBAPP_URL``), a request under :data:`APP_PATH` is handed, once
  its headers came in time, to the Mini App's own server on the loopback (docs/webapp.md);
  so one port serves the webhook, the Mini App and ``/healthz``.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import secrets
from urllib.parse import urlsplit

from telegram import Update

from bot import health
from bot.config import Config
from bot.front import Answer, Front, Head
from bot.telegram.incoming import slim_update
from bot.telegram.running import ALLOWED_UPDATES, App

__all__ = ["Webhook", "MAX_BODY"]

log = logging.getLogger(__name__)

MAX_BODY = 1 << 20
"""Bytes an update may have (Telegram's are a few KiB; a message is at most 4,096 characters
with as many entities)."""
SECRET_HEADER = "x-telegram-bot-api-secret-token"
APP_PATH = "/app/"
"""Where the Mini App's requests go (:mod:`bot.webapp.server`)."""


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
        self.front = Front("webhook", self._handle)
        self.accept_errors = self.front.accept_errors
        self.app: App | None = None
        self.health = health.Shared(lambda: health.check(self._app()))

    def _app(self) -> App:
        assert self.app is not None
        return self.app

    async def start(self, app: App) -> None:
        """Listen, then register the webhook (Telegram may POST at once)."""
        self.app = app
        await self.front.start(self.listen, self.port)
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
        self.health.cancel()
        self.front.close()

    async def _handle(self, head: Head, reader: asyncio.StreamReader) -> Answer:
        """One request: its HTTP status, with a JSON body where it has one."""
        where = head.path
        if where == health.PATH and head.method == "GET" and self.app is not None:
            healthy, report = await self.health()
            return 200 if healthy else 503, json.dumps(report).encode()
        if where.startswith(APP_PATH) and where != self.path:
            miniapp = self.app.bot_data.miniapp if self.app is not None else None
            return 404 if miniapp is None else miniapp.admit(head)
        if where != self.path:
            return 404
        if head.method != "POST":
            return 405
        given = head.headers.get(SECRET_HEADER, "")
        if not hmac.compare_digest(given.encode("latin-1"), self.secret.encode()):
            return 403
        if "transfer-encoding" in head.headers:
            return 411  # Telegram sends Content-Length
        try:
            length = int(head.headers.get("content-length", ""))
        except ValueError:
            return 411
        if not 0 < length <= MAX_BODY:
            return 413 if length > MAX_BODY else 400
        body = await reader.readexactly(length)
        return await self._update(body)

    async def _update(self, body: bytes) -> int:
        assert self.app is not None
        try:
            data = json.loads(body)
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            update = Update.de_json(slim_update(data), self.app.bot)
        except Exception as exc:  # noqa: BLE001 - a bad update is refused, not a crash
            log.warning("webhook: a malformed update (%d bytes) refused: %s", len(body), _why(exc))
            return 400
        await self.app.update_queue.put(update)
        return 200


def _why(exc: Exception) -> str:
    """The error in one short line, without the update's content."""
    return type(exc).__name__ + (f" at {exc.pos}" if isinstance(exc, json.JSONDecodeError) else "")
