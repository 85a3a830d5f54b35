"""The core service: the one owner of every change to a table (no Telegram here).

:meth:`TableService.change` is the one way a table changes: it takes the table's lock,
applies one change (the pure functions of :mod:`~bot.core.lobby`, :mod:`~bot.core.play`,
:mod:`~bot.core.chats`, ...), saves it, releases the lock and returns its
:mod:`effects <bot.core.effects>`. A change that is refused raises
:class:`~bot.core.errors.Rejected` and changes nothing. The service is made of parts:
:attr:`TableService.registry` (the tables held and what is read of them and of users),
:attr:`TableService.robots` (computer players, hints) and :attr:`TableService.resumable`
(tables read back after a start-up). The Telegram side reads tables and shows the
effects; which message shows what is its own (:mod:`bot.telegram.shown`): it only
confirms what the group saw (:meth:`TableService.shown`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Collection
from functools import partial

from bot.preferans.actions import Action
from bot.preferans.cards import Card
from bot.preferans.robot import STRONG, Budget
from bot.preferans.seats import Seat
from storage import Storage, StorageError

from . import chats, forced, lobby, offers, play, restart, robots, takeover
from .archive import Archive
from .codec import settings_json, state_json
from .effects import Effect, Effects, LobbyShown, MustStartPrivate, TimerChanged
from .errors import AlreadyDone, NotSaved, Rejected
from .model import Player, Status, Table, TableSettings
from .names import StandIn, named
from .persist import SAVE_RETRY, Change, each, stored
from .registry import Registry
from .restart import Shown
from .resumable import Resumable
from .robot_seats import RobotSeats

__all__ = ["TableService", "Shown", "LOBBY_TTL"]

log = logging.getLogger(__name__)

LOBBY_TTL = 30 * 60
"""Seconds an unstarted lobby stays open."""


class TableService:
    """All tables of the bot and every change to them."""

    def __init__(
        self,
        storage: Storage,
        *,
        seed: int | None = None,
        clock: Callable[[], float] = time.time,
        defaults: TableSettings | None = None,
        lobby_ttl: float = LOBBY_TTL,
        robot_budget: Budget = STRONG,
        stand_in: StandIn = lambda lang, number: f"#{number}",
    ) -> None:
        self.storage = storage
        self.seed = seed
        """A fixed base for the tables' deal seeds (tests); ``None``: random per table."""
        self.lobby_ttl = lobby_ttl
        self.stand_in = stand_in
        """Names a seated player whose name shows nothing (the adapter's catalogue text)."""
        self.registry = Registry(storage, clock=clock, defaults=defaults)
        """The tables held, and what is read of them and of users without a change."""
        self.robots = RobotSeats(self.registry, self.change, budget=robot_budget, seed=seed)
        """The computer players and the «💡» hints."""
        self.resumable = Resumable(self.registry, seed=seed)
        """The tables to read back after a start-up."""
        self.archive = Archive(storage)
        self._migrating = asyncio.Lock()
        """Held while a group's tables move to its supergroup (see :meth:`migrate`)."""
        """The finished games, their statistics and records."""

    def clock(self) -> float:
        """Now, by the service's clock (tests set their own)."""
        return self.registry.clock()

    # ------------------------------------------------------------------ the one way to change

    async def change(
        self, table: int | Table, change: Change, *, save: bool | None = None
    ) -> Effects:
        """Run ``change`` under the table's lock and save it: when it had effects (``save``
        ``None``), always (``True``) or never (``False``: only what is not stored).

        A table id names the table a press or command changes (refused while it is
        paused). When the turn passed to a person who decides on offers, the solver's
        check of them follows off the lock, noted under it (:mod:`.offers`).
        """
        if isinstance(table, int):
            table = self.registry.pressed(table)
        before = table.move
        effects = await self._locked(table, change, save)
        note = partial(self._locked, table, save=False)
        return await offers.checked(table, before, effects, note)

    async def _locked(self, table: Table, change: Change, save: bool | None) -> Effects:
        """:meth:`change` itself: under the lock, applied, saved or undone."""
        writer = self.registry.writer
        async with self.registry.lock(table):
            if self.registry.get(table.id) is not table:
                raise Rejected("err.stale")  # forgotten (closed) meanwhile
            before = writer.snapshot(table)
            try:
                effects = tuple(change(table))
                if save or (save is None and effects):
                    try:
                        await writer.save(table)
                    except Exception as exc:
                        # applied and saved, or not applied at all: memory goes back to what
                        # is stored, so a restart and the buttons already shown agree with it
                        writer.restore(table, before)
                        log.error("table %s: not saved, the change is undone: %s", table.id, exc)
                        raise NotSaved() from None
            finally:
                self.registry.note_seats(table)  # whoever sits there now: tables_of
        return effects

    async def _timed(self, table: Table, change: Change) -> Effects:
        """A timer's change; one that could not be saved is tried again a little later."""
        try:
            return await self.change(table, change)
        except NotSaved:
            retry = self.clock() + SAVE_RETRY
            table.deadline = max(table.deadline or retry, retry)
            return (TimerChanged(table),)

    # The chats' events below change each table on its own: one that cannot be saved is
    # undone and PartlySaved carries the others' effects and the redo of the rest.

    async def blocked(self, user_id: int) -> Effects:
        """The user blocked the bot: we cannot write to him any more."""
        if await self.registry.can_write(
            user_id
        ):  # every failed send to him comes here: write once
            await stored(
                self.storage.set_private_ok(user_id, False), partial(self.blocked, user_id)
            )
        return await each(
            self.change, self.registry.tables_of(user_id), partial(chats.blocked, user_id=user_id)
        )

    async def unblocked(self, player: Player, anew: Collection[int] | None = None) -> Effects:
        """The user opened his private chat (again): his hands are sent anew, those of the
        tables ``anew`` names when it is given (the others are brought up to date)."""
        redo = partial(self.unblocked, player, anew)
        await stored(self.registry.remember_user(player, private_ok=True), redo)
        tables = self.registry.tables_of(player.user_id)
        return await each(self.change, tables, partial(self._unblocked, player.user_id, anew))

    @staticmethod
    def _unblocked(user_id: int, anew: Collection[int] | None, table: Table) -> list[Effect]:
        return chats.unblocked(table, user_id, anew is None or table.id in anew)

    # ------------------------------------------------------------------ the lobby

    async def open_lobby(self, chat_id: int, owner: Player, title: str = "") -> Effects:
        """Open a lobby in ``chat_id``; raises :class:`Rejected` if one is already open."""
        if self.registry.open_table(chat_id) is not None:
            raise Rejected("table_exists")
        settings = self.registry.defaults.copy()
        settings.lang = owner.lang
        await self.registry.remember_user(owner)
        table = Table(id=0, chat_id=chat_id, owner_id=owner.user_id, settings=settings)
        table.title = title
        try:
            table.id = await self.storage.create_table(
                chat_id, owner.user_id, settings_json(settings), state_json(table)
            )
        except StorageError:
            raise Rejected("table_exists") from None
        table.deadline = self.clock() + self.lobby_ttl
        self.registry.tables[table.id] = table
        log.info("table %s opened in chat %s", table.id, chat_id)
        return await self.change(table, lambda tb: [LobbyShown(tb), TimerChanged(tb)])

    async def sit(self, table_id: int, player: Player) -> Effects:
        """Seat ``player``, or ask him to open the private chat first."""
        table = self.registry.pressed(table_id)
        lobby.check_sit(table, player.user_id)
        if not await self.registry.can_write(player.user_id):
            await self.registry.remember_user(player)
            waits = await self.change(table, lambda tb: lobby.wait(tb, player))
            return (MustStartPrivate(table, player), *waits)
        await self.registry.remember_user(player, private_ok=True)
        return await self.change(table, lambda tb: lobby.sit(tb, player, self.stand_in))

    async def stand(self, table_id: int, user_id: int) -> Effects:
        return await self.change(table_id, lambda tb: lobby.stand(tb, user_id))

    async def show_settings(self, table_id: int, user_id: int, shown: bool) -> Effects:
        """Open or close the lobby's settings keyboard."""
        return await self.change(
            table_id, lambda tb: lobby.show_settings(tb, user_id, shown), save=False
        )

    async def change_setting(self, table_id: int, user_id: int, key: str) -> Effects:
        return await self.change(
            table_id, lambda tb: [*lobby.change_setting(tb, user_id, key), *robots.renamed(tb)]
        )

    async def cancel(self, table_id: int, user_id: int) -> Effects:
        return await self.change(table_id, lambda tb: lobby.cancel(tb, user_id))

    async def expire(self, table_id: int) -> Effects:
        """The lobby's time is up (if the clock agrees)."""
        table = self.registry.get(table_id)
        if table is None or table.paused:
            return ()
        return await self._timed(table, lambda tb: lobby.expire(tb, self.clock()))

    async def start(self, table_id: int, user_id: int) -> Effects:
        """Start the game: every seat taken, pressed by a seated player."""

        def change(tb: Table) -> list[Effect]:
            if tb.status == Status.PLAYING and tb.seat_of(user_id) is not None:
                raise AlreadyDone()  # pressed again after a restart lost the answer
            lobby.in_lobby(tb)
            effects = play.start_game(tb, user_id, self.clock(), time.time(), self.seed)
            log.info("table %s: game started (%d players)", tb.id, len(tb.seats))
            return effects

        return await self.change(table_id, change)

    # ------------------------------------------------------------------ the game

    async def act(
        self, table_id: int, user_id: int, move: int, press: str, action: Action | None
    ) -> Effects:
        """Apply ``action`` (decoded from the press by the adapter, ``None`` if it names
        none) if it is among the legal ones of ``user_id`` at ``move``; ``press`` names the
        press (a repeated one is :class:`AlreadyDone`)."""
        return await self.change(
            table_id, lambda tb: play.act(tb, user_id, move, press, action, self.clock(), self.seed)
        )

    async def open_offers(self, table_id: int, user_id: int, move: int, shown: bool) -> Effects:
        """Show (``shown``) or hide the offer buttons of the person to act, checked by the
        solver when shown (not saved: only for this move)."""
        table = self.registry.pressed(table_id)
        note = partial(self.change, table, save=False)
        return await offers.open_offers(table, user_id, move, shown, note)

    async def confirm_discard(self, table_id: int, user_id: int, move: int, press: str) -> Effects:
        """Discard the two marked cards."""
        return await self.change(
            table_id,
            lambda tb: play.confirm_discard(tb, user_id, move, press, self.clock(), self.seed),
        )

    async def mark_discard(
        self, table_id: int, user_id: int, move: int, card: Card | None, mark: bool
    ) -> Effects:
        """Mark (``True``) or unmark a card for the declarer's discard."""
        return await self.change(
            table_id, lambda tb: play.mark_discard(tb, user_id, move, card, mark)
        )

    async def timeout(self, table_id: int, move: int, *, unseen: bool = False) -> Effects:
        """The turn of ``move`` timed out (if the clock agrees): act for the player, or give
        him a new turn while his buttons are ``unseen`` (not yet delivered)."""
        table = self.registry.get(table_id)
        if table is None or table.paused:
            return ()
        change = partial(play.timeout, move=move, seed=self.seed, unseen=unseen)
        return await self._timed(table, lambda tb: change(tb, now=self.clock()))

    async def forced_play(self, table_id: int, move: int) -> Effects:
        """After the pause, the forced card of ``move`` plays itself (:mod:`.forced`)."""
        if (table := self.registry.get(table_id)) is None or forced.forced_move(table) is None:
            return ()  # forgotten, or nothing is forced any more
        on = {p.user_id for _, p in table.seated() if await self.registry.autoplay(p.user_id)}
        change = partial(forced.play_forced, move=move, allowed=on, seed=self.seed)
        return await self._timed(table, lambda tb: change(tb, now=self.clock()))

    async def vote_stop(self, table_id: int, user_id: int) -> Effects:
        return await self.change(table_id, lambda tb: play.vote_stop(tb, user_id))

    async def take_seat(self, table_id: int, seat: Seat, player: Player) -> Effects:
        """``player`` takes over a seat whose player kept timing out (Кодекс 3.1.2), or
        takes a computer player's seat (back); or he is asked to open the private chat
        first."""
        table = self.registry.pressed(table_id)
        robot = robots.is_robot(table.player(seat))
        (robots.check_back if robot else takeover.check_take)(table, seat, player.user_id)
        if not await self.registry.can_write(player.user_id):
            await self.registry.remember_user(player)
            return (MustStartPrivate(table, player, seat),)
        await self.registry.remember_user(player, private_ok=True)
        player = named(player, seat, table.settings.lang, self.stand_in)
        take = robots.take_back if robot else takeover.take_seat
        return await self.change(table, lambda tb: take(tb, seat, player))

    # ------------------------------------------------------------------ the group

    async def group_lost(self, chat_id: int) -> Effects:
        """The bot cannot write to the group any more: pause its open tables."""
        tables = self.registry.in_chat(chat_id)
        if tables:
            log.info("tables %s pause: the bot left chat %s", [tb.id for tb in tables], chat_id)
        return await each(self.change, tables, chats.pause)

    async def group_back(self, chat_id: int) -> Effects:
        """The bot is in the group again: resume its paused tables."""
        return await each(self.change, self.registry.in_chat(chat_id), self._resume)

    def _resume(self, table: Table) -> list[Effect]:
        return chats.resume(table, self.clock())

    async def migrate(self, old_chat_id: int, new_chat_id: int) -> Effects:
        """The group became a supergroup: its tables and stored history move along.
        Telegram tells it twice (an update in each chat, and a send refused), at the same
        time: one move at a time, so the one that comes second finds nothing left to move."""
        async with self._migrating:
            moved = self.registry.in_chat(old_chat_id)
            if old_chat_id == new_chat_id or not moved:
                return ()
            redo = partial(self.migrate, old_chat_id, new_chat_id)
            await stored(self.storage.move_chat(old_chat_id, new_chat_id), redo)
            ids = [tb.id for tb in moved]
            log.info("tables %s move from chat %s to %s", ids, old_chat_id, new_chat_id)
            change = partial(chats.move_chat, new_chat_id=new_chat_id)
            return await each(partial(self.change, save=True), moved, change)

    # ------------------------------------------------------------------ what was shown

    async def shown(self, table: Table, what: Shown) -> None:
        """``what`` was sent to the group: a restart need not show it again."""
        if restart.due(table, what):
            await self._note(table, lambda tb: restart.mark_shown(tb, what))

    async def _note(self, table: Table, change: Callable[[Table], tuple[()]]) -> None:
        """Save what the Telegram side reports (a table forgotten meanwhile keeps nothing)."""
        with contextlib.suppress(Rejected):
            await self.change(table, change, save=True)
