"""Handler tests: the real Application with polling, through python-telegram-bot's request
layer into the fake Telegram (no network)."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest

from bot.core.model import Status, TableSettings
from bot.preferans.seats import replaceable
from bot.render.callbacks import encode
from bot.render.i18n import t
from bot.telegram.scheduler import JobKind
from tests.bot_helpers import (
    NO_FLOOD,
    button,
    cards_in,
    is_alert,
    open_and_start,
    running_bot,
    simple_policy,
    take_turn,
)
from tests.fakes import FakeTelegram, ManualClock


async def test_commands_menu_registered_in_ru_and_en(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        ru = h.fake.commands(language_code="ru")
        default = h.fake.commands()
        assert ru and default
        assert ("newgame", "открыть стол (в группе)") in ru
        assert ("newgame", "open a table (in a group)") in default


async def test_failing_set_my_commands_does_not_stop_the_bot(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    fake = FakeTelegram()
    fake.fail_next("setMyCommands", times=5, error=(500, "Internal Server Error"))
    async with running_bot(tmp_path, fake=fake) as h:
        assert "set_my_commands" in caplog.text
        await h.say(h.users[0], "/newgame")
        assert "New pulka" in h.group_texts()[-1]


async def test_lobby_settings_seats_and_start_rules(tmp_path: Path) -> None:
    async with running_bot(tmp_path, users=5) as h:
        anna, boris, vera, gleb, dasha = h.users
        await h.say(anna, "/newgame")
        lobby = h.fake.last_bot_message(h.group)
        assert lobby is not None and "New pulka" in lobby.content
        await h.say(boris, "/newgame")  # one table per group
        assert "already has a table" in h.group_texts()[-1]
        # only the owner opens and changes the settings
        answer = await h.press(boris, lobby, button(lobby, "Lo"))
        assert is_alert(answer) and "opened the table" in answer["text"]
        await h.press(anna, lobby, button(lobby, "Lo"))
        lobby = h.fake.message(h.group.id, lobby.message_id)
        for code in ("Lxp", "Lxc", "Lxu", "Lxj"):  # 4 players, Leningrad, pulka 30, jumps
            lobby = h.fake.message(h.group.id, lobby.message_id)
            await h.press(anna, lobby, button(lobby, code))
        lobby = h.fake.message(h.group.id, lobby.message_id)
        assert "Leningrad" in lobby.content and "players: 4" in lobby.content
        assert "pulka to 30" in lobby.content and "jumps" in lobby.content
        await h.press(anna, lobby, button(lobby, "Lb"))
        lobby = h.fake.message(h.group.id, lobby.message_id)
        assert lobby.content.count("free") == 4
        # sit, stand, start only when full and by a seated player
        await h.press(anna, lobby, button(lobby, "Ls"))
        answer = await h.press(anna, lobby, button(lobby, "Ls"))
        assert is_alert(answer)
        answer = await h.press(anna, lobby, button(lobby, "Lg"))
        assert is_alert(answer) and "Not every seat" in answer["text"]
        await h.press(boris, lobby, button(lobby, "Ls"))
        await h.press(boris, lobby, button(lobby, "Lu"))
        for user in (boris, vera, gleb):
            await h.press(user, lobby, button(lobby, "Ls"))
        answer = await h.press(dasha, lobby, button(lobby, "Ls"))
        assert is_alert(answer) and "taken" in answer["text"]
        answer = await h.press(dasha, lobby, button(lobby, "Lg"))
        assert is_alert(answer)
        await h.press(vera, lobby, button(lobby, "Lg"))
        lobby = h.fake.message(h.group.id, lobby.message_id)
        assert "The game has started" in lobby.content and not lobby.buttons
        table = h.table()
        assert table.status == "playing" and table.game is not None
        assert table.game.rules.convention.name == "leningrad" and table.game.players == 4
        for user in (anna, boris, vera, gleb):
            assert h.hand_message(user) is not None
        # not seated: her chat holds the answer to her /start alone, no hand
        assert [m.content for m in h.fake.bot_messages(dasha)] == [t("en", "start.private")]
        assert h.fake.unanswered_callbacks() == []


async def test_sitting_down_without_a_private_chat_takes_one_tap(tmp_path: Path) -> None:
    async with running_bot(tmp_path, started=False) as h:
        anna = h.users[0]
        await h.say(anna, "/newgame")
        lobby = h.fake.last_bot_message(h.group)
        assert lobby is not None
        answer = await h.press(anna, lobby, button(lobby, "Ls"))
        assert answer.get("url", "").startswith("https://t.me/fake_test_bot?start=s")
        assert h.table().seats[0] is None
        payload = answer["url"].split("start=")[1]
        await h.start_bot(anna, payload)  # the link opens the bot; Start seats her
        assert h.table().seats[0] is not None
        assert "seat 1" in h.fake.bot_messages(anna)[-1].content
        lobby = h.fake.message(h.group.id, lobby.message_id)
        assert "1. Anna" in lobby.content


async def test_presses_by_strangers_on_old_messages_and_out_of_turn_change_nothing(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path, users=4) as h:
        await open_and_start(h)
        table = h.table()
        stranger = h.users[3]
        actor = h.actor()
        assert actor is not None
        msg = h.hand(actor)
        move = table.move
        assert table.game is not None
        record = table.game.to_record()
        bid = button(msg, "bP")
        # a stranger forges a press of the actor's button in his own chat: not seated
        await h.start_bot(stranger)
        h.fake.send_text(stranger, stranger.id, "hi")
        fake_msg = h.fake.bot_messages(stranger)[-1]
        qid = h.fake.press(stranger, fake_msg, bid, force=True)
        await h.idle()
        assert is_alert(h.fake.callback_answers[qid])
        # a seated player who is not on turn
        other = next(u for u in h.users[:3] if u is not actor)
        omsg = h.hand(other)
        qid = h.fake.press(other, omsg, encode(table.id, table.move, "bP"), force=True)
        await h.idle()
        answer = h.fake.callback_answers[qid]
        assert is_alert(answer) and "not your turn" in answer["text"]
        # garbage and unknown table
        for data in ("nonsense", encode(999, 0, "bP")):
            qid = h.fake.press(actor, msg, data, force=True)
            await h.idle()
            assert is_alert(h.fake.callback_answers[qid])
        assert table.move == move and table.game.to_record() == record
        # the real press works once; pressing the same (now old) button again is "already
        # done" (its answer may have been lost), another old button of his is stale
        await h.press(actor, msg, bid)
        assert table.move == move + 1
        qid = h.fake.press(actor, msg, bid, force=True)
        await h.idle()
        answer = h.fake.callback_answers[qid]
        assert not is_alert(answer) and "Already done" in answer["text"]
        other_bid = next(d for _, d in msg.buttons if d and d != bid)
        qid = h.fake.press(actor, msg, other_bid, force=True)
        await h.idle()
        answer = h.fake.callback_answers[qid]
        assert is_alert(answer) and "out of date" in answer["text"]
        assert table.move == move + 1
        assert h.fake.unanswered_callbacks() == []


async def test_timeouts_auto_act_and_a_stranger_takes_the_seat(tmp_path: Path) -> None:
    clock = ManualClock()
    async with running_bot(
        tmp_path, users=4, clock=clock, defaults=TableSettings(turn_time=30)
    ) as h:
        await open_and_start(h)
        table = h.table()
        first = h.actor()
        assert first is not None
        first_seat = table.seat_of(first.id)
        assert first_seat is not None and table.game is not None
        # everybody times out in the auction: all-pass
        for _ in range(3):
            clock.advance(31)
            await h.rt.scheduler.on_timer(JobKind.TURN, table.id, table.move)
            await h.idle()
        kind = h.deal().kind
        assert kind is not None and kind.value == "all-pass"
        tm = h.table_message()
        assert tm is not None and "ran out of time" in tm.content
        # the first hand leads trick 1... and times out again: his seat may be taken
        assert h.actor() is first
        clock.advance(31)
        await h.rt.scheduler.on_timer(JobKind.TURN, table.id, table.move)
        await h.idle()
        note = h.group_texts()[-1]
        assert "keeps missing turns" in note
        take = h.fake.last_bot_message(h.group)
        assert take is not None
        assert replaceable(table.timeouts) == [first_seat]
        mine = h.hand(first)
        assert "Time is up" in mine.content
        newcomer = h.users[3]
        answer = await h.press(newcomer, take, button(take, f"R{first_seat}"))
        assert not is_alert(answer)
        taker = table.seats[first_seat]
        assert taker is not None and taker.user_id == newcomer.id
        assert table.game.names[first_seat] == taker.name  # the record follows
        assert "takes" in h.group_texts()[-1]
        hand = h.hand_message(newcomer)
        deal = h.deal()
        assert hand is not None and cards_in(hand.content) >= set(deal.hand(first_seat))
        # a timer of an older move does nothing
        before = table.move
        clock.advance(100)
        await h.rt.scheduler.on_timer(JobKind.TURN, table.id, before - 1)
        assert table.move == before
        # the reminder goes to the player on turn
        await h.rt.scheduler.on_timer(JobKind.REMIND, table.id, table.move)
        await h.idle()
        actor = h.actor()
        assert actor is not None and "your turn" in h.fake.bot_messages(actor)[-1].content


async def test_stop_by_vote_settles_the_game(tmp_path: Path) -> None:
    async with running_bot(tmp_path, users=4) as h:
        await open_and_start(h)
        await h.say(h.users[3], "/stop")
        assert "not seated" in h.group_texts()[-1]
        await h.say(h.users[0], "/stop")
        assert h.group_texts()[-1].startswith("🛑 Votes to stop the game: Anna (1 of 2).")
        vote = h.fake.last_bot_message(h.group)
        assert vote is not None
        await h.press(h.users[1], vote, button(vote, "V"))
        texts = h.group_texts()
        assert "Game stopped" in texts[-1]
        assert h.table().status == "over" and h.game().stopped
        for user in h.users[:3]:
            hand = h.hand(user)
            assert not hand.buttons
            assert "The game is stopped" in hand.content and "⏳" not in hand.content
            # told privately: the settlement after the frozen hand
            assert "Game stopped" in h.fake.bot_messages(user)[-1].content
        table_msg = h.table_message()
        assert table_msg is not None
        assert "The game is stopped" in table_msg.content and not table_msg.buttons
        vote = h.fake.message(h.group.id, vote.message_id)
        assert not vote.buttons and "The game is stopped" in vote.content
        await h.say(h.users[0], "/pulka")  # the sheet picture, the settlement as its caption
        sheet = h.fake.last_bot_message(h.group)
        assert sheet is not None and sheet.media is not None and "Game stopped" in sheet.content


async def test_a_closed_table_leaves_memory_once_shown_and_late_presses_are_stale(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path) as h:
        await open_and_start(h)
        table = h.table()
        actor = h.actor()
        assert actor is not None
        old_hand = h.hand(actor)
        assert not h.rt.scheduler.evict(table)  # in play: stays
        assert h.service.registry.get(table.id) is table
        await h.say(h.users[0], "/stop")
        vote = h.fake.last_bot_message(h.group)
        assert vote is not None
        await h.press(h.users[1], vote, button(vote, "V"))
        assert table.status == "over" and not table.unshown.settlement
        job = h.rt.scheduler.timers[table.id][0]
        assert job.data == ("evict", table.id, 0)  # armed when the game closed
        await h.rt.scheduler.on_timer(JobKind.EVICT, table.id, 0)
        assert h.service.registry.get(table.id) is None and table.id not in h.rt.scheduler.timers
        # a late press on the forgotten table: "out of date", nothing written
        rows = await h.service.storage.table(table.id)
        qid = h.fake.press(actor, old_hand, old_hand.buttons[0][1], force=True)
        await h.idle()
        answer = h.fake.callback_answers[qid]
        assert is_alert(answer) and "out of date" in answer["text"]
        assert await h.service.storage.table(table.id) == rows
        # the sheet still comes from the database, and the chat can play again
        await h.say(h.users[0], "/pulka")
        sheet = h.fake.last_bot_message(h.group)
        assert sheet is not None and "Game stopped" in sheet.content
        await open_and_start(h)
        assert h.table().id != table.id and h.table().status == "playing"


async def test_a_table_is_not_forgotten_before_its_settlement_is_shown(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        await open_and_start(h)
        table = h.table()
        table.status, table.unshown.settlement = Status.OVER, True
        assert not h.rt.scheduler.evict(table) and h.service.registry.get(table.id) is table
        job = h.rt.scheduler.timers[table.id][0]
        assert cast(tuple[str, ...], job.data)[0] == "evict"  # tried again later
        table.unshown.settlement = False
        assert h.rt.scheduler.evict(table) and h.service.registry.get(table.id) is None


async def test_help_rules_pulka(tmp_path: Path) -> None:
    async with running_bot(tmp_path, lang="ru") as h:
        await h.say(h.users[0], "/pulka")
        assert "нет игры" in h.group_texts()[-1]
        await h.say(h.users[0], "/rules")
        assert "Сочинка" in h.group_texts()[-1]
        await h.say(h.users[0], "/help")
        assert "/newgame" in h.group_texts()[-1]
        h.fake.send_text(h.users[0], h.users[0].id, "/newgame")
        await h.idle()
        assert "в группе" in h.fake.bot_messages(h.users[0])[-1].content
        await open_and_start(h)
        await h.say(h.users[0], "/pulka")  # the sheet picture with its title
        sheet = h.fake.last_bot_message(h.group)
        assert sheet is not None and sheet.media is not None and "пуля до 20" in sheet.content


async def test_blocked_player_is_explained_in_the_group(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        await open_and_start(h)
        deal = h.deal()
        victim = h.user_of_seat(int(deal.dealer))  # not to act in the first two turns
        h.fake.block_bot(victim)
        await take_turn(h, simple_policy())
        assert any("blocked the bot" in t for t in h.group_texts())
        await take_turn(h, simple_policy())
        assert sum("blocked the bot" in t for t in h.group_texts()) == 1
        await h.start_bot(victim)  # unblocks; his hand comes back
        assert h.table().blocked_noted == set()


async def test_restart_resumes_the_game_in_the_same_messages(tmp_path: Path) -> None:
    fake = FakeTelegram(flood=NO_FLOOD)
    async with running_bot(tmp_path, fake=fake) as h:
        people, group = h.users, h.group
        await open_and_start(h)
        await take_turn(h, simple_policy())
        table = h.table()
        ids = {s: slot.message_id for s, slot in h.hand_slots().items()}
        slot = h.table_slot()
        assert slot is not None and table.game is not None
        table_msg = slot.message_id
        record = table.game.to_record()
        move = table.move
    async with running_bot(tmp_path, fake=fake, people=people, group=group) as h2:
        table = h2.table()
        assert table.game is not None
        assert table.move == move and table.game.to_record() == record
        slot = h2.table_slot()
        assert slot is not None and slot.message_id == table_msg
        assert {s: slot.message_id for s, slot in h2.hand_slots().items()} == ids
        await take_turn(h2, simple_policy())  # the old message's buttons still work
        assert h2.table().move == move + 1


async def test_unstarted_lobby_expires_and_owner_can_close_it(tmp_path: Path) -> None:
    clock = ManualClock()
    async with running_bot(tmp_path, clock=clock, lobby_ttl=600) as h:
        await h.say(h.users[0], "/newgame")
        table = h.table()
        clock.advance(300)
        await h.rt.scheduler.on_timer(JobKind.EXPIRE, table.id, 0)
        assert table.status == "lobby"
        clock.advance(301)
        await h.rt.scheduler.on_timer(JobKind.EXPIRE, table.id, 0)
        await h.idle()
        slot = h.table_slot()
        assert slot is not None and slot.message_id is not None
        lobby = h.fake.message(h.group.id, slot.message_id)
        assert table.status == "expired" and "nobody started" in lobby.content
        assert not lobby.buttons
        # a new lobby; only its owner closes it
        await h.say(h.users[1], "/newgame")
        new_lobby = h.fake.last_bot_message(h.group)
        assert new_lobby is not None
        answer = await h.press(h.users[0], new_lobby, button(new_lobby, "Lc"))
        assert is_alert(answer)
        await h.press(h.users[1], new_lobby, button(new_lobby, "Lc"))
        assert "Table closed" in h.fake.message(h.group.id, new_lobby.message_id).content
        assert h.service.registry.open_table(h.group.id) is None
