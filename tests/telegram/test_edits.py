"""``edit_text`` and ``send_text`` send exactly the requests ``Bot.edit_message_text`` and
``Bot.send_message`` send, byte for byte (they only leave Telegram's answer unparsed and take
the keyboard as :func:`markup_json` wrote it), and fail the same way."""

from __future__ import annotations

import json
from typing import Any

import pytest
from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram._utils.types import ODVInput
from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated, Forbidden, TelegramError
from telegram.ext import AIORateLimiter, ExtBot
from telegram.request import BaseRequest, RequestData

from bot.telegram.edits import (
    NO_PREVIEW,
    answer_query,
    delete,
    edit_text,
    markup_json,
    send_text,
)
from tests.fakes import FakeRequest, FakeTelegram

MARKUP = InlineKeyboardMarkup(
    [
        [InlineKeyboardButton('♠️ <A> "10" ♥️', callback_data="1:2:p")],
        [
            InlineKeyboardButton("Пас", callback_data="1:2:bP"),
            InlineKeyboardButton("x", url="t.me"),
        ],
    ]
)


class _Recording(FakeRequest):
    """The fake Bot API, keeping each request's body as PTB encoded it."""

    def __init__(self, fake: FakeTelegram) -> None:
        super().__init__(fake)
        self.bodies: list[tuple[str, bytes]] = []

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        assert request_data is not None
        self.bodies.append((url.rsplit("/", 1)[-1], request_data.json_payload))
        timeouts = (read_timeout, write_timeout, connect_timeout, pool_timeout)
        return await super().do_request(url, method, request_data, *timeouts)


def _bot(fake: FakeTelegram) -> tuple[ExtBot[int], _Recording]:
    request = _Recording(fake)
    return ExtBot(fake.token, request=request, rate_limiter=AIORateLimiter()), request


@pytest.mark.parametrize("markup", [MARKUP, None], ids=["buttons", "no buttons"])
async def test_edit_text_sends_what_edit_message_text_sends(markup: Any) -> None:
    fake = FakeTelegram()
    ann = fake.add_user("Ann", started=True)
    bot, request = _bot(fake)
    async with bot:
        sent = await bot.send_message(ann.id, "first")
        keyboard = markup_json(markup)
        text = "<b>one</b> &amp; two"
        await bot.edit_message_text(
            text,
            chat_id=ann.id,
            message_id=sent.message_id,
            parse_mode=ParseMode.HTML,
            reply_markup=markup,
            link_preview_options=NO_PREVIEW,
        )
        with pytest.raises(BadRequest, match="(?i)not modified"):
            await edit_text(bot, ann.id, sent.message_id, text, keyboard)
        await edit_text(bot, ann.id, sent.message_id, "<b>three</b> &amp; four", keyboard)
        with pytest.raises(BadRequest, match="(?i)message to edit not found"):
            await edit_text(bot, ann.id, 99999, "x", keyboard)
    typed, same, *_ = [body for method, body in request.bodies if method == "editMessageText"]
    assert typed == same
    shown = fake.message(ann.id, sent.message_id)
    assert shown.text == "three & four" and shown.entities[0]["type"] == "bold"
    buttons = [[('♠️ <A> "10" ♥️', "1:2:p")], [("Пас", "1:2:bP"), ("x", "t.me")]]
    assert shown.reply_markup == (buttons if markup else None)


@pytest.mark.parametrize("silent", [None, True, False], ids=["loud", "silent", "not silent"])
@pytest.mark.parametrize("markup", [MARKUP, None], ids=["buttons", "no buttons"])
async def test_send_text_sends_what_send_message_sends(markup: Any, silent: bool | None) -> None:
    fake = FakeTelegram()
    ann = fake.add_user("Ann", started=True)
    bot, request = _bot(fake)
    text = "<b>one</b> &amp; two"
    async with bot:
        quiet: dict[str, Any] = {} if silent is None else {"disable_notification": silent}
        sent = await bot.send_message(
            ann.id,
            text,
            parse_mode=ParseMode.HTML,
            reply_markup=markup,
            link_preview_options=NO_PREVIEW,
            **quiet,
        )
        ours = await send_text(bot, ann.id, text, markup_json(markup), silent=silent)
    (_, typed), (_, untyped) = [b for b in request.bodies if b[0] == "sendMessage"]
    assert typed == untyped
    assert ours == sent.message_id + 1
    shown = fake.message(ann.id, ours)
    assert shown.text == "one & two" and shown.entities[0]["type"] == "bold"
    assert (shown.reply_markup is not None) == (markup is not None)
    assert fake.calls_to("sendMessage")[1].params.get("disable_notification") == silent


async def test_send_text_fails_as_send_message_fails() -> None:
    fake = FakeTelegram()
    ann = fake.add_user("Ann", started=True)
    stranger = fake.add_user("Stranger")
    group = fake.add_group("Old", [ann], announce=False)
    bot, _ = _bot(fake)
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


def _hand_keyboard() -> InlineKeyboardMarkup:
    cards = [InlineKeyboardButton(f"♠️{r}", callback_data=f"7:31:pS{r}") for r in "789TJQKA"]
    return InlineKeyboardMarkup(
        [cards[:4], cards[4:], [InlineKeyboardButton("🤝", callback_data="7:31:Oo")]]
    )


@pytest.mark.parametrize(
    "markup",
    [
        MARKUP,
        _hand_keyboard(),
        InlineKeyboardMarkup([]),
        InlineKeyboardMarkup([[InlineKeyboardButton("x", callback_data="y", api_kwargs={"z": 1})]]),
        InlineKeyboardMarkup([[InlineKeyboardButton("x", callback_data="y")]], api_kwargs={"z": 1}),
    ],
    ids=["a link among them", "a hand", "empty", "a button's extra field", "the keyboard's"],
)
def test_markup_json_writes_what_to_dict_writes(markup: InlineKeyboardMarkup) -> None:
    assert markup_json(markup) == json.dumps(markup.to_dict())


def test_game_buttons_are_written_without_to_dict(monkeypatch: pytest.MonkeyPatch) -> None:
    """PTB's generic ``to_dict`` is what a hand's keyboard cost the most to write (see
    :func:`markup_json`): game buttons (a text and a callback string) do without it."""
    markup = _hand_keyboard()
    expected = json.dumps(markup.to_dict())

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("to_dict called")

    monkeypatch.setattr(InlineKeyboardMarkup, "to_dict", refused)
    monkeypatch.setattr(InlineKeyboardButton, "to_dict", refused)
    assert markup_json(markup) == expected


@pytest.mark.parametrize(
    ("text", "alert", "url"),
    [(None, False, None), ("✓ Уже сделано", True, None), (None, False, "https://t.me/b?start=s1")],
    ids=["empty", "an alert", "a link"],
)
async def test_answer_query_sends_what_answer_callback_query_sends(
    text: str | None, alert: bool, url: str | None
) -> None:
    fake = FakeTelegram()
    bot, request = _bot(fake)
    async with bot:
        # the fake answers a query it never gave out as Telegram does: both fail alike
        for answer in (
            lambda: bot.answer_callback_query("42", text, show_alert=alert, url=url),
            lambda: answer_query(bot, "42", text, alert=alert, url=url),
        ):
            with pytest.raises(BadRequest, match="(?i)query"):
                await answer()
    (_, typed), (_, untyped) = [b for b in request.bodies if b[0] == "answerCallbackQuery"]
    assert typed == untyped and json.loads(untyped)["show_alert"] == json.dumps(alert)


async def test_delete_sends_what_delete_message_sends() -> None:
    fake = FakeTelegram()
    ann = fake.add_user("Ann", started=True)
    bot, request = _bot(fake)
    async with bot:
        first = await bot.send_message(ann.id, "first")
        second = await bot.send_message(ann.id, "second")
        assert await bot.delete_message(ann.id, first.message_id)
        await delete(bot, ann.id, second.message_id)
        with pytest.raises(BadRequest, match="(?i)message to delete not found"):
            await delete(bot, ann.id, second.message_id)
    typed, untyped, _ = [b for m, b in request.bodies if m == "deleteMessage"]

    def body(message_id: int) -> bytes:
        return json.dumps({"chat_id": str(ann.id), "message_id": str(message_id)}).encode()

    assert (typed, untyped) == (body(first.message_id), body(second.message_id))
    assert fake.message(ann.id, second.message_id).deleted
