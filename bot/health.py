"""``GET /healthz`` in webhook mode: whether the database and Telegram answer.

For a container's ``HEALTHCHECK``, a load balancer or a platform's health probe: ``200``
with ``{"ok": true, "database": "ok", "telegram": "ok"}``, or ``503`` with what failed
(one short line each, never a secret). Each check has :data:`TIMEOUT` seconds.

The route is added to the webhook's own HTTP server (python-telegram-bot's tornado
application), so it answers on the webhook's port: :func:`enable` wraps the application
class the updater builds.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from telegram.ext import Application

__all__ = ["check", "enable", "TIMEOUT", "PATH"]

log = logging.getLogger(__name__)

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


def enable(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Serve :data:`PATH` beside the webhook when ``app.run_webhook`` starts its server."""
    import tornado.web
    from telegram.ext import _updater  # the module that builds the webhook's application

    base: Any = getattr(_updater, "WebhookAppClass")  # noqa: B009 (not exported)

    class Health(tornado.web.RequestHandler):
        async def get(self) -> None:
            healthy, report = await check(app)
            if not healthy:
                log.warning("health check failed: %s", report)
            self.set_status(200 if healthy else 503)
            self.set_header("Content-Type", "application/json")
            self.set_header("Cache-Control", "no-store")
            self.finish(json.dumps(report))

    class WithHealth(base):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.wildcard_router.add_rules([(PATH, Health)])

    if not getattr(base, "with_health", False):
        WithHealth.with_health = True
        setattr(_updater, "WebhookAppClass", WithHealth)  # noqa: B010
