"""End-to-end: the computer players' level and the «💡» hint chosen in the lobby, the hint
button on the hand message of the person on turn only, its private answer, a stale press."""

from __future__ import annotations

from pathlib import Path

from bot.preferans.robot.hints import hint
from bot.preferans.views import seat_view
from bot.render.hint import hint_text
from bot.render.i18n import t
from tests.bot_helpers import button, code_of, is_alert, open_and_start, running_bot
from tests.fakes import MessageView

SETTINGS = ["Lo", "Lxn", "Lxn", "Lxi", "Lb"]
"""Open the settings, the level twice (amateur, beginner), hints on, back."""


def _codes(msg: MessageView | None) -> list[str]:
    return [code_of(d) for _, d in msg.buttons] if msg is not None else []


async def test_the_hint_button_answers_the_person_on_turn_alone(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        h.service.robots.hints.wait = None  # the answer never depends on how busy the machine is
        await open_and_start(h, settings_presses=SETTINGS)
        table = h.table()
        assert (table.settings.robot_level, table.settings.hints) == ("beginner", True)
        lobby = h.fake.bot_messages(h.group)[0]  # now the start message
        assert t("en", "lobby.started") in lobby.content
        assert "🤖 Computer level: beginner" in lobby.content
        assert "💡 Computer hints are on" in lobby.content
        me = h.actor()
        assert me is not None
        mine = h.hand_message(me)
        assert mine is not None and _codes(mine)[-1] == "H"
        assert ("💡 Hint", button(mine, "H")) in mine.buttons
        for other in h.users:
            if other is not me:
                assert "H" not in _codes(h.hand_message(other))
        game = table.game
        assert game is not None and game.current is not None and game.current.actor is not None
        expected = hint(seat_view(game.current, game.current.actor))
        data = button(mine, "H")
        answer = await h.press(me, mine, data)
        assert is_alert(answer)
        assert answer["text"] == hint_text(expected, "en")
        assert answer["text"].startswith("💡 The computer in your seat: ")
        moved = table.move
        await h.act(lambda deal, codes: "bP")
        assert table.move > moved
        qid = h.fake.press(me, mine, data, force=True)  # the old message's button
        await h.idle()
        stale = h.fake.callback_answer(qid)
        assert is_alert(stale) and stale["text"] == t("en", "err.hint_late")
        assert h.fake.unanswered_callbacks() == []


async def test_no_hint_button_unless_the_table_gives_hints(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        await open_and_start(h)
        table = h.table()
        assert (table.settings.robot_level, table.settings.hints) == ("strong", False)
        me = h.actor()
        assert me is not None
        codes = _codes(h.hand_message(me))
        assert codes and "H" not in codes
        lobby = h.fake.bot_messages(h.group)[0]
        assert "Computer level" not in lobby.content and "hints" not in lobby.content
