"""The pulka sheet as a monospace table (for ``--text`` and the group chat)."""

from __future__ import annotations

from fractions import Fraction

from bot.core.names import BIDI_CONTROLS
from bot.preferans.game import Game
from bot.preferans.scoring import Sheet
from bot.render.i18n import number, t

__all__ = ["sheet_text", "sheet_table", "fmt_number", "short_name"]


def fmt_number(value: Fraction | int) -> str:
    """A number as people write it: whole numbers plain, others with two decimals."""
    v = Fraction(value)
    if v.denominator == 1:
        return str(v.numerator)
    return f"{float(v):.2f}"


def short_name(name: str, width: int = 10) -> str:
    """``name`` cut to ``width`` characters with an ellipsis (bidi controls removed: a cut
    override would turn the rest of the line around)."""
    name = " ".join("".join(ch for ch in name if ch not in BIDI_CONTROLS).split())
    return name if len(name) <= width else name[: width - 1] + "…"


def sheet_table(
    names: list[str], sheet: Sheet, lang: str, settlement: tuple[Fraction, ...] | None = None
) -> str:
    """Rows per player: pulka, gora, whists written on each other player, and result."""
    n = len(names)
    short = [short_name(x, 8) for x in names]
    header = [t(lang, "sheet.player"), t(lang, "sheet.pulka"), t(lang, "sheet.gora")]
    header += [f"→{s}" for s in short]
    if settlement is not None:
        header.append(t(lang, "sheet.result"))
    rows = []
    for i in range(n):
        row = [short[i], number(lang, sheet.pulka[i]), number(lang, sheet.gora[i])]
        row += ["·" if i == j else number(lang, sheet.whists[i][j]) for j in range(n)]
        if settlement is not None:
            row.append(number(lang, settlement[i], signed=True))
        rows.append(row)
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]
    lines = []
    for r in [header, *rows]:
        cells = [r[0].ljust(widths[0])] + [r[c].rjust(widths[c]) for c in range(1, len(r))]
        lines.append(" ".join(cells).rstrip())
    return "\n".join(lines)


def sheet_text(game: Game, lang: str = "ru") -> str:
    """The whole sheet of ``game`` for people."""
    conv = game.rules.convention
    title = t(
        lang,
        "sheet.title",
        convention=conv.title_ru if lang == "ru" else conv.title_en,
        size=game.rules.pulka,
        deals=len(game.finished_deals),
    )
    settlement = game.settlement()
    lines = [title, sheet_table(game.names, game.sheet, lang, settlement)]
    if game.finished:
        lines.append(t(lang, "sheet.finished"))
    elif game.stopped:
        lines.append(t(lang, "sheet.stopped"))
    if settlement is not None:
        order = sorted(range(game.players), key=lambda i: -settlement[i])
        lines.append(t(lang, "sheet.settlement"))
        for i in order:
            v = settlement[i]
            lines.append(f"  {game.names[i]}: {number(lang, v, signed=True)}")
    return "\n".join(lines)
