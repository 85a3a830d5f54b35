"""Where everything on a sheet picture goes: :func:`sheet_layout`.

The sheet is drawn the way players rule it on paper (rules book, "Порядок записи"):
a rectangle with a circle in the middle (the pulka size and the convention), split
into one sector per player by lines from the circle — for three players to the two
top corners and the middle of the bottom edge, for four along the diagonals. Two
frames parallel to the edge divide every sector into three strips; from the
player's edge inwards: the whists (split into one column per opponent), the pulka,
and the gora next to the circle. Every strip holds a running entry, growing
totals separated by dots ("2.6.10"); a fraction is written with a decimal comma
("12,50") because the dot separates the totals. The title gives the convention,
the pulka size and the number of deals; a finished or stopped game gets the
settlement, winner first, under the sheet.

The layout holds every line and every piece of text with its position and nothing is
drawn here; :mod:`bot.render.picture.draw` draws it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from bot.preferans.game import Game
from bot.preferans.scoring import Sheet
from bot.render.i18n import number, t
from bot.render.picture.builder import Builder
from bot.render.picture.fonts import (
    ELLIPSIS,
    fit_label,
    fit_label_lines,
    fit_sequence,
    line_height,
    one_size,
    text_width,
)
from bot.render.picture.geometry import (
    ASPECT,
    CIRCLE,
    T_PULKA,
    T_WHISTS,
    Cells,
    Frame,
    cells_3,
    cells_4,
    split_evenly,
    to_box,
    to_point,
)
from bot.render.picture.model import (
    CENTRE,
    DEFAULT_WIDTH,
    LABEL,
    NAME,
    TYPE,
    Box,
    Circle,
    Layout,
    Point,
)
from bot.render.picture.totals import running_totals, sequence_text
from bot.render.sheet_text import short_name

__all__ = ["sheet_layout"]


def _history(game: Game) -> list[Sheet]:
    """The sheet before the first deal, after every deal, and after the end adjustments."""
    sheets = [game.start] + [d.sheet for d in game.finished_deals]
    if game.over:
        sheets.append(game.sheet)
    return sheets


def _inner(b: Builder, cell: Box) -> Box:
    """The part of ``cell`` text is written in."""
    pad = b.px(7)
    x0, y0, x1, y1 = cell
    return x0 + pad, y0 + pad - b.px(2), x1 - pad, y1 - pad


def _entry_sizes(b: Builder) -> list[int]:
    return sorted({max(7, b.px(s)) for s in TYPE.entries}, reverse=True)


def _one_size(b: Builder, entries: Sequence[tuple[Sequence[Fraction], Box]]) -> int | None:
    """The size every one of ``entries`` (totals, cell) is written in: each player's pulka
    (or gora) in the same size as the others'."""
    cells = []
    for totals, cell in entries:
        x0, y0, x1, y1 = _inner(b, cell)
        cells.append((sequence_text(totals) if totals else [], x1 - x0, y1 - y0))
    return one_size(cells, _entry_sizes(b))


def _entry_in_cell(
    b: Builder,
    kind: str,
    seat: int,
    target: int | None,
    totals: Sequence[Fraction],
    cell: Box,
    *,
    label: str | None = None,
    largest: int | None = None,
) -> None:
    x0, y0, x1, y1 = _inner(b, cell)
    if label is not None:
        size = max(9, b.px(TYPE.label))
        # A column taller than wide (a side's whists) has room for a name on more lines.
        lines = 3 if y1 - y0 > 3 * (x1 - x0) else 2 if y1 - y0 > x1 - x0 else 1
        text = fit_label_lines(label, x1 - x0, size, lines)
        b.text("label", text, (x0, y0), size=size, seat=seat, target=target, color=LABEL, box=cell)
        y0 += line_height(size) * len(text.split("\n"))
    if not totals:
        return
    tokens = sequence_text(totals)
    text, size = fit_sequence(tokens, x1 - x0, y1 - y0, _entry_sizes(b), largest)
    b.text(kind, text, (x0, y0), size=size, seat=seat, target=target, box=cell)


def _short(name: str, chars: int) -> str:
    """``name`` with its spaces tidied, cut to ``chars`` characters with "…"."""
    name = " ".join(name.split())
    if len(name) <= chars:
        return name
    return short_name(name, chars)[:-1].rstrip() + ELLIPSIS


def _rules(b: Builder, frame: Frame, n: int) -> tuple[dict[int, Cells], list[list[Point]]]:
    """Rule the sheet; returns each seat's cells and sector polygon."""
    for t_in, w in ((0.0, 3), (T_WHISTS, 2), (T_PULKA, 2)):
        left, top, right, bottom = frame.inset(t_in)
        corners = [(left, top), (right, top), (right, bottom), (left, bottom)]
        for k in range(4):
            b.line(corners[k], corners[(k + 1) % 4], w)
    cx, cy = frame.cx, frame.cy
    radius = CIRCLE * frame.b
    b.circles.append(Circle(to_point(cx, cy), round(radius), b.px(2)))
    tl, tr = (frame.x0, frame.y0), (frame.x1, frame.y0)
    br, bl = (frame.x1, frame.y1), (frame.x0, frame.y1)
    centre = (cx, cy)
    l1, t1, r1, b1 = frame.inset(T_WHISTS)
    if n == 3:
        bm = (cx, frame.y1)
        ends = [tl, tr, bm]
        polys = [[tl, tr, centre], [tr, br, bm, centre], [tl, centre, bm, bl]]
        cells = cells_3(frame)
        b.line((cx, frame.y0), (cx, t1))  # the top player's two whist columns
        b.line((frame.x0, b1), (l1, b1))  # side players: along the side / along the bottom
        b.line((frame.x1, b1), (r1, b1))
    else:
        ends = [tl, tr, br, bl]
        polys = [[tl, tr, centre], [tr, br, centre], [br, bl, centre], [bl, tl, centre]]
        cells = cells_4(frame, {0: "top", 1: "right", 2: "bottom", 3: "left"}, n)
        for _, xb in split_evenly(l1, r1, 3)[:2]:
            b.line((xb, frame.y0), (xb, t1))
            b.line((xb, b1), (xb, frame.y1))
        for _, yb in split_evenly(t1, b1, 3)[:2]:
            b.line((frame.x0, yb), (l1, yb))
            b.line((r1, yb), (frame.x1, yb))
    for ex, ey in ends:
        d = math.hypot(ex - cx, ey - cy)
        b.line((cx + (ex - cx) * radius / d, cy + (ey - cy) * radius / d), (ex, ey), 2)
    return cells, polys


def _running_entries(
    b: Builder, game: Game, cells: dict[int, Cells], names: list[str], lang: str
) -> None:
    sheets = _history(game)
    pulka = [running_totals([s.pulka[seat] for s in sheets]) for seat in range(game.players)]
    gora = [running_totals([s.gora[seat] for s in sheets]) for seat in range(game.players)]
    pulka_size = _one_size(b, [(pulka[seat], cells[seat].pulka) for seat in range(game.players)])
    gora_size = _one_size(b, [(gora[seat], cells[seat].gora) for seat in range(game.players)])
    for seat in range(game.players):
        c = cells[seat]
        _entry_in_cell(b, "pulka", seat, None, pulka[seat], c.pulka, largest=pulka_size)
        _entry_in_cell(b, "gora", seat, None, gora[seat], c.gora, largest=gora_size)
        for target, cell in c.whists.items():
            whists = running_totals([s.whists[seat][target] for s in sheets])
            label = t(lang, "picture.on", name=_short(names[target], 14))
            _entry_in_cell(b, "whists", seat, target, whists, cell, label=label)


def _names(b: Builder, frame: Frame, names: list[str], band: int, side: int) -> None:
    """Each player's name by his edge of the sheet (four players: the side names turned)."""
    size = b.px(TYPE.name)
    n = len(names)

    def put(seat: int, xc: float, ytop: float, room: float, angle: int = 0) -> None:
        text = fit_label(_short(names[seat], 28), room, size, True)
        b.text(
            "name",
            text,
            (xc, ytop),
            size=size,
            seat=seat,
            bold=True,
            color=NAME,
            align="centre",
            angle=angle,
        )

    cx, cy = frame.cx, frame.cy
    top = frame.y0 - band + b.px(4)
    bottom = frame.y1 + b.px(6)
    put(0, cx, top, frame.x1 - frame.x0)
    if n == 3:
        put(2, (frame.x0 + cx) / 2, bottom, cx - frame.x0 - b.px(10))
        put(1, (cx + frame.x1) / 2, bottom, frame.x1 - cx - b.px(10))
    else:
        height = frame.y1 - frame.y0 - b.px(10)
        put(2, cx, bottom, frame.x1 - frame.x0)
        put(1, frame.x1 + side / 2 + b.px(2), cy, height, angle=-90)
        put(3, frame.x0 - side / 2 - b.px(2), cy, height, angle=90)


def _centre(b: Builder, frame: Frame, convention: str, size: int) -> None:
    """The convention and the pulka size in the circle."""
    cx, cy = frame.cx, frame.cy
    radius = CIRCLE * frame.b
    conv_size = b.px(TYPE.convention)
    while conv_size > b.px(18) and text_width(convention, conv_size) > radius * 1.7:
        conv_size -= 1  # "Ленинградка" whole rather than cut, down to 18 px
    text = fit_label(convention, radius * 1.7, conv_size)
    b.text(
        "convention", text, (cx, cy - radius * 0.55), size=conv_size, color=CENTRE, align="centre"
    )
    num_size = b.px(TYPE.size)
    while num_size > 10 and text_width(str(size), num_size, True) > radius * 1.6:
        num_size -= 2
    b.text(
        "size",
        str(size),
        (cx, cy - radius * 0.18),
        size=num_size,
        bold=True,
        color=CENTRE,
        align="centre",
    )


def _settlement(
    b: Builder, game: Game, names: list[str], lang: str, x: int, y: int, room: int
) -> int:
    """The settlement, winner first, from ``y``; returns the ``y`` under it."""
    settlement = game.settlement()
    if settlement is None:
        return y
    b.text(
        "settlement_title",
        t(lang, "sheet.settlement"),
        (x, y),
        size=b.px(TYPE.settlement_title),
        bold=True,
        color=NAME,
    )
    y += line_height(b.px(TYPE.settlement_title)) + b.px(4)
    size = b.px(TYPE.settlement)
    order = sorted(range(game.players), key=lambda i: (-settlement[i], i))
    # Written as the texts write it: "+17,33" in Russian, "+17.33" in English.
    values = {s: number(lang, settlement[s], signed=True) for s in order}
    value_w = max(text_width(v, size, True) for v in values.values())
    gap = b.px(24)
    labels = {
        s: fit_label(f"{place}. {_short(names[s], 28)}", room - value_w - gap, size)
        for place, s in enumerate(order, start=1)
    }
    label_w = max(text_width(v, size) for v in labels.values())
    value_right = x + b.px(10) + label_w + gap + value_w
    for seat in order:
        b.text("settlement", labels[seat], (x + b.px(10), y), size=size, seat=seat, color=NAME)
        b.text(
            "settlement",
            values[seat],
            (value_right, y),
            size=size,
            seat=seat,
            bold=True,
            color=NAME,
            align="right",
        )
        y += line_height(size)
    return y + b.px(6)


def sheet_layout(game: Game, lang: str = "ru", *, width: int = DEFAULT_WIDTH) -> Layout:
    """Where every line and every piece of text of ``game``'s sheet goes."""
    if width < 300:
        raise ValueError(f"the picture needs a width of at least 300 pixels, not {width}")
    n = game.players
    b = Builder(width / DEFAULT_WIDTH)
    px = b.px
    margin = px(20)
    side = line_height(px(TYPE.name)) if n == 4 else 0  # the turned names of the side players
    names = [" ".join(name.split()) for name in game.names]

    # Title: convention, pulka size, deals played; then finished / stopped.
    conv = game.rules.convention
    conv_title = conv.title_ru if lang == "ru" else conv.title_en
    title = t(
        lang,
        "sheet.title",
        convention=conv_title,
        size=game.rules.pulka,
        deals=len(game.finished_deals),
    )
    y = margin
    b.text(
        "title",
        fit_label(title, width - 2 * margin, px(TYPE.title), True),
        (margin, y),
        size=px(TYPE.title),
        bold=True,
        color=NAME,
    )
    y += line_height(px(TYPE.title))
    if game.over:
        status = t(lang, "sheet.finished" if game.finished else "sheet.stopped")
        b.text(
            "status",
            fit_label(status, width - 2 * margin, px(TYPE.status)),
            (margin, y),
            size=px(TYPE.status),
            color=CENTRE,
        )
        y += line_height(px(TYPE.status))
    band = line_height(px(TYPE.name)) + px(6)  # the names above and under the sheet
    y += band

    x0, x1 = margin + side, width - margin - side
    frame = Frame(x0, y, x1, y + (x1 - x0) * ASPECT[n])
    cells, polys = _rules(b, frame, n)
    _running_entries(b, game, cells, names, lang)
    _names(b, frame, names, band, side)
    _centre(b, frame, conv_title, game.rules.pulka)
    y = round(frame.y1 + band + px(10))
    y = _settlement(b, game, names, lang, margin, y, width - 2 * margin)
    return Layout(
        width=width,
        height=y + margin - px(10),
        players=n,
        entries=tuple(b.entries),
        lines=tuple(b.lines),
        circles=tuple(b.circles),
        sheet_box=to_box(frame.x0, frame.y0, frame.x1, frame.y1),
        sectors=tuple(tuple(to_point(*p) for p in poly) for poly in polys),
    )
