"""Two simple players the computer player is measured against (tests/perf/players.py).

:func:`random_player` takes a uniformly random legal action. :func:`rule_player` plays
like a beginner who knows the rules of thumb: counts aces, kings and length to bid,
whists with aces, always lies down as a lone whister and plays cards by
:func:`.simple_play.simple_card`. Neither ever reads more than the seat's view.
"""

from __future__ import annotations

import random

from ..actions import Action, Bid, ChooseDefence, Declare, Discard, Play, Whist
from ..cards import Card, Suit
from ..contracts import Contract
from ..outcome import Defence, WhistAnswer
from ..views import SeatView
from .simple_play import simple_card

__all__ = ["random_player", "rule_player"]


def random_player(view: SeatView, rng: random.Random) -> Action:
    """A uniformly random legal action."""
    return rng.choice(view.legal)


def _points(hand: tuple[Card, ...]) -> tuple[float, Suit]:
    """Aces, half the kings and the length over four of the longest suit; that suit."""
    counts = [0, 0, 0, 0]
    for card in hand:
        counts[card.suit] += 1
    longest = Suit(max(range(4), key=lambda s: (counts[s], s)))
    aces = sum(1 for c in hand if int(c.rank) == 7)
    kings = sum(1 for c in hand if int(c.rank) == 6)
    return aces + 0.5 * kings + max(0, counts[longest] - 4), longest


def rule_player(view: SeatView, rng: random.Random) -> Action:
    """A beginner's rules of thumb; always one of ``view.legal``."""
    legal = view.legal
    if len(legal) == 1:
        return legal[0]
    first = legal[0]
    hand = tuple(view.hand)
    if isinstance(first, Bid):
        points, suit = _points(hand)
        limit = 6 if points >= 3.5 else 0
        if points >= 5:
            limit = 7
        raises = [a for a in legal if isinstance(a, Bid) and a.contract and not a.contract.misere]
        ok = [a for a in raises if a.contract is not None and a.contract.level <= limit]
        if ok:
            return min(ok, key=lambda a: a.contract.step if a.contract else 0)
        return next(a for a in legal if isinstance(a, Bid) and a.contract is None)
    if isinstance(first, Discard):
        if view.public.bid is not None and view.public.bid.misere:
            worst = sorted(hand, key=lambda c: -int(c.rank))[:2]
        else:
            _, suit = _points(hand)
            worst = sorted((c for c in hand if c.suit is not suit), key=lambda c: int(c.rank))[:2]
            if len(worst) < 2:
                worst = sorted(hand, key=lambda c: int(c.rank))[:2]
        discard = Discard(view.seat, (worst[0], worst[1]))
        return discard if discard in legal else legal[0]
    if isinstance(first, Declare):
        _, suit = _points(hand)
        mine = [a for a in legal if isinstance(a, Declare) and a.contract.trump is suit]
        options = mine or [a for a in legal if isinstance(a, Declare)]
        return min(options, key=lambda a: a.contract.step)
    if isinstance(first, Whist):
        contract = view.public.contract or Contract(6)
        aces = sum(1 for c in hand if int(c.rank) == 7)
        answer = (
            WhistAnswer.WHIST if aces >= (2 if contract.level == 6 else 1) else WhistAnswer.PASS
        )
        if any(w.seat == view.seat for w in view.public.whists):
            answer = WhistAnswer.PASS  # never returns a whist
        return next((a for a in legal if isinstance(a, Whist) and a.answer is answer), legal[0])
    if isinstance(first, ChooseDefence):
        return next(
            (a for a in legal if isinstance(a, ChooseDefence) and a.defence is Defence.OPEN),
            legal[0],
        )
    assert isinstance(first, Play)
    del rng
    return Play(first.seat, simple_card(view))
