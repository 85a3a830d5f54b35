"""The monospace sheet fits a phone's line (it was 47 characters wide)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from bot.preferans.game import Game
from bot.preferans.scoring import Sheet
from bot.render.i18n import number
from bot.render.sheet_text import LINE, sheet_table, sheet_text, short_names
from tests.render.test_sheet_picture import huge_record, load_game

LONG = [
    "Александр Сергеевич Пушкин-Задунайский",
    "Александр Иванович Герцен",
    "Maximilian-Alexander von Hohenzollern-Sigmaringen",
    "Констанция Вольдемаровна Шереметева",
]


def widest(text: str) -> int:
    return max(len(line) for line in text.split("\n"))


def long_names_record(players: int, scale: int) -> dict[str, Any]:
    """A stopped game of long names with entries of ``scale`` digits."""
    record = huge_record(players)
    record["players"] = LONG[:players]
    big = 10**scale - 1
    record["start"]["pulka"] = [big - k for k in range(players)]
    record["start"]["gora"] = [big * (-1) ** k / 4 for k in range(players)]
    record["start"]["whists"] = [
        [0 if i == j else big - i - j for j in range(players)] for i in range(players)
    ]
    return record


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("scale", [2, 3, 5, 7])
@pytest.mark.parametrize("lang", ["ru", "en"])
def test_long_names_and_big_numbers_fit_a_phone_line(players: int, scale: int, lang: str) -> None:
    game = Game.from_record(long_names_record(players, scale))
    text = sheet_text(game, lang)
    assert widest(text) <= LINE, text
    settlement = game.settlement()
    assert settlement is not None
    table = sheet_table(game.names, game.sheet, lang, settlement)
    assert widest(table) <= LINE
    # Every number of the sheet is there, whatever the shape.
    for seat in range(players):
        assert number(lang, game.sheet.pulka[seat]) in table
        assert number(lang, settlement[seat], signed=True) in table
        for other in range(players):
            if other != seat:
                assert number(lang, game.sheet.whists[seat][other]) in table


@pytest.mark.parametrize("record", ["picture_sochi3.json", "picture_leningrad4.json"])
def test_everyday_sheets_are_two_tables_in_a_phone_line(record: str) -> None:
    game = load_game(record)
    text = sheet_text(game, "ru")
    assert widest(text) <= LINE, text
    lines = text.split("\n")
    head = next(i for i, line in enumerate(lines) if line.startswith("Игрок"))
    assert lines[head].split() == ["Игрок", "Пуля", "Гора", "Итог"]
    whists = lines[head + 1 + game.players]
    assert whists.split()[0] == "Висты" and len(whists.split()) == game.players + 1
    # The names are whole when they fit.
    assert all(any(line.startswith(name) for line in lines) for name in game.names)


def test_names_are_told_apart_when_cut() -> None:
    for width in range(3, 11):
        short = short_names(LONG, width)
        assert len(set(short)) == len(LONG), short
        assert all(len(s) <= width for s in short)
    assert short_names(LONG[:2], 9) == ["АС Пушки…", "АИ Герцен"]
    assert short_names(["Евгений Онегин", "Ленский"], 4) == ["Евге", "Ленс"]
    assert short_names(["Ann", "Ann"], 5) == ["Ann1", "Ann2"]


def test_whists_table_reads_writer_by_target() -> None:
    names = ["Анна", "Борис", "Вера"]
    whists = ((0, 12, Fraction(57, 2)), (36, 0, 8), (0, 6, 0))
    sheet = Sheet((10, 10, 10), (0, 4, 11), whists)  # type: ignore[arg-type]  # ints: Sheet makes them Fractions
    lines = sheet_table(names, sheet, "ru").split("\n")
    assert lines[4].split() == ["Висты", "→Анна", "→Борис", "→Вера"]
    assert lines[5].split() == ["Анна", "·", "12", "28,50"]
    assert lines[6].split() == ["Борис", "36", "·", "8"]


@pytest.mark.parametrize(
    ("record", "lang", "head"),
    [
        ("picture_leningrad4.json", "ru", ["Ленинградка, пуля до 10,", "сдач: 7"]),
        ("picture_sochi3.json", "ru", ["Сочинка, пуля до 10,", "сдач: 9"]),
        ("picture_stopped3.json", "en", ["Sochi, pulka to 20, deals: 4"]),
    ],
)
def test_no_line_is_wider_than_the_table(record: str, lang: str, head: list[str]) -> None:
    """A phone narrow enough for the table only wraps nothing: the title, the status and
    the settlement keep within the table's width, the title broken after a comma."""
    game = load_game(record)
    table = sheet_table(game.names, game.sheet, lang, game.settlement())
    width = widest(table)
    text = sheet_text(game, lang)
    assert widest(text) == width
    assert text.split("\n")[: len(head)] == head
    assert text.split("\n")[len(head)] == table.split("\n")[0]
