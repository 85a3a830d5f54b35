"""A deal's analysis in one line for a player's review: what best play from the start was
worth, all cards open, and the first cards that changed it, each signed for the reader."""

from __future__ import annotations

from bot.core.model import Table
from bot.core.modes import RankStyle
from bot.preferans.analysis import Analysis, Change
from bot.preferans.seats import Seat
from bot.render.i18n import t

from .text import card, name

__all__ = ["analysis_line", "SHOWN_CHANGES"]

SHOWN_CHANGES = 2
"""Changes named in the line; more are summed up as "…"."""


def analysis_line(
    table: Table, analysis: Analysis, lang: str, *, reader: Seat, ranks: RankStyle = RankStyle.LATIN
) -> str:
    """The line in ``reader``'s hand message (cards in ``ranks``), e.g. "🔍 С лучшей игрой:
    Анна — 7 взяток (взято 6); 4-я взятка: Анна K♠ → −1 для вас"."""
    best = _best(table, analysis, lang)
    if not analysis.changes:
        return best + "; " + t(lang, "analysis.kept")
    parts = [_change(table, analysis, change, reader, lang, ranks) for change in analysis.changes]
    more = "; …" if len(analysis.changes) > SHOWN_CHANGES else ""
    return "; ".join([best, *parts[:SHOWN_CHANGES]]) + more


def _best(table: Table, analysis: Analysis, lang: str) -> str:
    """Whose tricks best play was worth, and how many he took."""
    declarer = analysis.declarer
    if declarer is not None:
        value = analysis.value
        assert value is not None
        return t(
            lang,
            "analysis.best",
            name=name(table, declarer),
            tricks=t(lang, "n.tricks", count=value),
            taken=analysis.taken[declarer],
        )
    # All-pass: what each can hold himself to whatever the other two do, and what he took.
    each = ", ".join(
        t(lang, "analysis.each", name=name(table, seat), best=n, taken=analysis.taken[seat])
        for seat, n in enumerate(analysis.best)
        if n is not None
    )
    return t(lang, "analysis.best_each", each=each)


def _change(
    table: Table, analysis: Analysis, change: Change, reader: Seat, lang: str, ranks: RankStyle
) -> str:
    """One card that changed the value, signed for the reader when it concerns him; else
    for the declarer (the sitting-out dealer's review) or for the card's own player (another
    player's card on all-pass)."""
    gain = analysis.gain(change, reader)
    key = "analysis.change_you"
    if gain is None:
        whose = analysis.declarer if analysis.declarer is not None else change.seat
        key = "analysis.change_declarer" if analysis.declarer is not None else "analysis.change_own"
        gain = analysis.gain(change, whose)
        assert gain is not None
    return t(
        lang,
        key,
        n=change.trick,
        name=name(table, change.seat),
        card=card(change.card, ranks=ranks),
        delta=f"{gain:+d}".replace("-", "−"),
    )
