"""Moves made for a player: the safe one when his time runs out, and the one he has no
choice in (a lone contract, a lone legal card)."""

from __future__ import annotations

from .actions import Accept, Action, Bid, ChooseDefence, Declare, Discard, Play, Whist
from .outcome import Defence, WhistAnswer
from .views import SeatView

__all__ = [
    "auto_action",
    "forced_declaration",
    "forced_card",
]


def auto_action(view: SeatView) -> Action:
    """The safe action for a player who ran out of time, picked from ``view.legal``.

    Pass in the auction and whisting; closed defence; the lowest legal card; a declarer
    discards his two lowest cards and names the contract he bid; an open offer is
    refused (record format, "Offers": a refusal concedes nothing, the leader plays on).
    """
    legal = view.legal
    if not legal:
        raise ValueError("nothing to do")
    first = legal[0]
    if isinstance(first, Accept):
        return Accept(first.seat, False)
    if isinstance(first, Bid):
        return next((a for a in legal if isinstance(a, Bid) and a.contract is None), first)
    if isinstance(first, Whist):
        return next(
            (a for a in legal if isinstance(a, Whist) and a.answer is WhistAnswer.PASS), first
        )
    if isinstance(first, ChooseDefence):
        return next(
            (a for a in legal if isinstance(a, ChooseDefence) and a.defence is Defence.CLOSED),
            first,
        )
    if isinstance(first, Declare):
        bid = view.public.bid
        return next((a for a in legal if isinstance(a, Declare) and a.contract == bid), first)
    if isinstance(first, Discard):
        return min(
            (a for a in legal if isinstance(a, Discard)),
            key=lambda a: sorted((int(c.rank), int(c.suit)) for c in a.cards),
        )
    return min(
        (a for a in legal if isinstance(a, Play)),
        key=lambda a: (int(a.card.rank), int(a.card.suit)),
    )


def forced_declaration(view: SeatView) -> Declare | None:
    """The declaration the declarer has no choice in, made for him: the only legal contract.

    After a misère bid only misère may be played (Кодекс 3.3.9, 3.6.3: the misère is
    "кабальный"), so a lone "misère" button would only make him press; the same for a
    ten no-trump bid, the top of the ladder. ``None`` while there is a choice or nothing
    to declare.
    """
    legal = view.legal
    if len(legal) == 1 and isinstance(legal[0], Declare):
        return legal[0]
    return None


def forced_card(view: SeatView) -> Play | None:
    """The card ``view``'s seat must play when it has no choice: exactly one legal card
    (a single card of the suit led, a single trump when void, the last card of the hand).
    ``None`` outside the play or with a choice."""
    legal = view.legal
    if len(legal) == 1 and isinstance(legal[0], Play):
        return legal[0]
    return None
