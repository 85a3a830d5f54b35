"""The group's and the players' messages around the table through the fake Bot API: the
lobby (a full one, one who has not opened the private chat), stop votes, a replaced
player's hand, turn notifications."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from bot.core import effects as fx
from bot.core.model import TableSettings
from bot.preferans.seats import Seat, replaceable
from bot.render.callbacks import to_base36
from bot.telegram.scheduler import JobKind
from tests.bot_helpers import Harness, button, is_alert, open_and_start, running_bot
from tests.fakes import ManualClock


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
    data = button(lobby, "Ls")
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
        assert text.endswith("Every seat is taken: any seated player may press «Start».")
        assert "Press «Sit down»" not in text
        assert all(_rows(c) and all(_rows(c)) for c in _group_requests(h))  # no empty row
        assert is_alert(await _sit(h, h.users[0], lobby))  # seated already


async def _time_out_until(h: Harness, clock: ManualClock, done: Any) -> None:
    """Whoever is to act times out, until ``done()``."""
    table = h.table()
    for _ in range(100):
        if done():
            return
        clock.advance(31)
        await h.rt.scheduler.on_timer(JobKind.TURN, table.id, table.move)
        await h.idle()
    raise AssertionError("it never came")


async def _late_player(h: Harness, clock: ManualClock) -> tuple[Any, Seat]:
    """Start a game; the first player to act misses turns until his seat is offered."""
    await open_and_start(h)
    table = h.table()
    late = h.actor()
    assert late is not None
    seat = table.seat_of(late.id)
    assert seat is not None
    await _time_out_until(h, clock, lambda: replaceable(table.timeouts) == [seat])
    return late, seat


def _offer(h: Harness, seat: Seat) -> Any:
    """The group's "… keeps missing turns": take the seat, or let a computer play."""
    return next(m for m in reversed(h.fake.bot_messages(h.group)) if f":Q{seat}" in str(m.buttons))


@pytest.mark.parametrize("by", ["computer", "person"])
async def test_a_replaced_players_hand_is_frozen_and_says_how_to_come_back(
    tmp_path: Path, by: str
) -> None:
    """After two timeouts in a row his seat goes to a computer player (or to a person who
    was not seated): his hand message loses its buttons and its "your turn", and says who
    plays for him (and, for a computer, which group button gives the seat back)."""
    clock = ManualClock()
    async with running_bot(
        tmp_path, users=4, clock=clock, defaults=TableSettings(turn_time=30)
    ) as h:
        late, seat = await _late_player(h, clock)
        table = h.table()
        await _time_out_until(h, clock, lambda: h.actor() is late)  # his buttons are back
        hand = h.hand_message(late)
        assert hand is not None and hand.buttons and "👉 Your" in hand.content
        offer = _offer(h, seat)
        if by == "computer":
            presser, code = next(u for u in h.users[:3] if u is not late), f"Q{seat}"
        else:
            presser, code = h.users[3], f"R{seat}"
        assert not is_alert(await h.press(presser, offer, button(offer, code)))
        assert table.seat_of(late.id) is None
        frozen = h.fake.message(late.id, hand.message_id)
        assert not frozen.buttons and "👉 Your" not in frozen.content and "⏳" not in frozen.content
        if by == "computer":
            robot = table.seats[seat]
            assert robot is not None
            assert frozen.content.endswith(
                f"🤖 {robot.name} plays for you now. To come back, press "
                f"«🪑 Take seat {seat + 1} back» in the group."
            )
            back = h.fake.last_bot_message(h.group)
            assert back is not None and button(back, f"R{seat}")  # the button it names
        else:
            assert frozen.content.endswith("🪑 Gleb plays in your seat now.")


async def _hold(h: Harness) -> asyncio.Event:
    """Hold the group's queue (as Telegram's limits do) until the event is set; returns
    once the hold is really in place, not still waiting for its turn behind the start."""
    gate = asyncio.Event()
    holding = asyncio.Event()

    async def hold() -> bool:
        holding.set()
        await gate.wait()
        return False  # no request: nothing to pace

    h.rt.outbox.call(h.group.id, hold)
    await holding.wait()
    return gate


def _vote_messages(h: Harness) -> list[Any]:
    """The group messages that ever showed a vote to stop."""
    return [
        m
        for m in h.fake.bot_messages(h.group)
        if any("votes to stop" in str(v.get("text", "")).lower() for v in m.history)
        or "votes to stop" in m.content.lower()
    ]


async def test_a_vote_is_one_message_told_when_it_lapses_and_frozen_at_the_end(
    tmp_path: Path,
) -> None:
    clock = ManualClock()
    settings = TableSettings(turn_time=30, players=4)
    async with running_bot(tmp_path, users=4, clock=clock, defaults=settings) as h:
        anna, boris, vera, _ = h.users
        await open_and_start(h)
        table = h.table()
        await h.say(anna, "/stop")
        [vote] = _vote_messages(h)
        assert vote.content.startswith("🛑 Votes to stop the game: Anna (1 of 3).")
        assert button(vote, "V")
        assert not is_alert(await h.press(boris, vote, button(vote, "V")))
        [vote] = _vote_messages(h)  # the same message, edited: no second one
        assert vote.content.startswith("🛑 Votes to stop the game: Anna, Boris (2 of 3).")
        await _time_out_until(h, clock, lambda: table.deal_no == 2)
        [vote] = _vote_messages(h)
        assert vote.content == (
            "🛑 The vote to stop is closed: the deal ended without a majority "
            "(for: Anna, Boris, 2 of 3). To vote again: /stop."
        )
        assert not vote.buttons
        # deal 2: a new vote, and the game stops; its message keeps no button
        for user in (vera, anna):
            await h.say(user, "/stop")
        second = _vote_messages(h)[-1]
        assert second.message_id != vote.message_id and button(second, "V")
        assert not is_alert(await h.press(boris, second, button(second, "V")))
        assert table.status == "over"
        second = h.fake.message(h.group.id, second.message_id)
        assert not second.buttons and second.content.endswith("🛑 The game is stopped.")
        assert second.content.startswith("🛑 Votes to stop the game: Anna, Boris, Vera (3 of 3).")


async def test_a_vote_that_has_not_gone_out_when_the_game_stops_never_does(
    tmp_path: Path,
) -> None:
    """The group's messages wait (Telegram's limits): the first vote is still queued when the
    second stops the game; the group never gets a vote with a live button."""
    async with running_bot(tmp_path) as h:
        anna, boris, _ = h.users
        await open_and_start(h)
        table = h.table()
        gate = await _hold(h)
        h.fake.send_text(anna, h.group, "/stop")
        h.fake.send_text(boris, h.group, "/stop")
        await h.fake.wait_until(lambda: table.status == "over", timeout=60)
        gate.set()
        await h.idle()
        assert table.game is not None and table.game.stopped
        assert _vote_messages(h) == []
        assert any("Game stopped" in text for text in h.group_texts())


async def test_a_game_stopped_before_any_deal_was_settled_rings_its_end_once(
    tmp_path: Path,
) -> None:
    """The group rings for a game's end (Sound), also when the vote stops it in the first
    deal, before anything was scored."""
    async with running_bot(tmp_path) as h:
        anna, boris, _ = h.users
        await open_and_start(h)
        table = h.table()
        start = len(h.fake.calls)
        for user in (anna, boris):
            await h.say(user, "/stop")
        await h.idle()
        assert table.status == "over"
        rang = [  # any new group message (text, the final sheet's photo) that rang
            c
            for c in h.fake.calls[start:]
            if c.method.startswith("send")
            and str(c.params.get("chat_id")) == str(h.group.id)
            and not c.params.get("disable_notification")
        ]
        assert [c.method for c in rang] == ["sendMessage"]
        assert rang[0].params["text"].startswith("🛑 <b>Game stopped.</b> Settlement in whists:")


async def test_the_seat_messages_lose_their_buttons_when_the_game_ends(tmp_path: Path) -> None:
    """The messages "… keeps missing turns" and "🤖 … plays instead of …" offer seats while
    the game runs: when it stops, both keep their text and lose their buttons."""
    clock = ManualClock()
    async with running_bot(
        tmp_path, users=4, clock=clock, defaults=TableSettings(turn_time=30)
    ) as h:
        late, seat = await _late_player(h, clock)
        table = h.table()
        offer = _offer(h, seat)
        presser = next(u for u in h.users[:3] if u is not late)
        assert not is_alert(await h.press(presser, offer, button(offer, f"Q{seat}")))
        back = h.fake.last_bot_message(h.group)
        assert back is not None and button(back, f"R{seat}")
        for user in [u for u in h.users[:3] if u is not late]:
            await h.say(user, "/stop")
        assert table.status == "over"
        for message in (offer, back):
            now = h.fake.message(h.group.id, message.message_id)
            assert not now.buttons
            assert now.content == message.content + "\n\n🛑 The game is stopped."


async def test_seat_messages_still_queued_when_the_game_stops_never_go_out(
    tmp_path: Path,
) -> None:
    """The group's queue is held (Telegram's limits) while a seat is offered and a computer
    takes one; the game stops before they go out: the group never gets their buttons."""
    async with running_bot(tmp_path) as h:
        anna, boris, _ = h.users
        await open_and_start(h)
        table = h.table()
        gate = await _hold(h)
        h.rt.presenter.show(
            (
                fx.SeatReplaceable(table, Seat(2)),
                fx.RobotReplaced(table, Seat(2), "Vera", h.users[2].id),
            )
        )
        h.fake.send_text(anna, h.group, "/stop")
        h.fake.send_text(boris, h.group, "/stop")
        await h.fake.wait_until(lambda: table.status == "over", timeout=60)
        gate.set()
        await h.idle()
        texts = " ".join(str(v) for m in h.fake.bot_messages(h.group) for v in m.history)
        texts += " ".join(h.group_texts())
        assert "keeps missing turns" not in texts
        assert "now plays instead of" not in texts
        assert any("Game stopped" in text for text in h.group_texts())
