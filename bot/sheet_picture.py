"""The pulka as a picture: the classic Preferans score sheet drawn with Pillow.

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

:func:`sheet_layout` computes everything that will be drawn (text entries with
their positions, lines, the circle) without drawing; :func:`render_png` draws a
layout. The font (DejaVu Sans, bot/fonts/LICENSE) ships with the package and text
is laid out with Pillow's basic layout engine, so the picture is the same on
every machine with the same Pillow.
"""

from __future__ import annotations

import math
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from bot.i18n import register, t
from bot.preferans.game import Game
from bot.preferans.scoring import Sheet
from bot.sheet_text import fmt_number, short_name

__all__ = [
    "Layout",
    "TextEntry",
    "Line",
    "Circle",
    "DEFAULT_WIDTH",
    "sheet_layout",
    "render_png",
    "draw_layout",
    "running_totals",
    "sequence_text",
    "number_text",
]

DEFAULT_WIDTH = 1000
"""Width of the picture in pixels; every size below is for this width and scales."""

FONT_DIR = Path(__file__).resolve().parent / "fonts"
_REGULAR = "DejaVuSans.ttf"
_BOLD = "DejaVuSans-Bold.ttf"

SEP = "."
"""Separator of the running totals, as on paper."""
ELLIPSIS = "…"
"""Marks earlier totals left out of a long entry."""

Color = tuple[int, int, int]
Box = tuple[int, int, int, int]
Point = tuple[float, float]

PAPER: Color = (255, 253, 244)
RULE: Color = (52, 58, 74)
INK: Color = (22, 46, 140)
NAME: Color = (24, 24, 28)
LABEL: Color = (128, 128, 136)
CENTRE: Color = (120, 20, 30)

# Strip boundaries as a fraction of the way from the edge to the centre (frames are
# similar rectangles, so their corners lie on the diagonals).
_T_WHISTS = 0.29
_T_PULKA = 0.46
_T_GORA = 0.70
_CIRCLE = 0.25  # circle radius as a fraction of the rectangle's half height

_ENTRY_SIZES = (19, 17, 15, 13, 11, 9)
_LARGE_SIZES = 3
"""An entry is written whole in one of the first sizes, else its latest totals after
"…" in one of them; only then are the smaller sizes tried, the same way."""

register("picture.on", "→ {name}", "→ {name}")  # the head of a whist column


# ----------------------------------------------------------------------------- layout data


@dataclass(frozen=True, slots=True)
class TextEntry:
    """One piece of text on the picture.

    ``kind``: ``title``, ``status``, ``name``, ``convention``, ``size``, ``label``,
    ``pulka``, ``gora``, ``whists``, ``settlement_title`` or ``settlement``.
    ``seat``: the sector's player (for ``whists`` the writer), ``target``: the player
    the whists are written on. ``text`` may hold several lines (``\\n``); ``xy`` is the
    top-left corner of the first line; ``bbox`` is the ink box actually drawn and
    ``box`` the cell it has to stay in (``None`` for free text). ``angle`` 90 turns the
    text to read upwards, -90 downwards.
    """

    kind: str
    seat: int | None
    target: int | None
    text: str
    xy: tuple[int, int]
    crossed: bool = False
    size: int = 17
    bold: bool = False
    color: Color = INK
    angle: int = 0
    line_height: int = 0
    bbox: Box = (0, 0, 0, 0)
    box: Box | None = None

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    @property
    def flat(self) -> str:
        """The text on one line (wrapped lines joined back)."""
        return "".join(self.lines)


@dataclass(frozen=True, slots=True)
class Line:
    """A straight rule."""

    start: tuple[int, int]
    end: tuple[int, int]
    width: int = 2
    color: Color = RULE


@dataclass(frozen=True, slots=True)
class Circle:
    """The centre circle."""

    centre: tuple[int, int]
    radius: int
    width: int = 2
    color: Color = RULE


@dataclass(frozen=True, slots=True)
class Layout:
    """Everything the picture shows, in pixels."""

    width: int
    height: int
    players: int
    entries: tuple[TextEntry, ...]
    lines: tuple[Line, ...]
    circles: tuple[Circle, ...]
    sheet_box: Box
    """The ruled rectangle."""
    sectors: tuple[tuple[tuple[int, int], ...], ...]
    """Each seat's sector as a polygon (for tests and tools)."""

    def of_kind(self, *kinds: str) -> list[TextEntry]:
        return [e for e in self.entries if e.kind in kinds]

    def entry(self, kind: str, seat: int, target: int | None = None) -> TextEntry | None:
        """The running entry ``kind`` of ``seat`` (whists: on ``target``), if written."""
        for e in self.entries:
            if e.kind == kind and e.seat == seat and e.target == target:
                return e
        return None


# ----------------------------------------------------------------------------- fonts


@cache
def _font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    path = FONT_DIR / (_BOLD if bold else _REGULAR)
    # The basic layout engine does not depend on libraqm being installed.
    return ImageFont.truetype(str(path), size, layout_engine=ImageFont.Layout.BASIC)


def _text_width(text: str, size: int, bold: bool = False) -> float:
    return _font(size, bold).getlength(text)


def _turned_length(width: float) -> int:
    """Length of the tile a turned line of ``width`` is drawn on."""
    return math.ceil(width) + 2


def _line_height(size: int) -> int:
    return round(size * 1.25)


def _ink_box(text: str, xy: tuple[int, int], size: int, bold: bool, line_h: int) -> Box:
    """The box covered by ``text`` drawn line by line from ``xy`` (anchor left-ascender)."""
    font = _font(size, bold)
    left: float = 10**9
    top: float = 10**9
    right: float = -(10**9)
    bottom: float = -(10**9)
    for i, line in enumerate(text.split("\n")):
        if not line:
            continue
        x0, y0, x1, y1 = font.getbbox(line, anchor="la")
        y = xy[1] + i * line_h
        left, top = min(left, xy[0] + x0), min(top, y + y0)
        right, bottom = max(right, xy[0] + x1), max(bottom, y + y1)
    if right < left:
        return (xy[0], xy[1], xy[0], xy[1])
    return (math.floor(left), math.floor(top), math.ceil(right), math.ceil(bottom))


# ----------------------------------------------------------------------------- numbers


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


def _wrap(tokens: Sequence[str], width: float, size: int) -> list[str] | None:
    """``tokens`` in lines no wider than ``width``; ``None`` when one token is too wide."""
    lines: list[str] = []
    current = ""
    for token in tokens:
        candidate = current + token
        if _text_width(candidate, size) <= width:
            current = candidate
            continue
        if not current or _text_width(token, size) > width:
            return None
        lines.append(current)
        current = token
    if current:
        lines.append(current)
    return lines


def _fit_sequence(tokens: Sequence[str], w: int, h: int, sizes: Sequence[int]) -> tuple[str, int]:
    """The text and size that fit ``tokens`` into a ``w`` × ``h`` cell.

    ``sizes`` run from the biggest down. Every total at the biggest of the large sizes
    that holds them all; otherwise the latest totals after a leading "…"; then the same
    with the small sizes; as a last resort the latest total alone at the smallest size.
    """

    def attempt(size: int, keep: int) -> list[str] | None:
        shown = list(tokens[len(tokens) - keep :])
        if keep < len(tokens):
            shown[0] = ELLIPSIS + shown[0]
        lines = _wrap(shown, w, size)
        if lines is None:
            return None
        box = _ink_box("\n".join(lines), (0, 0), size, False, _line_height(size))
        if box[2] > w or box[3] > h:
            return None
        return lines

    large, small = sizes[:_LARGE_SIZES], sizes[_LARGE_SIZES:]
    for group in (large, small):
        for size in group:
            lines = attempt(size, len(tokens))
            if lines is not None:
                return "\n".join(lines), size
        for size in group:
            for keep in range(len(tokens) - 1, 0, -1):
                lines = attempt(size, keep)
                if lines is not None:
                    return "\n".join(lines), size
    size = min(sizes)
    last = (ELLIPSIS if len(tokens) > 1 else "") + tokens[-1]
    return last, size


def _fit_label(text: str, width: float, size: int, bold: bool = False) -> str:
    """``text`` cut with "…" until it is no wider than ``width``."""
    if _text_width(text, size, bold) <= width:
        return text
    cut = text
    while cut and _text_width(cut + ELLIPSIS, size, bold) > width:
        cut = cut[:-1]
    return cut.rstrip() + ELLIPSIS if cut else ELLIPSIS


# ----------------------------------------------------------------------------- geometry


@dataclass(frozen=True, slots=True)
class _Frame:
    """The ruled rectangle and its similar inner frames."""

    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2

    @property
    def a(self) -> float:
        return (self.x1 - self.x0) / 2

    @property
    def b(self) -> float:
        return (self.y1 - self.y0) / 2

    def inset(self, t: float) -> tuple[float, float, float, float]:
        """The frame ``t`` of the way to the centre: left, top, right, bottom."""
        return (
            self.cx - (1 - t) * self.a,
            self.cy - (1 - t) * self.b,
            self.cx + (1 - t) * self.a,
            self.cy + (1 - t) * self.b,
        )


def _pt(x: float, y: float) -> tuple[int, int]:
    return (round(x), round(y))


def _box(x0: float, y0: float, x1: float, y1: float) -> Box:
    return (round(x0), round(y0), round(x1), round(y1))


def _split(lo: float, hi: float, parts: int) -> list[tuple[float, float]]:
    step = (hi - lo) / parts
    return [(lo + k * step, lo + (k + 1) * step) for k in range(parts)]


@dataclass(slots=True)
class _Cells:
    """Cells of one sector: where each running entry goes."""

    pulka: Box
    gora: Box
    whists: dict[int, Box]


def _cells_4(frame: _Frame, seat_side: dict[int, str], players: int) -> dict[int, _Cells]:
    """Four sectors: top, right, bottom, left; whist columns in the order of the seats
    as seen going round the sheet (the neighbour on that side first)."""
    out: dict[int, _Cells] = {}
    strips = [(0.0, _T_WHISTS), (_T_WHISTS, _T_PULKA), (_T_PULKA, _T_GORA)]
    side_seat = {side: seat for seat, side in seat_side.items()}
    for seat, side in seat_side.items():
        boxes: list[tuple[float, float, float, float]] = []
        for t_out, t_in in strips:
            ol, ot, or_, ob = frame.inset(t_out)
            il, it, ir, ib = frame.inset(t_in)
            if side == "top":
                boxes.append((il, ot, ir, it))
            elif side == "bottom":
                boxes.append((il, ib, ir, ob))
            elif side == "left":
                boxes.append((ol, it, il, ib))
            else:
                boxes.append((ir, it, or_, ib))
        wl, wt, wr, wb = boxes[0]
        if side in ("top", "bottom"):
            order = [side_seat["left"], _opposite(seat, players), side_seat["right"]]
            cols = [(x0, wt, x1, wb) for x0, x1 in _split(wl, wr, 3)]
        else:
            order = [side_seat["top"], _opposite(seat, players), side_seat["bottom"]]
            cols = [(wl, y0, wr, y1) for y0, y1 in _split(wt, wb, 3)]
        out[seat] = _Cells(
            pulka=_box(*boxes[1]),
            gora=_box(*boxes[2]),
            whists={target: _box(*c) for target, c in zip(order, cols, strict=True)},
        )
    return out


def _opposite(seat: int, players: int) -> int:
    return (seat + 2) % players


def _cells_3(frame: _Frame) -> dict[int, _Cells]:
    """Three sectors: seat 0 at the top, seat 1 on the right, seat 2 on the left.

    The side sectors run along their side and half the bottom edge (an L): the
    whists on the top player go along the side, those on the other side player
    along the bottom; pulka and gora are written along the bottom.
    """
    cx = frame.cx
    o = [frame.inset(t) for t in (0.0, _T_WHISTS, _T_PULKA, _T_GORA)]
    out: dict[int, _Cells] = {}
    # Top player.
    (l0, t0, r0, _), (l1, t1, r1, _), (l2, t2, r2, _), (l3, t3, r3, _) = o
    out[0] = _Cells(
        pulka=_box(l2, t1, r2, t2),
        gora=_box(l3, t2, r3, t3),
        whists={2: _box(l1, t0, cx, t1), 1: _box(cx, t0, r1, t1)},
    )
    # Side players: (seat, mirrored?)
    for seat, other, right in ((2, 1, False), (1, 2, True)):
        (L0, T0, R0, B0), (L1, T1, R1, B1), (L2, T2, R2, B2), (L3, T3, R3, B3) = o
        if not right:
            side_w = _box(L0, T1, L1, B1)
            bottom_w = _box(L0, B1, cx, B0)
            pulka = _box(L1, B2, cx, B1)
            gora = _box(L2, B3, cx, B2)
        else:
            side_w = _box(R1, T1, R0, B1)
            bottom_w = _box(cx, B1, R0, B0)
            pulka = _box(cx, B2, R1, B1)
            gora = _box(cx, B3, R2, B2)
        out[seat] = _Cells(pulka=pulka, gora=gora, whists={0: side_w, other: bottom_w})
    return out


# ----------------------------------------------------------------------------- building


class _Builder:
    """Collects entries and rules in pixels for one picture."""

    def __init__(self, scale: float) -> None:
        self.scale = scale
        self.entries: list[TextEntry] = []
        self.lines: list[Line] = []
        self.circles: list[Circle] = []

    def px(self, v: float) -> int:
        return max(1, round(v * self.scale))

    def line(self, a: tuple[float, float], b: tuple[float, float], width: float = 2) -> None:
        self.lines.append(Line(_pt(*a), _pt(*b), self.px(width)))

    def text(
        self,
        kind: str,
        text: str,
        xy: tuple[float, float],
        *,
        size: int,
        seat: int | None = None,
        target: int | None = None,
        bold: bool = False,
        color: Color = INK,
        box: Box | None = None,
        angle: int = 0,
        align: str = "left",
    ) -> TextEntry:
        """Add text; ``size`` is in pixels. ``align`` centre/right moves ``xy`` (top)."""
        line_h = _line_height(size)
        width = max(_text_width(line, size, bold) for line in text.split("\n"))
        x, y = xy
        if angle == 0:
            if align == "centre":
                x -= width / 2
            elif align == "right":
                x -= width
            pos = _pt(x, y)
            bbox = _ink_box(text, pos, size, bold, line_h)
        else:
            # Turned text: ``xy`` is the centre of the turned block.
            height = line_h * len(text.split("\n"))
            length = _turned_length(width)
            pos = _pt(x - height / 2, y - length / 2)
            bbox = (pos[0], pos[1], pos[0] + height, pos[1] + length)
        entry = TextEntry(
            kind=kind,
            seat=seat,
            target=target,
            text=text,
            xy=pos,
            size=size,
            bold=bold,
            color=color,
            angle=angle,
            line_height=line_h,
            bbox=bbox,
            box=box,
        )
        self.entries.append(entry)
        return entry


def _history(game: Game) -> list[Sheet]:
    """The sheet before the first deal, after every deal, and after the end adjustments."""
    sheets = [game.start] + [d.sheet for d in game.finished_deals]
    if game.over:
        sheets.append(game.sheet)
    return sheets


def _entry_in_cell(
    b: _Builder,
    kind: str,
    seat: int,
    target: int | None,
    totals: Sequence[Fraction],
    cell: Box,
    *,
    label: str | None = None,
) -> None:
    pad = b.px(5)
    x0, y0, x1, y1 = cell
    x0, y0, x1, y1 = x0 + pad, y0 + pad, x1 - pad, y1 - pad
    if label is not None:
        size = max(9, b.px(11))
        text = _fit_label(label, x1 - x0, size)
        b.text("label", text, (x0, y0), size=size, seat=seat, target=target, color=LABEL, box=cell)
        y0 += _line_height(size) + b.px(1)
    if not totals:
        return
    sizes = sorted({max(7, b.px(s)) for s in _ENTRY_SIZES}, reverse=True)
    text, size = _fit_sequence(sequence_text(totals), x1 - x0, y1 - y0, sizes)
    b.text(kind, text, (x0, y0), size=size, seat=seat, target=target, box=cell)


def _short(name: str, chars: int) -> str:
    """``name`` with its spaces tidied, cut to ``chars`` characters with "…"."""
    name = " ".join(name.split())
    if len(name) <= chars:
        return name
    return short_name(name, chars)[:-1].rstrip() + ELLIPSIS


def _rules(b: _Builder, frame: _Frame, n: int) -> tuple[dict[int, _Cells], list[list[Point]]]:
    """Rule the sheet; returns each seat's cells and sector polygon."""
    for t_in, w in ((0.0, 3), (_T_WHISTS, 2), (_T_PULKA, 2)):
        left, top, right, bottom = frame.inset(t_in)
        corners = [(left, top), (right, top), (right, bottom), (left, bottom)]
        for k in range(4):
            b.line(corners[k], corners[(k + 1) % 4], w)
    cx, cy = frame.cx, frame.cy
    radius = _CIRCLE * frame.b
    b.circles.append(Circle(_pt(cx, cy), round(radius), b.px(2)))
    tl, tr = (frame.x0, frame.y0), (frame.x1, frame.y0)
    br, bl = (frame.x1, frame.y1), (frame.x0, frame.y1)
    centre = (cx, cy)
    l1, t1, r1, b1 = frame.inset(_T_WHISTS)
    if n == 3:
        bm = (cx, frame.y1)
        ends = [tl, tr, bm]
        polys = [[tl, tr, centre], [tr, br, bm, centre], [tl, centre, bm, bl]]
        cells = _cells_3(frame)
        b.line((cx, frame.y0), (cx, t1))  # the top player's two whist columns
        b.line((frame.x0, b1), (l1, b1))  # side players: along the side / along the bottom
        b.line((frame.x1, b1), (r1, b1))
    else:
        ends = [tl, tr, br, bl]
        polys = [[tl, tr, centre], [tr, br, centre], [br, bl, centre], [bl, tl, centre]]
        cells = _cells_4(frame, {0: "top", 1: "right", 2: "bottom", 3: "left"}, n)
        for _, xb in _split(l1, r1, 3)[:2]:
            b.line((xb, frame.y0), (xb, t1))
            b.line((xb, b1), (xb, frame.y1))
        for _, yb in _split(t1, b1, 3)[:2]:
            b.line((frame.x0, yb), (l1, yb))
            b.line((r1, yb), (frame.x1, yb))
    for ex, ey in ends:
        d = math.hypot(ex - cx, ey - cy)
        b.line((cx + (ex - cx) * radius / d, cy + (ey - cy) * radius / d), (ex, ey), 2)
    return cells, polys


def _running_entries(
    b: _Builder, game: Game, cells: dict[int, _Cells], names: list[str], lang: str
) -> None:
    sheets = _history(game)
    for seat in range(game.players):
        c = cells[seat]
        pulka = running_totals([s.pulka[seat] for s in sheets])
        gora = running_totals([s.gora[seat] for s in sheets])
        _entry_in_cell(b, "pulka", seat, None, pulka, c.pulka)
        _entry_in_cell(b, "gora", seat, None, gora, c.gora)
        for target, cell in c.whists.items():
            whists = running_totals([s.whists[seat][target] for s in sheets])
            label = t(lang, "picture.on", name=_short(names[target], 14))
            _entry_in_cell(b, "whists", seat, target, whists, cell, label=label)


def _names(b: _Builder, frame: _Frame, names: list[str], band: int, side: int) -> None:
    """Each player's name by his edge of the sheet (four players: the side names turned)."""
    size = b.px(18)
    n = len(names)

    def put(seat: int, xc: float, ytop: float, room: float, angle: int = 0) -> None:
        text = _fit_label(_short(names[seat], 28), room, size, True)
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


def _centre(b: _Builder, frame: _Frame, convention: str, size: int) -> None:
    """The convention and the pulka size in the circle."""
    cx, cy = frame.cx, frame.cy
    radius = _CIRCLE * frame.b
    conv_size = b.px(15)
    text = _fit_label(convention, radius * 1.7, conv_size)
    b.text(
        "convention", text, (cx, cy - radius * 0.55), size=conv_size, color=CENTRE, align="centre"
    )
    num_size = b.px(34)
    while num_size > 10 and _text_width(str(size), num_size, True) > radius * 1.6:
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
    b: _Builder, game: Game, names: list[str], lang: str, x: int, y: int, room: int
) -> int:
    """The settlement, winner first, from ``y``; returns the ``y`` under it."""
    settlement = game.settlement()
    if settlement is None:
        return y
    b.text(
        "settlement_title",
        t(lang, "sheet.settlement"),
        (x, y),
        size=b.px(18),
        bold=True,
        color=NAME,
    )
    y += b.px(28)
    decimal = "," if lang == "ru" else "."
    size = b.px(17)
    order = sorted(range(game.players), key=lambda i: (-settlement[i], i))
    values = {
        s: ("+" if settlement[s] > 0 else "") + number_text(settlement[s], decimal) for s in order
    }
    value_w = max(_text_width(v, size, True) for v in values.values())
    gap = b.px(24)
    labels = {
        s: _fit_label(f"{place}. {_short(names[s], 28)}", room - value_w - gap, size)
        for place, s in enumerate(order, start=1)
    }
    label_w = max(_text_width(v, size) for v in labels.values())
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
        y += b.px(24)
    return y + b.px(6)


def sheet_layout(game: Game, lang: str = "ru", *, width: int = DEFAULT_WIDTH) -> Layout:
    """Where every line and every piece of text of ``game``'s sheet goes."""
    if width < 300:
        raise ValueError(f"the picture needs a width of at least 300 pixels, not {width}")
    n = game.players
    b = _Builder(width / DEFAULT_WIDTH)
    px = b.px
    margin = px(20)
    side = px(32) if n == 4 else 0  # room for the turned names of the side players
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
        _fit_label(title, width - 2 * margin, px(22), True),
        (margin, y),
        size=px(22),
        bold=True,
        color=NAME,
    )
    y += px(32)
    if game.over:
        status = t(lang, "sheet.finished" if game.finished else "sheet.stopped")
        b.text(
            "status",
            _fit_label(status, width - 2 * margin, px(16)),
            (margin, y),
            size=px(16),
            color=CENTRE,
        )
        y += px(24)
    band = px(30)  # the names above and under the sheet
    y += band

    x0, x1 = margin + side, width - margin - side
    frame = _Frame(x0, y, x1, y + (x1 - x0) * (0.64 if n == 3 else 0.72))
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
        sheet_box=_box(frame.x0, frame.y0, frame.x1, frame.y1),
        sectors=tuple(tuple(_pt(*p) for p in poly) for poly in polys),
    )


# ----------------------------------------------------------------------------- drawing


def draw_layout(layout: Layout) -> Image.Image:
    """Draw ``layout`` on a fresh RGB image."""
    img = Image.new("RGB", (layout.width, layout.height), PAPER)
    draw = ImageDraw.Draw(img)
    for ln in layout.lines:
        draw.line([ln.start, ln.end], fill=ln.color, width=ln.width)
    for c in layout.circles:
        x, y = c.centre
        draw.ellipse(
            (x - c.radius, y - c.radius, x + c.radius, y + c.radius),
            outline=c.color,
            width=c.width,
            fill=PAPER,
        )
    for e in layout.entries:
        _draw_entry(img, draw, e)
    return img


def _draw_entry(img: Image.Image, draw: ImageDraw.ImageDraw, e: TextEntry) -> None:
    font = _font(e.size, e.bold)
    if e.angle == 0:
        for i, line in enumerate(e.lines):
            pos = (e.xy[0], e.xy[1] + i * e.line_height)
            draw.text(pos, line, font=font, fill=e.color, anchor="la")
            if e.crossed and line:
                x0, y0, x1, y1 = draw.textbbox(pos, line, font=font, anchor="la")
                mid = (y0 + y1) // 2
                draw.line([(x0, mid), (x1, mid)], fill=e.color, width=max(1, e.size // 12))
        return
    width = _turned_length(max(font.getlength(line) for line in e.lines))
    height = e.line_height * len(e.lines)
    tile = Image.new("L", (width, height), 0)
    tdraw = ImageDraw.Draw(tile)
    for i, line in enumerate(e.lines):
        tdraw.text((0, i * e.line_height), line, font=font, fill=255, anchor="la")
    turned = tile.rotate(e.angle, expand=True)
    ink = Image.new("RGB", turned.size, e.color)
    img.paste(ink, e.xy, turned)


def render_png(game: Game, lang: str = "ru", *, width: int = DEFAULT_WIDTH) -> bytes:
    """The sheet of ``game`` as PNG bytes."""
    return _png(draw_layout(sheet_layout(game, lang, width=width)))


def _png(img: Image.Image) -> bytes:
    """``img`` (RGB) as a PNG, compressed outside the GIL.

    A sheet is drawn in a worker thread after every deal of every table. Pillow's own PNG
    encoder holds the GIL while it compresses (~16 ms a sheet), stalling the bot's event
    loop for as long; Python's ``zlib`` lets it go. Rows are written unfiltered (filter
    byte 0, put in front of each row by a paste, not a Python loop), which for a sheet --
    a plain background and ink -- compresses as well as Pillow's filters.
    """
    if img.mode != "RGB":
        img = img.convert("RGB")
    width, height = img.size
    as_bytes = Image.frombytes("L", (3 * width, height), img.tobytes())
    rows = Image.new("L", (3 * width + 1, height), 0)  # column 0: each row's filter byte
    rows.paste(as_bytes, (1, 0))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            _png_chunk(b"IHDR", header),
            _png_chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)),
            _png_chunk(b"IEND", b""),
        )
    )


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
