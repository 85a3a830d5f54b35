"""Russian and English texts; ``t(lang, key, **values)`` picks one, Russian by default."""

from __future__ import annotations

from typing import Any

__all__ = ["t", "LANGS", "lang_of"]

LANGS = ("ru", "en")

_TEXTS: dict[str, dict[str, str]] = {
    "ru": {},
    "en": {},
}


def register(key: str, ru: str, en: str) -> None:
    """Add one text in both languages (modules register the texts they use)."""
    _TEXTS["ru"][key] = ru
    _TEXTS["en"][key] = en


def t(lang: str, key: str, **values: Any) -> str:
    """The text ``key`` in ``lang`` (falls back to Russian), formatted with ``values``."""
    table = _TEXTS.get(lang) or _TEXTS["ru"]
    text = table.get(key)
    if text is None:
        text = _TEXTS["ru"][key]
    return text.format(**values) if values else text


def lang_of(code: str | None) -> str:
    """Our language for a Telegram ``language_code``: English for ``en*``, else Russian."""
    return "en" if code and code.lower().startswith("en") else "ru"


for _key, _ru, _en in (
    ("sheet.player", "Игрок", "Player"),
    ("sheet.pulka", "Пуля", "Pulka"),
    ("sheet.gora", "Гора", "Gora"),
    ("sheet.whists_on", "Висты на {name}", "Whists on {name}"),
    ("sheet.result", "Итог", "Result"),
    (
        "sheet.title",
        "{convention}, пуля до {size}, сдач: {deals}",
        "{convention}, pulka to {size}, deals: {deals}",
    ),
    ("sheet.finished", "Пулька закрыта.", "The pulka is closed."),
    ("sheet.stopped", "Игра остановлена досрочно.", "The game was stopped early."),
    ("sheet.settlement", "Расчёт (в вистах):", "Settlement (whists):"),
):
    register(_key, _ru, _en)
