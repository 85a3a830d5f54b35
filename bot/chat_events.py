"""What happens to the chats around a table, not to the game.

- The bot removed from a group: the group's open tables pause (no timer acts, no press is
  taken, the players hear it privately); added back, they resume with a fresh table
  message and a fresh turn clock.
- A group upgraded to a supergroup: its tables (and their stored history) move to the new
  chat id and the table message is shown again there.
- A player blocks the bot (``my_chat_member`` in his private chat): handled as a
  ``Forbidden`` answer is (the group is told, the seat is kept, the timer acts for him);
  unblocking lets the bot write to him again and resends his hand.
- Who may sit down or take a seat through a deep link: members of the table's group only.
"""

from __future__ import annotations

import html
import logging
from typing import TYPE_CHECKING, Any

from telegram import Update
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from bot.render.i18n import lang_of, t
from bot.render.sheet_text import short_name
from bot.tables import LOBBY, PLAYING, Player, Slot, Table

if TYPE_CHECKING:
    from bot.handlers import Controller

__all__ = [
    "my_chat_member",
    "migrated",
    "group_lost",
    "group_back",
    "migrate_chat",
    "is_member",
]

log = logging.getLogger(__name__)

_GONE = (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED)
_IN = (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.MEMBER)


def _ctl(context: ContextTypes.DEFAULT_TYPE) -> Controller:
    return context.application.bot_data["ctl"]  # type: ignore[no-any-return]


def title_of(table: Table) -> str:
    """The group's title for a private message: shortened and HTML-escaped."""
    return html.escape(short_name(table.title, 24)) if table.title else f"#{table.id}"


def _open_tables(ctl: Controller, chat_id: int) -> list[Table]:
    return [
        tb
        for tb in list(ctl.service.tables.values())
        if tb.chat_id == chat_id and tb.status in (LOBBY, PLAYING)
    ]


# ---------------------------------------------------------------------- handlers


async def my_chat_member(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The bot's own membership changed: in a group (removed / added) or in private
    (blocked / unblocked)."""
    change = update.my_chat_member
    if change is None:
        return
    ctl = _ctl(context)
    chat = change.chat
    status = change.new_chat_member.status
    if chat.type == ChatType.PRIVATE:
        if status in _GONE:
            log.info("user %s blocked the bot", chat.id)
            await ctl.on_forbidden(chat.id)
        elif status in _IN:
            user = change.from_user
            name = user.full_name or user.username or str(user.id)
            player = Player(user.id, name, lang_of(user.language_code))
            await ctl.service.remember_user(player, private_ok=True)
            await ctl.unblocked(user.id)
        return
    if status in _GONE:
        await group_lost(ctl, chat.id)
    elif status in _IN or getattr(change.new_chat_member, "is_member", False):
        await group_back(ctl, chat.id)


async def migrated(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``migrate_to_chat_id`` (in the old group) or ``migrate_from_chat_id`` (in the new)."""
    message = update.effective_message
    if message is None:
        return
    if message.migrate_to_chat_id:
        await migrate_chat(_ctl(context), message.chat_id, message.migrate_to_chat_id)
    elif message.migrate_from_chat_id:
        await migrate_chat(_ctl(context), message.migrate_from_chat_id, message.chat_id)


# ---------------------------------------------------------------------- actions


async def group_lost(ctl: Controller, chat_id: int) -> None:
    """The bot cannot write to the group any more: pause its open tables."""
    for table in _open_tables(ctl, chat_id):
        async with ctl.service.lock(table.id):
            if table.paused or table.status not in (LOBBY, PLAYING):
                continue
            table.paused = True
            await ctl.service.save(table)
            ctl.arm(table)  # removes the table's timers
            log.info("table %s paused: the bot left chat %s", table.id, chat_id)
            if table.status == PLAYING:
                for _, player in table.seated():
                    ctl.outbox.post(
                        player.user_id, t(player.lang, "paused.private", title=title_of(table))
                    )


async def group_back(ctl: Controller, chat_id: int) -> None:
    """The bot is in the group again: resume its paused tables in a fresh table message."""
    for table in _open_tables(ctl, chat_id):
        async with ctl.service.lock(table.id):
            if not table.paused:
                continue
            table.paused = False
            table.table_slot = Slot(table.chat_id)  # the old one is far up the chat
            if table.status == PLAYING:
                turn = table.settings.turn_time
                table.deadline = ctl.service.clock() + turn if turn else None
            await ctl.service.save(table)
            log.info("table %s resumed in chat %s", table.id, chat_id)
            if table.status == LOBBY:
                ctl.show_lobby(table)
            else:
                ctl.outbox.post(table.chat_id, t(table.settings.lang, "resumed"))
                ctl.show_deal(table)
            ctl.arm(table)


async def migrate_chat(ctl: Controller, old_chat_id: int, new_chat_id: int) -> None:
    """The group became a supergroup: move its tables and show them in the new chat."""
    if old_chat_id == new_chat_id:
        return
    moved = [tb for tb in list(ctl.service.tables.values()) if tb.chat_id == old_chat_id]
    if not moved:
        return
    await ctl.service.storage.move_chat(old_chat_id, new_chat_id)
    for table in moved:
        async with ctl.service.lock(table.id):
            if table.chat_id != old_chat_id:
                continue
            table.chat_id = new_chat_id
            if table.status not in (LOBBY, PLAYING):
                continue
            log.info("table %s moved from chat %s to %s", table.id, old_chat_id, new_chat_id)
            table.table_slot = Slot(new_chat_id)  # the old group cannot be written to
            await ctl.service.save(table)
            if table.paused:
                continue
            if table.status == LOBBY:
                ctl.show_lobby(table)
            else:
                ctl.show_deal(table)


async def is_member(bot: Any, chat_id: int, user_id: int) -> bool:
    """Whether ``user_id`` is a member of the group ``chat_id`` (``False`` if unknown)."""
    try:
        member = await bot.get_chat_member(chat_id, user_id)
    except TelegramError as exc:
        log.info("chat %s: membership of %s unknown (%s)", chat_id, user_id, exc)
        return False
    return member.status in _IN or bool(getattr(member, "is_member", False))
