"""The data of a sheet picture: what is drawn where, in pixels, and in which colour."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "DEFAULT_WIDTH",
    "Color",
    "Box",
    "Point",
    "PAPER",
    "RULE",
    "INK",
    "NAME",
    "LABEL",
    "CENTRE",
    "INKS",
    "TYPE",
    "Type",
    "TextEntry",
    "Line",
    "Circle",
    "Layout",
]

DEFAULT_WIDTH = 1000
"""Width of the picture in pixels; every size in the layout is for this width and scales."""

Color = tuple[int, int, int]
Box = tuple[int, int, int, int]
Point = tuple[float, float]

PAPER: Color = (255, 253, 244)
RULE: Color = (52, 58, 74)
INK: Color = (22, 46, 140)
NAME: Color = (24, 24, 28)
LABEL: Color = (84, 84, 96)
"""Dark enough to read on a phone's preview: the "→ name" labels carry the whists' meaning."""
CENTRE: Color = (120, 20, 30)
INKS: tuple[Color, ...] = (RULE, INK, NAME, LABEL, CENTRE)
"""Every colour drawn on the :data:`PAPER` (the PNG's palette is made of them)."""


@dataclass(frozen=True, slots=True)
class Type:
    """Font sizes in pixels at :data:`DEFAULT_WIDTH` (they scale with the width).

    Chosen for a phone: Telegram previews a picture about 400 pixels wide, so every size
    here is shown at 0.4 of it -- entries at 40 (at least 24 in a crowded cell) read as
    16 (9.6), the "→ name" labels at 30 as 12 (their capitals nearly 9 pixels high).
    """

    title: int = 36
    status: int = 28
    name: int = 34
    label: int = 30
    entries: tuple[int, ...] = (40, 34, 28, 24, 20, 16)
    """Running entries, biggest first; see :func:`~bot.render.picture.fonts.fit_sequence`."""
    convention: int = 26
    size: int = 64
    settlement_title: int = 32
    settlement: int = 30


TYPE = Type()


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
