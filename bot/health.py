"""``GET /healthz`` in webhook mode: whether the database and Telegram answer.

For a container's ``HEALTHCHECK``, a load balancer or a platform's health probe: ``200``
with ``{"ok": true, "database": "ok", "telegram": "ok"}``, or ``503`` with what failed
(one short line each, never a secret). Both checks run at once, each within
:data:`TIMEOUT` seconds.

The webhook's own HTTP server (:mod:`bot.telegram.webhook`) answers it on the webhook's
port.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from telegram.ext import Application

__all__ = ["check", "TIMEOUT", "PATH"]

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


async def _probe(call: Callable[[], Awaitable[object]]) -> str:
    """``"ok"``, or what failed in one short line."""
    try:
        await asyncio.wait_for(call(), TIMEOUT)
    except Exception as exc:  # any failure is the report, not an error of the server
        text = "timed out" if isinstance(exc, TimeoutError) else str(exc)
        return f"error: {type(exc).__name__}: {text}"[:200]
    return "ok"
