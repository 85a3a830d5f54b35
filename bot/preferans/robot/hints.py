"""A hint: what the strongest computer player would do for a seat, and in a word why.

The move is :func:`.player.choose` at the strong budget with a fixed seed, from the seat's
own view only: the same answer as ``python -m bot.replay FILE --hint``. The reason is
read from the counts the player itself starts from (:mod:`.evaluation`) and from how it
decided (a card found by the search over sampled layouts, or by the rules of thumb
when the search did not fit its budget); it names a key and numbers, the texts are the
renderer's.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..actions import Accept, Action, Bid, ChooseDefence, Declare, Discard, Play, Whist
from ..contracts import Contract
from ..outcome import Defence, WhistAnswer
from ..views import SeatView
from .bidding import DEFAULT_STYLE
from .card_play import STRONG
from .evaluation import best_trumps, declarer_tricks, defender_tricks, misere_holes
from .player import choose, play_card

__all__ = ["Hint", "HINT_SEED", "hint_action", "hint"]

HINT_SEED = 0
"""The seed of the hint's sampled layouts: the same position always gets the same hint."""


@dataclass(frozen=True, slots=True)
class Hint:
    """The move and why: ``reason`` names the reason's text, ``tricks`` the tricks the
    hand counts about, ``need`` the tricks it needs, ``contract`` the one it is about."""

    action: Action
    reason: str
    tricks: int | None = None
    need: int | None = None
    contract: Contract | None = None


def hint_action(view: SeatView) -> Action:
    """The strongest computer player's move for ``view``'s seat (its turn)."""
    return choose(view, random.Random(HINT_SEED), budget=STRONG)


def hint(view: SeatView) -> Hint:
    """:func:`hint_action` and its reason."""
    if len(view.legal) == 1:
        return Hint(view.legal[0], "only")
    if isinstance(view.legal[0], Play):  # as choose() plays it, with how it was found
        card, searched = play_card(view, random.Random(HINT_SEED), STRONG)
        return Hint(card, "card.layouts" if searched else "card.rules")
    action = hint_action(view)
    if isinstance(action, Bid):
        return _bid(view, action)
    if isinstance(action, Declare):
        return _contract(view, action, action.contract, "declare")
    if isinstance(action, Discard):
        rest = [c for c in view.hand if c not in action.cards]
        bid = view.public.bid
        if bid is not None and bid.misere:
            return Hint(action, "discard.misere", tricks=misere_holes(rest))
        return Hint(action, "discard", tricks=round(best_trumps(rest)[1]))
    if isinstance(action, Whist):
        return _whist(view, action)
    if isinstance(action, ChooseDefence):
        contract = view.public.contract
        assert contract is not None
        tricks = round(defender_tricks(view.hand, contract.trump))
        reason = "defence.open" if action.defence is Defence.OPEN else "defence.closed"
        return Hint(action, reason, tricks=tricks, need=contract.obligation)
    if isinstance(action, Accept):
        return Hint(action, "accept" if action.accepted else "refuse")
    raise AssertionError(f"{action} has no hint")  # pragma: no cover - every kind above


def _bid(view: SeatView, action: Bid) -> Hint:
    contract = action.contract
    if contract is None:
        raises = [
            a.contract
            for a in view.legal
            if isinstance(a, Bid) and a.contract is not None and not a.contract.misere
        ]
        lowest = min(raises, key=lambda c: c.step) if raises else None
        return Hint(action, "bid.pass", contract=lowest)
    if contract.misere:
        return Hint(action, "misere")
    return _contract(view, action, contract, "bid", DEFAULT_STYLE.talon_hope)


def _contract(
    view: SeatView, action: Action, contract: Contract, kind: str, hope: float = 0.0
) -> Hint:
    """A trick contract by the hand count (with what the talon may add in the auction),
    or, when the count is short of it, by the sampled layouts that judged it."""
    if contract.misere:
        return Hint(action, "misere")
    tricks = round(declarer_tricks(view.hand, contract.trump) + hope)
    if tricks >= contract.level:
        return Hint(action, f"{kind}.count", tricks=tricks, contract=contract)
    return Hint(action, f"{kind}.layouts", contract=contract)


def _whist(view: SeatView, action: Whist) -> Hint:
    contract = view.public.contract
    assert contract is not None
    tricks = round(defender_tricks(view.hand, contract.trump))
    reason = {
        WhistAnswer.WHIST: "whist.whist",
        WhistAnswer.PASS: "whist.pass",
        WhistAnswer.HALF: "whist.half",
    }[action.answer]
    return Hint(action, reason, tricks=tricks, contract=contract)
