"""``/rules`` states the numbers of the table's rules, read from the convention's data."""

from __future__ import annotations

from bot.core.model import TableSettings
from bot.preferans.conventions import rules_numbers
from bot.render.rules import rules_text


def test_the_rules_text_follows_the_presets_data() -> None:
    sochi = rules_text(TableSettings(convention="sochi"), "ru")
    assert "Распасы: 1-2-3 в гору" in sochi and "жлобские" in sochi
    assert "6 → 2, 7 → 4, 8 → 6, 9 → 8, 10 → 10, мизер → 10" in sochi
    leningrad = rules_text(TableSettings(convention="leningrad", pulka=10), "en")
    assert "price × 2 per trick" in leningrad and "a misère 20 per trick" in leningrad
    assert "sum to 30" in leningrad  # 10 × 3 players
    rostov = rules_text(TableSettings(convention="rostov"), "ru")
    assert "взятка стоит 5 в вистах" in rostov and "пишут 10 вистов" in rostov


def test_a_changed_option_changes_the_text() -> None:
    changed = TableSettings(options={"raspasy_prices": (2, 5), "whist_type": "gentleman"})
    text = rules_text(changed, "ru")
    assert "Распасы: 2-5 в гору" in text and "джентльменские" in text
    assert rules_numbers(changed.rules()).raspasy_prices == (2, 5)
