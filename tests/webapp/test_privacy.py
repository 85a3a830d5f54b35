"""The privacy watch: a whole deal played on the Mini App against two computer players,
every frame sent to the browser checked against what the rules let its seat see."""

from __future__ import annotations

from pathlib import Path

from bot.core.model import TableSettings
from bot.preferans.robot import Budget
from tests.bot_helpers import Harness, code_of, is_alert, running_bot

from .helpers import opened
from .play import Watch, play_deal

CHEAP = Budget(samples=2, nodes=200, total=400)


async def _press_lobby(h: Harness, code: str) -> None:
    slot = h.table_slot()
    assert slot is not None and slot.message_id is not None
    lobby = h.fake.message(h.group.id, slot.message_id)
    data = next(d for _, d in lobby.buttons if d and code_of(d) == code)
    assert not is_alert(await h.press(h.users[0], lobby, data))


async def test_no_frame_shows_a_card_the_seat_may_not_see(tmp_path: Path) -> None:
    settings = TableSettings(pulka=20, turn_time=60)
    async with running_bot(tmp_path, users=1, defaults=settings, webapp=True, seed=11) as h:
        h.service.robots.budget = CHEAP
        h.rt.scheduler.robot_scale = 0.02
        me = h.users[0]
        watch = Watch(h)
        await h.say(me, "/newgame")
        for code in ("Lo", "Lxr", "Lb", "La", "La", "Ls"):  # fast pace, two robots, sit
            await _press_lobby(h, code)
        table = h.table()
        async with opened(h, me, table.id) as socket:
            await socket.state()  # the lobby
            await _press_lobby(h, "Lg")
            frame = await play_deal(h, socket)
            await play_deal(h, socket, frame)  # a second deal: another dealer
            frames = list(socket.frames)
        for frame in frames:
            watch.check(frame)
        states = [f for f in frames if f["t"] == "state" and f["phase"] is not None]
        assert watch.checked == len(states) > 20
        assert {f["deal"] for f in states} >= {1, 2}
        # his cards were never another's: the hand is his seat's in every state
        assert all(f["me"] == 2 for f in states)
