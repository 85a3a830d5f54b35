"""``/settings`` in the private chat: a player's own settings (turn notifications, whether
a forced card plays itself), kept per user, with a button per choice."""

from __future__ import annotations

from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.error import BadRequest
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, ContextTypes

from bot.core.model import NOTIFY_MODES
from bot.render.callbacks import encode
from bot.render.i18n import t

from .runtime import is_group, player_of, runtime

__all__ = [
    "COMMANDS",
    "PATTERN",
    "AUTOPLAY_PATTERN",
    "add_handlers",
    "notify_keyboard",
    "settings_text",
]

COMMANDS = ("settings",)
"""Commands of this module, for the command menu."""

_CODES = {mode: mode[0] for mode in NOTIFY_MODES}  # always → a, slow → s, never → n
PATTERN = r"^0:0:N[" + "".join(_CODES.values()) + r"]$"
"""Callback data of the setting's buttons (no table: table and move are 0)."""


AUTOPLAY_PATTERN = r"^0:0:F[01]$"
"""Callback data of the forced-card setting's buttons (issue 15): F1 on, F0 off."""


def settings_text(lang: str, mode: str, autoplay: bool = True) -> str:
    state = t(lang, "autoplay.on" if autoplay else "autoplay.off")
    return (
        t(lang, "notify.title", mode=t(lang, f"notify.{mode}"))
        + "\n\n"
        + t(lang, "autoplay.title", state=state)
    )


def notify_keyboard(lang: str, mode: str, autoplay: bool = True) -> InlineKeyboardMarkup:
    """One button per choice, the current one ticked."""
    rows = [
        [
            InlineKeyboardButton(
                ("✅ " if m == mode else "") + t(lang, f"notify.{m}"),
                callback_data=encode(0, 0, "N" + _CODES[m]),
            )
        ]
        for m in NOTIFY_MODES
    ]
    rows.append(
        [
            InlineKeyboardButton(
                ("✅ " if on == autoplay else "") + t(lang, f"autoplay.{'on' if on else 'off'}"),
                callback_data=encode(0, 0, "F1" if on else "F0"),
            )
            for on in (True, False)
        ]
    )
    return InlineKeyboardMarkup(rows)


async def settings_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Show the player's settings (in private; in a group it points there)."""
    rt = runtime(context)
    user = update.effective_user
    chat = update.effective_chat
    if user is None or chat is None:
        return
    player = player_of(user)
    if is_group(update):
        rt.outbox.answer_command(chat.id, t(player.lang, "notify.in_private"))
        return
    mode = await rt.service.notify_mode(user.id)
    on = await rt.service.autoplay(user.id)
    rt.outbox.post(
        chat.id, settings_text(player.lang, mode, on), notify_keyboard(player.lang, mode, on)
    )


async def notify_pressed(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A choice pressed: store it and tick it."""
    query = update.callback_query
    if query is None:
        return
    rt = runtime(context)
    if query.data is None or query.data[-1] not in _CODES.values():
        # not ours after all (PTB lets a query without string data through a pattern):
        # answered as the catch-all answers it
        await rt.outbox.answer(query, t(player_of(query.from_user).lang, "err.stale"), alert=True)
        return
    player = player_of(query.from_user)
    code = query.data[-1]
    mode = next(m for m, c in _CODES.items() if c == code)
    await rt.service.set_notify_mode(player, mode)
    await _saved(update, context, mode, await rt.service.autoplay(player.user_id))


async def autoplay_pressed(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The forced-card choice pressed: store it and tick it (issue 15)."""
    query = update.callback_query
    if query is None or query.data is None:
        return
    rt = runtime(context)
    player = player_of(query.from_user)
    on = query.data.endswith("1")
    await rt.service.set_autoplay(player, on)
    await _saved(update, context, await rt.service.notify_mode(player.user_id), on)


async def _saved(
    update: Update, context: ContextTypes.DEFAULT_TYPE, mode: str, autoplay: bool
) -> None:
    """Say the choice was saved and tick it in the settings message."""
    query = update.callback_query
    assert query is not None
    rt = runtime(context)
    player = player_of(query.from_user)
    await rt.outbox.answer(query, t(player.lang, "notify.saved"))
    message = query.message
    if message is None:
        return
    text = settings_text(player.lang, mode, autoplay)
    markup = notify_keyboard(player.lang, mode, autoplay)

    async def edit() -> bool:
        try:
            await rt.outbox.retry(
                lambda: query.edit_message_text(text, parse_mode="HTML", reply_markup=markup)
            )
        except BadRequest:  # pressed the choice already ticked: nothing to change
            pass
        return True

    rt.outbox.call(message.chat.id, edit)


def add_handlers(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Register ``/settings`` and its buttons (before the catch-all button handler)."""
    application.add_handler(CommandHandler("settings", settings_command))
    application.add_handler(CallbackQueryHandler(notify_pressed, pattern=PATTERN))
    application.add_handler(CallbackQueryHandler(autoplay_pressed, pattern=AUTOPLAY_PATTERN))
