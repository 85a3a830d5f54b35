"""The group queue: a person's answer goes ahead of the table edits (they coalesce), a flood
of commands by one member cannot hold the table message back, and the game loses nothing
(Telegram's 20 messages a minute per group scaled down to keep the tests short)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from bot.core.model import Table
from bot.render.i18n import t
from bot.render.rules import rules_text
from bot.telegram.outbox import Outbox
from bot.telegram.pacing import ANSWERS_AHEAD, ANSWERS_WINDOW
from bot.telegram.queue import SWEEP_FROM, Post, Show
from bot.telegram.shown import Slot
from tests.bot_helpers import Harness, code_of, open_and_start, quick_code, running_bot
from tests.e2e.test_hostile_telegram import QUICK, play_to_the_end
from tests.telegram.conftest import StoppedClock, group_flood

LIMITS = {"group_limit": 20, "group_window": 6.0, "group_fast_interval": 0.0}


@pytest.mark.waits
async def test_a_command_flood_cannot_hold_the_table_back(tmp_path: Path) -> None:
    async with running_bot(tmp_path, outbox_options=LIMITS) as h:
        await open_and_start(h)
        await h.idle()
        table = h.table()
        slot = h.table_slot()
        assert slot is not None and slot.message_id is not None
        user = h.actor()
        assert user is not None
        flooder = next(u for u in h.users if u is not user)
        for _ in range(40):
            h.fake.send_text(flooder, h.group, "/newgame")
        for command in ("/help", "/rules", "/help", "/rules", "/pulka"):
            h.fake.send_text(flooder, h.group, command)
        hand = h.hand_message(user)
        assert hand is not None
        data = next(d for _, d in hand.buttons if d and code_of(d).startswith(("b", "p")))
        before = len(h.fake.calls)
        pressed = time.monotonic()
        h.fake.press(user, hand, data)
        edit = None
        while edit is None and time.monotonic() < pressed + 60:
            await asyncio.sleep(0.01)
            calls = h.fake.calls[before:]
            edit = next(
                (
                    i
                    for i, c in enumerate(calls)
                    if c.method == "editMessageText"
                    and c.ok
                    and c.params.get("chat_id") == h.group.id
                    and c.params.get("message_id") == slot.message_id
                ),
                None,
            )
        shown = time.monotonic() - pressed
        assert edit is not None
        ahead = [
            c
            for c in h.fake.calls[before : before + edit]
            if c.method == "sendMessage" and c.params.get("chat_id") == h.group.id
        ]
        print(f"table message shown {shown:.2f} s after the press; {len(ahead)} answers ahead")
        assert len(ahead) <= ANSWERS_AHEAD  # his share ahead of the game, no more
        await h.idle(timeout=60)
        answers = [t("en", "table_exists"), t("en", "help"), rules_text(table.settings, "en")]
        texts = [c.params.get("text") for c in h.fake.calls_to("sendMessage")]
        texts = [x for x in texts if x in answers]
        # each answer at least once; repeats while one is queued are merged, and beyond his
        # share a member's answers go after the game's, each distinct one once
        assert set(answers) <= set(texts)
        assert len(texts) <= ANSWERS_AHEAD + len(answers), texts


GROUP = {"group_limit": 20, "group_window": 3.0, "group_fast_interval": 0.0}
"""The outbox's group limit and the fake's: 20 requests per 3 s; the private chats and the
bot as a whole are not limited here (the group's queue is what is tested)."""
FLOOD = group_flood(3.0)


async def _handled(h: Harness) -> None:
    """Wait until every update so far is handled (the outbox may still be sending)."""
    while (
        h.fake.pending_update_count() > 0
        or h.app.update_queue._unfinished_tasks > 0
        or h.app.update_processor.current_concurrent_updates > 0
    ):
        await asyncio.sleep(0.001)


async def _started(h: Harness) -> tuple[Table, Slot]:
    """A quick game started and shown; the table and its group message."""
    await open_and_start(h)
    await h.idle()
    table = h.table()
    slot = h.table_slot()
    assert slot is not None and slot.message_id is not None
    return table, slot


async def _press_held(h: Harness) -> None:
    """The player on turn presses (his hand message was sent) without waiting for the
    group's queue, which is held."""
    table = h.table()
    deal = table.game.current if table.game is not None else None
    assert deal is not None and deal.actor is not None
    player = table.seats[int(deal.actor)]
    slot = h.hand_slots()[deal.actor]
    mid = slot.message_id
    assert player is not None and mid is not None
    # his hand's edit may still wait for his private chat's pace: press once it shows
    await h.fake.wait_until(
        lambda: any(d for _, d in h.fake.message(player.user_id, mid).buttons), 30
    )
    msg = h.fake.message(player.user_id, mid)
    datas = [d for _, d in msg.buttons if d]
    codes = [d.split(":", 2)[-1] for d in datas]
    code = quick_code(deal, codes)
    h.fake.press(h.fake.user(player.user_id), msg, datas[codes.index(code)])
    await _handled(h)


@pytest.mark.waits
async def test_rules_in_a_busy_game_go_ahead_of_the_queued_table_edits(tmp_path: Path) -> None:
    async with running_bot(tmp_path, defaults=QUICK, outbox_options=GROUP, flood=FLOOD) as h:
        table, slot = await _started(h)
        gate = asyncio.Event()  # the group's queue is held, as its budget holds it
        holding = asyncio.Event()

        async def hold() -> bool:
            holding.set()
            await gate.wait()
            return False

        h.rt.outbox.call(h.group.id, hold)
        await holding.wait()  # (not still waiting for the game's pace to take it)
        for _ in range(2):
            await _press_held(h)
        queued = h.rt.outbox._chats[h.group.id].queue
        assert any(isinstance(i, Show) and i.slot is slot for i in queued)
        asker = h.users[1]
        h.fake.send_text(asker, h.group, "/rules")
        await _handled(h)
        before = len(h.fake.calls)
        gate.set()
        await h.idle()
        group = [c for c in h.fake.calls[before:] if c.ok and c.params.get("chat_id") == h.group.id]
        rules = rules_text(table.settings, "en")
        assert group[0].method == "sendMessage" and group[0].params["text"] == rules
        edits = [
            i
            for i, c in enumerate(group)
            if c.method == "editMessageText" and c.params["message_id"] == slot.message_id
        ]
        assert edits and edits[0] > 0
        await play_to_the_end(h)  # nothing lost: it replays, every press answered
        texts = [c.params.get("text") for c in h.fake.calls_to("sendMessage")]
        assert texts.count(rules) == 1
        assert slot.message_id is not None
        shown = h.fake.message(h.group.id, slot.message_id)
        assert not shown.deleted
        assert [e for e in h.fake.flood_errors if e.chat_id == h.group.id] == []


@pytest.mark.waits
async def test_an_answer_in_a_busy_game_is_not_held_by_the_games_pace(
    tmp_path: Path, stopped_clock: StoppedClock
) -> None:
    clock = stopped_clock
    async with running_bot(tmp_path, defaults=QUICK, outbox_options=GROUP, flood=FLOOD) as h:
        table, slot = await _started(h)
        chat = h.rt.outbox._chats[h.group.id]
        span = GROUP["group_window"]  # the start's requests leave the window (both sides')
        await h.fake.wait_until(lambda: all(w < time.monotonic() - span for w in chat.window), 30)
        clock.at = time.monotonic()  # from now on only the group's window decides
        # the game has just used half of the group's budget: its next edit waits its pace
        chat.window.extend([clock.at] * int(GROUP["group_limit"] // 2))
        chat.last = clock.at
        for _ in range(2):
            await _press_held(h)
        assert any(isinstance(i, Show) and i.slot is slot for i in chat.queue)
        h.fake.send_text(h.users[1], h.group, "/rules")
        rules = rules_text(table.settings, "en")
        await h.fake.wait_until(
            lambda: any(m.sent_text == rules for m in h.fake.bot_messages(h.group)), timeout=30
        )
        assert any(isinstance(i, Show) and i.slot is slot for i in chat.queue)  # still paced
        clock.at = None
        await h.idle()
        assert [e for e in h.fake.flood_errors if e.chat_id == h.group.id] == []


def _texts(lane: Iterable[Post | Show]) -> list[str]:
    """The texts of a lane of answers (each a new message)."""
    posts = list(lane)
    assert all(isinstance(p, Post) for p in posts), posts
    return [p.text for p in posts if isinstance(p, Post)]


def test_a_members_repeats_merge_and_beyond_his_share_his_answers_wait(
    stopped_clock: StoppedClock,
) -> None:
    stopped_clock.at = 1000.0
    outbox = Outbox(object())
    outbox._closed = True  # no worker: the lanes are looked at, nothing is sent
    group = -100
    share = [f"answer {i}" for i in range(ANSWERS_AHEAD)]
    for text in (share[0], *share, "more", "more"):
        outbox.answer_command(group, text, who=1)
    chat = outbox._chats[group]
    assert _texts(chat.answers) == share  # the first one twice: merged
    assert [p.text for p in chat.later] == ["more"]  # beyond his share: it waits
    outbox.answer_command(group, "more", who=2)  # another member asks the same: it goes ahead
    outbox.answer_command(group, "else", who=2)
    assert _texts(chat.answers) == [*share, "more", "else"]
    assert [p.text for p in chat.later] == []
    outbox.answer_command(group, "later", who=1)
    stopped_clock.at += ANSWERS_WINDOW - 1
    chat.promote(ANSWERS_AHEAD, ANSWERS_WINDOW)
    assert [p.text for p in chat.later] == ["later"]  # his share is still used
    stopped_clock.at += 1  # his first answer ahead left the window: his next one goes ahead
    chat.promote(ANSWERS_AHEAD, ANSWERS_WINDOW)
    assert _texts(chat.answers) == [*share, "more", "else", "later"]
    assert [p.text for p in chat.later] == []
    outbox.answer_command(5, "f", who=5)  # a private chat: after the game's messages
    chat = outbox._chats[5]
    assert [p.text for p in chat.later] == ["f"]
    chat.promote(ANSWERS_AHEAD, ANSWERS_WINDOW)
    assert [p.text for p in chat.later] == ["f"]
    assert outbox.pending() == ANSWERS_AHEAD + 4


async def test_a_call_that_made_two_requests_counts_twice_in_the_groups_window() -> None:
    """A sheet sent as a picture and a text is one job but two requests: Telegram's 20 a
    minute in a group counts both, so the pacing must too."""
    outbox = Outbox(object(), group_fast_interval=0)
    group = -100

    async def two() -> int:
        return 2

    async def one() -> int:
        return 1

    outbox.call(group, two)
    outbox.call(group, one)
    await outbox.drain(timeout=30)
    assert len(outbox._chats[group].window) == 3


async def test_running_bot_keeps_the_production_pacing_when_asked(tmp_path: Path) -> None:
    """``outbox_options={}`` (as tests/perf/group_answers.py passes) keeps the outbox's own
    limits, not the tests' unthrottled ones: the benchmark measures Telegram's limits."""
    production = Outbox(None).pacing
    async with running_bot(tmp_path, outbox_options={}) as h:
        pacing = h.rt.outbox.pacing
        assert (pacing.group_limit, pacing.group_fast_interval) == (
            production.group_limit,
            production.group_fast_interval,
        )


async def test_the_queues_of_chats_quiet_for_a_minute_are_forgotten(
    stopped_clock: StoppedClock,
) -> None:
    """A chat's queue is held while its pace may still need it: each held ~4 KB for good,
    for every player and group the bot ever wrote to."""
    outbox = Outbox(object(), group_fast_interval=0)
    sent: list[int] = []

    def job(chat_id: int) -> Any:
        async def send() -> int:
            sent.append(chat_id)
            return 1

        return send

    chats = [-100, -200, *range(1, SWEEP_FROM - 1)]
    for chat_id in chats:
        outbox.call(chat_id, job(chat_id))
    await outbox.drain(timeout=30)
    assert sorted(outbox._chats) == sorted(chats)
    stopped_clock.at = time.monotonic() + 61.0
    for chat_id in (-200, 7):  # written to again a minute later
        outbox.call(chat_id, job(chat_id))
    await outbox.drain(timeout=30)
    outbox.call(10**6, job(10**6))  # a new chat: the quiet ones are looked for
    await outbox.drain(timeout=30)
    assert sorted(outbox._chats) == [-200, 7, 10**6]
    assert sorted(sent) == sorted([*chats, -200, 7, 10**6])
