"""The pulka sheet as monospace text (for ``--text``, the group chat and the private chat).

A phone shows about 32 characters of a monospace line in Telegram, so the sheet is made to
fit :data:`LINE`: a table of pulka, gora and result, and under it the whists as a table of
who wrote on whom, names shortened until both fit; when even the shortest names leave the
numbers too wide, each player's entries are listed one per line.
"""

from __future__ import annotations

import functools
import textwrap
from collections.abc import Sequence
from fractions import Fraction

from bot.core.names import BIDI_CONTROLS
from bot.preferans.game import Game
from bot.preferans.scoring import Sheet
from bot.render.i18n import number, t

__all__ = ["LINE", "sheet_text", "sheet_table", "fmt_number", "short_name", "short_names"]

LINE = 32
"""Characters of a monospace line a phone shows in Telegram without wrapping."""
_NAME_WIDTHS = range(10, 2, -1)
"""Widths tried for the names, longest first."""


def fmt_number(value: Fraction | int) -> str:
    """A number as people write it: whole numbers plain, others with two decimals."""
    v = Fraction(value)
    if v.denominator == 1:
        return str(v.numerator)
    return f"{float(v):.2f}"


_NO_BIDI = str.maketrans(dict.fromkeys(BIDI_CONTROLS))


@functools.lru_cache(maxsize=4096)
def short_name(name: str, width: int = 10) -> str:
    """``name`` cut to ``width`` characters with an ellipsis (bidi controls removed: a cut
    override would turn the rest of the line around). Cached: every text names the players
    again, thousands of times a game."""
    name = " ".join(name.translate(_NO_BIDI).split())
    return name if len(name) <= width else name[: width - 1] + "…"


def short_names(names: Sequence[str], width: int) -> list[str]:
    """``names`` cut to ``width`` characters, still telling the players apart.

    A name cut to 5 characters or fewer loses no letter to "…" ("Евге" reads better than
    "Евг…"). Cut names that collide ("Александр Петров", "Александр Иванов") are written
    by the initials and the last word ("А Петров"); if they still collide, the seat number
    ends the name.
    """

    def cut(name: str) -> str:
        name = short_name(name, 10**6)
        if len(name) <= width:
            return name
        if width > 5:
            return name[: width - 1].rstrip() + "…"
        return name[:width].rstrip()

    out = [cut(x) for x in names]
    for _ in range(2):
        clashes = {i for i, x in enumerate(out) if out.count(x) > 1}
        if not clashes:
            break
        for i in clashes:
            words = short_name(names[i], 10**6).split()
            if out[i] == cut(names[i]) and len(words) > 1:
                initials = "".join(w[0] for w in words[:-1])
                out[i] = cut(f"{initials} {words[-1]}")
            else:
                out[i] = out[i][: max(1, width - 1)] + str(i + 1)
    return out


def _grid(rows: list[list[str]]) -> list[str]:
    """``rows`` as lines: the first column left-aligned, the others right-aligned."""
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    return [
        " ".join(
            [r[0].ljust(widths[0])] + [r[c].rjust(widths[c]) for c in range(1, len(r))]
        ).rstrip()
        for r in rows
    ]


def _tables(
    short: list[str], sheet: Sheet, lang: str, settlement: tuple[Fraction, ...] | None
) -> list[str]:
    """The two tables: pulka, gora (and result) by player; the whists, writer by target."""
    n = len(short)
    head = [t(lang, "sheet.player"), t(lang, "sheet.pulka"), t(lang, "sheet.gora")]
    if settlement is not None:
        head.append(t(lang, "sheet.result"))
    rows = [head]
    for i in range(n):
        row = [short[i], number(lang, sheet.pulka[i]), number(lang, sheet.gora[i])]
        if settlement is not None:
            row.append(number(lang, settlement[i], signed=True))
        rows.append(row)
    whists = [[t(lang, "sheet.whists")] + [f"→{s}" for s in short]]
    for i in range(n):
        whists.append(
            [short[i]] + ["·" if i == j else number(lang, sheet.whists[i][j]) for j in range(n)]
        )
    return _grid(rows) + _grid(whists)


def _listed(
    names: Sequence[str], sheet: Sheet, lang: str, settlement: tuple[Fraction, ...] | None
) -> list[str]:
    """Each player's entries one per line, for numbers too wide for the tables."""
    n = len(names)
    targets = short_names(names, 12)
    names = short_names(names, LINE)
    lines: list[str] = []
    for i in range(n):
        items = [
            (t(lang, "sheet.pulka"), number(lang, sheet.pulka[i])),
            (t(lang, "sheet.gora"), number(lang, sheet.gora[i])),
        ]
        items += [(f"→{targets[j]}", number(lang, sheet.whists[i][j])) for j in range(n) if j != i]
        if settlement is not None:
            items.append((t(lang, "sheet.result"), number(lang, settlement[i], signed=True)))
        label_w = max(len(k) for k, _ in items)
        value_w = max(len(v) for _, v in items)
        lines.append(names[i])
        for k, v in items:
            if 2 + label_w + 1 + value_w <= LINE:
                lines.append(f"  {k.ljust(label_w)} {v.rjust(value_w)}")
            else:
                lines.append(f"  {k} {v}")
    return lines


def sheet_table(
    names: list[str], sheet: Sheet, lang: str, settlement: tuple[Fraction, ...] | None = None
) -> str:
    """Pulka, gora and result per player, then the whists each wrote on each other, in
    lines of at most :data:`LINE` characters (names shortened as far as needed)."""
    for width in _NAME_WIDTHS:
        lines = _tables(short_names(names, width), sheet, lang, settlement)
        if max(len(x) for x in lines) <= LINE:
            return "\n".join(lines)
    return "\n".join(_listed(names, sheet, lang, settlement))


def _fit(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken after a comma where it
    can ("Ленинградка, пуля до 20," / "сдач: 12"), else between words."""
    lines: list[str] = []
    current = ""
    parts = text.split(", ")
    for i, part in enumerate(parts):
        piece = part + ("," if i < len(parts) - 1 else "")
        joined = f"{current} {piece}" if current else piece
        if len(joined) <= width or not current:
            current = joined
        else:
            lines.append(current)
            current = piece
    lines.append(current)
    return [short for line in lines for short in textwrap.wrap(line, width)]


def sheet_text(game: Game, lang: str = "ru") -> str:
    """The whole sheet of ``game`` for people: no line wider than its table (a phone that
    shows the table shows every line as it is, the title not wrapped by the phone)."""
    conv = game.rules.convention
    title = t(
        lang,
        "sheet.title",
        convention=conv.title_ru if lang == "ru" else conv.title_en,
        size=game.rules.pulka,
        deals=len(game.finished_deals),
    )
    settlement = game.settlement()
    table = sheet_table(game.names, game.sheet, lang, settlement)
    width = max(len(line) for line in table.split("\n"))
    lines = [*_fit(title, width), table]
    if game.finished:
        lines += _fit(t(lang, "sheet.finished"), width)
    elif game.stopped:
        lines += _fit(t(lang, "sheet.stopped"), width)
    if settlement is not None:
        order = sorted(range(game.players), key=lambda i: -settlement[i])
        lines += _fit(t(lang, "sheet.settlement"), width)
        names = short_names(game.names, 16)
        for i in order:
            v = settlement[i]
            lines += textwrap.wrap(
                f"{names[i]}: {number(lang, v, signed=True)}",
                width,
                initial_indent="  ",
                subsequent_indent="    ",
            )
    return "\n".join(lines)
