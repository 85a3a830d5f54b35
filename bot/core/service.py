"""The core service: the one owner of every change to a table (no Telegram here).

Each public method that changes a table takes the table's lock, applies one change (the
pure functions of :mod:`~bot.core.lobby`, :mod:`~bot.core.play`, :mod:`~bot.core.chats`),
saves it, releases the lock and returns its :mod:`effects <bot.core.effects>`. A change
that is refused raises :class:`Rejected` and changes nothing. The Telegram side reads
tables and shows the effects; it only fills in a sent message's id in its
:class:`~bot.core.model.Slot` (which :meth:`TableService.message_sent` saves).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from functools import partial

from bot.preferans.cards import Card, Seat
from bot.preferans.robot import STRONG, Budget
from storage import Storage, StorageError

from . import chats, forced, lobby, offers, play, restart, robots, takeover
from .codec import settings_json, state_json
from .effects import Effect, Effects, LobbyShown, MustStartPrivate, TimerChanged
from .hints import Hints
from .model import Player, Slot, Status, Table, TableSettings
from .names import StandIn, named
from .persist import SAVE_RETRY, Aside, NotSaved, each, stored
from .play import AlreadyDone, Choose, Rejected
from .restart import Shown
from .resumable import Resumable
from .robot_seats import RobotSeats

__all__ = ["TableService", "Rejected", "AlreadyDone", "Choose", "Shown", "LOBBY_TTL"]

log = logging.getLogger(__name__)

LOBBY_TTL = 30 * 60
"""Seconds an unstarted lobby stays open."""


class TableService(RobotSeats, Resumable):
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
        super().__init__(storage)
        self.seed = seed
        """A fixed base for the tables' deal seeds (tests); ``None``: random per table."""
        self.clock = clock
        self.defaults = defaults or TableSettings()
        self.lobby_ttl = lobby_ttl
        self.robot_budget = robot_budget
        """How hard computer players think over their cards."""
        self.stand_in = stand_in
        """Names a seated player whose name shows nothing (the adapter's catalogue text)."""
        self.hints = Hints()
        self.set_aside: list[Aside] = []
        """Tables the restart could not use: (table id, chat id, group language, each if
        known)."""
        self.listed = {}
        self.resuming = set()

    # ------------------------------------------------------------------ the one way to change

    async def _change(
        self,
        table: Table,
        change: Callable[[Table], Iterable[Effect]],
        *,
        save: bool | None = None,
    ) -> Effects:
        """Run ``change`` under the table's lock and save it: when it had effects (``save``
        ``None``), always (``True``) or never (``False``: only what is not stored)."""
        lock = self._locks.get(table.id)
        if lock is None:
            lock = self._locks[table.id] = asyncio.Lock()
        async with lock:
            if self.tables.get(table.id) is not table:
                raise Rejected("err.stale")  # forgotten (closed) meanwhile
            before = self._writer.snapshot(table)
            effects = tuple(change(table))
            if save or (save is None and effects):
                try:
                    await self._writer.save(table)
                except Exception as exc:
                    # applied and saved, or not applied at all: memory goes back to what is
                    # stored, so a restart and the buttons already shown agree with it
                    self._writer.restore(table, before)
                    log.error("table %s: not saved, the change is undone: %s", table.id, exc)
                    raise NotSaved() from None
        return effects

    async def _timed(self, table: Table, change: Callable[[Table], Iterable[Effect]]) -> Effects:
        """A timer's change; one that could not be saved is tried again a little later."""
        try:
            return await self._change(table, change)
        except NotSaved:
            retry = self.clock() + SAVE_RETRY
            table.deadline = max(table.deadline or retry, retry)
            return (TimerChanged(table),)

    # The chats' events below change each table on its own: one that cannot be saved is
    # undone and PartlySaved carries the others' effects and the redo of the rest.

    async def blocked(self, user_id: int) -> Effects:
        """The user blocked the bot: we cannot write to him any more."""
        if await self.can_write(user_id):  # every failed send to him comes here: write once
            await stored(
                self.storage.set_private_ok(user_id, False), partial(self.blocked, user_id)
            )
        return await each(
            self._change, self.tables_of(user_id), partial(chats.blocked, user_id=user_id)
        )

    async def unblocked(self, player: Player) -> Effects:
        """The user opened his private chat (again): his hands are sent anew."""
        await stored(self.remember_user(player, private_ok=True), partial(self.unblocked, player))
        change = partial(chats.unblocked, user_id=player.user_id)
        return await each(self._change, self.tables_of(player.user_id), change)

    # ------------------------------------------------------------------ the lobby

    async def open_lobby(self, chat_id: int, owner: Player, title: str = "") -> Effects:
        """Open a lobby in ``chat_id``; raises :class:`Rejected` if one is already open."""
        if self.open_table(chat_id) is not None:
            raise Rejected("table_exists")
        settings = self.defaults.copy()
        settings.lang = owner.lang
        await self.remember_user(owner)
        table = Table(id=0, chat_id=chat_id, owner_id=owner.user_id, settings=settings)
        table.title = title
        try:
            table.id = await self.storage.create_table(
                chat_id, owner.user_id, settings_json(settings), state_json(table)
            )
        except StorageError:
            raise Rejected("table_exists") from None
        table.deadline = self.clock() + self.lobby_ttl
        table.messages.table_slot = Slot(chat_id)
        self.tables[table.id] = table
        log.info("table %s opened in chat %s", table.id, chat_id)
        return await self._change(table, lambda tb: [LobbyShown(tb), TimerChanged(tb)])

    async def sit(self, table_id: int, player: Player) -> Effects:
        """Seat ``player``, or ask him to open the private chat first."""
        table = self._pressed(table_id)
        lobby.check_sit(table, player.user_id)
        if not await self.can_write(player.user_id):
            await self.remember_user(player)
            waits = await self._change(table, lambda tb: lobby.wait(tb, player))
            return (MustStartPrivate(table, player), *waits)
        await self.remember_user(player, private_ok=True)
        return await self._change(table, lambda tb: lobby.sit(tb, player, self.stand_in))

    async def stand(self, table_id: int, user_id: int) -> Effects:
        return await self._change(self._pressed(table_id), lambda tb: lobby.stand(tb, user_id))

    async def show_settings(self, table_id: int, user_id: int, shown: bool) -> Effects:
        """Open or close the lobby's settings keyboard."""
        return await self._change(
            self._pressed(table_id), lambda tb: lobby.show_settings(tb, user_id, shown), save=False
        )

    async def change_setting(self, table_id: int, user_id: int, key: str) -> Effects:
        return await self._change(
            self._pressed(table_id),
            lambda tb: [*lobby.change_setting(tb, user_id, key), *robots.renamed(tb)],
        )

    async def cancel(self, table_id: int, user_id: int) -> Effects:
        return await self._change(self._pressed(table_id), lambda tb: lobby.cancel(tb, user_id))

    async def expire(self, table_id: int) -> Effects:
        """The lobby's time is up (if the clock agrees)."""
        table = self.tables.get(table_id)
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

        return await self._change(self._pressed(table_id), change)

    # ------------------------------------------------------------------ the game

    async def act(
        self, table_id: int, user_id: int, move: int, press: str, choose: Choose
    ) -> Effects:
        """Apply the action ``choose`` picks among the legal ones of ``user_id`` at ``move``;
        ``press`` names the press (a repeated one is :class:`AlreadyDone`)."""
        table = self._pressed(table_id)
        changed = self._change(
            table, lambda tb: play.act(tb, user_id, move, press, choose, self.clock(), self.seed)
        )
        return await self._sure(table, changed)

    async def _sure(self, table: Table, changed: Awaitable[Effects]) -> Effects:
        """``changed``'s effects, the person to act next told which offers are guaranteed."""
        note = partial(self._change, table, save=False)
        return await offers.checked(table, table.move, await changed, note)  # move: before

    async def open_offers(self, table_id: int, user_id: int, move: int, shown: bool) -> Effects:
        """Show (``shown``) or hide the offer buttons of the person to act, checked by the
        solver when shown (not saved: only for this move)."""
        table = self._pressed(table_id)
        note = partial(self._change, table, save=False)
        return await offers.open_offers(table, user_id, move, shown, note)

    async def confirm_discard(self, table_id: int, user_id: int, move: int, press: str) -> Effects:
        """Discard the two marked cards."""
        return await self._change(
            self._pressed(table_id),
            lambda tb: play.confirm_discard(tb, user_id, move, press, self.clock(), self.seed),
        )

    async def mark_discard(
        self, table_id: int, user_id: int, move: int, card: Card | None, mark: bool
    ) -> Effects:
        """Mark (``True``) or unmark a card for the declarer's discard."""
        return await self._change(
            self._pressed(table_id), lambda tb: play.mark_discard(tb, user_id, move, card, mark)
        )

    async def timeout(self, table_id: int, move: int, *, unseen: bool = False) -> Effects:
        """The turn of ``move`` timed out (if the clock agrees): act for the player, or give
        him a new turn while his buttons are ``unseen`` (not yet delivered)."""
        table = self.tables.get(table_id)
        if table is None or table.paused:
            return ()
        change = partial(play.timeout, move=move, seed=self.seed, unseen=unseen)
        timed = self._timed(table, lambda tb: change(tb, now=self.clock()))
        return await self._sure(table, timed)

    async def forced_play(self, table_id: int, move: int) -> Effects:
        """After the pause, the forced card of ``move`` plays itself (:mod:`.forced`)."""
        if (table := self.tables.get(table_id)) is None or forced.forced_move(table) is None:
            return ()  # forgotten, or nothing is forced any more
        on = {p.user_id for _, p in table.seated() if await self.autoplay(p.user_id)}
        change = partial(forced.play_forced, move=move, allowed=on, seed=self.seed)
        return await self._sure(table, self._timed(table, lambda tb: change(tb, now=self.clock())))

    async def vote_stop(self, table_id: int, user_id: int) -> Effects:
        return await self._change(self._pressed(table_id), lambda tb: play.vote_stop(tb, user_id))

    async def take_seat(self, table_id: int, seat: Seat, player: Player) -> Effects:
        """``player`` takes over a seat whose player kept timing out (Кодекс 3.1.2), or is
        asked to open the private chat first. A computer player's seat is taken back."""
        table = self._pressed(table_id)
        if robots.is_robot(table.player(seat)):
            return await self.take_back(table_id, seat, player)
        takeover.check_take(table, seat, player.user_id)
        if not await self.can_write(player.user_id):
            await self.remember_user(player)
            return (MustStartPrivate(table, player, seat),)
        await self.remember_user(player, private_ok=True)
        player = named(player, seat, table.settings.lang, self.stand_in)
        return await self._change(table, lambda tb: takeover.take_seat(tb, seat, player))

    # ------------------------------------------------------------------ computer players

    # ------------------------------------------------------------------ the group

    async def group_lost(self, chat_id: int) -> Effects:
        """The bot cannot write to the group any more: pause its open tables."""
        tables = self._in_chat(chat_id)
        if tables:
            log.info("tables %s pause: the bot left chat %s", [tb.id for tb in tables], chat_id)
        return await each(self._change, tables, chats.pause)

    async def group_back(self, chat_id: int) -> Effects:
        """The bot is in the group again: resume its paused tables."""
        return await each(self._change, self._in_chat(chat_id), self._resume)

    def _resume(self, table: Table) -> list[Effect]:
        return chats.resume(table, self.clock())

    async def migrate(self, old_chat_id: int, new_chat_id: int) -> Effects:
        """The group became a supergroup: its tables and stored history move along."""
        moved = self._in_chat(old_chat_id)
        if old_chat_id == new_chat_id or not moved:
            return ()
        redo = partial(self.migrate, old_chat_id, new_chat_id)
        await stored(self.storage.move_chat(old_chat_id, new_chat_id), redo)
        log.info(
            "tables %s move from chat %s to %s", [tb.id for tb in moved], old_chat_id, new_chat_id
        )
        change = partial(chats.move_chat, new_chat_id=new_chat_id)
        return await each(partial(self._change, save=True), moved, change)

    # ------------------------------------------------------------------ what was shown

    async def message_sent(self, slot: Slot) -> None:
        """A kept-up-to-date message got its id: save it so a restart can edit it."""
        for table in list(self.tables.values()):
            m = table.messages
            if slot is m.table_slot or slot is m.vote or slot in m.hand_slots.values():
                await self._note(table, lambda tb: ())

    async def reminder_sent(self, table: Table, slot: Slot) -> None:
        """The turn notification ``slot`` was sent (saved: a restart deletes it)."""
        await self._note(table, lambda tb: _put(tb.messages, "reminder", slot))

    def reminder_gone(self, table: Table) -> Slot | None:
        """Forget the turn notification, to be deleted (saved with the next change)."""
        old, table.messages.reminder = table.messages.reminder, None
        return old

    async def buttons_posted(self, table: Table, slot: Slot, text: str) -> None:
        """A group message whose buttons end with the game was sent (saved)."""
        await self._note(
            table, lambda tb: _put(tb.messages, "live", [*tb.messages.live, (slot, text)])
        )

    def buttons_ended(self, table: Table) -> list[tuple[Slot, str]]:
        """Forget the messages whose buttons go now (saved with the settlement's note)."""
        live, table.messages.live = table.messages.live, []
        return live

    async def sheet_sent(self, table: Table, message_id: int, photo: bool) -> None:
        """The group's sheet message is now ``message_id``."""

        def change(tb: Table) -> tuple[()]:
            tb.messages.sheet_message, tb.messages.sheet_photo = message_id, photo
            return ()

        if self.tables.get(table.id) is table:
            await self._note(table, change)
        else:
            change(table)  # a finished game shown by /pulka: not kept

    async def shown(self, table: Table, what: Shown) -> None:
        """``what`` was sent to the group: a restart need not show it again."""
        if restart.due(table, what):
            await self._note(table, lambda tb: restart.mark_shown(tb, what))

    async def _note(self, table: Table, change: Callable[[Table], tuple[()]]) -> None:
        """Save what the Telegram side reports (a table forgotten meanwhile keeps nothing)."""
        with contextlib.suppress(Rejected):
            await self._change(table, change, save=True)


def _put(obj: object, name: str, value: object) -> tuple[()]:
    """Set what the Telegram side reported (no effect to show)."""
    setattr(obj, name, value)
    return ()
