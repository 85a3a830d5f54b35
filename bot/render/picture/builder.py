"""The pieces of a picture collected while it is laid out, in pixels: :class:`Builder`."""

from __future__ import annotations

from typing import Literal

from bot.render.picture.fonts import ink_box, line_height, text_width, turned_length
from bot.render.picture.geometry import to_point
from bot.render.picture.model import INK, Box, Circle, Color, Line, TextEntry

__all__ = ["Builder"]


class Builder:
    """Collects entries and rules in pixels for one picture."""

    def __init__(self, scale: float) -> None:
        self.scale = scale
        self.entries: list[TextEntry] = []
        self.lines: list[Line] = []
        self.circles: list[Circle] = []

    def px(self, v: float) -> int:
        return max(1, round(v * self.scale))

    def line(self, a: tuple[float, float], b: tuple[float, float], width: float = 2) -> None:
        self.lines.append(Line(to_point(*a), to_point(*b), self.px(width)))

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
        align: Literal["left", "centre", "right"] = "left",
    ) -> TextEntry:
        """Add text; ``size`` is in pixels. ``align`` centre/right moves ``xy`` (top)."""
        line_h = line_height(size)
        width = max(text_width(line, size, bold) for line in text.split("\n"))
        x, y = xy
        if angle == 0:
            if align == "centre":
                x -= width / 2
            elif align == "right":
                x -= width
            pos = to_point(x, y)
            bbox = ink_box(text, pos, size, bold, line_h)
        else:
            # Turned text: ``xy`` is the centre of the turned block.
            height = line_h * len(text.split("\n"))
            length = turned_length(width)
            pos = to_point(x - height / 2, y - length / 2)
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
