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
preview options never (~35 us a request, timed alone). Numbers and flags go the same way:
PTB writes any value that is not a string as its JSON text, a string inside the request's
JSON, so ``"12345"`` and ``"true"`` are passed as they will be written (no ``json.dumps``
per value: an edit's request is built in 50 us instead of 61, timed alone). A press's
answer and the deletes of turn notices go this way too (:func:`answer_query`,
:func:`delete`). tests/telegram/test_edits.py checks that the
request bodies are byte for byte the ones the typed methods send.
"""

from __future__ import annotations

import hashlib
import json
import operator
import warnings
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, LinkPreviewOptions
from telegram.constants import ParseMode
from telegram.warnings import PTBUserWarning

__all__ = [
    "NO_PREVIEW",
    "answer_query",
    "delete",
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
_BOOL = {True: "true", False: "false"}


ADVICE = r"Please use 'Bot\.(editMessageText|sendMessage|deleteMessage|answerCallbackQuery)'"
"""What ``do_api_request`` warns for the endpoints sent untyped here."""


def ignore_typed_method_advice() -> None:
    """Silence ``do_api_request``'s advice to use the typed method for an endpoint the
    library knows: here the untyped answer is the point. Called at the start, not at
    import (importing a module changes no global state)."""
    warnings.filterwarnings(
        "ignore",
        message=ADVICE,
        category=PTBUserWarning,
    )


_OTHER_FIELDS = tuple(
    f for f in InlineKeyboardButton.__slots__ if f not in ("callback_data", "text")
)
_others = operator.attrgetter(*_OTHER_FIELDS)
_NONE = (None,) * len(_OTHER_FIELDS)


def markup_json(markup: InlineKeyboardMarkup | None) -> str | None:
    """``markup`` as PTB writes it into a request (``None``: no keyboard).

    A button with only a text and a callback string (every game button) is written as
    ``to_dict()`` writes it, without ``to_dict()``: PTB's generic ``to_dict`` reads every
    field of every button through its class hierarchy: 150-400 us for a keyboard of ten card
    buttons, against 40-57 us for the same JSON written here, ``json.dumps`` included (timed
    alone on the shared 2-core machine), and most of the bot's requests carry a hand. Any other
    button (a link, a field PTB adds later) goes through ``to_dict()``;
    tests/telegram/test_edits.py checks the bytes are the same.
    """
    if markup is None:
        return None
    if markup.api_kwargs or not markup.inline_keyboard:  # (no rows: PTB writes no key)
        return json.dumps(markup.to_dict())
    return json.dumps(
        {"inline_keyboard": [[_button(b) for b in row] for row in markup.inline_keyboard]}
    )


def _button(button: InlineKeyboardButton) -> dict[str, Any]:
    """``button.to_dict()``, written directly for a text and a callback string alone (the
    keys in the order ``to_dict`` writes them)."""
    if type(button.callback_data) is str and _others(button) == _NONE and not button.api_kwargs:
        return {"callback_data": button.callback_data, "text": button.text}
    return button.to_dict()


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
            "chat_id": str(chat_id),
            "message_id": None if message_id is None else str(message_id),
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
            "chat_id": str(chat_id),
            "text": text,
            "disable_notification": None if silent is None else _BOOL[silent],
            "link_preview_options": _NO_PREVIEW_JSON,
            "parse_mode": ParseMode.HTML,
            "reply_markup": markup,
        },
    )
    return int(sent["message_id"])


async def delete(bot: Any, chat_id: int, message_id: int) -> None:
    """``bot.delete_message(chat_id, message_id)``, the same request."""
    await bot.do_api_request(
        "deleteMessage", api_kwargs={"chat_id": str(chat_id), "message_id": str(message_id)}
    )


async def answer_query(
    bot: Any, query_id: str, text: str | None, *, alert: bool, url: str | None
) -> None:
    """``bot.answer_callback_query(query_id, text, show_alert=alert, url=url)``, the same
    request."""
    await bot.do_api_request(
        "answerCallbackQuery",
        api_kwargs={  # in the order answer_callback_query writes them
            "callback_query_id": query_id,
            "text": text,
            "show_alert": _BOOL[alert],
            "url": url,
        },
    )
