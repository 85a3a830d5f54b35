"""The ruling of the sheet: the rectangle, its inner frames and each player's cells."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bot.render.picture.model import Box

__all__ = [
    "T_WHISTS",
    "T_PULKA",
    "T_GORA",
    "CIRCLE",
    "ASPECT",
    "Frame",
    "Cells",
    "to_point",
    "to_box",
    "split_evenly",
    "cells_3",
    "cells_4",
    "Side",
]

# Strip boundaries as a fraction of the way from the edge to the centre (frames are
# similar rectangles, so their corners lie on the diagonals).
T_WHISTS = 0.30
T_PULKA = 0.52
T_GORA = 0.78
CIRCLE = 0.22  # circle radius as a fraction of the rectangle's half height
ASPECT = {3: 0.85, 4: 0.85}
"""Height of the ruled rectangle over its width, by players."""


@dataclass(frozen=True, slots=True)
class Frame:
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


def to_point(x: float, y: float) -> tuple[int, int]:
    return (round(x), round(y))


def to_box(x0: float, y0: float, x1: float, y1: float) -> Box:
    return (round(x0), round(y0), round(x1), round(y1))


def split_evenly(lo: float, hi: float, parts: int) -> list[tuple[float, float]]:
    step = (hi - lo) / parts
    return [(lo + k * step, lo + (k + 1) * step) for k in range(parts)]


@dataclass(slots=True)
class Cells:
    """Cells of one sector: where each running entry goes."""

    pulka: Box
    gora: Box
    whists: dict[int, Box]


Side = Literal["top", "right", "bottom", "left"]
"""Where a seat's cells lie on the 4-player sheet."""


def cells_4(frame: Frame, seat_side: dict[int, Side], players: int) -> dict[int, Cells]:
    """Four sectors: top, right, bottom, left; whist columns in the order of the seats
    as seen going round the sheet (the neighbour on that side first)."""
    out: dict[int, Cells] = {}
    strips = [(0.0, T_WHISTS), (T_WHISTS, T_PULKA), (T_PULKA, T_GORA)]
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
            cols = [(x0, wt, x1, wb) for x0, x1 in split_evenly(wl, wr, 3)]
        else:
            order = [side_seat["top"], _opposite(seat, players), side_seat["bottom"]]
            cols = [(wl, y0, wr, y1) for y0, y1 in split_evenly(wt, wb, 3)]
        out[seat] = Cells(
            pulka=to_box(*boxes[1]),
            gora=to_box(*boxes[2]),
            whists={target: to_box(*c) for target, c in zip(order, cols, strict=True)},
        )
    return out


def _opposite(seat: int, players: int) -> int:
    return (seat + 2) % players


def cells_3(frame: Frame) -> dict[int, Cells]:
    """Three sectors: seat 0 at the top, seat 1 on the right, seat 2 on the left.

    The side sectors run along their side and half the bottom edge (an L): the
    whists on the top player go along the side, those on the other side player
    along the bottom; pulka and gora are written along the bottom.
    """
    cx = frame.cx
    o = [frame.inset(t) for t in (0.0, T_WHISTS, T_PULKA, T_GORA)]
    out: dict[int, Cells] = {}
    # Top player.
    (l0, t0, r0, _), (l1, t1, r1, _), (l2, t2, r2, _), (l3, t3, r3, _) = o
    out[0] = Cells(
        pulka=to_box(l2, t1, r2, t2),
        gora=to_box(l3, t2, r3, t3),
        whists={2: to_box(l1, t0, cx, t1), 1: to_box(cx, t0, r1, t1)},
    )
    # Side players: (seat, mirrored?)
    for seat, other, right in ((2, 1, False), (1, 2, True)):
        (L0, T0, R0, B0), (L1, T1, R1, B1), (L2, T2, R2, B2), (L3, T3, R3, B3) = o
        if not right:
            side_w = to_box(L0, T1, L1, B1)
            bottom_w = to_box(L0, B1, cx, B0)
            pulka = to_box(L1, B2, cx, B1)
            gora = to_box(L2, B3, cx, B2)
        else:
            side_w = to_box(R1, T1, R0, B1)
            bottom_w = to_box(cx, B1, R0, B0)
            pulka = to_box(cx, B2, R1, B1)
            gora = to_box(cx, B3, R2, B2)
        out[seat] = Cells(pulka=pulka, gora=gora, whists={0: side_w, other: bottom_w})
    return out
