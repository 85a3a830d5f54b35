"""Whist, pass, half-whist, returning the whist, and open or closed defence (Кодекс 3.8).

A defender counts the tricks his hand takes against the contract
(:func:`.evaluation.defender_tricks`) and compares them with his share of the
defenders' obligation (6 → 4 tricks, 7 → 2, 8–10 → 1; contracts.py): two whisters
share it, a lone whister answers for all of it. On 8 and more one trick against the
declarer already pays, so an ace is a whist. A half-whist takes a sure half of the
whists on 6 and 7 for a hand too weak to whist alone.
"""

from __future__ import annotations

from ..actions import ChooseDefence, Whist
from ..contracts import Contract
from ..outcome import Defence, WhistAnswer
from ..views import SeatView
from .evaluation import defender_tricks

__all__ = ["choose_whist", "choose_defence", "whist_thresholds"]


def whist_thresholds(contract: Contract) -> tuple[float, float, float]:
    """Tricks needed to whist beside a partner, to whist alone, and to half-whist."""
    level = contract.level
    if level == 6:
        return 1.6, 2.6, 0.9
    if level == 7:
        return 1.0, 1.6, 0.6
    return 0.8, 0.9, 99.0


def choose_whist(view: SeatView) -> Whist:
    """The answer for a defender's turn; always one of ``view.legal``."""
    legal = [a for a in view.legal if isinstance(a, Whist)]
    answers = {a.answer: a for a in legal}
    if len(answers) == 1:
        return legal[0]  # e.g. stalingrad: 6♠ must be whisted
    pub = view.public
    contract = pub.contract
    assert contract is not None
    tricks = defender_tricks(view.hand, contract.trump)
    together, alone, half = whist_thresholds(contract)
    earlier = [w for w in pub.whists if w.seat != view.seat]
    mine_before = [w for w in pub.whists if w.seat == view.seat]
    if mine_before:
        # Returning the whist after a half-whist (Кодекс 3.8.8): whist alone or let it stand.
        want = WhistAnswer.WHIST if tricks >= alone - 0.4 else WhistAnswer.PASS
    elif not earlier:
        # First defender: the partner usually whists too when it pays.
        want = WhistAnswer.WHIST if tricks >= together else WhistAnswer.PASS
    else:
        partner = earlier[-1].answer
        if partner is WhistAnswer.WHIST:
            want = WhistAnswer.WHIST if tricks >= together else WhistAnswer.PASS
        elif tricks >= alone:
            want = WhistAnswer.WHIST
        elif tricks >= half and WhistAnswer.HALF in answers:
            want = WhistAnswer.HALF
        else:
            want = WhistAnswer.PASS
    return answers.get(want, answers.get(WhistAnswer.PASS, legal[0]))


def choose_defence(view: SeatView) -> ChooseDefence:
    """A lone whister lies down (open) unless his own hand covers the whole obligation.

    Open play lets him move both defenders' hands, worth a trick or more when his
    partner holds the other tricks; standing (closed) keeps the declarer guessing.
    """
    legal = [a for a in view.legal if isinstance(a, ChooseDefence)]
    contract = view.public.contract
    if contract is None:
        return legal[0]
    tricks = defender_tricks(view.hand, contract.trump)
    want = Defence.CLOSED if tricks >= contract.obligation + 0.5 else Defence.OPEN
    return next((a for a in legal if a.defence is want), legal[0])
