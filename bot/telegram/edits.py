"""Sending and editing a message's text without parsing Telegram's answer.

``Bot.edit_message_text`` and ``Bot.send_message`` turn the message that Telegram sends back
into a ``telegram.Message`` (every entity and button of it), and the outbox reads at most its
``message_id``. For an edit that was ~10% of the bot's CPU per press in the end-to-end
tests, as edits are most of its requests; for a sent hand or table message it is ~0.9 ms of
CPU per message (``Message.de_json`` of a hand message with its keyboard, measured alone;
~1,000 sends per run of the end-to-end tests). So the outbox sends the same requests through
python-telegram-bot's public ``Bot.do_api_request`` (defaults, the rate limiter and the
errors as usual), which returns the answer as it came. tests/telegram/test_edits.py checks
that the requests are the ones ``edit_message_text`` and ``send_message`` send.
"""

from __future__ import annotations

import warnings
from typing import Any

from telegram import InlineKeyboardMarkup, LinkPreviewOptions
from telegram.constants import ParseMode
from telegram.warnings import PTBUserWarning

__all__ = ["NO_PREVIEW", "edit_text", "send_text"]

NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
"""No link previews: the bot's messages (texts, the sheet) are never about a link."""

# do_api_request advises the typed method for an endpoint the library knows; here the
# untyped answer is the point.
warnings.filterwarnings(
    "ignore", message=r"Please use 'Bot\.(editMessageText|sendMessage)'", category=PTBUserWarning
)


async def edit_text(
    bot: Any, chat_id: int, message_id: int | None, text: str, markup: InlineKeyboardMarkup | None
) -> None:
    """``bot.edit_message_text(text, chat_id=..., message_id=..., parse_mode=HTML,
    reply_markup=markup, link_preview_options=NO_PREVIEW)``, the answer left unparsed."""
    await bot.do_api_request(
        "editMessageText",
        api_kwargs={
            "text": text,
            "chat_id": chat_id,
            "message_id": message_id,
            "parse_mode": ParseMode.HTML,
            "reply_markup": markup,
            "link_preview_options": NO_PREVIEW,
        },
    )


async def send_text(
    bot: Any,
    chat_id: int,
    text: str,
    markup: InlineKeyboardMarkup | None,
    *,
    silent: bool | None = None,
) -> int:
    """``bot.send_message(chat_id, text, parse_mode=HTML, reply_markup=markup,
    link_preview_options=NO_PREVIEW, disable_notification=silent)`` (``silent=None``: not
    passed), the answer left unparsed; returns the new message's id."""
    sent = await bot.do_api_request(
        "sendMessage",
        api_kwargs={
            "chat_id": chat_id,
            "text": text,
            "disable_notification": silent,
            "link_preview_options": NO_PREVIEW,
            "parse_mode": ParseMode.HTML,
            "reply_markup": markup,
        },
    )
    return int(sent["message_id"])
