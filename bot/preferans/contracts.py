"""Contracts and the bidding ladder (Кодекс 3.3.7)."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Suit

__all__ = ["Contract", "LADDER", "MISERE", "parse_contract", "PRICES", "OBLIGATION"]


@dataclass(frozen=True, slots=True, order=False)
class Contract:
    """A trick game (``level`` 6–10, ``trump`` a suit or ``None`` for no trump) or misère."""

    level: int
    trump: Suit | None = None
    misere: bool = False

    @property
    def step(self) -> int:
        """Position on the ladder: 6♠ < … < 8NT < misère < 9♠ < … < 10NT."""
        return _STEP[self]

    @property
    def code(self) -> str:
        """Record notation: ``6S`` … ``10NT`` or ``misere``."""
        if self.misere:
            return "misere"
        return f"{self.level}{'NT' if self.trump is None else self.trump.letter}"

    @property
    def price(self) -> int:
        """Pulka points for a made game (docs/rules.md, "Scoring")."""
        return 10 if self.misere else PRICES[self.level]

    @property
    def obligation(self) -> int:
        """Tricks the defenders must take together (Кодекс 3.8.2); 0 for misère."""
        return 0 if self.misere else OBLIGATION[self.level]

    def __str__(self) -> str:
        return self.code

    def __lt__(self, other: Contract) -> bool:
        return self.step < other.step

    def __le__(self, other: Contract) -> bool:
        return self.step <= other.step

    def __gt__(self, other: Contract) -> bool:
        return self.step > other.step

    def __ge__(self, other: Contract) -> bool:
        return self.step >= other.step


PRICES: dict[int, int] = {6: 2, 7: 4, 8: 6, 9: 8, 10: 10}
OBLIGATION: dict[int, int] = {6: 4, 7: 2, 8: 1, 9: 1, 10: 1}

MISERE = Contract(0, None, True)

_TRUMPS: tuple[Suit | None, ...] = (Suit.SPADES, Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, None)


def _ladder() -> tuple[Contract, ...]:
    steps: list[Contract] = []
    for level in (6, 7, 8):
        steps.extend(Contract(level, t) for t in _TRUMPS)
    steps.append(MISERE)
    for level in (9, 10):
        steps.extend(Contract(level, t) for t in _TRUMPS)
    return tuple(steps)


LADDER: tuple[Contract, ...] = _ladder()
_STEP: dict[Contract, int] = {c: i for i, c in enumerate(LADDER)}
_BY_CODE: dict[str, Contract] = {c.code.upper(): c for c in LADDER}


def parse_contract(text: str) -> Contract:
    """Parse ``6S`` … ``10NT`` or ``misere``; raises ``ValueError`` naming the text."""
    if not isinstance(text, str):
        raise ValueError(f"unknown contract {text!r}")
    contract = _BY_CODE.get(text.strip().upper())
    if contract is None:
        raise ValueError(f"unknown contract {text!r}")
    return contract
