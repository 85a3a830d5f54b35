"""The one place a table is turned into stored JSON and back.

The layout is the one stored since the first version (``settings`` and ``state`` columns,
flat keys), so old databases load as they are; unknown or missing keys take defaults.
"""

from __future__ import annotations

from typing import Any

from bot.preferans.cards import parse_card
from bot.preferans.game import Game
from bot.preferans.robot.levels import DEFAULT_LEVEL, LEVEL_NAMES
from bot.preferans.seats import Seat
from storage import HolderRow, TableRow

from .model import (
    SHEET_MODES,
    Holder,
    Messages,
    OptionValue,
    Player,
    Press,
    Slot,
    Status,
    Table,
    TableSettings,
    Unshown,
    UnshownEnd,
)
from .modes import RankStyle, RobotPace, SheetMode

__all__ = [
    "settings_json",
    "settings_from_json",
    "state_json",
    "table_from_row",
    "holder_row",
    "load_state",
    "shown_of",
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


def _slot(slot: Slot | None) -> dict[str, Any] | None:
    return {"chat_id": slot.chat_id, "message_id": slot.message_id} if slot else None


def _slot_from(data: Any) -> Slot | None:
    if not data:
        return None
    mid = data.get("message_id")
    return Slot(int(data["chat_id"]), int(mid) if mid is not None else None)


def _slots(slots: dict[Seat, Slot]) -> dict[str, Any]:
    return {str(int(k)): _slot(v) for k, v in slots.items()}


def _slots_from(data: Any) -> dict[Seat, Slot]:
    out = {}
    for k, v in (data or {}).items():
        slot = _slot_from(v)
        if slot is not None:
            out[Seat(int(k))] = slot
    return out


def _player(p: Player) -> dict[str, Any]:
    return {"user_id": p.user_id, "name": p.name, "lang": p.lang}


def _player_from(data: Any) -> Player:
    return Player(int(data["user_id"]), str(data["name"]), str(data.get("lang", "ru")))


def holder_row(h: Holder) -> HolderRow:
    return HolderRow(int(h.seat), h.from_deal, h.user_id, h.name)


def state_json(table: Table) -> dict[str, Any]:
    """Everything but the settings and the game record (stored in their own columns)."""
    m, u = table.messages, table.unshown
    return {
        "seats": [_player(p) if p is not None else None for p in table.seats],
        "table_slot": _slot(m.table_slot),
        "hand_slots": _slots(m.hand_slots),
        "deal_no": table.deal_no,
        "discard_pick": {
            str(int(k)): [c.code for c in v] for k, v in table.ui.discard_pick.items()
        },
        "timeouts": {str(int(k)): v for k, v in table.timeouts.items()},
        "stop_votes": sorted(int(s) for s in table.stop_votes),
        "title": table.title,
        "blocked_noted": sorted(table.blocked_noted),
        "waiting": [_player(p) for p in table.waiting],
        "sheet_message": m.sheet_message,
        "sheet_photo": m.sheet_photo,
        "reminder": _slot(m.reminder),
        "vote": _slot(m.vote),
        "live_buttons": [[_slot(slot), text] for slot, text in m.live],
        "seed": table.seed,
        "started_at": table.started_at,
        "holders": [
            {"seat": int(h.seat), "from_deal": h.from_deal, "user_id": h.user_id, "name": h.name}
            for h in table.holders
        ],
        "recent": [[p.move, p.user_id, p.key] for p in table.recent],
        "unshown_ends": [
            {
                "deal_no": e.deal_no,
                "table_slot": _slot(e.table_slot),
                "hand_slots": _slots(e.hand_slots),
            }
            for e in u.ends
        ],
        # stored as before: False while due, True once shown, None before the game is over
        "settlement_shown": False if u.settlement else (table.status == Status.OVER or None),
        "lobby_message": u.lobby_message,
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
    sheet = data.get("sheet_message")
    table.messages = Messages(
        table_slot=_slot_from(data.get("table_slot")),
        hand_slots=_slots_from(data.get("hand_slots")),
        sheet_message=int(sheet) if sheet is not None else None,
        sheet_photo=bool(data.get("sheet_photo", False)),
        reminder=_slot_from(data.get("reminder")),
        vote=_slot_from(data.get("vote")),
        live=[
            (slot, str(text)) for d, text in data.get("live_buttons", []) if (slot := _slot_from(d))
        ],
    )
    table.seed = str(data.get("seed", ""))
    started = data.get("started_at")
    table.started_at = float(started) if started is not None else None
    table.holders = [
        Holder(Seat(int(h["seat"])), int(h["from_deal"]), int(h["user_id"]), str(h["name"]))
        for h in data.get("holders", [])
    ]
    table.recent = [Press(int(m), int(u), str(c)) for m, u, c in data.get("recent", [])]
    lobby = data.get("lobby_message")
    table.unshown = Unshown(
        ends=[
            UnshownEnd(
                int(e.get("deal_no", 0)),
                _slot_from(e.get("table_slot")),
                _slots_from(e.get("hand_slots")),
            )
            for e in data.get("unshown_ends", [])
        ],
        settlement=data.get("settlement_shown") is False,
        lobby_message=int(lobby) if lobby is not None else None,
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
    for slot in _kept(table):
        if slot.message_id is not None:
            slot.shown = row.shown.get(f"{slot.chat_id}:{slot.message_id}")
    if len(table.seats) != settings.players:
        table.resize(settings.players)
    table.move = row.move
    table.deadline = row.deadline
    if with_game and row.record is not None:
        table.game = Game.from_record(row.record)
    return table


def _kept(table: Table) -> list[Slot]:
    """The messages a table keeps up to date (and those of deals still to be shown)."""
    m = table.messages
    slots = [m.table_slot, m.vote, *m.hand_slots.values()]
    for end in table.unshown.ends:
        slots += [end.table_slot, *end.hand_slots.values()]
    return [s for s in slots if s is not None]


def shown_of(table: Table) -> dict[str, str]:
    """What each of the table's messages shows (``"chat_id:message_id"`` -> the digest the
    Telegram side set once it went out), as :meth:`storage.TableStore.save_shown` writes
    it: after a restart, a message whose digest is what it must show is not edited."""
    return {
        f"{s.chat_id}:{s.message_id}": s.shown
        for s in _kept(table)
        if s.message_id is not None and s.shown is not None
    }
