"""Drawing a layout with Pillow, and the sheet of a game as PNG bytes."""

from __future__ import annotations

from PIL import Image, ImageDraw

from bot.preferans.game import Game
from bot.render.picture.fonts import font_of, turned_length
from bot.render.picture.layout import sheet_layout
from bot.render.picture.model import DEFAULT_WIDTH, PAPER, Layout, TextEntry
from bot.render.picture.png import encode_png

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
    font = font_of(e.size, e.bold)
    if e.angle == 0:
        for i, line in enumerate(e.lines):
            pos = (e.xy[0], e.xy[1] + i * e.line_height)
            draw.text(pos, line, font=font, fill=e.color, anchor="la")
            if e.crossed and line:
                x0, y0, x1, y1 = draw.textbbox(pos, line, font=font, anchor="la")
                mid = (y0 + y1) // 2
                draw.line([(x0, mid), (x1, mid)], fill=e.color, width=max(1, e.size // 12))
        return
    width = turned_length(max(font.getlength(line) for line in e.lines))
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
    return encode_png(draw_layout(sheet_layout(game, lang, width=width)))
