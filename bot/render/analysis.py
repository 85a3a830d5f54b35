"""A deal's analysis in one line for its review (issue 15): what best play from the start
was worth, all cards open, and the first cards that changed it."""

from __future__ import annotations

from bot.core.model import Table
from bot.preferans.analysis import Analysis
from bot.render.i18n import t

from .text import card, name

__all__ = ["analysis_line", "SHOWN_CHANGES"]

SHOWN_CHANGES = 2
"""Changes named in the line; more are summed up as "…"."""


def analysis_line(table: Table, analysis: Analysis, lang: str, *, ranks: str = "latin") -> str:
    """E.g. "С лучшей игрой: 7 взяток; 4-я взятка: Анна K♠ → −1" (cards in ``ranks``)."""
    value = analysis.value
    if value is not None:
        best = t(lang, "analysis.best", tricks=t(lang, "n.tricks", count=value))
    else:  # all-pass: each player's own tricks, the other two against him
        each = ", ".join(
            f"{name(table, seat)} {n}" for seat, n in enumerate(analysis.best) if n is not None
        )
        best = t(lang, "analysis.best_each", each=each)
    if not analysis.changes:
        return best + "; " + t(lang, "analysis.kept")
    parts = [
        t(
            lang,
            "analysis.change",
            n=change.trick,
            name=name(table, change.seat),
            card=card(change.card, ranks=ranks),
            delta=f"{change.delta:+d}".replace("-", "−"),
        )
        for change in analysis.changes[:SHOWN_CHANGES]
    ]
    more = "; …" if len(analysis.changes) > SHOWN_CHANGES else ""
    return "; ".join([best, *parts]) + more
