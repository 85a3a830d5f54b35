"""A press's update is slimmed before python-telegram-bot parses it: the message the button
is under keeps only which message it is; everything else in an update is left alone."""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from telegram import Update
from telegram.ext import ContextTypes, TypeHandler

from bot.config import Config
from bot.telegram.incoming import PRESSED_MESSAGE_KEYS, slim_update, slim_updates
from bot.telegram.running import OutageWatch
from bot.telegram.webhook import Webhook
from tests.bot_helpers import code_of, open_and_start, running_bot

CHAT = {"id": 12345, "type": "private", "first_name": "Anna"}
PRESSED: dict[str, Any] = {
    "message_id": 77,
    "from": {"id": 1, "is_bot": True, "first_name": "Bot"},
    "chat": CHAT,
    "date": 1_700_000_000,
    "edit_date": 1_700_000_005,
    "text": "Стол №1\nАнна: 6♠",
    "entities": [{"type": "bold", "offset": 0, "length": 7}],
    "reply_markup": {"inline_keyboard": [[{"text": "7♠", "callback_data": "1:2:p7S"}]]},
}
PRESS: dict[str, Any] = {
    "update_id": 5,
    "callback_query": {
        "id": "999",
        "from": {"id": 12345, "is_bot": False, "first_name": "Anna"},
        "message": PRESSED,
        "chat_instance": "abc",
        "data": "1:2:p7S",
    },
}
TEXT: dict[str, Any] = {
    "update_id": 6,
    "message": {**PRESSED, "text": "/newgame", "message_id": 78},
}


def test_a_pressed_message_keeps_only_which_message_it_is() -> None:
    update = slim_update(copy.deepcopy(PRESS))
    assert update["callback_query"]["message"] == {
        "message_id": 77,
        "from": PRESSED["from"],
        "chat": CHAT,
        "date": 1_700_000_000,
    }
    query = update["callback_query"]
    assert {k: v for k, v in query.items() if k != "message"} == {
        k: v for k, v in PRESS["callback_query"].items() if k != "message"
    }
    parsed = Update.de_json(update, None)
    assert parsed.callback_query is not None and parsed.callback_query.message is not None
    assert parsed.callback_query.message.message_id == 77
    assert parsed.callback_query.message.chat.id == 12345
    assert parsed.callback_query.message.is_accessible


def test_other_updates_and_odd_shapes_are_left_as_they_are() -> None:
    assert slim_update(copy.deepcopy(TEXT)) == TEXT  # a message someone wrote: all of it
    inaccessible = copy.deepcopy(PRESS)
    inaccessible["callback_query"]["message"] = {"message_id": 7, "chat": CHAT, "date": 0}
    assert slim_update(copy.deepcopy(inaccessible)) == inaccessible
    odd: Any
    for odd in (None, [], "x", {"callback_query": None}, {"callback_query": {"message": 5}}):
        assert slim_update(copy.deepcopy(odd)) == odd
    assert set(PRESSED_MESSAGE_KEYS) >= {"message_id", "chat", "date"}


def test_polling_slims_each_update_of_an_answer() -> None:
    body = json.dumps({"ok": True, "result": [PRESS, TEXT]}).encode()
    answer = OutageWatch.parse_json_payload(body)
    assert answer["result"][0] == slim_updates({"result": [copy.deepcopy(PRESS)]})["result"][0]
    assert answer["result"][0]["callback_query"]["message"].keys() == {
        "message_id",
        "from",
        "chat",
        "date",
    }
    assert answer["result"][1] == TEXT
    assert OutageWatch.parse_json_payload(b'{"ok": true, "result": true}') == {
        "ok": True,
        "result": True,
    }


async def test_the_bot_handles_a_press_from_the_slimmed_update(tmp_path: Path) -> None:
    seen: list[Update] = []

    async def note(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        seen.append(update)

    async with running_bot(tmp_path) as h:
        h.app.add_handler(TypeHandler(Update, note), group=-9)
        await open_and_start(h)
        await h.idle()
        user = h.actor()
        assert user is not None
        hand = h.hand(user)
        data = next(d for _, d in hand.buttons if d and code_of(d).startswith("b"))
        move = h.table().move
        seen.clear()
        h.fake.press(user, hand, data)
        await h.idle()
        assert h.table().move == move + 1  # the bid was made
        query: Any = next(u.callback_query for u in seen if u.callback_query is not None)
        assert query.data == data
        assert query.message.message_id == hand.message_id
        assert query.message.chat.id == user.id
        assert query.message.reply_markup is None and query.message.text is None


async def test_the_webhook_queues_the_slimmed_update() -> None:
    hook = Webhook(Config(token="1:a", webhook_url="https://example.org/hook"))
    queue: asyncio.Queue[Update] = asyncio.Queue()
    hook.app = cast(Any, SimpleNamespace(bot=None, update_queue=queue))
    assert await hook._update(json.dumps(PRESS).encode()) == 200
    query = queue.get_nowait().callback_query
    assert query is not None and query.message is not None
    assert query.message.message_id == 77 and query.data == "1:2:p7S"
    assert cast(Any, query.message).reply_markup is None
    assert await hook._update(json.dumps(TEXT).encode()) == 200
    message = queue.get_nowait().message
    assert message is not None and message.text == "/newgame"
