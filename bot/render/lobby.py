"""The lobby message: the table's settings and its seats."""

from __future__ import annotations

from bot.core.model import Status, Table, TableSettings
from bot.preferans.robot.levels import DEFAULT_LEVEL
from bot.render.i18n import t

from .text import convention_title, name, short_name_html, turn_label

__all__ = ["option_value", "options_summary", "lobby_text", "CLOSED_KEYS"]

CLOSED_KEYS = {
    Status.PLAYING: "lobby.started",
    Status.EXPIRED: "lobby.expired",
    Status.CANCELLED: "lobby.cancelled",
}
"""The last line of a closed lobby, by why it closed."""


def option_value(settings: TableSettings, key: str, lang: str) -> str:
    """How a setting's current value reads on its button."""
    if key == "players":
        return str(settings.players)
    if key == "convention":
        return convention_title(settings, lang)
    if key == "pulka":
        return str(settings.pulka)
    if key == "turn_time":
        return turn_label(settings.turn_time, lang)
    if key == "lang":
        return settings.lang.upper()
    if key == "sheet":
        return t(lang, f"set.sheet.{settings.sheet}")
    if key == "robot_pace":
        return t(lang, f"set.pace.{settings.robot_pace}")
    if key == "ranks":
        return t(lang, f"set.ranks.{settings.ranks}")
    if key == "robot_level":
        return t(lang, f"set.level.{settings.robot_level}")
    if key == "hints":
        return t(lang, "yes" if settings.hints else "no")
    value = settings.value(key)
    if key == "ten_checked":
        return t(lang, "set.ten.yes" if value else "set.ten.no")
    if key in ("jumps", "stalingrad", "half_whist"):
        return t(lang, "yes" if value else "no")
    if key == "whist_type":
        return t(lang, f"set.{value}")
    if key == "raspasy_exit" and isinstance(value, tuple):
        return "-".join(str(v) for v in value)
    raise KeyError(key)


def options_summary(settings: TableSettings, lang: str) -> str:
    """The options that differ from the usual table, in a few words (empty if none)."""
    rules = settings.rules()
    parts = []
    if rules.jumps:
        parts.append(t(lang, "opt.jumps"))
    if rules.ten_checked:
        parts.append(t(lang, "opt.ten_checked"))
    if rules.stalingrad:
        parts.append(t(lang, "opt.stalingrad"))
    if not rules.half_whist:
        parts.append(t(lang, "opt.no_half"))
    if "whist_type" in settings.options:
        parts.append(t(lang, "set.whist_type", v=t(lang, f"set.{rules.whist_type}")))
    if rules.raspasy_exit != (6,):
        parts.append(t(lang, "opt.exit", v="-".join(str(v) for v in rules.raspasy_exit)))
    return ", ".join(parts)


def _robot_lines(table: Table) -> list[str]:
    """The computer players' level (when one is seated or the level is not the usual one:
    one may take a seat later) and the hints, when the table has them."""
    s = table.settings
    lines = []
    robots = any(p is not None and p.is_robot for p in table.seats)
    if robots or s.robot_level != DEFAULT_LEVEL:
        lines.append(t(s.lang, "lobby.level", v=t(s.lang, f"set.level.{s.robot_level}")))
    if s.hints:
        lines.append(t(s.lang, "lobby.hints"))
    return lines


def lobby_text(table: Table, *, closed_key: str | None = None) -> str:
    """The lobby message in the group."""
    s = table.settings
    lang = s.lang
    lines = [
        t(lang, "lobby.title"),
        t(
            lang,
            "lobby.conf",
            convention=convention_title(s, lang),
            pulka=s.pulka,
            players=s.players,
            turn=turn_label(s.turn_time, lang),
        ),
    ]
    opts = options_summary(s, lang)
    if opts:
        lines.append(t(lang, "set.options", v=opts))
    lines += _robot_lines(table)
    lines.append("")
    lines.append(t(lang, "lobby.seats"))
    for i, p in enumerate(table.seats):
        who = name(table, i) if p is not None else f"<i>{t(lang, 'lobby.free')}</i>"
        lines.append(f"{i + 1}. {who}")
    lines.append("")
    if closed_key:
        lines.append(t(lang, closed_key))
        return "\n".join(lines)
    if table.waiting and not table.full:  # pressed «Сесть», no private chat yet
        names = ", ".join(short_name_html(p.name) if p.name else "?" for p in table.waiting)
        lines += [t(lang, "lobby.waiting", names=names), ""]
    lines.append(t(lang, "lobby.hint_full" if table.full else "lobby.hint"))
    return "\n".join(lines)
