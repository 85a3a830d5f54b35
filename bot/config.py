"""Settings from the environment."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Config", "ConfigError", "DEFAULT_DATABASE"]

DEFAULT_DATABASE = "preferans.sqlite3"
_TOKEN = re.compile(r"[0-9]{1,20}:[A-Za-z0-9_-]{1,200}")


class ConfigError(ValueError):
    """A missing or bad setting; the message is one line for people."""


@dataclass(frozen=True, slots=True)
class Config:
    """How to run the bot.

    ``BOT_TOKEN`` (required), ``DATABASE_PATH`` (default ``preferans.sqlite3`` in the working
    directory) or ``DATABASE_URL`` (a PostgreSQL database, ``postgres://…``; it wins),
    ``TELEGRAM_API_URL`` (a self-hosted Bot API server or a test server),
    ``WEBHOOK_URL`` (webhook mode instead of long polling; with ``PORT``, default 8443,
    ``WEBHOOK_LISTEN``, default 0.0.0.0, and ``WEBHOOK_SECRET``), ``LOG_LEVEL``,
    ``OVERALL_RATE`` (requests per second to all chats together, default 30, Telegram's
    documented bulk limit; ``0``: no overall limit, only the per-chat ones).
    ``WEBAPP_URL`` (the public https address of the table's Mini App, e.g.
    ``https://pref.example.com/app/``; off without it), served on ``WEBAPP_PORT`` (default
    ``PORT``, else 8080) at ``WEBAPP_LISTEN`` (default 0.0.0.0), or with a webhook on the
    webhook's port; ``WEBAPP_MAX_AGE``: seconds Telegram's signature of a user stays good
    (default a day). docs/webapp.md.

    For tests (docs/operating.md, "Settings for tests"): ``PREFERANS_SEED`` (an integer:
    every table's deals follow from it and the table's id, so two runs deal the same cards),
    ``PREFERANS_DEFAULTS`` (JSON: the lobby's default settings, e.g. ``{"pulka": 2}``),
    ``PREFERANS_PACING=off`` (no pacing of outgoing messages: only against a fake Bot API)
    and ``PREFERANS_ANALYSIS=off`` (no «🔍» analysis button under deal reviews: no
    worker process is started for it, as the in-process test harness runs the bot).
    """

    token: str
    database_path: str = DEFAULT_DATABASE
    database_url: str | None = None
    api_url: str | None = None
    webhook_url: str | None = None
    webhook_listen: str = "0.0.0.0"
    webhook_port: int = 8443
    webhook_secret: str | None = None
    log_level: str = "INFO"
    seed: int | None = None
    table_defaults: dict[str, Any] = field(default_factory=dict)
    pacing: bool = True
    overall_rate: float = 30.0
    analysis: bool = True
    webapp_url: str | None = None
    webapp_listen: str = "0.0.0.0"
    webapp_port: int = 8080
    webapp_max_age: int = 86_400

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Config:
        env = os.environ if env is None else env
        token = env.get("BOT_TOKEN", "").strip()
        if not token:
            raise ConfigError(
                "BOT_TOKEN is not set: put the token from @BotFather in the BOT_TOKEN "
                "environment variable"
            )
        if not _TOKEN.fullmatch(token):  # it goes into every request's URL: nothing else
            raise ConfigError(
                "BOT_TOKEN is malformed: it must look like 123456789:AAH... (digits, a colon, "
                "then letters, digits, '_' or '-'; no spaces, slashes or line breaks)"
            )
        port_text = env.get("PORT", "8443").strip() or "8443"
        try:
            port = int(port_text)
        except ValueError:
            raise ConfigError(f"PORT must be a number, not {port_text!r}") from None
        rate_text = env.get("OVERALL_RATE", "").strip() or "30"
        try:
            overall_rate = float(rate_text)
        except ValueError:
            overall_rate = -1.0
        if not overall_rate >= 0:  # also NaN
            raise ConfigError(
                f"OVERALL_RATE must be a number of requests per second (0: no limit), "
                f"not {rate_text!r}"
            )
        webapp_url = env.get("WEBAPP_URL", "").strip() or None
        if webapp_url is not None and not webapp_url.startswith("https://"):
            raise ConfigError(
                f"WEBAPP_URL must be an https:// address (Telegram opens Mini Apps only over "
                f"https), not {webapp_url!r}"
            )
        webapp_port = _whole(env, "WEBAPP_PORT", env.get("PORT", "").strip() or "8080")
        webapp_max_age = _whole(env, "WEBAPP_MAX_AGE", "86400")
        webhook_url = env.get("WEBHOOK_URL", "").strip() or None
        database_url = env.get("DATABASE_URL", "").strip() or None
        if database_url is not None and not database_url.startswith(
            ("postgres://", "postgresql://")
        ):
            raise ConfigError(
                "DATABASE_URL must be a PostgreSQL URL (postgres://user:password@host/name); "
                "for a SQLite file set DATABASE_PATH instead"
            )
        return cls(
            token=token,
            database_path=env.get("DATABASE_PATH", "").strip() or DEFAULT_DATABASE,
            database_url=database_url,
            api_url=env.get("TELEGRAM_API_URL", "").strip() or None,
            webhook_url=webhook_url,
            webhook_listen=env.get("WEBHOOK_LISTEN", "").strip() or "0.0.0.0",
            webhook_port=port,
            webhook_secret=env.get("WEBHOOK_SECRET", "").strip() or None,
            log_level=env.get("LOG_LEVEL", "").strip().upper() or "INFO",
            seed=_seed(env.get("PREFERANS_SEED", "").strip()),
            table_defaults=_defaults(env.get("PREFERANS_DEFAULTS", "").strip()),
            pacing=_on(env.get("PREFERANS_PACING", "")),
            overall_rate=overall_rate,
            analysis=_on(env.get("PREFERANS_ANALYSIS", "")),
            webapp_url=webapp_url,
            webapp_listen=env.get("WEBAPP_LISTEN", "").strip() or "0.0.0.0",
            webapp_port=webapp_port,
            webapp_max_age=webapp_max_age,
        )

    @property
    def database(self) -> str:
        """The database the bot uses: ``DATABASE_URL`` if set, else ``DATABASE_PATH``."""
        return self.database_url or self.database_path

    @property
    def base_url(self) -> str | None:
        """PTB's ``base_url`` for :attr:`api_url` (``…/bot``, the token is appended)."""
        if not self.api_url:
            return None
        url = self.api_url.rstrip("/")
        return url if url.endswith("/bot") else url + "/bot"

    @property
    def base_file_url(self) -> str | None:
        if not self.api_url:
            return None
        url = self.api_url.rstrip("/")
        if url.endswith("/bot"):
            url = url[: -len("/bot")]
        return url + "/file/bot"


def _whole(env: Mapping[str, str], key: str, default: str) -> int:
    """A whole number of the environment (``default`` when unset)."""
    text = env.get(key, "").strip() or default
    if not text.isdigit():
        raise ConfigError(f"{key} must be a whole number, not {text!r}")
    return int(text)


def _on(text: str) -> bool:
    """A test switch: on unless ``off``, ``0`` or ``no``."""
    return text.strip().lower() not in ("off", "0", "no")


def _seed(text: str) -> int | None:
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise ConfigError(f"PREFERANS_SEED must be an integer, not {text!r}") from None


def _defaults(text: str) -> dict[str, Any]:
    if not text:
        return {}
    from bot.core.codec import settings_from_json

    try:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        _check_defaults(data)
        settings_from_json(data).rules()
    except Exception as exc:
        raise ConfigError(f"PREFERANS_DEFAULTS is not valid table settings: {exc}") from None
    return data


def _check_defaults(data: dict[str, Any]) -> None:
    """Raise ``ValueError`` unless every key is a table setting with a value the lobby
    could have chosen (a turn time up to the longest offered, a pulka up to the longest)."""
    from bot.core.model import SETTING_CHOICES, SHEET_MODES

    known = {"players", "convention", "pulka", "turn_time", "options", "lang", "sheet"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(unknown)}")

    def whole(key: str, low: int, high: int) -> None:
        value = data.get(key, low)
        if type(value) is not int or not low <= value <= high:
            raise ValueError(f"{key} must be a whole number from {low} to {high}")

    whole("turn_time", 0, max(v for v in SETTING_CHOICES["turn_time"] if isinstance(v, int)))
    whole("pulka", 1, max(v for v in SETTING_CHOICES["pulka"] if isinstance(v, int)))
    if data.get("players", 3) not in (3, 4) or type(data.get("players", 3)) is not int:
        raise ValueError("players must be 3 or 4")
    if data.get("lang", "ru") not in SETTING_CHOICES["lang"]:
        raise ValueError("lang must be ru or en")
    if data.get("sheet", "picture") not in SHEET_MODES:
        raise ValueError(f"sheet must be one of {', '.join(SHEET_MODES)}")
    if not isinstance(data.get("options", {}), dict):
        raise ValueError("options must be a JSON object")
