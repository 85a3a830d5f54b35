"""``python -m bot.healthcheck``: exit 0 when the running bot is healthy (a container's
``HEALTHCHECK``).

In webhook mode (``WEBHOOK_URL``) it asks the bot's own ``/healthz`` on ``PORT``; in long
polling, where the bot serves no HTTP, it checks what the bot needs itself: the database
can be read (its schema version) and Telegram answers ``getMe`` for the token. One line
on failure; the token is never printed.
"""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request

from bot.config import Config, ConfigError
from bot.health import PATH, TIMEOUT

__all__ = ["main"]


def _webhook(config: Config) -> str | None:
    host = "127.0.0.1" if config.webhook_listen in ("0.0.0.0", "::", "") else config.webhook_listen
    url = f"http://{host}:{config.webhook_port}{PATH}"
    try:
        with urllib.request.urlopen(url, timeout=2 * TIMEOUT + 2) as response:
            json.loads(response.read())
            return None
    except urllib.error.HTTPError as exc:
        return f"{PATH} answered {exc.code}: {exc.read()[:300].decode(errors='replace')}"
    except (OSError, ValueError) as exc:
        return f"{PATH} cannot be reached: {exc}"


def _polling(config: Config) -> str | None:
    from storage import StorageError, check_schema

    try:
        check_schema(config.database)
    except StorageError as exc:
        return f"database: {exc}"
    base = (config.base_url or "https://api.telegram.org/bot") + config.token
    try:
        with urllib.request.urlopen(base + "/getMe", timeout=TIMEOUT) as response:
            if not json.loads(response.read()).get("ok"):
                return "telegram: getMe was refused"
    except urllib.error.HTTPError as exc:
        return f"telegram: getMe answered {exc.code}"
    except (OSError, ValueError) as exc:
        return f"telegram: cannot be reached ({type(exc).__name__})"  # the URL holds the token
    return None


def main() -> int:
    try:
        config = Config.from_env()
    except ConfigError as exc:
        print(f"unhealthy: {exc}", file=sys.stderr)
        return 1
    problem = _webhook(config) if config.webhook_url else _polling(config)
    if problem is not None:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
