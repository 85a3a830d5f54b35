"""The lock holds only the change: a slow answer to a press never holds back what the press
changed, e.g. the next player's buttons."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

from tests.bot_helpers import code_of, open_and_start, running_bot

HOLD = 20.0
"""Seconds answerCallbackQuery is held at most (Telegram was seen taking 16): it is let go
once the next player's buttons went out; this only bounds the wait if they never do."""


async def test_a_slow_answer_does_not_delay_the_next_players_buttons(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        await open_and_start(h)
        await h.idle()
        outbox = h.rt.outbox
        real = outbox.answer
        released = asyncio.Event()

        async def slow_answer(*args: Any, **kwargs: Any) -> None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(released.wait(), HOLD)
            await real(*args, **kwargs)

        outbox.answer = slow_answer  # type: ignore[method-assign]
        user = h.actor()
        assert user is not None
        hand = h.hand_message(user)
        assert hand is not None
        data = next(d for _, d in hand.buttons if d and code_of(d).startswith("b"))
        before = len(h.fake.calls)
        qid = h.fake.press(user, hand, data)

        def to_next() -> list[int]:
            """Where the calls since the press reached the next player's chat."""
            nxt = h.actor()
            if nxt is None or nxt is user:
                return []
            calls = h.fake.calls[before:]
            return [i for i, c in enumerate(calls) if c.params.get("chat_id") == nxt.id and c.ok]

        # the next player's hand changes while the answer is held (before: only after it)
        await h.fake.wait_until(to_next, timeout=2 * HOLD, what="the next player's hand")
        methods = [c.method for c in h.fake.calls[before:]]
        released.set()
        assert "answerCallbackQuery" not in methods[: to_next()[0]], methods
        await h.idle()
        assert qid in h.fake.callback_answers
