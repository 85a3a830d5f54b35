"""What the group must see survives a restart.

An accepted change is saved before anything is sent, so a bot killed right after a save
has not shown its effects yet. What a player would miss is kept in the table's
:class:`~bot.core.model.Unshown` (an ended deal, the settlement, a started game's lobby)
in the same transaction as the change, and confirmed to the core once it was sent (the
presenter queues the confirmation behind those messages). After a restart each table
shows the effects the core returns for what was not confirmed, refreshes the current
deal's messages (those that differ from what they show) and re-arms its timer
(:mod:`.resuming`; :func:`resume` does it for every table at once): at least once, never
lost (if the bot dies between sending and confirming, the group sees it twice).

One window cannot be closed: a new hand message sent just before the bot died, whose id
was not saved yet. After the restart the hand is sent again, and the first message keeps
its buttons; :func:`stale_buttons` takes them away when they are pressed ("out of date").
"""

from __future__ import annotations

import logging

from telegram import CallbackQuery
from telegram.error import TelegramError

from bot.core.effects import Effect
from bot.core.model import Table
from bot.core.service import TableService
from bot.render.callbacks import decode
from bot.render.i18n import t

from .outbox import Outbox
from .presenter import Presenter
from .shown import MessageStore

__all__ = ["resume", "stale_buttons"]

log = logging.getLogger(__name__)


async def resume(service: TableService, presenter: Presenter) -> None:
    """After a restart: show what was not shown, refresh open tables, re-arm timers; tell
    the groups whose table could not be read (set aside) that they can start anew.

    Each table is shown and armed on its own: one that cannot be (a value its timer or
    its messages cannot take) is set aside, and the others go on."""
    tables: dict[int, tuple[Table, list[Effect]]] = {}
    for effect in await service.resumable.resume():
        tables.setdefault(effect.table.id, (effect.table, []))[1].append(effect)
    for table, effects in tables.values():
        await presenter.store.load(table.id)  # which message shows what
        try:
            presenter.show(tuple(effects))
        except Exception as exc:
            await service.resumable.put_aside(table, exc)
    for _, chat_id, lang in service.resumable.set_aside:
        if chat_id is not None:  # in the group's language, when its row still says it
            text = t(lang or service.registry.defaults.lang, "restart.set_aside")
            presenter.outbox.post(chat_id, text)


def stale_buttons(store: MessageStore, outbox: Outbox, query: CallbackQuery) -> None:
    """An out-of-date press on a private message that no table keeps up to date (e.g. a
    hand message sent just before a crash): take its buttons away."""
    msg = query.message
    if msg is None or msg.chat.id <= 0 or decode(query.data) is None:
        return
    chat_id, message_id = msg.chat.id, msg.message_id
    if any(slot.message_id == message_id for slot in store.hands(chat_id)):
        return  # a live hand message: its table keeps it up to date

    async def run() -> bool:
        try:
            await outbox.retry(
                lambda: outbox.bot.edit_message_reply_markup(
                    chat_id=chat_id, message_id=message_id, reply_markup=None
                )
            )
        except TelegramError as exc:
            log.debug("chat %s: old buttons stay: %s", chat_id, exc)
        return True

    outbox.call(chat_id, run)
