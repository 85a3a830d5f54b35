"""The «💡» hint of a table that has them: what the strongest computer player would do for
the person on turn, worked out from his seat's view only, in a worker thread (it may take
a second; the table never waits for it). Nothing of the table changes and nothing is
stored.
"""

from __future__ import annotations

import asyncio
import logging

from bot.preferans.robot.hints import Hint, hint
from bot.preferans.views import SeatView

from .errors import Rejected
from .model import Status, Table
from .viewcache import seat_view

__all__ = ["hint_view", "Hints"]

log = logging.getLogger(__name__)


def hint_view(table: Table, user_id: int, move: int) -> SeatView:
    """The view a hint is worked out from; raises unless ``user_id`` is on turn at ``move``
    at a table that gives hints."""
    if not table.settings.hints or table.status != Status.PLAYING:
        raise Rejected("err.stale")
    seat = table.seat_of(user_id)
    if seat is None:
        raise Rejected("err.not_seated")
    acting = table.to_act()
    if move != table.move or acting is None or acting[1] != seat:
        raise Rejected("err.hint_late")  # the turn passed since the button was shown
    view = seat_view(acting[0], seat)
    if not view.legal:
        raise Rejected("err.hint_late")
    return view


HINT_WAIT = 8.0
"""Seconds a press waits for its hint: Telegram takes a button's answer for about 15 s.
A hint takes well under a second (tests/perf/README.md); on a machine that busy the
press is asked to come again, and the search goes on for it."""


class Hints:
    """Hints being worked out: one per table, move and seat; another press of the same
    button waits for the same answer instead of starting a second search."""

    def __init__(self, wait: float | None = HINT_WAIT) -> None:
        self._running: dict[tuple[int, int, int], asyncio.Future[Hint]] = {}
        self.wait = wait
        """Seconds a press waits for its hint (``None``: as long as it takes)."""

    async def get(self, table: Table, user_id: int, move: int) -> Hint:
        """The hint for ``user_id`` on turn at ``move``; refused if the turn passed (also
        while it was being worked out)."""
        view = hint_view(table, user_id, move)
        key = (table.id, move, int(view.seat))
        task = self._running.get(key)
        if task is None:
            for old in [k for k in self._running if k[0] == table.id and k[1] != move]:
                del self._running[old]  # an older move's hint is of no use any more
            task = asyncio.ensure_future(asyncio.to_thread(hint, view))
            self._running[key] = task
        try:
            found = await asyncio.wait_for(asyncio.shield(task), self.wait)
        except TimeoutError:
            raise Rejected("err.hint_busy") from None
        except Exception:
            self._running.pop(key, None)
            log.exception("table %s: no hint at move %s", table.id, move)
            raise Rejected("err.hint_none") from None
        if table.move != move:
            raise Rejected("err.hint_late")
        return found
