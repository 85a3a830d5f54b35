"""Catching a misère: the catchers' card, by exact search over every layout, then a plan.

From the declarer's first lead on, both catchers' hands are open (Кодекс 3.8, misère
without whisting): a catcher sees every card but the misère player's, and those are the
cards no one else holds, less the two he discarded. The layouts are few (at most 66
ways to choose his discard out of twelve cards, fewer once he is void somewhere or the
talon held an ace), so each is solved exactly: the card chosen makes him take a trick in
the most layouts, then a second, and so on while cards tie.

When the search cannot finish in budget, and among cards it finds equal, a strong
catcher's plan decides (:func:`plan_card`): lead the declarer's weak suit from the side
that holds the card below all of his in it (the killing low card) while the partner
follows under him; if the partner holds it, hand him the lead with a suit he wins; when
following, stay under the declarer and keep the low cards that may force him later.
"""

from __future__ import annotations

import random
from dataclasses import replace

from ..actions import Play
from ..cards import Card, Suit
from ..outcome import DealKind
from ..seats import Seat
from ..solver import BudgetExceeded, Goal, Position, Solver
from ..views import SeatView
from .evaluation import best_misere_discard, misere_holes
from .knowledge import SINK, Knowledge, knowledge_of
from .layouts import Layout, every_layout, layout_count
from .sampling import sample_layout
from .simple_play import catch_card

__all__ = ["misere_catch", "plan_card", "is_catcher", "MAX_LAYOUTS"]

MAX_LAYOUTS = 120
"""Up to this many layouts every one is solved; past it (a catcher's hand not yet seen)
as many are sampled as the budget's layouts."""
_LIKELIEST = 8
"""The weight of the discard a careful misère player makes (the fewest holes, the highest
cards on ties); other discards leaving as few holes weigh 4, one hole more 2, else 1."""


def misere_catch(view: SeatView, rng: random.Random, samples: int, nodes: int, total: int) -> Card:
    """The card a misère catcher on move plays (``view`` is the catcher's own)."""
    legal = [a.card for a in view.legal if isinstance(a, Play)]
    if len(legal) == 1:
        return legal[0]
    know = knowledge_of(view)
    best = _searched(view, know, legal, rng, samples, nodes, total)
    return plan_card(view, know, best or legal)


def _layouts(
    view: SeatView, know: Knowledge, rng: random.Random, samples: int
) -> list[tuple[Layout, int]]:
    """The layouts to solve, each with its weight: how likely the declarer's discard is.

    His twelve cards are known to the catchers (all but theirs); a strong misère player
    discards the two that leave the fewest holes (:func:`.evaluation.best_misere_discard`),
    usually the talon's aces, but not always (an ace kept beside a void is thrown on it),
    so no discard is ruled out: the likely ones weigh more.
    """
    declarer = view.public.declarer
    assert declarer is not None
    # Every talon card may still be in his hand (the aces' rule of knowledge_of relaxed).
    holders = frozenset({int(declarer), SINK}) if declarer in know.hidden else frozenset({SINK})
    only = {card: holders for card in know.only}
    know = replace(know, only=only)
    if declarer not in know.hidden or layout_count(know) > MAX_LAYOUTS:
        return [(sample_layout(know, rng), 1) for _ in range(samples)]
    layouts = list(every_layout(know))
    pub = view.public
    cards = [tc for t in pub.played_tricks for tc in t.cards] + list(pub.current_trick)
    played = frozenset(tc.card for tc in cards if tc.seat == declarer)
    holes = [misere_holes(hands[declarer] | played) for hands, _ in layouts]
    least = min(holes)
    twelve = layouts[0][0][declarer] | played | frozenset(layouts[0][1])
    likeliest = frozenset(best_misere_discard(twelve)[0])
    return [
        (layout, _LIKELIEST if frozenset(layout[1]) == likeliest else 4 >> min(2, h - least))
        for layout, h in zip(layouts, holes, strict=True)
    ]


def _searched(
    view: SeatView,
    know: Knowledge,
    legal: list[Card],
    rng: random.Random,
    samples: int,
    nodes: int,
    total: int,
) -> list[Card] | None:
    """The cards doing best by exact search (the declarer's trick counts compared one
    threshold at a time), or ``None`` if no layout could be solved within the budget."""
    pub = view.public
    declarer = pub.declarer
    assert declarer is not None
    solver = Solver(Goal.MISERE, declarer)
    weighted = _layouts(view, know, rng, samples)
    positions = [_position(view, know, hands) for (hands, _), _ in weighted]
    weights = [w for _, w in weighted]
    left = positions[0].tricks_left if positions else 0
    alive = _alive(view)
    cards = _representatives(legal, alive)
    for k in range(1, left + 1):
        score = dict.fromkeys(cards, 0)
        solved = 0
        for pos, weight in zip(positions, weights, strict=True):
            room = total - solver.nodes
            if room <= 0:
                break
            try:
                if not solver.at_least(pos, k, budget=min(nodes, room)):
                    solved += 1  # safe from k tricks whatever is played: no card differs
                    continue
                reach = []
                for card in cards:
                    child, won = _after(pos, card, declarer)
                    room = total - solver.nodes
                    if room <= 0:
                        raise BudgetExceeded
                    if won >= k or solver.at_least(child, k - won, budget=min(nodes, room)):
                        reach.append(card)
            except BudgetExceeded:
                continue  # a layout counts whole or not at all
            for card in reach:
                score[card] += weight
            solved += 1
        if not solved:
            return None if k == 1 else _expand(cards, legal, alive)
        top = max(score.values())
        kept = [c for c in cards if score[c] == top]
        if len(kept) == 1 or top == 0:
            return _expand(kept, legal, alive)
        cards = kept
    return _expand(cards, legal, alive)


def _position(view: SeatView, know: Knowledge, hands: dict[Seat, frozenset[Card]]) -> Position:
    pub = view.public
    trick = tuple(tc.card for tc in pub.current_trick if not tc.from_talon)
    seated = [tc.seat for tc in pub.current_trick if tc.seat is not None]
    leader = seated[0] if seated else pub.to_act
    assert leader is not None
    return Position(hands=hands, order=know.order, leader=leader, trick=trick, trump=None)


def _after(pos: Position, card: Card, declarer: Seat) -> tuple[Position, int]:
    """The position after the mover plays ``card``, and 1 if the declarer takes the trick
    this card finishes (0 otherwise)."""
    mover = pos.to_move
    hands = dict(pos.hands)
    hands[mover] = hands[mover] - {card}
    trick = (*pos.trick, card)
    if len(trick) < 3:
        return Position(hands, pos.order, pos.leader, trick, None), 0
    lead = trick[0].suit
    best = max((c for c in trick if c.suit is lead), key=lambda c: int(c.rank))
    start = pos.order.index(pos.leader)
    winner = pos.order[(start + trick.index(best)) % 3]
    return Position(hands, pos.order, winner, (), None), 1 if winner == declarer else 0


def _alive(view: SeatView) -> frozenset[Card]:
    """Cards not in a finished trick: the current trick's still decide who takes it."""
    gone = {tc.card for t in view.public.played_tricks for tc in t.cards}
    return frozenset(c for c in Card if c not in gone)


def _equal(low: Card, high: Card, alive: frozenset[Card], mine: frozenset[Card]) -> bool:
    """Two cards of one suit of the mover's that no card still out lies between."""
    return low.suit is high.suit and all(
        Card(c) not in alive or Card(c) in mine for c in range(int(low) + 1, int(high))
    )


def _representatives(legal: list[Card], alive: frozenset[Card]) -> list[Card]:
    """One card of each run of equal ones."""
    mine = frozenset(legal)
    out: list[Card] = []
    for card in sorted(legal):
        if not (out and _equal(out[-1], card, alive, mine)):
            out.append(card)
    return out


def _expand(cards: list[Card], legal: list[Card], alive: frozenset[Card]) -> list[Card]:
    """Every legal card equal to one of ``cards``."""
    mine = frozenset(legal)
    return [
        c for c in sorted(legal) if any(_equal(min(c, r), max(c, r), alive, mine) for r in cards)
    ]


def plan_card(view: SeatView, know: Knowledge, allowed: list[Card]) -> Card:
    """A strong catcher's plan, among ``allowed`` (legal) cards."""
    if len(allowed) == 1:
        return allowed[0]
    pub = view.public
    mover = pub.to_act
    declarer = pub.declarer
    assert mover is not None and declarer is not None
    seated = [tc for tc in pub.current_trick if tc.seat is not None]
    if seated:
        return catch_card(view, allowed, pub.current_trick)
    partner = next(s for s in know.order if s not in (mover, declarer))
    mine = frozenset(allowed)
    his = know.known.get(partner, frozenset())
    theirs = know.unknown  # the declarer's cards and his discard
    void = know.voids.get(declarer, frozenset())
    kill = _killing(mine, his, theirs, void)
    if kill:
        # Surest first: a suit with more of his possible cards than his discard can hold
        # is a suit he still has; then the highest killing card, keeping the lower ones.
        return max(kill, key=lambda c: (min(_count(theirs, c.suit), 3), int(c.rank), -int(c)))
    if his and _killing(his, know.known.get(mover, mine), theirs, void):
        # The partner holds the killing card: hand him the lead with a suit he wins.
        gives = [c for c in allowed if _partner_wins(c, his, theirs)]
        if gives:
            return min(gives, key=lambda c: (int(c.rank), int(c)))
    return catch_card(view, allowed, pub.current_trick)


def _count(cards: frozenset[Card], suit: Suit) -> int:
    return sum(1 for c in cards if c.suit is suit)


def _low(cards: frozenset[Card], suit: Suit) -> int:
    ranks = [int(c.rank) for c in cards if c.suit is suit]
    return min(ranks) if ranks else 99


def _killing(
    mine: frozenset[Card], his: frozenset[Card], theirs: frozenset[Card], void: frozenset[Suit]
) -> list[Card]:
    """Leads of ``mine`` that make the declarer take the trick if he holds the suit: below
    all his possible cards of it, the partner void in it or holding one below them too."""
    out: list[Card] = []
    for card in mine:
        if card.suit in void:
            continue
        under = _low(theirs, card.suit)
        if under == 99 or int(card.rank) > under:
            continue
        if any(c.suit is card.suit for c in his) and _low(his, card.suit) > under:
            continue
        out.append(card)
    return out


def _partner_wins(card: Card, his: frozenset[Card], theirs: frozenset[Card]) -> bool:
    """Whether the partner surely takes a trick led with ``card``: he holds a card of the
    suit above it and above every card the declarer may hold in it."""
    top = max((int(c.rank) for c in his if c.suit is card.suit), default=-1)
    over = max((int(c.rank) for c in theirs if c.suit is card.suit), default=-1)
    return top > int(card.rank) and top > over


def is_catcher(view: SeatView) -> bool:
    """Whether the seat on move is a misère catcher."""
    pub = view.public
    return (
        pub.kind is DealKind.MISERE
        and pub.declarer is not None
        and pub.to_act is not None
        and pub.to_act != pub.declarer
    )
