"""The message catalogues (bot/render/locales) and ``bot.render.i18n``.

Every key in every language with the same placeholders, every plural form there, Russian
plurals and numbers as Russian writes them, and no text that depends on what was imported.
"""

from __future__ import annotations

import ast
import gettext
import random
import string
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction
from importlib.resources import files
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po
from babel.numbers import format_decimal

from bot.render import i18n
from bot.render.i18n import LANGS, catalogue, lang_of, number, plural_category, t

ROOT = Path(__file__).resolve().parents[2]
PLURAL_PROBES = (0, 1, 2, 5, 11, 12, 14, 21, 22, 25, 101, 111)


def placeholders(text: str) -> set[str]:
    """The named fields of a ``str.format`` text (``{{`` is a brace, not a field)."""
    names = set()
    for _, name, _, _ in string.Formatter().parse(text):
        if name is not None:
            assert name.isidentifier(), f"{text!r}: {{{name}}} is not a plain name"
            names.add(name)
    return names


def po(lang: str) -> Catalog:
    path = files("bot.render") / "locales" / lang / "LC_MESSAGES" / "messages.po"
    with path.open("rb") as f:
        return read_po(f, locale=lang, abort_invalid=True)


# ----------------------------------------------------------------------------- the files


def test_every_key_is_in_every_language() -> None:
    keys = {lang: set(catalogue(lang).entries) for lang in LANGS}
    for lang in LANGS:
        assert keys[lang] == keys["ru"], f"{lang}: {keys[lang] ^ keys['ru']}"
    assert len(keys["ru"]) > 150


def test_every_text_is_filled_in() -> None:
    for lang in LANGS:
        for key, entry in catalogue(lang).entries.items():
            assert entry.forms and all(f.strip() for f in entry.forms), f"{lang}: {key} is empty"


def test_every_key_has_the_same_placeholders_in_every_language_and_form() -> None:
    for key, ru in catalogue("ru").entries.items():
        expected = placeholders(ru.forms[0])
        for lang in LANGS:
            entry = catalogue(lang).entries[key]
            for form in entry.forms:
                assert placeholders(form) == expected, f"{lang}: {key}: {form!r}"


def test_plural_entries_have_every_form_of_their_language() -> None:
    assert catalogue("ru").categories == ("one", "few", "many", "other")
    assert catalogue("en").categories == ("one", "other")
    plural_keys = set()
    for lang in LANGS:
        cat = catalogue(lang)
        for key, entry in cat.entries.items():
            if entry.count is None:
                assert len(entry.forms) == 1, f"{lang}: {key}"
                continue
            plural_keys.add(key)
            assert len(entry.forms) == len(cat.categories), f"{lang}: {key}"
            assert len(set(entry.forms)) > 1, f"{lang}: {key}: every form the same"
            assert entry.count in placeholders(entry.forms[0]), f"{lang}: {key}"
            # The same number selects the form in every language.
            assert catalogue("ru").entries[key].count == entry.count
    assert {"n.tricks", "n.whists"} <= plural_keys


def test_plural_forms_header_agrees_with_cldr() -> None:
    """The files' Plural-Forms (what gettext tools read) pick the same form as CLDR."""
    for lang in LANGS:
        cat = po(lang)
        assert cat.num_plurals == len(catalogue(lang).categories)
        header = gettext.c2py(cat.plural_expr)
        for n in range(0, 1001):
            expected = catalogue(lang).categories.index(plural_category(lang, n))
            assert header(n) == expected, f"{lang}: {n}"


def test_catalogues_ship_as_package_data() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"locales/*/LC_MESSAGES/*.po"' in pyproject and '"babel>=' in pyproject
    for lang in LANGS:
        assert (ROOT / "bot/render/locales" / lang / "LC_MESSAGES/messages.po").is_file()


# ----------------------------------------------------------------------------- t


def test_t_fills_in_the_values() -> None:
    assert t("ru", "btn.take", seat=2) == "🪑 Занять место 2"
    assert t("en", "btn.take", seat=2) == "🪑 Take seat 2"
    assert t("ru", "help").startswith("🃏 <b>Преферанс</b>\n/newgame")


def test_unknown_language_is_russian() -> None:
    assert t("de", "lobby.free") == t("ru", "lobby.free") == "свободно"
    assert number("de", Fraction(1, 2)) == "0,50"


def test_unknown_key_and_missing_value_fail_loudly() -> None:
    with pytest.raises(KeyError, match="no.such.key"):
        t("ru", "no.such.key")
    with pytest.raises(KeyError):
        t("en", "btn.take")  # {seat} not given
    with pytest.raises(KeyError):
        t("ru", "n.tricks")  # the count not given
    with pytest.raises(TypeError):
        t("ru", "n.tricks", count="5")


def test_russian_plurals() -> None:
    got = [t("ru", "n.tricks", count=n) for n in PLURAL_PROBES]
    assert got == [
        "0 взяток",
        "1 взятка",
        "2 взятки",
        "5 взяток",
        "11 взяток",
        "12 взяток",
        "14 взяток",
        "21 взятка",
        "22 взятки",
        "25 взяток",
        "101 взятка",
        "111 взяток",
    ]
    whists = [t("ru", "n.whists", count=n) for n in (1, 3, 5, 111)]
    assert whists == ["1 вист", "3 виста", "5 вистов", "111 вистов"]
    # A fraction is CLDR's "other": "318,67 виста", also when it is written "2,50".
    assert t("ru", "n.whists", count=Fraction(95602, 300)) == "318,67 виста"
    assert t("ru", "n.whists", count=Decimal("2.5")) == "2,50 виста"
    assert t("ru", "n.whists", count=Fraction(4, 2)) == "2 виста"


def test_english_plurals() -> None:
    got = [t("en", "n.tricks", count=n) for n in (0, 1, 2, 11, 21, 101)]
    assert got == ["0 tricks", "1 trick", "2 tricks", "11 tricks", "21 tricks", "101 tricks"]
    assert t("en", "n.whists", count=Fraction(3, 2)) == "1.50 whists"


def test_deal_results_agree_with_the_number_of_tricks() -> None:
    def made(lang: str, k: int) -> str:
        tricks = t(lang, "n.tricks", count=k)
        return t(lang, "res.made", n=3, name="Вера", contract="7♥", tricks=tricks)

    assert made("ru", 7) == "Сдача 3: Вера — 7♥, 7 взяток, сыграно."
    assert made("en", 7) == "Deal 3: Вера — 7♥, 7 tricks, made."
    under = t("ru", "res.under.2")
    tricks = t("ru", "n.tricks", count=4)
    failed = t("ru", "res.failed", n=1, name="Б", contract="6♠", tricks=tricks, under=under)
    assert failed == "Сдача 1: Б — 6♠, 4 взятки, без двух."
    misere = [
        t("ru", "res.misere_fail", n=2, name="А", tricks=t("ru", "n.tricks", count=k))
        for k in (1, 3, 5)
    ]
    assert misere == [
        "Сдача 2: А — мизер, 1 взятка, не сыгран.",
        "Сдача 2: А — мизер, 3 взятки, не сыгран.",
        "Сдача 2: А — мизер, 5 взяток, не сыгран.",
    ]
    unders = [t("ru", f"res.under.{u}") for u in (1, 3, 10)]
    assert unders == ["без одной", "без трёх", "без десяти"]


# ----------------------------------------------------------------------------- numbers


def test_numbers_per_language() -> None:
    value = Fraction(95602, 300)  # 318.6733...
    assert number("ru", value) == "318,67"
    assert number("en", value) == "318.67"
    assert number("ru", value, signed=True) == "+318,67"
    assert number("ru", -value, signed=True) == "-318,67"
    assert number("ru", 0, signed=True) == "0"
    assert number("ru", 12) == "12" and number("en", Fraction(24, 2)) == "12"
    assert number("ru", 1234) == "1\xa0234"  # Russian groups digits with a no-break space
    assert number("en", 1234) == "1,234"
    assert number("ru", Fraction(1, 3)) == "0,33"


def test_numbers_are_written_as_cldr_patterns_write_them() -> None:
    """``number`` groups and separates as Babel's ``format_decimal`` does with CLDR's
    ``#,##0`` and ``#,##0.00`` (it keeps only the two symbols of the CLDR data)."""
    rng = random.Random(7)
    values: list[int | Fraction | Decimal] = [0, 1, -1, 999, 1000, -1000, 1234567]
    values += [Fraction(-1, 1000), Fraction(2, 1000), Decimal("0.005"), Decimal("-1234.565")]
    values += [rng.randint(-(10**9), 10**9) for _ in range(300)]
    values += [Fraction(rng.randint(-(10**8), 10**8), rng.randint(1, 1000)) for _ in range(300)]
    for lang in LANGS:
        for value in values:
            shown = i18n._shown(value)
            pattern = "#,##0" if isinstance(shown, int) else "#,##0.00"
            assert number(lang, value) == format_decimal(shown, format=pattern, locale=lang)


KEPT_PROBE = """
import gc, tracemalloc
from bot.render import i18n
tracemalloc.start(50)
i18n.t("ru", "hist.none"), i18n.t("en", "hist.none"), i18n.number("ru", 1234)
gc.collect()
imports = tracemalloc.Filter(False, "<frozen importlib._bootstrap>", all_frames=True)
kept = tracemalloc.take_snapshot().filter_traces([imports])
print(sum(s.size for s in kept.statistics("filename")))
"""


def test_the_catalogues_keep_no_cldr_data() -> None:
    """Both catalogues are in memory for the bot's whole life; Babel's CLDR data read for
    them (~5.4 MB: each locale's and the global data) is not (modules imported on the way
    are not counted)."""
    proc = subprocess.run(
        [sys.executable, "-c", KEPT_PROBE], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout) < 1_000_000  # the entries: ~0.3 MB


def test_plural_category_of_numbers() -> None:
    assert [plural_category("ru", n) for n in (1, 2, 5, 21)] == ["one", "few", "many", "one"]
    assert plural_category("ru", Fraction(1, 2)) == "other"
    assert plural_category("en", 1) == "one" and plural_category("en", 2) == "other"


def test_lang_of() -> None:
    assert [lang_of(c) for c in ("en", "en-GB", "EN", "ru", "uk", None, "")] == [
        "en",
        "en",
        "en",
        "ru",
        "ru",
        "ru",
        "ru",
    ]


# ----------------------------------------------------------------------------- the code


def _calls_of_t() -> list[tuple[str, str, set[str] | None]]:
    """Every call of ``t`` in the code: where, the key (an f-string key: its fixed start and
    "*"), and the names of the values passed (``None`` when passed as ``**values``)."""
    calls = []
    for path in sorted((ROOT / "bot").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and len(node.args) >= 2):
                continue
            func = node.func
            if not (isinstance(func, ast.Name) and func.id == "t"):
                continue
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            names = {k.arg for k in node.keywords if k.arg is not None}
            passed = None if any(k.arg is None for k in node.keywords) else names
            key = node.args[1]
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                calls.append((where, key.value, passed))
            elif isinstance(key, ast.JoinedStr) and isinstance(key.values[0], ast.Constant):
                calls.append((where, str(key.values[0].value) + "*", passed))
    return calls


def test_every_key_the_code_asks_for_exists_with_its_values() -> None:
    entries = catalogue("ru").entries
    calls = _calls_of_t()
    assert len({key for _, key, _ in calls}) > 100
    for where, key, passed in calls:
        if key.endswith("*"):  # which keys it stands for is known only when it runs
            assert any(k.startswith(key[:-1]) for k in entries), f"{where}: no key {key}"
            continue
        assert key in entries, f"{where}: no key {key}"
        needed = placeholders(entries[key].forms[0])
        assert passed is None or passed == needed, f"{where}: {key} needs {needed}, gets {passed}"


def test_no_text_depends_on_imports() -> None:
    """Texts once registered by other modules at import are there with i18n alone."""
    assert not hasattr(i18n, "register")
    code = (
        "import sys\n"
        "from bot.render.i18n import t\n"
        "print(t('ru', 'picture.on', name='X'), t('en', 'err.voted'), t('ru', 'hist.none'))\n"
        "assert not any(m.startswith(('bot.chat_events', 'bot.history', 'bot.render.picture'))"
        " for m in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == (
        "→ X You have already voted. В этой группе ещё нет законченных игр."
    )
    for path in (ROOT / "bot").rglob("*.py"):
        assert "register(" not in path.read_text(encoding="utf-8"), path
