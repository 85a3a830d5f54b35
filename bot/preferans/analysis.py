"""A played deal's analysis: what best play from the start was worth, all cards open, and
the cards that changed that value (docs/record-format.md, "--analyse").

The value is the exact solver's (:mod:`bot.preferans.solver`): in a trick game the
declarer's tricks (he maximises, the defenders minimise), in misère the tricks the
declarer is forced to take, on all-pass each player's own tricks with the other two
against him. A card "changes" the value when the value after it differs from the value
before it: a declarer's card that costs a trick, a defender's card that gives one away.
A deal ended by an accepted offer is analysed up to the offer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .actions import Play
from .cards import Card
from .deal import Deal, Phase
from .outcome import DealKind
from .seats import Seat
from .solver import Goal, Position, Solver, goal_of

__all__ = ["Change", "Analysis", "analyse", "reached_play"]


@dataclass(frozen=True, slots=True)
class Change:
    """One card that changed the solver's value."""

    trick: int
    """The 1-based number of the trick the card was played to."""
    seat: Seat
    """The hand the card came from (in open defence the whister moves the passer's)."""
    card: Card
    delta: int
    """Value after the card minus value before it: for the declarer in a trick game
    (−1: a trick lost for him) and in misère (+1: one more trick he is forced to take);
    on all-pass for the seat that played the card (+1: one more trick for himself)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "trick": self.trick,
            "seat": int(self.seat),
            "card": self.card.code,
            "delta": self.delta,
        }


@dataclass(frozen=True, slots=True)
class Analysis:
    """The best play of a deal and the cards that changed its value."""

    kind: DealKind
    declarer: Seat | None
    best: tuple[int | None, ...]
    """Tricks per seat with best play from the first card. Trick game and misère: one
    line of best play (the declarer's count is the exact value; the defenders' split is
    that line's); all-pass: each player's own value with the other two against him, so
    they need not add up to 10, and ``None`` for the dealer sitting out (4 players),
    whose talon cards' tricks depend on the others' play."""
    changes: tuple[Change, ...]
    taken: tuple[int, ...]
    """Tricks per seat as the deal was played (with an accepted offer, as it gave them)."""
    sits_out: Seat | None
    """The dealer who sits out (4 players), who plays no card; ``None`` with 3 players."""

    @property
    def value(self) -> int | None:
        """The declarer's value with best play (``None`` on all-pass)."""
        return None if self.declarer is None else self.best[self.declarer]

    def gain(self, change: Change, seat: Seat) -> int | None:
        """``change`` as it is for ``seat``: positive when good for him, negative when bad.

        Every change is a loss for the side of the hand that played it: a declarer's card
        can only cost him tricks, a defender's only give the declarer some (in misère the
        other way round), an all-pass card only its own player. ``None`` when the change is
        none of ``seat``'s: the sitting-out dealer's in a trick game or a misère (he has no
        side), another player's card on all-pass (it counts only against its player).
        """
        if self.declarer is None:
            return -change.delta if seat == change.seat else None
        if seat == self.sits_out:
            return None
        # The value is the declarer's tricks: more is good for him in a trick game, bad
        # in misère, and the defenders' side is always the other way.
        good = change.delta if self.kind is DealKind.GAME else -change.delta
        return good if seat == self.declarer else -good

    def to_json(self) -> dict[str, Any]:
        return {"best": list(self.best), "changes": [c.to_json() for c in self.changes]}


def reached_play(deal: Deal) -> bool:
    """Whether ``deal`` reached its play: only then is there something to analyse."""
    return deal.kind is not None and deal.trick_number > 0


def analyse(deal: Deal, *, from_trick: int = 1) -> Analysis | None:
    """The analysis of ``deal``'s card plays (all of them if it is over), or ``None`` when
    it never reached the play (the defenders passed, a half-whist stood, an unwhisted
    ten) or ``from_trick``. Works on a copy; ``deal`` itself is not changed.

    ``from_trick`` starts best play at that trick instead of the first: the cards before
    it are taken as played (tests compare short endings with a plain minimax).
    """
    if not reached_play(deal):
        return None
    live = Deal(
        deal.settings,
        deal.dealer,
        [deal.initial_hand(Seat(s)) for s in range(deal.players)],
        deal.talon,
    )
    log = deal.log
    index = 0
    # Up to the start of best play: that trick's first moment with no offer open.
    while not (
        live.phase is Phase.PLAY
        and live.open_offer is None
        and live.trick_number >= from_trick
        and (live.trick_number > from_trick or not _cards_played(live))
    ):
        if index == len(log):
            return None
        live.apply(log[index])
        index += 1
    kind = live.kind
    assert kind is not None
    goal = goal_of(live)
    start = live.replay()
    solvers = {seat: Solver(goal, seat) for seat in _counted(live, goal)}
    values = {seat: _value(solver, live) for seat, solver in solvers.items()}
    first = dict(values)
    changes: list[Change] = []
    for action in log[index:]:
        if not isinstance(action, Play):
            # Offers and answers: a refused offer changes nothing, an accepted one ends
            # the deal and the analysis with it.
            live.apply(action)
            continue
        trick = live.trick_number
        # The value a card changes: the declarer's; on all-pass the player's own (what
        # it does to the others' values, each assuming the world against him, is no
        # fault of theirs).
        seat = action.seat if goal is Goal.ALL_PASS else live.declarer
        assert seat is not None
        solver = solvers[seat]
        before = values[seat]
        if goal is Goal.ALL_PASS:
            # Others played since his last card: his value may have moved.
            before = _value(solver, live, before)
        # the hand that moved keeps or worsens the value for its side (best play is the
        # best of its cards): one question tells whether the card changed it
        rises = (action.seat == seat) != (goal is Goal.TRICKS)
        live.apply(action)
        after = values[seat] = _value(solver, live, before, rises=rises)
        if after != before:
            changes.append(Change(trick, action.seat, action.card, after - before))
    if goal is Goal.ALL_PASS:
        best: tuple[int | None, ...] = tuple(first.get(Seat(s)) for s in range(deal.players))
    else:
        assert start.declarer is not None
        best = _best_line(start, solvers[start.declarer], first[start.declarer], goal)
    sits_out = deal.dealer if deal.players == 4 else None
    return Analysis(kind, start.declarer, best, tuple(changes), tuple(deal.tricks), sits_out)


def _cards_played(deal: Deal) -> bool:
    return any(not tc.from_talon for tc in deal.current_trick)


def _counted(deal: Deal, goal: Goal) -> tuple[Seat, ...]:
    """Whose value the analysis follows: the declarer's, or on all-pass every player's."""
    if goal is Goal.ALL_PASS:
        return deal.active
    assert deal.declarer is not None
    return (deal.declarer,)


def _value(
    solver: Solver, deal: Deal, guess: int | None = None, *, rises: bool | None = None
) -> int:
    """The solver's seat's tricks for the whole deal from here: taken so far plus what
    best play from here gives him. ``guess`` (the value before the last card, usually
    unchanged) is checked first: two null-window questions instead of a bisection, one
    when the value is known not to fall (``rises``) or not to rise (``rises`` false)."""
    taken = deal.tricks[solver.seat]
    if deal.phase is not Phase.PLAY:
        return taken
    pos = Position.from_deal(deal)
    if guess is None:
        return taken + solver.solve(pos)
    lo, hi = 0, pos.tricks_left
    k = min(max(guess - taken, lo), hi)
    if rises is not True and k > 0 and not solver.at_least(pos, k):
        hi = k - 1
    elif k == hi or rises is False or not solver.at_least(pos, k + 1):
        return taken + k
    else:
        lo = k + 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if solver.at_least(pos, mid):
            lo = mid
        else:
            hi = mid - 1
    return taken + lo


def _best_line(deal: Deal, solver: Solver, value: int, goal: Goal) -> tuple[int, ...]:
    """Tricks per seat along one line of best play from ``deal`` (changed: played out).

    Every hand plays a card that keeps the value (one always exists); of those the
    lowest, so the line is the same every time. One null-window question per card tried.
    """
    seat = solver.seat
    while deal.phase is Phase.PLAY:
        mover = deal.to_act
        assert mover is not None
        pos = Position.from_deal(deal)
        need = value - deal.tricks[seat]
        # Who wants more tricks for ``seat``: the declarer in a trick game, the defenders
        # in misère. Their card keeps the value if ``seat`` still reaches it; the other
        # side's if he still stays under one more.
        maximises = (mover == seat) == (goal is Goal.TRICKS)
        cards = sorted(a.card for a in deal.legal_actions() if isinstance(a, Play))
        for card in cards:
            if maximises == solver.at_least_after(pos, card, need if maximises else need + 1):
                deal.apply(Play(mover, card))
                break
        else:  # pragma: no cover - best play always keeps the value
            raise AssertionError("no card keeps the value")
    return tuple(deal.tricks)
