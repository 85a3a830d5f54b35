"""Editing a message's text without reading Telegram's answer back.

``Bot.edit_message_text`` turns the edited message that Telegram sends back into a
``telegram.Message`` (every entity and button of it): ~10% of the bot's CPU per press in the
end-to-end tests, as edits are most of its requests, and the outbox never reads that answer.
So the outbox sends the same request through python-telegram-bot's public
``Bot.do_api_request`` (defaults, the rate limiter and the errors as usual), which returns
the answer as it came. tests/telegram/test_edits.py checks that the request is the one
``edit_message_text`` sends.
"""

from __future__ import annotations

import warnings
from typing import Any

from telegram import InlineKeyboardMarkup, LinkPreviewOptions
from telegram.constants import ParseMode
from telegram.warnings import PTBUserWarning

__all__ = ["NO_PREVIEW", "edit_text"]

NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
"""No link previews: the bot's messages (texts, the sheet) are never about a link."""

# do_api_request advises the typed method for an endpoint the library knows; here the
# untyped answer is the point.
warnings.filterwarnings(
    "ignore", message=r"Please use 'Bot\.editMessageText'", category=PTBUserWarning
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
