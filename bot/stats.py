"""Statistics of a finished game, computed from its pulka record alone.

One row per player of the game (docs/operating.md, "Statistics"):

* ``deals``: scored deals in which he held cards (with four players the dealer does not);
* ``contracts_made`` / ``contracts_failed``: trick games he declared; a game both
  defenders passed (or a half-whist, or an unwhisted ten) counts as made;
* ``miseres_made`` / ``miseres_failed``: misères he declared;
* ``net_whists``: his result in the game's settlement (итог в вистах; sums to zero over
  the table);
* ``whists_written``: the whists he wrote on the others on the final sheet.

When a player takes over a seat (Кодекс 3.1.2), ``holders`` says from which deal on; a
deal counts for whoever held the seat when it was played, the settlement and the final
sheet for whoever held the seat at the end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any

from bot.core.model import Holder
from bot.preferans.game import Game
from bot.preferans.outcome import DealKind, made
from bot.preferans.seats import Seat
from storage import HolderRow, PlayerRow

__all__ = ["Holder", "game_rows", "holder_of", "recompute_rows"]


@dataclass(slots=True)
class _Counts:
    user_id: int
    seat: int
    name: str
    deals: int = 0
    contracts_made: int = 0
    contracts_failed: int = 0
    miseres_made: int = 0
    miseres_failed: int = 0
    net_whists: float = 0.0
    whists_written: float = 0.0


def holder_of(holders: Sequence[Holder], seat: int, deal_no: int) -> Holder | None:
    """Who held ``seat`` in deal ``deal_no`` (counted from 1)."""
    found = None
    for h in holders:
        if (
            h.seat == seat
            and h.from_deal <= deal_no
            and (found is None or h.from_deal >= found.from_deal)
        ):
            found = h
    return found


def _number(value: Fraction) -> float:
    return float(value)  # rounded only when shown


def game_rows(record: dict[str, Any], holders: Sequence[Holder]) -> list[PlayerRow]:
    """Per-player statistics of a finished or stopped game (raises ``RecordError``)."""
    game = Game.from_record(record)
    rows: dict[int, _Counts] = {}

    def row(h: Holder) -> _Counts:
        if h.user_id not in rows:
            rows[h.user_id] = _Counts(h.user_id, int(h.seat), h.name)
        return rows[h.user_id]

    for seat in range(game.players):  # everyone who sat down, from the first deal on
        for holder in holders:
            if holder.seat == seat:
                row(holder)
    for deal_no, finished in enumerate(game.finished_deals, start=1):
        o = finished.outcome
        for seat in o.active:
            player = holder_of(holders, int(seat), deal_no)
            if player is not None:
                row(player).deals += 1
        if o.declarer is None or o.contract is None:
            continue
        declarer = holder_of(holders, int(o.declarer), deal_no)
        if declarer is None:
            continue
        r = row(declarer)
        done = made(o)
        if o.kind is DealKind.MISERE:
            if done:
                r.miseres_made += 1
            else:
                r.miseres_failed += 1
        elif done:
            r.contracts_made += 1
        else:
            r.contracts_failed += 1
    settlement = game.settlement()
    sheet = game.sheet
    start = game.start
    for seat in range(game.players):
        final = holder_of(holders, seat, 1 << 30)  # whoever holds the seat at the end
        if final is None:
            continue
        r = row(final)
        r.seat = seat
        r.name = final.name
        if settlement is not None:
            r.net_whists = _number(settlement[seat])
        written = sum(
            (sheet.whists[seat][j] - start.whists[seat][j] for j in range(game.players)),
            Fraction(0),
        )
        r.whists_written = _number(written)
    counts = sorted(rows.values(), key=lambda r: (r.seat, r.user_id))
    return [PlayerRow(**asdict(c)) for c in counts]


def recompute_rows(record: dict[str, Any], holders: Sequence[HolderRow]) -> list[PlayerRow]:
    """:func:`game_rows` for stored holders (``storage.archive.recompute``'s computation)."""
    return game_rows(
        record, [Holder(Seat(h.seat), h.from_deal, h.user_id, h.name) for h in holders]
    )
