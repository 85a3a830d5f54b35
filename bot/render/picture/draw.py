"""Drawing a layout with Pillow, and the sheet of a game as PNG bytes."""

from __future__ import annotations

from PIL import Image, ImageDraw

from bot.preferans.game import Game
from bot.render.picture.fonts import font_of, ink_box, pieces, text_width, turned_length
from bot.render.picture.layout import sheet_layout
from bot.render.picture.model import DEFAULT_WIDTH, INKS, PAPER, Color, Layout, TextEntry
from bot.render.picture.png import encode_png, palette_of
from bot.render.picture.robot import ROBOT, draw_robot, robot_advance

__all__ = ["draw_layout", "render_png"]


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
    if e.angle == 0:
        for i, line in enumerate(e.lines):
            pos = (e.xy[0], e.xy[1] + i * e.line_height)
            _draw_line(draw, pos, line, e.size, e.bold, e.color, PAPER)
            if e.crossed and line:
                x0, y0, x1, y1 = ink_box(line, pos, e.size, e.bold, e.line_height)
                mid = (y0 + y1) // 2
                draw.line([(x0, mid), (x1, mid)], fill=e.color, width=max(1, e.size // 12))
        return
    width = turned_length(max(text_width(line, e.size, e.bold) for line in e.lines))
    height = e.line_height * len(e.lines)
    tile = Image.new("L", (width, height), 0)
    tdraw = ImageDraw.Draw(tile)
    for i, line in enumerate(e.lines):
        _draw_line(tdraw, (0, i * e.line_height), line, e.size, e.bold, 255, 0)
    turned = tile.rotate(e.angle, expand=True)
    ink = Image.new("RGB", turned.size, e.color)
    img.paste(ink, e.xy, turned)


def _draw_line(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    line: str,
    size: int,
    bold: bool,
    ink: int | Color,
    hole: int | Color,
) -> None:
    """One line of text from ``xy`` (anchor left-ascender), a robot mark drawn for each
    «🤖» (the font has none); ``hole`` is the paper under it."""
    font = font_of(size, bold)
    x, y = xy
    for piece in pieces(line):
        if piece == ROBOT:
            draw_robot(draw, (x, y), size, font.getmetrics()[0], ink, hole)
            x += robot_advance(size)
        else:
            draw.text((x, y), piece, font=font, fill=ink, anchor="la")
            x += font.getlength(piece)


def render_png(game: Game, lang: str = "ru", *, width: int = DEFAULT_WIDTH) -> bytes:
    """The sheet of ``game`` as PNG bytes."""
    return encode_png(draw_layout(sheet_layout(game, lang, width=width)), palette_of(PAPER, INKS))
