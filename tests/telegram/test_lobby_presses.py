"""A lobby settings press: answered at once with the setting's new value, and the lobby
shows it within the group's budget (Telegram's 20 a minute, real length), ahead of the
game's messages and not after their even spacing; presses queued meanwhile coalesce."""

from __future__ import annotations

import asyncio
import functools
import time
from pathlib import Path

from bot.core.model import SETTING_CHOICES
from bot.render.i18n import t
from bot.telegram.outbox import Outbox
from bot.telegram.shown import Slot
from tests.bot_helpers import Harness, running_bot
from tests.fakes import MessageView
from tests.telegram.conftest import StoppedClock, group_flood

LIMITS = {"group_limit": 20, "group_window": 60.0, "group_fast_interval": 0.0}
"""The outbox's limits for groups: Telegram's 20 a minute."""
FLOOD = group_flood(60.0)
"""The fake's: the same."""


async def _settings(h: Harness) -> MessageView:
    """The owner opens a lobby and its settings; the lobby message."""
    owner = h.users[0]
    await h.say(owner, "/newgame")
    lobby = h.fake.last_bot_message(h.group)
    assert lobby is not None
    await h.press(owner, lobby, text=t("en", "btn.settings"))
    return h.fake.message(h.group.id, lobby.message_id)


def _pulka_button(msg: MessageView) -> str:
    data = next(d for label, d in msg.buttons if label.startswith("Pulka"))
    assert data is not None
    return data


def _labels(msg: MessageView) -> list[str]:
    return [label for label, _ in msg.buttons]


def _label_after(pulka: int) -> str:
    """The Pulka button after a press, with the value the press chooses."""
    choices = SETTING_CHOICES["pulka"]
    return t("en", "set.pulka", v=choices[(choices.index(pulka) + 1) % len(choices)])


def _group_requests(h: Harness) -> list[str]:
    return [
        c.method
        for c in h.fake.calls
        if c.ok and c.params.get("chat_id") == h.group.id and c.method != "answerCallbackQuery"
    ]


async def test_each_press_is_answered_with_its_value_and_shows_at_once(
    tmp_path: Path, stopped_clock: StoppedClock
) -> None:
    clock = stopped_clock
    async with running_bot(tmp_path, outbox_options=LIMITS, flood=FLOOD) as h:
        owner = h.users[0]
        lobby = await _settings(h)
        clock.at = time.monotonic()  # from now on only the group's window decides
        for _ in range(12):  # with the lobby and its settings: 14 of the group's 20
            msg = h.fake.message(h.group.id, lobby.message_id)
            want = _label_after(h.table().settings.pulka)
            qid = h.fake.press(owner, msg, _pulka_button(msg))
            answer = await h.fake.wait_until(functools.partial(h.fake.callback_answer, qid), 30)
            assert answer.get("text") == want and not answer.get("show_alert")
            await h.fake.wait_until(
                lambda w=want: w in _labels(h.fake.message(h.group.id, lobby.message_id)),  # type: ignore[misc]
                timeout=30,
                what=f"the lobby shows {want}",
            )
        requests = _group_requests(h)
        assert requests == ["sendMessage"] + ["editMessageText"] * 13
        assert h.fake.flood_errors == []
        clock.at = None


async def test_presses_queued_meanwhile_coalesce_ahead_of_the_games_messages(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path, outbox_options=LIMITS, flood=FLOOD) as h:
        owner = h.users[0]
        lobby = await _settings(h)
        gate, holding = asyncio.Event(), asyncio.Event()

        async def hold() -> bool:  # the group's worker is busy (a sheet being drawn, say)
            holding.set()
            await gate.wait()
            return False

        h.rt.outbox.call(h.group.id, hold)
        await holding.wait()
        h.rt.outbox.post(h.group.id, "news")  # a message of the game's, queued first
        labels = []
        for _ in range(3):
            labels.append(_label_after(h.table().settings.pulka))
            qid = h.fake.press(owner, lobby, _pulka_button(lobby))
            answer = await h.fake.wait_until(functools.partial(h.fake.callback_answer, qid), 30)
            assert answer.get("text") == labels[-1]
        before = len(h.fake.calls)
        gate.set()
        await h.idle()
        after = [c for c in h.fake.calls[before:] if c.ok and c.params.get("chat_id") == h.group.id]
        assert [c.method for c in after] == ["editMessageText", "sendMessage"]
        assert after[0].params["message_id"] == lobby.message_id
        shown = h.fake.message(h.group.id, lobby.message_id)
        assert labels[-1] in _labels(shown)  # the latest state, once
        assert after[1].params["text"] == "news"


def test_a_lobby_queued_behind_the_games_messages_moves_ahead_with_a_press() -> None:
    box = Outbox(object())
    box._closed = True  # no worker: the lanes are looked at, nothing is sent
    slot = Slot(0, "table", -100, 0)
    box.show(slot, "closing")  # (queued as one of the game's messages)
    box.post(-100, "news")
    box.show(slot, "after the press", answer=True)
    chat = box._chats[-100]
    assert [type(i).__name__ for i in chat.answers] == ["Show"]
    assert [type(i).__name__ for i in chat.queue] == ["Post"]
    assert chat.waiting == {id(slot): ("after the press", None)}  # one edit, the latest
