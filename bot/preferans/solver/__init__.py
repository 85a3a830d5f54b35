"""An exact solver for open-card (double-dummy) Preferans positions.

Every active hand is known; the solver finds how many tricks ``seat`` takes from
here under best play of both sides, in trick games (the declarer maximises),
misère (the declarer minimises) and all-pass (``seat`` minimises, the other two
play against him). Pure Python: bitmask hands, null-window alpha-beta with a
transposition table at trick boundaries (keyed by relative ranks), equal cards
merged, sure bounds and a move order per goal. Figures: tests/perf/README.md.
"""

from __future__ import annotations

from ..cards import Card
from ..seats import Seat
from .midtrick import ge_from
from .position import Goal, Position, goal_of
from .search import NO_LIMIT, SUIT_MASK, BudgetExceeded, Core

__all__ = ["Goal", "Position", "Solver", "BudgetExceeded", "solve", "card_values", "goal_of"]


class Solver:
    """Solves positions of one deal for one ``seat`` and goal, keeping what it learnt.

    The transposition table survives between calls, so asking about the positions
    of one deal one after another (or one sampled layout card after card) is cheaper
    than asking a fresh solver each time.
    """

    def __init__(self, goal: Goal, seat: Seat) -> None:
        self.goal = goal
        self.seat = seat
        self._cores: dict[tuple[tuple[Seat, ...], int, bool], Core] = {}
        self._last = -1
        """The last whole position's value: the first guess for the next (the layouts of
        one decision, or the positions of one deal, are worth about the same)."""

    @property
    def nodes(self) -> int:
        """Trick-boundary positions searched so far (for benchmarks)."""
        return sum(core.nodes for core in self._cores.values())

    def _core(self, pos: Position) -> Core:
        if self.seat not in pos.order:
            raise ValueError(f"seat {int(self.seat)} is not an active seat of the position")
        trump = -1 if pos.trump is None else int(pos.trump)
        competes = pos.talon_owner is not None
        key = (pos.order, trump, competes)
        core = self._cores.get(key)
        if core is None:
            index = pos.order.index(self.seat)
            wants = self.goal is not Goal.TRICKS  # misère and all-pass: the others want tricks
            maximiser = tuple((i == index) != wants for i in range(3))
            core = Core(
                trump, (maximiser[0], maximiser[1], maximiser[2]), index, talon_competes=competes
            )
            self._cores[key] = core
        return core

    def solve(self, pos: Position, *, budget: int | None = None) -> int:
        """Tricks ``seat`` takes from ``pos`` to the end (the current trick included).

        ``budget`` caps the positions searched by this call; past it
        :class:`BudgetExceeded` is raised (what was learnt stays sound and is kept).
        """
        core = self._core(pos)
        hands, first, played, talon = _unpack(pos)
        n = pos.tricks_left
        core.limit = NO_LIMIT if budget is None else core.nodes + budget
        try:
            self._last = _value(core, hands, first, played, talon, 0, n, guess=self._guess(n))
            return self._last
        finally:
            core.limit = NO_LIMIT

    def at_least(self, pos: Position, k: int, *, budget: int | None = None) -> bool:
        """Whether ``seat`` takes at least ``k`` tricks from ``pos`` under best play: one
        null-window question, cheaper than :meth:`solve` when a value is only checked
        (``budget`` as for :meth:`solve`)."""
        core = self._core(pos)
        hands, first, played, talon = _unpack(pos)
        core.limit = NO_LIMIT if budget is None else core.nodes + budget
        try:
            return ge_from(core, hands, first, played, talon, k)
        finally:
            core.limit = NO_LIMIT

    def at_least_after(self, pos: Position, card: Card, k: int) -> bool:
        """:meth:`at_least` for the position after the hand to move plays ``card``
        (a legal card of his)."""
        core = self._core(pos)
        hands, first, played, talon = _unpack(pos)
        mover = (first + len(played)) % 3
        hands[mover] &= ~(1 << int(card))
        return ge_from(core, hands, first, [*played, int(card)], talon, k)

    def card_values(self, pos: Position, *, budget: int | None = None) -> dict[Card, int]:
        """For the hand to move: ``seat``'s tricks (as :meth:`solve`) after each legal card."""
        core = self._core(pos)
        hands, first, played, talon = _unpack(pos)
        mover = (first + len(played)) % 3
        hand = hands[mover]
        lead = talon[0] if talon else (played[0] if played else -1)
        # Cards still to come count as alive: a talon card yet to open a trick (all-pass,
        # Кодекс 3.7.6) keeps the cards around it from being equal.
        alive = hands[0] | hands[1] | hands[2]
        for card in (*played, *talon):
            alive |= 1 << card
        legal = _legal(hand, lead >> 3 if lead >= 0 else -1, core.trump)
        n = pos.tricks_left
        core.limit = NO_LIMIT if budget is None else core.nodes + budget
        values: dict[int, int] = {}
        try:
            # No card beats the best one: the position's value bounds every card's, and
            # most cards are worth it exactly, so that is asked first.
            best = _value(core, hands, first, played, talon, 0, n, guess=self._guess(n))
            self._last = best
            maximises = core.maximiser[mover]
            for card in sorted(legal, reverse=True):
                top = _run_top(card, hand, alive)
                if top not in values:
                    child = list(hands)
                    child[mover] &= ~(1 << top)
                    after = [*played, top]
                    if maximises:
                        value = _value(core, child, first, after, talon, 0, best, guess=best)
                    else:
                        value = _value(core, child, first, after, talon, best, n, guess=best + 1)
                    values[top] = value
                values[card] = values[top]
        finally:
            core.limit = NO_LIMIT
        return {_CARDS[c]: values[c] for c in sorted(legal)}

    def _guess(self, n: int) -> int:
        """Where the probes of a whole position start: the last value, else a typical
        one (a third of the tricks on misère and all-pass, half in trick games)."""
        if self._last >= 0:
            return min(self._last, n)
        return n // 2 if self.goal is Goal.TRICKS else n // 3


def solve(pos: Position, goal: Goal, seat: Seat, *, budget: int | None = None) -> int:
    """Tricks ``seat`` takes from ``pos`` to the end under best play (see :class:`Goal`)."""
    return Solver(goal, seat).solve(pos, budget=budget)


def card_values(
    pos: Position, goal: Goal, seat: Seat, *, budget: int | None = None
) -> dict[Card, int]:
    """For the hand to move, ``seat``'s tricks under best play after each legal card."""
    return Solver(goal, seat).card_values(pos, budget=budget)


_CARDS = tuple(Card)
"""Each card by its number (the enum's own members, looked up rather than called)."""
_BITS = tuple(1 << c for c in range(32))


def _unpack(pos: Position) -> tuple[list[int], int, list[int], tuple[int, ...]]:
    # A hand's cards are distinct bits, so their sum is their union.
    hands = [sum(map(_BITS.__getitem__, pos.hands[seat])) for seat in pos.order]
    first = pos.order.index(pos.leader)
    return hands, first, [int(c) for c in pos.trick], tuple(int(c) for c in pos.talon_leads)


def _value(
    core: Core,
    hands: list[int],
    first: int,
    played: list[int],
    talon: tuple[int, ...],
    lo: int,
    hi: int,
    *,
    guess: int,
) -> int:
    """The exact trick count, known to lie in ``lo..hi``, by null-window questions ("at
    least k?") from ``k = guess`` a trick at a time towards the answer: values lie near
    the guess, and a question far from the value is the dearer the nearer the truth."""
    k = guess if guess > lo else lo + 1
    while lo < hi:
        if k > hi:
            k = hi
        if ge_from(core, hands, first, played, talon, k):
            lo = k
            k += 1
        else:
            hi = k - 1
            k -= 1
    return lo


def _legal(hand: int, suit: int, trump: int) -> list[int]:
    """Every legal card (not merged): follow suit, else trump if held, else any."""
    if suit >= 0:
        if hand & SUIT_MASK[suit]:
            hand &= SUIT_MASK[suit]
        elif trump >= 0 and hand & SUIT_MASK[trump]:
            hand &= SUIT_MASK[trump]
    return [c for c in range(32) if hand >> c & 1]


def _run_top(card: int, hand: int, alive: int) -> int:
    """The highest card of the run of equal cards ``card`` belongs to in ``hand``."""
    top = card
    suit_end = (card | 7) + 1
    nxt = card + 1
    while nxt < suit_end:
        if alive >> nxt & 1:
            if not hand >> nxt & 1:
                break
            top = nxt
        nxt += 1
    return top
