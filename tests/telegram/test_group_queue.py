"""The group queue stays for the game: a flood of commands by one member is answered once
and cannot hold the table message back (Telegram's 20 messages a minute
per group scaled to 20 per 6 s to keep the test short)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from bot.render.i18n import t
from tests.bot_helpers import code_of, open_and_start, running_bot
from tests.hostile_helpers import settle

LIMITS = {"group_limit": 20, "group_window": 6.0, "group_fast_interval": 0.0}


@pytest.mark.waits
async def test_a_command_flood_is_answered_once_and_the_table_goes_first(tmp_path: Path) -> None:
    async with running_bot(tmp_path, outbox_options=LIMITS) as h:
        await open_and_start(h)
        await settle(h)
        table = h.table()
        slot = table.messages.table_slot
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
        assert len(ahead) <= 1  # at most the one already on its way
        await settle(h, timeout=60)
        texts = [c.params.get("text") for c in h.fake.calls_to("sendMessage")]
        assert texts.count(t("en", "table_exists")) == 1  # 40 times the same command
        assert texts.count(t("en", "help")) == 1
