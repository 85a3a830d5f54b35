"""Text on the picture: the shipped font, measuring a text, fitting it into a cell.

The font (DejaVu Sans, bot/render/fonts/LICENSE) ships with the package and text is laid
out with Pillow's basic layout engine, so the picture is the same on every machine with
the same Pillow. The computer players' mark «🤖», which the font lacks, is measured and
drawn as :mod:`bot.render.picture.robot` draws it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import cache, lru_cache
from pathlib import Path

from PIL import ImageFont

from bot.render.picture.model import Box
from bot.render.picture.robot import ROBOT, robot_advance, robot_box

__all__ = [
    "FONT_DIR",
    "ELLIPSIS",
    "font_of",
    "pieces",
    "text_width",
    "turned_length",
    "line_height",
    "ink_box",
    "fit_sequence",
    "one_size",
    "fit_label",
    "fit_label_lines",
]

FONT_DIR = Path(__file__).resolve().parent.parent / "fonts"
_REGULAR = "DejaVuSans.ttf"
_BOLD = "DejaVuSans-Bold.ttf"

ELLIPSIS = "…"
"""Marks earlier totals left out of a long entry."""
_LARGE_SIZES = 3
"""An entry is written whole in one of the first sizes, else as many of its latest totals
as one of them holds after "…"; only then are the smaller sizes tried, the same way."""


@cache
def font_of(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    path = FONT_DIR / (_BOLD if bold else _REGULAR)
    # The basic layout engine does not depend on libraqm being installed.
    return ImageFont.truetype(str(path), size, layout_engine=ImageFont.Layout.BASIC)


_PIECES = re.compile(f"({re.escape(ROBOT)})")


def pieces(line: str) -> list[str]:
    """``line`` cut into runs of text and robot marks, empty runs left out."""
    return [p for p in _PIECES.split(line) if p]


@lru_cache(maxsize=4096)
def text_width(text: str, size: int, bold: bool = False) -> float:
    """The advance of ``text`` (kept: a layout measures the same entries and names again
    and again while it fits them, ~200 a sheet)."""
    font = font_of(size, bold)
    return sum(robot_advance(size) if p == ROBOT else font.getlength(p) for p in pieces(text))


@lru_cache(maxsize=4096)
def _line_box(line: str, size: int, bold: bool) -> tuple[float, float, float, float] | None:
    """The ink of ``line`` from the pen at (0, 0), anchor left-ascender (``None``: none)."""
    font = font_of(size, bold)
    ascent = font.getmetrics()[0]
    boxes = []
    x = 0.0
    for p in pieces(line):
        if p == ROBOT:
            x0, y0, x1, y1 = robot_box(size, ascent)
            boxes.append((x + x0, y0, x + x1, y1))
            x += robot_advance(size)
        else:
            x0, y0, x1, y1 = font.getbbox(p, anchor="la")
            boxes.append((x + x0, y0, x + x1, y1))
            x += font.getlength(p)
    if not boxes:
        return None
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def turned_length(width: float) -> int:
    """Length of the tile a turned line of ``width`` is drawn on."""
    return math.ceil(width) + 2


def line_height(size: int) -> int:
    return round(size * 1.25)


def ink_box(text: str, xy: tuple[int, int], size: int, bold: bool, line_h: int) -> Box:
    """The box covered by ``text`` drawn line by line from ``xy`` (anchor left-ascender)."""
    left: float = 10**9
    top: float = 10**9
    right: float = -(10**9)
    bottom: float = -(10**9)
    for i, line in enumerate(text.split("\n")):
        found = _line_box(line, size, bold)
        if found is None:
            continue
        x0, y0, x1, y1 = found
        y = xy[1] + i * line_h
        left, top = min(left, xy[0] + x0), min(top, y + y0)
        right, bottom = max(right, xy[0] + x1), max(bottom, y + y1)
    if right < left:
        return (xy[0], xy[1], xy[0], xy[1])
    return (math.floor(left), math.floor(top), math.ceil(right), math.ceil(bottom))


def _wrap(tokens: Sequence[str], width: float, size: int) -> list[str] | None:
    """``tokens`` in lines no wider than ``width``; ``None`` when one token is too wide."""
    lines: list[str] = []
    current = ""
    for token in tokens:
        candidate = current + token
        if text_width(candidate, size) <= width:
            current = candidate
            continue
        if not current or text_width(token, size) > width:
            return None
        lines.append(current)
        current = token
    if current:
        lines.append(current)
    return lines


def fit_sequence(
    tokens: Sequence[str], w: int, h: int, sizes: Sequence[int], largest: int | None = None
) -> tuple[str, int]:
    """The text and size that fit ``tokens`` into a ``w`` × ``h`` cell.

    ``sizes`` run from the biggest down; none bigger than ``largest`` is used. Every
    total at the biggest of the large sizes that holds them all; otherwise as many of the
    latest totals as one of the large sizes holds, after a leading "…" (more history at a
    smaller size beats a bigger size); then the same with the small sizes; as a last
    resort the latest total alone at the smallest size.
    """

    def attempt(size: int, keep: int) -> list[str] | None:
        shown = list(tokens[len(tokens) - keep :])
        if keep < len(tokens):
            shown[0] = ELLIPSIS + shown[0]
        lines = _wrap(shown, w, size)
        if lines is None:
            return None
        box = ink_box("\n".join(lines), (0, 0), size, False, line_height(size))
        if box[2] > w or box[3] > h:
            return None
        return lines

    def most_kept(size: int) -> int | None:
        """The most latest totals that fit at ``size`` (fewer always fit if more do, so a
        binary search: a long game's entry is fitted in a few tries)."""
        lo, hi = 1, len(tokens) - 1
        found: int | None = None
        while lo <= hi:
            mid = (lo + hi) // 2
            if attempt(size, mid) is None:
                hi = mid - 1
            else:
                found, lo = mid, mid + 1
        return found

    large, small = sizes[:_LARGE_SIZES], sizes[_LARGE_SIZES:]
    if largest is not None:
        large = [s for s in large if s <= largest]
        small = [s for s in small if s <= largest]
    for group in (large, small):
        for size in group:
            lines = attempt(size, len(tokens))
            if lines is not None:
                return "\n".join(lines), size
        # As many of the latest totals as the group's sizes can show (the smallest shows
        # the most), at the biggest size that shows as many.
        most = most_kept(min(group)) if group else None
        if most is not None:
            for size in group:
                lines = attempt(size, most)
                if lines is not None:
                    return "\n".join(lines), size
    size = min(sizes)
    last = (ELLIPSIS if len(tokens) > 1 else "") + tokens[-1]
    # A huge number in a narrow cell is broken between its digits rather than overflow.
    lines = _wrap(list(last), w, size) if text_width(last, size) > w else None
    return ("\n".join(lines) if lines else last), size


def one_size(cells: Sequence[tuple[Sequence[str], int, int]], sizes: Sequence[int]) -> int | None:
    """The biggest size at which :func:`fit_sequence` writes every entry of ``cells``
    (tokens, width, height): the entries are written in it and so are all one size."""
    largest: int | None = None
    while True:  # the size only goes down: a few rounds at most
        used = [fit_sequence(tokens, w, h, sizes, largest)[1] for tokens, w, h in cells if tokens]
        if not used or min(used) == largest:
            return largest
        largest = min(used)


def fit_label(text: str, width: float, size: int, bold: bool = False) -> str:
    """``text`` cut with "…" until it is no wider than ``width``."""
    if text_width(text, size, bold) <= width:
        return text
    cut = text
    while cut and text_width(cut + ELLIPSIS, size, bold) > width:
        cut = cut[:-1]
    return cut.rstrip() + ELLIPSIS if cut else ELLIPSIS


def fit_label_lines(text: str, width: float, size: int, lines: int = 2) -> str:
    """``text`` on one line no wider than ``width``; else on up to ``lines`` lines broken
    between words (a one-character first word, "→", stays with the next if it can),
    only the last line cut with "…" if need be; else on one line cut with "…"."""
    if text_width(text, size) <= width:
        return text
    words = text.split(" ")
    glued = [f"{words[0]} {words[1]}", *words[2:]] if len(words) > 1 and len(words[0]) == 1 else []
    for parts in (glued, words):
        out: list[str] = []
        for word in parts:
            if out and text_width(f"{out[-1]} {word}", size) <= width:
                out[-1] = f"{out[-1]} {word}"
            else:
                out.append(word)
        if len(out) > lines:
            out = out[: lines - 1] + [" ".join(out[lines - 1 :])]
        if len(out) > 1 and all(text_width(x, size) <= width for x in out[:-1]):
            return "\n".join([*out[:-1], fit_label(out[-1], width, size)])
    return fit_label(text, width, size)
