"""The bot's parts wired together, and the small helpers every handler uses."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, TypeAlias

from telegram import Update, User
from telegram.constants import ChatType
from telegram.ext import Application, CallbackContext, ContextTypes, ExtBot

from bot.core.effects import Effects
from bot.core.errors import PartlySaved
from bot.core.model import Player, Table
from bot.core.names import clean_name
from bot.core.persist import SAVE_RETRY
from bot.core.service import TableService
from bot.render.i18n import lang_of
from storage import Storage

from .outbox import Outbox
from .presenter import Presenter
from .resuming import Resumer
from .scheduler import Scheduler
from .sheet import SheetMessages
from .shown import MessageStore, hand_of

if TYPE_CHECKING:  # imported with the Mini App only (bot/app.py)
    from bot.webapp.server import WebServer

__all__ = [
    "Runtime",
    "BotData",
    "Context",
    "CONTEXT_TYPES",
    "runtime",
    "player_of",
    "group_lang",
    "is_group",
]

EVENT_RETRY_MAX = 300.0
"""Longest wait, in seconds, before a chat's event that could not be saved is tried again."""


@dataclass(eq=False)
class Runtime:
    """The core service and the Telegram parts that show it."""

    app: Application[Any, Any, Any, Any, Any, Any]
    service: TableService
    outbox: Outbox
    sheets: SheetMessages
    presenter: Presenter
    scheduler: Scheduler
    store: MessageStore
    """Which message shows what (:mod:`.shown`)."""

    @classmethod
    def build(
        cls,
        app: Application[Any, Any, Any, Any, Any, Any],
        service: TableService,
        outbox: Outbox,
    ) -> Runtime:
        store = MessageStore(service.storage)
        sheets = SheetMessages(outbox, service, store)
        presenter = Presenter(service, outbox, sheets, store)

        def forgotten(table_id: int) -> None:
            sheets.forget(table_id)
            store.forget(table_id)

        scheduler = Scheduler(
            app.job_queue,
            service,
            presenter.show,
            pending=sheets.pending,
            forgotten=forgotten,
            unseen=lambda table: _buttons_unseen(outbox, store, table),
        )
        presenter.arm = scheduler.arm
        rt = cls(app, service, outbox, sheets, presenter, scheduler, store)
        outbox.on_sent = store.sent
        outbox.on_forbidden = rt.on_forbidden
        outbox.on_migrated = rt.on_migrated
        return rt

    @property
    def bot_username(self) -> str:
        return str(self.app.bot.username)

    def show(self, effects: Effects) -> None:
        self.presenter.show(effects)

    async def on_forbidden(self, chat_id: int) -> None:
        """Telegram refused to write to a chat: a player blocked the bot, or the bot left a
        group."""
        if chat_id <= 0:
            await self.apply(partial(self.service.group_lost, chat_id))
        else:
            await self.apply(partial(self.service.blocked, chat_id))

    async def on_migrated(self, old_chat_id: int, new_chat_id: int) -> None:
        await self.apply(partial(self.service.migrate, old_chat_id, new_chat_id))

    async def apply(
        self, event: Callable[[], Awaitable[Effects]], wait: float = SAVE_RETRY
    ) -> None:
        """Apply a chat's event (nobody pressed anything) and show it. What could not be
        saved was undone and logged by the service in one line; it is applied again after
        ``wait`` seconds, doubling up to :data:`EVENT_RETRY_MAX`, until it is saved."""
        try:
            effects = await event()
        except PartlySaved as exc:
            self.show(exc.effects)
            jq = self.app.job_queue
            if jq is not None:
                redo, later = exc.redo, min(wait * 2, EVENT_RETRY_MAX)

                async def again(_: Any) -> None:
                    await self.apply(redo, later)

                jq.run_once(again, wait, name="chat-event-retry")
            return
        self.show(effects)


@dataclass(eq=False)
class BotData:
    """``Application.bot_data``: the parts every handler shares. PTB makes it empty; they
    are set in ``post_init``, before any update is handled."""

    rt: Runtime | None = None
    storage: Storage | None = None
    resumer: Resumer | None = None
    """Resumes the tables after a start (:mod:`bot.telegram.resuming`)."""
    miniapp: WebServer | None = None
    """The Mini App's server, with ``WEBAPP_URL`` (:mod:`bot.telegram.miniapp`)."""


Context: TypeAlias = CallbackContext[ExtBot[None], dict[Any, Any], dict[Any, Any], BotData]
"""The context every handler gets: the default one with a typed ``bot_data``."""
CONTEXT_TYPES = ContextTypes(bot_data=BotData)
"""Makes the application's ``bot_data`` a :class:`BotData`."""


def runtime(context: Context) -> Runtime:
    rt = context.bot_data.rt
    assert rt is not None  # set in post_init, before the first update
    return rt


def player_of(user: User) -> Player:
    """Our view of a Telegram user."""
    name = clean_name(user.full_name) or clean_name(user.username or "")
    return Player(user.id, name, lang_of(user.language_code))


async def group_lang(rt: Runtime, update: Update) -> str:
    """The language to answer in: the chat's (open or last) table's, else the user's."""
    chat = update.effective_chat
    lang = await rt.service.registry.chat_lang(chat.id) if chat is not None else None
    if lang is not None:
        return lang
    user = update.effective_user
    return lang_of(user.language_code if user else None)


def sender(update: Update) -> int | None:
    """Who wrote the command being answered (for the outbox's per-person guard)."""
    user = update.effective_user
    return user.id if user is not None else None


def is_group(update: Update) -> bool:
    chat = update.effective_chat
    return chat is not None and chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)


def _buttons_unseen(outbox: Outbox, store: MessageStore, table: Table) -> bool:
    """Whether the hand message of the table's player to act still waits to be sent."""
    acting = table.to_act()
    player = acting[2] if acting is not None else None
    slot = hand_of(store, table, player.user_id) if player is not None else None
    return slot is not None and outbox.unshown(slot)
