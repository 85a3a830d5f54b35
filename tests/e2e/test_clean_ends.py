"""Clean ends through the fake Bot API: a cancelled table tells its seated players."""

from __future__ import annotations

from pathlib import Path

from tests.bot_helpers import button, running_bot


async def test_a_cancelled_table_tells_the_seated_players_privately(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        anna, boris = h.users[0], h.users[1]
        await h.say(anna, "/newgame")
        lobby = h.fake.last_bot_message(h.group)
        assert lobby is not None
        for user in (anna, boris):
            lobby = h.fake.message(h.group.id, lobby.message_id)
            data = button(lobby, "Ls")
            await h.press(user, lobby, data)
        lobby = h.fake.message(h.group.id, lobby.message_id)
        data = button(lobby, "Lc")
        await h.press(anna, lobby, data)
        assert not h.fake.message(h.group.id, lobby.message_id).buttons
        for user in (anna, boris):
            assert "the game never started" in h.fake.bot_messages(user)[-1].content
        assert not any("never started" in m.content for m in h.fake.bot_messages(h.users[2]))
