"""The one place a table is turned into stored JSON and back.

The layout is the one stored since the first version (``settings`` and ``state`` columns,
flat keys), so old databases load as they are; unknown or missing keys take defaults.
"""

from __future__ import annotations

from typing import Any

from bot.preferans.actions import action_from_json
from bot.preferans.cards import parse_card
from bot.preferans.game import Game
from bot.preferans.robot.levels import DEFAULT_LEVEL, LEVEL_NAMES
from bot.preferans.seats import Seat
from storage import HolderRow, TableRow

from .model import (
    SHEET_MODES,
    Holder,
    OptionValue,
    Player,
    Press,
    Status,
    Table,
    TableSettings,
    Unshown,
)
from .modes import RankStyle, RobotPace, SheetMode

__all__ = [
    "settings_json",
    "settings_from_json",
    "state_json",
    "table_from_row",
    "holder_row",
    "load_state",
]


def settings_json(s: TableSettings) -> dict[str, Any]:
    opts = {k: list(v) if isinstance(v, tuple) else v for k, v in s.options.items()}
    return {
        "players": s.players,
        "convention": s.convention,
        "pulka": s.pulka,
        "turn_time": s.turn_time,
        "options": opts,
        "lang": s.lang,
        "sheet": str(s.sheet),
        "robot_pace": str(s.robot_pace),
        "ranks": str(s.ranks),
        "robot_level": s.robot_level,
        "hints": s.hints,
    }


def _option(value: Any) -> OptionValue:
    if isinstance(value, list):
        return tuple(int(v) for v in value)
    if isinstance(value, bool | str):
        return value
    raise ValueError(f"bad option value {value!r}")


def settings_from_json(data: dict[str, Any]) -> TableSettings:
    opts = {str(k): _option(v) for k, v in data.get("options", {}).items()}
    sheet = str(data.get("sheet", "picture"))
    level = data.get("robot_level")
    return TableSettings(
        players=int(data.get("players", 3)),
        convention=str(data.get("convention", "sochi")),
        pulka=int(data.get("pulka", 20)),
        turn_time=int(data.get("turn_time", 60)),
        options=opts,
        lang=str(data.get("lang", "ru")),
        sheet=SheetMode(sheet) if sheet in SHEET_MODES else SheetMode.PICTURE,
        robot_pace=RobotPace.FAST if data.get("robot_pace") == "fast" else RobotPace.NORMAL,
        ranks=RankStyle.RUSSIAN if data.get("ranks") == "russian" else RankStyle.LATIN,
        robot_level=level if level in LEVEL_NAMES else DEFAULT_LEVEL,
        hints=data.get("hints") is True,
    )


def _player(p: Player) -> dict[str, Any]:
    return {"user_id": p.user_id, "name": p.name, "lang": p.lang}


def _player_from(data: Any) -> Player:
    return Player(int(data["user_id"]), str(data["name"]), str(data.get("lang", "ru")))


def holder_row(h: Holder) -> HolderRow:
    return HolderRow(int(h.seat), h.from_deal, h.user_id, h.name)


def state_json(table: Table) -> dict[str, Any]:
    """Everything but the settings and the game record (stored in their own columns)."""
    u = table.unshown
    return {
        "seats": [_player(p) if p is not None else None for p in table.seats],
        "deal_no": table.deal_no,
        "discard_pick": {
            str(int(k)): [c.code for c in v] for k, v in table.ui.discard_pick.items()
        },
        "timeouts": {str(int(k)): v for k, v in table.timeouts.items()},
        "stop_votes": sorted(int(s) for s in table.stop_votes),
        "title": table.title,
        "blocked_noted": sorted(table.blocked_noted),
        "waiting": [_player(p) for p in table.waiting],
        "seed": table.seed,
        "started_at": table.started_at,
        "holders": [
            {"seat": int(h.seat), "from_deal": h.from_deal, "user_id": h.user_id, "name": h.name}
            for h in table.holders
        ],
        "recent": [[p.move, p.user_id, p.key] for p in table.recent],
        # what the bot made for people (a forced card, a timeout's move): his own press of
        # it arriving after a restart is already done, as it would have been before
        "made_for": [[m, u, a.to_json()] for m, u, a in table.ui.made_for],
        "unshown_ends": [{"deal_no": n} for n in u.ends],
        # stored as before: False while due, True once shown, None before the game is over
        "settlement_shown": False if u.settlement else (table.status == Status.OVER or None),
        "lobby_unshown": u.lobby,
        "archived": table.archived,
        "paused": table.paused,
    }


def load_state(table: Table, data: dict[str, Any]) -> None:
    table.seats = [_player_from(p) if p else None for p in data.get("seats", [])]
    table.deal_no = int(data.get("deal_no", 0))
    table.ui.discard_pick = {
        Seat(int(k)): tuple(parse_card(c) for c in v)
        for k, v in data.get("discard_pick", {}).items()
    }
    table.timeouts = {Seat(int(k)): int(v) for k, v in data.get("timeouts", {}).items()}
    table.stop_votes = {Seat(int(s)) for s in data.get("stop_votes", [])}
    table.title = str(data.get("title", ""))
    table.blocked_noted = {int(u) for u in data.get("blocked_noted", [])}
    table.waiting = [_player_from(p) for p in data.get("waiting", [])]
    table.seed = str(data.get("seed", ""))
    started = data.get("started_at")
    table.started_at = float(started) if started is not None else None
    table.holders = [
        Holder(Seat(int(h["seat"])), int(h["from_deal"]), int(h["user_id"]), str(h["name"]))
        for h in data.get("holders", [])
    ]
    table.recent = [Press(int(m), int(u), str(c)) for m, u, c in data.get("recent", [])]
    players = table.settings.players
    table.ui.made_for = [
        (int(m), int(u), action_from_json(a, players)) for m, u, a in data.get("made_for", [])
    ]
    table.unshown = Unshown(
        ends=[int(e.get("deal_no", 0)) for e in data.get("unshown_ends", [])],
        settlement=data.get("settlement_shown") is False,
        lobby=data.get("lobby_unshown") is True,
    )
    table.archived = bool(data.get("archived", False))
    table.paused = bool(data.get("paused", False))


def table_from_row(row: TableRow, *, with_game: bool = True) -> Table:
    """A table as it was stored (raises on a row that cannot be read)."""
    settings = settings_from_json(row.settings)
    table = Table(
        id=row.id,
        chat_id=row.chat_id,
        owner_id=row.owner_id,
        settings=settings,
        status=Status(row.status),
    )
    load_state(table, row.state)
    if len(table.seats) != settings.players:
        table.resize(settings.players)
    table.move = row.move
    table.deadline = row.deadline
    if with_game and row.record is not None:
        table.game = Game.from_record(row.record)
    return table
