"""Which Telegram message shows what: the Telegram side's own record, apart from the core.

Each message the bot keeps for a table is a :class:`Slot`: its ``kind`` (the group's table
message, a hand, the vote to stop, the sheet, the turn notification, a group message whose
buttons end with the game) and ``part`` (which one of its kind: the deal number for the
table message, a hand and a vote, where deal 0 is the lobby) in one chat. The core never
learns a message id: the presenter finds the slot a table's state names here, the outbox
fills in its message id and the digest of what it shows (:func:`.edits.digest`), and
:class:`MessageStore` writes them to their own rows (:class:`storage.ShownRow`): a new
message at once, digests every few seconds and at the stop. After a restart the rows are
read back with the table, so a message that shows what it must is not edited again.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Literal

from bot.core.model import Table
from bot.core.robots import is_robot
from bot.preferans.seats import Seat, sits_out
from storage import ShownRow, Storage

__all__ = [
    "Slot",
    "Kind",
    "Hands",
    "MessageStore",
    "table_slot",
    "hand_slot",
    "hand_of",
    "hands_of",
    "renew_hand",
]

log = logging.getLogger(__name__)

Kind = Literal["table", "hand", "vote", "sheet", "reminder", "live"]
Key = tuple[int, str, int]
"""(chat, kind, part) of a slot within its table."""


@dataclass(slots=True, eq=False)
class Slot:
    """One message the bot keeps up to date (``message_id`` is ``None`` until it is sent)."""

    table_id: int
    kind: Kind
    chat_id: int
    part: int
    message_id: int | None = None
    shown: str | None = None
    """A digest of what the message shows now (``None``: unknown, e.g. an edit on its
    way)."""
    silent: bool = False
    """Sent without a ring (not stored): the 4-player dealer's hand of a deal he sits out."""
    note: str | None = None
    """What its kind keeps with it: a sheet's ``photo`` or ``text``, a live message's text."""

    @property
    def key(self) -> Key:
        return (self.chat_id, self.kind, self.part)


Hands = dict[Seat, Slot]
"""The hand messages of a deal, by seat."""


class MessageStore:
    """Every table's :class:`Slot` objects, in memory and in the storage's ``shown`` rows."""

    def __init__(self, storage: Storage | None = None) -> None:
        self.storage = storage
        self._slots: dict[int, dict[Key, Slot]] = {}
        """Table id -> its slots (loaded or made since the start)."""
        self._stored: dict[int, dict[Key, tuple[int, str | None, str | None]]] = {}
        """Table id -> its rows as written: (message id, digest, note) by key."""
        self._gone: set[int] = set()
        """Tables whose rows are to be deleted (they left memory)."""
        self._lock = asyncio.Lock()

    # ------------------------------------------------------------------ finding slots

    def get(self, table_id: int, kind: Kind, chat_id: int, part: int) -> Slot | None:
        """The table's message of ``kind`` and ``part`` in ``chat_id``, if there is one."""
        return self._slots.get(table_id, {}).get((chat_id, kind, part))

    def slot(
        self, table_id: int, kind: Kind, chat_id: int, part: int, *, silent: bool = False
    ) -> Slot:
        """:meth:`get`, or a new slot (sent the first time it is shown, ringing unless
        ``silent``)."""
        slots = self._slots.setdefault(table_id, {})
        found = slots.get((chat_id, kind, part))
        if found is None:
            found = slots[(chat_id, kind, part)] = Slot(table_id, kind, chat_id, part)
            found.silent = silent
        return found

    def of_kind(self, table_id: int, kind: Kind) -> list[Slot]:
        return [s for s in self._slots.get(table_id, {}).values() if s.kind == kind]

    def hands(self, chat_id: int) -> list[Slot]:
        """Every hand message kept in a private chat (of any table)."""
        return [
            s
            for slots in self._slots.values()
            for s in slots.values()
            if s.kind == "hand" and s.chat_id == chat_id
        ]

    def put(
        self, table_id: int, kind: Kind, chat_id: int, part: int, message_id: int, note: str = ""
    ) -> Slot:
        """A message already sent (a post's id, the sheet) is the slot's now."""
        slot = self.slot(table_id, kind, chat_id, part)
        slot.message_id, slot.shown, slot.note = message_id, None, note or None
        return slot

    def drop(self, slot: Slot) -> None:
        """Forget ``slot``: showing its key again makes a new message (its row goes)."""
        slots = self._slots.get(slot.table_id, {})
        if slots.get(slot.key) is slot:
            del slots[slot.key]

    def drop_deal(self, table_id: int, deal_no: int) -> None:
        """Forget the group's and the hands' messages of a deal the group has seen end."""
        for slot in list(self._slots.get(table_id, {}).values()):
            if slot.part == deal_no and slot.kind in ("table", "hand", "vote"):
                self.drop(slot)

    def kept(self, slot: Slot) -> bool:
        """Whether ``slot`` is still the table's message of its key."""
        return self._slots.get(slot.table_id, {}).get(slot.key) is slot

    # ------------------------------------------------------------------ the rows

    def loaded(self, table_id: int) -> bool:
        return table_id in self._stored

    async def load(self, table_id: int) -> None:
        """Read the table's rows (a table resumed after a restart); a failure to read is
        logged and its messages are sent anew."""
        if self.storage is None or self.loaded(table_id):
            return
        try:
            rows = await self.storage.shown_rows(table_id)
        except Exception as exc:  # noqa: BLE001 - the messages are sent anew then
            log.warning("table %s: what its messages show is not read: %s", table_id, exc)
            rows = []
        slots = self._slots.setdefault(table_id, {})
        stored = self._stored.setdefault(table_id, {})
        for r in rows:
            kind: Kind = r.kind  # type: ignore[assignment] # the table's CHECK keeps them
            key = (r.chat, r.kind, r.part)
            if key not in slots:  # (one made meanwhile is newer)
                slots[key] = Slot(table_id, kind, r.chat, r.part, r.message_id, r.digest)
                slots[key].note = r.note
            stored[key] = (r.message_id, r.digest, r.note)

    async def stored_sheet(self, table_id: int, chat_id: int) -> tuple[int, bool] | None:
        """The sheet message a table not in memory (a finished game) was left with: its id
        and whether it is a picture (read, not kept)."""
        if self.storage is None:
            return None
        try:
            rows = await self.storage.shown_rows(table_id)
        except Exception as exc:  # noqa: BLE001 - a new sheet is sent then
            log.warning("table %s: its sheet message is not read: %s", table_id, exc)
            return None
        found = [r for r in rows if (r.kind, r.chat, r.part) == ("sheet", chat_id, 0)]
        return (found[0].message_id, found[0].note == "photo") if found else None

    def forget(self, table_id: int) -> None:
        """The table left memory: its slots go, and its rows with the next write."""
        self._slots.pop(table_id, None)
        self._stored.pop(table_id, None)
        self._gone.add(table_id)

    async def sent(self, slot: Slot) -> None:
        """A kept message got its id: written now, so that a restart edits it."""
        if self.kept(slot):
            await self.flush(slot.table_id)

    async def flush(self, table_id: int | None = None) -> None:
        """Write what changed since the last write (of table ``table_id`` only, when
        given), in one transaction; a failure is logged and tried again with the next
        write."""
        if self.storage is None:
            return
        async with self._lock:
            rows, gone, written = self._changes(table_id)
            forgotten = list(self._gone)
            if not (rows or gone or forgotten):
                return
            try:
                for table_id in forgotten:
                    await self.storage.forget_shown(table_id)
                    self._gone.discard(table_id)
                await self.storage.save_shown(rows, gone)
            except Exception as exc:  # noqa: BLE001 - the next write stores it
                log.warning("what the messages show is not stored now: %s", exc)
                return
            for table_id, key, value in written:
                stored = self._stored.setdefault(table_id, {})
                if value is None:
                    stored.pop(key, None)
                else:
                    stored[key] = value

    def _changes(
        self, only: int | None
    ) -> tuple[
        list[ShownRow],
        list[tuple[int, int, str, int]],
        list[tuple[int, Key, tuple[int, str | None, str | None] | None]],
    ]:
        rows: list[ShownRow] = []
        gone: list[tuple[int, int, str, int]] = []
        written: list[tuple[int, Key, tuple[int, str | None, str | None] | None]] = []
        tables = self._slots.items() if only is None else [(only, self._slots.get(only, {}))]
        for table_id, slots in tables:
            stored = self._stored.get(table_id, {})
            for key, s in slots.items():
                if s.message_id is None:
                    continue
                value = (s.message_id, s.shown, s.note)
                if stored.get(key) != value:
                    rows.append(ShownRow(table_id, *key, *value))
                    written.append((table_id, key, value))
            for key in stored.keys() - {k for k, s in slots.items() if s.message_id is not None}:
                gone.append((table_id, *key))
                written.append((table_id, key, None))
        return rows, gone, written


def table_slot(store: MessageStore, table: Table, deal_no: int | None = None) -> Slot:
    """The group's message of deal ``deal_no`` (default: the current one; 0: the lobby)."""
    part = table.deal_no if deal_no is None else deal_no
    return store.slot(table.id, "table", table.chat_id, part)


def hand_slot(store: MessageStore, table: Table, seat: Seat) -> Slot | None:
    """``seat``'s hand message of the current deal in its player's private chat (none for
    a computer player); the 4-player dealer's hand of the deal he sits out rings nothing
    (he may watch it)."""
    player = table.player(seat)
    if player is None or is_robot(player):
        return None
    game = table.game
    deal = game.current if game is not None else None
    silent = deal is not None and sits_out(len(table.seats), deal.dealer, seat)
    return store.slot(table.id, "hand", player.user_id, table.deal_no, silent=silent)


def hand_of(
    store: MessageStore, table: Table, user_id: int, deal_no: int | None = None
) -> Slot | None:
    """The hand message of deal ``deal_no`` (default: the current one) in ``user_id``'s
    chat, if it has one."""
    part = table.deal_no if deal_no is None else deal_no
    return store.get(table.id, "hand", user_id, part)


def hands_of(store: MessageStore, table: Table, deal_no: int) -> Hands:
    """The hand messages deal ``deal_no`` showed to the players seated now (one taken over
    since was his predecessor's: it stays as it was frozen)."""
    found = {s: hand_of(store, table, p.user_id, deal_no) for s, p in table.seated()}
    return {seat: slot for seat, slot in found.items() if slot is not None}


def renew_hand(store: MessageStore, table: Table, user_id: int) -> None:
    """``user_id``'s hand of the current deal goes to a new message the next time."""
    old = hand_of(store, table, user_id)
    if old is not None:
        store.drop(old)
