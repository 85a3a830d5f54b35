"""Player actions: frozen values, each naming the seat it comes from.

Their JSON form is the record format's move (docs/record-format.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .cards import Card, parse_card, sort_hand
from .contracts import Contract, parse_contract
from .outcome import Defence, WhistAnswer
from .seats import Seat

__all__ = [
    "Bid",
    "Discard",
    "Declare",
    "Whist",
    "ChooseDefence",
    "Play",
    "Offer",
    "Accept",
    "Action",
    "Reason",
    "IllegalAction",
    "action_from_json",
]


class Reason(StrEnum):
    """Stable reason codes of :class:`IllegalAction`."""

    DEAL_OVER = "deal_over"
    WRONG_PHASE = "wrong_phase"
    NOT_YOUR_TURN = "not_your_turn"
    BID_TOO_LOW = "bid_too_low"
    BID_JUMP = "bid_jump"
    BID_BELOW_MINIMUM = "bid_below_minimum"
    HERE_NOT_ALLOWED = "here_not_allowed"
    MISERE_AFTER_BID = "misere_after_bid"
    MISERE_TOO_LATE = "misere_too_late"
    MISERE_BIDDER_TRICKS = "misere_bidder_tricks"
    DISCARD_COUNT = "discard_count"
    CARD_NOT_HELD = "card_not_held"
    CONTRACT_BELOW_BID = "contract_below_bid"
    MISERE_MISMATCH = "misere_mismatch"
    WHIST_NOT_ALLOWED = "whist_not_allowed"
    HALF_WHIST_NOT_ALLOWED = "half_whist_not_allowed"
    MUST_FOLLOW_SUIT = "must_follow_suit"
    MUST_TRUMP = "must_trump"
    OFFER_NOT_LEADER = "offer_not_leader"
    OFFER_MID_TRICK = "offer_mid_trick"
    OFFER_BAD_TRICKS = "offer_bad_tricks"
    OFFER_OPEN = "offer_open"
    NO_OFFER = "no_offer"
    NOT_ANSWERING = "not_answering"


class IllegalAction(ValueError):
    """An action the rules forbid here, as a player may try it; ``reason`` is a stable
    :class:`Reason`.

    A malformed action (not an action, a seat not at the table, a contract off the
    ladder) or a call out of order (an outcome before the end, a deal while one is open)
    is the caller's bug and raises a plain ``TypeError`` or ``ValueError`` instead.
    """

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


@dataclass(frozen=True, slots=True)
class Bid:
    """A call in the auction; ``contract=None`` is a pass."""

    seat: Seat
    contract: Contract | None

    @property
    def is_pass(self) -> bool:
        return self.contract is None

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": int(self.seat),
            "bid": "pass" if self.contract is None else self.contract.code,
        }

    def __str__(self) -> str:
        return f"seat {int(self.seat)} bids {'pass' if self.contract is None else self.contract}"


@dataclass(frozen=True, slots=True)
class Discard:
    """The declarer's two discarded cards (kept sorted so equal discards compare equal)."""

    seat: Seat
    cards: tuple[Card, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(sort_hand(self.cards)))

    def to_json(self) -> dict[str, Any]:
        return {"seat": int(self.seat), "discard": [c.code for c in self.cards]}

    def __str__(self) -> str:
        return f"seat {int(self.seat)} discards {' '.join(c.code for c in self.cards)}"


@dataclass(frozen=True, slots=True)
class Declare:
    """The declarer names the final contract."""

    seat: Seat
    contract: Contract

    def to_json(self) -> dict[str, Any]:
        return {"seat": int(self.seat), "contract": self.contract.code}

    def __str__(self) -> str:
        return f"seat {int(self.seat)} declares {self.contract}"


@dataclass(frozen=True, slots=True)
class Whist:
    """A defender's answer: whist, pass or half-whist (a second whist returns it)."""

    seat: Seat
    answer: WhistAnswer

    def to_json(self) -> dict[str, Any]:
        return {"seat": int(self.seat), "whist": self.answer.value}

    def __str__(self) -> str:
        return f"seat {int(self.seat)} answers {self.answer.value}"


@dataclass(frozen=True, slots=True)
class ChooseDefence:
    """A lone whister chooses open (лёжа) or closed (стоя) defence."""

    seat: Seat
    defence: Defence

    def to_json(self) -> dict[str, Any]:
        return {"seat": int(self.seat), "defence": self.defence.value}

    def __str__(self) -> str:
        return f"seat {int(self.seat)} chooses {self.defence.value} defence"


@dataclass(frozen=True, slots=True)
class Play:
    """A card played from ``seat``'s hand (in open defence the whister moves the passer's)."""

    seat: Seat
    card: Card

    def to_json(self) -> dict[str, Any]:
        return {"seat": int(self.seat), "play": self.card.code}

    def __str__(self) -> str:
        return f"seat {int(self.seat)} plays {self.card.code}"


@dataclass(frozen=True, slots=True)
class Offer:
    """The leader offers how the remaining tricks end ("остальные мои"): tricks per seat.

    ``tricks`` has one number per player (0 for the sitting-out dealer); checked in offers.py.
    """

    seat: Seat
    tricks: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"seat": int(self.seat), "offer": list(self.tricks)}

    def __str__(self) -> str:
        return f"seat {int(self.seat)} offers {list(self.tricks)}"


@dataclass(frozen=True, slots=True)
class Accept:
    """An answer to an open offer: ``accepted`` true accepts, false refuses (withdraws it)."""

    seat: Seat
    accepted: bool

    def to_json(self) -> dict[str, Any]:
        return {"seat": int(self.seat), "accept": self.accepted}

    def __str__(self) -> str:
        return f"seat {int(self.seat)} {'accepts' if self.accepted else 'refuses'} the offer"


Action = Bid | Discard | Declare | Whist | ChooseDefence | Play | Offer | Accept

_KINDS = ("bid", "discard", "contract", "whist", "defence", "play", "offer", "accept")


def action_from_json(data: Any, players: int) -> Action:
    """Parse a record move; raises ``ValueError`` with a precise message."""
    if not isinstance(data, dict):
        raise ValueError("a move must be an object")
    seat_value = data.get("seat")
    if isinstance(seat_value, bool) or not isinstance(seat_value, int):
        raise ValueError("a move needs a whole-number 'seat'")
    if not 0 <= seat_value < players:
        raise ValueError(f"no seat {seat_value} at a table of {players}")
    seat = Seat(seat_value)
    kinds = [k for k in _KINDS if k in data]
    extra = set(data) - {"seat", *kinds}
    if len(kinds) != 1 or extra:
        raise ValueError(f"a move needs exactly one of {'/'.join(_KINDS)}, got {sorted(data)}")
    kind = kinds[0]
    value = data[kind]
    if kind == "bid":
        if value == "pass":
            return Bid(seat, None)
        return Bid(seat, parse_contract(value))
    if kind == "contract":
        return Declare(seat, parse_contract(value))
    if kind == "discard":
        if not isinstance(value, list):
            raise ValueError("'discard' must be a list of two cards")
        cards = [parse_card(v) for v in value]
        return Discard(seat, tuple(cards))
    if kind == "whist":
        try:
            return Whist(seat, WhistAnswer(value))
        except ValueError:
            raise ValueError(f"unknown whist answer {value!r}") from None
    if kind == "defence":
        try:
            return ChooseDefence(seat, Defence(value))
        except ValueError:
            raise ValueError(f"unknown defence {value!r}") from None
    if kind == "offer":
        if not isinstance(value, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value
        ):
            raise ValueError("'offer' must be a list of whole numbers, one per player")
        return Offer(seat, tuple(value))
    if kind == "accept":
        if not isinstance(value, bool):
            raise ValueError("'accept' must be true or false")
        return Accept(seat, value)
    return Play(seat, parse_card(value))
