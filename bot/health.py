"""``GET /healthz`` in webhook mode: whether the database and Telegram answer.

For a container's ``HEALTHCHECK``, a load balancer or a platform's health probe: ``200``
with ``{"ok": true, "database": "ok", "telegram": "ok"}``, or ``503`` with what failed
(one short line each, never a secret). Both checks run at once, each within
:data:`TIMEOUT` seconds.

The webhook's own HTTP server (:mod:`bot.telegram.webhook`) answers it on the webhook's
port; in polling mode the Mini App's server does, on its own port (:mod:`bot.webapp.server`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from telegram.ext import Application

__all__ = ["check", "Shared", "TIMEOUT", "PATH"]

log = logging.getLogger(__name__)

Report = tuple[bool, dict[str, Any]]

TIMEOUT = 5.0
PATH = "/healthz"


async def check(app: Application[Any, Any, Any, Any, Any, Any]) -> tuple[bool, dict[str, Any]]:
    """``(healthy, report)``: a query on the database and ``getMe`` on Telegram."""

    async def database() -> None:
        storage = app.bot_data.storage
        if storage is None:
            raise RuntimeError("not open yet")
        await storage.schema_version()

    # side by side: the answer comes within TIMEOUT, inside the webhook's time for a request
    db, telegram = await asyncio.gather(_probe(database), _probe(app.bot.get_me))
    report = {"database": db, "telegram": telegram}
    healthy = all(v == "ok" for v in report.values())
    return healthy, {"ok": healthy, **report}


class Shared:
    """The check as ``/healthz`` runs it: requests that come while one runs wait for that
    one (``/healthz`` needs no secret, and each check's ``getMe`` counts against the rate
    limit the game's messages share: one ``getMe`` however many ask)."""

    def __init__(self, run: Callable[[], Awaitable[Report]]) -> None:
        self.run = run
        self.under_way: asyncio.Future[Report] | None = None
        """The check under way (or the last one)."""

    async def __call__(self) -> Report:
        if self.under_way is None or self.under_way.done():
            self.under_way = asyncio.ensure_future(self._logged())
        return await asyncio.shield(self.under_way)  # a dropped request leaves it to the others

    def cancel(self) -> None:
        """The server stops: a check under way is nobody's any more."""
        if self.under_way is not None:
            self.under_way.cancel()

    async def _logged(self) -> Report:
        healthy, report = await self.run()
        if not healthy:
            log.warning("health check failed: %s", report)
        return healthy, report


async def _probe(call: Callable[[], Awaitable[object]]) -> str:
    """``"ok"``, or what failed in one short line."""
    try:
        await asyncio.wait_for(call(), TIMEOUT)
    except Exception as exc:  # any failure is the report, not an error of the server
        text = "timed out" if isinstance(exc, TimeoutError) else str(exc)
        return f"error: {type(exc).__name__}: {text}"[:200]
    return "ok"
