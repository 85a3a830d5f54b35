"""Resuming the tables after a restart: each when its turn comes, or at once when needed.

A part of :class:`~bot.core.service.TableService` (``service.resumable``). A start-up
reads no table (:meth:`Resumable.list_tables`): it lists the tables to resume,
the most recently active first, with the chat and the people each concerns, so that the
bot answers updates at once. Each table is then read, brought in line with its game and
saved (:meth:`Resumable.resume_table`) in the background, or before an update that
concerns it is handled (:meth:`Resumable.concerned`): a press, a command in its group, a
message of one of its players. Tables closed shortly before the start-up are listed too
and read only if a press names one: a press repeated after the restart lost its answer is
then answered "already done", as it would have been without the restart.
"""

from __future__ import annotations

import logging
import time
from functools import partial

from storage import ResumeEntry

from . import restart
from .codec import table_from_row
from .effects import Effect, Effects, TimerChanged
from .model import Status, Table
from .persist import Aside
from .registry import Registry

__all__ = ["Resumable"]

log = logging.getLogger(__name__)


class Resumable:
    """The tables to resume after a start-up, read into the registry one at a time."""

    def __init__(self, registry: Registry, *, seed: int | None) -> None:
        self.registry = registry
        self.seed = seed
        self.set_aside: list[Aside] = []
        """Tables the restart could not use: (table id, chat id, group language, each if
        known)."""
        self.listed: dict[int, ResumeEntry] = {}
        """Tables listed at start-up and not resumed yet (to resume, or closed lately)."""
        self.resuming: set[int] = set()
        """Listed tables being read now."""

    async def list_tables(self, closed_within: float = 0.0) -> list[int]:
        """At start-up: archive the games that ended before the archive existed, then list
        the tables to resume and those closed in the last ``closed_within`` seconds; returns
        the ids to resume, the most recently active first. Nothing is read yet."""
        await self.registry.writer.archive_old_games()
        listing = partial(self.registry.storage.resume_index, time.time() - closed_within)
        entries = await self.registry.steady(listing, "listing the tables to resume")
        self.set_aside = []
        self.listed = {e.id: e for e in entries if e.id not in self.registry.tables}
        opened = sorted((e for e in self.listed.values() if e.open), key=lambda e: -e.updated_at)
        return [e.id for e in opened]

    def concerned(
        self, *, table_id: int | None = None, chat_id: int | None = None, user_id: int | None = None
    ) -> list[int]:
        """The listed tables not read yet that an update may change or read: the table it
        names, the tables of its chat and of its sender (a closed one only by its id)."""
        if not self.listed:
            return []
        return [
            e.id
            for e in self.listed.values()
            if e.id == table_id or (e.open and (e.chat_id == chat_id or user_id in e.users))
        ]

    async def resume_table(self, table_id: int) -> Effects:
        """Read a listed table and bring it in line with its game (saved if in play): what
        must be shown again (its timer's :class:`~bot.core.effects.TimerChanged` included).
        Nothing for a table not listed (resumed already); a table that cannot be read or
        used is set aside (:attr:`set_aside`), unless it was closed anyway."""
        entry = self.listed.get(table_id)
        if entry is None or table_id in self.resuming:
            return ()  # resumed, or under way (the caller who started it shows it)
        self.resuming.add(table_id)
        try:
            if table_id in self.registry.tables:
                return ()
            if not entry.open:
                return await self._recall(table_id)
            loaded = await self.registry.writer.load(table_id)
            if isinstance(loaded, tuple):
                self.set_aside.append(loaded)
                return ()
            return tuple(await self._reopen(loaded)) if loaded is not None else ()
        finally:  # listed until now: an update about it waits for it (concerned)
            self.listed.pop(table_id, None)
            self.resuming.discard(table_id)

    async def _recall(self, table_id: int) -> Effects:
        """Hold a table closed shortly before the start-up, for a late press on it (its
        eviction timer is armed); one that cannot be read is left alone."""
        try:
            read = partial(self.registry.storage.table, table_id)
            row = await self.registry.steady(read, f"reading table {table_id}")
            table = table_from_row(row) if row is not None else None
            if table is None or table.status.open:
                return ()  # gone, or opened again meanwhile: not held as a closed one
            restart.check(table, self.registry.clock())
        except Exception as exc:  # noqa: BLE001 - a closed table is only held for presses
            log.info("table %s (closed) cannot be read: %s", table_id, exc)
            return ()
        self.registry.tables[table_id] = table
        return (TimerChanged(table),)  # its eviction from memory, as after any close

    async def resume(self) -> Effects:
        """Resume every unfinished table now, in turn; returns what must be shown again.

        Also tables whose game is over but whose last deal or settlement the group was
        not shown yet (:class:`~bot.core.model.Unshown`). What the database cannot do now
        is tried again until it can (:mod:`.steady`); only a table whose stored values
        cannot be used is set aside (:attr:`set_aside`).
        """
        out: list[Effect] = []
        for table_id in await self.list_tables():
            out += await self.resume_table(table_id)
        log.info("resumed %d table(s)", len(self.registry.tables))
        return tuple(out)

    async def _reopen(self, table: Table) -> list[Effect]:
        """Hold a loaded table and bring it in line with its game (saved if in play)."""
        playing = table.status == Status.PLAYING
        try:  # one bad table never stops the others
            adopt = partial(self.registry.adopt, table)
            await self.registry.steady(adopt, f"table {table.id}: reading its players")
            restart.check(table, self.registry.clock())
            effects = restart.reopen(table, self.registry.clock(), self.seed)
            if playing:
                save = partial(self.registry.writer.save, table)
                await self.registry.steady(save, f"table {table.id}: saving at start-up")
        except Exception as exc:  # its values: the steady save raises nothing else
            await self.put_aside(table, exc)
            return []
        return effects

    async def put_aside(self, table: Table, exc: BaseException) -> None:
        """Take a table whose stored values cannot be used out of play (one log line); its
        chat is named in :attr:`set_aside` so that the group can be told."""
        self.registry.drop(table.id)
        chat_id = await self.registry.writer.set_aside(table.id, exc)
        self.set_aside.append((table.id, chat_id, table.settings.lang))
