"""``/export``, ``/history``, ``/stats`` and ``/top``: finished games and statistics.

Everything here reads the archive through the core (:mod:`bot.core.archive`): the pulka
records of finished and stopped games and the per-player rows computed from them
(definitions in :mod:`bot.stats` and the README).
"""

from __future__ import annotations

import datetime
import html
import json
import logging
from decimal import Decimal
from typing import Any

from telegram import InputFile, Update, User
from telegram.constants import ParseMode
from telegram.ext import Application, CommandHandler

from bot.core.archive import Totals
from bot.preferans.game import Game
from bot.render.i18n import number, t
from bot.render.sheet_text import short_name
from bot.render.text import group_title, title_of

from .queue import Sound
from .runtime import Context, Runtime, group_lang, is_group, runtime, sender

__all__ = [
    "COMMANDS",
    "add_handlers",
    "day",
    "export_command",
    "history_command",
    "stats_command",
    "top_command",
]

log = logging.getLogger(__name__)

COMMANDS = ("history", "stats", "top", "export")
"""Commands of this module, for the command menu."""

HISTORY_LIMIT = 10
TOP_LIMIT = 10
NAME_WIDTH = 20


def _signed(lang: str, value: float, *, signed: bool = True) -> str:
    """A stored result as the language writes it ("+318,67"), two decimals at most."""
    return number(lang, Decimal(str(round(value, 2))) + 0, signed=signed)


def _name(name: str) -> str:
    return html.escape(short_name(name, NAME_WIDTH))


def _convention(code: str, lang: str) -> str:
    from bot.preferans.conventions import CONVENTIONS

    conv = CONVENTIONS.get(code)
    if conv is None:
        return code
    return conv.title_ru if lang == "ru" else conv.title_en


# ---------------------------------------------------------------------- /history


async def history_command(update: Update, context: Context) -> None:
    """The group's last games with their results; in private the player's own last games
    in every group, each with its group's title."""
    rt = runtime(context)
    chat = update.effective_chat
    user = update.effective_user
    if chat is None:
        return
    lang = await group_lang(rt, update)
    if is_group(update):
        games = await rt.service.archive.games(chat_id=chat.id, limit=HISTORY_LIMIT)
        heading, none = "hist.title", "hist.none"
    elif user is not None:
        games = await rt.service.archive.games(user_id=user.id, limit=HISTORY_LIMIT)
        heading, none = "hist.mine_title", "hist.mine_none"
    else:
        return
    if not games:
        rt.outbox.answer_command(chat.id, t(lang, none), who=sender(update))
        return
    lines = [t(lang, heading)]
    for n, g in enumerate(games, start=1):
        values = {
            "n": n,
            "date": day(g.ended_at),
            "convention": _convention(g.convention, lang),
            "pulka": g.pulka,
            "deals": g.deals,
            "status": t(lang, f"hist.{g.status}"),
        }
        lines.append("")
        if is_group(update):
            lines.append(t(lang, "hist.game", **values))
        else:
            title = group_title(g.title, g.table_id)
            lines.append(t(lang, "hist.game_in", title=title, **values))
        if g.results:
            results = (f"{_name(name)} {_signed(lang, v)}" for _, name, v in g.results)
            lines.append(" · ".join(results))
    rt.outbox.answer_command(chat.id, "\n".join(lines), who=sender(update))


def day(timestamp: float) -> str:
    """The day of ``timestamp`` as the lists write it (UTC): "12.05.2025"."""
    return datetime.datetime.fromtimestamp(timestamp, datetime.UTC).strftime("%d.%m.%Y")


# ---------------------------------------------------------------------- /stats and /top


def _stats_line(lang: str, s: Totals) -> str:
    if not s.games:
        return t(lang, "stats.none")
    return t(
        lang,
        "stats.line",
        games=s.games,
        deals=s.deals,
        made=s.contracts_made,
        failed=s.contracts_failed,
        mmade=s.miseres_made,
        mfailed=s.miseres_failed,
        net=_signed(lang, s.net_whists),
        written=_signed(lang, s.whists_written, signed=False),
    )


def _target(update: Update) -> User | None:
    """The player replied to (not a bot), else the sender."""
    message = update.effective_message
    reply = message.reply_to_message if message is not None else None
    if reply is not None and reply.from_user is not None and not reply.from_user.is_bot:
        return reply.from_user
    return update.effective_user


async def stats_command(update: Update, context: Context) -> None:
    """A player's statistics in this group and overall."""
    rt = runtime(context)
    chat = update.effective_chat
    user = _target(update)
    if chat is None or user is None:
        return
    lang = await group_lang(rt, update)
    overall = await rt.service.archive.totals(user.id)
    name = overall.name if overall.games else (user.full_name or user.username or str(user.id))
    lines = [t(lang, "stats.title", name=_name(name))]
    if is_group(update):
        here = await rt.service.archive.totals(user.id, chat.id)
        lines += ["", t(lang, "stats.group"), _stats_line(lang, here)]
        lines += ["", t(lang, "stats.overall"), _stats_line(lang, overall)]
    else:
        lines += ["", _stats_line(lang, overall)]
    rt.outbox.answer_command(chat.id, "\n".join(lines), who=sender(update))


async def top_command(update: Update, context: Context) -> None:
    """The group's players by net whists; in private, where to ask and what to ask there."""
    rt = runtime(context)
    chat = update.effective_chat
    if chat is None:
        return
    lang = await group_lang(rt, update)
    if not is_group(update):
        rt.outbox.answer_command(chat.id, t(lang, "top.in_private"), who=sender(update))
        return
    best = await rt.service.archive.top(chat.id, TOP_LIMIT)
    robots = await rt.service.archive.top(chat.id, TOP_LIMIT, robots=True)
    if not best and not robots:
        rt.outbox.answer_command(chat.id, t(lang, "hist.none"), who=sender(update))
        return
    lines = [t(lang, "top.title")]
    for title, rows in (("", best), ("top.robots", robots)):
        if title and rows:
            lines += ["", t(lang, title)]  # people and computer players are ranked apart
        for n, s in enumerate(rows, start=1):
            net = _signed(lang, s.net_whists)
            lines.append(t(lang, "top.line", n=n, name=_name(s.name), net=net, games=s.games))
    rt.outbox.answer_command(chat.id, "\n".join(lines), who=sender(update))


# ---------------------------------------------------------------------- /export


Found = tuple[int, dict[str, Any], str | None]
"""A record to export: the table's id, the record, and in private the group's title."""


async def _records_for(rt: Runtime, update: Update) -> list[Found]:
    """The group's current or last game; in private every running game of the player (he
    may sit at tables in several groups), else his last finished one."""
    chat = update.effective_chat
    user = update.effective_user
    service = rt.service
    if is_group(update) and chat is not None:
        table = service.registry.open_table(chat.id)
        live = service.registry.live_record(table) if table is not None else None
        if table is not None and live is not None:
            return [(table.id, live, None)]
        found = await service.archive.last_of_chat(chat.id)
        return [(*found, None)] if found is not None else []
    if user is None:
        return []
    tables = service.registry.tables_of(user.id)
    running: list[Found] = []
    for table in sorted(tables, key=lambda tb: tb.id):
        live = service.registry.live_record(table)
        if live is not None:
            running.append((table.id, live, title_of(table, tables)))
    if running:
        return running
    found = await service.archive.last_of_player(user.id)
    return [(*found, None)] if found is not None else []


async def export_command(update: Update, context: Context) -> None:
    """Send the record of the current or last game as a ``preferans-record/1`` file; in
    private one file for each game the player is in, captioned with its group."""
    rt = runtime(context)
    chat = update.effective_chat
    if chat is None:
        return
    lang = await group_lang(rt, update)
    try:
        found = await _records_for(rt, update)
    except Exception as exc:  # noqa: BLE001 - a damaged record (or the database away): say so
        user = update.effective_user
        whose = f"chat {chat.id}" if is_group(update) or user is None else f"user {user.id}"
        log.warning("the record of %s's last game cannot be read: %s", whose, exc)
        rt.outbox.answer_command(chat.id, t(lang, "export.unreadable"), who=sender(update))
        return
    if not found:
        rt.outbox.answer_command(chat.id, t(lang, "export.none"), who=sender(update))
        return
    for table_id, record, title in found:
        _send_record(rt, context, chat.id, lang, table_id, record, title)


def _send_record(
    rt: Runtime,
    context: Context,
    chat_id: int,
    lang: str,
    table_id: int,
    record: dict[str, Any],
    title: str | None,
) -> None:
    data = json.dumps(record, ensure_ascii=False, indent=1).encode()
    file_name = f"pulka-{table_id}.json"
    rules = record.get("rules", {})
    caption = html.escape(
        t(
            lang,
            "export.caption",
            convention=_convention(str(rules.get("convention", "")), lang),
            pulka=rules.get("pulka", "?"),
            deals=_scored_deals(record),
        )
    )
    if title is not None:  # title_of is HTML already
        caption = f"<b>{title}</b>\n{caption}"
    bot = context.bot

    async def send() -> bool:
        await rt.outbox.retry(
            lambda: bot.send_document(
                chat_id,
                InputFile(data, filename=file_name),
                caption=caption,
                parse_mode=ParseMode.HTML,
                disable_notification=Sound.default(chat_id).disable_notification,
            )
        )
        return True

    rt.outbox.call(chat_id, send)


def _scored_deals(record: dict[str, Any]) -> int | str:
    try:
        return len(Game.from_record(record).finished_deals)
    except Exception:
        return "?"


def add_handlers(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Register ``/history``, ``/stats``, ``/top`` and ``/export``."""
    application.add_handler(CommandHandler("history", history_command))
    application.add_handler(CommandHandler("stats", stats_command))
    application.add_handler(CommandHandler("top", top_command))
    application.add_handler(CommandHandler("export", export_command))
