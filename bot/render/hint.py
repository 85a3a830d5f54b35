"""The answer to a «💡» press: the computer player's move and one line of why."""

from __future__ import annotations

from typing import Any

from bot.core.modes import RankStyle
from bot.preferans.robot.hints import Hint
from bot.render.i18n import t

from .text import action_text, contract

__all__ = ["hint_text"]


def hint_text(hint: Hint, lang: str, *, ranks: RankStyle = RankStyle.LATIN) -> str:
    """Two short lines (plain text: it may be shown as an alert)."""
    move = action_text(hint.action, lang, private=True, ranks=ranks)
    values: dict[str, Any] = {}
    key = "hint." + hint.reason
    if hint.contract is not None:
        values["c"] = contract(hint.contract, lang)
    elif hint.reason == "bid.pass":
        key = "hint.bid.pass_any"  # no trick bid is left to make
    if hint.tricks is not None:
        values["n"] = hint.tricks
        values["about"] = (
            t(lang, "n.about", count=hint.tricks) if hint.tricks > 0 else t(lang, "n.about_none")
        )
        if hint.reason == "discard.misere" and hint.tricks == 0:
            key = "hint.discard.clean"
    if hint.need is not None:
        values["need"] = hint.need
    return t(lang, "hint.text", move=move, why=t(lang, key, **values))
