"""The Mini App's ``initData``, checked as Telegram documents it ("Validating data received
via the Mini App"): standard library only.

The page hands the server the query string Telegram gave it. Its ``hash`` is the hex
HMAC-SHA256 of the data-check-string (every other field as ``key=value``, sorted, joined
by line feeds) under the key HMAC-SHA256(key=``WebAppData``, msg=bot token). Whoever lacks
the bot token cannot sign a user, so the user it names is the one who opened the page.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode

__all__ = ["WebAppUser", "AuthError", "StaleAuth", "check_init_data", "sign", "MAX_AGE", "SKEW"]

MAX_AGE = 86_400
"""Seconds a signed ``initData`` stays good (``WEBAPP_MAX_AGE``): Telegram signs it when the
page opens, so a day covers a long evening at one table."""
SKEW = 60
"""Seconds ``auth_date`` may lie ahead of our clock (clocks differ a little, never more)."""
MAX_LENGTH = 4096
"""Longest ``initData`` read (Telegram's is a few hundred bytes)."""


class AuthError(ValueError):
    """``initData`` that names nobody: unsigned, forged, malformed. The message says why
    (for the log; the page is told only that it was refused)."""


class StaleAuth(AuthError):
    """Signed by Telegram, but too old (or dated in the future)."""


@dataclass(frozen=True, slots=True)
class WebAppUser:
    """The user Telegram signed."""

    id: int
    first_name: str
    last_name: str = ""
    username: str = ""
    language_code: str | None = None

    @property
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}".strip()


def _secret(bot_token: str) -> bytes:
    return hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()


def _check_string(fields: dict[str, str]) -> str:
    return "\n".join(f"{k}={v}" for k, v in sorted(fields.items()) if k != "hash")


def sign(fields: dict[str, str], bot_token: str) -> str:
    """``fields`` as Telegram would hand them to the page: a query string with its ``hash``
    (for tests and tools that open the page without Telegram)."""
    digest = hmac.new(_secret(bot_token), _check_string(fields).encode(), hashlib.sha256)
    return urlencode({**fields, "hash": digest.hexdigest()})


def check_init_data(
    init_data: str, bot_token: str, *, now: float, max_age: float = MAX_AGE
) -> WebAppUser:
    """The user ``init_data`` names, once its signature and age are checked; raises
    :class:`StaleAuth` (signed but too old or dated ahead) or :class:`AuthError`."""
    if not isinstance(init_data, str) or not init_data:
        raise AuthError("no initData")
    if len(init_data) > MAX_LENGTH:
        raise AuthError("initData too long")
    try:
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise AuthError("initData is not a query string") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise AuthError("a field repeats")  # which one would be signed is unclear
    received = fields.get("hash")
    if not received:
        raise AuthError("no hash")
    expected = hmac.new(_secret(bot_token), _check_string(fields).encode(), hashlib.sha256)
    if not hmac.compare_digest(expected.hexdigest(), received.lower()):
        raise AuthError("wrong hash")
    # signed by Telegram from here on: what is wrong below is old or odd, not forged
    try:
        auth_date = int(fields["auth_date"])
    except (KeyError, ValueError):
        raise AuthError("no auth_date") from None
    if now - auth_date > max_age:
        raise StaleAuth(f"signed {int(now - auth_date)} s ago")
    if auth_date - now > SKEW:
        raise StaleAuth(f"dated {int(auth_date - now)} s ahead")
    return _user(fields.get("user"))


def _user(raw: str | None) -> WebAppUser:
    if raw is None:
        raise AuthError("no user")
    try:
        data = json.loads(raw)
    except ValueError:
        raise AuthError("user is not JSON") from None
    if not isinstance(data, dict):
        raise AuthError("user is not an object")
    user_id = data.get("id")
    if type(user_id) is not int or user_id <= 0:
        raise AuthError("user has no id")
    lang = data.get("language_code")
    return WebAppUser(
        id=user_id,
        first_name=_text(data.get("first_name")),
        last_name=_text(data.get("last_name")),
        username=_text(data.get("username")),
        language_code=lang if isinstance(lang, str) else None,
    )


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
