"""The privacy watch: a whole deal played on the Mini App against two computer players,
every frame sent to the browser checked against what the rules let its seat see."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.core.model import Table, TableSettings
from bot.core.viewcache import seat_view
from bot.preferans.cards import Card, parse_card
from bot.preferans.robot import Budget
from bot.preferans.seats import Seat
from tests.bot_helpers import Harness, cards_in, code_of, is_alert, running_bot

from .helpers import Frame, opened
from .play import play_deal

CHEAP = Budget(samples=2, nodes=200, total=400)

Key = tuple[int, int]
"""A table's ``(deal_no, move)``: one state of its deal."""


class Watch:
    """What each seat may see at every state of the table, noted under the table's lock
    as each change is applied (every change goes through ``TableService._locked``)."""

    def __init__(self, h: Harness) -> None:
        self.seen: dict[Seat, dict[Key, tuple[frozenset[Card], tuple[Card, ...]]]] = {}
        self.checked = 0
        service = h.service
        locked = service._locked

        async def watched(table: Table, change: Any, save: bool | None) -> Any:
            def noted(tb: Table) -> Any:
                effects = change(tb)
                self.note(tb)
                return effects

            return await locked(table, noted, save)

        service._locked = watched  # type: ignore[method-assign]

    def note(self, table: Table) -> None:
        deal = table.game.current if table.game is not None else None
        if deal is None:
            return
        for seat in map(Seat, range(deal.players)):
            sv = seat_view(deal, seat)
            views = self.seen.setdefault(seat, {})
            views[(table.deal_no, table.move)] = (sv.visible_cards(), sv.hand)

    def check(self, frame: Frame) -> None:
        """Every card of a state of the current deal is one its seat may see at that state,
        and its hand is exactly the seat's hand."""
        if frame["t"] != "state" or frame["phase"] is None:
            assert not any(frame[k] for k in ("hand", "trick", "tricks", "talon", "open"))
            return
        seat = Seat(frame["me"])
        allowed, hand = self.seen[seat][(frame["deal"], frame["move"])]
        assert [c["card"] for c in frame["hand"]] == [c.code for c in hand]
        shown = set(cards_of(frame))
        assert shown <= allowed, f"seat {seat} shown {sorted(shown - allowed)}"
        self.checked += 1


def cards_of(frame: Frame) -> list[Card]:
    """Every card a state shows of the current deal: its fields and its texts."""
    codes = [c["card"] for c in frame["hand"]]
    codes += [c["card"] for cards in frame["controlled"].values() for c in cards]
    codes += [c for cards in frame["open"].values() for c in cards]
    codes += [tc["card"] for tc in frame["trick"]]
    codes += [tc["card"] for trick in frame["tricks"] for tc in trick["cards"]]
    codes += frame["talon"] + frame["discard"] + frame["offer_hand"]
    found = [parse_card(c) for c in codes]
    for text in [*frame["status"], *(b["text"] for row in frame["buttons"] for b in row)]:
        found += cards_in(text)
    return found


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
