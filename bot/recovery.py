"""What the group must see survives a restart.

An accepted action is committed before anything is sent, so a bot killed right after a
commit has not shown its effects yet. Refreshing the current deal's messages covers most
of it (the resume does that); what else a player would miss is remembered in the table's
state, in the same transaction as the action, and confirmed once it was sent:

* ``Table.unshown_ends``: a deal that ended (its last state, the result, the sheet);
* ``Table.settlement_shown``: the settlement of a game that is over;
* ``Table.lobby_message``: the lobby of a started game, to be closed ("started").

A confirmation is a job queued in the group's outbox queue right behind those messages
(:meth:`~bot.outbox.Outbox.call`), so it runs only after they went out. After a restart,
:func:`replay` shows what was not confirmed: at least once, never lost (if the bot dies
between sending and confirming, the group sees it twice).

One window cannot be closed: a new hand message sent just before the bot died, whose id
was not saved yet. After the restart the hand is sent again, and the first message keeps
its buttons; :func:`stale_buttons` takes them away when they are pressed ("out of date").
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from telegram import CallbackQuery
from telegram.error import TelegramError

from bot.callbacks import decode
from bot.render import texts as render
from bot.service import DealEnd
from bot.tables import OVER, PLAYING, Slot, Table

if TYPE_CHECKING:
    from bot.handlers import Controller

__all__ = ["deal_shown", "settlement_posted", "lobby_closed", "replay", "stale_buttons"]

log = logging.getLogger(__name__)


def _confirm(ctl: Controller, table: Table, change: str, deal_no: int = 0) -> None:
    """Queue, behind the group's pending messages, the change that records them as shown."""

    async def run() -> bool:
        async with ctl.service.lock(table.id):
            if change == "deal":
                left = [e for e in table.unshown_ends if e.get("deal_no") != deal_no]
                if len(left) == len(table.unshown_ends):
                    return False
                table.unshown_ends = left
            elif change == "settlement":
                if table.settlement_shown is not False:
                    return False
                table.settlement_shown = True
            else:
                if table.lobby_message is None:
                    return False
                table.lobby_message = None
            await ctl.service.save(table)
        return False  # no request to Telegram: nothing to pace

    ctl.outbox.call(table.chat_id, run)


def deal_shown(ctl: Controller, table: Table, deal_no: int) -> None:
    """The end of deal ``deal_no`` was queued for the group."""
    _confirm(ctl, table, "deal", deal_no)


def settlement_posted(ctl: Controller, table: Table) -> None:
    """The settlement was queued for the group."""
    _confirm(ctl, table, "settlement")


def lobby_closed(ctl: Controller, table: Table) -> None:
    """The started game's lobby message was queued to be closed."""
    _confirm(ctl, table, "lobby")


def replay(ctl: Controller, table: Table) -> None:
    """After a restart: show again what the group was not shown before the bot stopped."""
    game = table.game
    if table.status in (PLAYING, OVER) and table.lobby_message is not None:
        ctl.outbox.show(
            Slot(table.chat_id, table.lobby_message),
            render.lobby_text(table, closed_key="lobby.started"),
            None,
        )
        lobby_closed(ctl, table)
    for entry in list(table.unshown_ends):
        deal_no = int(entry.get("deal_no", 0))
        if game is None or not 1 <= deal_no <= len(game.finished_deals):
            table.unshown_ends.remove(entry)
            continue
        hand_slots = {}
        for seat, raw in (entry.get("hand_slots") or {}).items():
            slot = Slot.from_json(raw)
            if slot is not None:
                hand_slots[int(seat)] = slot
        end = DealEnd(
            deal_no,
            game.finished_deals[deal_no - 1],
            Slot.from_json(entry.get("table_slot")),
            hand_slots,
        )
        log.info("table %s: showing the end of deal %d again", table.id, deal_no)
        ctl._show_ended(table, end)  # queues deal_shown() itself
    if table.status == OVER and table.settlement_shown is False and game is not None:
        if game.settlement() is not None:
            lang = table.settings.lang
            log.info("table %s: posting the settlement again", table.id)
            if game.stopped and not table.unshown_ends:  # as Controller.publish does
                ctl._show_abandoned(table)
                ctl.sheets.game_stopped(table)
            ctl.outbox.post(table.chat_id, render.settlement_text(table, game, lang))
        settlement_posted(ctl, table)


def stale_buttons(ctl: Controller, query: CallbackQuery) -> None:
    """An out-of-date press on a private message that no table keeps up to date (e.g. a
    hand message sent just before a crash): take its buttons away."""
    msg = query.message
    if msg is None or msg.chat.id <= 0 or decode(query.data) is None:
        return
    chat_id, message_id = msg.chat.id, msg.message_id
    for table in list(ctl.service.tables.values()):
        if any(
            slot.chat_id == chat_id and slot.message_id == message_id
            for slot in table.hand_slots.values()
        ):
            return  # a live hand message: its table keeps it up to date

    async def run() -> bool:
        try:
            await ctl.outbox.retry(
                lambda: ctl.app.bot.edit_message_reply_markup(
                    chat_id=chat_id, message_id=message_id, reply_markup=None
                )
            )
        except TelegramError as exc:
            log.debug("chat %s: old buttons stay: %s", chat_id, exc)
        return True

    ctl.outbox.call(chat_id, run)
