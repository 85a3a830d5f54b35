"""Strength levels of the computer player: «новичок», «любитель», «сильный».

The strong player is :func:`.player.choose` with the full budget. The weaker ones think
with smaller budgets (no judging of bids by sampled layouts; fewer, cheaper layouts for
the cards, so the rules of thumb decide more often) and now and then make the move of a
player who knows only the rules of thumb (:func:`.baseline.rule_player`): a bid counted
by aces and kings, a whist counted by aces, the obvious card. Such a slip is always legal
and never absurd (never misère, never above 7); whether a decision slips is drawn from a
seeded generator, so a table and a move always decide the same.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, fields

from ..actions import Action, Bid, ChooseDefence, Discard, Play, Whist
from ..views import SeatView
from .baseline import rule_player
from .card_play import STRONG, Budget
from .player import choose

__all__ = ["Level", "LEVELS", "LEVEL_NAMES", "DEFAULT_LEVEL", "level_budget", "choose_at"]


@dataclass(frozen=True, slots=True)
class Level:
    """How a computer player of one strength thinks."""

    budget: Budget | None
    """Its budget (``None``: the table's full budget); never above the table's."""
    slip: float
    """The share of its decisions made by the rules of thumb instead (0: none)."""


LEVELS = {
    "strong": Level(None, 0.0),
    "amateur": Level(Budget(samples=8, nodes=3000, total=12000, judge=0), 0.1),
    "beginner": Level(Budget(samples=3, nodes=400, total=1200, give_up=1, judge=0), 0.25),
}
"""The levels by their stored name, strongest first."""
LEVEL_NAMES = tuple(LEVELS)
DEFAULT_LEVEL = "strong"

_SLIPS = (Bid, Discard, Whist, ChooseDefence, Play)
"""Decisions a weaker player may make by the rules of thumb. Not the contract named
after the talon (a beginner names the suit he counted, not a random one) and not an
offer's answer."""


def level_budget(name: str, base: Budget = STRONG) -> Budget:
    """The budget of level ``name`` (an unknown name: the strongest), capped by ``base``."""
    own = LEVELS.get(name, LEVELS[DEFAULT_LEVEL]).budget
    if own is None:
        return base
    capped = {f.name: min(getattr(own, f.name), getattr(base, f.name)) for f in fields(Budget)}
    return Budget(**capped)


def choose_at(
    view: SeatView,
    rng: random.Random,
    name: str,
    slip_rng: random.Random,
    base: Budget = STRONG,
) -> Action:
    """The decision of a computer player of level ``name``; always one of ``view.legal``.

    ``slip_rng`` draws whether this decision is a slip (one draw per decision, apart from
    ``rng``, so the strong player's card choice does not depend on it).
    """
    level = LEVELS.get(name, LEVELS[DEFAULT_LEVEL])
    legal = view.legal
    if level.slip > 0 and len(legal) > 1 and isinstance(legal[0], _SLIPS):
        if slip_rng.random() < level.slip:
            slip = rule_player(view, rng)
            if slip in legal:  # the rules of thumb never bid misère nor above 7
                return slip
    return choose(view, rng, budget=level_budget(name, base))
