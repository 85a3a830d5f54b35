"""The Mini App as the chat shows it: its buttons, the group's link, and a hand message
left alone while its player has the table open."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from bot.render.i18n import t
from tests.bot_helpers import WEBAPP_URL, Harness, code_of, open_and_start, running_bot

from .helpers import actor_and_other, opened


def _markups(h: Harness, chat_id: int) -> list[list[dict[str, Any]]]:
    """Every keyboard the bot sent or edited into ``chat_id``, button by button."""
    out = []
    for call in h.fake.calls:
        markup = call.params.get("reply_markup")
        if call.params.get("chat_id") == chat_id and isinstance(markup, dict):
            out.append([b for row in markup["inline_keyboard"] for b in row])
    return out


async def _closed(h: Harness, user_id: int, table_id: int) -> None:
    """Until the server has seen the user's last socket of the table close."""
    miniapp = h.app.bot_data.miniapp
    assert miniapp is not None
    while miniapp.wiring.hub.watching(user_id, table_id):
        await asyncio.sleep(0.001)
    await h.idle()


async def test_without_the_url_nothing_links_to_a_mini_app(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        await open_and_start(h)
        assert h.app.bot_data.miniapp is None
        for chat in (h.group.id, *(u.id for u in h.users)):
            for buttons in _markups(h, chat):
                assert all("web_app" not in b and "url" not in b for b in buttons)


async def test_the_hand_message_opens_the_table(tmp_path: Path) -> None:
    async with running_bot(tmp_path, webapp=True) as h:
        await open_and_start(h)
        table = h.table()
        for user in h.users:
            last = _markups(h, user.id)[-1][-1]
            assert last == {"text": "🃏 Table", "web_app": {"url": f"{WEBAPP_URL}?t={table.id}"}}
        link = f"https://t.me/{h.rt.bot_username}?start=table_{table.id}"
        lobby = _markups(h, h.group.id)
        assert lobby and all(b[-1] == {"text": "🃏 Table", "url": link} for b in lobby)


async def test_the_groups_link_answers_with_the_mini_app_in_private(tmp_path: Path) -> None:
    async with running_bot(tmp_path, users=4, webapp=True) as h:
        await open_and_start(h)
        table = h.table()
        anna, stranger = h.users[0], h.users[3]
        before = len(h.fake.bot_messages(anna.id))
        await h.start_bot(anna, f"table_{table.id}")
        text = "🃏 Your table in «Preferans club»: open it with the button below."
        answer = next(m for m in h.fake.bot_messages(anna.id)[before:] if m.content == text)
        sent = next(c for c in h.fake.calls_to("sendMessage") if c.params.get("text") == text)
        assert sent.params["reply_markup"]["inline_keyboard"] == [
            [{"text": "🃏 Table", "web_app": {"url": f"{WEBAPP_URL}?t={table.id}"}}]
        ]
        assert answer.buttons == [("🃏 Table", None)]
        await h.start_bot(stranger, f"table_{table.id}")
        refusal = h.fake.last_bot_message(stranger.id)
        assert refusal is not None and refusal.content == t("en", "webapp.not_seated")
        assert refusal.reply_markup is None
        await h.start_bot(stranger, "table_x")
        refusal = h.fake.last_bot_message(stranger.id)
        assert refusal is not None and refusal.content == t("en", "webapp.closed")
        for user in h.users[:2]:
            await h.say(user, "/stop")  # the game ends: the lobby's link stays in the group
        await h.idle()
        await h.start_bot(anna, f"table_{table.id}")
        closed = h.fake.last_bot_message(anna.id)
        assert closed is not None and closed.content == t("en", "webapp.closed")
        assert closed.reply_markup is None


async def test_an_open_mini_app_holds_the_hand_message_until_it_closes(tmp_path: Path) -> None:
    async with running_bot(tmp_path, webapp=True) as h:
        await open_and_start(h)
        table = h.table()
        actor, watcher = actor_and_other(h)
        hand = h.hand(watcher)
        edits = hand.edit_count
        async with opened(h, watcher, table.id) as socket:
            state = await socket.state()
            msg = h.hand(actor)
            data = next(d for _, d in msg.buttons if d and code_of(d) == "bP")
            await h.press(actor, msg, data)  # the turn passes: every hand would be edited
            await socket.state(lambda f: f["move"] > state["move"])
            assert h.hand(watcher).edit_count == edits
        await _closed(h, watcher.id, table.id)
        after = h.hand(watcher)
        assert after.edit_count == edits + 1  # once, to the latest
        assert "pass" in after.content
