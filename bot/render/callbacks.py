"""Compact callback data: ``<table base36>:<move base36>:<code>`` (at most 64 bytes).

Game codes (decoded against the engine's legal actions, never interpreted here):
``b6S`` bid, ``bM`` misère, ``bP`` pass, ``t7S``/``u7S`` mark/unmark a card for the discard,
``k`` confirm the discard, ``c7H``/``cM`` contract, ``wW``/``wP``/``wH`` whist,
``dO``/``dC`` open/closed defence, ``p10H`` play a card, ``o0-6-4`` offer the tricks
per seat (record format, "Offers"), ``aY``/``aN`` accept/refuse the open offer.
Lobby and table codes start with ``L`` (``Ls`` sit, ``Lu`` stand up, ``Lg`` start,
``Lo`` settings, ``Lb`` back, ``Lc`` cancel, ``Lx<key>`` change a setting), ``V`` (vote to
stop), ``R<seat>`` (take over a seat), ``H`` (a hint for the seat on turn) and ``Oo``/``Ob``
(show the offer buttons, back to the cards); ``A<seat>`` asks for the analysis of a deal
under its review, with the deal's number in place of the move.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CallbackData", "encode", "decode", "to_base36", "from_base36", "MAX_BYTES"]

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
    """The button code of an engine action (the inverse is a lookup in the legal actions)."""
    from bot.preferans.actions import Accept, Bid, ChooseDefence, Declare, Offer, Play, Whist

    if isinstance(action, Bid):
        if action.contract is None:
            return "bP"
        return "bM" if action.contract.misere else f"b{action.contract.code}"
    if isinstance(action, Declare):
        return "cM" if action.contract.misere else f"c{action.contract.code}"
    if isinstance(action, Whist):
        return "w" + {"whist": "W", "pass": "P", "half": "H"}[action.answer.value]
    if isinstance(action, ChooseDefence):
        return "dO" if action.defence.value == "open" else "dC"
    if isinstance(action, Play):
        return f"p{action.card.code}"
    if isinstance(action, Offer):
        return "o" + "-".join(str(n) for n in action.tricks)
    if isinstance(action, Accept):
        return "aY" if action.accepted else "aN"
    raise ValueError(f"no button code for {action!r}")  # discards are picked card by card
