"""Compact callback data: ``<table base36>:<move base36>:<code>`` (at most 64 bytes).

Game codes (:func:`action_code`; :func:`action_of` reads one back as an engine action, which
the core then checks against the seat's legal actions):
``b6S`` bid, ``bM`` misère, ``bP`` pass, ``t7S``/``u7S`` mark/unmark a card for the discard,
``k`` confirm the discard, ``c7H``/``cM`` contract, ``wW``/``wP``/``wH`` whist,
``dO``/``dC`` open/closed defence, ``p10H`` play a card, ``o0-6-4`` offer the tricks
per seat (record format, "Offers"), ``aY``/``aN`` accept/refuse the open offer.
Lobby and table codes start with ``L`` (``Ls`` sit, ``Lu`` stand up, ``Lg`` start,
``Lo`` settings, ``Lb`` back, ``Lc`` cancel, ``Lx<key>`` change a setting), ``V`` (vote to
stop), ``R<seat>`` (take over a seat), ``H`` (a hint for the seat on turn) and ``Oo``/``Ob``
(show the offer buttons, back to the cards); ``A<seat>`` asks for the analysis of a deal
under its review, with the deal's number in place of the move (followed by the code of
the move the timer made for him last, which that review notes and its redraw keeps).
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.preferans.actions import Accept, Action, Bid, ChooseDefence, Declare, Offer, Play, Whist
from bot.preferans.cards import parse_card
from bot.preferans.contracts import parse_contract
from bot.preferans.outcome import Defence, WhistAnswer
from bot.preferans.seats import Seat
from bot.preferans.views import PublicView

__all__ = [
    "CallbackData",
    "encode",
    "decode",
    "action_code",
    "action_of",
    "action_at",
    "to_base36",
    "from_base36",
    "MAX_BYTES",
]

MAX_BYTES = 64
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def to_base36(value: int) -> str:
    """``value`` (not negative) in base 36, lower case."""
    if value < 0:
        raise ValueError("base36 numbers here are never negative")
    out = ""
    while True:
        value, digit = divmod(value, 36)
        out = _DIGITS[digit] + out
        if value == 0:
            return out


def from_base36(text: str) -> int:
    """Parse :func:`to_base36` output; raises ``ValueError``."""
    if not text or len(text) > 12 or any(ch not in _DIGITS for ch in text):
        raise ValueError(f"not a base36 number: {text!r}")
    return int(text, 36)


@dataclass(frozen=True, slots=True)
class CallbackData:
    """A decoded button press."""

    table_id: int
    move: int
    code: str


def encode(table_id: int, move: int, code: str) -> str:
    """The callback data of a button; raises ``ValueError`` if it would not fit."""
    data = f"{to_base36(table_id)}:{to_base36(move)}:{code}"
    if len(data.encode()) > MAX_BYTES:
        raise ValueError(f"callback data too long: {data!r}")
    return data


def decode(data: str | None) -> CallbackData | None:
    """Decode button data; ``None`` for anything that is not ours."""
    if not data or len(data.encode()) > MAX_BYTES:
        return None
    parts = data.split(":", 2)
    if len(parts) != 3 or not parts[2]:
        return None
    try:
        return CallbackData(from_base36(parts[0]), from_base36(parts[1]), parts[2])
    except ValueError:
        return None


def action_code(action: object) -> str:
    """The button code of an engine action (read back by :func:`action_of`)."""
    match action:
        case Bid(contract=None):
            return "bP"
        case Bid(contract=c) if c is not None:
            return "bM" if c.misere else f"b{c.code}"
        case Declare(contract=c):
            return "cM" if c.misere else f"c{c.code}"
        case Whist(answer=answer):
            return "w" + {"whist": "W", "pass": "P", "half": "H"}[answer.value]
        case ChooseDefence(defence=defence):
            return "dO" if defence.value == "open" else "dC"
        case Play(card=played):
            return f"p{played.code}"
        case Offer(tricks=tricks):
            return "o" + "-".join(str(n) for n in tricks)
        case Accept(accepted=accepted):
            return "aY" if accepted else "aN"
    raise ValueError(f"no button code for {action!r}")  # discards are picked card by card


_WHIST = {"W": WhistAnswer.WHIST, "P": WhistAnswer.PASS, "H": WhistAnswer.HALF}
_DEFENCE = {"O": Defence.OPEN, "C": Defence.CLOSED}


def action_of(code: str, view: PublicView) -> Action | None:
    """The engine action a move button's ``code`` names in the deal ``view`` shows, or
    ``None`` when it names none. It is for the hand to act (in open defence the whister
    moves the passer's cards); an offer is the deciding player's (record format, "Offers").
    Whether it is legal is the core's to check."""
    hand, actor = view.to_act, view.actor
    if hand is None or actor is None:
        return None
    return action_at(code, hand, actor)


def action_at(code: str, hand: Seat, actor: Seat) -> Action | None:
    """:func:`action_of` for the ``hand`` to move and the deciding ``actor`` given."""
    if len(code) < 2:
        return None
    kind, rest = code[0], code[1:]
    action: Action | None = None
    try:
        if kind == "b":
            action = Bid(hand, None if rest == "P" else parse_contract(_contract(rest)))
        elif kind == "c":
            action = Declare(hand, parse_contract(_contract(rest)))
        elif kind == "w" and rest in _WHIST:
            action = Whist(hand, _WHIST[rest])
        elif kind == "d" and rest in _DEFENCE:
            action = ChooseDefence(hand, _DEFENCE[rest])
        elif kind == "p":
            action = Play(hand, parse_card(rest))
        elif kind == "o":
            action = Offer(actor, tuple(int(n) for n in rest.split("-")))
        elif kind == "a" and rest in ("Y", "N"):
            action = Accept(hand, rest == "Y")
    except ValueError:
        return None
    # only the code's one spelling: "p7s" or "o+1-9-0" name nothing
    return action if action is not None and action_code(action) == code else None


def _contract(text: str) -> str:
    return "misere" if text == "M" else text
