"""Membership events: the bot's own membership in a group or a private chat, and group
migration to a supergroup. What they change is decided by the core
(:mod:`bot.core.chats`); here they are decoded and the effects shown.

- The bot removed from a group: its open tables pause; added back, they resume.
- A group upgraded to a supergroup: its tables move to the new chat id.
- A player blocks the bot (``my_chat_member`` in his private chat): handled as a
  ``Forbidden`` answer is; unblocking lets the bot write to him again and resends his hand.
- A change that cannot be saved is undone, logged in one line and applied again later
  (:meth:`~bot.telegram.runtime.Runtime.apply`), never a traceback in the error handler.
- Who may sit down or take a seat through a deep link: members of the table's group only.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from telegram import Update
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import TelegramError

from .runtime import Context, player_of, runtime

__all__ = ["my_chat_member", "migrated", "is_member"]

log = logging.getLogger(__name__)

_GONE = (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED)
_IN = (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.MEMBER)


async def my_chat_member(update: Update, context: Context) -> None:
    """The bot's own membership changed: in a group (removed / added) or in private
    (blocked / unblocked)."""
    change = update.my_chat_member
    if change is None:
        return
    rt = runtime(context)
    chat = change.chat
    status = change.new_chat_member.status
    if chat.type == ChatType.PRIVATE:
        if status in _GONE:
            log.info("user %s blocked the bot", chat.id)
            rt.outbox.blocked.add(chat.id)
            await rt.apply(partial(rt.service.blocked, chat.id))
        elif status in _IN:
            rt.outbox.unblock(chat.id)
            await rt.apply(partial(rt.service.unblocked, player_of(change.from_user)))
        return
    if status in _GONE:
        await rt.apply(partial(rt.service.group_lost, chat.id))
    elif status in _IN or getattr(change.new_chat_member, "is_member", False):
        await rt.apply(partial(rt.service.group_back, chat.id))


async def migrated(update: Update, context: Context) -> None:
    """``migrate_to_chat_id`` (in the old group) or ``migrate_from_chat_id`` (in the new)."""
    message = update.effective_message
    if message is None:
        return
    rt = runtime(context)
    if message.migrate_to_chat_id:
        await rt.on_migrated(message.chat_id, message.migrate_to_chat_id)
    elif message.migrate_from_chat_id:
        await rt.on_migrated(message.migrate_from_chat_id, message.chat_id)


async def is_member(bot: Any, chat_id: int, user_id: int) -> bool:
    """Whether ``user_id`` is a member of the group ``chat_id`` (``False`` if unknown)."""
    try:
        member = await bot.get_chat_member(chat_id, user_id)
    except TelegramError as exc:
        log.info("chat %s: membership of %s unknown (%s)", chat_id, user_id, exc)
        return False
    return member.status in _IN or bool(getattr(member, "is_member", False))
