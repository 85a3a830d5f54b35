"""A finished deal of the game, card by card, for the Mini App's replay (docs/webapp.md).

Only a deal that is over: then every hand is open in the game's record anyway.
"""

from __future__ import annotations

from typing import Any

from bot.core.model import Table
from bot.render.results import result_text, sheet_before

from .state import plain, trick_json

__all__ = ["replay_frame"]


def replay_frame(table: Table, deal_no: int, lang: str) -> dict[str, Any] | None:
    """Deal ``deal_no`` (from 1) of the table's game as it was played, in the record's
    notation (hands as dealt, talon, moves) with its tricks; ``None`` unless it is over
    and was played (a result-only deal has no cards)."""
    game = table.game
    if game is None or not 1 <= deal_no <= len(game.finished_deals):
        return None
    finished = game.finished_deals[deal_no - 1]
    deal = finished.deal
    if deal is None or not deal.is_over:
        return None
    record = deal.to_json()  # preferans-record/1's deal: dealer, hands, talon, moves
    result = result_text(table, finished, deal_no, lang, sheet_before(game, finished))
    return {
        "t": "replay",
        "deal": deal_no,
        "dealer": record["dealer"],
        "hands": {str(seat): hand for seat, hand in enumerate(record["hands"]) if hand},
        "talon": record["talon"],
        "moves": record["moves"],
        "tricks": [trick_json(trick) for trick in deal.played_tricks],
        "result": plain(result),
    }
