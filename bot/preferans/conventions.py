"""Conventions (Sochi, Leningrad, Rostov) as data, and the rules of one game.

A :class:`Convention` is the fixed part of a preset (how whists, penalties and
all-pass are scored); :class:`Rules` is what a table plays: a convention, the pulka
size and the options of the record format, each defaulting to the preset
(docs/rules.md, "Scoring" and "Options").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

from .contracts import LADDER, MISERE

__all__ = [
    "Convention",
    "Rules",
    "CONVENTIONS",
    "find_convention",
    "OPTION_NAMES",
    "RulesError",
    "RulesNumbers",
    "rules_numbers",
]

WhistType = Literal["greedy", "gentleman"]
Responsibility = Literal["full", "half"]


class RulesError(ValueError):
    """A rules block names an unknown convention or option, or a bad value."""


@dataclass(frozen=True, slots=True)
class Convention:
    """The fixed scoring data of a preset."""

    name: str
    title_ru: str
    title_en: str
    whist_factor: int
    """Whists per defender trick = price × this."""
    declarer_factor: int
    """Declarer's gora per missing trick = price × this."""
    misere_penalty: int
    """Gora per trick taken on a failed misère."""
    consolation_factor: int
    """Consolation per missing declarer trick = price × this (when not flat)."""
    consolation_flat: int | None
    """Rostov: a flat number of whists per missing trick."""
    raspasy_scoring: Literal["gora", "whists"]
    raspasy_talon: Literal["lead", "closed"]
    """Sochi/Leningrad open the talon on all-pass; Rostov never does (Кодекс 3.7.6.2)."""
    raspasy_zero_flat: int | None
    """Pulka points for zero all-pass tricks: ``None`` = the current trick price."""
    end_rule: Literal["all_closed", "sum"]
    helps: bool
    """Sochi/Rostov close pulkas one by one and surplus "helps" another player."""
    defaults: Mapping[str, Any] = field(default_factory=dict)


OPTION_NAMES: tuple[str, ...] = (
    "jumps",
    "ten_checked",
    "stalingrad",
    "half_whist",
    "whist_type",
    "whist_responsibility",
    "raspasy_prices",
    "raspasy_exit",
    "raspasy_amnesty",
)

_COMMON_DEFAULTS: dict[str, Any] = {
    "jumps": False,
    "ten_checked": False,
    "stalingrad": False,
    "half_whist": True,
    "raspasy_exit": (6,),
    "raspasy_amnesty": False,
}

CONVENTIONS: dict[str, Convention] = {
    "sochi": Convention(
        name="sochi",
        title_ru="Сочинка",
        title_en="Sochi",
        whist_factor=1,
        declarer_factor=1,
        misere_penalty=10,
        consolation_factor=1,
        consolation_flat=None,
        raspasy_scoring="gora",
        raspasy_talon="lead",
        raspasy_zero_flat=None,
        end_rule="all_closed",
        helps=True,
        defaults={
            **_COMMON_DEFAULTS,
            "whist_type": "greedy",
            "whist_responsibility": "full",
            "raspasy_prices": (1, 2, 3),
        },
    ),
    "leningrad": Convention(
        name="leningrad",
        title_ru="Ленинградка",
        title_en="Leningrad",
        whist_factor=2,
        declarer_factor=2,
        misere_penalty=20,
        consolation_factor=2,
        consolation_flat=None,
        raspasy_scoring="gora",
        raspasy_talon="lead",
        raspasy_zero_flat=None,
        end_rule="sum",
        helps=False,
        defaults={
            **_COMMON_DEFAULTS,
            "whist_type": "gentleman",
            "whist_responsibility": "half",
            "raspasy_prices": (2, 4, 6),
        },
    ),
    "rostov": Convention(
        name="rostov",
        title_ru="Ростовка",
        title_en="Rostov",
        whist_factor=1,
        declarer_factor=1,
        misere_penalty=10,
        consolation_factor=1,
        consolation_flat=10,
        raspasy_scoring="whists",
        raspasy_talon="closed",
        raspasy_zero_flat=1,
        end_rule="all_closed",
        helps=True,
        defaults={
            **_COMMON_DEFAULTS,
            "whist_type": "gentleman",
            "whist_responsibility": "half",
            "raspasy_prices": (5,),
        },
    ),
}


def find_convention(name: str) -> Convention:
    """The convention registered as ``name`` (``sochi``, ``leningrad``, ``rostov``)."""
    try:
        return CONVENTIONS[name]
    except (KeyError, TypeError):
        raise RulesError(f"unknown convention {name!r}") from None


@dataclass(frozen=True, slots=True)
class Rules:
    """Everything that decides how one pulka is played and scored."""

    convention: Convention
    pulka: int
    jumps: bool
    ten_checked: bool
    stalingrad: bool
    half_whist: bool
    whist_type: WhistType
    whist_responsibility: Responsibility
    raspasy_prices: tuple[int, ...]
    raspasy_exit: tuple[int, ...]
    raspasy_amnesty: bool

    @classmethod
    def preset(cls, convention: str = "sochi", pulka: int = 20, **options: Any) -> Rules:
        """The convention's preset with ``options`` overriding it; validates every value."""
        conv = find_convention(convention)
        if isinstance(pulka, bool) or not isinstance(pulka, int) or not 1 <= pulka <= 1000:
            raise RulesError(f"pulka size must be a whole number from 1 to 1000, not {pulka!r}")
        values: dict[str, Any] = dict(conv.defaults)
        for name, value in options.items():
            if name not in OPTION_NAMES:
                raise RulesError(f"unknown option {name!r}")
            values[name] = _check_option(name, value)
        return cls(convention=conv, pulka=pulka, **values)

    def with_options(self, **options: Any) -> Rules:
        """A copy with some options changed (validated)."""
        for name, value in options.items():
            if name not in OPTION_NAMES:
                raise RulesError(f"unknown option {name!r}")
            options[name] = _check_option(name, value)
        return replace(self, **options)

    def to_json(self) -> dict[str, Any]:
        """The record's ``rules`` block: convention, pulka and every option that differs."""
        out: dict[str, Any] = {"convention": self.convention.name, "pulka": self.pulka}
        for f in fields(self):
            if f.name in OPTION_NAMES:
                value = getattr(self, f.name)
                if value != self.convention.defaults[f.name]:
                    out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_json(cls, data: Any) -> Rules:
        """Parse a record's ``rules`` block; raises :class:`RulesError`."""
        if not isinstance(data, dict):
            raise RulesError("rules must be an object")
        if "convention" not in data:
            raise RulesError("rules: missing 'convention'")
        if "pulka" not in data:
            raise RulesError("rules: missing 'pulka'")
        options = {k: v for k, v in data.items() if k not in ("convention", "pulka")}
        return cls.preset(data["convention"], data["pulka"], **options)

    def raspasy_price(self, series: int) -> int:
        """Trick price of the ``series``-th consecutive all-pass (1-based); the last repeats."""
        prices = self.raspasy_prices
        return prices[min(series, len(prices)) - 1]

    def min_first_level(self, allpass_before: int) -> int:
        """Lowest level of the first bid after ``allpass_before`` consecutive all-passes."""
        if allpass_before <= 0:
            return 6
        exits = self.raspasy_exit
        return exits[min(allpass_before, len(exits)) - 1]


def _check_option(name: str, value: Any) -> Any:
    if name in ("jumps", "ten_checked", "stalingrad", "half_whist", "raspasy_amnesty"):
        if not isinstance(value, bool):
            raise RulesError(f"option {name!r} must be true or false, not {value!r}")
        return value
    if name == "whist_type":
        if value not in ("greedy", "gentleman"):
            raise RulesError(f"option 'whist_type' must be greedy or gentleman, not {value!r}")
        return value
    if name == "whist_responsibility":
        if value not in ("full", "half"):
            raise RulesError(f"option 'whist_responsibility' must be full or half, not {value!r}")
        return value
    # raspasy_prices, raspasy_exit: non-empty lists of whole numbers
    if not isinstance(value, list | tuple) or not value:
        raise RulesError(f"option {name!r} must be a non-empty list of numbers")
    for item in value:
        if isinstance(item, bool) or not isinstance(item, int):
            raise RulesError(f"option {name!r} must be a list of whole numbers, not {value!r}")
        if name == "raspasy_exit" and not 6 <= item <= 10:
            raise RulesError(f"option 'raspasy_exit' levels must be from 6 to 10, not {item}")
        if name == "raspasy_prices" and not 0 <= item <= 1000:
            raise RulesError(f"option 'raspasy_prices' must be from 0 to 1000, not {item}")
    return tuple(value)


@dataclass(frozen=True, slots=True)
class RulesNumbers:
    """The numbers and choices of a table's rules, for a text that states them."""

    prices: tuple[tuple[int, int], ...]
    """``(level, price)`` of each trick game level, 6 to 10."""
    misere_price: int
    whist_factor: int
    """Whists per defender trick = price × this."""
    declarer_factor: int
    """Gora per missing declarer trick = price × this."""
    misere_penalty: int
    consolation_flat: int | None
    raspasy_prices: tuple[int, ...]
    """All-pass price per trick, deal by deal in a row (the last repeats)."""
    raspasy_exit: tuple[int, ...]
    raspasy_scoring: str
    """``gora``: all-pass tricks cost gora; ``whists``: the others write whists (Rostov)."""
    whist_type: str
    whist_responsibility: str
    end_rule: str
    """``all_closed``: until every pulka is closed; ``sum``: until they sum to a total."""
    helps: bool
    """A closed pulka's surplus helps another player's."""


def rules_numbers(rules: Rules) -> RulesNumbers:
    """The numbers ``rules`` play with, read from the convention's data and options."""
    levels = sorted({c.level for c in LADDER if not c.misere})
    prices = tuple((level, next(c.price for c in LADDER if c.level == level)) for level in levels)
    conv = rules.convention
    return RulesNumbers(
        prices=prices,
        misere_price=MISERE.price,
        whist_factor=conv.whist_factor,
        declarer_factor=conv.declarer_factor,
        misere_penalty=conv.misere_penalty,
        consolation_flat=conv.consolation_flat,
        raspasy_prices=rules.raspasy_prices,
        raspasy_exit=rules.raspasy_exit,
        raspasy_scoring=conv.raspasy_scoring,
        whist_type=rules.whist_type,
        whist_responsibility=rules.whist_responsibility,
        end_rule=conv.end_rule,
        helps=conv.helps,
    )
