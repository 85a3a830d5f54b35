"""Marks on the sheet picture a phone must show right: the computer players' «🤖» drawn
as a robot (the shipped font has no emoji and drew an empty box), each player's pulka and
gora written in one size, and "→ name" labels broken between words in a narrow column
rather than cut."""

from __future__ import annotations

from PIL import Image, ImageChops

from bot.render.picture.draw import draw_layout
from bot.render.picture.fonts import fit_label_lines, font_of, pieces, text_width
from bot.render.picture.layout import sheet_layout
from bot.render.picture.model import PAPER, Layout, TextEntry
from bot.render.picture.robot import ROBOT, robot_advance
from tests.render.test_sheet_picture import CASES, load_game

_CAP = 0.73  # a capital's height over the font size (DejaVu Sans)


def _ink(pixel: tuple[int, int, int]) -> bool:
    return sum(abs(a - b) for a, b in zip(pixel, PAPER, strict=True)) > 150


def _inked(img: Image.Image, box: tuple[float, float, float, float]) -> float:
    """The share of ``box`` in ``img`` drawn in ink (as :func:`_ink` tells it)."""
    left, top, right, bottom = (round(v) for v in box)
    crop = img.crop((left, top, right, bottom))
    r, g, b = ImageChops.difference(crop, Image.new("RGB", crop.size, PAPER)).split()
    hist = ImageChops.add(ImageChops.add(r, g), b).histogram()
    return sum(hist[151:]) / (crop.width * crop.height)


def _at(img: Image.Image, left: float, top: float, u: float, dx: float, dy: float) -> bool:
    """Whether the point ``dx``, ``dy`` units from a mark's head corner is inked."""
    pixel = img.getpixel((round(left + dx * u), round(top + dy * u)))
    assert isinstance(pixel, tuple) and len(pixel) == 3
    return _ink((pixel[0], pixel[1], pixel[2]))


def _robots(layout: Layout) -> list[tuple[TextEntry, float, float]]:
    """Every mark of the unturned entries: (entry, its pen's x, the line's top)."""
    found = []
    for e in layout.entries:
        if e.angle:
            continue
        for i, line in enumerate(e.lines):
            x = float(e.xy[0])
            for piece in pieces(line):
                if piece == ROBOT:
                    found.append((e, x, float(e.xy[1] + i * e.line_height)))
                x += text_width(piece, e.size, e.bold)
    return found


def test_computer_players_get_a_robot_drawn_not_an_empty_box() -> None:
    layout = sheet_layout(load_game("picture_robots4.json"))
    img = draw_layout(layout).convert("RGB")
    marks = _robots(layout)
    # the two names under and beside the sheet are turned or not; labels and settlement
    assert {e.kind for e, _, _ in marks} == {"name", "label", "settlement"}
    assert len(marks) >= 8
    for e, x, top in marks:
        u = _CAP * e.size / 10
        cap_top = top + font_of(e.size, e.bold).getmetrics()[0] - 10 * u
        left = x + u

        spots = {
            name: _at(img, left, cap_top, u, dx, dy)
            for name, (dx, dy) in {
                "forehead": (6, 2),
                "left cheek": (2, 8),
                "right cheek": (10, 8),
                "left eye": (4.1, 4.1),
                "right eye": (7.9, 4.1),
                "mouth": (6, 7.6),
                "antenna": (6, -1.5),
            }.items()
        }
        # a filled head with both eyes and the mouth cut out, an antenna above it
        # (DejaVu's empty box has no ink inside at all)
        holes = {"left eye", "right eye", "mouth"}
        assert spots == {name: name not in holes for name in spots}, (e.kind, e.text, spots)
        inked = _inked(img, (left, cap_top, left + 12 * u, cap_top + 10 * u))
        assert inked > 0.45, f"{inked:.0%} ink in the mark of {e.text!r}"
    # the turned name is drawn the same way: its tile holds as much ink
    turned = next(e for e in layout.of_kind("name") if e.angle and ROBOT in e.text)
    x0, y0, x1, _ = turned.bbox
    assert _inked(img, (x0, y0, x1, y0 + robot_advance(turned.size))) > 0.3


def test_every_players_pulka_and_gora_are_one_size() -> None:
    for case in CASES:
        layout = sheet_layout(case.game(), case.lang, width=case.width)
        for kind in ("pulka", "gora"):
            sizes = {e.size for e in layout.of_kind(kind)}
            assert len(sizes) <= 1, f"{case.name}: {kind} in sizes {sorted(sizes)}"
    # a long gora in a narrow cell makes the others smaller, not only itself
    layout = sheet_layout(load_game("picture_marathon4.json"))
    assert {e.size for e in layout.of_kind("gora")} == {28}


def test_a_label_too_wide_for_its_column_is_broken_between_words() -> None:
    size = 30
    assert fit_label_lines("→ Вера", 200, size) == "→ Вера"
    assert fit_label_lines(f"→ {ROBOT} Ольга", 116, size) == f"→ {ROBOT}\nОльга"
    assert fit_label_lines("→ Остап Бендер", 140, size) == "→ Остап\nБендер"
    assert fit_label_lines("→ Остап Бендер", 130, size, 3) == "→\nОстап\nБендер"
    assert fit_label_lines("→ Мария", 116, size) == "→\nМария"
    # too long for the lines it may take: only the last one is cut
    assert fit_label_lines("→ Остап Бендер", 130, size) == "→\nОстап…"
    assert fit_label_lines("→ Константин Константинопольский", 116, size) == "→\nКонс…"
    # one line (a row, not a column): cut on it
    cut = fit_label_lines("→ Константин Константинопольский", 116, size, 1)
    assert cut == "→ Ко…" and text_width(cut, size) <= 116
    layout = sheet_layout(load_game("picture_robots4.json"))
    labels = {(e.seat, e.target): e.text for e in layout.of_kind("label")}
    assert labels[(3, 1)] == f"→ {ROBOT}\nПётр"  # Гена's column on the left
    assert labels[(0, 2)] == f"→ {ROBOT} Ольга"  # Вера's top row has the room


def test_the_picture_marks_robots_in_every_language() -> None:
    record = load_game("picture_robots4.json")
    for lang in ("ru", "en"):
        layout = sheet_layout(record, lang, width=640)
        assert _robots(layout)
        assert isinstance(draw_layout(layout), Image.Image)
