"""The analysis line of a deal review: whose tricks best play was worth and how many he
took, each change signed for the player reading it, all-pass per player; natural Russian
with plural agreement, and English."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.core.model import Player, Table, TableSettings
from bot.preferans.analysis import Analysis, Change
from bot.preferans.cards import parse_card
from bot.preferans.outcome import DealKind
from bot.preferans.seats import Seat
from bot.render.analysis import analysis_line

NAMES = ["Анна", "Борис", "Вера", "Глеб"]
ANNA, BORIS, VERA, GLEB = map(Seat, range(4))
VS = "\ufe0f"
"""The variation selector after a suit sign (shown as an emoji)."""


def _table(lang: str, players: int = 3) -> Table:
    settings = TableSettings(lang=lang, players=players)
    table = Table(id=1, chat_id=-1, owner_id=1, settings=settings)
    table.seats = [Player(i + 1, NAMES[i], lang) for i in range(players)]
    return table


def _change(trick: int, seat: Seat, code: str, delta: int) -> Change:
    return Change(trick, seat, parse_card(code), delta)


# Anna declares; Boris gives her a trick at trick 4 (a defender's own mistake), she loses
# one at trick 6, and one more at trick 9: she took 6 of the 7 best play was worth.
GAME = Analysis(
    DealKind.GAME,
    ANNA,
    (7, 2, 1),
    (_change(4, BORIS, "KS", 1), _change(6, ANNA, "7H", -1), _change(9, ANNA, "AD", -1)),
    (6, 3, 1),
    None,
)


# Boris declares a misère; Vera lets him off a trick, then he is forced to take one himself.
MISERE = Analysis(
    DealKind.MISERE,
    BORIS,
    (4, 1, 5),
    (_change(2, VERA, "8C", -1), _change(5, BORIS, "QD", 1)),
    (5, 1, 4),
    None,
)
# Four players: Anna deals and sits out; Boris declares and loses a trick.
DEALT = Analysis(
    DealKind.GAME, BORIS, (0, 8, 1, 1), (_change(3, BORIS, "10S", -1),), (0, 7, 2, 1), ANNA
)


@pytest.mark.parametrize(
    ("found", "players", "lang", "reader", "expected"),
    [
        (
            GAME,
            3,
            "ru",
            BORIS,
            "🔍 С лучшей игрой: Анна — 7 взяток (взято 6); "
            f"4-я взятка: Борис K♠{VS} → −1 для вас; 6-я взятка: Анна 7♥{VS} → +1 для вас; …",
        ),
        (
            GAME,
            3,
            "ru",
            ANNA,
            "🔍 С лучшей игрой: Анна — 7 взяток (взято 6); "
            f"4-я взятка: Борис K♠{VS} → +1 для вас; 6-я взятка: Анна 7♥{VS} → −1 для вас; …",
        ),
        (
            GAME,
            3,
            "en",
            VERA,
            "🔍 With best play: Анна — 7 tricks (took 6); "
            f"trick 4: Борис K♠{VS} → −1 for you; trick 6: Анна 7♥{VS} → +1 for you; …",
        ),
        (
            MISERE,
            3,
            "ru",
            BORIS,
            "🔍 С лучшей игрой: Борис — 1 взятка (взято 1); "
            f"2-я взятка: Вера 8♣{VS} → +1 для вас; 5-я взятка: Борис Q♦{VS} → −1 для вас",
        ),
        (
            MISERE,
            3,
            "ru",
            ANNA,
            "🔍 С лучшей игрой: Борис — 1 взятка (взято 1); "
            f"2-я взятка: Вера 8♣{VS} → −1 для вас; 5-я взятка: Борис Q♦{VS} → +1 для вас",
        ),
        (
            DEALT,
            4,
            "ru",
            ANNA,
            "🔍 С лучшей игрой: Борис — 8 взяток (взято 7); "
            f"3-я взятка: Борис 10♠{VS} → −1 для играющего",
        ),
        (
            DEALT,
            4,
            "en",
            ANNA,
            "🔍 With best play: Борис — 8 tricks (took 7); "
            f"trick 3: Борис 10♠{VS} → −1 for the declarer",
        ),
    ],
    ids=[
        "game-defender",
        "game-declarer",
        "game-en",
        "misere-declarer",
        "misere-defender",
        "dealer-out",
        "dealer-out-en",
    ],
)
def test_whose_tricks_and_each_change_signed_for_the_reader(
    found: Analysis, players: int, lang: str, reader: Seat, expected: str
) -> None:
    # Trick game: Boris's card gave Anna a trick (his own mistake: − for him). Misère: the
    # other way round. The sitting-out dealer has no side: he reads it for the declarer.
    assert analysis_line(_table(lang, players), found, lang, reader=reader) == expected


def test_plural_forms_and_a_deal_played_without_loss() -> None:
    for value, words in ((1, "1 взятка"), (2, "2 взятки"), (5, "5 взяток"), (0, "0 взяток")):
        found = Analysis(
            DealKind.MISERE, BORIS, (3, value, 7 - value), (), (3, value, 7 - value), None
        )
        line = analysis_line(_table("ru"), found, "ru", reader=ANNA)
        assert (
            line
            == f"🔍 С лучшей игрой: Борис — {words} (взято {value}); все карты сыграны без потерь"
        )
    found = Analysis(DealKind.GAME, BORIS, (1, 1, 8), (), (1, 1, 8), None)
    assert analysis_line(_table("en"), found, "en", reader=BORIS) == (
        "🔍 With best play: Борис — 1 trick (took 1); every card kept it"
    )


# All-pass: each player's own limit with best play, the other two against him; the tricks
# taken (1, 5, 4) are within them, and a card counts only against its own player.
ALL_PASS = Analysis(
    DealKind.ALL_PASS,
    None,
    (6, 6, 5),
    (_change(3, VERA, "10C", 1), _change(7, BORIS, "AH", 2)),
    (1, 5, 4),
    None,
)


def test_all_pass_shows_each_players_limit_and_what_he_took() -> None:
    assert analysis_line(_table("ru"), ALL_PASS, "ru", reader=BORIS) == (
        "🔍 Распасы: при лучшей своей игре каждый берёт не больше, как бы ни играли двое "
        "других: Анна 6 (взято 1), Борис 6 (взято 5), Вера 5 (взято 4); "
        f"3-я взятка: Вера 10♣{VS} → −1 для себя; 7-я взятка: Борис A♥{VS} → −2 для вас"
    )
    assert analysis_line(_table("en"), ALL_PASS, "en", reader=VERA) == (
        "🔍 All-pass: playing their best, each takes at most this, whatever the other two "
        "play: Анна 6 (took 1), Борис 6 (took 5), Вера 5 (took 4); "
        f"trick 3: Вера 10♣{VS} → −1 for you; trick 7: Борис A♥{VS} → −2 for themselves"
    )


def test_all_pass_with_four_players_leaves_out_the_dealer() -> None:
    found = Analysis(DealKind.ALL_PASS, None, (None, 4, 3, 5), (), (1, 3, 2, 4), ANNA)
    assert analysis_line(_table("ru", 4), found, "ru", reader=ANNA) == (
        "🔍 Распасы: при лучшей своей игре каждый берёт не больше, как бы ни играли двое "
        "других: Борис 4 (взято 3), Вера 3 (взято 2), Глеб 5 (взято 4); "
        "все карты сыграны без потерь"
    )


def test_the_readme_quotes_the_line_as_it_is() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    found = re.search(r'\("(С лучшей игрой: [^"]*)"', readme)
    assert found is not None
    quoted = " ".join(found.group(1).split())  # as one line, not wrapped
    kept = Analysis(DealKind.GAME, ANNA, (7, 2, 1), (_change(4, ANNA, "KS", -1),), (6, 3, 1), None)
    line = analysis_line(_table("ru"), kept, "ru", reader=ANNA)
    assert line.replace(VS, "") == "🔍 " + quoted
