"""A restart answers at once and resumes the tables in the background
(:mod:`bot.telegram.resuming`): a new user's ``/start`` before any table is shown again; a
press on a table not resumed yet is applied to it (resumed then, once); a message that
already shows what it must is not edited again; the most recently active table first; a
press repeated on a table closed just before the restart is "already done"."""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

from bot.core.service import TableService
from bot.render.i18n import t
from tests.bot_helpers import (
    Harness,
    button,
    is_alert,
    open_and_start,
    running_bot,
)
from tests.fakes import FakeChat, FakeTelegram, FakeUser, ManualClock

SENDS = ("sendmessage", "editmessagetext", "editmessagereplymarkup")


async def _tables(h: Harness, groups: int) -> list[tuple[FakeChat, list[FakeUser]]]:
    """``groups`` games in their own groups, three players each, the first bid made in
    each (the first group is the harness's own)."""
    out = [(h.group, h.users[:3])]
    for n in range(1, groups):
        people = [
            h.fake.add_user(f"P{n}{i}", language_code="en", username=f"p{n}{i}") for i in range(3)
        ]
        for user in people:
            h.fake.user_starts_bot(user)
        out.append((h.fake.add_group(f"Club {n}", people), people))
    await h.idle()
    for group, people in out:
        other = Harness(h.fake, h.app, group, people)
        await open_and_start(other)
        await other.act(lambda deal, codes: "bP")
    return out


def _table_id(h: Harness, group: FakeChat) -> int:
    table = h.service.registry.open_table(group.id)
    assert table is not None
    return table.id


def _restarted(
    tmp_path: Path,
    fake: FakeTelegram,
    made: list[tuple[FakeChat, list[FakeUser]]],
    hold: asyncio.Event,
) -> AbstractAsyncContextManager[Harness]:
    """The bot started again on the tables ``made``, its background resuming held."""
    people = [user for _, group_people in made for user in group_people]
    return running_bot(tmp_path, fake=fake, people=people, group=made[0][0], resume_hold=hold)


def _recorded(service: TableService) -> list[int]:
    """The tables the service reads to resume, in order (each read recorded)."""
    reads: list[int] = []
    load = service.registry.writer.load

    async def recording(table_id: int) -> Any:
        reads.append(table_id)
        return await load(table_id)

    service.registry.writer.load = recording  # type: ignore[method-assign]
    return reads


async def test_start_is_answered_before_any_table_is_shown_again(tmp_path: Path) -> None:
    async with running_bot(tmp_path, users=3) as h:
        made = await _tables(h, 2)
        ids = [_table_id(h, group) for group, _ in made]
    fake, hold = h.fake, asyncio.Event()
    async with _restarted(tmp_path, fake, made, hold) as h:
        before = len(fake.calls)
        newcomer = fake.add_user("Zoe", language_code="en", username="zoe")
        await h.start_bot(newcomer)
        [answer] = fake.bot_messages(newcomer.id)
        assert answer.content == t("en", "start.private")
        assert h.service.registry.tables == {}  # nothing resumed yet, nothing shown again
        assert [c.method.lower() for c in fake.calls[before:] if c.method.lower() in SENDS] == [
            "sendmessage"
        ]
        hold.set()
        await h.rt.app.bot_data.resumer.done.wait()
        await h.idle()
        assert sorted(h.service.registry.tables) == sorted(ids)


async def test_a_press_on_a_table_not_resumed_yet_is_applied_once(tmp_path: Path) -> None:
    async with running_bot(tmp_path, users=3) as h:
        made = await _tables(h, 2)
        first, second = (_table_id(h, group) for group, _ in made)
        move = h.table().move
        actor = h.actor()
        assert actor is not None
        hand = h.hand_message(actor)
        assert hand is not None
    fake, hold = h.fake, asyncio.Event()
    async with _restarted(tmp_path, fake, made, hold) as h:
        reads = _recorded(h.service)
        hand = fake.message(actor.id, hand.message_id)
        data = button(hand, "bP")
        answer = await h.press(actor, hand, data)
        assert not is_alert(answer) and t("en", "err.stale") not in (answer.get("text") or "")
        table = h.service.registry.get(first)
        assert table is not None and table.move == move + 1  # applied, to the stored table
        assert h.service.registry.get(second) is None  # the other still waits its turn
        qid = fake.press(actor, hand, data, force=True)  # its answer lost: pressed again
        await h.idle()
        assert t("en", "ok.already") in fake.callback_answer(qid)["text"]
        hold.set()
        await h.rt.app.bot_data.resumer.done.wait()
        await h.idle()
        assert h.service.registry.get(first) is table and table.move == move + 1
        assert sorted(reads) == sorted([first, second])  # each read once
        timers = h.rt.scheduler.timers
        jobs = h.app.job_queue.jobs()
        for table_id in (first, second):  # armed once: no job left from a second arming
            named = [j for j in jobs if j.name == f"table:{table_id}"]
            assert len(named) == len(timers[table_id]) > 0


async def test_messages_that_show_what_they_must_are_not_edited_again(tmp_path: Path) -> None:
    clock = ManualClock()
    async with running_bot(tmp_path, users=3, clock=clock) as h:
        await open_and_start(h)
        mover = h.actor()
        await h.act(lambda deal, codes: "bP")
        actor = h.actor()
        assert actor is not None and mover is not None
        hand = h.hand_message(actor)
        assert hand is not None
        [third] = [u for u in h.users if u not in (mover, actor)]
        waiting = h.hand_message(third)  # neither moved nor is to act: waits for his turn
        assert waiting is not None
    fake, people, group = h.fake, h.users, h.group
    before = len(fake.calls)
    async with running_bot(tmp_path, fake=fake, people=people, group=group, clock=clock) as h:
        assert h.table().move > 0
        sent = [c for c in fake.calls[before:] if c.method.lower() in SENDS]
        # The table message and the two hands that show the stored state are left alone;
        # the hand that was waiting for its owner's turn is brought up to date.
        assert [(c.params["chat_id"], c.params["message_id"]) for c in sent] == [
            (third.id, waiting.message_id)
        ]
    before = len(fake.calls)
    async with running_bot(tmp_path, fake=fake, people=people, group=group, clock=clock) as h:
        sent = [c for c in fake.calls[before:] if c.method.lower() in SENDS]
        assert sent == []  # now every message shows the stored state
    clock.advance(25)  # the player to act has less time left than his hand says
    before = len(fake.calls)
    async with running_bot(tmp_path, fake=fake, people=people, group=group, clock=clock) as h:
        sent = [c for c in fake.calls[before:] if c.method.lower() in SENDS]
        assert [(c.method, c.params["chat_id"], c.params["message_id"]) for c in sent] == [
            ("editMessageText", actor.id, hand.message_id)
        ]
        assert "35 s" in fake.message(actor.id, hand.message_id).content


async def test_the_most_recently_active_table_resumes_first(tmp_path: Path) -> None:
    async with running_bot(tmp_path, users=3) as h:
        made = await _tables(h, 3)
        ids = [_table_id(h, group) for group, _ in made]
        first = Harness(h.fake, h.app, *made[0])  # active again: the most recent now
        await first.act(lambda deal, codes: "bP")
    fake, hold = h.fake, asyncio.Event()
    async with _restarted(tmp_path, fake, made, hold) as h:
        reads = _recorded(h.service)
        hold.set()
        await h.rt.app.bot_data.resumer.done.wait()
        assert reads == [ids[0], ids[2], ids[1]]


async def test_a_press_repeated_on_a_table_closed_before_the_restart_is_already_done(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path, users=3) as h:
        await open_and_start(h)
        actor = h.actor()
        assert actor is not None
        hand = h.hand_message(actor)
        assert hand is not None
        data = button(hand, "bP")
        answer = await h.press(actor, hand, data)
        assert not is_alert(answer)
        for user in h.users[:2]:  # the game is stopped: the table is closed
            await h.say(user, "/stop")
        assert h.table().status == "over"
    fake, people, group = h.fake, h.users, h.group
    async with running_bot(tmp_path, fake=fake, people=people, group=group) as h:
        # the press's answer was lost in the restart: pressed again, it is already done
        qid = fake.press(actor, hand, data, force=True)
        await h.idle()
        assert t("en", "ok.already") in fake.callback_answer(qid)["text"]
