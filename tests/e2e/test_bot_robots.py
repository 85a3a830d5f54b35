"""End-to-end: one person opens a table in a group, adds two computer players and plays a
whole (short) pulka against them to the settlement; only his presses are driven here."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from bot.core import robots
from bot.core.model import TableSettings
from bot.core.modes import SheetMode
from bot.preferans.robot import Budget
from tests.bot_helpers import Harness, button, is_alert, running_bot, simple_policy, take_turn

CHEAP = Budget(samples=2, nodes=200, total=400)
"""Card play that thinks little (the strength is measured by tests/perf/players.py)."""


async def _press_lobby(h: Harness, code: str) -> dict[str, object]:
    slot = h.table_slot()
    assert slot is not None and slot.message_id is not None
    lobby = h.fake.message(h.group.id, slot.message_id)
    data = button(lobby, code)
    return await h.press(h.users[0], lobby, data)


async def _until_my_turn_or_over(h: Harness, seconds: float = 120.0) -> bool:
    """Let the computer players act (on the job queue); ``True`` when the person is to act.
    ``seconds`` only bounds a hang: their searches take as long as a busy machine lets them."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        table = h.table()
        game = table.game
        if game is None or game.over:
            return False
        deal = game.current
        if deal is not None and deal.actor is not None and robots.robot_to_act(table) is None:
            await h.idle()  # his hand message with its buttons is sent
            msg = h.hand_message(h.users[0])
            if msg is not None and msg.buttons:
                return True
        await asyncio.sleep(0.002)
    raise AssertionError("the computer players stopped playing")


@pytest.mark.slow
async def test_one_person_and_two_computer_players_play_a_pulka(tmp_path: Path) -> None:
    settings = TableSettings(pulka=2, turn_time=60, sheet=SheetMode.TEXT)
    async with running_bot(tmp_path, users=1, defaults=settings) as h:
        h.service.robots.budget = CHEAP  # the suite stays fast
        h.rt.scheduler.robot_scale = 0.02  # the pauses, shortened
        me = h.users[0]
        await h.say(me, "/newgame")
        for code in ("Lo", "Lxr", "Lb", "La", "La", "Ls"):  # fast pace, two robots, sit
            answer = await _press_lobby(h, code)
            assert not is_alert(answer), (code, answer)
        table = h.table()
        assert table.settings.robot_pace == "fast"
        assert [p.name for p in table.seats if p] == ["🤖 Peter", "🤖 Olga", me.first_name]
        lobby_text = h.fake.bot_messages(h.group)[0].content  # the lobby
        assert "🤖 Peter" in lobby_text and "🤖 Olga" in lobby_text
        assert not is_alert(await _press_lobby(h, "Lg"))
        policy = simple_policy({2: ["b6S", "b6C", "b6D"]}, contract="c6S", whist="wW,wP")
        turns = 0
        while await _until_my_turn_or_over(h):
            await take_turn(h, policy)
            turns += 1
        game = h.table().game
        assert game is not None and game.finished and turns > 0
        assert len(game.finished_deals) >= 2
        for _ in range(100):  # the last robot move may still be on its way to the group
            await h.idle()
            texts = h.group_texts()
            if any("Game over" in t for t in texts):
                break
            await asyncio.sleep(0.02)
        settlement = next(t for t in reversed(texts) if "Game over" in t)
        assert "🤖 Peter" in settlement and "🤖 Olga" in settlement and me.first_name in settlement
        # the robots never got a private message: only the person has a private chat
        assert all(not robots.is_robot(p) for p in h.table().seats[2:])
        await h.say(me, "/top")
        top = h.group_texts()[-1]
        people, _, machines = top.partition("🤖 Computer players")
        assert me.first_name in people and "🤖" not in people
        assert "🤖 Peter" in machines and "🤖 Olga" in machines
        assert h.fake.unanswered_callbacks() == []
