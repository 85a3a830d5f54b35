"""``/settings`` in the private chat: a player's own settings (turn notifications: when he
is away, only when he is slow, or never; how card ranks are written, whether a forced card
plays itself), kept per user, with a button per choice."""

from __future__ import annotations

import re
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.error import BadRequest
from telegram.ext import Application, CallbackQueryHandler, CommandHandler

from bot.core.model import NOTIFY_MODES, RANK_STYLES, Player
from bot.core.modes import NotifyMode, RankStyle
from bot.render.callbacks import encode
from bot.render.i18n import t

from .pings import ACTIVE_SECONDS
from .runtime import Context, Runtime, is_group, player_of, runtime, sender

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
_RANK_CODES = {ranks: ranks[0] for ranks in RANK_STYLES}  # latin → l, russian → r
AUTOPLAY_PATTERN = r"^0:0:F[01]$"
"""Callback data of the forced-card setting's buttons: F1 on, F0 off."""
PATTERN = (
    r"^0:0:(N[" + "".join(_CODES.values()) + "]|C[" + "".join(_RANK_CODES.values()) + "]|F[01])$"
)
"""Callback data of the settings' buttons (no table: table and move are 0)."""


def settings_text(
    lang: str, mode: NotifyMode, ranks: RankStyle = RankStyle.LATIN, autoplay: bool = True
) -> str:
    notify = t(lang, "notify.title", mode=t(lang, f"notify.{mode}"), away=round(ACTIVE_SECONDS))
    state = t(lang, "autoplay.on" if autoplay else "autoplay.off")
    return (
        notify
        + "\n\n"
        + t(lang, "ranks.title", v=t(lang, f"set.ranks.{ranks}"))
        + "\n\n"
        + t(lang, "autoplay.title", state=state)
    )


def notify_keyboard(
    lang: str, mode: NotifyMode, ranks: RankStyle = RankStyle.LATIN, autoplay: bool = True
) -> InlineKeyboardMarkup:
    """One button per choice, the current one ticked: notifications, card ranks, then the
    forced card."""
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
                ("✅ " if r == ranks else "") + t(lang, f"set.ranks.{r}"),
                callback_data=encode(0, 0, "C" + _RANK_CODES[r]),
            )
            for r in RANK_STYLES
        ]
    )
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


async def _menu(rt: Runtime, player: Player) -> tuple[str, InlineKeyboardMarkup]:
    """The settings message of ``player`` as stored (his card ranks read into memory
    first if they are not there yet, as after a restart)."""
    await rt.service.registry.load_ranks(player.user_id)
    mode = await rt.service.registry.notify_mode(player.user_id)
    ranks = rt.service.registry.card_ranks(player.user_id)
    on = await rt.service.registry.autoplay(player.user_id)
    return settings_text(player.lang, mode, ranks, on), notify_keyboard(
        player.lang, mode, ranks, on
    )


async def settings_command(update: Update, context: Context) -> None:
    """Show the player's settings (in private; in a group it points there)."""
    rt = runtime(context)
    user = update.effective_user
    chat = update.effective_chat
    if user is None or chat is None:
        return
    player = player_of(user)
    if is_group(update):
        rt.outbox.answer_command(chat.id, t(player.lang, "notify.in_private"), who=sender(update))
        return
    rt.outbox.post(chat.id, *await _menu(rt, player))


async def notify_pressed(update: Update, context: Context) -> None:
    """A choice pressed: store it and tick it."""
    query = update.callback_query
    if query is None:
        return
    rt = runtime(context)
    data = query.data
    if not isinstance(data, str) or not re.match(PATTERN, data):
        # not ours after all (PTB lets a query without string data through a pattern):
        # answered as the catch-all answers it
        await rt.outbox.answer(query, t(player_of(query.from_user).lang, "err.stale"), alert=True)
        return
    player = player_of(query.from_user)
    kind, code = data[-2], data[-1]
    if kind == "C":
        ranks = next(r for r, c in _RANK_CODES.items() if c == code)
        rt.show(await rt.service.registry.set_card_ranks(player, ranks))
    elif kind == "F":
        await rt.service.registry.set_autoplay(player, code == "1")
    else:
        await rt.service.registry.set_notify_mode(
            player, next(m for m, c in _CODES.items() if c == code)
        )
    await rt.outbox.answer(query, t(player.lang, "notify.saved"))
    message = query.message
    if message is None:
        return
    text, markup = await _menu(rt, player)

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
