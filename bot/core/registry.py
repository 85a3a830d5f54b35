"""The tables the service holds, and what can be read of them and of users without a change.

:class:`~bot.core.service.TableService` owns one :class:`Registry` (``service.registry``)
and changes tables only through its own ``change``; nothing here changes a table.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

from bot.preferans.game import FinishedDeal, Game, public_record
from bot.preferans.seats import Seat
from storage import Storage, archive

from .codec import settings_from_json, table_from_row
from .effects import Effects, HandShown, Remind
from .errors import Rejected
from .model import NOTIFY_MODES, RANK_STYLES, Player, Status, Table, TableSettings, is_robot_id
from .modes import NotifyMode, RankStyle
from .persist import Writer
from .steady import DATA_ERRORS, Steady

__all__ = ["Registry"]

log = logging.getLogger(__name__)


class Registry:
    """The bot's tables in memory, looked up by id, chat or player, each with its lock and
    the writer that saves it; the users' settings."""

    def __init__(
        self,
        storage: Storage,
        *,
        clock: Callable[[], float] = time.time,
        defaults: TableSettings | None = None,
    ) -> None:
        self.storage = storage
        self.tables: dict[int, Table] = {}
        self._seated: dict[int, set[int]] = {}
        """User id -> ids of the held tables he was seen seated at (:meth:`note_seats`; he
        may have left some since): where :meth:`tables_of` looks."""
        self._seen: dict[int, set[int]] = {}
        """Table id -> the users noted at it (to forget them with the table)."""
        self._notify: dict[int, NotifyMode] = {}
        self._ranks: dict[int, RankStyle] = {}
        self._autoplay: dict[int, bool] = {}
        self.locks: dict[int, asyncio.Lock] = {}
        """Each held table's lock (taken by the service's ``change``)."""
        self.steady = Steady()
        """Start-up's storage calls, tried until the database lets them through."""
        self.writer = Writer(storage, self.steady)
        self.clock = clock
        """The service's clock (tests set their own)."""
        self.defaults = defaults or TableSettings()
        """A new table's settings."""

    def pressed(self, table_id: int) -> Table:
        """The table a player's press, command or deep link changes: refused once it is
        gone, and while it is paused."""
        table = self.tables.get(table_id)
        if table is None:
            raise Rejected("err.stale")
        if table.paused:
            raise Rejected("err.paused")
        return table

    def lock(self, table: Table) -> asyncio.Lock:
        """The table's lock: one change at a time."""
        lock = self.locks.get(table.id)
        if lock is None:
            lock = self.locks[table.id] = asyncio.Lock()
        return lock

    # ------------------------------------------------------------------ reading

    def get(self, table_id: int) -> Table | None:
        return self.tables.get(table_id)

    def open_table(self, chat_id: int) -> Table | None:
        """The chat's table in the lobby or in play."""
        for table in self.tables.values():
            if table.chat_id == chat_id and table.status.open:
                return table
        return None

    def tables_of(self, user_id: int) -> list[Table]:
        """Open tables where ``user_id`` sits, in the registry's order.

        Only the tables he was noted at are checked: each hand message rendered asks for
        its player's tables (two groups of one title), and checking every table's seats
        took 15 us at 20 tables, 48 us at 50 and 126 us at 200 (timed alone), ~5 % of the
        bot's CPU at 200 busy tables.
        """
        ids = self._seated.get(user_id)
        if not ids:
            return []
        return [
            tb
            for tb in self.tables.values()
            if tb.id in ids and tb.status.open and tb.seat_of(user_id) is not None
        ]

    def note_seats(self, table: Table) -> None:
        """Note who sits at ``table`` (for :meth:`tables_of`): after every change of a
        table (the service's ``change``, the only way seats change) and when a table is
        held."""
        seen = self._seen.setdefault(table.id, set())
        for player in table.seats:
            if player is not None and player.user_id not in seen:
                seen.add(player.user_id)
                self._seated.setdefault(player.user_id, set()).add(table.id)

    def _unnote(self, table_id: int) -> None:
        for user_id in self._seen.pop(table_id, ()):
            ids = self._seated.get(user_id)
            if ids is not None:
                ids.discard(table_id)
                if not ids:
                    del self._seated[user_id]

    async def last_game(self, chat_id: int) -> tuple[Table, Game] | None:
        """The chat's current or most recent game (for ``/pulka``)."""
        table = self.open_table(chat_id)
        if table is not None and table.game is not None:
            return table, table.game
        old = await self.writer.load_last(chat_id, self.tables)
        return (old, old.game) if old is not None and old.game is not None else None

    async def finished_deal(self, table_id: int, deal_no: int) -> tuple[Table, FinishedDeal]:
        """Deal ``deal_no`` of table ``table_id``'s game, scored (its analysis asked for
        later): from memory, or read from the database for a table already forgotten (not
        kept). Raises :class:`Rejected` when there is no such deal any more."""
        table = self.tables.get(table_id)
        if table is None:
            try:
                row = await self.storage.table(table_id)
                table = table_from_row(row) if row is not None and row.record else None
            except Exception as exc:  # unreadable, or the database is away: no analysis now
                log.warning("table %s: cannot be read for an analysis: %s", table_id, exc)
                table = None
        game = table.game if table is not None else None
        if table is None or game is None or not 1 <= deal_no <= len(game.finished_deals):
            raise Rejected("err.stale")
        return table, game.finished_deals[deal_no - 1]

    async def chat_lang(self, chat_id: int) -> str | None:
        """The language of the chat's open or most recent table (``None``: never had one)."""
        table = self.open_table(chat_id)
        if table is not None:
            return table.settings.lang
        row = await self.storage.last_table(chat_id)
        lang = row.settings.get("lang") if row is not None else None
        return lang if isinstance(lang, str) else None

    async def rules_settings(self, chat_id: int) -> TableSettings:
        """The settings ``/rules`` states in a group: its open table's, else its last
        table's (a game that just ended); the bot's defaults only where no table ever was."""
        table = self.open_table(chat_id)
        if table is not None:
            return table.settings
        row = await self.storage.last_table(chat_id)
        if row is not None:
            with contextlib.suppress(ValueError, TypeError):  # an unreadable row: defaults
                return settings_from_json(row.settings)
        return self.defaults

    async def last_game_settings(
        self, user_id: int
    ) -> tuple[TableSettings, archive.GameSummary] | None:
        """The settings of the last finished or stopped game ``user_id`` played in any
        group, with that game (``None``: none, or its table cannot be read)."""
        games = await archive.history(self.storage, user_id=user_id, limit=1)
        if not games:
            return None
        with contextlib.suppress(*DATA_ERRORS):  # a row that cannot be decoded
            row = await self.storage.table(games[0].table_id)
            return (settings_from_json(row.settings), games[0]) if row is not None else None
        return None

    def live_record(self, table: Table) -> dict[str, Any] | None:
        """The public record of a game in play (its current deal left out), for /export."""
        if table.status != Status.PLAYING or table.game is None:
            return None
        return public_record(table.game)

    def remind(self, table_id: int, move: int) -> Effects:
        """The player to act at ``move`` should be reminded (nothing changes): of the time
        he has left, or with the timer off that the table waits for him."""
        found = self._person_to_act(table_id, move)
        if found is None:
            return ()
        table, seat = found
        if table.deadline is None:
            return (Remind(table, seat, None),) if not table.settings.turn_time else ()
        return (Remind(table, seat, max(1, round(table.deadline - self.clock()))),)

    def tick(self, table_id: int, move: int) -> Effects:
        """The time shown in the hand message of the player to act at ``move`` is due to be
        brought up to date (nothing changes)."""
        found = self._person_to_act(table_id, move)
        return (HandShown(*found),) if found is not None else ()

    def _person_to_act(self, table_id: int, move: int) -> tuple[Table, Seat] | None:
        table = self.tables.get(table_id)
        if table is None or table.paused or table.move != move or table.game is None:
            return None
        deal = table.game.current
        if table.status != Status.PLAYING or deal is None or deal.actor is None:
            return None
        player = table.player(deal.actor)
        return (table, deal.actor) if player is not None and not player.is_robot else None

    # ------------------------------------------------------------------ users

    async def remember_user(self, player: Player, *, private_ok: bool | None = None) -> None:
        await self.storage.save_user(player.user_id, player.name, player.lang, private_ok)
        await self.load_ranks(player.user_id)

    async def load_ranks(self, user_id: int) -> None:
        """Read the player's card ranks into memory, where :meth:`card_ranks` finds them."""
        if not is_robot_id(user_id) and user_id not in self._ranks:
            self._ranks[user_id] = RankStyle(await self.storage.card_ranks(user_id))

    def card_ranks(self, user_id: int) -> RankStyle:
        """How ``user_id``'s private messages write card ranks (:data:`RANK_STYLES`): read
        when he sat down (or the table was resumed), J Q K A until then."""
        return self._ranks.get(user_id, RankStyle.LATIN)

    async def set_card_ranks(self, player: Player, ranks: RankStyle) -> Effects:
        """Store how the player's cards are written; his hand messages show it at once."""
        if ranks not in RANK_STYLES:
            raise Rejected("err.illegal")
        await self.remember_user(player)
        await self.storage.set_card_ranks(player.user_id, ranks)
        self._ranks[player.user_id] = RankStyle(ranks)
        return tuple(
            HandShown(tb, seat)
            for tb in self.tables_of(player.user_id)
            if (seat := tb.seat_of(player.user_id)) is not None
        )

    async def notify_mode(self, user_id: int) -> NotifyMode:
        """The player's turn-notification setting (:data:`NOTIFY_MODES`), cached."""
        mode = self._notify.get(user_id)
        if mode is None:
            mode = self._notify[user_id] = NotifyMode(await self.storage.notify_mode(user_id))
        return mode

    async def set_notify_mode(self, player: Player, mode: NotifyMode) -> None:
        """Store the player's turn-notification setting."""
        if mode not in NOTIFY_MODES:
            raise Rejected("err.illegal")
        await self.remember_user(player)
        await self.storage.set_notify_mode(player.user_id, mode)
        self._notify[player.user_id] = NotifyMode(mode)

    async def autoplay(self, user_id: int) -> bool:
        """Whether the player's forced cards play themselves, cached."""
        on = self._autoplay.get(user_id)
        if on is None:
            on = self._autoplay[user_id] = await self.storage.autoplay(user_id)
        return on

    async def set_autoplay(self, player: Player, on: bool) -> None:
        await self.remember_user(player)
        await self.storage.set_autoplay(player.user_id, on)
        self._autoplay[player.user_id] = on

    async def can_write(self, user_id: int) -> bool:
        row = await self.storage.user(user_id)
        return bool(row and row.private_ok)

    async def adopt(self, table: Table) -> None:
        """Hold a table loaded after a restart, its players' card ranks read."""
        self.tables[table.id] = table
        self.note_seats(table)
        for _, player in table.seated():
            await self.load_ranks(player.user_id)

    def in_chat(self, chat_id: int) -> list[Table]:
        """Every held table of the chat, open or not."""
        return [tb for tb in list(self.tables.values()) if tb.chat_id == chat_id]

    def forget(self, table_id: int) -> bool:
        """Drop a closed table from memory (its rows stay); ``False`` while it is not done
        (open, busy, or something of it still to be shown)."""
        table = self.tables.get(table_id)
        if table is None:
            return True
        lock = self.locks.get(table_id)
        if table.status.open or (lock and lock.locked()) or table.unshown.anything:
            return False
        del self.tables[table_id]
        self._unnote(table_id)
        self.locks.pop(table_id, None)
        self.writer.forget(table_id)
        return True

    def drop(self, table_id: int) -> None:
        """Let go of a table whatever its state (one that cannot be used)."""
        self.tables.pop(table_id, None)
        self._unnote(table_id)
        self.locks.pop(table_id, None)
