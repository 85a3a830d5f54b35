"""The game service: tables, seats, actions, timeouts and persistence — no Telegram here.

Every change runs under the table's lock (:meth:`GameService.lock`) and is saved before
its effects are shown. Legal moves come only from the engine (``seat_view(...).legal``);
a button code is looked up among them, and the timeout action is picked from them by
:func:`auto_action`.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bot.callbacks import action_code
from bot.preferans.actions import (
    Action,
    Bid,
    ChooseDefence,
    Declare,
    Discard,
    IllegalAction,
    Play,
    Whist,
)
from bot.preferans.cards import Card, Seat, parse_card
from bot.preferans.deal import Deal
from bot.preferans.game import FinishedDeal, Game
from bot.preferans.outcome import Defence, WhistAnswer
from bot.preferans.views import SeatView, seat_view
from bot.stats import Holder, game_rows
from bot.tables import (
    CANCELLED,
    CLOSED_STATES,
    EXPIRED,
    LOBBY,
    OVER,
    PLAYING,
    SETTING_CHOICES,
    Player,
    Slot,
    Table,
    TableSettings,
)
from storage import GameArchive, Storage, StorageError, TableRow

__all__ = [
    "GameService",
    "Rejected",
    "AlreadyDone",
    "Step",
    "DealEnd",
    "auto_action",
    "LOBBY_TTL",
]

log = logging.getLogger(__name__)

LOBBY_TTL = 30 * 60
"""Seconds an unstarted lobby stays open."""

REPLACE_AFTER = 2
"""Consecutive timeouts after which another player may take the seat (Кодекс 3.1.2)."""


class Rejected(Exception):
    """A press or command that changes nothing; ``key`` is the i18n text of the alert."""

    alert = True
    """Whether the answer is an alert (a pop-up) rather than a short notice."""

    def __init__(self, key: str, **values: Any) -> None:
        super().__init__(key)
        self.key = key
        self.values = values


class AlreadyDone(Rejected):
    """The same press was already applied (its answer was lost, e.g. in a restart)."""

    alert = False

    def __init__(self) -> None:
        super().__init__("ok.already")


RECENT_PRESSES = 12
"""Accepted presses remembered per table to recognise a repeated one."""


@dataclass(slots=True)
class DealEnd:
    """A deal that just ended, with the messages that showed it."""

    deal_no: int
    finished: FinishedDeal
    table_slot: Slot | None
    hand_slots: dict[int, Slot]


@dataclass(slots=True)
class Step:
    """What one accepted change did (for the presenter)."""

    action: Action | None = None
    actor_seat: int | None = None
    """The seat whose player decided ``action`` (in open defence the whister)."""
    auto: bool = False
    ended: list[DealEnd] = field(default_factory=list)
    new_deal: bool = False
    game_over: bool = False
    replaceable: int | None = None
    """A seat that just became replaceable after repeated timeouts."""


def auto_action(view: SeatView) -> Action:
    """The safe action for a player who ran out of time, picked from ``view.legal``.

    Pass in the auction and whisting; closed defence; the lowest legal card; a declarer
    discards his two lowest cards and names the contract he bid.
    """
    legal = view.legal
    if not legal:
        raise ValueError("nothing to do")
    first = legal[0]
    if isinstance(first, Bid):
        return next((a for a in legal if isinstance(a, Bid) and a.contract is None), first)
    if isinstance(first, Whist):
        return next(
            (a for a in legal if isinstance(a, Whist) and a.answer is WhistAnswer.PASS), first
        )
    if isinstance(first, ChooseDefence):
        return next(
            (a for a in legal if isinstance(a, ChooseDefence) and a.defence is Defence.CLOSED),
            first,
        )
    if isinstance(first, Declare):
        bid = view.public.bid
        return next((a for a in legal if isinstance(a, Declare) and a.contract == bid), first)
    if isinstance(first, Discard):
        return min(
            (a for a in legal if isinstance(a, Discard)),
            key=lambda a: sorted((int(c.rank), int(c.suit)) for c in a.cards),
        )
    return min(
        (a for a in legal if isinstance(a, Play)),
        key=lambda a: (int(a.card.rank), int(a.card.suit)),
    )


class GameService:
    """All tables of the bot. Use under :meth:`lock` for every change of a table."""

    def __init__(
        self,
        storage: Storage,
        *,
        seed: int | None = None,
        clock: Callable[[], float] = time.time,
        defaults: TableSettings | None = None,
        lobby_ttl: float = LOBBY_TTL,
    ) -> None:
        self.storage = storage
        self.seed = seed
        """A fixed base for the tables' deal seeds (tests); ``None``: random per table."""
        self.clock = clock
        self.defaults = defaults or TableSettings()
        self.lobby_ttl = lobby_ttl
        self.tables: dict[int, Table] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        self._saved: dict[int, tuple[Any, ...]] = {}
        """Table id -> what the stored record holds besides its current deal (see
        :meth:`save`)."""

    # ------------------------------------------------------------------ lookup

    def lock(self, table_id: int) -> asyncio.Lock:
        """The lock that orders all changes of one table."""
        lock = self._locks.get(table_id)
        if lock is None:
            lock = self._locks[table_id] = asyncio.Lock()
        return lock

    def get(self, table_id: int) -> Table | None:
        return self.tables.get(table_id)

    def forget(self, table_id: int) -> bool:
        """Drop a closed table from memory (its rows stay); ``False`` if it is not done yet.

        Done: closed, and for a game that is over, its last deals and settlement shown
        (see :mod:`bot.recovery`); otherwise it must stay to be shown after all.
        """
        table = self.tables.get(table_id)
        if table is None:
            return True
        lock = self._locks.get(table_id)
        if table.status not in CLOSED_STATES or (lock is not None and lock.locked()):
            return False
        if table.status == OVER and (table.unshown_ends or table.settlement_shown is False):
            return False
        del self.tables[table_id]
        self._locks.pop(table_id, None)
        self._saved.pop(table_id, None)
        return True

    def open_table(self, chat_id: int) -> Table | None:
        """The chat's table in the lobby or in play."""
        for table in self.tables.values():
            if table.chat_id == chat_id and table.status in (LOBBY, PLAYING):
                return table
        return None

    def tables_of(self, user_id: int) -> list[Table]:
        """Open tables where ``user_id`` sits."""
        return [
            tb
            for tb in self.tables.values()
            if tb.status in (LOBBY, PLAYING) and tb.seat_of(user_id) is not None
        ]

    async def last_game(self, chat_id: int) -> tuple[Table, Game] | None:
        """The chat's current or most recent game (for ``/pulka``)."""
        table = self.open_table(chat_id)
        if table is not None and table.game is not None:
            return table, table.game
        row = await self.storage.last_table(chat_id)
        if row is None or not row.record:
            return None
        cached = self.tables.get(row.id)
        if cached is not None and cached.game is not None:
            return cached, cached.game
        return _table_from_row(row), Game.from_record(row.record)

    # ------------------------------------------------------------------ users

    async def remember_user(self, player: Player, *, private_ok: bool | None = None) -> None:
        await self.storage.save_user(player.user_id, player.name, player.lang, private_ok)

    async def can_write(self, user_id: int) -> bool:
        row = await self.storage.user(user_id)
        return bool(row and row.private_ok)

    async def blocked(self, user_id: int) -> None:
        """The user blocked the bot: we cannot write to him any more."""
        await self.storage.set_private_ok(user_id, False)

    # ------------------------------------------------------------------ lobby

    async def new_table(self, chat_id: int, owner: Player, title: str = "") -> Table:
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
                chat_id, owner.user_id, settings.to_json(), table.state_json()
            )
        except StorageError:
            raise Rejected("table_exists") from None
        table.deadline = self.clock() + self.lobby_ttl
        self.tables[table.id] = table
        await self.save(table)
        return table

    def _lobby(self, table: Table) -> None:
        if table.status != LOBBY:
            raise Rejected("err.stale")

    async def sit(self, table: Table, player: Player) -> int:
        """Seat ``player`` in the first free seat; the caller checked he can be written to."""
        self._lobby(table)
        if table.seat_of(player.user_id) is not None:
            raise Rejected("err.already")
        free = [i for i, p in enumerate(table.seats) if p is None]
        if not free:
            raise Rejected("err.full")
        await self.remember_user(player, private_ok=True)
        table.seats[free[0]] = player
        await self.save(table)
        return free[0]

    async def stand(self, table: Table, user_id: int) -> None:
        self._lobby(table)
        seat = table.seat_of(user_id)
        if seat is None:
            raise Rejected("err.not_seated")
        table.seats[seat] = None
        await self.save(table)

    async def change_setting(self, table: Table, user_id: int, key: str) -> None:
        """Cycle one setting to its next choice (the table's owner only)."""
        self._lobby(table)
        if user_id != table.owner_id:
            raise Rejected("err.owner_only")
        choices = SETTING_CHOICES[key]
        s = table.settings
        if key in ("players", "convention", "pulka", "turn_time", "lang", "sheet"):
            current = getattr(s, key)
        else:
            current = s.option(key)
        index = choices.index(current) if current in choices else -1
        value = choices[(index + 1) % len(choices)]
        if key in ("players", "convention", "pulka", "turn_time", "lang", "sheet"):
            setattr(s, key, value)
            if key == "players":
                table.resize(value)
            if key == "convention":
                s.options.pop("whist_type", None)  # back to the new convention's preset
        else:
            s.options[key] = value
            if value == s.rules().convention.defaults.get(key):
                s.options.pop(key)
        await self.save(table)

    async def cancel(self, table: Table, user_id: int) -> None:
        self._lobby(table)
        if user_id != table.owner_id:
            raise Rejected("err.owner_only")
        table.status = CANCELLED
        table.deadline = None
        await self.save(table)

    async def expire(self, table: Table) -> bool:
        """Close a lobby nobody started; ``False`` if it is not due (or not a lobby)."""
        if table.status != LOBBY or table.deadline is None or self.clock() < table.deadline:
            return False
        table.status = EXPIRED
        table.deadline = None
        await self.save(table)
        return True

    async def start(self, table: Table, user_id: int) -> Step:
        """Start the game: every seat taken, pressed by a seated player."""
        self._lobby(table)
        if table.seat_of(user_id) is None:
            raise Rejected("err.not_seated")
        if not table.full:
            raise Rejected("err.not_full")
        names = [p.name for p in table.seats if p is not None]
        if not table.seed:
            table.seed = self._new_seed(table)
        first_dealer = Seat(random.Random(f"{table.seed}:dealer").randrange(len(names)))
        table.game = Game(table.settings.rules(), names, first_dealer=first_dealer)
        table.status = PLAYING
        table.timeouts = {}
        table.stop_votes = set()
        table.started_at = time.time()
        table.holders = [Holder(seat, 1, p.user_id, p.name).to_json() for seat, p in table.seated()]
        if table.table_slot is not None:
            table.lobby_message = table.table_slot.message_id
        step = Step()
        self._next_deal(table, step)
        await self.save(table)
        return step

    # ------------------------------------------------------------------ the game

    def view(self, table: Table, seat: int) -> SeatView | None:
        """What ``seat`` sees of the current deal (``None`` between deals)."""
        game = table.game
        if game is None or game.current is None:
            return None
        return seat_view(game.current, Seat(seat))

    def _new_seed(self, table: Table) -> str:
        """A table's deal seed: random, or derived from the fixed base seed (tests)."""
        if self.seed is None:
            return secrets.token_hex(16)
        return hashlib.sha256(f"{self.seed}:{table.id}".encode()).hexdigest()[:32]

    @staticmethod
    def deal_rng(table: Table, deal_no: int) -> random.Random:
        """The shuffle of deal ``deal_no`` (from 1) of ``table``: the same after a restart."""
        return random.Random(f"{table.seed}:{deal_no}")

    def _next_deal(self, table: Table, step: Step) -> None:
        game = table.game
        assert game is not None
        if game.over:
            table.status = OVER
            table.settlement_shown = False
            table.deadline = None
            step.game_over = True
            return
        if not table.seed:  # a table started before deal seeds were stored
            table.seed = self._new_seed(table)
        game.start_deal(self.deal_rng(table, game.deal_count + 1))
        table.deal_no = game.deal_count
        table.move += 1
        table.discard_pick = {}
        table.table_slot = Slot(table.chat_id)
        table.hand_slots = {i: Slot(p.user_id) for i, p in enumerate(table.seats) if p is not None}
        step.new_deal = True
        self._arm(table)

    def _arm(self, table: Table) -> None:
        turn = table.settings.turn_time
        table.deadline = self.clock() + turn if turn and table.status == PLAYING else None

    def _check_turn(self, table: Table, user_id: int, move: int) -> tuple[int, SeatView]:
        if table.status != PLAYING or table.game is None or table.game.current is None:
            raise Rejected("err.stale")
        seat = table.seat_of(user_id)
        if seat is None:
            raise Rejected("err.not_seated")
        if move != table.move:
            raise Rejected("err.stale")
        view = seat_view(table.game.current, Seat(seat))
        if not view.legal:
            raise Rejected("err.not_turn")
        return seat, view

    async def act(self, table: Table, user_id: int, move: int, code: str) -> Step:
        """Apply the action behind a button of ``user_id``; raises :class:`Rejected`
        (:class:`AlreadyDone` for a press that was applied before)."""
        if move != table.move and (move, user_id, code) in table.recent:
            raise AlreadyDone()
        seat, view = self._check_turn(table, user_id, move)
        if code == "k":
            picked = table.discard_pick.get(seat, [])
            if len(picked) != 2:
                raise Rejected("err.pick_two")
            wanted: Action = Discard(Seat(seat), tuple(picked))
            if wanted not in view.legal:
                raise Rejected("err.illegal")
            action = wanted
        else:
            matches = [
                a for a in view.legal if not isinstance(a, Discard) and action_code(a) == code
            ]
            if len(matches) != 1:
                raise Rejected("err.illegal")
            action = matches[0]
        table.timeouts[seat] = 0
        table.recent = [*table.recent, (move, user_id, code)][-RECENT_PRESSES:]
        return await self._apply(table, action)

    async def toggle_discard(
        self, table: Table, user_id: int, move: int, code: str, mark: bool | None = None
    ) -> None:
        """Mark (``mark=True``) or unmark (``False``) a card for the declarer's discard, or
        flip it (``None``); no engine action yet. Marking a marked card changes nothing, so
        a press repeated after a restart is harmless."""
        seat, view = self._check_turn(table, user_id, move)
        try:
            c = parse_card(code)
        except ValueError:
            raise Rejected("err.illegal") from None
        pickable: set[Card] = set()
        for a in view.legal:
            if isinstance(a, Discard):
                pickable.update(a.cards)
        if c not in pickable:
            raise Rejected("err.illegal")
        picked = table.discard_pick.setdefault(seat, [])
        if mark is (c in picked):
            return
        if c in picked:
            picked.remove(c)
        else:
            picked.append(c)
            del picked[:-2]
        await self.save(table)

    async def timeout(self, table: Table, move: int) -> Step | None:
        """The player to act ran out of time: play the safe action for him."""
        if table.status != PLAYING or table.move != move or table.game is None:
            return None
        deal = table.game.current
        if deal is None or deal.actor is None:
            return None
        if table.deadline is None or self.clock() < table.deadline - 0.05:
            return None
        seat = int(deal.actor)
        action = auto_action(seat_view(deal, Seat(seat)))
        table.timeouts[seat] = table.timeouts.get(seat, 0) + 1
        step = await self._apply(table, action, auto=True)
        if table.timeouts[seat] == REPLACE_AFTER and table.status == PLAYING:
            step.replaceable = seat
        return step

    async def _apply(self, table: Table, action: Action, *, auto: bool = False) -> Step:
        game = table.game
        assert game is not None and game.current is not None
        deal: Deal = game.current
        deal_no = table.deal_no
        actor = deal.actor
        try:
            game.apply(action)
        except IllegalAction as exc:  # the legal set said otherwise: an engine bug
            log.error(
                "table %s: engine refused its own legal action %s: %s",
                table.id,
                action,
                exc.message,
            )
            raise Rejected("err.illegal") from None
        step = Step(action=action, actor_seat=int(actor) if actor is not None else None, auto=auto)
        table.move += 1
        table.discard_pick.pop(int(action.seat), None)
        if game.current is None:
            finished = game.finished_deals[-1]
            assert finished.deal is deal
            step.ended.append(DealEnd(deal_no, finished, table.table_slot, dict(table.hand_slots)))
            table.unshown_ends.append(
                {
                    "deal_no": deal_no,
                    "table_slot": table.table_slot.to_json() if table.table_slot else None,
                    "hand_slots": {str(k): v.to_json() for k, v in table.hand_slots.items()},
                }
            )
            self._next_deal(table, step)
        else:
            self._arm(table)
        await self.save(table)
        return step

    async def vote_stop(self, table: Table, user_id: int) -> tuple[int, int, Step | None]:
        """Vote to stop; stops when more than half of the seated players agree."""
        if table.status != PLAYING or table.game is None:
            raise Rejected("stop.not_playing")
        seat = table.seat_of(user_id)
        if seat is None:
            raise Rejected("err.not_seated")
        if seat in table.stop_votes:
            raise Rejected("err.voted")  # a vote counts once
        table.stop_votes.add(seat)
        need = len(table.seats) // 2 + 1
        votes = len(table.stop_votes)
        if votes < need:
            await self.save(table)
            return votes, need, None
        step = Step(game_over=True)
        game = table.game
        game.stop()  # an unfinished deal is kept in the record, not scored
        table.status = OVER
        table.settlement_shown = False
        table.deadline = None
        table.move += 1
        await self.save(table)
        return votes, need, step

    async def take_seat(self, table: Table, seat: int, player: Player) -> None:
        """``player`` replaces the player of a seat who kept timing out (Кодекс 3.1.2)."""
        if table.status != PLAYING:
            raise Rejected("err.stale")
        if table.seat_of(player.user_id) is not None:
            raise Rejected("err.already")
        if seat not in table.replaceable:
            raise Rejected("err.not_replaceable")
        await self.remember_user(player, private_ok=True)
        table.seats[seat] = player
        if table.game is not None:
            table.game.replace_player(Seat(seat), player.name)
        table.holders.append(
            Holder(seat, max(table.deal_no, 1), player.user_id, player.name).to_json()
        )
        table.timeouts[seat] = 0
        table.stop_votes.discard(seat)
        table.hand_slots[seat] = Slot(player.user_id)
        table.move += 1
        await self.save(table)

    # ------------------------------------------------------------------ persistence

    async def save(self, table: Table) -> None:
        """Write the table (settings, seats, message ids, deadline, game) to the database.

        The game is stored as its record, one row per deal: while only the current deal
        changed since the last save (an action), only that deal is written. A game that
        just ended is archived in the same transaction.
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
        if table.status == OVER and game is not None and not table.archived:
            archive = self._archive(table, game, record or game.to_record())
            table.archived = archive is not None
        try:
            await self.storage.save_table(
                table.id,
                status=table.status,
                settings=table.settings.to_json(),
                state=table.state_json(),
                record=record,
                move=table.move,
                deadline=table.deadline,
                seats=[p.user_id if p is not None else None for p in table.seats],
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

    def _archive(
        self, table: Table, game: Game, record: dict[str, Any], started_at: float | None = None
    ) -> GameArchive | None:
        """The archive entry of a finished or stopped game, statistics included."""
        holders = [Holder.from_json(h) for h in table.holders]
        if not holders:  # a game started before seat holders were stored
            holders = [Holder(seat, 1, p.user_id, p.name) for seat, p in table.seated()]
        try:
            rows = [r.to_json() for r in game_rows(record, holders)]
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
            holders=[h.to_json() for h in holders],
            rows=rows,
        )

    async def _archive_old_games(self) -> None:
        """Archive games that ended before this version (a database upgraded in place)."""
        for row in await self.storage.unarchived_tables():
            try:
                table = _table_from_row(row)
                game = Game.from_record(row.record)
                if not game.over:
                    continue
                archive = self._archive(table, game, game.to_record(), row.created_at)
            except Exception:
                log.exception("table %s: cannot archive the old game", row.id)
                continue
            if archive is not None:
                await self.storage.archive_game(row.id, archive)
                log.info("table %s: old game archived", row.id)

    async def resume(self) -> list[Table]:
        """Load unfinished tables after a restart (games rebuilt from their records).

        Also tables whose game is over but whose last deal or settlement the group was
        not shown yet (see :attr:`Table.unshown_ends`).
        """
        await self._archive_old_games()
        out = []
        for row in await self.storage.open_tables():
            try:
                table = _table_from_row(row)
                if row.record is not None:
                    table.game = Game.from_record(row.record)
            except Exception:
                log.exception("table %s cannot be resumed; closing it", row.id)
                await self.storage.save_table(
                    row.id,
                    status=CANCELLED,
                    settings=row.settings,
                    state=row.state,
                    record=row.record,
                    move=row.move,
                    deadline=None,
                    seats=[],
                )
                continue
            self.tables[table.id] = table
            if table.status == PLAYING:
                game = table.game
                if game is None:
                    table.status = CANCELLED
                elif game.over:
                    table.status = OVER
                    table.deadline = None
                    table.settlement_shown = False
                elif game.current is None:
                    self._next_deal(table, Step())
                elif table.deadline is None:
                    self._arm(table)
                await self.save(table)
            out.append(table)
        return out


def _table_from_row(row: TableRow) -> Table:
    settings = TableSettings.from_json(row.settings)
    table = Table(
        id=row.id,
        chat_id=row.chat_id,
        owner_id=row.owner_id,
        settings=settings,
        status=row.status,
    )
    table.load_state(row.state)
    if len(table.seats) != settings.players:
        table.resize(settings.players)
    table.move = row.move
    table.deadline = row.deadline
    return table
