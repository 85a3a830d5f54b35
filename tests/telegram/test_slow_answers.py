"""The lock holds only the change: a slow answer to a press never holds back what the press
changed, e.g. the next player's buttons."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.bot_helpers import code_of, open_and_start, running_bot
from tests.hostile_helpers import settle

SLOW = 1.5
"""Seconds answerCallbackQuery takes (Telegram was seen taking 16)."""


async def test_a_slow_answer_does_not_delay_the_next_players_buttons(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        await open_and_start(h)
        await settle(h)
        outbox = h.rt.outbox
        real = outbox.answer

        async def slow_answer(*args: Any, **kwargs: Any) -> None:
            await asyncio.sleep(SLOW)
            await real(*args, **kwargs)

        outbox.answer = slow_answer  # type: ignore[method-assign]
        user = h.actor()
        assert user is not None
        hand = h.hand_message(user)
        assert hand is not None
        data = next(d for _, d in hand.buttons if d and code_of(d).startswith("b"))
        before = len(h.fake.calls)
        qid = h.fake.press(user, hand, data)
        nxt = None
        for _ in range(int(SLOW / 0.02)):  # until the answer could have gone
            await asyncio.sleep(0.02)
            nxt = h.actor()
            if nxt is not None and nxt is not user:
                break
        assert nxt is not None and nxt is not user
        for _ in range(int(SLOW / 0.02)):
            calls = h.fake.calls[before:]
            if any(c.params.get("chat_id") == nxt.id and c.ok for c in calls):
                break
            await asyncio.sleep(0.02)
        calls = h.fake.calls[before:]
        methods = [c.method for c in calls]
        to_next = [i for i, c in enumerate(calls) if c.params.get("chat_id") == nxt.id and c.ok]
        assert to_next, methods  # the next player's hand changed ...
        assert "answerCallbackQuery" not in methods[: to_next[0]]  # ... before the answer
        await asyncio.sleep(SLOW)
        await settle(h)
        assert qid in h.fake.callback_answers
