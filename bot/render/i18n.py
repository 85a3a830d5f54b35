"""Russian and English texts from one message catalogue per language.

``t(lang, key, **values)`` is the text ``key`` in ``lang`` (Russian for a language we do
not have) with its named placeholders filled in. An entry that depends on a number has a
form per plural category, chosen by the value it names (``t("ru", "n.tricks", count=21)``
is "21 взятка"); :func:`number` writes a number the way the language does ("318,67").

The catalogues are gettext ``.po`` files shipped with the package
(``bot/render/locales/<lang>/LC_MESSAGES/messages.po``), read with Babel when a language
is first asked for. Why Babel and ``.po`` (checked for Babel 2.18):

- Babel is maintained (python-babel, releases every few months) and is pure Python; its
  ``read_po`` reads a ``.po`` as it is, so ``pip install .`` on a fresh machine needs no
  compile step (no ``msgfmt``, no ``.mo`` files), and a broken file fails loudly.
- Plural rules come from CLDR through Babel: Russian has one / few / many for whole
  numbers and "other" for fractions ("1 вист, 2 виста, 5 вистов, 318,67 виста"), English
  one / other. A plural entry's forms follow these categories in CLDR order, so a
  fraction gets its own correct form, which gettext's usual three Russian forms lack.
- Numbers come from the same CLDR data (the Russian decimal comma and grouping space).
- ``.po`` is the format translators' tools (Poedit, Weblate) and ``msgfmt --check``
  know (both files pass it); placeholders are named ``str.format`` fields.

Babel keeps all the CLDR data of each locale it read (~2.5 MB a language, and ~2 MB of
its global data) for as long as the process runs; a catalogue takes only its plural rule
and two symbols from it, and Babel's caches are emptied once the catalogues are read.

Fluent was the other candidate: its inline plural selectors are neat, but its Python
runtime (``fluent.runtime``) is still at a pre-1.0 release (0.4.0), its message names
cannot hold the dots of our keys, and it needs Babel anyway for the plural rules.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from importlib.resources import files
from typing import Any

import babel.core
from babel import Locale, localedata
from babel.messages.pofile import read_po
from babel.numbers import get_decimal_symbol, get_group_symbol

__all__ = [
    "LANGS",
    "DEFAULT_LANG",
    "Entry",
    "Catalogue",
    "catalogue",
    "t",
    "plural_category",
    "number",
    "lang_of",
]

LANGS = ("ru", "en")
DEFAULT_LANG = "ru"

CLDR_ORDER = ("zero", "one", "two", "few", "many", "other")
"""The order of CLDR plural categories, which is the order of a plural entry's forms."""

Number = int | Fraction | Decimal


@dataclass(frozen=True, slots=True)
class Entry:
    """One text of a catalogue: a single form, or one form per plural category."""

    forms: tuple[str, ...]
    count: str | None = None
    """The placeholder whose value chooses the plural form (``None``: not a plural)."""


@dataclass(frozen=True, slots=True)
class Catalogue:
    """All texts of one language."""

    lang: str
    plural: Callable[[int | Decimal], str]
    """The language's CLDR plural rule: a number's category ("one", "few"...)."""
    categories: tuple[str, ...]
    """The language's plural categories in CLDR order (Russian: one, few, many, other)."""
    entries: Mapping[str, Entry]
    decimal: str
    """The decimal separator ("," in Russian)."""
    group: str
    """The thousands separator (a no-break space in Russian)."""


_CATALOGUES: dict[str, Catalogue] = {}
_READING = threading.Lock()
"""Held while the catalogues are read (a picture's thread may ask for them too)."""


def catalogue(lang: str) -> Catalogue:
    """The catalogue of ``lang`` (one of :data:`LANGS`), read once from the package (every
    language's at the first call)."""
    if lang not in LANGS:
        raise ValueError(f"no catalogue for language {lang!r}")
    if not _CATALOGUES:
        with _READING:
            if not _CATALOGUES:
                read = {code: _read(code) for code in LANGS}
                _forget_cldr()
                _CATALOGUES.update(read)
    return _CATALOGUES[lang]


def _forget_cldr() -> None:
    """Empty Babel's caches of the CLDR data: nothing reads it after the catalogues."""
    localedata.clear_caches()
    babel.core._global_data = None  # read again from its file if ever asked for


def _read(lang: str) -> Catalogue:
    locale = Locale.parse(lang)
    tags = locale.plural_form.tags | {"other"}
    categories = tuple(c for c in CLDR_ORDER if c in tags)
    path = files("bot.render") / "locales" / lang / "LC_MESSAGES" / "messages.po"
    with path.open("rb") as f:
        po = read_po(f, locale=lang, abort_invalid=True)
    entries: dict[str, Entry] = {}
    for message in po:
        if not message.id:
            continue  # the header
        if isinstance(message.id, str):
            assert isinstance(message.string, str)
            entries[message.id] = Entry((message.string,))
            continue
        key, selector = message.id[0], message.id[1]
        if not (selector.startswith("{") and selector.endswith("}")):
            raise ValueError(f"{lang}: {key}: msgid_plural must name the count, as {{n}}")
        assert isinstance(message.string, tuple | list)
        entries[key] = Entry(tuple(message.string), selector[1:-1])
    return Catalogue(
        lang,
        locale.plural_form,
        categories,
        entries,
        get_decimal_symbol(locale),
        get_group_symbol(locale),
    )


def t(lang: str, key: str, **values: Any) -> str:
    """The text ``key`` in ``lang`` (Russian when we lack ``lang``), filled with ``values``.

    A key missing from the catalogue raises ``KeyError``, as does a missing value. A plural
    entry takes its form from the number it names and shows that number per :func:`number`.
    """
    cat = catalogue(lang if lang in LANGS else DEFAULT_LANG)
    try:
        entry = cat.entries[key]
    except KeyError:
        raise KeyError(f"no text {key!r} in the {cat.lang} catalogue") from None
    if entry.count is None:
        return entry.forms[0].format(**values)
    count = values[entry.count]
    text = entry.forms[cat.categories.index(plural_category(cat.lang, count))]
    return text.format(**{**values, entry.count: number(cat.lang, count)})


def _shown(value: Number) -> int | Decimal:
    """``value`` as :func:`number` writes it: whole, or rounded to two decimals."""
    if isinstance(value, bool) or not isinstance(value, int | Fraction | Decimal):
        raise TypeError(f"a count must be a number, not {value!r}")
    if value == int(value):
        return int(value)
    exact = Decimal(value) if isinstance(value, int | Decimal) else _decimal(value)
    return exact.quantize(Decimal("0.01"))


def _decimal(value: Fraction) -> Decimal:
    return Decimal(value.numerator) / Decimal(value.denominator)


def plural_category(lang: str, count: Number) -> str:
    """The CLDR plural category of ``count`` as written in ``lang``: "one", "few", ...

    A fraction is taken as it is shown (two decimals), which CLDR counts apart from a
    whole number: "2 виста" is few, "2,50 виста" other.
    """
    return catalogue(lang if lang in LANGS else DEFAULT_LANG).plural(_shown(count))


def number(lang: str, value: Number, *, signed: bool = False) -> str:
    """``value`` as ``lang`` writes it: whole numbers plain, others with two decimals,
    the language's decimal separator and digit grouping ("318,67" in Russian, "318.67"
    in English); ``signed`` puts "+" in front of a positive number."""
    cat = catalogue(lang if lang in LANGS else DEFAULT_LANG)
    shown = _shown(value)
    # CLDR's "#,##0" and "#,##0.00" for both languages: groups of three digits
    text = f"{shown:,}" if isinstance(shown, int) else f"{shown:,.2f}"
    text = text.replace(",", "\0").replace(".", cat.decimal).replace("\0", cat.group)
    return "+" + text if signed and shown > 0 else text


def lang_of(code: str | None) -> str:
    """Our language for a Telegram ``language_code``: English for ``en*``, else Russian."""
    return "en" if code and code.lower().startswith("en") else "ru"
