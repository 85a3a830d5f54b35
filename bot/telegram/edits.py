"""Sending and editing a message's text without parsing Telegram's answer.

``Bot.edit_message_text`` and ``Bot.send_message`` turn the message that Telegram sends back
into a ``telegram.Message`` (every entity and button of it), and the outbox and the text
sheet read at most its ``message_id``. For an edit that was ~10% of the bot's CPU per press
in the end-to-end tests, as edits are most of its requests; for a sent hand message it is
~0.9 ms of CPU (``Message.de_json`` of a hand message with its keyboard, timed alone). So
they send the same requests through python-telegram-bot's public ``Bot.do_api_request``
(defaults and the errors as usual), which returns the answer as it came.
With the keyboards below, the end-to-end tests of the hostile fuzz, privacy, e2e, robots
and turn-notify files make 7.6% fewer Python function calls than with the typed sends
(cProfile, 37.5M -> 34.7M).

PTB sends an object parameter (the keyboard, the link preview options) as the JSON text of
its ``to_dict()``; the outbox needs that text of a keyboard anyway, to tell whether a message
already shows it, so it passes the text (:func:`markup_json`) and PTB sends it as it is:
the keyboard is serialised once instead of twice (~0.12 ms for a hand's keyboard), the
preview options never (~35 us a request, timed alone). tests/telegram/test_edits.py checks
that the request bodies are byte for byte the ones ``edit_message_text`` and
``send_message`` send.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from typing import Any

from telegram import InlineKeyboardMarkup, LinkPreviewOptions
from telegram.constants import ParseMode
from telegram.warnings import PTBUserWarning

__all__ = [
    "NO_PREVIEW",
    "digest",
    "edit_text",
    "markup_json",
    "send_text",
    "ignore_typed_method_advice",
    "ADVICE",
]

NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
"""No link previews: the bot's messages (texts, the sheet) are never about a link."""
_NO_PREVIEW_JSON = json.dumps(NO_PREVIEW.to_dict())


ADVICE = r"Please use 'Bot\.(editMessageText|sendMessage)'"
"""What ``do_api_request`` warns for the two endpoints sent untyped here."""


def ignore_typed_method_advice() -> None:
    """Silence ``do_api_request``'s advice to use the typed method for an endpoint the
    library knows: here the untyped answer is the point. Called at the start, not at
    import (importing a module changes no global state)."""
    warnings.filterwarnings(
        "ignore",
        message=ADVICE,
        category=PTBUserWarning,
    )


def markup_json(markup: InlineKeyboardMarkup | None) -> str | None:
    """``markup`` as PTB writes it into a request (``None``: no keyboard)."""
    return None if markup is None else json.dumps(markup.to_dict())


def digest(text: str, markup: str | None) -> str:
    """A short digest of what a message shows: its text and its keyboard as
    :func:`markup_json` wrote it. Stored, so that after a restart a message that already
    shows what it must is not edited again (16 hex digits: a clash is as good as never)."""
    return hashlib.blake2b(f"{text}\x00{markup or ''}".encode(), digest_size=8).hexdigest()


async def edit_text(
    bot: Any, chat_id: int, message_id: int | None, text: str, markup: str | None
) -> None:
    """``bot.edit_message_text(text, chat_id=..., message_id=..., parse_mode=HTML,
    reply_markup=..., link_preview_options=NO_PREVIEW)`` with the keyboard as
    :func:`markup_json` wrote it, the answer left unparsed."""
    await bot.do_api_request(
        "editMessageText",
        api_kwargs={  # in the order edit_message_text writes them
            "text": text,
            "chat_id": chat_id,
            "message_id": message_id,
            "link_preview_options": _NO_PREVIEW_JSON,
            "parse_mode": ParseMode.HTML,
            "reply_markup": markup,
        },
    )


async def send_text(
    bot: Any, chat_id: int, text: str, markup: str | None, *, silent: bool | None = None
) -> int:
    """``bot.send_message(chat_id, text, parse_mode=HTML, reply_markup=...,
    link_preview_options=NO_PREVIEW, disable_notification=silent)`` (``silent=None``: not
    passed) with the keyboard as :func:`markup_json` wrote it, the answer left unparsed;
    returns the new message's id."""
    sent = await bot.do_api_request(
        "sendMessage",
        api_kwargs={  # in the order send_message writes them
            "chat_id": chat_id,
            "text": text,
            "disable_notification": silent,
            "link_preview_options": _NO_PREVIEW_JSON,
            "parse_mode": ParseMode.HTML,
            "reply_markup": markup,
        },
    )
    return int(sent["message_id"])
