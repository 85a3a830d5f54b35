"""The game's commands: ``/start`` (and its deep links), ``/help``, ``/rules``, ``/newgame``,
``/pulka``, ``/stop``. Each decodes the update, calls the core and shows the effects."""

from __future__ import annotations

import html
import logging
from typing import Any

from telegram import InlineKeyboardMarkup, Update
from telegram.constants import ChatType
from telegram.ext import Application, CommandHandler, TypeHandler

from bot.core import effects as fx
from bot.core.errors import Rejected
from bot.core.model import Player, Status
from bot.preferans.game import Game
from bot.preferans.seats import Seat
from bot.render import keyboards
from bot.render.callbacks import from_base36
from bot.render.i18n import t
from bot.render.results import pulka_text
from bot.render.rules import rules_text
from bot.render.sheet_text import sheet_text
from bot.render.text import group_title, title_of

from .history import day
from .membership import is_member
from .runtime import Context, Runtime, group_lang, is_group, player_of, runtime, sender
from .shown import hand_of

__all__ = ["add_handlers", "COMMANDS", "error_handler"]

log = logging.getLogger(__name__)

COMMANDS = ("newgame", "pulka", "stop", "rules", "help", "start")
"""The game's commands, in the order of the command menu."""


async def _deep_link(rt: Runtime, player: Player, payload: str) -> str:
    """``s<table>`` sits down, ``r<table>_<seat>`` takes a seat; returns the reply."""
    try:
        if payload.startswith("s"):
            table = rt.service.registry.pressed(from_base36(payload[1:]))
            if not await is_member(rt.app.bot, table.chat_id, player.user_id):
                raise Rejected("err.not_member")
            effects = await rt.service.sit(table.id, player)
            rt.show(tuple(e for e in effects if not isinstance(e, fx.Seated)))
            seat = next(e.seat for e in effects if isinstance(e, fx.Seated))
            title = title_of(table, rt.service.registry.tables_of(player.user_id))
            return t(player.lang, "start.seated", title=title, seat=seat + 1)
        if payload.startswith("r"):
            tid, _, seat_text = payload[1:].partition("_")
            table = rt.service.registry.pressed(from_base36(tid))
            if not await is_member(rt.app.bot, table.chat_id, player.user_id):
                raise Rejected("err.not_member")
            number = int(seat_text)
            if not 0 <= number < len(table.seats):
                raise Rejected("err.not_replaceable")
            rt.show(await rt.service.take_seat(table.id, Seat(number), player))
            return ""
    except (ValueError, StopIteration):
        return t(player.lang, "start.private")
    except Rejected as exc:
        return t(player.lang, exc.key, **exc.values)
    return t(player.lang, "start.private")


def _table_link(
    rt: Runtime, player: Player, table_text: str
) -> tuple[str, InlineKeyboardMarkup | None]:
    """The answer to the group's «🃏 Стол» link: the Mini App's button for a player of the
    table (Telegram opens a ``web_app`` button only from a private chat)."""
    link, lang = rt.presenter.web.link, player.lang
    table = rt.service.registry.get(int(table_text)) if table_text.isdigit() else None
    if link is None:  # the Mini App was switched off since
        return t(lang, "start.private"), None
    if table is None or not table.status.open:  # the game ended (or no such table at all)
        return t(lang, "webapp.closed"), None
    if table.seat_of(player.user_id) is None:
        return t(lang, "webapp.not_seated"), None
    title = title_of(table, rt.service.registry.tables_of(player.user_id))
    markup = keyboards.table_link(None, lang, link(table.id), web_app=True)
    return t(lang, "webapp.open", title=title), markup


def _hands_down(rt: Runtime, user_id: int) -> frozenset[int] | None:
    """The games in play whose hand message a plain ``/start`` sends anew, at the bottom
    of the chat (he lost it up there, or lost its buttons); ``None``: he plays none. A hand
    that is the last message there already stays (:mod:`.bottom`): brought up to date, or
    edited unchanged to find out whether he deleted it (then it is sent anew)."""
    hands = {
        table.id: hand_of(rt.store, table, user_id)
        for table in rt.service.registry.tables_of(user_id)
        if table.status is Status.PLAYING
    }
    if not hands:
        return None
    ids = {slot.message_id for slot in hands.values() if slot and slot.message_id}
    bottom = rt.outbox.ends.at_bottom(user_id, ids)
    for slot in hands.values():
        if slot is not None and slot.message_id in bottom:
            rt.outbox.probe(slot)
    return frozenset(
        table_id
        for table_id, slot in hands.items()
        if slot is None or slot.message_id not in bottom
    )


async def start(update: Update, context: Context) -> None:
    """Let the bot write to the user; during a game bring his hands down to the bottom of
    the chat; a deep link seats him at a table, or answers with the Mini App's button
    (then his hands stay where they are: a link asks for nothing else)."""
    rt = runtime(context)
    user = update.effective_user
    chat = update.effective_chat
    if user is None or chat is None:
        return
    if chat.type != ChatType.PRIVATE:
        rt.outbox.answer_command(
            chat.id, t(await group_lang(rt, update), "help"), who=sender(update)
        )
        return
    player = player_of(user)
    rt.outbox.unblock(chat.id)  # he writes to the bot: it may write to him again
    await rt.service.registry.remember_user(player, private_ok=True)
    payload = context.args[0] if context.args else ""
    anew: frozenset[int] | None = frozenset()
    if payload.startswith("table_"):  # the group's «🃏 Стол» link
        rt.outbox.post(chat.id, *_table_link(rt, player, payload[len("table_") :]))
    elif payload:
        text = await _deep_link(rt, player, payload)
        if text:
            rt.outbox.post(chat.id, text)
    else:
        anew = _hands_down(rt, player.user_id)
        if anew is None:  # no game in play: the greeting (in a game his hands answer)
            rt.outbox.post(chat.id, t(player.lang, "start.private"))
    rt.show(await rt.service.unblocked(player, anew if anew is not None else ()))


async def _heard(update: Update, context: Context) -> None:
    """Note what a person writes in his private chat (:mod:`.bottom`); a ``/start`` buries
    nothing: it asks for what is at the bottom."""
    message = update.message
    if message is not None and message.chat.type == ChatType.PRIVATE:
        if not (message.text or "").startswith("/start"):
            runtime(context).outbox.ends.heard(message.chat.id, message.message_id)


async def help_command(update: Update, context: Context) -> None:
    """Explain how to play with the bot."""
    rt = runtime(context)
    chat = update.effective_chat
    if chat is not None:
        rt.outbox.answer_command(
            chat.id, t(await group_lang(rt, update), "help"), who=sender(update)
        )


async def rules_command(update: Update, context: Context) -> None:
    """Show the convention and options of the chat's table (running or last) in a few lines;
    in private those of each table the player sits at, else of his last game."""
    rt = runtime(context)
    chat = update.effective_chat
    if chat is None:
        return
    user = update.effective_user
    lang = await group_lang(rt, update)
    if is_group(update) or user is None:
        settings = await rt.service.registry.rules_settings(chat.id)
        rt.outbox.answer_command(chat.id, rules_text(settings, lang), who=sender(update))
        return
    rt.outbox.answer_command(chat.id, await _private_rules(rt, user.id, lang), who=sender(update))


async def _private_rules(rt: Runtime, user_id: int, lang: str) -> str:
    """The rules of every table the player sits at, each under its group's title; with
    none, those of his last game, saying which; with no game either, a new table's."""
    tables = sorted(rt.service.registry.tables_of(user_id), key=lambda tb: tb.id)
    if tables:
        return "\n\n".join(
            t(lang, "rules.at_table", title=title_of(table, tables))
            + "\n"
            + rules_text(table.settings, lang)
            for table in tables
        )
    last = await rt.service.registry.last_game_settings(user_id)
    if last is None:
        return t(lang, "rules.no_game") + "\n" + rules_text(rt.service.registry.defaults, lang)
    settings, game = last
    title = group_title(game.title, game.table_id)
    head = t(lang, "rules.last_game", title=title, date=day(game.ended_at))
    return head + "\n" + rules_text(settings, lang)


async def newgame(update: Update, context: Context) -> None:
    """Open a lobby in the group."""
    rt = runtime(context)
    user = update.effective_user
    chat = update.effective_chat
    if user is None or chat is None:
        return
    player = player_of(user)
    if not is_group(update):
        rt.outbox.answer_command(chat.id, t(player.lang, "only_group"), who=sender(update))
        return
    existing = rt.service.registry.open_table(chat.id)
    if existing is not None:
        rt.outbox.answer_command(
            chat.id, t(existing.settings.lang, "table_exists"), who=sender(update)
        )
        return
    try:
        rt.show(await rt.service.open_lobby(chat.id, player, chat.title or ""))
    except Rejected as exc:
        rt.outbox.answer_command(chat.id, t(player.lang, exc.key), who=sender(update))


async def pulka_command(update: Update, context: Context) -> None:
    """Show the pulka (the running score) of the chat's game."""
    rt = runtime(context)
    chat = update.effective_chat
    user = update.effective_user
    if chat is None:
        return
    if chat.type == ChatType.PRIVATE and user is not None:
        rt.outbox.post(chat.id, await _private_pulka(rt, player_of(user)))
        return
    found = await rt.service.registry.last_game(chat.id)
    if found is None:
        rt.outbox.answer_command(
            chat.id, t(await group_lang(rt, update), "no_table"), who=sender(update)
        )
        return
    table, game = found
    message = update.effective_message
    rt.sheets.pulka(table, game, after=message.message_id if message is not None else 0)


async def _private_pulka(rt: Runtime, player: Player) -> str:
    """The sheet of the player's running table, else of his last finished game (as text:
    the picture belongs to the group)."""
    for table in rt.service.registry.tables_of(player.user_id):
        if table.game is not None:
            return pulka_text(table, table.game, player.lang)
    try:
        found = await rt.service.archive.last_of_player(player.user_id)
        if found is None:
            return t(player.lang, "pulka.none")
        game = Game.from_record(found[1])
    except Exception as exc:  # noqa: BLE001 - a damaged record (or the database away): say so
        log.warning("the sheet of user %s's last game cannot be read: %s", player.user_id, exc)
        return t(player.lang, "pulka.unreadable")
    return f"<pre>{html.escape(sheet_text(game, player.lang))}</pre>"


async def stop_command(update: Update, context: Context) -> None:
    """Vote to stop the game (more than half of the seated players stop it)."""
    rt = runtime(context)
    chat = update.effective_chat
    user = update.effective_user
    if chat is None or user is None:
        return
    lang = await group_lang(rt, update)
    table = rt.service.registry.open_table(chat.id)
    if table is None:
        rt.outbox.answer_command(chat.id, t(lang, "stop.not_playing"), who=sender(update))
        return
    try:
        rt.show(await rt.service.vote_stop(table.id, user.id))
    except Rejected as exc:
        rt.outbox.answer_command(chat.id, t(lang, exc.key), who=sender(update))


async def error_handler(update: object, context: Context) -> None:
    """Log errors raised by handlers (without the update's content)."""
    log.error("error while handling an update", exc_info=context.error)


def add_handlers(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Register the game's commands (and ahead of every handler, what people write)."""
    application.add_handler(TypeHandler(Update, _heard), group=-2)
    application.add_handler(CommandHandler("start", start))
    application.add_handler(CommandHandler("help", help_command))
    application.add_handler(CommandHandler("rules", rules_command))
    application.add_handler(CommandHandler("newgame", newgame))
    application.add_handler(CommandHandler("pulka", pulka_command))
    application.add_handler(CommandHandler("stop", stop_command))
