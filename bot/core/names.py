"""Players' names as Telegram gives them, made safe to show and to record.

A name may hold bidirectional controls (an RTL override cut off by the shortening would
reverse the rest of the line) or nothing visible at all (only spaces, U+3000, NBSP,
zero-width characters), which the record cannot name a player by: the controls are
removed, and an invisible name gets a stand-in naming the seat.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import replace

from .model import Player

__all__ = ["BIDI_CONTROLS", "StandIn", "clean_name", "visible", "named"]

BIDI_CONTROLS = frozenset(
    [chr(c) for c in range(0x202A, 0x202F)]  # LRE RLE PDF LRO RLO
    + [chr(c) for c in range(0x2066, 0x206A)]  # LRI RLI FSI PDI
    + ["\u200e", "\u200f", "\u061c"]  # LRM RLM ALM
)
_INVISIBLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp", "Mn", "Me"})
"""Categories that show nothing by themselves (controls, format, spaces, lone marks)."""

StandIn = Callable[[str, int], str]
"""(language, seat number from 1) -> the name shown for a player without a visible one."""


def visible(name: str) -> bool:
    """Whether ``name`` shows anything."""
    return any(unicodedata.category(ch) not in _INVISIBLE for ch in name)


def clean_name(raw: str) -> str:
    """``raw`` without bidirectional controls, its spaces collapsed; ``""`` when nothing of it
    would be visible."""
    text = " ".join("".join(ch for ch in raw if ch not in BIDI_CONTROLS).split())
    return text if visible(text) else ""


def named(player: Player, seat: int, lang: str, stand_in: StandIn) -> Player:
    """``player`` with a clean name, or the stand-in for seat ``seat`` (from 0)."""
    name = clean_name(player.name)
    if not name:
        name = stand_in(lang, seat + 1)
    return player if name == player.name else replace(player, name=name)
