"""The sheet picture read on a phone.

Telegram previews a picture about 400 pixels wide, so every size in the picture is seen
at 400 / width of it. The digits of the running entries and the "→ name" labels are
measured as drawn (the ink height of the font's glyphs at the entry's size) and scaled to
that preview: the old 1000-pixel sheet had 14-pixel digits (5.6 at 400) and 11-pixel
labels, too small to read.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from bot.render.picture.fonts import fit_sequence, font_of
from bot.render.picture.layout import sheet_layout
from bot.render.picture.model import Layout, TextEntry
from bot.render.picture.totals import sequence_text
from tests.render.test_sheet_picture import CASES, Case

PREVIEW = 400
"""Width of Telegram's preview of a picture on a phone, in pixels."""
EVERYDAY = {"sochi3_end", "rostov4_mid", "leningrad4_end", "stopped3_en", "sochi3_deal6"}


def preview_height(entry: TextEntry, glyphs: str, width: int) -> float:
    """Ink height of ``glyphs`` at ``entry``'s size, seen in the preview."""
    x0, y0, x1, y1 = font_of(entry.size, entry.bold).getbbox(glyphs, anchor="la")
    return (y1 - y0) * PREVIEW / width


@pytest.fixture(scope="module")
def drawn() -> dict[str, Layout]:
    return {c.name: sheet_layout(c.game(), c.lang, width=c.width) for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_digits_and_labels_read_at_preview_width(case: Case, drawn: dict[str, Layout]) -> None:
    layout = drawn[case.name]
    entries = layout.of_kind("pulka", "gora", "whists")
    labels = layout.of_kind("label")
    assert entries and labels
    digits = min(preview_height(e, "0123456789", case.width) for e in entries)
    # Everyday games: every total at its biggest size; crowded marathons still >= 8 px.
    assert digits >= (10 if case.name in EVERYDAY else 8), f"digits {digits:.1f} px in preview"
    # The "→ name" labels: 12-pixel type in the preview, capitals nearly 9 pixels high
    # (they were 9.6-pixel type with 7-pixel capitals, hard to read on a phone).
    label = min(preview_height(e, "АБВ", case.width) for e in labels)
    assert label >= 8.5, f"labels {label:.1f} px in preview"
    size = min(e.size for e in labels) * PREVIEW / case.width
    assert size >= 11.5, f"label type {size:.1f} px in preview"


def test_sheet_fills_a_phone_preview(drawn: dict[str, Layout]) -> None:
    """The ruled sheet is nearly as wide as the picture and not a flat strip."""
    for layout in drawn.values():
        x0, y0, x1, y1 = layout.sheet_box
        assert x1 - x0 >= 0.85 * layout.width
        assert (y1 - y0) >= 0.8 * (x1 - x0)


def test_elided_entries_keep_as_many_totals_as_a_readable_size_holds() -> None:
    """A long gora in a narrow cell: more history at 28 px rather than "…45" at 40 px."""
    tokens = sequence_text([Fraction(x) for x in (4, 8, 16, 18, 26, 34, 35, 39, 41, 45)])
    text, size = fit_sequence(tokens, 98, 147, [40, 34, 28, 24, 20, 16])
    assert size == 28 and text.replace("\n", "") == "…18.26.34.35.39.41.45"


def test_a_huge_total_breaks_rather_than_leaves_its_cell() -> None:
    text, size = fit_sequence(["1.", "1235060,25"], 60, 200, [16, 14, 12, 11])
    assert size == 11 and "\n" in text
    assert text.replace("\n", "") == "…1235060,25"
