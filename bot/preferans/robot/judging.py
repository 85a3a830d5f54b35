"""Judging a hand by play: the unknown cards dealt many ways, each layout solved exactly,
each contract valued by what it scores.

The hand counts of :mod:`.evaluation` are quick but blind to how the cards lie together
(a void in no trump, a six without aces, a misère with a long broken suit). Where the
budget allows (:attr:`.card_play.Budget.judge`), the auction, the contract and the misère
call are checked here instead: the player's own cards are fixed, the rest dealt at random
(the talon too, in the auction), the declarer keeps the best ten of his twelve by the hand
count, and the double-dummy solver says how many tricks each strain makes. A contract is
then worth the mean of its score over the layouts, so a dearer contract is named only
when its price pays for its risk, and a cold ten is named because every layout makes it.

The layouts are drawn from a generator seeded by the seat's own cards: the same hand
gives the same judgement, and the card play's random stream is left untouched.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from itertools import combinations

from ..cards import DECK, Card, Seat, Suit
from ..contracts import PRICES
from ..solver import BudgetExceeded, Goal, Position, Solver
from .evaluation import best_misere_discard, hand_masks, masks_declarer_tricks, without

__all__ = [
    "POINT",
    "game_value",
    "misere_value",
    "judge_rng",
    "game_tricks",
    "misere_tricks",
]

POINT = 10 * 2 / 3
"""Whists a pulka or gora point is worth to its owner at three players: settlement writes
10 whists per gora point to each of the others, and the amnesty shares it (scoring.settle)."""

_TRIES = 20
"""Layouts dealt to find one that fits the bidding before taking whatever comes."""

Fits = Callable[[dict[Seat, frozenset[Card]]], bool]
"""Whether the other hands of a layout fit what the bidding showed."""

_PER_LAYOUT = 12000
"""Solver positions one layout of one strain may take; past it the layout is skipped."""


def game_value(level: int, tricks: int) -> float:
    """The declarer's result in whists for a game of ``level`` taking ``tricks``, both
    defenders whisting (Сочинка's factors; the other conventions scale them alike).

    Made: the price into the pulka, the defenders' tricks written as whists on him.
    Short: the price per missing trick into his gora, the defenders' whists, and each
    whister's consolation per missing trick (Кодекс 3.8.1).
    """
    price = PRICES[level]
    defence = 10 - tricks
    if tricks >= level:
        return price * (POINT - defence)
    under = level - tricks
    return -price * (POINT * under + defence + 2 * under)


def misere_value(tricks: int) -> float:
    """The misère player's result in whists: 10 into the pulka clean, 10 gora a trick."""
    return 10 * POINT if tricks == 0 else -10 * POINT * tricks


def judge_rng(seat: Seat, cards: Iterable[Card]) -> random.Random:
    """The layouts' generator: fixed by the seat and its cards."""
    seed = int(seat) << 32
    for card in cards:
        seed |= 1 << int(card)
    return random.Random(seed)


def _best_discard(cards: Sequence[Card], trump: Suit | None) -> frozenset[Card]:
    """The ten of twelve cards that count the most tricks with ``trump``."""
    masks = hand_masks(cards)
    best: tuple[float, tuple[Card, Card]] | None = None
    for pair in combinations(cards, 2):
        value = masks_declarer_tricks(without(masks, pair), trump)
        value -= 0.001 * (int(pair[0].rank) + int(pair[1].rank))  # ties: throw low cards
        if best is None or value > best[0]:
            best = (value, (pair[0], pair[1]))
    assert best is not None
    return frozenset(c for c in cards if c not in best[1])


class _Layouts:
    """Sampled deals of the unknown cards around one player."""

    def __init__(
        self,
        me: Seat,
        order: tuple[Seat, Seat, Seat],
        mine: Sequence[Card],
        out: Iterable[Card],
        talon: int,
    ) -> None:
        self.me = me
        self.order = order
        self.mine = tuple(mine)
        self.talon = talon
        gone = set(self.mine) | set(out)
        self.unknown = [c for c in DECK if c not in gone]
        self.others = [s for s in order if s != me]

    def deal(
        self, rng: random.Random, fits: Fits | None = None
    ) -> tuple[tuple[Card, ...], dict[Seat, frozenset[Card]]]:
        """One layout; with ``fits``, one it accepts if one is found in a few tries."""
        cards = list(self.unknown)
        for _ in range(_TRIES):
            rng.shuffle(cards)
            talon = tuple(cards[: self.talon])
            rest = cards[self.talon :]
            half = len(rest) // 2
            hands = {
                self.others[0]: frozenset(rest[:half]),
                self.others[1]: frozenset(rest[half:]),
            }
            if fits is None or fits(hands):
                break
        return talon, hands

    def position(self, hands: dict[Seat, frozenset[Card]], trump: Suit | None) -> Position:
        return Position(
            hands={s: hands[s] for s in self.order},
            order=self.order,
            leader=self.order[0],  # Кодекс 3.5.1: the first hand leads
            trick=(),
            trump=trump,
        )


def game_tricks(
    me: Seat,
    order: tuple[Seat, Seat, Seat],
    mine: Sequence[Card],
    out: Iterable[Card],
    strains: Sequence[Suit | None],
    samples: int,
    nodes: int,
    *,
    talon: bool,
    fits: Fits | None = None,
    best: list[int] | None = None,
) -> dict[Suit | None, list[int]]:
    """The declarer's tricks in each strain over sampled layouts.

    ``mine``: his ten cards. ``talon``: the talon is still to come (the auction): two
    unknown cards are dealt to him and he keeps the best ten of twelve for each strain.
    ``out``: cards he knows are out of play (his discard). ``nodes``: solver positions
    for all of it; a layout over its share is left out. ``fits``: the others' hands
    dealt to fit the bidding. ``best``: receives each layout's most tricks over the
    strains (he names his strain after seeing the talon).
    """
    layouts = _Layouts(me, order, mine, out, 2 if talon else 0)
    rng = judge_rng(me, mine)
    solvers = {strain: Solver(Goal.TRICKS, me) for strain in strains}
    tricks: dict[Suit | None, list[int]] = {strain: [] for strain in strains}
    spent = 0
    alive = list(strains)
    for _ in range(samples):
        extra, hands = layouts.deal(rng, fits)
        alive = _promising(alive, tricks)
        top = -1
        for strain in alive:
            room = nodes - spent
            if room <= 0:
                return tricks
            held = _best_discard((*mine, *extra), strain) if extra else frozenset(mine)
            solver = solvers[strain]
            before = solver.nodes
            guess = masks_declarer_tricks(hand_masks(held), strain)
            pos = layouts.position({**hands, me: held}, strain)
            try:
                value = _count(solver, pos, round(guess), min(room, _PER_LAYOUT))
            except BudgetExceeded:
                value = -1
            spent += solver.nodes - before
            if value >= 0:
                tricks[strain].append(value)
                top = max(top, value)
        if best is not None and top >= 0:
            best.append(top)
    return tricks


_PRUNE_AFTER = 4
_PRUNE_GAP = 1.5
"""A strain this many tricks a layout behind the best, over the same layouts, is not
solved further: its contracts cannot be worth the best one's."""


def _promising(
    strains: list[Suit | None], tricks: dict[Suit | None, list[int]]
) -> list[Suit | None]:
    counted = [tricks[s] for s in strains if len(tricks[s]) >= _PRUNE_AFTER]
    if len(counted) < 2:
        return strains
    top = max(sum(v) / len(v) for v in counted)
    return [
        s
        for s in strains
        if len(tricks[s]) < _PRUNE_AFTER or sum(tricks[s]) / len(tricks[s]) >= top - _PRUNE_GAP
    ]


def _count(solver: Solver, pos: Position, guess: int, budget: int) -> int:
    """The exact trick count by null-window questions walking from ``guess``: two or
    three questions when the guess is near, instead of a bisection's four."""
    limit = solver.nodes + budget
    k = min(max(guess, 0), 10)

    def at_least(n: int) -> bool:
        return solver.at_least(pos, n, budget=max(1, limit - solver.nodes))

    if k > 0 and not at_least(k):
        k -= 1
        while k > 0 and not at_least(k):
            k -= 1
        return k
    while k < 10 and at_least(k + 1):
        k += 1
    return k


def misere_tricks(
    me: Seat,
    order: tuple[Seat, Seat, Seat],
    mine: Sequence[Card],
    samples: int,
    nodes: int,
) -> list[int]:
    """Tricks a misère player with ``mine`` (ten cards before the talon) is forced to
    take over sampled talons and layouts, the catchers playing perfectly. A layout the
    solver could not settle in budget counts as one trick: a clean misère is proved in
    a few positions, a doubtful one is not."""
    layouts = _Layouts(me, order, mine, (), 2)
    rng = judge_rng(me, mine)
    solver = Solver(Goal.MISERE, me)
    out: list[int] = []
    for _ in range(samples):
        room = nodes - solver.nodes
        if room <= 0:
            break
        extra, hands = layouts.deal(rng)
        pair, _ = best_misere_discard((*mine, *extra))
        held = frozenset(c for c in (*mine, *extra) if c not in pair)
        try:
            out.append(
                solver.solve(
                    layouts.position({**hands, me: held}, None), budget=min(room, _PER_LAYOUT)
                )
            )
        except BudgetExceeded:
            out.append(1)
    return out
