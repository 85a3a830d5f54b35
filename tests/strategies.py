"""Hypothesis strategies for deals.

The deck is a permutation hypothesis draws (``st.permutations``), the rules a convention
with its options, the table three or four players and a dealer: a failing example
shrinks towards the deck in its natural order, Sochi, three players and the default
options, and hypothesis prints the deal it found, not an integer seed.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from bot.preferans.cards import DECK, Card
from bot.preferans.conventions import Rules
from bot.preferans.deal import Deal, DealSettings
from bot.preferans.game import settings_for
from bot.preferans.seats import Seat

__all__ = ["CONVENTIONS", "DealPlan", "deal_settings", "deals"]

CONVENTIONS = ("sochi", "leningrad", "rostov")


@dataclass(frozen=True)
class DealPlan:
    """A deal before its first bid: the settings, the dealer and the deck's order."""

    settings: DealSettings
    dealer: Seat
    deck: tuple[Card, ...]

    def deal(self) -> Deal:
        """The deck dealt in order: ten cards to each active seat from the first hand
        on, the last two to the talon."""
        players = self.settings.players
        hands: list[list[Card]] = [[] for _ in range(players)]
        seat = self.dealer
        for i in range(3):
            seat = seat.next(players)
            hands[seat] = list(self.deck[10 * i : 10 * i + 10])
        return Deal(self.settings, self.dealer, hands, list(self.deck[30:]))

    def __repr__(self) -> str:  # what hypothesis prints for a failing example
        cards = " ".join(str(c) for c in self.deck)
        return f"DealPlan({self.settings!r}, dealer={int(self.dealer)}, deck='{cards}')"


@st.composite
def deal_settings(
    draw: st.DrawFn,
    players: st.SearchStrategy[int] | None = None,
    conventions: st.SearchStrategy[str] | None = None,
) -> DealSettings:
    """One deal's settings: a convention (any, or one of ``conventions``) with its deal
    options drawn, 3 or 4 players (or ``players``), the lowest first bid 6 or 7 (7 after
    an all-pass, with an exit rule)."""
    rules = Rules.preset(
        draw(st.sampled_from(CONVENTIONS) if conventions is None else conventions),
        jumps=draw(st.booleans()),
        ten_checked=draw(st.booleans()),
        stalingrad=draw(st.booleans()),
        half_whist=draw(st.booleans()),
    )
    count = draw(st.sampled_from((3, 4)) if players is None else players)
    return settings_for(rules, count, draw(st.sampled_from((6, 7))))


@st.composite
def deals(draw: st.DrawFn, settings: st.SearchStrategy[DealSettings] | None = None) -> DealPlan:
    """A deal under ``settings`` (default: :func:`deal_settings`), any dealer, the deck
    in any order."""
    chosen = draw(deal_settings() if settings is None else settings)
    dealer = Seat(draw(st.integers(0, chosen.players - 1)))
    return DealPlan(chosen, dealer, tuple(draw(st.permutations(DECK))))
