"""Writing tables to the storage: the game as its record, one row per deal, and the archive.

Used only by :class:`~bot.core.service.TableService` (under the table's lock).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import fields
from functools import partial
from typing import Any

from bot.preferans.game import Game
from bot.stats import game_rows
from storage import GameArchive, PlayerRow, Storage

from .codec import holder_row, settings_json, state_json, table_from_row
from .effects import Effect, Effects
from .errors import NotSaved, PartlySaved, Redo, Rejected
from .model import SETTING_CHOICES, Holder, Status, Table, TableSettings
from .steady import Steady

__all__ = [
    "Writer",
    "Saved",
    "Aside",
    "Snapshot",
    "SAVE_RETRY",
    "Change",
    "archive_of",
    "stored",
    "each",
]

SAVE_RETRY = 5.0
"""Seconds before a timer whose change could not be saved tries again."""


log = logging.getLogger(__name__)

Change = Callable[[Table], Iterable[Effect]]
"""A change of one table: checks, then changes it and says what it did (no I/O)."""
Aside = tuple[int, int | None, str | None]
"""A table set aside at start-up: its id, its chat and its group's language (when known)."""


async def stored(write: Awaitable[None], redo: Redo) -> None:
    """An event's own write before any table changes; if it fails, nothing changed and the
    whole event is to be done again (one ERROR line, no traceback)."""
    try:
        await write
    except Exception as exc:
        log.error("a chat's event is not saved, to be done again: %s", exc)
        raise PartlySaved((), redo) from None


async def each(
    apply: Callable[[Table, Change], Awaitable[Effects]], tables: Iterable[Table], change: Change
) -> Effects:
    """``change`` to every table by ``apply`` (the service's locked and saved change), one
    by one: a table that cannot be saved is left as it was and the others go on; then
    :class:`PartlySaved` redoes it for the tables left."""
    out: list[Effect] = []
    left: list[Table] = []
    for table in tables:
        try:
            out += await apply(table, change)
        except NotSaved:
            left.append(table)
        except Rejected:
            pass  # closed and forgotten meanwhile: nothing left to change
    if left:
        raise PartlySaved(tuple(out), partial(each, apply, left, change))
    return tuple(out)


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


_PARTS = ("unshown", "ui")
"""The table's parts restored field by field (others hold them by reference)."""


def _copy(value: Any) -> Any:
    """A copy one level deep: the containers a change refills; what they hold is frozen
    (players, holders, presses), so it is kept as the same object."""
    kind = type(value)
    if kind is list or kind is dict or kind is set:
        return kind(value)
    if kind is TableSettings:
        return value.copy()
    return value


_NAMES: dict[type, tuple[str, ...]] = {}


def _fields(obj: Any, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    names = _NAMES.get(type(obj))
    if names is None:
        names = _NAMES[type(obj)] = tuple(f.name for f in fields(obj))
    return {name: _copy(getattr(obj, name)) for name in names if name not in skip}


class Snapshot:
    """A table as it was before a change, but for its game (rebuilt from the saved record).

    Taking one copies a few dozen references, so every change takes one (a failed save
    puts it back); the game is not copied: it is rebuilt from what was saved last, which
    is also what a restart would load.
    """

    __slots__ = ("table", "parts", "had_game")

    def __init__(self, table: Table) -> None:
        self.table = _fields(table, ("game", *_PARTS))
        self.parts = {name: _fields(getattr(table, name)) for name in _PARTS}
        self.had_game = table.game is not None


class Saved:
    """A game's record as stored, to undo a change whose save failed: the game itself,
    how many of its deals were over and the record of the one under way then, not a copy
    of the whole record (~7 KB of objects a deal, a third of a long game's memory)."""

    __slots__ = ("game", "finished", "last", "names", "stopped")

    def __init__(self, game: Game, finished: int, last: dict[str, Any] | None) -> None:
        self.game = game
        self.finished = finished
        self.last = last
        """The unfinished deal's record (``None``: none)."""
        self.names = tuple(game.names)
        self.stopped = game.stopped

    @classmethod
    def of(cls, game: Game, record: dict[str, Any]) -> Saved:
        """``game`` stored as ``record`` (its own, just made)."""
        deals = record["deals"]
        finished = len(game.finished_deals)
        return cls(game, finished, deals[finished] if len(deals) > finished else None)

    def record(self) -> dict[str, Any]:
        return self.game.earlier_record(self.finished, self.last, self.names, self.stopped)


class Writer:
    """Saves tables; remembers what each stored record holds besides its current deal."""

    def __init__(self, storage: Storage, steady: Steady) -> None:
        self.storage = storage
        self.steady = steady
        """Start-up's storage calls, tried until the database lets them through."""
        self._saved: dict[int, tuple[Any, ...]] = {}
        self._records: dict[int, Saved] = {}
        """Table id -> its game as stored (to undo a change whose save failed)."""
        self._seats: dict[int, list[int | None]] = {}
        """Table id -> its seat rows as stored (most saves leave them as they are)."""

    def forget(self, table_id: int) -> None:
        self._saved.pop(table_id, None)
        self._seats.pop(table_id, None)
        self._records.pop(table_id, None)

    def snapshot(self, table: Table) -> Snapshot:
        """The table before a change (see :meth:`restore`)."""
        if table.game is not None and table.id not in self._records:
            # loaded from its row (a restart) and not saved since: the game is as stored
            self._records[table.id] = Saved.of(table.game, table.game.to_record())
        return Snapshot(table)

    def restore(self, table: Table, snap: Snapshot) -> None:
        """Put ``table`` back as it was when ``snap`` was taken, its game as saved last."""
        for name, value in snap.table.items():
            setattr(table, name, value)
        for part, values in snap.parts.items():
            obj = getattr(table, part)
            for name, value in values.items():
                setattr(obj, name, value)
        saved = self._records.get(table.id)
        table.game = Game.from_record(saved.record()) if snap.had_game and saved else None
        self._saved.pop(table.id, None)  # the rebuilt game is written in full next time

    async def save(self, table: Table) -> None:
        """Write the table (settings, seats, deadline, game) in one transaction.

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
        # a computer player (negative id) has no users row to refer to
        seats = [p.user_id if p is not None and not p.is_robot else None for p in table.seats]
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
                # what did not change since the last write is not written again
                seats=seats if self._seats.get(table.id) != seats else None,
                deals=deals,
                archive=archive,
            )
        except BaseException:
            self._saved.pop(table.id, None)
            self._seats.pop(table.id, None)
            if archive is not None:
                table.archived = False
            raise
        self._seats[table.id] = seats
        if mark is not None:
            self._saved[table.id] = mark
        if game is not None and record is not None:
            self._records[table.id] = Saved.of(game, record)
        elif game is not None and deals is not None and table.id in self._records:
            [(number, deal)] = deals.items()
            self._records[table.id] = Saved(game, number - 1, deal)
        elif game is None:
            self._records.pop(table.id, None)

    async def load_last(self, chat_id: int, cached: Mapping[int, Table]) -> Table | None:
        """The chat's most recent table with a game (the one in memory if it is there)."""
        try:
            row = await self.storage.last_table(chat_id)
            if row is None or not row.record:
                return None
            return cached.get(row.id) or table_from_row(row)
        except Exception as exc:  # a row that cannot be read (logged at start-up)
            log.warning("chat %s: the last table cannot be read: %s", chat_id, exc)
            return None

    async def load(self, table_id: int) -> Table | Aside | None:
        """Read one table to resume; one that cannot be read is set aside (one log line) and
        its :data:`Aside` returned; ``None``: it is gone. A read the database cannot serve
        now is tried again (:mod:`.steady`)."""
        try:
            read = partial(self.storage.table, table_id)
            row = await self.steady(read, f"reading table {table_id}")
            if row is None:
                return None
            table = table_from_row(row)
        except Exception as exc:  # its values: the steady read raises nothing else
            chat_id = await self.set_aside(table_id, exc)
            return (table_id, chat_id, await self._stored_lang(table_id))
        return table

    async def _stored_lang(self, table_id: int) -> str | None:
        """The group's language a damaged table's settings still name, if the bot speaks it."""
        read = partial(self.storage.stored_lang, table_id)
        lang = await self.steady(read, f"reading table {table_id}'s language")
        return lang if lang in SETTING_CHOICES["lang"] else None

    async def set_aside(self, table_id: int, exc: BaseException) -> int | None:
        """Take a table that cannot be resumed out of play, logged in one line; its chat id
        if known."""
        log.error(
            "table %s cannot be resumed, set aside (its rows are kept): %s: %s",
            table_id,
            type(exc).__name__,
            str(exc)[:200],
        )
        self.forget(table_id)
        write = partial(self.storage.set_aside, table_id)
        return await self.steady(write, f"setting table {table_id} aside")

    async def archive_old_games(self) -> None:
        """Archive games that ended before archiving existed (a database upgraded in place)."""
        listed = await self.steady(self.storage.unarchived_table_ids, "listing the old games")
        for table_id in listed:
            try:
                read = partial(self.storage.table, table_id)
                row = await self.steady(read, f"reading old game {table_id}")
                if row is None:
                    continue
                table = table_from_row(row)
                game = table.game
                if game is None or not game.over:
                    continue
                archive = archive_of(table, game, game.to_record(), row.created_at)
                write = partial(self.storage.archive_game, row.id, archive)
                await self.steady(write, f"archiving table {row.id}")
            except Exception as exc:  # its values: the steady calls raise nothing else
                log.error("table %s: cannot archive the old game: %s", table_id, exc)
                continue
            log.info("table %s: old game archived", row.id)
