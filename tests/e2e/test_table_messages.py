"""The group's and the players' messages around the table through the fake Bot API: the
lobby (a full one, one who has not opened the private chat), stop votes, a replaced
player's hand, turn notifications."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bot.render.callbacks import to_base36
from tests.bot_helpers import Harness, code_of, is_alert, running_bot


def _rows(call: Any) -> list[list[Any]]:
    """The keyboard rows a request sent (as the bot wrote them)."""
    markup = call.params.get("reply_markup")
    if isinstance(markup, str):
        markup = json.loads(markup)
    return list((markup or {}).get("inline_keyboard", []))


def _group_requests(h: Harness) -> list[Any]:
    return [
        c
        for c in h.fake.calls
        if c.method in ("sendMessage", "editMessageText")
        and str(c.params.get("chat_id")) == str(h.group.id)
    ]


async def _sit(h: Harness, user: Any, lobby: Any) -> dict[str, Any]:
    lobby = h.fake.message(h.group.id, lobby.message_id)
    data = next(d for _, d in lobby.buttons if d and code_of(d) == "Ls")
    return await h.press(user, lobby, data)


async def test_the_lobby_shows_who_waits_for_his_chat_and_a_full_lobby(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        anna, boris, vera = h.users
        dasha = h.fake.add_user("Dasha", username="dasha")  # never pressed Start
        h.fake.user_joins(h.group, dasha)
        await h.say(anna, "/newgame")
        lobby = h.fake.last_bot_message(h.group)
        assert lobby is not None
        answer = await _sit(h, dasha, lobby)
        assert answer.get("url", "").endswith(f"?start=s{to_base36(h.table().id)}")
        shown = h.fake.message(h.group.id, lobby.message_id).content
        assert (
            "⏳ Not in a private chat with the bot yet: Dasha. Press «Sit down» again, then "
            "Start at the bottom of the bot's chat that opens: your cards come there." in shown
        )
        await h.start_bot(dasha, f"s{to_base36(h.table().id)}")  # the link she was given
        shown = h.fake.message(h.group.id, lobby.message_id).content
        assert "1. Dasha" in shown and "Not in a private chat" not in shown


async def test_a_full_lobby_asks_for_start_and_never_sends_an_empty_row(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        anna, boris, vera = h.users
        await h.say(anna, "/newgame")
        lobby = h.fake.last_bot_message(h.group)
        assert lobby is not None
        for user in (anna, boris, vera):
            assert not is_alert(await _sit(h, user, lobby))
        assert h.table().full
        last = _group_requests(h)[-1]
        assert last.method == "editMessageText"
        text = last.params["text"]
        assert text.endswith("Every seat is taken: any seated player, press «Start».")
        assert "Press «Sit down»" not in text
        assert all(_rows(c) and all(_rows(c)) for c in _group_requests(h))  # no empty row
        assert is_alert(await _sit(h, h.users[0], lobby))  # seated already
