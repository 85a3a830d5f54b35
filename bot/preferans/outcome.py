"""What a finished deal leaves behind for scoring: :class:`DealOutcome`."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from .contracts import Contract
from .seats import Seat

__all__ = ["DealKind", "WhistAnswer", "Defence", "DealOutcome", "made"]


class DealKind(StrEnum):
    """A played contract (trick game), a misère, or an all-pass (распасы)."""

    GAME = "game"
    MISERE = "misere"
    ALL_PASS = "all-pass"


class WhistAnswer(StrEnum):
    """A defender's answer to a trick contract (Кодекс 3.8)."""

    WHIST = "whist"
    PASS = "pass"
    HALF = "half"


class Defence(StrEnum):
    """How a lone whister defends: open (лёжа) or closed (стоя) (Кодекс 3.8.5)."""

    OPEN = "open"
    CLOSED = "closed"


@dataclass(frozen=True, slots=True)
class DealOutcome:
    """The result of one deal, as scoring needs it.

    ``tricks`` holds tricks per seat (``players`` entries; the dealer's all-pass talon
    tricks under the dealer with four players) or ``None`` when no card was played
    (both defenders passed, half-whist, an unchecked ten).
    ``whists`` holds each defender's final answer: a returned whist is ``WHIST`` for
    the returner and ``HALF`` for the former half-whister, who then plays as a passer
    (see :attr:`returned_whist`); empty for misère and all-pass and for a ten that is
    not whisted (option ``ten_checked``).
    ``defenders`` lists the declarer's opponents in answering order (left of the
    declarer first): on 8, 9, 10 the later of two whisters answers for the
    shortfall (Кодекс 3.8.6).
    """

    players: int
    dealer: Seat
    kind: DealKind
    declarer: Seat | None = None
    contract: Contract | None = None
    whists: dict[Seat, WhistAnswer] = field(default_factory=dict)
    defence: Defence | None = None
    tricks: tuple[int, ...] | None = None

    @property
    def defenders(self) -> tuple[Seat, ...]:
        """The declarer's opponents in answering order (the 4-player dealer excluded)."""
        if self.declarer is None:
            return ()
        out: list[Seat] = []
        seat = self.declarer.next(self.players)
        while seat != self.declarer:
            if not (self.players == 4 and seat == self.dealer):
                out.append(seat)
            seat = seat.next(self.players)
        return tuple(out)

    @property
    def active(self) -> tuple[Seat, ...]:
        """Seats that hold cards this deal, first hand first."""
        first = self.dealer.next(self.players)
        seats = [first, first.next(self.players), first.next(self.players).next(self.players)]
        return tuple(seats)

    @property
    def whisters(self) -> tuple[Seat, ...]:
        """Defenders whose final answer is whist, in answering order."""
        return tuple(s for s in self.defenders if self.whists.get(s) == WhistAnswer.WHIST)

    @property
    def returned_whist(self) -> bool:
        """The first defender returned the whist after the second's half-whist (Кодекс 3.8.8)."""
        answers = set(self.whists.values())
        return answers == {WhistAnswer.WHIST, WhistAnswer.HALF}


def made(outcome: DealOutcome) -> bool | None:
    """Whether the declarer made his contract; ``None`` for an all-pass deal.

    A misère is made with no trick taken; a trick game with at least its level of tricks,
    or when no card was played (both passed, half-whist, an unwhisted ten), as
    :mod:`bot.preferans.scoring` writes it.
    """
    if outcome.kind is DealKind.ALL_PASS or outcome.declarer is None:
        return None
    tricks = outcome.tricks
    if outcome.kind is DealKind.MISERE:
        return tricks is None or tricks[outcome.declarer] == 0
    assert outcome.contract is not None
    return tricks is None or tricks[outcome.declarer] >= outcome.contract.level
