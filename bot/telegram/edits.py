"""Editing a message's text without reading Telegram's answer back.

``Bot.edit_message_text`` turns the edited message that Telegram sends back into a
``telegram.Message`` (every entity and button of it): a large share of the bot's CPU per
press, as edits are most of its requests, and the outbox never reads that answer. So the
outbox sends the same request through python-telegram-bot's own ``_post`` (defaults, the
rate limiter and the errors raised as usual) and leaves the answer unparsed.
tests/telegram/test_edits.py checks that the request is the one ``edit_message_text`` sends.
"""

from __future__ import annotations

from typing import Any

from telegram import InlineKeyboardMarkup, LinkPreviewOptions
from telegram.constants import ParseMode

__all__ = ["NO_PREVIEW", "edit_text"]

NO_PREVIEW = LinkPreviewOptions(is_disabled=True)


async def edit_text(
    bot: Any, chat_id: int, message_id: int | None, text: str, markup: InlineKeyboardMarkup | None
) -> None:
    """``bot.edit_message_text(text, chat_id=..., message_id=..., parse_mode=HTML,
    reply_markup=markup, link_preview_options=NO_PREVIEW)``, the answer left unparsed."""
    await bot._post(
        "editMessageText",
        {
            "text": text,
            "chat_id": chat_id,
            "message_id": message_id,
            "parse_mode": ParseMode.HTML,
            "reply_markup": markup,
            "link_preview_options": NO_PREVIEW,
        },
    )
