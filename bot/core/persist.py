"""Writing tables to the storage: the game as its record, one row per deal, and the archive.

Used only by :class:`~bot.core.service.TableService` (under the table's lock).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

from bot.preferans.game import Game
from bot.stats import game_rows
from storage import GameArchive, PlayerRow, Storage

from .codec import holder_row, settings_json, state_json, table_from_row
from .model import Holder, Status, Table

__all__ = ["Writer", "archive_of"]

log = logging.getLogger(__name__)


def archive_of(
    table: Table, game: Game, record: dict[str, Any], started_at: float | None = None
) -> GameArchive:
    """The archive entry of a finished or stopped game, statistics included."""
    holders = table.holders or [  # a game started before seat holders were stored
        Holder(seat, 1, p.user_id, p.name) for seat, p in table.seated()
    ]
    rows: list[PlayerRow]
    try:
        rows = game_rows(record, holders)
    except Exception:
        log.exception("table %s: no statistics for this game", table.id)
        rows = []
    now = time.time()
    return GameArchive(
        status="finished" if game.finished else "stopped",
        convention=game.rules.convention.name,
        pulka=game.rules.pulka,
        players=game.players,
        deals=len(game.finished_deals),
        started_at=table.started_at or started_at or now,
        ended_at=now,
        record=record,
        holders=tuple(holder_row(h) for h in holders),
        rows=tuple(rows),
    )


class Writer:
    """Saves tables; remembers what each stored record holds besides its current deal."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._saved: dict[int, tuple[Any, ...]] = {}

    def forget(self, table_id: int) -> None:
        self._saved.pop(table_id, None)

    async def save(self, table: Table) -> None:
        """Write the table (settings, seats, message ids, deadline, game) in one transaction.

        The game is stored as its record, one row per deal: while only the current deal
        changed since the last write (a move), only that deal is written. A game that just
        ended is archived in the same transaction.
        """
        game = table.game
        record: dict[str, Any] | None = None
        deals: dict[int, dict[str, Any]] | None = None
        mark: tuple[Any, ...] | None = None
        if game is not None:
            mark = (id(game), len(game.finished_deals), game.stopped, tuple(game.names))
            if game.current is not None and self._saved.get(table.id) == mark:
                deals = {game.deal_count: game.current.to_json()}
            else:
                record = game.to_record()
        archive = None
        if table.status == Status.OVER and game is not None and not table.archived:
            archive = archive_of(table, game, record or game.to_record())
            table.archived = True
        try:
            await self.storage.save_table(
                table.id,
                status=str(table.status),
                settings=settings_json(table.settings),
                state=state_json(table),
                record=record,
                move=table.move,
                deadline=table.deadline,
                # a computer player (negative id) has no users row to refer to
                seats=[p.user_id if p is not None and p.user_id > 0 else None for p in table.seats],
                deals=deals,
                archive=archive,
            )
        except BaseException:
            self._saved.pop(table.id, None)
            if archive is not None:
                table.archived = False
            raise
        if mark is not None:
            self._saved[table.id] = mark

    async def load_last(self, chat_id: int, cached: Mapping[int, Table]) -> Table | None:
        """The chat's most recent table with a game (the one in memory if it is there)."""
        row = await self.storage.last_table(chat_id)
        if row is None or not row.record:
            return None
        return cached.get(row.id) or table_from_row(row)

    async def load_open(self) -> list[Table]:
        """The tables to resume; one that cannot be read is closed (logged)."""
        out = []
        for row in await self.storage.open_tables():
            try:
                out.append(table_from_row(row))
            except Exception:
                log.exception("table %s cannot be resumed; closing it", row.id)
                await self.storage.save_table(
                    row.id,
                    status=str(Status.CANCELLED),
                    settings=row.settings,
                    state=row.state,
                    record=row.record,
                    move=row.move,
                    deadline=None,
                    seats=[],
                )
        return out

    async def archive_old_games(self) -> None:
        """Archive games that ended before archiving existed (a database upgraded in place)."""
        for row in await self.storage.unarchived_tables():
            try:
                table = table_from_row(row)
                game = table.game
                if game is None or not game.over:
                    continue
                archive = archive_of(table, game, game.to_record(), row.created_at)
            except Exception:
                log.exception("table %s: cannot archive the old game", row.id)
                continue
            await self.storage.archive_game(row.id, archive)
            log.info("table %s: old game archived", row.id)
