"""Deal results in words: plural agreement, no grammatical gender, the decimal comma,
what was written on the sheet, in seat order."""

from __future__ import annotations

import random
import re
from fractions import Fraction

import pytest

from bot.core.model import Player, Table, TableSettings
from bot.preferans.cards import Suit
from bot.preferans.contracts import Contract
from bot.preferans.game import Game
from bot.preferans.outcome import DealKind, DealOutcome, WhistAnswer
from bot.preferans.scoring import Sheet
from bot.preferans.seats import Seat
from bot.render.i18n import LANGS, catalogue
from bot.render.results import result_text, sheet_before, sheet_entries
from bot.render.sheet_text import sheet_table

NAMES = ["Борис", "Вера", "Гена", "Даша"]

# Nouns and adjectives of the catalogue that end like a past-tense verb.
NOT_VERBS = {"стол", "стола", "правила"}


def _table(players: int, convention: str = "sochi", lang: str = "ru") -> Table:
    settings = TableSettings(players=players, convention=convention, lang=lang)
    table = Table(id=1, chat_id=-1, owner_id=1, settings=settings)
    table.seats = [Player(i + 1, NAMES[i], lang) for i in range(players)]
    return table


def _random_game(seed: int, players: int, convention: str) -> tuple[Table, Game]:
    table = _table(players, convention)
    game = Game(table.settings.rules(), NAMES[:players])
    rng = random.Random(seed)
    while not game.over and len(game.finished_deals) < 40:
        deal = game.start_deal(rng)
        while not deal.is_over:
            game.apply(rng.choice(deal.legal_actions()))
    return table, game


def _ru_tricks_form(k: int) -> str:
    """The Russian form of "взятка" after ``k``, by the grammar book (not by CLDR)."""
    if k % 10 == 1 and k % 100 != 11:
        return "взятка"
    if 2 <= k % 10 <= 4 and not 12 <= k % 100 <= 14:
        return "взятки"
    return "взяток"


def test_no_russian_text_needs_the_players_gender() -> None:
    """Telegram does not tell a player's gender: no past-tense verb in -л/-ла, no "(а)",
    no "его"/"её" standing for a player."""
    for key, entry in catalogue("ru").entries.items():
        for form in entry.forms:
            assert "(а)" not in form, key
            assert not re.search(r"\b(Его|Её|его место|её место)\b", form), key
            for word in re.findall(r"[А-Яа-яЁё]+", form):
                if word.lower() in NOT_VERBS:
                    continue
                assert not re.search(r"(л|ла)$", word), f"{key}: {word!r} in {form!r}"


@pytest.mark.parametrize(
    ("players", "convention"), [(3, "sochi"), (4, "leningrad"), (3, "rostov"), (4, "sochi")]
)
def test_result_lines_agree_with_their_numbers(players: int, convention: str) -> None:
    seen: set[str] = set()
    for seed in range(6):
        table, game = _random_game(seed, players, convention)
        for n, finished in enumerate(game.finished_deals, start=1):
            text = result_text(table, finished, n, "ru", sheet_before(game, finished))
            for count, word in re.findall(r"(\d+) (взят[а-я]*)", text):
                assert word == _ru_tricks_form(int(count)), text
                seen.add(word)
            assert not re.search(r"\d\.\d", text), text  # the Russian decimal comma
            assert not re.search(r"\b(сыграл|выиграл|не сыграл)\b", text), text
            assert text.startswith(f"Сдача {n}: "), text
            english = result_text(table, finished, n, "en", sheet_before(game, finished))
            for count, word in re.findall(r"(\d+) (tricks?)\b", english):
                assert word == ("trick" if count == "1" else "tricks"), english
    assert seen >= {"взятки", "взяток"}


def _outcome(level: int, tricks: tuple[int, ...], dealer: Seat = Seat.S0) -> DealOutcome:
    return DealOutcome(
        players=3,
        dealer=dealer,
        kind=DealKind.GAME,
        declarer=Seat(0),
        contract=Contract(level, Suit.HEARTS),
        whists={Seat(1): WhistAnswer.WHIST, Seat(2): WhistAnswer.PASS},
        tricks=tricks,
    )


def test_every_trick_count_and_undertrick_in_natural_words() -> None:
    table = _table(3)
    game = Game(table.settings.rules(), NAMES[:3])
    outcomes = [(6, 1), (6, 2), (7, 5), (8, 0), (10, 10), (7, 7), (9, 8)]
    texts = []
    for level, k in outcomes:
        rest = 10 - k
        finished_sheet = game.add_result(_outcome(level, (k, rest, 0), game.next_dealer()))
        finished = game.finished_deals[-1]
        assert finished.sheet == finished_sheet
        texts.append(result_text(table, finished, len(game.finished_deals), "ru"))
    assert "1 взятка, без пяти" in texts[0]
    assert "2 взятки, без четырёх" in texts[1]
    assert "5 взяток, без двух" in texts[2]
    assert "0 взяток, без восьми" in texts[3]
    assert "10 взяток, сыграно" in texts[4]
    assert "Борис — 7\u202f♥️, 7 взяток, сыграно." in texts[5]
    assert texts[6].endswith("8 взяток, без одной.")


def test_the_result_says_what_was_written_in_seat_order() -> None:
    table = _table(3)
    before = Sheet.empty(3)
    after = Sheet((4, 0, 0), (0, 0, Fraction(1, 3)), ((0, 0, 0), (12, 0, 0), (0, 0, 0)))  # type: ignore[arg-type]  # ints: Sheet makes them Fractions
    assert (
        sheet_entries(table, before, after, "ru")
        == "Борис — пуля +4; Вера — висты → Борис +12; Гена — гора +0,33"
    )
    assert (
        sheet_entries(table, before, after, "en")
        == "Борис — pulka +4; Вера — whists → Борис +12; Гена — gora +0.33"
    )
    game = Game(table.settings.rules(), NAMES[:3])
    game.add_result(_outcome(7, (7, 2, 1)))
    finished = game.finished_deals[-1]
    text = result_text(table, finished, 1, "ru", sheet_before(game, finished))
    line, written = text.split("\n")
    assert line == "Сдача 1: Борис — 7\u202f♥️, 7 взяток, сыграно."
    assert written.startswith("Запись: Борис — пуля +4; Вера — висты → Борис +")


def test_sheet_numbers_use_the_languages_decimal_separator() -> None:
    sheet = Sheet((Fraction(1, 3), 0, 0), (0, 0, 0), ((0, 0, 0), (0, 0, 0), (0, 0, 0)))  # type: ignore[arg-type]  # ints: Sheet makes them Fractions
    settlement = (Fraction(95333, 300), Fraction(-1), Fraction(-95033, 300))
    ru = sheet_table(NAMES[:3], sheet, "ru", settlement)
    en = sheet_table(NAMES[:3], sheet, "en", settlement)
    assert "0,33" in ru and "+317,78" in ru and "." not in ru
    assert "0.33" in en and "+317.78" in en
    assert set(LANGS) == {"ru", "en"}


def test_a_finished_deal_is_reviewed_in_full_and_a_live_one_never() -> None:
    from bot.render.table import review_text

    for players, seed in ((3, 1), (4, 2)):
        table = _table(players)
        game = Game(table.settings.rules(), NAMES[:players])
        rng = random.Random(seed)
        deal = game.start_deal(rng)
        with pytest.raises(ValueError):
            review_text(table, deal, "ru")
        while not deal.is_over:
            game.apply(rng.choice(deal.legal_actions()))
        text = review_text(table, deal, "ru")
        assert text.startswith("<b>Расклад сдачи</b>")
        record = deal.to_json()
        # every card of the deal: 30 in the hands, 2 in the talon
        ranks = sum(len(h) for h in record["hands"]) + len(record["talon"])
        assert ranks == 32
        for seat, hand in enumerate(record["hands"]):
            if hand:
                assert NAMES[seat] in text
        assert "Прикуп:" in text
        assert ("Снос:" in text) == bool(deal.discard)
        tricks = deal.outcome().tricks
        if tricks is not None:
            first = next(s for s, h in enumerate(record["hands"]) if h)
            assert f"{NAMES[first]}: {tricks[first]} взят" in text
