"""The end of a deal and of a game: the result line, the pulka sheet, the settlement."""

from __future__ import annotations

import html
from fractions import Fraction

from bot.core.model import Table
from bot.preferans.game import FinishedDeal, Game
from bot.preferans.outcome import DealKind, DealOutcome, WhistAnswer, made
from bot.preferans.scoring import HELP_WHISTS, Sheet
from bot.preferans.seats import Seat, sits_out
from bot.render.i18n import number, t
from bot.render.sheet_text import sheet_table, short_name

from .text import NAME_WIDTH, contract, name

__all__ = [
    "result_text",
    "sheet_before",
    "sheet_entries",
    "pulka_text",
    "settlement_text",
    "sheet_title",
]


def result_text(
    table: Table, finished: FinishedDeal, deal_no: int, lang: str, before: Sheet | None = None
) -> str:
    """A deal's result: what was played, then what was written on the sheet (``before`` is
    the sheet before the deal; without it the entries are left out)."""
    head = _result_head(table, finished.outcome, deal_no, lang)
    if before is None:
        return head
    entries = sheet_entries(table, before, finished.sheet, lang)
    if not entries:
        return head
    return head + "\n" + t(lang, "res.written", entries=entries)


def sheet_before(game: Game, finished: FinishedDeal) -> Sheet:
    """The sheet as it stood before ``finished`` was scored."""
    for i, f in enumerate(game.finished_deals):
        if f is finished:
            return game.finished_deals[i - 1].sheet if i else Sheet.empty(game.players)
    raise ValueError("the deal is not one of the game's")


def sheet_entries(table: Table, before: Sheet, after: Sheet, lang: str) -> str:
    """What a deal wrote, per player in seat order: "Борис — пуля +4; Вера — висты → Борис +12".

    Help (rules book, "помощь") is named as such: "Вера — пуля +2, помощь → Гена: пуля +2,
    висты +20", and the helped player's own pulka entry leaves those points out.
    """
    helped = _help(table, before, after)
    parts = []
    for i in range(after.players):
        mine = []
        received = sum((points for (_, j), points in helped.items() if j == i), Fraction(0))
        if after.pulka[i] - received != before.pulka[i]:
            v = number(lang, after.pulka[i] - before.pulka[i] - received, signed=True)
            mine.append(t(lang, "res.e.pulka", v=v))
        if after.gora[i] != before.gora[i]:
            v = number(lang, after.gora[i] - before.gora[i], signed=True)
            mine.append(t(lang, "res.e.gora", v=v))
        for j in range(after.players):
            written = after.whists[i][j] - before.whists[i][j]
            points = helped.get((i, j), Fraction(0))
            if written != points * HELP_WHISTS:
                v = number(lang, written - points * HELP_WHISTS, signed=True)
                mine.append(t(lang, "res.e.whists", name=name(table, j), v=v))
            if points:
                mine.append(
                    t(
                        lang,
                        "res.e.help",
                        name=name(table, j),
                        points=number(lang, points, signed=True),
                        v=number(lang, points * HELP_WHISTS, signed=True),
                    )
                )
        if mine:
            parts.append(t(lang, "res.e.player", name=name(table, i), entries=", ".join(mine)))
    return "; ".join(parts)


def _help(table: Table, before: Sheet, after: Sheet) -> dict[tuple[int, int], Fraction]:
    """The pulka points each player who closed his pulka in the deal gave another, by
    (helper, helped): the helped one's pulka grew and the helper wrote 10 whists a point on
    him (docs/rules.md, "Closing the pulka and help"). A Rostov all-pass also has its
    zero-trick players write ordinary whists, on players who took tricks and so gain pulka
    only by help: only when two zero-trick players close at once and one helps the third
    are the other's whists on him read as help too."""
    size = table.settings.pulka
    if not table.settings.rules().convention.helps:
        return {}
    out: dict[tuple[int, int], Fraction] = {}
    for i in range(after.players):
        if not before.pulka[i] < size <= after.pulka[i]:
            continue
        for j in range(after.players):
            gained = after.pulka[j] - before.pulka[j]
            written = after.whists[i][j] - before.whists[i][j]
            if j != i and gained > 0 and written > 0:
                out[(i, j)] = min(gained, written / HELP_WHISTS)
    return out


def _seat_tricks(table: Table, o: DealOutcome, lang: str) -> str:
    """Tricks per player in seat order, as the table message counts them."""
    tricks = o.tricks or ()
    return ", ".join(
        f"{name(table, s)} {tricks[s]}"
        for s in map(Seat, range(o.players))
        if tricks and not (sits_out(o.players, o.dealer, s) and tricks[s] == 0)
    )


def _result_head(table: Table, o: DealOutcome, deal_no: int, lang: str) -> str:
    if o.kind is DealKind.ALL_PASS:
        return t(lang, "res.allpass", n=deal_no, tricks=_seat_tricks(table, o, lang))
    assert o.declarer is not None and o.contract is not None
    who = name(table, o.declarer)
    if o.kind is DealKind.MISERE:
        k = o.tricks[o.declarer] if o.tricks else 0
        if made(o):
            return t(lang, "res.misere_made", n=deal_no, name=who)
        tricks = t(lang, "n.tricks", count=k)
        return t(lang, "res.misere_fail", n=deal_no, name=who, tricks=tricks)
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
    tricks = t(lang, "n.tricks", count=k)
    if made(o):
        return t(lang, "res.made", n=deal_no, name=who, contract=c, tricks=tricks)
    under = t(lang, f"res.under.{o.contract.level - k}")
    return t(lang, "res.failed", n=deal_no, name=who, contract=c, tricks=tricks, under=under)


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
        lines.append(
            f"{medals[place]} {html.escape(short_name(names[i], NAME_WIDTH))}: "
            f"<b>{number(lang, v, signed=True)}</b>"
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
