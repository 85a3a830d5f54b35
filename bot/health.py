"""``GET /healthz`` in webhook mode: whether the database and Telegram answer.

For a container's ``HEALTHCHECK``, a load balancer or a platform's health probe: ``200``
with ``{"ok": true, "database": "ok", "telegram": "ok"}``, or ``503`` with what failed
(one short line each, never a secret). Each check has :data:`TIMEOUT` seconds.

The webhook's own HTTP server (:mod:`bot.telegram.webhook`) answers it on the webhook's
port.
"""

from __future__ import annotations

import asyncio
from typing import Any

from telegram.ext import Application

__all__ = ["check", "TIMEOUT", "PATH"]

TIMEOUT = 5.0
PATH = "/healthz"


async def check(app: Application[Any, Any, Any, Any, Any, Any]) -> tuple[bool, dict[str, Any]]:
    """``(healthy, report)``: a query on the database and ``getMe`` on Telegram."""
    report: dict[str, Any] = {}

    async def database() -> None:
        storage = app.bot_data.get("storage")
        if storage is None:
            raise RuntimeError("not open yet")
        await storage.schema_version()

    for name, probe in (("database", database), ("telegram", app.bot.get_me)):
        try:
            await asyncio.wait_for(probe(), TIMEOUT)
        except Exception as exc:  # any failure is the report, not an error of the server
            text = "timed out" if isinstance(exc, TimeoutError) else str(exc)
            report[name] = f"error: {type(exc).__name__}: {text}"[:200]
        else:
            report[name] = "ok"
    healthy = all(v == "ok" for v in report.values())
    return healthy, {"ok": healthy, **report}
