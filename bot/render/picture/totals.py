"""The running entries of the sheet: every change of a value, written "2.6.10"."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from bot.render.sheet_text import fmt_number

__all__ = ["SEP", "number_text", "running_totals", "sequence_text"]

SEP = "."
"""Separator of the running totals, as on paper."""


def number_text(value: Fraction | int, decimal: str = ".") -> str:
    """``value`` as written: whole numbers plain, others with two decimals."""
    return fmt_number(value).replace(".", decimal)


def running_totals(history: Sequence[Fraction]) -> list[Fraction]:
    """The totals a player writes into one line: every change of the value.

    ``history`` is the value on the sheet before the first deal and after every
    deal; a zero start is not written.
    """
    out: list[Fraction] = []
    previous = Fraction(0)
    for value in history:
        if value != previous:
            out.append(value)
            previous = value
    return out


def sequence_text(totals: Sequence[Fraction]) -> list[str]:
    """The totals as tokens ``"2."``, ``"6."``, ``"10"`` (a fraction gets a decimal comma)."""
    words = [number_text(v, ",") for v in totals]
    return [w + SEP for w in words[:-1]] + words[-1:]
