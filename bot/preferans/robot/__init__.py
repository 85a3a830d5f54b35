"""Computer players: every decision of a seat, from that seat's view only.

:func:`choose` is the strong player (hand evaluation for the auction and whisting,
sampled layouts solved exactly for card play); :mod:`.baseline` holds the two simple
players it is measured against.
"""

from __future__ import annotations

from .bidding import Style
from .card_play import FAST, STRONG, Budget
from .offering import answer_offer, make_offer
from .player import choose

__all__ = ["choose", "make_offer", "answer_offer", "Budget", "Style", "FAST", "STRONG"]
