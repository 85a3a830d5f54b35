"""The pulka picture (bot/render/picture).

Sheets of 3 and 4 players at several stages, finished and stopped games are drawn
and compared with the reference images in tests/images within a small tolerance;
the layout's text entries are checked against the sheet's numbers, and every piece
of text must stay inside its cell and inside the picture.

Regenerate the references after an intended change of the drawing with
``python -m tests.test_sheet_picture --regen`` (or ``PICTURE_REGEN=1 pytest
tests/test_sheet_picture.py``) and look at the new images before checking them in.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tracemalloc
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops

from bot.preferans.game import Game
from bot.preferans.scoring import Sheet
from bot.render.picture.draw import draw_layout, render_png
from bot.render.picture.fonts import FONT_DIR, fit_sequence, text_width
from bot.render.picture.layout import sheet_layout
from bot.render.picture.model import INK, INKS, PAPER, Layout, TextEntry
from bot.render.picture.png import STEPS, encode_png, palette_of
from bot.render.picture.totals import running_totals, sequence_text

ROOT = Path(__file__).resolve().parents[2]
RECORDS = ROOT / "tests" / "records"
IMAGES = ROOT / "tests" / "images"

MAX_MEAN_DIFF = 1.0
"""Mean absolute difference per channel (0-255) allowed against a reference."""
MAX_BAD_PIXELS = 0.005
"""Share of pixels allowed to differ by more than :data:`BAD_PIXEL` in some channel."""
BAD_PIXEL = 64


@dataclass(frozen=True)
class Case:
    """One reference picture: a record, how many of its deals, language and width."""

    name: str
    record: str
    deals: int | None = None
    lang: str = "ru"
    width: int = 1000

    def game(self) -> Game:
        return load_game(self.record, self.deals)

    @property
    def reference(self) -> Path:
        return IMAGES / f"sheet_{self.name}.png"


CASES = [
    Case("sochi3_deal3", "picture_sochi3.json", deals=3),
    Case("sochi3_deal6", "picture_sochi3.json", deals=6),
    Case("sochi3_end", "picture_sochi3.json"),
    Case("rostov4_deal2", "picture_rostov4.json", deals=2),
    Case("rostov4_mid", "picture_rostov4.json"),
    Case("leningrad4_end", "picture_leningrad4.json"),
    Case("stopped3_en", "picture_stopped3.json", lang="en", width=800),
    Case("long3", "picture_long.json"),
    Case("marathon3", "picture_marathon3.json"),
    Case("marathon4", "picture_marathon4.json"),
    Case("robots4", "picture_robots4.json"),
]
CASE_IDS = [c.name for c in CASES]


def load_record(name: str, deals: int | None = None) -> dict[str, Any]:
    with open(RECORDS / name, encoding="utf-8") as fh:
        data: dict[str, Any] = json.load(fh)
    if deals is not None:
        data["deals"] = data["deals"][:deals]
        data["stopped"] = False
    return data


def load_game(name: str, deals: int | None = None) -> Game:
    return Game.from_record(load_record(name, deals))


@pytest.fixture(scope="module")
def layouts() -> dict[str, tuple[Game, Layout]]:
    out = {}
    for case in CASES:
        game = case.game()
        out[case.name] = (game, sheet_layout(game, case.lang, width=case.width))
    return out


# ----------------------------------------------------------------------------- images


def image_difference(actual: Image.Image, expected: Image.Image) -> tuple[float, float]:
    """Mean absolute channel difference and the share of pixels off by more than 64."""
    a, e = actual.convert("RGB"), expected.convert("RGB")
    diff = ImageChops.difference(a, e)
    hist = diff.histogram()  # 3 × 256 buckets
    values = a.width * a.height * 3
    mean = sum((i % 256) * count for i, count in enumerate(hist)) / values
    r, g, b = diff.split()
    worst = ImageChops.lighter(ImageChops.lighter(r, g), b)
    bad = sum(worst.histogram()[BAD_PIXEL + 1 :])
    return mean, bad / (a.width * a.height)


def regenerate() -> list[Path]:
    """Write every reference image again."""
    IMAGES.mkdir(parents=True, exist_ok=True)
    written = []
    for case in CASES:
        case.reference.write_bytes(render_png(case.game(), case.lang, width=case.width))
        written.append(case.reference)
    return written


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_matches_reference_image(case: Case, tmp_path: Path) -> None:
    png = render_png(case.game(), case.lang, width=case.width)
    if os.environ.get("PICTURE_REGEN"):
        IMAGES.mkdir(parents=True, exist_ok=True)
        case.reference.write_bytes(png)
    if not case.reference.exists():
        pytest.fail(f"{case.reference} is missing: run python -m tests.test_sheet_picture --regen")
    actual = Image.open(io.BytesIO(png))
    expected = Image.open(case.reference)
    assert actual.size == expected.size, f"{case.name}: size {actual.size} != {expected.size}"
    mean, bad = image_difference(actual, expected)
    if mean >= MAX_MEAN_DIFF or bad >= MAX_BAD_PIXELS:
        out = tmp_path / f"sheet_{case.name}.png"
        out.write_bytes(png)
        pytest.fail(
            f"{case.name}: mean difference {mean:.3f} (max {MAX_MEAN_DIFF}), "
            f"{bad:.3%} pixels off by more than {BAD_PIXEL} (max {MAX_BAD_PIXELS:.1%}); "
            f"the new picture is {out}"
        )


def test_png_is_deterministic_and_sized() -> None:
    game = load_game("picture_rostov4.json")
    first = render_png(game)
    assert first == render_png(game)
    assert first.startswith(b"\x89PNG\r\n\x1a\n")
    img = Image.open(io.BytesIO(first))
    layout = sheet_layout(game)
    assert img.size == (1000, layout.height)
    assert Image.open(io.BytesIO(render_png(game, width=640))).width == 640


def test_drawing_uses_the_layout() -> None:
    game = load_game("picture_sochi3.json")
    layout = sheet_layout(game)
    img = draw_layout(layout)
    paper = img.getpixel((1, 1))
    for entry in layout.of_kind("pulka", "gora", "whists", "name"):
        x0, y0, x1, y1 = entry.bbox
        crop = img.crop((x0, y0, x1, y1))
        colours = crop.getcolors(maxcolors=1 << 16) or []
        assert any(c != paper for _, c in colours), f"nothing drawn for {entry.text!r}"


# ----------------------------------------------------------------------------- text vs sheet


def parse_total(token: str) -> Fraction:
    return Fraction(token.replace(",", "."))


def written_totals(entry: TextEntry) -> tuple[bool, list[Fraction]]:
    """Whether earlier totals were left out, and the totals the entry shows."""
    text = entry.flat
    elided = text.startswith("…")
    tokens = text.removeprefix("…").split(".")
    assert all(tokens), f"empty total in {entry.text!r}"
    return elided, [parse_total(tok) for tok in tokens]


def sheets_of(game: Game) -> list[Sheet]:
    sheets = [game.start] + [d.sheet for d in game.finished_deals]
    if game.over:
        sheets.append(game.sheet)
    return sheets


def expected_totals(values: list[Fraction]) -> list[Fraction]:
    out: list[Fraction] = []
    last = Fraction(0)
    for v in values:
        if v != last:
            out.append(v)
            last = v
    return out


def close(a: Fraction, b: Fraction) -> bool:
    return abs(a - b) <= Fraction(1, 200)


def check_entry(
    layout: Layout, kind: str, seat: int, target: int | None, values: list[Fraction]
) -> None:
    entry = layout.entry(kind, seat, target)
    wanted = expected_totals(values)
    final = values[-1]
    if entry is None:
        assert final == 0 and not wanted, f"{kind} of seat {seat} → {target}: missing"
        return
    elided, shown = written_totals(entry)
    assert close(shown[-1], final), f"{kind} {seat}→{target}: {entry.text!r} ends not in {final}"
    assert len(shown) <= len(wanted)
    tail = wanted[len(wanted) - len(shown) :]
    assert all(close(a, b) for a, b in zip(shown, tail, strict=True)), (entry.text, wanted)
    assert elided == (len(shown) < len(wanted))
    for token in entry.flat.removeprefix("…").split("."):
        whole, _, cents = token.partition(",")
        assert cents == "" or len(cents) == 2, f"fractions have two decimals: {token}"


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_entries_are_the_sheet_numbers(case: Case, layouts: dict[str, tuple[Game, Layout]]) -> None:
    game, layout = layouts[case.name]
    sheets = sheets_of(game)
    n = game.players
    final = game.sheet
    for seat in range(n):
        check_entry(layout, "pulka", seat, None, [s.pulka[seat] for s in sheets])
        check_entry(layout, "gora", seat, None, [s.gora[seat] for s in sheets])
        for target in range(n):
            if target != seat:
                check_entry(
                    layout, "whists", seat, target, [s.whists[seat][target] for s in sheets]
                )
        # The last total of every line is the number on the sheet now.
        for kind, value in (("pulka", final.pulka[seat]), ("gora", final.gora[seat])):
            entry = layout.entry(kind, seat)
            if entry is not None:
                assert close(written_totals(entry)[1][-1], value)
    kinds = {e.kind for e in layout.entries}
    assert {"title", "name", "convention", "size", "label"} <= kinds
    assert not any(e.crossed for e in layout.entries)


def test_sochi_running_entries_read_like_paper() -> None:
    layout = sheet_layout(load_game("picture_sochi3.json"))
    texts = {(e.kind, e.seat, e.target): e.flat for e in layout.of_kind("pulka", "gora", "whists")}
    assert texts == {
        ("pulka", 0, None): "1.7.9.10",
        ("whists", 0, 2): "28.32.62.70",
        ("pulka", 1, None): "2.10",
        ("gora", 1, None): "4",
        ("whists", 1, 0): "12.32.36",
        ("whists", 1, 2): "8.12",
        ("pulka", 2, None): "2.5.7.10",
        ("gora", 2, None): "2.10.16.11",  # the last 9♠ closed everything: 5 off the gora
        ("whists", 2, 0): "8",
        ("whists", 2, 1): "6",
    }
    mid = sheet_layout(load_game("picture_sochi3.json", 3))
    gora = mid.entry("gora", 2)
    assert gora is not None and gora.flat == "2.10.16"
    assert mid.entry("whists", 2, 0) is None  # Вера has written nothing on Анна yet


def test_title_centre_and_status() -> None:
    game = load_game("picture_sochi3.json", 3)
    layout = sheet_layout(game)
    (title,) = layout.of_kind("title")
    assert "Сочинка" in title.text and "10" in title.text and "3" in title.text
    assert not layout.of_kind("status", "settlement", "settlement_title")
    (conv,) = layout.of_kind("convention")
    (size,) = layout.of_kind("size")
    assert conv.text == "Сочинка" and size.text == "10"
    en = sheet_layout(load_game("picture_leningrad4.json"), "en")
    (title,) = en.of_kind("title")
    assert title.text == "Leningrad, pulka to 10, deals: 7"
    (status,) = en.of_kind("status")
    assert status.text == "The pulka is closed."
    stopped = sheet_layout(load_game("picture_stopped3.json"))
    (status,) = stopped.of_kind("status")
    assert status.text == "Игра остановлена досрочно."


def settlement_rows(layout: Layout) -> list[tuple[str, str, int]]:
    rows = layout.of_kind("settlement")
    assert len(rows) % 2 == 0
    return [(rows[k].text, rows[k + 1].text, rows[k].seat or 0) for k in range(0, len(rows), 2)]


@pytest.mark.parametrize(
    ("record", "lang"),
    [
        ("picture_sochi3.json", "ru"),
        ("picture_leningrad4.json", "ru"),
        ("picture_stopped3.json", "ru"),
        ("picture_stopped3.json", "en"),
    ],
)
def test_settlement_winner_first(record: str, lang: str) -> None:
    game = load_game(record)
    settlement = game.settlement()
    assert settlement is not None
    layout = sheet_layout(game, lang)
    rows = settlement_rows(layout)
    assert len(rows) == game.players
    assert [seat for _, _, seat in rows] == sorted(
        range(game.players), key=lambda s: (-settlement[s], s)
    )
    for place, (label, value, seat) in enumerate(rows, start=1):
        assert label.startswith(f"{place}. ")
        number = value.replace(",", ".") if lang == "ru" else value
        assert close(Fraction(number), settlement[seat])
        assert (value.startswith("+")) == (settlement[seat] > 0)
    if record == "picture_stopped3.json":
        values = [value for _, value, _ in rows]
        assert values == (
            ["+17,33", "-8,67", "-8,67"] if lang == "ru" else ["+17.33", "-8.67", "-8.67"]
        )


def test_no_settlement_while_playing() -> None:
    layout = sheet_layout(load_game("picture_rostov4.json"))
    assert not layout.of_kind("settlement", "settlement_title", "status")


# ----------------------------------------------------------------------------- names


def test_cyrillic_and_latin_names() -> None:
    layout = sheet_layout(load_game("picture_rostov4.json"))
    names = {e.seat: e.text for e in layout.of_kind("name")}
    assert names == {0: "Alice", 1: "Борис", 2: "Ivan", 3: "Гена"}
    labels = {(e.seat, e.target): e.text for e in layout.of_kind("label")}
    assert labels[(0, 1)] == "→ Борис"
    assert labels[(1, 3)] == "→ Гена"
    assert len(labels) == 4 * 3


def test_long_names_are_shortened() -> None:
    game = load_game("picture_long.json")
    layout = sheet_layout(game)
    names = {e.seat: e.text for e in layout.of_kind("name")}
    for seat, full in enumerate(game.names):
        shown = names[seat]
        if len(full) > 28:
            assert shown.endswith("…") and full.startswith(shown[:-1])
            assert len(shown) <= 28
        else:
            assert shown == full
    assert names[2] == "Ёж"
    for label in layout.of_kind("label"):
        assert label.text.startswith("→")
        short = " ".join(label.lines).removeprefix("→ ")
        full = game.names[label.target or 0]
        assert short == full or (short.endswith("…") and full.startswith(short[:-1]))


def test_large_numbers_are_written_whole() -> None:
    layout = sheet_layout(load_game("picture_long.json"))
    gora = layout.entry("gora", 0)
    assert gora is not None and gora.flat == "12345,50"
    whists = layout.entry("whists", 2, 1)
    assert whists is not None and whists.flat == "1234567.1234573"
    pulka = layout.entry("pulka", 1)
    assert pulka is not None and pulka.flat == "7,50.9,50"


# ----------------------------------------------------------------------------- fitting


def inside(inner: tuple[int, int, int, int], outer: tuple[int, int, int, int]) -> bool:
    return (
        outer[0] <= inner[0]
        and outer[1] <= inner[1]
        and inner[2] <= outer[2]
        and inner[3] <= outer[3]
    )


def in_polygon(x: float, y: float, poly: tuple[tuple[int, int], ...], slack: float = 1.5) -> bool:
    """Point in a convex or L-shaped polygon, with ``slack`` pixels on its edges."""
    hit = False
    for (x0, y0), (x1, y1) in zip(poly, poly[1:] + poly[:1], strict=True):
        # distance to the edge within the slack counts as inside
        dx, dy = x1 - x0, y1 - y0
        length2 = dx * dx + dy * dy
        k = max(0.0, min(1.0, ((x - x0) * dx + (y - y0) * dy) / length2))
        if (x - x0 - k * dx) ** 2 + (y - y0 - k * dy) ** 2 <= slack * slack:
            return True
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * dx / dy:
            hit = not hit
    return hit


def check_fits(layout: Layout) -> None:
    frame = (0, 0, layout.width, layout.height)
    texts = [e for e in layout.entries if e.text]
    for e in texts:
        assert inside(e.bbox, frame), f"{e.kind} {e.text!r} leaves the picture: {e.bbox}"
        if e.box is not None:
            assert inside(e.bbox, e.box), f"{e.kind} {e.text!r} leaves its cell {e.box}"
            assert inside(e.box, layout.sheet_box)
            poly = layout.sectors[e.seat or 0]
            x0, y0, x1, y1 = e.bbox
            for x, y in ((x0, y0), (x1, y0), (x0, y1), (x1, y1)):
                assert in_polygon(x, y, poly), f"{e.text!r} leaves the sector of seat {e.seat}"
    for a, b in combinations(texts, 2):
        overlap = (
            a.bbox[0] < b.bbox[2]
            and b.bbox[0] < a.bbox[2]
            and a.bbox[1] < b.bbox[3]
            and b.bbox[1] < a.bbox[3]
        )
        assert not overlap, f"{a.kind} {a.text!r} overlaps {b.kind} {b.text!r}"


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_text_fits(case: Case, layouts: dict[str, tuple[Game, Layout]]) -> None:
    check_fits(layouts[case.name][1])


def huge_record(players: int) -> dict[str, Any]:
    names = [
        "Александр Сергеевич Пушкин-Задунайский",
        "Maximilian-Alexander von Hohenzollern-Sigmaringen",
        "Ёж",
        "Констанция Вольдемаровна Шереметева",
    ][:players]
    big = [12345.5, 99999, 1234567.25, 7]
    return {
        "format": "preferans-record/1",
        "rules": {"convention": "sochi", "pulka": 500},
        "players": names,
        "start": {
            "pulka": big[:players],
            "gora": [-12345.5, 12345.5, 0, 1234567.25][:players],
            "whists": [
                [0 if i == j else big[(i + j) % 4] + i for j in range(players)]
                for i in range(players)
            ],
        },
        "deals": [],
        "stopped": True,
    }


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("width", [1000, 700])
def test_long_names_and_large_numbers_fit(players: int, width: int) -> None:
    game = Game.from_record(huge_record(players))
    layout = sheet_layout(game, width=width)
    check_fits(layout)
    for e in layout.of_kind("pulka", "gora", "whists"):
        assert "…" not in e.flat or e.flat.startswith("…")
    sheets = sheets_of(game)
    for seat in range(players):
        check_entry(layout, "gora", seat, None, [s.gora[seat] for s in sheets])
        check_entry(layout, "pulka", seat, None, [s.pulka[seat] for s in sheets])


def test_narrow_picture_of_a_long_game() -> None:
    game = load_game("picture_marathon3.json")
    layout = sheet_layout(game, width=600)
    check_fits(layout)
    sheets = sheets_of(game)
    for seat in range(3):
        check_entry(layout, "gora", seat, None, [s.gora[seat] for s in sheets])
        for target in range(3):
            if target != seat:
                values = [s.whists[seat][target] for s in sheets]
                check_entry(layout, "whists", seat, target, values)


def test_long_entries_keep_the_latest_totals() -> None:
    totals = [Fraction(k * 7, 2) for k in range(1, 61)]
    tokens = sequence_text(totals)
    assert tokens[:2] == ["3,50.", "7."] and tokens[-1] == "210"
    text, size = fit_sequence(tokens, 150, 50, [19, 17, 15, 13, 11, 9])
    assert size == 19 and text.startswith("…") and text.endswith(".206,50.210")
    lines = text.split("\n")
    assert len(lines) == 2
    assert all(text_width(line, size) <= 150 for line in lines)
    shown = text.replace("\n", "").removeprefix("…").split(".")
    assert shown == [t.removesuffix(".") for t in tokens[-len(shown) :]]
    # Too narrow for the big sizes: the whole entry in a small size comes first.
    text, size = fit_sequence(["1234567,25.", "1235553,25"], 90, 60, [19, 17, 15, 13, 11, 9])
    assert text == "1234567,25.\n1235553,25" and size == 13
    assert running_totals([Fraction(0), Fraction(2), Fraction(2), Fraction(0)]) == [2, 0]


def test_rejects_tiny_width() -> None:
    with pytest.raises(ValueError):
        sheet_layout(load_game("picture_sochi3.json"), width=200)


# ----------------------------------------------------------------------------- packaging


def test_font_ships_with_licence() -> None:
    for name in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf"):
        path = FONT_DIR / name
        assert path.is_file() and path.stat().st_size < 1_000_000
    licence = (FONT_DIR / "LICENSE").read_text(encoding="utf-8")
    assert "Bitstream Vera" in licence and "Arev" in licence
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"fonts/*.ttf", "fonts/LICENSE"' in pyproject


def test_replay_writes_png_and_prints_json(tmp_path: Path) -> None:
    out = tmp_path / "sheet.png"
    record = RECORDS / "picture_sochi3.json"
    proc = subprocess.run(
        [sys.executable, "-m", "bot.replay", str(record), "--png", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["players"] == ["Анна", "Борис", "Вера"] and data["finished"] is True
    img = Image.open(out)
    img.load()
    assert img.format == "PNG" and img.width == 1000
    assert out.read_bytes() == render_png(load_game("picture_sochi3.json"))


def main(argv: list[str]) -> int:
    if argv == ["--regen"]:
        for path in regenerate():
            print(path.relative_to(ROOT))
        return 0
    print("usage: python -m tests.test_sheet_picture --regen", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))


def test_png_is_indexed_and_reads_back_as_drawn() -> None:
    """Our own PNG writer: a standard indexed-colour PNG whose pixels Pillow reads back
    within a few levels of the drawing (the shades of the palette are that close)."""
    img = draw_layout(sheet_layout(load_game("picture_long.json")))
    data = encode_png(img, palette_of(PAPER, INKS))
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    back = Image.open(io.BytesIO(data))
    back.load()
    assert back.format == "PNG" and back.mode == "P" and back.size == img.size
    histogram = ImageChops.difference(back.convert("RGB"), img).histogram()  # 3 x 256 levels
    assert max(level % 256 for level, count in enumerate(histogram) if count) <= 8
    # a sheet's every pixel is a shade of the paper and one ink: the PNG is far smaller
    # than the drawing's RGB bytes
    assert len(data) < 3 * img.width * img.height // 40
    odd = Image.new("RGBA", (3, 2), (*INK, 255))  # converted to RGB first
    assert (
        Image.open(io.BytesIO(encode_png(odd, palette_of(PAPER, INKS)))).convert("RGB").tobytes()
        == bytes(INK) * 6
    )


def test_every_colour_drawn_is_in_the_palette() -> None:
    """A colour the layout uses must be one of the inks the palette is made of, or the
    PNG would show it as the nearest shade of another ink."""
    palette = palette_of(PAPER, INKS)
    for case in CASES:
        layout = sheet_layout(case.game(), case.lang, width=case.width)
        drawn = {e.color for e in layout.entries} | {x.color for x in layout.lines + layout.circles}
        assert drawn <= set(INKS), case.name
    assert len(palette) == 1 + STEPS * len(INKS) <= 256
    assert palette[0] == PAPER and palette[STEPS] == INKS[0] and palette[-1] == INKS[-1]


def test_png_encoding_copies_a_band_of_rows_at_a_time() -> None:
    """The writer never holds a copy of the whole picture's bytes: each picture is drawn
    while the bot serves its tables, and each copy was ~3 MB of a 1000 x 1000 sheet."""
    img = draw_layout(sheet_layout(load_game("picture_long.json")))
    whole = 3 * img.width * img.height
    tracemalloc.start()
    try:
        encode_png(img, palette_of(PAPER, INKS))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert whole > 2_500_000
    assert peak < whole // 2  # (zlib's own state is ~0.3 MB)


def test_a_sheet_measures_each_text_once() -> None:
    """A sheet's texts are measured with FreeType once: laying out the same sheet again
    (the next deal's, mostly the same entries and names) measures nothing new."""
    from bot.render.picture import fonts

    game = load_game("picture_sochi3.json")
    fonts.text_width.cache_clear()
    sheet_layout(game)
    measured = fonts.text_width.cache_info().misses
    sheet_layout(game)
    assert measured > 0 and fonts.text_width.cache_info().misses == measured
