"""A deal's analysis in its review: the review is shown as soon as the deal
ends, the analysis runs in the worker process while the next deal goes on, and then the
line is added to every player's review message."""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path

from bot.preferans.actions import Bid, Play
from bot.preferans.analysis import analyse
from tests.bot_helpers import open_and_start, running_bot
from tests.service.helpers import picking


async def test_the_review_gets_its_analysis_line(tmp_path: Path) -> None:
    async with running_bot(tmp_path, analysis=True) as h:
        # the analysis from trick 8 on: the same code, a fraction of the CPU
        h.rt.presenter.analyst.analyse = partial(analyse, from_trick=8)
        await open_and_start(h)
        table = h.table()
        service = h.service
        # everybody passes and the lowest cards are played: an all-pass to its end
        choose = picking(lambda a: isinstance(a, Play) or (isinstance(a, Bid) and a.is_pass))
        while table.deal_no == 1:
            user = h.actor()
            assert user is not None
            h.rt.show(await service.act(table.id, user.id, table.move, "x", choose))
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
