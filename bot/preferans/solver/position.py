"""An open-card (double-dummy) play position and the objective a search optimises."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from ..cards import Card, Suit
from ..deal import Deal, Phase
from ..outcome import DealKind
from ..seats import Seat

__all__ = ["Goal", "Position", "goal_of"]


class Goal(Enum):
    """What ``seat`` (the seat a search counts tricks for) tries to do.

    The other two active hands always play against him (paranoid: on all-pass
    every player is on his own, but assuming both others conspire gives a
    guaranteed bound for the one who decides).
    """

    TRICKS = "tricks"
    """A trick game: the declarer maximises his tricks, the defenders minimise them."""
    MISERE = "misere"
    """Misère: the declarer minimises his tricks, the defenders maximise them."""
    ALL_PASS = "all-pass"
    """All-pass (распасы): ``seat`` minimises his own tricks, the others maximise them."""


@dataclass(frozen=True, slots=True)
class Position:
    """Every active hand face up, the current trick and, on all-pass, talon cards to turn.

    ``order`` begins with the first hand (the seat left of the dealer): tricks opened
    by the talon are played from the first hand, and so is the trick after them
    (Кодекс 3.7.6.1). ``trick`` holds the cards the hands have played to the current
    trick in playing order, never a talon card; ``talon_leads[0]`` is the talon card
    of the current trick when the talon opens it.
    """

    hands: Mapping[Seat, frozenset[Card]]
    order: tuple[Seat, Seat, Seat]
    leader: Seat
    trick: tuple[Card, ...]
    trump: Suit | None
    talon_leads: tuple[Card, ...] = ()
    talon_owner: Seat | None = field(default=None)
    """With 4 players the talon card is the dealer's and can take the trick (Кодекс 3.7.6);
    with 3 it only names the suit and this is ``None``."""

    def __post_init__(self) -> None:
        if len(self.order) != 3 or len(set(self.order)) != 3:
            raise ValueError("a position needs three different active seats")
        if set(self.hands) != set(self.order):
            raise ValueError("hands must be given for exactly the three active seats")
        if self.leader not in self.order:
            raise ValueError(f"the leader {self.leader!r} is not an active seat")
        if len(self.trick) > 2:
            raise ValueError("a trick in progress holds at most two cards")
        if len(self.talon_leads) > 2:
            raise ValueError("at most two talon cards open tricks")
        if self.talon_leads and self.leader != self.order[0]:
            raise ValueError("tricks opened by the talon are played from the first hand")
        seen: set[Card] = set()
        for card in (*self.trick, *self.talon_leads, *(c for h in self.hands.values() for c in h)):
            if card in seen:
                raise ValueError(f"card {card.code} appears twice")
            seen.add(card)
        start = self.order.index(self.leader)
        size = len(self.hands[self.leader]) + (1 if self.trick else 0)
        for i in range(3):
            seat = self.order[(start + i) % 3]
            want = size - (1 if i < len(self.trick) else 0)
            if len(self.hands[seat]) != want:
                raise ValueError(
                    f"seat {int(seat)} holds {len(self.hands[seat])} cards, not {want}"
                )
        if self.talon_leads and size < len(self.talon_leads):
            raise ValueError("more talon leads than tricks left")

    @property
    def to_move(self) -> Seat:
        """The seat that plays the next card."""
        return self.order[(self.order.index(self.leader) + len(self.trick)) % 3]

    @property
    def tricks_left(self) -> int:
        """Tricks still to be finished, the current one included."""
        return len(self.hands[self.leader]) + (1 if self.trick else 0)

    @classmethod
    def from_deal(cls, deal: Deal) -> Position:
        """The current play position of a live deal (every hand read from the engine)."""
        if deal.phase is not Phase.PLAY:
            raise ValueError(f"the deal is not in play but in the {deal.phase.value}")
        active = deal.active
        order = (active[0], active[1], active[2])
        hands = {seat: deal.hand(seat) for seat in order}
        current = deal.current_trick
        trick = tuple(tc.card for tc in current if not tc.from_talon)
        talon_leads: tuple[Card, ...] = ()
        owner: Seat | None = None
        if (
            deal.kind is DealKind.ALL_PASS
            and deal.settings.raspasy_talon == "lead"
            and deal.trick_number <= 2
        ):
            # Кодекс 3.7.6: the talon opens tricks 1 and 2 on all-pass.
            talon_leads = deal.talon[deal.trick_number - 1 :]
            owner = deal.dealer if deal.players == 4 else None
        seated = [tc.seat for tc in current if not tc.from_talon and tc.seat is not None]
        if seated:
            leader = seated[0]
        else:
            to_act = deal.to_act
            assert to_act is not None  # a deal in play always has a hand to move
            leader = to_act
        return cls(hands, order, leader, trick, deal.trump, talon_leads, owner)


def goal_of(deal: Deal) -> Goal:
    """The objective of a live deal's play: trick game, misère or all-pass."""
    if deal.kind is DealKind.MISERE:
        return Goal.MISERE
    if deal.kind is DealKind.ALL_PASS:
        return Goal.ALL_PASS
    return Goal.TRICKS
