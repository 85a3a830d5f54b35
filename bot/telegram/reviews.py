"""A deal's analysis on request: the «🔍» button under a player's review of an ended deal
runs it in the worker process (:mod:`.analysing`) and edits that review with its line.

Ended deals are not analysed unless asked: people seldom look, and analysing every deal
was 15–26 % of all the bot's CPU under load (tests/perf/README.md). The line is the
reader's own (his gains and losses), so each player asks for his review; the deal is read
from the database when its table was already forgotten (a finished game).
"""

from __future__ import annotations

from collections import OrderedDict
from functools import partial

from bot.core import effects as fx
from bot.core.errors import Rejected
from bot.core.model import Player
from bot.core.service import TableService
from bot.preferans.actions import Action
from bot.preferans.analysis import Analysis, reached_play
from bot.preferans.seats import Seat
from bot.render.results import sheet_before

from .analysing import Analyst
from .hands import review_content
from .outbox import Outbox
from .shown import Slot

__all__ = ["Reviews", "ASKED_KEPT"]

ASKED_KEPT = 4096
"""Reviews whose analysis is remembered as asked for (under way or shown), the oldest
forgotten first: a second press gets a toast instead of a second analysis."""


class Reviews:
    """The analyses players asked for, each shown in the review it was asked from."""

    def __init__(self, service: TableService, outbox: Outbox, analyst: Analyst) -> None:
        self.service = service
        self.outbox = outbox
        self.analyst = analyst
        self.asked: OrderedDict[tuple[int, int, int], bool] = OrderedDict()
        """Per (table, deal, seat): ``True`` once its line was handed to the outbox,
        ``False`` while it is worked out."""

    async def ask(
        self,
        table_id: int,
        deal_no: int,
        seat: Seat,
        slot: Slot,
        user: Player,
        auto: Action | None = None,
    ) -> str:
        """``user`` pressed «🔍» under the review ``slot`` of ``seat`` in deal ``deal_no``
        (``auto``: the move the timer made for him, which the review notes): start its
        analysis; the key of the press's answer. Raises :class:`Rejected` when there is
        no such deal to analyse."""
        key = (table_id, deal_no, int(seat))
        state = self.asked.get(key)
        if state is not None:
            return "ok.analysis_shown" if state else "ok.analysis_busy"
        self.asked[key] = False  # before the read: a second press meanwhile is told so
        while len(self.asked) > ASKED_KEPT:
            self.asked.popitem(last=False)
        try:
            table, finished = await self.service.registry.finished_deal(table_id, deal_no)
            deal = finished.deal
            if deal is None or not reached_play(deal) or not 0 <= seat < len(table.seats):
                raise Rejected("err.stale")
        except Rejected:
            self.asked.pop(key, None)
            raise
        player = table.player(seat)
        if player is None or player.user_id != user.user_id:
            player = user  # the seat was taken over since: the review is still his
        game = table.game
        before = sheet_before(game, finished) if game is not None else None
        # redrawn as it was shown, the timer's note too, with the analysis added
        ended = fx.DealEnded(table, deal_no, finished, {} if auto is None else {seat: auto})
        review = partial(review_content, self.service, ended, seat, player, before)

        def done(found: Analysis) -> None:
            self.asked[key] = True
            self.outbox.show_lazy(slot, lambda: review(found))

        def failed() -> None:  # logged by the analyst: the button may be pressed again
            self.asked.pop(key, None)

        self.analyst.start(deal, f"table {table_id}: deal {deal_no}", done, failed)
        return "ok.analysing"
