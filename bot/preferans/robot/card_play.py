"""Card play by sampling: deal the unknown cards many ways, solve each layout exactly.

For every sampled layout consistent with what the seat knows (:mod:`.knowledge`), the
double-dummy solver values each legal card; the card with the best average wins. The
search is bounded by a node budget per layout (deterministic, unlike a clock), and when
no layout could be solved within it the rules of thumb (:mod:`.simple_play`) decide.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..actions import Play
from ..cards import Card
from ..outcome import DealKind
from ..seats import Seat
from ..solver import BudgetExceeded, Goal, Position, Solver
from ..views import SeatView
from .knowledge import Knowledge, knowledge_of
from .misere_defence import is_catcher, misere_catch
from .sampling import sample_layout
from .simple_play import simple_card

__all__ = ["Budget", "search_card", "layout_position", "FAST", "STRONG"]


@dataclass(frozen=True, slots=True)
class Budget:
    """How hard the card play thinks: layouts per decision and solver nodes per layout."""

    samples: int = 24
    nodes: int = 10000
    """Trick-boundary positions the solver may visit per layout (its own unit; the pure
    Python solver visits about 300,000 a second)."""
    total: int = 40000
    """Positions for the whole decision: no new layout is started past this."""
    give_up: int = 2
    """Layouts over budget, with none solved yet, after which the rules of thumb decide."""
    judge: int = 0
    """Solver positions for judging a bid, the contract or a misère call by sampled
    layouts (:mod:`.judging`); 0: by the hand counts alone."""
    judge_samples: int = 12
    """Layouts dealt for such a judgement."""


STRONG = Budget(nodes=180000, total=180000, judge=120000)
"""The computer players' budget: from the first trick every layout dealt is solved
exactly until the decision's positions are spent (about 0.6 s; tests/perf/README.md),
a hard layout not left out for its size (that would favour the easy ones)."""
FAST = Budget(samples=4, nodes=400, total=1600)
"""A cheap budget for tests and quick tables (the hand counts alone for the auction)."""


def search_card(view: SeatView, rng: random.Random, budget: Budget) -> Card | None:
    """The legal card doing best over sampled layouts, or ``None`` if none was solved."""
    legal = [a.card for a in view.legal if isinstance(a, Play)]
    pub = view.public
    mover = pub.to_act
    if mover is None or not legal or pub.kind is None:
        return None
    if is_catcher(view):  # a misère catcher plays by its own search and plan
        return misere_catch(view, rng, budget.samples, budget.nodes, budget.total)
    know = knowledge_of(view)
    goal, seat, maximise = _objective(view, mover)
    exact = not know.hidden and know.sink == 0
    samples = 1 if exact else budget.samples
    solver = Solver(goal, seat)
    totals: dict[Card, int] = {}
    solved = failed = 0
    for _ in range(samples):
        room = budget.total - solver.nodes
        if room <= 0:
            break
        hands, sink = sample_layout(know, rng)
        pos = layout_position(view, know, hands, sink)
        try:
            values = solver.card_values(pos, budget=min(budget.nodes, room))
        except BudgetExceeded:
            failed += 1
            if solved == 0 and failed >= budget.give_up:
                return None
            continue
        solved += 1
        for card, value in values.items():
            totals[card] = totals.get(card, 0) + value
    if not solved:
        return None
    best = max(totals.values()) if maximise else min(totals.values())
    ties = [c for c in legal if totals.get(c) == best]
    if len(ties) == 1:
        return ties[0]
    # Equal by the search: the rules of thumb break the tie (the cheaper card, usually).
    hint = simple_card(view)
    if hint in ties:
        return hint
    return min(ties, key=lambda c: (int(c.rank), int(c)))


def _objective(view: SeatView, mover: Seat) -> tuple[Goal, Seat, bool]:
    """The solver's goal, the seat it counts tricks for, and whether the mover maximises."""
    pub = view.public
    declarer = pub.declarer
    if pub.kind is DealKind.ALL_PASS or declarer is None:
        return Goal.ALL_PASS, mover, False
    if pub.kind is DealKind.MISERE:
        return Goal.MISERE, declarer, mover != declarer
    return Goal.TRICKS, declarer, mover == declarer


def layout_position(
    view: SeatView,
    know: Knowledge,
    hands: dict[Seat, frozenset[Card]],
    sink: tuple[Card, ...],
) -> Position:
    """The open-card position of one sampled layout (``hands`` and the ``sink``)."""
    pub = view.public
    current = pub.current_trick
    trick = tuple(tc.card for tc in current if not tc.from_talon)
    seated = [tc.seat for tc in current if not tc.from_talon and tc.seat is not None]
    talon_leads: tuple[Card, ...] = ()
    owner: Seat | None = None
    talon_now = [tc.card for tc in current if tc.from_talon]
    if pub.kind is DealKind.ALL_PASS and talon_now:
        # Кодекс 3.7.6: the talon opens tricks 1 and 2; on trick 1 the second talon
        # card is still face down, so the sampled one stands in for it.
        talon_leads = (talon_now[0],)
        if pub.trick_number == 1 and sink:
            talon_leads = (talon_now[0], sink[0])
        owner = pub.dealer if pub.players == 4 else None
    leader = seated[0] if seated else pub.to_act
    assert leader is not None
    if talon_leads:
        leader = know.order[0]
    return Position(
        hands=hands,
        order=know.order,
        leader=leader,
        trick=trick,
        trump=pub.trump if pub.kind is DealKind.GAME else None,
        talon_leads=talon_leads,
        talon_owner=owner,
    )
