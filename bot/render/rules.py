"""``/rules``: the table's convention and options in a few lines, its numbers read from the
convention's data (:func:`bot.preferans.conventions.rules_numbers`), so a changed preset
changes the text."""

from __future__ import annotations

from bot.core.model import TableSettings
from bot.preferans.conventions import rules_numbers
from bot.preferans.scoring import HELP_WHISTS
from bot.render.i18n import t

from .lobby import options_summary
from .text import convention_title

__all__ = ["rules_text"]


def rules_text(settings: TableSettings, lang: str) -> str:
    """The convention's scoring in a few lines."""
    n = rules_numbers(settings.rules())
    prices = ", ".join(f"{level} → {price}" for level, price in n.prices)
    allpass = "-".join(str(p) for p in n.raspasy_prices)
    lines = [
        t(lang, "rules.head", convention=convention_title(settings, lang), pulka=settings.pulka),
        t(lang, "rules.price_list", prices=prices, misere=n.misere_price),
        t(
            lang,
            "rules.whist_line",
            times=_times(n.whist_factor),
            whist_type=t(lang, f"set.{n.whist_type}"),
            responsibility=t(lang, f"rules.resp.{n.whist_responsibility}"),
        ),
        t(lang, "rules.penalty_line", times=_times(n.declarer_factor), misere=n.misere_penalty),
    ]
    if n.consolation_flat is not None:
        lines.append(t(lang, "rules.consolation_flat", n=n.consolation_flat))
    key = "rules.allpass_whists" if n.raspasy_scoring == "whists" else "rules.allpass_gora"
    lines.append(t(lang, key, prices=allpass))
    if n.end_rule == "sum":
        lines.append(t(lang, "rules.end_sum", total=settings.pulka * settings.players))
    else:
        key = "rules.end_closed_help" if n.helps else "rules.end_closed"
        lines.append(t(lang, key, whists=HELP_WHISTS))
    opts = options_summary(settings, lang)
    if opts:
        lines.append(t(lang, "rules.options", v=opts))
    return "\n".join(lines)


def _times(factor: int) -> str:
    """`` × 2`` after a price (nothing for 1)."""
    return "" if factor == 1 else f" × {factor}"
