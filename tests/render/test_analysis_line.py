"""The analysis line of a deal review (issue 15): natural Russian with plural agreement,
English, the first cards that changed the value, all-pass per player."""

from __future__ import annotations

from bot.core.model import Player, Table, TableSettings
from bot.preferans.analysis import Analysis, Change
from bot.preferans.cards import Seat, parse_card
from bot.preferans.outcome import DealKind
from bot.render.analysis import analysis_line

NAMES = ["Анна", "Борис", "Вера"]


def _table(lang: str) -> Table:
    table = Table(id=1, chat_id=-1, owner_id=1, settings=TableSettings(lang=lang))
    table.seats = [Player(i + 1, NAMES[i], lang) for i in range(3)]
    return table


def _change(trick: int, seat: int, code: str, delta: int) -> Change:
    return Change(trick, Seat(seat), parse_card(code), delta)


def test_a_trick_game_names_the_value_and_the_first_losing_cards() -> None:
    found = Analysis(
        DealKind.GAME,
        Seat(0),
        (7, 2, 1),
        (_change(4, 0, "KS", -1), _change(6, 1, "7H", 1), _change(9, 0, "AD", -1)),
    )
    line = analysis_line(_table("ru"), found, "ru")
    assert line.startswith("🔍 С лучшей игрой: 7 взяток; 4-я взятка: ")
    assert "Анна" in line and "K♠" in line and "→ −1" in line
    assert "6-я взятка: " in line and "→ +1" in line
    assert "9-я" not in line and line.endswith("; …")  # two named, the rest summed up
    en = analysis_line(_table("en"), found, "en")
    assert en.startswith("🔍 With best play: 7 tricks; trick 4: ") and "→ −1" in en


def test_plural_forms_and_a_deal_played_without_loss() -> None:
    for value, words in ((1, "1 взятка"), (2, "2 взятки"), (5, "5 взяток"), (0, "0 взяток")):
        found = Analysis(DealKind.MISERE, Seat(1), (3, value, 7 - value), ())
        line = analysis_line(_table("ru"), found, "ru")
        assert line == f"🔍 С лучшей игрой: {words}; все карты сыграны без потерь"
    found = Analysis(DealKind.GAME, Seat(1), (1, 1, 8), ())
    assert analysis_line(_table("en"), found, "en") == (
        "🔍 With best play: 1 trick; every card kept it"
    )


def test_all_pass_shows_each_players_own_value() -> None:
    found = Analysis(DealKind.ALL_PASS, None, (1, 2, 4), (_change(3, 2, "10C", 1),))
    line = analysis_line(_table("ru"), found, "ru")
    assert line.startswith("🔍 С лучшей игрой (каждый за себя): ")
    assert all(name in line for name in NAMES) and "3-я взятка: " in line
