"""Telegram failing or changing under a running game, injected by the fake Bot API: flood
control (429 with retry_after, in bursts), timeouts and connection resets, 5xx, "message
to edit not found" (someone deleted the table message), "message is not modified",
``Forbidden`` (a player blocked the bot), a group upgraded to a supergroup, the bot
removed from the group and added back. Each time the game survives and goes on to its
end, every press is answered, nothing is logged at ERROR, and the record replays."""

from __future__ import annotations

import asyncio
import functools
import logging
from pathlib import Path
from typing import Any

import pytest
from telegram.error import ChatMigrated

from bot.core.model import TableSettings
from bot.core.modes import SheetMode
from bot.preferans.seats import Seat
from bot.render.text import hand_lines
from bot.telegram.outbox import Outbox
from bot.telegram.running import ALLOWED_UPDATES
from bot.telegram.scheduler import JobKind
from bot.telegram.shown import Slot
from storage import Storage
from tests.bot_helpers import (
    Harness,
    button,
    flood_waits,
    is_alert,
    open_and_start,
    quick_code,
    running_bot,
    waits_after_429,
)
from tests.fakes import FakeTelegram, FloodLimits, ManualClock
from tests.hostile_helpers import (
    ErrorLog,
    PrivacyWatch,
    assert_replays,
)

QUICK = TableSettings(pulka=2, turn_time=60, sheet=SheetMode.TEXT)
FLOOD_WAIT = 0.2
"""retry_after of the injected 429s: Telegram's whole seconds scaled down (each one is
still waited out, see :func:`waits_after_429`)."""
FAST_RETRIES = {"group_limit": 100_000, "group_fast_interval": 0.0, "retry_base": 0.05}
"""The outbox's pauses between attempts scaled by 1/20 (0.5 s, 1 s...: 25 ms, 50 ms...):
the failures are what is tested here, not how long the outbox waits after them."""


def _edits_in(chat: int, method: str, params: dict[str, Any]) -> bool:
    """Whether a call edits a message in ``chat``."""
    return method == "editMessageText" and params.get("chat_id") == chat


async def play_to_the_end(h: Harness, max_turns: int = 400) -> None:
    table = h.table()
    game = table.game
    assert game is not None
    for _ in range(max_turns):
        if game.over:
            break
        await h.act(quick_code)
    assert game.over and table.status == "over"
    await h.idle()
    assert_replays(game)
    assert h.fake.unanswered_callbacks() == []


def _table_slot(h: Harness) -> Slot:
    """The group's table message, as the Telegram side keeps it (it has one)."""
    slot = h.table_slot()
    assert slot is not None, "no table message"
    return slot


def assert_messages_current(h: Harness) -> None:
    """The group's table message and every hand message show the current state."""
    table = h.table()
    game = table.game
    assert game is not None and game.current is not None
    assert (slot := h.table_slot()) is not None and slot.message_id is not None
    tm = h.fake.message(slot.chat_id, slot.message_id)
    assert f"Deal {table.deal_no}" in tm.content and not tm.deleted
    actor = game.current.actor
    for seat, slot in h.hand_slots().items():
        assert slot.message_id is not None, f"seat {seat} has no hand message"
        msg = h.fake.message(slot.chat_id, slot.message_id)
        assert not msg.deleted
        assert bool(msg.buttons) == (actor is not None and seat == int(actor)), (seat, msg)


@pytest.mark.waits
async def test_flood_control_bursts_are_waited_out(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "bot.telegram.pacing")
    fake = FakeTelegram(flood=FloodLimits(enabled=False))
    with ErrorLog() as errors:
        async with running_bot(tmp_path, http=True, fake=fake, defaults=QUICK) as h:
            watch = PrivacyWatch(h).install()
            await open_and_start(h)
            group = h.group.id
            for turn in range(8):
                if turn in (0, 4):  # a burst on the group, then on a player's chat
                    chat = group if turn == 0 else h.users[1].id
                    fake.fail_when(
                        functools.partial(_edits_in, chat),
                        error=(429, FLOOD_WAIT),
                        times=3 if turn == 0 else 2,
                    )
                await h.act(quick_code)
            assert len(fake.flood_errors) == 5
            waits = waits_after_429(fake)
            assert len(waits) == 5 and all(waited >= wait for wait, waited in waits), waits
            assert flood_waits(caplog) == 5  # each waited out once, by the outbox alone
            assert_messages_current(h)
            limited = [c.params.get("chat_id") for c in fake.calls if c.status == 429]
            assert limited.count(group) == 3 and limited.count(h.users[1].id) == 2
            await play_to_the_end(h)
            assert watch.violations == []
    assert errors.lines() == []


async def test_a_long_flood_burst_is_waited_out_once_per_429(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Five 429s in a row on one edit: the outbox waits each out once, as long as Telegram
    says, and the edit gets through; nothing is logged as an error."""
    caplog.set_level(logging.INFO, "bot.telegram.pacing")
    fake = FakeTelegram(flood=FloodLimits(enabled=False))
    with ErrorLog() as errors:
        async with running_bot(tmp_path, fake=fake, defaults=QUICK) as h:
            await open_and_start(h)
            fake.fail_next("editMessageText", times=5, error=(429, FLOOD_WAIT))
            await h.act(quick_code)
            assert_messages_current(h)
            waits = waits_after_429(fake)
            assert len(waits) == 5 and all(waited >= wait for wait, waited in waits), waits
            assert flood_waits(caplog) == 5
            await play_to_the_end(h)
    assert errors.lines() == []


@pytest.mark.slow
@pytest.mark.waits
@pytest.mark.parametrize("http", [False, True])
async def test_timeouts_resets_and_5xx(tmp_path: Path, http: bool) -> None:
    fake = FakeTelegram(flood=FloodLimits(enabled=False))
    with ErrorLog() as errors:
        async with running_bot(
            tmp_path, http=http, fake=fake, defaults=QUICK, outbox_options=FAST_RETRIES
        ) as h:
            watch = PrivacyWatch(h).install()
            await open_and_start(h)
            failures: list[tuple[Any, dict[str, Any]]] = [
                ("editMessageText", {"error": "reset", "times": 2}),
                ("editMessageText", {"error": "reset", "applied": True}),
                ("sendMessage", {"error": (500, "Internal Server Error"), "times": 3}),
                ("editMessageText", {"error": (502, "Bad Gateway"), "times": 2}),
                ("answerCallbackQuery", {"error": (500, "Internal Server Error")}),
                ("answerCallbackQuery", {"error": "reset", "applied": True}),
                ("*", {"error": (503, "Service Unavailable"), "times": 2}),
            ]
            if not http:  # over HTTP a timeout holds the connection for PTB's 5 s
                failures += [
                    ("editMessageText", {"error": "timeout", "times": 2}),
                    ("answerCallbackQuery", {"error": "timeout"}),
                    ("sendMessage", {"error": "timeout", "applied": True}),
                ]
            for method, kwargs in failures:
                if method == "*":  # any request of the bot's (getUpdates: see below)
                    fake.fail_when(lambda m, p: m != "getUpdates", **kwargs)
                else:
                    fake.fail_next(method, **kwargs)
                await h.act(quick_code)
                assert_messages_current(h)
            failed = [c for c in fake.calls if not c.ok]
            assert len(failed) >= len(failures)
            if not http:  # long polling fails too: PTB's updater logs it and polls again
                fake.fail_next("getUpdates", times=2, error=(502, "Bad Gateway"))
                await asyncio.sleep(0.5)
            await play_to_the_end(h)
            assert watch.violations == []
    assert all(r.name == "telegram.ext.Updater" for r in errors.records), errors.lines()
    assert all("polling for updates" in r.getMessage() for r in errors.records)


async def test_a_deleted_table_message_is_posted_again(tmp_path: Path) -> None:
    """Somebody deleted the group's table message and a player his hand message: the next
    change posts them anew ("message to edit not found") and later edits go there."""
    with ErrorLog() as errors:
        async with running_bot(tmp_path, defaults=QUICK) as h:
            await open_and_start(h)
            table = h.table()
            old_table_msg = _table_slot(h).message_id
            victim = h.users[0]
            seat = table.seat_of(victim.id)
            assert seat is not None
            old_hand = h.hand_slots()[seat].message_id
            h.fake.handle("deleteMessage", {"chat_id": h.group.id, "message_id": old_table_msg})
            h.fake.handle("deleteMessage", {"chat_id": victim.id, "message_id": old_hand})
            await h.act(quick_code)
            await h.act(quick_code)
            assert any(
                "message to edit not found" in str(c.response)
                for c in h.fake.calls_to("editMessageText")
            )
            assert _table_slot(h).message_id != old_table_msg
            assert h.hand_slots()[seat].message_id != old_hand
            assert_messages_current(h)
            rows = await h.service.storage.shown_rows(table.id)
            shown = [r.message_id for r in rows if r.kind == "table"]
            assert (mid := _table_slot(h).message_id) is not None and mid in shown
            await play_to_the_end(h)
    assert errors.lines() == []


async def test_message_is_not_modified_is_harmless(tmp_path: Path) -> None:
    with ErrorLog() as errors:
        async with running_bot(tmp_path, defaults=QUICK) as h:
            await open_and_start(h)
            for _ in range(3):
                h.fake.fail_next(
                    "editMessageText",
                    error=(
                        400,
                        "Bad Request: message is not modified: specified new message content "
                        "and reply markup are exactly the same as a current content and reply "
                        "markup of the message",
                    ),
                )
                await h.act(quick_code)
            await play_to_the_end(h)
    assert errors.lines() == []


@pytest.mark.slow
async def test_a_player_who_blocks_the_bot_keeps_his_seat_and_the_timer_plays(
    tmp_path: Path,
) -> None:
    clock = ManualClock()
    with ErrorLog() as errors:
        async with running_bot(tmp_path, clock=clock, defaults=QUICK) as h:
            await open_and_start(h)
            table = h.table()
            game = h.game()
            victim = h.actor()
            assert victim is not None
            seat = table.seat_of(victim.id)
            assert seat is not None
            h.fake.block_bot(victim)  # my_chat_member: the group hears it at once
            await h.idle()
            assert sum("blocked the bot" in t for t in h.group_texts()) == 1
            assert (held := table.seats[seat]) is not None and held.user_id == victim.id
            jobs = h.app.job_queue.get_jobs_by_name(f"table:{table.id}")
            assert jobs, "the turn timer is armed"

            # the timer acts for him whenever it is his turn; the others play
            def all_pass(deal: Any, codes: list[str]) -> str:
                return "bP" if "bP" in codes else quick_code(deal, codes)

            async def play(turns: int) -> None:
                for _ in range(turns):
                    if game.over:
                        return
                    if h.actor() is victim:
                        before = table.move
                        clock.advance(61)
                        await h.rt.scheduler.on_timer(JobKind.TURN, table.id, table.move)
                        await h.idle()
                        assert table.move > before
                    else:
                        await h.act(all_pass)

            deal = h.deal()
            while len(deal.hand(Seat(seat))) == 10 and game.current is deal:
                await play(1)  # until one of his cards was played for him
            assert game.current is deal, "(another seed: the deal ended early)"
            assert (held := table.seats[seat]) is not None and held.user_id == victim.id
            # unblocking brings his hand message up to date (it missed the edits)
            h.fake.unblock_bot(victim)
            await h.idle()
            deal = game.current
            hand_id = h.hand_slots()[seat].message_id
            assert hand_id is not None
            msg = h.fake.message(victim.id, hand_id)
            mine = "\n".join(hand_lines(deal.hand(Seat(seat))))
            assert mine and mine in (msg.sent_text or ""), msg.content
            # blocked again: the next deals' hand messages cannot be sent at all
            h.fake.block_bot(victim)
            await h.idle()
            deal_no = table.deal_no
            await play(200)
            assert not game.over and table.deal_no > deal_no  # the next deals were dealt
            assert sum("blocked the bot" in t for t in h.group_texts()) == 2
            h.fake.unblock_bot(victim)
            await h.idle()
            if not game.over:
                hand_id = h.hand_slots()[seat].message_id
                assert hand_id is not None
                msg = h.fake.message(victim.id, hand_id)
                assert f"Deal {table.deal_no}" in msg.content
            await play_to_the_end(h)
    assert errors.lines() == []


async def test_group_upgraded_to_a_supergroup_mid_game(tmp_path: Path) -> None:
    with ErrorLog() as errors:
        async with running_bot(tmp_path, defaults=QUICK) as h:
            watch = PrivacyWatch(h).install()
            await open_and_start(h)
            table = h.table()
            await h.act(quick_code)
            old = h.group
            new = h.fake.upgrade_to_supergroup(old)
            await h.idle()
            h.group = new
            assert table.chat_id == new.id
            assert h.service.registry.open_table(new.id) is table
            assert_messages_current(h)  # a new table message in the supergroup
            assert _table_slot(h).chat_id == new.id
            row = await h.service.storage.table(table.id)
            assert row is not None and row.chat_id == new.id
            await h.act(quick_code)
            await h.say(h.users[0], "/pulka", new)
            assert h.fake.bot_messages(new)[-1].content
            await play_to_the_end(h)
            watch.check_transport([old.id, new.id, *(u.id for u in h.users)])
            assert watch.violations == []
    assert errors.lines() == []


async def test_group_upgraded_while_the_lobby_is_open(tmp_path: Path) -> None:
    with ErrorLog() as errors:
        async with running_bot(tmp_path, defaults=QUICK) as h:
            await h.say(h.users[0], "/newgame")
            table = h.table()
            new = h.fake.upgrade_to_supergroup(h.group)
            await h.idle()
            h.group = new
            lobby = h.fake.last_bot_message(new)
            assert lobby is not None and _table_slot(h).message_id == lobby.message_id
            for user in h.users:
                data = button(lobby, "Ls")
                assert not is_alert(await h.press(user, lobby, data))
            data = button(lobby, "Lg")
            assert not is_alert(await h.press(h.users[0], lobby, data))
            assert table.status == "playing"
    assert errors.lines() == []


async def test_outbox_follows_chat_migrated() -> None:
    """A send to a group that became a supergroup (before its update arrived): the outbox
    reports it and sends the message to the new chat id."""
    sent: list[tuple[int, str]] = []
    moved: list[tuple[int, int]] = []

    class Bot:
        async def do_api_request(self, endpoint: str, api_kwargs: dict[str, Any]) -> Any:
            chat_id = int(api_kwargs["chat_id"])  # as PTB writes it: its JSON text
            if chat_id == -1:
                raise ChatMigrated(-1001)
            sent.append((chat_id, api_kwargs["text"]))
            return {"message_id": len(sent)}

    async def on_migrated(old: int, new: int) -> None:
        moved.append((old, new))

    outbox = Outbox(Bot(), private_interval=0, group_fast_interval=0)
    outbox.on_migrated = on_migrated
    outbox.post(-1, "result")
    await outbox.drain(5)
    await asyncio.sleep(0)
    await outbox.drain(5)
    assert moved == [(-1, -1001)] and sent == [(-1001, "result")]


async def test_storage_moves_a_chat(tmp_path: Path) -> None:
    store = await Storage.open(str(tmp_path / "db.sqlite3"))
    try:
        tid = await store.create_table(-5, 1, {}, {})
        await store.move_chat(-5, -1005)
        row = await store.table(tid)
        assert row is not None and row.chat_id == -1005
        assert (await store.last_table(-1005)) is not None and await store.last_table(-5) is None
    finally:
        await store.close()


def test_allowed_updates_include_my_chat_member() -> None:
    assert "my_chat_member" in ALLOWED_UPDATES


async def test_bot_removed_pauses_the_table_and_re_adding_resumes_it(tmp_path: Path) -> None:
    clock = ManualClock()
    fake = FakeTelegram(flood=FloodLimits(enabled=False))
    with ErrorLog() as errors:
        async with running_bot(tmp_path, fake=fake, clock=clock, defaults=QUICK) as h:
            people, group = h.users, h.group
            await open_and_start(h)
            table = h.table()
            await h.act(quick_code)
            record, move = h.game().to_record(), table.move
            fake.remove_bot(group)
            await h.idle()
            assert table.paused
            for user in h.users:  # each player hears it privately
                assert "paused" in h.fake.bot_messages(user)[-1].content
            # nothing moves: presses are refused, the timer does not act
            actor = h.actor()
            assert actor is not None
            msg = h.hand(actor)
            answer = await h.press(actor, msg, msg.buttons[0][1])
            assert is_alert(answer) and "paused" in answer["text"]
            clock.advance(1000)
            await h.rt.scheduler.on_timer(JobKind.TURN, table.id, table.move)
            await h.idle()
            assert h.game().to_record() == record and table.move == move
            assert not h.app.job_queue.get_jobs_by_name(f"table:{table.id}")
        # a restart while paused stays paused and silent in the group
        async with running_bot(tmp_path, fake=fake, people=people, group=group, clock=clock) as h:
            table = h.table()
            assert table.paused and table.move == move
            group_calls = [c for c in fake.calls if c.params.get("chat_id") == group.id]
            fake.add_bot(group)
            await h.idle()
            assert not table.paused
            assert table.deadline is not None and table.deadline > clock() + 30
            texts = [m.content for m in fake.bot_messages(group)]
            assert any("bot is back" in t for t in texts)
            assert len([c for c in fake.calls if c.params.get("chat_id") == group.id]) > len(
                group_calls
            )
            assert_messages_current(h)
            await play_to_the_end(h)
    assert errors.lines() == []


async def test_bot_removed_from_a_lobby(tmp_path: Path) -> None:
    with ErrorLog() as errors:
        async with running_bot(tmp_path, defaults=QUICK) as h:
            await h.say(h.users[0], "/newgame")
            table = h.table()
            lobby = h.fake.last_bot_message(h.group)
            assert lobby is not None
            h.fake.remove_bot(h.group)
            await h.idle()
            assert table.paused
            data = button(lobby, "Ls")
            assert is_alert(await h.press(h.users[1], lobby, data))
            h.fake.add_bot(h.group)
            await h.idle()
            assert not table.paused
            lobby = h.fake.last_bot_message(h.group)
            assert h.table_slot().message_id == lobby.message_id
            await open_and_start_from(h, lobby)
            assert table.status == "playing"
    assert errors.lines() == []


async def open_and_start_from(h: Harness, lobby: Any) -> None:
    for user in h.users:
        data = button(lobby, "Ls")
        assert not is_alert(await h.press(user, lobby, data))
    data = button(lobby, "Lg")
    assert not is_alert(await h.press(h.users[0], lobby, data))
