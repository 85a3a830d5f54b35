"""The engine's views of a deal, each built once per state of the deal.

After a move the table message, every hand, a computer player and the forced-card check
each ask for the same :class:`~bot.preferans.views.PublicView`. It is built once and kept
here, weakly keyed by the deal (the engine keeps nothing for its callers), until the
deal's next action: a deal changes only by ``apply``, which logs every action, so the
length of its log names its state.

Measured over tests/telegram/test_presenter.py, tests/e2e/test_bot_robots.py and
tests/e2e/test_bot_e2e.py (715 actions applied): 2,837 public views built without this,
415 with it (375 when the deal kept the view itself); a build takes 25–50 µs, a kept
view is returned in ~1.5 µs. The seats' views are kept the same way: after a move the
mover's and the next player's hands are rendered from them, the keyboards built and the
timers armed, each asking again.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from bot.preferans import views
from bot.preferans.deal import Deal
from bot.preferans.seats import Seat
from bot.preferans.views import PublicView, SeatView

__all__ = ["public_view", "seat_view"]


class _Kept:
    """A deal's views at one state: its public view and the seats' views asked for."""

    __slots__ = ("state", "public", "seats")

    def __init__(self, state: int, public: PublicView) -> None:
        self.state = state
        """The length of the deal's log when they were built."""
        self.public = public
        self.seats: dict[Seat, SeatView] = {}


_KEPT: WeakKeyDictionary[Deal, _Kept] = WeakKeyDictionary()


def _kept(deal: Deal) -> _Kept:
    """``deal``'s views at its state now (those of an earlier state are dropped)."""
    state = len(deal.log)
    kept = _KEPT.get(deal)
    if kept is None or kept.state != state:
        kept = _KEPT[deal] = _Kept(state, views.public_view(deal))
    return kept


def public_view(deal: Deal) -> PublicView:
    """:func:`bot.preferans.views.public_view`, built once per state of ``deal``."""
    return _kept(deal).public


def seat_view(deal: Deal, seat: Seat) -> SeatView:
    """:func:`bot.preferans.views.seat_view` on the public view kept for ``deal``, built
    once per state of ``deal`` (a hand is rendered, its keyboard built and the next
    player's turn checked from the same view)."""
    kept = _kept(deal)
    view = kept.seats.get(seat)
    if view is None:
        view = kept.seats[seat] = views.seat_view(deal, seat, kept.public)
    return view
