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
Every candidate (a strain and the ten cards played in it) is solved in the same layouts,
so they are compared on the same cards; more layouts can be dealt where the answer is
close (:meth:`Judgement.more`).

The layouts are drawn from a generator seeded by the seat's own cards: the same hand
gives the same judgement, and the card play's random stream is left untouched.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from itertools import combinations

from ..cards import DECK, Card, Suit
from ..contracts import PRICES
from ..seats import Seat
from ..solver import BudgetExceeded, Goal, Position, Solver
from .evaluation import best_misere_discard, hand_masks, masks_declarer_tricks, without

__all__ = [
    "POINT",
    "game_value",
    "misere_value",
    "judge_rng",
    "Candidate",
    "best_ten",
    "good_tens",
    "Judgement",
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


def best_ten(cards: Sequence[Card], trump: Suit | None) -> frozenset[Card]:
    """The ten of twelve cards that count the most tricks with ``trump``."""
    return good_tens(cards, trump, 1)[0]


def good_tens(
    cards: Sequence[Card], trump: Suit | None, count: int, margin: float = 0.0
) -> list[frozenset[Card]]:
    """Up to ``count`` tens of the twelve cards that count the most tricks with
    ``trump``, best first, none more than ``margin`` tricks below the best, and no two
    alike in play (:func:`_shape`: a kept 7 or 8 of a suit whose other one is thrown)."""
    masks = hand_masks(cards)
    scored: list[tuple[float, tuple[Card, Card]]] = []
    for pair in combinations(cards, 2):
        value = masks_declarer_tricks(without(masks, pair), trump)
        value -= 0.001 * (int(pair[0].rank) + int(pair[1].rank))  # ties: throw low cards
        scored.append((value, pair))
    # Stable: among equal values the first pair in order, as a strict maximum finds.
    scored.sort(key=lambda x: -x[0])
    outside = [~m & 0xFF for m in masks]
    out: list[frozenset[Card]] = []
    seen: set[tuple[tuple[int, ...], ...]] = set()
    for value, pair in scored:
        if value < scored[0][0] - margin or len(out) >= count:
            break
        kept = frozenset(c for c in cards if c not in pair)
        shape = _shape(kept, outside)
        if shape not in seen:
            seen.add(shape)
            out.append(kept)
    return out


def _shape(kept: Iterable[Card], outside: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    """What ten cards are worth in play: per suit, how many of the others' cards lie
    below each kept card. Two tens of one twelve with the same shape play alike (a card
    thrown between two kept ones of no other hand's rank changes nothing)."""
    below: list[list[int]] = [[], [], [], []]
    for card in kept:
        c = int(card)
        below[c >> 3].append(bin(outside[c >> 3] & ((1 << (c & 7)) - 1)).count("1"))
    return tuple(tuple(sorted(b)) for b in below)


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


Candidate = tuple[Suit | None, frozenset[Card] | None]
"""A strain and the ten cards played in it; ``None`` cards: the best ten of his twelve
once the talon (dealt with each layout) is in hand."""


class Judgement:
    """Candidate contracts' tricks over sampled layouts, the same layouts for all; more
    layouts can be added where the answer is close (:meth:`more`)."""

    def __init__(
        self,
        me: Seat,
        order: tuple[Seat, Seat, Seat],
        mine: Sequence[Card],
        out: Iterable[Card],
        candidates: Sequence[Candidate],
        *,
        talon: bool,
        fits: Fits | None = None,
    ) -> None:
        """``mine``: the cards the judged player holds (ten, or twelve with the talon
        taken; a candidate names the ten it plays). ``talon``: two unknown cards are dealt
        to him with each layout (the auction). ``out``: cards he knows are out of play."""
        self.me = me
        self.mine = tuple(mine)
        self.candidates = list(candidates)
        self.layouts = _Layouts(me, order, mine, out, 2 if talon else 0)
        self.rng = judge_rng(me, (*mine, *out))
        self.fits = fits
        self.solvers = {strain: Solver(Goal.TRICKS, me) for strain, _ in candidates}
        self.tricks: list[list[int]] = [[] for _ in candidates]
        """Each candidate's tricks in the layouts solved for it."""
        self.best: list[int] = []
        """Each layout's most tricks over the candidates (he names his strain after
        seeing the talon)."""
        self.spent = 0
        self.limit = 0
        self.dealt = 0
        self.dealt_layouts: list[tuple[tuple[Card, ...], dict[Seat, frozenset[Card]]]] = []
        """The layouts dealt, in order: the talon's cards and the other two hands."""

    def more(self, samples: int, nodes: int) -> None:
        """Deal ``samples`` more layouts, with ``nodes`` more solver positions for them; a
        layout over its share is left out for that candidate."""
        self.limit += nodes
        alive = list(range(len(self.candidates)))
        for _ in range(samples):
            extra, hands = self.layouts.deal(self.rng, self.fits)
            self.dealt += 1
            self.dealt_layouts.append((extra, hands))
            alive = _promising(alive, self.tricks)
            top = -1
            for index in alive:
                room = self.limit - self.spent
                if room <= 0:
                    return
                value = self._solve(index, extra, hands, room)
                if value >= 0:
                    self.tricks[index].append(value)
                    top = max(top, value)
            if top >= 0:
                self.best.append(top)

    def add(self, candidates: Sequence[Candidate], nodes: int) -> None:
        """Judge more candidates in the layouts already dealt, with ``nodes`` more solver
        positions for them (their tricks follow the others' in :attr:`tricks`)."""
        first = len(self.candidates)
        self.candidates.extend(candidates)
        for strain, _ in candidates:
            self.solvers.setdefault(strain, Solver(Goal.TRICKS, self.me))
        self.tricks.extend([] for _ in candidates)
        self.limit += nodes
        # The first guess: the mean of the first candidate of the same strain (another
        # ten of the same twelve takes about as many tricks).
        hints: dict[Suit | None, float] = {}
        for (strain, _), done in zip(self.candidates[:first], self.tricks[:first], strict=True):
            if done and strain not in hints:
                hints[strain] = sum(done) / len(done)
        for extra, hands in self.dealt_layouts:
            for index in range(first, len(self.candidates)):
                room = self.limit - self.spent
                if room <= 0:
                    return
                hint = hints.get(self.candidates[index][0])
                value = self._solve(index, extra, hands, room, hint)
                if value >= 0:
                    self.tricks[index].append(value)

    def _solve(
        self,
        index: int,
        extra: tuple[Card, ...],
        hands: dict[Seat, frozenset[Card]],
        room: int,
        hint: float | None = None,
    ) -> int:
        """A candidate's tricks in one layout; -1 when over budget. ``hint``: the first
        guess at them, else the hand count's."""
        strain, held = self.candidates[index]
        if held is None:
            held = best_ten((*self.mine, *extra), strain) if extra else frozenset(self.mine)
        solver = self.solvers[strain]
        before = solver.nodes
        # The questions walk from a guess: this candidate's mean so far, else
        # the hand count (a guess two tricks out costs two more searches).
        done = self.tricks[index]
        if done:
            guess = sum(done) / len(done)
        else:
            guess = masks_declarer_tricks(hand_masks(held), strain) if hint is None else hint
        pos = self.layouts.position({**hands, self.me: held}, strain)
        try:
            value = _count(solver, pos, round(guess), min(room, _PER_LAYOUT))
        except BudgetExceeded:
            value = -1
        self.spent += solver.nodes - before
        return value


_PRUNE_AFTER = 4
_PRUNE_GAP = 1.5
"""A candidate this many tricks a layout behind the best, over the same layouts, is not
solved further: its contracts cannot be worth the best one's."""


def _promising(alive: list[int], tricks: list[list[int]]) -> list[int]:
    counted = [tricks[i] for i in alive if len(tricks[i]) >= _PRUNE_AFTER]
    if len(counted) < 2:
        return alive
    top = max(sum(v) / len(v) for v in counted)
    return [
        i
        for i in alive
        if len(tricks[i]) < _PRUNE_AFTER or sum(tricks[i]) / len(tricks[i]) >= top - _PRUNE_GAP
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
