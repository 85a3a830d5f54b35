"""The computer player: one decision for one seat, from that seat's view only."""

from __future__ import annotations

import random

from ..actions import (
    Accept,
    Action,
    Bid,
    ChooseDefence,
    Declare,
    Discard,
    Play,
    Whist,
)
from ..views import SeatView
from .bidding import DEFAULT_STYLE, Style, choose_bid
from .card_play import STRONG, Budget, search_card
from .offering import answer_offer
from .simple_play import simple_card
from .talon import choose_contract, choose_discard
from .whisting import choose_defence, choose_whist

__all__ = ["choose", "play_card"]


def choose(
    view: SeatView,
    rng: random.Random,
    *,
    budget: Budget = STRONG,
    style: Style = DEFAULT_STYLE,
) -> Action:
    """The computer player's action for ``view``; always one of ``view.legal``.

    Only ``view`` is read (the seat's own cards and what the table has seen); hidden
    cards are guessed by sampling with ``rng``, so a fixed seed gives a fixed choice.
    """
    legal = view.legal
    if not legal:
        raise ValueError(f"seat {int(view.seat)} has nothing to decide now")
    if len(legal) == 1:
        return legal[0]
    first = legal[0]
    action: Action
    if isinstance(first, Bid):
        action = choose_bid(view, style, budget.judge, budget.judge_samples)
    elif isinstance(first, Discard):
        action = choose_discard(view, budget.judge, budget.judge_samples)
    elif isinstance(first, Declare):
        action = choose_contract(view, budget.judge, budget.judge_samples)
    elif isinstance(first, Whist):
        action = choose_whist(view)
    elif isinstance(first, ChooseDefence):
        action = choose_defence(view)
    elif isinstance(first, Accept):
        action = answer_offer(view, rng, budget)
    else:
        action = _play(view, rng, budget)
    if action not in legal:  # pragma: no cover - every chooser picks from view.legal
        raise AssertionError(f"{action} is not legal here")
    return action


def _play(view: SeatView, rng: random.Random, budget: Budget) -> Action:
    return play_card(view, rng, budget)[0]


def play_card(view: SeatView, rng: random.Random, budget: Budget) -> tuple[Action, bool]:
    """The card :func:`choose` plays, and whether the search over sampled layouts chose it
    (else the rules of thumb did: no layout was solved within ``budget``)."""
    mover = view.public.to_act
    assert mover is not None
    card = search_card(view, rng, budget)
    searched = card is not None
    if card is None:
        card = simple_card(view)
    # The legal action itself (equal to Play(mover, card)): checked by identity, not
    # field by field, wherever it is looked up in view.legal.
    for action in view.legal:
        if isinstance(action, Play) and action.seat == mover and action.card == card:
            return action, searched
    return Play(mover, card), searched
