"""Settings from the environment."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["Config", "ConfigError", "DEFAULT_DATABASE"]

DEFAULT_DATABASE = "preferans.sqlite3"


class ConfigError(ValueError):
    """A missing or bad setting; the message is one line for people."""


@dataclass(frozen=True, slots=True)
class Config:
    """How to run the bot.

    ``BOT_TOKEN`` (required), ``DATABASE_PATH`` (default ``preferans.sqlite3`` in the working
    directory), ``TELEGRAM_API_URL`` (a self-hosted Bot API server or a test server),
    ``WEBHOOK_URL`` (webhook mode instead of long polling; with ``PORT``, default 8443,
    ``WEBHOOK_LISTEN``, default 0.0.0.0, and ``WEBHOOK_SECRET``), ``LOG_LEVEL``.
    """

    token: str
    database_path: str = DEFAULT_DATABASE
    api_url: str | None = None
    webhook_url: str | None = None
    webhook_listen: str = "0.0.0.0"
    webhook_port: int = 8443
    webhook_secret: str | None = None
    log_level: str = "INFO"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Config:
        env = os.environ if env is None else env
        token = env.get("BOT_TOKEN", "").strip()
        if not token:
            raise ConfigError(
                "BOT_TOKEN is not set: put the token from @BotFather in the BOT_TOKEN "
                "environment variable"
            )
        port_text = env.get("PORT", "8443").strip() or "8443"
        try:
            port = int(port_text)
        except ValueError:
            raise ConfigError(f"PORT must be a number, not {port_text!r}") from None
        return cls(
            token=token,
            database_path=env.get("DATABASE_PATH", "").strip() or DEFAULT_DATABASE,
            api_url=env.get("TELEGRAM_API_URL", "").strip() or None,
            webhook_url=env.get("WEBHOOK_URL", "").strip() or None,
            webhook_listen=env.get("WEBHOOK_LISTEN", "").strip() or "0.0.0.0",
            webhook_port=port,
            webhook_secret=env.get("WEBHOOK_SECRET", "").strip() or None,
            log_level=env.get("LOG_LEVEL", "").strip().upper() or "INFO",
        )

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
