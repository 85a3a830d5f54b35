"""The computer player's mark «🤖» on the picture.

The shipped font has no emoji and would draw «🤖» as an empty box, so a small robot head
is drawn in its place: as tall as a capital letter, in the colour of the text around it,
its eyes and mouth cut out in the paper's colour.
"""

from __future__ import annotations

from PIL import ImageDraw

__all__ = ["ROBOT", "robot_advance", "robot_box", "draw_robot"]

ROBOT = "🤖"
"""The mark computer players' names start with (bot.core.robots)."""

_CAP = 0.73
"""Height of a capital letter of the font (DejaVu Sans) over its size."""
_UNITS = 14
"""The mark's advance in units of a tenth of a capital's height: the head and ears 12,
and a unit either side."""
_ANTENNA = 2.6
"""How far the antenna rises above a capital, in the same units (the font's ascent
leaves room for it)."""


def _unit(size: int) -> float:
    return _CAP * size / 10


def robot_advance(size: int) -> float:
    """How far the mark moves the pen at font size ``size``."""
    return _UNITS * _unit(size)


def robot_box(size: int, ascent: int) -> tuple[float, float, float, float]:
    """The mark's ink from the pen at the line's top (``ascent``: the font's, to the
    baseline): left, top, right, bottom."""
    u = _unit(size)
    return (u, ascent - (10 + _ANTENNA) * u, 13 * u, ascent)


def draw_robot(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    size: int,
    ascent: int,
    ink: int | tuple[int, int, int],
    hole: int | tuple[int, int, int],
) -> None:
    """Draw the mark with the pen at ``xy`` (the line's top): a head as tall as a capital
    with an antenna and ears in ``ink``, the eyes and mouth in ``hole``."""
    u = _unit(size)
    x = xy[0] + u
    y = xy[1] + ascent - 10 * u  # a capital's top

    def box(x0: float, y0: float, x1: float, y1: float) -> tuple[float, float, float, float]:
        return (x + x0 * u, y + y0 * u, x + x1 * u, y + y1 * u)

    draw.ellipse(box(4.9, -_ANTENNA, 7.1, -0.4), fill=ink)  # the antenna
    draw.rectangle(box(5.5, -1, 6.5, 1), fill=ink)
    draw.rectangle(box(0, 3.5, 1.3, 7.5), fill=ink)  # the ears
    draw.rectangle(box(10.7, 3.5, 12, 7.5), fill=ink)
    draw.rounded_rectangle(box(1, 0.5, 11, 10), radius=2 * u, fill=ink)
    draw.ellipse(box(2.8, 2.8, 5.4, 5.4), fill=hole)  # the eyes
    draw.ellipse(box(6.6, 2.8, 9.2, 5.4), fill=hole)
    draw.rectangle(box(3.8, 7, 8.2, 8.2), fill=hole)  # the mouth
