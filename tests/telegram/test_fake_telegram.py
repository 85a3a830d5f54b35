"""Tests of the fake Telegram Bot API (tests/fakes) and of python-telegram-bot against it."""

from __future__ import annotations

import asyncio
import random
import struct
import time
import zlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from telegram import (
    BotCommand,
    BotCommandScopeChat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Update,
)
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, TimedOut
from telegram.ext import (
    AIORateLimiter,
    Application,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from tests.fakes import (
    ApiError,
    FakeBotApiServer,
    FakeRequest,
    FakeTelegram,
    FloodLimits,
    InjectedReset,
    InjectedTimeout,
    ManualClock,
    UploadedFile,
)
from tests.fakes._formatting import _parse_html_bytes, _parse_plain_html, parse_html
from tests.fakes.telegram_state import NOT_MODIFIED, QUERY_TOO_OLD

TRANSPORTS = ["inprocess", "http"]


# --------------------------------------------------------------------------- helpers


def png(width: int, height: int) -> bytes:
    """A valid RGB PNG of the given size."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def ok(fake: FakeTelegram, method: str, **params: Any) -> Any:
    """Call the fake and return ``result``, asserting success."""
    status, body = fake.handle(method, params)
    assert status == 200 and body["ok"] is True, body
    return body["result"]


def err(fake: FakeTelegram, method: str, **params: Any) -> tuple[int, str, dict[str, Any]]:
    """Call the fake expecting an error: (status, description, parameters)."""
    status, body = fake.handle(method, params)
    assert body["ok"] is False and body["error_code"] == status, body
    return status, body["description"], body.get("parameters", {})


def kb(*rows: list[tuple[str, str]]) -> dict[str, Any]:
    """Inline keyboard JSON from rows of (text, callback_data)."""
    return {"inline_keyboard": [[{"text": t, "callback_data": d} for t, d in row] for row in rows]}


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def fake(clock: ManualClock) -> FakeTelegram:
    """Flood control off: these tests send bursts on purpose; the flood tests turn it on."""
    return FakeTelegram(clock=clock, flood=FloodLimits(enabled=False))


@pytest.fixture
def flood_fake(clock: ManualClock) -> FakeTelegram:
    """Default (Telegram-like) flood limits on a manual clock."""
    return FakeTelegram(clock=clock)


# --------------------------------------------------------------------------- the model


def test_get_me_and_tokens(fake: FakeTelegram) -> None:
    me = ok(fake, "getMe")
    assert me["id"] == 123456789 and me["is_bot"] is True and me["username"] == "fake_test_bot"
    assert me["can_read_all_group_messages"] is False  # privacy mode on by default
    assert fake.check_token(fake.token) is None
    assert (fake.check_token("123:wrong") or (0,))[0] == 401
    assert (fake.check_token("garbage") or (0,))[0] == 404
    assert fake.handle("noSuchMethod", {})[0] == 404
    assert fake.handle("SENDMESSAGE", {"chat_id": 1, "text": "x"})[0] == 400  # case-insensitive


def test_send_message_shape_and_inspection(fake: FakeTelegram) -> None:
    ann = fake.add_user("Ann", "Lee", "ann", started=True)
    msg = ok(
        fake, "sendMessage", chat_id=str(ann.id), text="  hello  ", reply_markup=kb([("A", "a")])
    )
    assert msg["chat"] == {
        "id": ann.id,
        "first_name": "Ann",
        "last_name": "Lee",
        "username": "ann",
        "type": "private",
    }
    assert msg["from"] == {
        "id": fake.bot.id,
        "is_bot": True,
        "first_name": "Fake Bot",
        "username": "fake_test_bot",
    }
    assert msg["text"] == "hello" and "entities" not in msg and isinstance(msg["date"], int)
    assert msg["reply_markup"] == kb([("A", "a")])
    (view,) = fake.messages(ann)
    assert (
        view.message_id == msg["message_id"]
        and view.from_bot
        and view.reply_markup == [[("A", "a")]]
    )
    assert fake.calls[-1].method == "sendMessage" and fake.calls[-1].status == 200
    assert fake.calls[-1].params["reply_markup"] == kb([("A", "a")])
    assert fake.calls[-1].params["chat_id"] == ann.id  # form strings are recorded typed
    # form-style params (JSON-encoded strings) work the same way
    second = ok(
        fake, "sendMessage", chat_id=ann.id, text="/help", reply_markup='{"remove_keyboard":true}'
    )
    assert second["entities"] == [{"offset": 0, "length": 5, "type": "bot_command"}]
    assert second["message_id"] == msg["message_id"] + 1


def test_forbidden_and_not_found(fake: FakeTelegram) -> None:
    never = fake.add_user("Never")
    assert err(fake, "sendMessage", chat_id=never.id, text="hi")[:2] == (
        403,
        "Forbidden: bot can't initiate conversation with a user",
    )
    assert err(fake, "sendMessage", chat_id=424242, text="hi")[:2] == (
        400,
        "Bad Request: chat not found",
    )
    assert (
        err(fake, "sendMessage", chat_id="@nobody", text="hi")[1] == "Bad Request: chat not found"
    )
    fake.user_starts_bot(never)
    ok(fake, "sendMessage", chat_id=never.id, text="hi")
    fake.block_bot(never)
    assert err(fake, "sendMessage", chat_id=never.id, text="hi")[:2] == (
        403,
        "Forbidden: bot was blocked by the user",
    )
    update = fake.pending_updates()[-1]["my_chat_member"]
    assert update["old_chat_member"]["status"] == "member"
    assert update["new_chat_member"] == {
        "user": fake.bot.to_api(),
        "status": "kicked",
        "until_date": 0,
    }
    fake.user_starts_bot(never)  # pressing Restart unblocks
    ok(fake, "sendMessage", chat_id=never.id, text="back")


def test_text_length_and_empty(fake: FakeTelegram) -> None:
    ann = fake.add_user(started=True)
    assert (
        err(fake, "sendMessage", chat_id=ann.id, text="")[1] == "Bad Request: message text is empty"
    )
    assert (
        err(fake, "sendMessage", chat_id=ann.id, text=" \n ")[1]
        == "Bad Request: message text is empty"
    )
    assert err(fake, "sendMessage", chat_id=ann.id, text="<b> </b>", parse_mode="HTML")[1] == (
        "Bad Request: message text is empty"
    )
    ok(fake, "sendMessage", chat_id=ann.id, text="x" * 4096)
    assert (
        err(fake, "sendMessage", chat_id=ann.id, text="x" * 4097)[1]
        == "Bad Request: message is too long"
    )
    # the limit applies after entity parsing
    ok(fake, "sendMessage", chat_id=ann.id, text="<b>" + "x" * 4096 + "</b>", parse_mode="HTML")
    assert err(fake, "sendMessage", chat_id=ann.id, text="x", parse_mode="HTMLX")[1] == (
        "Bad Request: unsupported parse_mode"
    )


def test_html_entities_use_utf16_offsets(fake: FakeTelegram) -> None:
    ann = fake.add_user(started=True)
    text = (
        '😀 <b>bold <i>both</i></b> &lt;tag&gt; <a href="https://example.com/x">link</a> '
        "<code>a&amp;b</code>"
    )
    msg = ok(fake, "sendMessage", chat_id=ann.id, text=text, parse_mode="HTML")
    assert msg["text"] == "😀 bold both <tag> link a&b"
    assert msg["entities"] == [
        {"offset": 3, "length": 9, "type": "bold"},
        {"offset": 8, "length": 4, "type": "italic"},
        {"offset": 19, "length": 4, "type": "text_link", "url": "https://example.com/x"},
        {"offset": 24, "length": 3, "type": "code"},
    ]
    pre = ok(
        fake,
        "sendMessage",
        chat_id=ann.id,
        parse_mode="HTML",
        text='<pre><code class="language-py">x = 1</code></pre>',
    )
    assert pre["entities"] == [{"offset": 0, "length": 5, "type": "pre", "language": "py"}]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("<foo>x</foo>", 'Unsupported start tag "foo" at byte offset 0'),
        ("<b>x", "Can't find end tag corresponding to start tag b"),
        ("x</b>", "Unexpected end tag at byte offset 1"),
        ("<b><i>x</b></i>", 'Unmatched end tag at byte offset 7, expected "</i>", found "</b>"'),
        ("1 < 2", 'Unsupported start tag "" at byte offset 2'),
        ("a <b", "Unclosed start tag at byte offset 2"),
        ("Tom & Jerry", 'Character "&" at byte offset 4 must be escaped'),
        ('<span class="x">y</span>', 'Tag "span" must have class "tg-spoiler" at byte offset 0'),
    ],
)
def test_html_parse_errors(fake: FakeTelegram, text: str, error: str) -> None:
    ann = fake.add_user(started=True)
    status, description, _ = err(fake, "sendMessage", chat_id=ann.id, text=text, parse_mode="HTML")
    assert status == 400
    assert description.startswith("Bad Request: can't parse entities: " + error), description


def test_html_ampersand_lenient_like_real_telegram(clock: ManualClock) -> None:
    fake = FakeTelegram(clock=clock, strict_html=False)
    ann = fake.add_user(started=True)
    msg = ok(
        fake, "sendMessage", chat_id=ann.id, text="Tom & Jerry &amp; <b>co</b>", parse_mode="HTML"
    )
    assert msg["text"] == "Tom & Jerry & co"


_PLAIN_PIECES = [
    "x", " ", "\n", "Сдача 1", "🃏", "♠️ 10", ">", "&lt;", "&gt;", "&amp;", "&quot;", "&#x27;",
    "&#39;", "&#x1F0CF;",
]  # fmt: skip
_PLAIN_TAGS = ["b", "i", "u", "s", "em", "code", "pre", "tg-spoiler", "blockquote"]
_ODD_MARKUP = [
    "<B>", "<span>", "</>", "<a>", '<a href="https://e.org">', "&lt", "&#55296;", "&#0;",
    "&#x110000;", "&", "<", "</b>", "\ud800",
]  # fmt: skip


def _plain_markup(rng: random.Random, depth: int = 0) -> str:
    parts = []
    for _ in range(rng.randint(0, 4)):
        if depth < 3 and rng.random() < 0.4:
            tag = rng.choice(_PLAIN_TAGS)
            parts.append(f"<{tag}>{_plain_markup(rng, depth + 1)}</{tag}>")
        else:
            parts.append(rng.choice(_PLAIN_PIECES))
    return "".join(parts)


def test_plain_html_parser_agrees_with_the_full_one() -> None:
    """The regex parser takes plain markup and gives what the byte-by-byte parser gives;
    a text with anything else goes to that parser (its errors stay the same)."""

    def outcome(parse: Callable[..., Any], text: str, strict: bool) -> Any:
        try:
            return parse(text, strict=strict)
        except Exception as exc:  # noqa: BLE001 - the same failure on both sides
            return type(exc), str(exc)

    rng = random.Random(12)
    for _ in range(400):
        text = _plain_markup(rng)
        assert _parse_plain_html(text) is not None, text
        assert _parse_plain_html(text) == outcome(_parse_html_bytes, text, True), text
        at = rng.randint(0, len(text))
        text = text[:at] + rng.choice(_ODD_MARKUP) + text[at:]
        for strict in (True, False):
            assert outcome(parse_html, text, strict) == outcome(_parse_html_bytes, text, strict)


def test_markdown_v2(fake: FakeTelegram) -> None:
    ann = fake.add_user(started=True)
    msg = ok(
        fake, "sendMessage", chat_id=ann.id, text="*bold* _it_ \\. ||sp||", parse_mode="MarkdownV2"
    )
    assert msg["text"] == "bold it . sp"
    assert [e["type"] for e in msg["entities"]] == ["bold", "italic", "spoiler"]
    assert err(fake, "sendMessage", chat_id=ann.id, text="Price 1.5", parse_mode="MarkdownV2")[
        1
    ] == (
        "Bad Request: can't parse entities: Character '.' is reserved and must be escaped with "
        "the preceding '\\'"
    )
    assert err(fake, "sendMessage", chat_id=ann.id, text="*open", parse_mode="MarkdownV2")[1] == (
        "Bad Request: can't parse entities: Can't find end of Bold entity at byte offset 0"
    )
    legacy = ok(
        fake, "sendMessage", chat_id=ann.id, text="*b* [l](https://t.me/x)", parse_mode="Markdown"
    )
    assert legacy["text"] == "b l" and legacy["entities"][1]["url"] == "https://t.me/x"


def test_keyboard_validation(fake: FakeTelegram) -> None:
    ann = fake.add_user(started=True)
    ok(fake, "sendMessage", chat_id=ann.id, text="x", reply_markup=kb([("ok", "d" * 64)]))
    for data in ("d" * 65, "я" * 33, ""):
        assert err(fake, "sendMessage", chat_id=ann.id, text="x", reply_markup=kb([("b", data)]))[
            1
        ] == ("Bad Request: BUTTON_DATA_INVALID")
    bare = {"inline_keyboard": [[{"text": "no action"}]]}
    assert (
        "Text buttons are unallowed"
        in err(fake, "sendMessage", chat_id=ann.id, text="x", reply_markup=bare)[1]
    )
    url = {"inline_keyboard": [[{"text": "site", "url": "https://example.com"}]]}
    assert (
        ok(fake, "sendMessage", chat_id=ann.id, text="x", reply_markup=url)["reply_markup"] == url
    )
    reply_kb = {"keyboard": [["one", "two"]], "resize_keyboard": True}
    sent = ok(fake, "sendMessage", chat_id=ann.id, text="x", reply_markup=reply_kb)
    assert "reply_markup" not in sent  # only inline keyboards are part of a Message
    assert fake.messages(ann)[-1].keyboard == reply_kb


def test_edit_semantics(fake: FakeTelegram) -> None:
    ann = fake.add_user(started=True)
    msg = ok(
        fake,
        "sendMessage",
        chat_id=ann.id,
        text="<b>v1</b>",
        parse_mode="HTML",
        reply_markup=kb([("A", "a")]),
    )
    mid = msg["message_id"]
    same = {"chat_id": ann.id, "message_id": mid, "text": "<b>v1</b>", "parse_mode": "HTML"}
    assert err(fake, "editMessageText", **same, reply_markup=kb([("A", "a")]))[1] == NOT_MODIFIED
    # the same text without reply_markup removes the keyboard: that is a modification
    edited = ok(fake, "editMessageText", **same)
    assert "reply_markup" not in edited and edited["edit_date"] >= edited["date"]
    assert err(fake, "editMessageReplyMarkup", chat_id=ann.id, message_id=mid)[1] == NOT_MODIFIED
    ok(
        fake,
        "editMessageReplyMarkup",
        chat_id=ann.id,
        message_id=mid,
        reply_markup=kb([("B", "b")]),
    )
    ok(
        fake,
        "editMessageText",
        chat_id=ann.id,
        message_id=mid,
        text="v2",
        reply_markup=kb([("B", "b")]),
    )
    view = fake.message(ann, mid)
    assert view.text == "v2" and view.reply_markup == [[("B", "b")]] and view.edit_count == 3
    assert [h["text"] for h in view.history] == ["v1", "v1", "v1"]
    assert err(fake, "editMessageText", chat_id=ann.id, message_id=9999, text="x")[1] == (
        "Bad Request: message to edit not found"
    )
    ok(fake, "deleteMessage", chat_id=ann.id, message_id=mid)
    assert err(fake, "editMessageText", chat_id=ann.id, message_id=mid, text="x")[1] == (
        "Bad Request: message to edit not found"
    )
    assert err(fake, "deleteMessage", chat_id=ann.id, message_id=mid)[1] == (
        "Bad Request: message to delete not found"
    )
    assert fake.messages(ann) == [] and fake.messages(ann, include_deleted=True)[0].deleted
    own = fake.send_text(ann, ann, "mine")
    assert err(fake, "editMessageText", chat_id=ann.id, message_id=own.message_id, text="x")[1] == (
        "Bad Request: message can't be edited"
    )


def test_callback_queries(fake: FakeTelegram, clock: ManualClock) -> None:
    ann = fake.add_user("Ann", started=True)
    msg = ok(
        fake,
        "sendMessage",
        chat_id=ann.id,
        text="pick",
        reply_markup=kb([("Yes", "y"), ("No", "n")]),
    )
    ok(
        fake,
        "editMessageText",
        chat_id=ann.id,
        message_id=msg["message_id"],
        text="pick!",
        reply_markup=kb([("Yes", "y")]),
    )
    with pytest.raises(ValueError, match="no button"):
        fake.press(ann, msg, "n")  # that button is gone
    qid = fake.press(ann, msg, "y")
    update = fake.pending_updates()[-1]
    query = update["callback_query"]
    assert query["id"] == qid and query["data"] == "y" and query["from"]["id"] == ann.id
    assert query["message"]["text"] == "pick!" and "edit_date" in query["message"]  # as last left
    assert query["chat_instance"].lstrip("-").isdigit()
    assert fake.unanswered_callbacks() == [qid]
    assert ok(fake, "answerCallbackQuery", callback_query_id=qid, text="done") is True
    assert fake.callback_answers == {qid: {"text": "done"}} and fake.unanswered_callbacks() == []
    assert err(fake, "answerCallbackQuery", callback_query_id=qid)[1] == QUERY_TOO_OLD
    assert err(fake, "answerCallbackQuery", callback_query_id="123")[1] == QUERY_TOO_OLD
    late = fake.press(ann, msg, button_text="Yes")
    clock.advance(16)
    assert err(fake, "answerCallbackQuery", callback_query_id=late)[1] == QUERY_TOO_OLD
    assert fake.unanswered_callbacks() == [late]


def test_flood_private_chat(flood_fake: FakeTelegram, clock: ManualClock) -> None:
    fake = flood_fake
    ann = fake.add_user(started=True)
    for i in range(3):  # a short burst is tolerated
        ok(fake, "sendMessage", chat_id=ann.id, text=f"m{i}")
    status, description, parameters = err(fake, "sendMessage", chat_id=ann.id, text="m3")
    assert (status, description, parameters) == (
        429,
        "Too Many Requests: retry after 1",
        {"retry_after": 1},
    )
    clock.advance(0.5)
    assert err(fake, "sendMessage", chat_id=ann.id, text="m3")[0] == 429  # still waiting
    clock.advance(0.5)
    ok(fake, "sendMessage", chat_id=ann.id, text="m3")
    errors = fake.flood_errors
    assert len(errors) == 2 and errors[0].scope == "private" and errors[0].chat_id == ann.id
    # failed (non-flood) calls do not count
    bob = fake.add_user(started=True)
    for _ in range(5):
        fake.handle("sendMessage", {"chat_id": bob.id, "text": ""})
    ok(fake, "sendMessage", chat_id=bob.id, text="fine")


def test_flood_group_counts_edits(flood_fake: FakeTelegram, clock: ManualClock) -> None:
    fake = flood_fake
    users = [fake.add_user(f"U{i}") for i in range(3)]
    group = fake.add_group("Table", users)
    first = ok(fake, "sendMessage", chat_id=group.id, text="0")
    for i in range(1, 10):
        ok(fake, "sendMessage", chat_id=group.id, text=str(i))
        clock.advance(1)
    for i in range(10):
        ok(fake, "editMessageText", chat_id=group.id, message_id=first["message_id"], text=f"e{i}")
    status, _, parameters = err(fake, "sendMessage", chat_id=group.id, text="21st")
    assert status == 429 and parameters["retry_after"] == 51  # the oldest send leaves the window
    clock.advance(51)
    ok(fake, "sendMessage", chat_id=group.id, text="21st")


def test_flood_global(clock: ManualClock) -> None:
    fake = FakeTelegram(clock=clock, flood=FloodLimits(global_per_second=5))
    users = [fake.add_user(started=True) for _ in range(6)]
    for user in users[:5]:
        ok(fake, "sendMessage", chat_id=user.id, text="x")
    assert err(fake, "sendMessage", chat_id=users[5].id, text="x")[0] == 429
    assert fake.flood_errors[-1].scope == "global"
    clock.advance(1)
    ok(fake, "sendMessage", chat_id=users[5].id, text="x")
    unlimited = FakeTelegram(clock=clock, flood=FloodLimits(enabled=False))
    ann = unlimited.add_user(started=True)
    for _ in range(10):
        ok(unlimited, "sendMessage", chat_id=ann.id, text="x")


def test_group_upgrade_migration(fake: FakeTelegram) -> None:
    ann, bob = fake.add_user("Ann"), fake.add_user("Bob")
    group = fake.add_group("Old", [ann, bob])
    joined = [list(u)[1] for u in fake.pending_updates()]
    assert joined == ["my_chat_member", "message"]
    assert fake.pending_updates()[1]["message"]["new_chat_members"][0]["id"] == fake.bot.id
    supergroup = fake.upgrade_to_supergroup(group)
    assert supergroup.type == "supergroup" and str(supergroup.id).startswith("-100")
    old_msg, new_msg = (u["message"] for u in fake.pending_updates()[-2:])
    assert old_msg["chat"]["id"] == group.id and old_msg["migrate_to_chat_id"] == supergroup.id
    assert new_msg["chat"]["type"] == "supergroup" and new_msg["migrate_from_chat_id"] == group.id
    status, description, parameters = err(fake, "sendMessage", chat_id=group.id, text="hi")
    assert (status, description) == (
        400,
        "Bad Request: group chat was upgraded to a supergroup chat",
    )
    assert parameters == {"migrate_to_chat_id": supergroup.id}
    assert ok(fake, "sendMessage", chat_id=supergroup.id, text="hi")["message_id"] == 2


def test_bot_removed_added_and_leaving(fake: FakeTelegram) -> None:
    ann = fake.add_user("Ann")
    group = fake.add_group("G", [ann], announce=False)
    assert fake.pending_updates() == []
    fake.remove_bot(group)
    update = fake.pending_updates()[-1]["my_chat_member"]
    assert (update["old_chat_member"]["status"], update["new_chat_member"]["status"]) == (
        "member",
        "left",
    )
    assert err(fake, "sendMessage", chat_id=group.id, text="x")[:2] == (
        403,
        "Forbidden: bot was kicked from the group chat",
    )
    fake.add_bot(group, ann)
    ok(fake, "sendMessage", chat_id=group.id, text="back")
    assert ok(fake, "leaveChat", chat_id=group.id) is True
    assert err(fake, "sendMessage", chat_id=group.id, text="x")[1] == (
        "Forbidden: bot is not a member of the group chat"
    )
    sg = fake.add_group("S", [ann], supergroup=True)
    fake.remove_bot(sg)
    assert err(fake, "sendMessage", chat_id=sg.id, text="x")[1] == (
        "Forbidden: bot was kicked from the supergroup chat"
    )


def test_privacy_mode(fake: FakeTelegram) -> None:
    ann = fake.add_user("Ann")
    group = fake.add_group("G", [ann], announce=False)
    fake.send_text(ann, group, "just chatting")
    fake.send_text(ann, group, "/bid@other_bot 6")
    assert fake.pending_updates() == []
    fake.send_text(ann, group, "/bid 6")
    fake.send_text(ann, group, "/bid@fake_test_bot 7")
    bot_msg = ok(fake, "sendMessage", chat_id=group.id, text="your turn")
    fake.send_text(ann, group, "ok", reply_to=bot_msg["message_id"])
    texts = [u["message"]["text"] for u in fake.pending_updates()]
    assert texts == ["/bid 6", "/bid@fake_test_bot 7", "ok"]
    assert fake.pending_updates()[2]["message"]["reply_to_message"]["text"] == "your turn"
    entity = fake.pending_updates()[1]["message"]["entities"][0]
    assert entity == {"offset": 0, "length": 18, "type": "bot_command"}
    everything = FakeTelegram(privacy_mode=False)
    bob = everything.add_user("Bob")
    g2 = everything.add_group("G2", [bob], announce=False)
    everything.send_text(bob, g2, "hello")
    assert everything.pending_updates()[0]["message"]["text"] == "hello"
    with pytest.raises(ValueError, match="not started"):
        fake.send_text(ann, ann, "hi")


def test_get_updates_offsets(fake: FakeTelegram) -> None:
    ann = fake.add_user(started=True)
    for i in range(3):
        fake.send_text(ann, ann, f"m{i}")
    updates = ok(fake, "getUpdates", limit=2)
    assert [u["message"]["text"] for u in updates] == ["m0", "m1"]
    first_id = updates[0]["update_id"]
    assert [u["update_id"] for u in ok(fake, "getUpdates", offset=first_id + 1)] == [
        first_id + 1,
        first_id + 2,
    ]
    assert len(ok(fake, "getUpdates")) == 2  # offset confirmed m0 for good
    assert [u["update_id"] for u in ok(fake, "getUpdates", offset=-1)] == [first_id + 2]
    assert ok(fake, "getUpdates", offset=first_id + 3) == []
    info = ok(fake, "getWebhookInfo")
    assert info == {"url": "", "has_custom_certificate": False, "pending_update_count": 0}


def test_sync_long_poll_blocks_the_calling_thread(fake: FakeTelegram) -> None:
    ann = fake.add_user(started=True)
    started = time.monotonic()
    assert ok(fake, "getUpdates", timeout=0.2) == []
    assert 0.18 <= time.monotonic() - started < 10  # (the bound only tells a hang)
    original = fake.send_text(ann, ann, "typo")
    edited = fake.user_edits(ann, original, "fixed")
    assert edited.text == "fixed" and edited.edit_count == 1
    kinds = [list(u)[1] for u in ok(fake, "getUpdates", timeout=1)]
    assert kinds == ["message", "edited_message"]


def test_allowed_updates_filter(fake: FakeTelegram) -> None:
    ann = fake.add_user(started=True)
    ok(fake, "getUpdates", allowed_updates='["callback_query"]')
    fake.send_text(ann, ann, "ignored")
    msg = ok(fake, "sendMessage", chat_id=ann.id, text="x", reply_markup=kb([("a", "a")]))
    fake.press(ann, msg, "a")
    assert [list(u)[1] for u in ok(fake, "getUpdates")] == ["callback_query"]


def test_webhook_conflict(fake: FakeTelegram) -> None:
    assert err(fake, "setWebhook", url="http://insecure")[0] == 400
    status, body = fake.handle("setWebhook", {"url": "https://example.com/hook"})
    assert body == {"ok": True, "result": True, "description": "Webhook was set"}
    assert err(fake, "getUpdates")[:2] == (409, fake_conflict_webhook())
    status, body = fake.handle("deleteWebhook", {})
    assert body["description"] == "Webhook was deleted"
    assert fake.handle("deleteWebhook", {})[1]["description"] == "Webhook is already deleted"
    assert ok(fake, "getUpdates") == []


def fake_conflict_webhook() -> str:
    return (
        "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to "
        "delete the webhook first"
    )


async def test_long_polling_waits_and_wakes(fake: FakeTelegram) -> None:
    ann = fake.add_user(started=True)
    started = time.monotonic()
    status, body = await fake.handle_async("getUpdates", {"timeout": "0.2"})
    assert body["result"] == [] and 0.18 <= time.monotonic() - started < 10  # (a hang)
    poll = asyncio.create_task(fake.handle_async("getUpdates", {"timeout": 60}))
    await asyncio.sleep(0.05)
    assert not poll.done()
    fake.send_text(ann, ann, "wake up")
    status, body = await asyncio.wait_for(poll, 30)  # woken: long before its 60 s
    assert body["result"][0]["message"]["text"] == "wake up"


async def test_long_polling_conflict_between_two_pollers(fake: FakeTelegram) -> None:
    first = asyncio.create_task(fake.handle_async("getUpdates", {"timeout": 5}))
    await asyncio.sleep(0.05)
    second = asyncio.create_task(fake.handle_async("getUpdates", {"timeout": 0.1}))
    status, body = await asyncio.wait_for(first, 2)
    assert status == 409 and "terminated by other getUpdates request" in body["description"]
    assert (await asyncio.wait_for(second, 2))[0] == 200


def test_failure_injection(fake: FakeTelegram) -> None:
    ann = fake.add_user(started=True)
    fake.fail_next("sendMessage", error=(502, "Bad Gateway"))
    assert err(fake, "sendMessage", chat_id=ann.id, text="x")[:2] == (502, "Bad Gateway")
    fake.fail_next("sendMessage", times=2, error=(429, 7))
    for _ in range(2):
        assert err(fake, "sendMessage", chat_id=ann.id, text="x")[2] == {"retry_after": 7}
    assert fake.flood_errors[-1].scope == "injected"
    ok(fake, "sendMessage", chat_id=ann.id, text="x")
    fake.fail_next(None, error="timeout")
    with pytest.raises(InjectedTimeout):
        fake.handle("getMe", {})
    fake.fail_next("sendMessage", error="reset", applied=True)  # sent, but the answer is lost
    with pytest.raises(InjectedReset):
        fake.handle("sendMessage", {"chat_id": ann.id, "text": "duplicate?"})
    assert fake.messages(ann)[-1].text == "duplicate?"
    assert [c.status for c in fake.calls[-2:]] == ["timeout", "reset"]
    fake.fail_when(
        lambda method, params: "boom" in str(params.get("text")), ApiError(400, "Bad Request: boom")
    )
    assert err(fake, "sendMessage", chat_id=ann.id, text="boom")[1] == "Bad Request: boom"
    assert err(fake, "sendMessage", chat_id=ann.id, text="boom again")[1] == "Bad Request: boom"
    ok(fake, "sendMessage", chat_id=ann.id, text="fine")
    fake.clear_failures()
    ok(fake, "sendMessage", chat_id=ann.id, text="boom is fine now")


def test_photos_documents_and_files(fake: FakeTelegram) -> None:
    ann = fake.add_user(started=True)
    image = png(1000, 500)
    msg = ok(
        fake,
        "sendPhoto",
        chat_id=ann.id,
        photo=UploadedFile("sheet.png", image, "image/png"),
        caption="<b>Pulka</b>",
        parse_mode="HTML",
    )
    sizes = msg["photo"]
    assert [(s["width"], s["height"]) for s in sizes] == [
        (90, 45),
        (320, 160),
        (800, 400),
        (1000, 500),
    ]
    assert sizes[-1]["file_size"] == len(image) and len({s["file_id"] for s in sizes}) == 4
    assert msg["caption"] == "Pulka" and msg["caption_entities"][0]["type"] == "bold"
    assert (media := fake.messages(ann)[-1].media) is not None and media.data == image
    again = ok(fake, "sendPhoto", chat_id=ann.id, photo=sizes[-1]["file_id"])
    assert again["photo"][-1]["file_unique_id"] == sizes[-1]["file_unique_id"]
    assert err(fake, "sendPhoto", chat_id=ann.id, photo=UploadedFile("x.png", b"not an image"))[
        1
    ] == ("Bad Request: IMAGE_PROCESS_FAILED")
    assert err(fake, "sendPhoto", chat_id=ann.id, photo="nope")[1] == (
        "Bad Request: wrong file identifier/HTTP URL specified"
    )
    doc = ok(
        fake, "sendDocument", chat_id=ann.id, document=UploadedFile("score.csv", b"a,b\n1,2\n")
    )
    assert (
        doc["document"]["file_name"] == "score.csv" and doc["document"]["mime_type"] == "text/csv"
    )
    assert doc["document"]["file_size"] == 8
    assert err(fake, "sendPhoto", chat_id=ann.id, photo=doc["document"]["file_id"])[1] == (
        "Bad Request: can't use file of type Document as Photo"
    )
    file = ok(fake, "getFile", file_id=doc["document"]["file_id"])
    assert fake.file_content(file["file_path"]) == b"a,b\n1,2\n"
    edited = ok(
        fake,
        "editMessageMedia",
        chat_id=ann.id,
        message_id=msg["message_id"],
        media='{"type": "photo", "media": "attach://new", "caption": "v2"}',
        new=UploadedFile("v2.png", png(40, 30)),
    )
    assert edited["photo"][-1]["width"] == 40 and edited["caption"] == "v2"
    assert (
        ok(fake, "editMessageCaption", chat_id=ann.id, message_id=msg["message_id"], caption="v3")[
            "caption"
        ]
        == "v3"
    )
    assert (
        err(fake, "editMessageCaption", chat_id=ann.id, message_id=msg["message_id"], caption="v3")[
            1
        ]
        == NOT_MODIFIED
    )
    fake.register_url("https://example.com/a.png", png(10, 10))
    assert (
        ok(fake, "sendPhoto", chat_id=ann.id, photo="https://example.com/a.png")["photo"][0][
            "width"
        ]
        == 10
    )
    assert err(fake, "sendPhoto", chat_id=ann.id, photo="https://example.com/b.png")[1] == (
        "Bad Request: failed to get HTTP URL content"
    )


def test_commands(fake: FakeTelegram) -> None:
    ann = fake.add_user(started=True)
    commands = [
        {"command": "start", "description": "Start"},
        {"command": "bid", "description": "Bid"},
    ]
    assert ok(fake, "setMyCommands", commands=commands) is True
    ok(
        fake,
        "setMyCommands",
        commands=commands[:1],
        scope={"type": "chat", "chat_id": ann.id},
        language_code="ru",
    )
    assert ok(fake, "getMyCommands") == commands
    assert ok(fake, "getMyCommands", scope={"type": "chat", "chat_id": ann.id}) == []
    assert fake.commands({"type": "chat", "chat_id": ann.id}, "ru") == [("start", "Start")]
    for bad in ("Start", "/start", "x" * 33, "с"):
        assert err(fake, "setMyCommands", commands=[{"command": bad, "description": "d"}])[1] == (
            "Bad Request: BOT_COMMAND_INVALID"
        )
    assert ok(fake, "deleteMyCommands") is True and ok(fake, "getMyCommands") == []


def test_chats_members_and_pins(fake: FakeTelegram) -> None:
    ann, bob = fake.add_user("Ann"), fake.add_user("Bob")
    group = fake.add_group("Table", [ann, bob], admins=[bob], bot_admin=True, announce=False)
    chat = ok(fake, "getChat", chat_id=group.id)
    assert chat["type"] == "group" and chat["title"] == "Table" and "accepted_gift_types" in chat
    assert ok(fake, "getChatMember", chat_id=group.id, user_id=ann.id)["status"] == "creator"
    assert (
        ok(fake, "getChatMember", chat_id=group.id, user_id=fake.bot.id)["status"]
        == "administrator"
    )
    admins = ok(fake, "getChatAdministrators", chat_id=group.id)
    assert [a["user"]["id"] for a in admins] == [ann.id, bob.id, fake.bot.id]
    assert ok(fake, "getChatMemberCount", chat_id=group.id) == 3
    msg = ok(fake, "sendMessage", chat_id=group.id, text="pin me")
    assert ok(fake, "pinChatMessage", chat_id=group.id, message_id=msg["message_id"]) is True
    assert ok(fake, "getChat", chat_id=group.id)["pinned_message"]["text"] == "pin me"
    assert ok(fake, "unpinChatMessage", chat_id=group.id, message_id=msg["message_id"]) is True
    user_msg = fake.send_text(ann, group, "delete me")  # the bot is admin: allowed
    assert ok(fake, "deleteMessage", chat_id=group.id, message_id=user_msg.message_id) is True
    assert err(fake, "getChatAdministrators", chat_id=ann.id)[0] == 400
    assert ok(fake, "sendChatAction", chat_id=group.id, action="typing") is True
    assert fake.handle("sendPoll", {"chat_id": group.id})[0] == 501


# --------------------------------------------------------------------------- raw HTTP


async def test_http_server_protocol(fake: FakeTelegram) -> None:
    ann = fake.add_user(started=True)
    async with FakeBotApiServer(fake) as srv, httpx.AsyncClient(timeout=5) as client:
        assert srv.base_url.startswith("http://127.0.0.1:") and srv.base_url.endswith("/bot")
        api = f"{srv.base_url}{fake.token}"
        r = await client.post(f"{api}/sendMessage", json={"chat_id": ann.id, "text": "json"})
        assert r.status_code == 200 and r.json()["result"]["text"] == "json"
        r = await client.post(f"{api}/sendMessage", data={"chat_id": str(ann.id), "text": "123"})
        assert r.json()["result"]["text"] == "123"  # form strings stay strings
        r = await client.get(f"{api}/getMe")
        assert r.json()["result"]["is_bot"] is True
        r = await client.get(f"{api}/sendMessage", params={"chat_id": ann.id, "text": "query"})
        assert r.json()["result"]["text"] == "query"
        files = {"document": ("notes.txt", b"hello", "text/plain")}
        r = await client.post(f"{api}/sendDocument", data={"chat_id": str(ann.id)}, files=files)
        document = r.json()["result"]["document"]
        r = await client.post(f"{api}/getFile", data={"file_id": document["file_id"]})
        path = r.json()["result"]["file_path"]
        r = await client.get(f"{srv.base_file_url}{fake.token}/{path}")
        assert r.content == b"hello"
        r = await client.post(f"{api}/sendMessage", json={"chat_id": 1, "text": "x"})
        assert r.status_code == 400 and r.json()["description"] == "Bad Request: chat not found"
        assert (await client.get(f"{srv.base_url}123:bad/getMe")).status_code == 401
        assert (await client.get(f"{api}/nope")).status_code == 404
        assert srv.connections_opened == 1  # keep-alive
        fake.fail_next("getMe", error="reset")
        with pytest.raises(httpx.HTTPError):
            await client.get(f"{api}/getMe")


async def test_http_long_poll_does_not_block_other_requests(fake: FakeTelegram) -> None:
    ann = fake.add_user(started=True)
    async with FakeBotApiServer(fake) as srv, httpx.AsyncClient(timeout=5) as client:
        api = f"{srv.base_url}{fake.token}"
        poll = asyncio.create_task(client.post(f"{api}/getUpdates", data={"timeout": "60"}))
        await asyncio.sleep(0.05)
        r = await client.post(f"{api}/sendMessage", data={"chat_id": str(ann.id), "text": "hi"})
        assert r.status_code == 200 and not poll.done()  # answered while the poll waits
        fake.send_text(ann, ann, "/start")
        r = await asyncio.wait_for(poll, 30)
        assert r.json()["result"][0]["message"]["text"] == "/start"


def test_http_server_in_thread(fake: FakeTelegram) -> None:
    ann = fake.add_user(started=True)
    with FakeBotApiServer(fake) as srv, httpx.Client(timeout=5) as client:
        api = f"{srv.base_url}{fake.token}"
        r = client.post(f"{api}/sendMessage", data={"chat_id": str(ann.id), "text": "threaded"})
        assert r.json()["ok"] is True
        fake.send_text(ann, ann, "from the test thread")
        r = client.post(f"{api}/getUpdates", data={"timeout": "2"})
        assert r.json()["result"][0]["message"]["text"] == "from the test thread"
        assert (
            fake.wait_until_sync(lambda: fake.last_bot_message(ann), timeout=1).text == "threaded"
        )


# --------------------------------------------------------------------------- PTB on top


@asynccontextmanager
async def ptb_app(
    fake: FakeTelegram,
    transport: str,
    *,
    configure: Callable[[Any], Any] | None = None,
) -> AsyncIterator[Application[Any, Any, Any, Any, Any, Any]]:
    """An initialized PTB Application talking to ``fake`` in-process or over HTTP."""
    builder = Application.builder().token(fake.token)
    server = None
    if transport == "inprocess":
        builder = builder.request(FakeRequest(fake)).get_updates_request(FakeRequest(fake))
    else:
        server = await FakeBotApiServer(fake).start()
        builder = builder.base_url(server.base_url).base_file_url(server.base_file_url)
    if configure is not None:
        builder = configure(builder)
    app = builder.build()
    try:
        async with app:
            yield app
    finally:
        if server is not None:
            await server.aclose()


@asynccontextmanager
async def polling(app: Application[Any, Any, Any, Any, Any, Any]) -> AsyncIterator[None]:
    """Run the Application's polling loop for the duration of the block."""
    await app.start()
    assert app.updater is not None
    await app.updater.start_polling(poll_interval=0.0, timeout=2)
    try:
        yield
    finally:
        await app.updater.stop()
        await app.stop()


@pytest.fixture
def real_clock_fake() -> FakeTelegram:
    return FakeTelegram()


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_ptb_polling_commands_echo_and_callbacks(
    real_clock_fake: FakeTelegram, transport: str
) -> None:
    fake = real_clock_fake

    async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.message is not None and update.effective_user is not None
        keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Ping", callback_data="ping")]])
        await update.message.reply_html(
            f"Hello, <b>{update.effective_user.first_name}</b>! args={context.args}",
            reply_markup=keyboard,
        )

    async def echo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.message is not None and update.message.text is not None
        await update.message.reply_text(update.message.text.upper())

    async def on_press(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query is not None
        await query.answer("pong!")
        await query.edit_message_text(f"pong ({query.data})")

    async with asyncio.timeout(10), ptb_app(fake, transport) as app:
        app.add_handler(CommandHandler("start", start))
        app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND, echo))
        app.add_handler(CallbackQueryHandler(on_press))
        async with polling(app):
            ann = fake.add_user("Ann")
            fake.user_starts_bot(ann, payload="table42")
            hello = await fake.wait_for_bot_message(ann, "Hello")
            assert hello.text == "Hello, Ann! args=['table42']" and hello.buttons == [
                ("Ping", "ping")
            ]
            fake.send_text(ann, ann, "six spades")
            assert (await fake.wait_for_bot_message(ann, "SIX")).text == "SIX SPADES"
            query_id = fake.press(ann, hello, "ping")
            await fake.wait_until(lambda: fake.message(ann, hello.message_id).text == "pong (ping)")
            assert fake.callback_answers[query_id] == {"text": "pong!"}
            assert fake.unanswered_callbacks() == []
            assert fake.message(ann, hello.message_id).reply_markup is None
    assert not fake.pending_updates()  # PTB confirmed everything on shutdown


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_ptb_set_my_commands(real_clock_fake: FakeTelegram, transport: str) -> None:
    fake = real_clock_fake
    ann = fake.add_user(started=True)
    async with asyncio.timeout(10), ptb_app(fake, transport) as app:
        await app.bot.set_my_commands(
            [BotCommand("start", "Start a game"), BotCommand("bid", "Bid")]
        )
        await app.bot.set_my_commands(
            [BotCommand("help", "Help")], scope=BotCommandScopeChat(ann.id)
        )
        assert [c.command for c in await app.bot.get_my_commands()] == ["start", "bid"]
        assert fake.commands({"type": "chat", "chat_id": ann.id}) == [("help", "Help")]
        with pytest.raises(BadRequest, match="Bot_command_invalid"):
            await app.bot.set_my_commands([BotCommand("BadName", "x")])
        assert await app.bot.delete_my_commands()
        assert await app.bot.get_my_commands() == ()


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_ptb_sees_telegram_errors(real_clock_fake: FakeTelegram, transport: str) -> None:
    fake = real_clock_fake
    ann = fake.add_user("Ann", started=True)
    stranger = fake.add_user("Stranger")
    group = fake.add_group("Old", [ann], announce=False)
    async with asyncio.timeout(10), ptb_app(fake, transport) as app:
        bot = app.bot
        msg = await bot.send_message(ann.id, "same")
        with pytest.raises(BadRequest, match="Message is not modified"):
            await bot.edit_message_text("same", ann.id, msg.message_id)
        with pytest.raises(BadRequest, match="Message to edit not found"):
            await bot.edit_message_text("x", ann.id, 99999)
        with pytest.raises(Forbidden, match="bot can't initiate conversation with a user"):
            await bot.send_message(stranger.id, "hi")
        supergroup = fake.upgrade_to_supergroup(group)
        with pytest.raises(ChatMigrated) as migrated:
            await bot.send_message(group.id, "hi")
        assert migrated.value.new_chat_id == supergroup.id
        too_long = InlineKeyboardMarkup([[InlineKeyboardButton("x", callback_data="d" * 65)]])
        with pytest.raises(BadRequest, match="Button_data_invalid"):
            await bot.send_message(ann.id, "x", reply_markup=too_long)
        with pytest.raises(BadRequest, match="Can't parse entities"):
            await bot.send_message(ann.id, "a < b", parse_mode="HTML")


@pytest.mark.waits
@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_ptb_rate_limiter_waits_out_flood(transport: str) -> None:
    fake = FakeTelegram(flood=FloodLimits(private_burst=2))
    ann = fake.add_user(started=True)

    def configure(builder: Any) -> Any:
        return builder.rate_limiter(AIORateLimiter(max_retries=3))

    async with asyncio.timeout(15), ptb_app(fake, transport, configure=configure) as app:
        started = time.monotonic()
        sent = await asyncio.gather(*(app.bot.send_message(ann.id, f"m{i}") for i in range(3)))
        elapsed = time.monotonic() - started
    assert len({m.message_id for m in sent}) == 3
    assert sorted(m.text or "" for m in fake.messages(ann)) == ["m0", "m1", "m2"]
    assert [e.retry_after for e in fake.flood_errors] == [1]
    assert elapsed >= 1.0  # PTB honoured retry_after


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_ptb_injected_failures(real_clock_fake: FakeTelegram, transport: str) -> None:
    fake = real_clock_fake
    ann = fake.add_user(started=True)

    def configure(builder: Any) -> Any:
        return builder.read_timeout(0.5) if transport == "http" else builder

    async with asyncio.timeout(10), ptb_app(fake, transport, configure=configure) as app:
        fake.fail_next("sendMessage", error="timeout")
        with pytest.raises(TimedOut):
            await app.bot.send_message(ann.id, "slow")
        fake.fail_next("sendMessage", error="reset")
        with pytest.raises(NetworkError):
            await app.bot.send_message(ann.id, "reset")
        fake.fail_next("sendMessage", error=(500, "Internal Server Error"))
        with pytest.raises(NetworkError, match="Internal Server Error"):
            await app.bot.send_message(ann.id, "5xx")
        assert (await app.bot.send_message(ann.id, "fine")).text == "fine"
    assert [m.text for m in fake.messages(ann)] == ["fine"]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_ptb_photo_upload_and_download(real_clock_fake: FakeTelegram, transport: str) -> None:
    fake = real_clock_fake
    ann = fake.add_user(started=True)
    image = png(64, 32)
    async with asyncio.timeout(10), ptb_app(fake, transport) as app:
        msg = await app.bot.send_photo(ann.id, image, caption="sheet", filename="sheet.png")
        assert (msg.photo[-1].width, msg.photo[-1].height) == (64, 32)
        file = await app.bot.get_file(msg.photo[-1].file_id)
        assert bytes(await file.download_as_bytearray()) == image
        doc = await app.bot.send_document(ann.id, b"a,b\n", filename="score.csv")
        assert doc.document is not None and doc.document.file_name == "score.csv"
    assert (media := fake.messages(ann)[0].media) is not None and media.data == image
