"""The end of a deal and of a game: the result line, the pulka sheet, the settlement."""

from __future__ import annotations

import html
from fractions import Fraction

from bot.core.model import Table
from bot.preferans.game import FinishedDeal, Game
from bot.preferans.outcome import DealKind, WhistAnswer
from bot.preferans.policy import made
from bot.render.i18n import t
from bot.render.sheet_text import fmt_number, sheet_table, short_name

from .text import NAME_WIDTH, contract, name

__all__ = ["result_text", "pulka_text", "settlement_text", "sheet_title"]


def result_text(table: Table, finished: FinishedDeal, deal_no: int, lang: str) -> str:
    """A short line about a finished deal."""
    o = finished.outcome
    if o.kind is DealKind.ALL_PASS:
        tricks = o.tricks or ()
        parts = [f"{name(table, s)} {tricks[s]}" for s in o.active if tricks]
        return t(lang, "res.allpass", n=deal_no, tricks=", ".join(parts))
    assert o.declarer is not None and o.contract is not None

    who = name(table, o.declarer)
    if o.kind is DealKind.MISERE:
        k = o.tricks[o.declarer] if o.tricks else 0
        key = "res.misere_made" if made(o) else "res.misere_fail"
        return t(lang, key, n=deal_no, name=who, k=k)
    c = contract(o.contract, lang)
    if o.tricks is None:
        if any(a is WhistAnswer.HALF for a in o.whists.values()):
            half = next(s for s, a in o.whists.items() if a is WhistAnswer.HALF)
            why = t(lang, "res.why.half", who=name(table, half))
        elif not o.whists:
            why = t(lang, "res.why.ten")
        else:
            why = t(lang, "res.why.pass")
        return t(lang, "res.unplayed", n=deal_no, name=who, contract=c, why=why)
    k = o.tricks[o.declarer]
    if made(o):
        return t(lang, "res.made", n=deal_no, name=who, contract=c, k=k)
    return t(lang, "res.failed", n=deal_no, name=who, contract=c, k=k, u=o.contract.level - k)


def _names(table: Table, game: Game) -> list[str]:
    return [p.name if p is not None else game.names[i] for i, p in enumerate(table.seats)][
        : game.players
    ]


def pulka_text(table: Table, game: Game, lang: str) -> str:
    """The running sheet as a monospace table."""
    head = sheet_title(game, lang)
    body = sheet_table(_names(table, game), game.sheet, lang, game.settlement())
    return f"{html.escape(head)}\n<pre>{html.escape(body)}</pre>"


def settlement_text(table: Table, game: Game, lang: str) -> str:
    """The final settlement, winner first."""
    settlement = game.settlement()
    assert settlement is not None
    names = _names(table, game)
    key = "res.over" if game.finished else "res.stopped"
    order = sorted(range(game.players), key=lambda i: (-settlement[i], i))
    lines = [t(lang, key)]
    medals = ["🥇", "🥈", "🥉", "4."]
    for place, i in enumerate(order):
        v: Fraction = settlement[i]
        sign = "+" if v > 0 else ""
        lines.append(
            f"{medals[place]} {html.escape(short_name(names[i], NAME_WIDTH))}: "
            f"<b>{sign}{fmt_number(v)}</b>"
        )
    return "\n".join(lines)


def sheet_title(game: Game, lang: str) -> str:
    """The sheet's heading: convention, pulka size, deals played (plain text)."""
    conv = game.rules.convention
    return t(
        lang,
        "sheet.title",
        convention=conv.title_ru if lang == "ru" else conv.title_en,
        size=game.rules.pulka,
        deals=len(game.finished_deals),
    )
