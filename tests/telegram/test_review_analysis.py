"""A deal's analysis in its review: the analysis runs in the worker process while the
next deal goes on; every player's review message waits a little for its line and is shown
with it (one edit), or without it when the analysis is late or fails, the line added
later."""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path
from typing import Any

import pytest

import bot.telegram.presenter
from bot.preferans.actions import Action, Bid, Play
from bot.preferans.analysis import analyse
from tests.bot_helpers import open_and_start, running_bot
from tests.service.helpers import pick


def _pass_or_card(action: Action) -> bool:
    """Everybody passes and the first card offered is played: an all-pass to its end."""
    return isinstance(action, Play) or (isinstance(action, Bid) and action.is_pass)


async def test_the_review_gets_its_analysis_line(tmp_path: Path) -> None:
    async with running_bot(tmp_path, analysis=True) as h:
        # the analysis from trick 8 on: the same code, a fraction of the CPU
        h.rt.presenter.analyst.analyse = partial(analyse, from_trick=8)
        await open_and_start(h)
        table = h.table()
        service = h.service
        # everybody passes and the lowest cards are played: an all-pass to its end
        while table.deal_no == 1:
            user = h.actor()
            assert user is not None
            h.rt.show(
                await service.act(table.id, user.id, table.move, "x", pick(table, _pass_or_card))
            )
        # the next deal is already on while the analysis runs
        assert table.deal_no == 2 and h.rt.presenter.analyst.tasks
        await asyncio.gather(*h.rt.presenter.analyst.tasks)
        await h.idle()
        game = table.game
        assert game is not None
        taken = game.finished_deals[0].outcome.tricks
        assert taken is not None
        for user in h.users:
            [review] = [m for m in h.private(user) if "The deal in full" in m.content]
            assert "All-pass: playing their best, each takes at most this" in review.content
            # every player named with the tricks he took
            for seat, name in enumerate(game.names):
                assert f"{name} " in review.content and f"(took {taken[seat]})" in review.content
            # the next deal's hand message is another message, untouched
            hand = h.hand_message(user)
            assert hand is not None and hand.message_id != review.message_id
            assert "playing their best" not in hand.content


async def _all_pass_deal(h: Any) -> None:
    """Everybody passes and the lowest cards are played: deal 1, an all-pass, to its end."""
    table = h.table()
    while table.deal_no == 1:
        user = h.actor()
        assert user is not None
        h.rt.show(
            await h.service.act(table.id, user.id, table.move, "x", pick(table, _pass_or_card))
        )


def _reviews(h: Any, user: Any) -> list[str]:
    """The texts of the user's deal 1 hand message that show the deal in full."""
    [msg] = [m for m in h.private(user) if "The deal in full" in m.content]
    texts = [str(v.get("text", "")) for v in msg.history] + [msg.content]
    return [text for text in texts if "The deal in full" in text]


async def test_the_review_waits_for_its_line_and_is_edited_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bot.telegram.presenter, "REVIEW_WAIT", 600.0)  # the line comes first
    async with running_bot(tmp_path, analysis=True) as h:
        h.rt.presenter.analyst.analyse = partial(analyse, from_trick=8)
        await open_and_start(h)
        await _all_pass_deal(h)
        await asyncio.gather(*h.rt.presenter.analyst.tasks)
        await h.idle()
        for user in h.users:
            [review] = _reviews(h, user)  # one edit: the review with its line
            assert "All-pass: playing their best, each takes at most this" in review


def _no_analysis(deal: Any) -> Any:
    raise RuntimeError("the worker failed")


async def test_a_review_whose_analysis_fails_is_shown_after_its_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bot.telegram.presenter, "REVIEW_WAIT", 0.05)
    async with running_bot(tmp_path, analysis=True) as h:
        h.rt.presenter.analyst.analyse = _no_analysis
        await open_and_start(h)
        await _all_pass_deal(h)
        await asyncio.gather(*h.rt.presenter.analyst.tasks)
        for _ in range(2000):  # the wait's timer is not the bot's work the harness sees
            await h.idle()
            if all(any("The deal in full" in m.content for m in h.private(u)) for u in h.users):
                break
            await asyncio.sleep(0.01)
        for user in h.users:
            [review] = _reviews(h, user)
            assert "playing their best" not in review
