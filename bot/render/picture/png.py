"""A small PNG writer for the sheet pictures: 8-bit indexed colour, one IDAT chunk."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from functools import cache

from PIL import Image

__all__ = ["encode_png", "palette_of"]

BAND = 64
"""Rows copied out of the picture at a time."""
STEPS = 50
"""Shades of each ink between the paper and the ink itself, in the palette."""
LEVEL = 2
"""zlib's compression level: ~4 ms for a 1000 x 1000 sheet against ~9 ms at its default
(6), for ~35 KB instead of ~22 KB (tests/perf/README.md)."""

Colour = tuple[int, int, int]


@cache
def palette_of(paper: Colour, inks: tuple[Colour, ...]) -> tuple[Colour, ...]:
    """The colours a sheet can show: the paper, and for each ink :data:`STEPS` shades
    from the paper to the ink (the edges of anti-aliased text and rules are such
    shades); at most 256."""
    colours = [paper]
    for ink in inks:
        for step in range(1, STEPS + 1):
            colours.append(
                (
                    round(paper[0] + (ink[0] - paper[0]) * step / STEPS),
                    round(paper[1] + (ink[1] - paper[1]) * step / STEPS),
                    round(paper[2] + (ink[2] - paper[2]) * step / STEPS),
                )
            )
    if len(colours) > 256:
        raise ValueError(f"{len(inks)} inks make {len(colours)} colours, more than 256")
    return tuple(colours)


def encode_png(img: Image.Image, palette: Sequence[Colour]) -> bytes:
    """``img`` as an indexed-colour PNG, each pixel the nearest colour of ``palette``.

    Indexed: a sheet is ink on paper, so every pixel is a shade between the paper and
    one ink (:func:`palette_of`); its pixels read back differ from the drawing by a
    fraction of a level on average. Compressing the RGB pixels took ~23 ms of CPU for a
    1000 x 1000 sheet (3 MB to deflate, with the GIL released, so no py-spy profile of
    the bot showed it); mapping them to the palette and deflating one byte a pixel takes
    ~7 ms, for smaller files (tests/perf/README.md).

    Written here (Pillow's encoder takes about as much CPU for an indexed sheet, ~1.4x
    for an RGB one): rows unfiltered (filter byte 0 in front of each row), given to
    ``zlib`` a band at a time (no bytes object of the whole picture: the mapped picture
    and its copy with the filter column stay in Pillow's memory, ~1 MB each).
    """
    table = Image.new("P", (1, 1))
    # unused entries repeat the last colour: never nearer to a pixel than a real one
    flat = [channel for colour in palette for channel in colour]
    flat += flat[-3:] * (256 - len(palette))  # (an index is never beyond the PNG's palette)
    table.putpalette(flat)
    if img.mode != "RGB":
        img = img.convert("RGB")
    indexed = img.quantize(palette=table, dither=Image.Dither.NONE)
    width, height = indexed.size
    # one column more on the left, all 0: each row's bytes then begin with its filter
    # type, 0 ("none"), and a band of rows goes to zlib in one call, not two a row
    framed = Image.new("P", (width + 1, height), 0)
    framed.paste(indexed, (1, 0))
    packer = zlib.compressobj(LEVEL)
    parts = [
        packer.compress(framed.crop((0, top, width + 1, min(height, top + BAND))).tobytes())
        for top in range(0, height, BAND)
    ]
    parts.append(packer.flush())
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)  # 8-bit indexed
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            _chunk(b"IHDR", header),
            _chunk(b"PLTE", bytes(flat)),
            _chunk(b"IDAT", b"".join(parts)),
            _chunk(b"IEND", b""),
        )
    )


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
