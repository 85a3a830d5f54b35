"""``edit_text`` and ``send_text`` send exactly the requests ``Bot.edit_message_text`` and
``Bot.send_message`` send (they only leave Telegram's answer unparsed), and fail the same
way."""

from __future__ import annotations

from typing import Any

import pytest
from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated, Forbidden, TelegramError
from telegram.ext import AIORateLimiter, ExtBot

from bot.telegram.edits import NO_PREVIEW, edit_text, send_text
from tests.fakes import FakeRequest, FakeTelegram

# (pyproject.toml's filter covers only editMessageText: the one edits.py sets is reset by pytest)
pytestmark = pytest.mark.filterwarnings(
    "ignore:Please use 'Bot.sendMessage':telegram.warnings.PTBUserWarning"
)

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


@pytest.mark.parametrize("silent", [None, True, False], ids=["loud", "silent", "not silent"])
@pytest.mark.parametrize("markup", [MARKUP, None], ids=["buttons", "no buttons"])
async def test_send_text_sends_what_send_message_sends(markup: Any, silent: bool | None) -> None:
    fake = FakeTelegram()
    ann = fake.add_user("Ann", started=True)
    bot = ExtBot(fake.token, request=FakeRequest(fake), rate_limiter=AIORateLimiter())
    text = "<b>one</b> &amp; two"
    async with bot:
        quiet = {} if silent is None else {"disable_notification": silent}
        sent = await bot.send_message(
            ann.id,
            text,
            parse_mode=ParseMode.HTML,
            reply_markup=markup,
            link_preview_options=NO_PREVIEW,
            **quiet,
        )
        ours = await send_text(bot, ann.id, text, markup, silent=silent)
    ptb_call, our_call = fake.calls_to("sendMessage")
    assert ptb_call.ok and our_call.ok
    assert ptb_call.params == our_call.params
    assert ours == sent.message_id + 1
    shown = fake.message(ann.id, ours)
    assert shown.text == "one & two" and shown.entities[0]["type"] == "bold"
    assert shown.reply_markup == ([[("♠️ <A>", "1:2:p")]] if markup else None)


async def test_send_text_fails_as_send_message_fails() -> None:
    fake = FakeTelegram()
    ann = fake.add_user("Ann", started=True)
    stranger = fake.add_user("Stranger")
    group = fake.add_group("Old", [ann], announce=False)
    bot = ExtBot(fake.token, request=FakeRequest(fake), rate_limiter=AIORateLimiter())
    cases: list[tuple[int, str, type[TelegramError], str]] = [
        (stranger.id, "hi", Forbidden, "initiate conversation"),
        (ann.id, "a < b", BadRequest, "parse entities"),
    ]
    async with bot:
        for chat_id, text, error, match in cases:
            with pytest.raises(error, match=f"(?i){match}"):
                await bot.send_message(chat_id, text, parse_mode=ParseMode.HTML)
            with pytest.raises(error, match=f"(?i){match}"):
                await send_text(bot, chat_id, text, None)
        supergroup = fake.upgrade_to_supergroup(group)
        for send in (
            lambda: bot.send_message(group.id, "hi", parse_mode=ParseMode.HTML),
            lambda: send_text(bot, group.id, "hi", None),
        ):
            with pytest.raises(ChatMigrated) as migrated:
                await send()
            assert migrated.value.new_chat_id == supergroup.id
