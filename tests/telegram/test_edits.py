"""``edit_text`` sends exactly the request ``Bot.edit_message_text`` sends (it only leaves
Telegram's answer unparsed), and fails the same way."""

from __future__ import annotations

from typing import Any

import pytest
from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram.constants import ParseMode
from telegram.error import BadRequest
from telegram.ext import AIORateLimiter, ExtBot

from bot.telegram.edits import NO_PREVIEW, edit_text
from tests.fakes import FakeRequest, FakeTelegram

MARKUP = InlineKeyboardMarkup([[InlineKeyboardButton("♠️ <A>", callback_data="1:2:p")]])


@pytest.mark.parametrize("markup", [MARKUP, None], ids=["buttons", "no buttons"])
async def test_edit_text_sends_what_edit_message_text_sends(markup: Any) -> None:
    fake = FakeTelegram()
    ann = fake.add_user("Ann", started=True)
    bot = ExtBot(fake.token, request=FakeRequest(fake), rate_limiter=AIORateLimiter())
    async with bot:
        sent = await bot.send_message(ann.id, "first")
        await bot.edit_message_text(
            "<b>one</b> &amp; two",
            chat_id=ann.id,
            message_id=sent.message_id,
            parse_mode=ParseMode.HTML,
            reply_markup=markup,
            link_preview_options=NO_PREVIEW,
        )
        await edit_text(bot, ann.id, sent.message_id, "<b>three</b> &amp; four", markup)
        with pytest.raises(BadRequest, match="(?i)not modified"):
            await edit_text(bot, ann.id, sent.message_id, "<b>three</b> &amp; four", markup)
        with pytest.raises(BadRequest, match="(?i)message to edit not found"):
            await edit_text(bot, ann.id, 99999, "x", markup)
    ptb, ours, *_ = fake.calls_to("editMessageText")
    assert ptb.ok and ours.ok
    assert {**ptb.params, "text": "?"} == {**ours.params, "text": "?"}
    shown = fake.message(ann.id, sent.message_id)
    assert shown.text == "three & four" and shown.entities[0]["type"] == "bold"
    assert shown.reply_markup == ([[("♠️ <A>", "1:2:p")]] if markup else None)
