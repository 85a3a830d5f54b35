"""The fake Bot API (tests/fakes) behaves as Telegram does where the bot depends on it, and
python-telegram-bot works against it in-process and over HTTP."""

from __future__ import annotations

import asyncio
import struct
import zlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, InputMediaPhoto, Update
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, TimedOut
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, ContextTypes

from tests.fakes import (
    FakeBotApiServer,
    FakeRequest,
    FakeTelegram,
    FloodLimits,
    ManualClock,
    UploadedFile,
)
from tests.fakes.model import NOT_MODIFIED, QUERY_TOO_OLD, InjectedReset

TRANSPORTS = ["inprocess", "http"]


def png(width: int, height: int) -> bytes:
    """A valid RGB PNG of the given size."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw))


def ok(fake: FakeTelegram, method: str, **params: Any) -> Any:
    """The ``result`` of a call that must succeed."""
    status, body = fake.handle(method, params)
    assert (status, body["ok"]) == (200, True), body
    return body["result"]


def err(fake: FakeTelegram, method: str, **params: Any) -> tuple[int, str]:
    """``(status, description)`` of a call that must fail."""
    status, body = fake.handle(method, params)
    assert (body["ok"], body["error_code"]) == (False, status), body
    return status, body["description"]


def kb(*data: str) -> dict[str, Any]:
    """An inline keyboard of one row, a button for each callback data."""
    return {"inline_keyboard": [[{"text": d.upper(), "callback_data": d} for d in data]]}


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def fake(clock: ManualClock) -> FakeTelegram:
    return FakeTelegram(clock=clock, flood=FloodLimits(enabled=False))


def test_a_sent_message_has_telegrams_shape(fake: FakeTelegram) -> None:
    ann = fake.add_user("Ann", username="ann", started=True)
    sent = ok(fake, "sendMessage", chat_id=ann.id, text="<b>Hi</b> /start", parse_mode="HTML",
              reply_markup=kb("go"))  # fmt: skip
    assert sent == {
        "message_id": 1,
        "from": {"id": 123456789, "is_bot": True, "first_name": "Fake Bot",
                 "username": "fake_test_bot"},
        "chat": {"id": ann.id, "first_name": "Ann", "username": "ann", "type": "private"},
        "date": sent["date"],
        "text": "Hi /start",
        "entities": [{"offset": 0, "length": 2, "type": "bold"},
                     {"offset": 3, "length": 6, "type": "bot_command"}],
        "reply_markup": kb("go"),
    }  # fmt: skip
    view = fake.message(ann, 1)
    assert (view.sent_text, view.buttons, view.from_bot) == (
        "<b>Hi</b> /start",
        [("GO", "go")],
        True,
    )
    assert [(c.method, c.status) for c in fake.calls] == [("sendMessage", 200)]


def test_html_entities_count_utf16_units(fake: FakeTelegram) -> None:
    ann = fake.add_user(started=True)
    text = "😀 <i>x &lt;&amp;&gt; &#x27;y&#39;</i> <pre>a</pre>"
    sent = ok(fake, "sendMessage", chat_id=ann.id, text=text, parse_mode="HTML")
    assert sent["text"] == "😀 x <&> 'y' a"
    assert sent["entities"] == [
        {"offset": 3, "length": 9, "type": "italic"},
        {"offset": 13, "length": 1, "type": "pre"},
    ]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("a < b", "Unclosed start tag at byte offset 2"),
        ("ы <x>y</x>", 'Unsupported start tag "x" at byte offset 3'),
        ("<b>y", "Can't find end tag corresponding to start tag b"),
        ("<b>y</i>", 'Unmatched end tag at byte offset 4, expected "</b>", found "</i>"'),
        ("y</b>", "Unexpected end tag at byte offset 1"),
        ("Tom & Jerry", 'Character "&" at byte offset 4 must be escaped'),
    ],
)
def test_bad_html_cannot_be_parsed(fake: FakeTelegram, text: str, error: str) -> None:
    ann = fake.add_user(started=True)
    answer = err(fake, "sendMessage", chat_id=ann.id, text=text, parse_mode="HTML")
    assert answer == (400, f"Bad Request: can't parse entities: {error}")
    assert fake.messages(ann) == []


def test_length_limits_count_utf16_after_parsing(fake: FakeTelegram) -> None:
    ann = fake.add_user(started=True)
    ok(fake, "sendMessage", chat_id=ann.id, text=f"<b>{'x' * 4096}</b>", parse_mode="HTML")
    too_long = (400, "Bad Request: message is too long")
    assert err(fake, "sendMessage", chat_id=ann.id, text="😀" * 2049) == too_long
    assert err(fake, "sendMessage", chat_id=ann.id, text=" <b> </b> ", parse_mode="HTML") == (
        400,
        "Bad Request: message text is empty",
    )
    caption = err(fake, "sendPhoto", chat_id=ann.id, photo=_upload(), caption="ё" * 1025)
    assert caption == (400, "Bad Request: message caption is too long")


def _upload() -> UploadedFile:
    return UploadedFile("sheet.png", png(4, 2), "image/png")


def test_who_the_bot_may_not_write_to(fake: FakeTelegram) -> None:
    stranger, blocker, ann = fake.add_user(), fake.add_user(started=True), fake.add_user()
    fake.block_bot(blocker)
    group = fake.add_group("Club", [ann])
    old = fake.add_group("Old", [ann])
    new = fake.upgrade_to_supergroup(old)
    fake.remove_bot(group)
    assert err(fake, "sendMessage", chat_id=stranger.id, text="hi") == (
        403,
        "Forbidden: bot can't initiate conversation with a user",
    )
    assert err(fake, "sendMessage", chat_id=blocker.id, text="hi") == (
        403,
        "Forbidden: bot was blocked by the user",
    )
    assert err(fake, "sendMessage", chat_id=group.id, text="hi") == (
        403,
        "Forbidden: bot was kicked from the group chat",
    )
    assert err(fake, "sendMessage", chat_id=-42, text="hi") == (400, "Bad Request: chat not found")
    status, body = fake.handle("sendMessage", {"chat_id": old.id, "text": "hi"})
    assert (status, body["parameters"]) == (400, {"migrate_to_chat_id": new.id})


def test_edits_and_deletions(fake: FakeTelegram) -> None:
    ann = fake.add_user(started=True)
    group = fake.add_group("Club", [ann])
    mid = ok(fake, "sendMessage", chat_id=ann.id, text="one", reply_markup=kb("a"))["message_id"]
    edit = {"chat_id": ann.id, "message_id": mid}
    assert err(fake, "editMessageText", **edit, text="one", reply_markup=kb("a")) == (
        400,
        NOT_MODIFIED,
    )
    assert err(fake, "editMessageReplyMarkup", **edit, reply_markup=kb("a"))[1] == NOT_MODIFIED
    ok(fake, "editMessageText", **edit, text="<b>one</b>", parse_mode="HTML", reply_markup=kb("a"))
    ok(fake, "editMessageReplyMarkup", **edit)
    view = fake.message(ann, mid)
    assert (view.edit_count, view.buttons, view.entities[0]["type"]) == (2, [], "bold")
    assert [v["text"] for v in view.history] == ["one", "one"]
    said = fake.send_text(ann, group, "/newgame")
    assert err(fake, "editMessageText", chat_id=group.id, message_id=said.message_id, text="x") == (
        400,
        "Bad Request: message can't be edited",
    )
    assert err(fake, "deleteMessage", chat_id=group.id, message_id=said.message_id) == (
        400,
        "Bad Request: message can't be deleted",
    )
    assert ok(fake, "deleteMessage", **edit)
    assert err(fake, "deleteMessage", **edit) == (400, "Bad Request: message to delete not found")
    assert err(fake, "editMessageText", **edit, text="two") == (
        400,
        "Bad Request: message to edit not found",
    )
    assert fake.bot_messages(ann) == [] and fake.messages(ann, include_deleted=True)[0].deleted


def test_callback_queries_are_answered_once_and_in_time(
    fake: FakeTelegram, clock: ManualClock
) -> None:
    ann = fake.add_user(started=True)
    ok(fake, "sendMessage", chat_id=ann.id, text="pick", reply_markup=kb("a", "b"))
    msg = fake.last_bot_message(ann)
    assert msg is not None
    with pytest.raises(ValueError, match="no button 'c'"):
        fake.press(ann, msg, "c")
    first, late = fake.press(ann, msg, "a"), fake.press(ann, msg, button_text="B")
    assert [u["callback_query"]["data"] for u in fake.pending_updates()] == ["a", "b"]
    assert ok(fake, "answerCallbackQuery", callback_query_id=first, text="ok", show_alert="true")
    assert err(fake, "answerCallbackQuery", callback_query_id=first) == (400, QUERY_TOO_OLD)
    clock.advance(15.1)
    assert err(fake, "answerCallbackQuery", callback_query_id=late) == (400, QUERY_TOO_OLD)
    assert fake.callback_answers == {first: {"text": "ok", "show_alert": True}}
    assert fake.unanswered_callbacks() == [late]


def test_flood_limits_private_group_and_global(clock: ManualClock) -> None:
    fake = FakeTelegram(clock=clock, flood=FloodLimits(global_per_second=25))
    ann = fake.add_user(started=True)
    group = fake.add_group("Club", [ann])
    for _ in range(3):  # a private chat's burst, then one a second
        ok(fake, "sendMessage", chat_id=ann.id, text="x")
    status, body = fake.handle("sendMessage", {"chat_id": ann.id, "text": "x"})
    assert (status, body["parameters"]) == (429, {"retry_after": 1})
    assert body["description"] == "Too Many Requests: retry after 1"
    mid = ok(fake, "sendMessage", chat_id=group.id, text="0")["message_id"]
    for i in range(19):  # edits count in a group's 20 a minute
        clock.advance(1)
        ok(fake, "editMessageText", chat_id=group.id, message_id=mid, text=str(i + 1))
    assert err(fake, "sendMessage", chat_id=group.id, text="x")[0] == 429
    others = [fake.add_group(f"G{i}", [ann]) for i in range(26)]
    clock.advance(2)
    for other in others[:25]:
        ok(fake, "sendMessage", chat_id=other.id, text="x")
    assert err(fake, "sendMessage", chat_id=others[25].id, text="x")[0] == 429
    assert [(e.scope, e.retry_after) for e in fake.flood_errors] == [
        ("private", 1),
        ("group", 41),
        ("global", 1),
    ]


def test_privacy_mode_shows_the_bot_commands_only(fake: FakeTelegram) -> None:
    ann = fake.add_user(started=True)
    group = fake.add_group("Club", [ann], announce=False)
    for text in ("hello", "/newgame", "/stop@fake_test_bot", "/stop@other_bot"):
        fake.send_text(ann, group, text)
    texts = [u["message"]["text"] for u in fake.pending_updates()]
    assert texts == ["/newgame", "/stop@fake_test_bot"]


async def test_long_polls_wait_confirm_and_conflict(fake: FakeTelegram) -> None:
    ann = fake.add_user(started=True)
    poll = asyncio.create_task(fake.handle_async("getUpdates", {"timeout": 5}))
    await asyncio.sleep(0)
    fake.send_text(ann, ann, "hi")
    status, body = await asyncio.wait_for(poll, 5)
    (update,) = body["result"]
    offset = update["update_id"] + 1
    older = asyncio.create_task(fake.handle_async("getUpdates", {"offset": offset, "timeout": 5}))
    await asyncio.sleep(0)
    newer = asyncio.create_task(fake.handle_async("getUpdates", {"offset": offset, "timeout": 5}))
    assert (await asyncio.wait_for(older, 5))[0] == 409
    fake.send_text(ann, ann, "again")
    assert [u["message"]["text"] for u in (await asyncio.wait_for(newer, 5))[1]["result"]] == [
        "again"
    ]
    ok(fake, "setWebhook", url="https://example.org/hook", secret_token="s")
    assert fake.webhook_url == "https://example.org/hook" and fake.webhook_secret == "s"
    assert err(fake, "getUpdates")[0] == 409


def test_failure_injection(fake: FakeTelegram) -> None:
    ann = fake.add_user(started=True)
    fake.fail_next("sendMessage", error=(429, 0.2))
    status, body = fake.handle("sendMessage", {"chat_id": ann.id, "text": "x"})
    assert (status, body["parameters"]) == (429, {"retry_after": 0.2})
    fake.fail_next("sendMessage", error="reset", applied=True)
    with pytest.raises(InjectedReset):
        fake.handle("sendMessage", {"chat_id": ann.id, "text": "sent, answer lost"})
    fake.fail_when(lambda method, params: params.get("text") == "bad", (502, "Bad Gateway"))
    assert err(fake, "sendMessage", chat_id=ann.id, text="bad") == (502, "Bad Gateway")
    assert [m.text for m in fake.messages(ann)] == ["sent, answer lost"]
    assert [c.status for c in fake.calls] == [429, "reset", 502]


# --------------------------------------------------------------------------- PTB on top


@asynccontextmanager
async def ptb_app(
    fake: FakeTelegram, transport: str
) -> AsyncIterator[Application[Any, Any, Any, Any, Any, Any]]:
    """An initialized PTB Application talking to ``fake`` in-process or over HTTP."""
    builder = Application.builder().token(fake.token)
    server = None
    if transport == "inprocess":
        builder = builder.request(FakeRequest(fake)).get_updates_request(FakeRequest(fake))
    else:
        server = await FakeBotApiServer(fake).start()
        builder = builder.base_url(server.base_url).read_timeout(0.5)
    app = builder.build()
    try:
        async with app:
            yield app
    finally:
        if server is not None:
            await server.aclose()


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_ptb_polls_and_answers_presses(transport: str) -> None:
    fake = FakeTelegram()

    async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.message is not None
        keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Ping", callback_data="ping")]])
        await update.message.reply_html(f"<b>Hi</b> {context.args}", reply_markup=keyboard)

    async def on_press(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.callback_query is not None
        await update.callback_query.answer("pong")
        await update.callback_query.edit_message_text("pong")

    async with asyncio.timeout(10), ptb_app(fake, transport) as app:
        app.add_handler(CommandHandler("start", start))
        app.add_handler(CallbackQueryHandler(on_press))
        await app.start()
        assert app.updater is not None
        await app.updater.start_polling(poll_interval=0.0, timeout=2)
        ann = fake.add_user("Ann")
        fake.user_starts_bot(ann, payload="t42")
        hello = await fake.wait_for_bot_message(ann, "Hi")
        assert (hello.text, hello.buttons) == ("Hi ['t42']", [("Ping", "ping")])
        query_id = fake.press(ann, hello, "ping")
        await fake.wait_for_bot_message(ann, "pong")
        assert fake.callback_answers == {query_id: {"text": "pong"}}
        await app.updater.stop()
        await app.stop()
    assert fake.pending_updates() == []


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_ptb_raises_telegrams_errors(transport: str) -> None:
    fake = FakeTelegram()
    ann, stranger = fake.add_user("Ann", started=True), fake.add_user("Stranger")
    group = fake.add_group("Old", [ann], announce=False)
    async with asyncio.timeout(10), ptb_app(fake, transport) as app:
        bot = app.bot
        msg = await bot.send_message(ann.id, "same")
        with pytest.raises(BadRequest, match="Message is not modified"):
            await bot.edit_message_text("same", ann.id, msg.message_id)
        with pytest.raises(Forbidden, match="bot can't initiate conversation with a user"):
            await bot.send_message(stranger.id, "hi")
        supergroup = fake.upgrade_to_supergroup(group)
        with pytest.raises(ChatMigrated) as migrated:
            await bot.send_message(group.id, "hi")
        assert migrated.value.new_chat_id == supergroup.id
        with pytest.raises(BadRequest, match="Can't parse entities"):
            await bot.send_message(ann.id, "a < b", parse_mode="HTML")
        fake.fail_next("sendMessage", error="timeout")
        with pytest.raises(TimedOut):
            await bot.send_message(ann.id, "slow")
        fake.fail_next("sendMessage", error="reset")
        with pytest.raises(NetworkError):
            await bot.send_message(ann.id, "reset")
    assert [m.text for m in fake.messages(ann)] == ["same"]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_ptb_sends_and_replaces_a_photo(transport: str) -> None:
    fake = FakeTelegram()
    ann = fake.add_user(started=True)
    async with asyncio.timeout(10), ptb_app(fake, transport) as app:
        msg = await app.bot.send_photo(
            ann.id, png(64, 32), caption="<b>sheet</b>", parse_mode="HTML"
        )
        assert (msg.photo[-1].width, msg.photo[-1].height, msg.caption) == (64, 32, "sheet")
        media = InputMediaPhoto(png(8, 4), caption="new")
        await app.bot.edit_message_media(media, chat_id=ann.id, message_id=msg.message_id)
        doc = await app.bot.send_document(ann.id, b"{}", filename="pulka-1.json")
        assert doc.document is not None and doc.document.file_name == "pulka-1.json"
    sheet, record = fake.messages(ann)
    assert sheet.media is not None and (sheet.media.width, sheet.caption) == (8, "new")
    assert record.media is not None and record.media.data == b"{}"
