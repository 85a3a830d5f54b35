"""The state of one table in a group: lobby settings, seats, the game and its messages.

Nothing here decides a rule: the game itself is :class:`bot.preferans.game.Game`; a table
only adds what Telegram needs around it (who sits where, which messages show it, the move
counter that makes old buttons harmless, the turn deadline).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.preferans.cards import Card, parse_card
from bot.preferans.conventions import CONVENTIONS, Rules
from bot.preferans.game import Game

__all__ = [
    "LOBBY",
    "PLAYING",
    "OVER",
    "CLOSED_STATES",
    "TableSettings",
    "Player",
    "Slot",
    "Table",
    "SETTING_CHOICES",
    "SHEET_MODES",
]

LOBBY = "lobby"
PLAYING = "playing"
OVER = "over"
EXPIRED = "expired"
CANCELLED = "cancelled"
CLOSED_STATES = (OVER, EXPIRED, CANCELLED)

# Choices offered by the lobby's settings keyboard (each button cycles through them).
SETTING_CHOICES: dict[str, tuple[Any, ...]] = {
    "players": (3, 4),
    "convention": tuple(CONVENTIONS),
    "pulka": (10, 15, 20, 30, 50),
    "turn_time": (30, 60, 120, 300, 0),
    "jumps": (False, True),
    "ten_checked": (False, True),
    "stalingrad": (False, True),
    "half_whist": (True, False),
    "whist_type": ("greedy", "gentleman"),
    "raspasy_exit": ((6,), (6, 7, 7), (7,)),
    "lang": ("ru", "en"),
    "sheet": ("picture", "text", "both"),
}
SHEET_MODES = SETTING_CHOICES["sheet"]
"""How the group gets the pulka sheet: a picture, the monospace text, or both."""
OPTION_KEYS = ("jumps", "ten_checked", "stalingrad", "half_whist", "whist_type", "raspasy_exit")


@dataclass(slots=True)
class TableSettings:
    """What the lobby lets the table choose; ``options`` override the convention's preset."""

    players: int = 3
    convention: str = "sochi"
    pulka: int = 20
    turn_time: int = 60
    """Seconds per decision; 0 turns the timer off."""
    options: dict[str, Any] = field(default_factory=dict)
    lang: str = "ru"
    """Language of the group messages."""
    sheet: str = "picture"
    """How the sheet is shown in the group (one of :data:`SHEET_MODES`)."""

    def rules(self) -> Rules:
        """The engine's rules for these settings."""
        return Rules.preset(self.convention, self.pulka, **self.options)

    def option(self, key: str) -> Any:
        """The effective value of an option (the override or the preset's)."""
        return getattr(self.rules(), key)

    def to_json(self) -> dict[str, Any]:
        opts = {k: list(v) if isinstance(v, tuple) else v for k, v in self.options.items()}
        return {
            "players": self.players,
            "convention": self.convention,
            "pulka": self.pulka,
            "turn_time": self.turn_time,
            "options": opts,
            "lang": self.lang,
            "sheet": self.sheet,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TableSettings:
        opts = {
            k: tuple(v) if isinstance(v, list) else v for k, v in data.get("options", {}).items()
        }
        sheet = str(data.get("sheet", "picture"))
        return cls(
            players=int(data.get("players", 3)),
            convention=str(data.get("convention", "sochi")),
            pulka=int(data.get("pulka", 20)),
            turn_time=int(data.get("turn_time", 60)),
            options=opts,
            lang=str(data.get("lang", "ru")),
            sheet=sheet if sheet in SHEET_MODES else "picture",
        )

    def copy(self) -> TableSettings:
        return TableSettings.from_json(self.to_json())


@dataclass(slots=True)
class Player:
    """A Telegram user at the table; his private chat id is his user id."""

    user_id: int
    name: str
    lang: str = "ru"

    def to_json(self) -> dict[str, Any]:
        return {"user_id": self.user_id, "name": self.name, "lang": self.lang}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Player:
        return cls(int(data["user_id"]), str(data["name"]), str(data.get("lang", "ru")))


@dataclass(slots=True, eq=False)
class Slot:
    """One message the bot keeps up to date (``message_id`` is ``None`` until it is sent)."""

    chat_id: int
    message_id: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"chat_id": self.chat_id, "message_id": self.message_id}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Slot | None:
        if not data:
            return None
        return cls(int(data["chat_id"]), data.get("message_id"))


@dataclass(slots=True, eq=False)
class Table:
    """A table in one group chat, from the lobby to the settlement."""

    id: int
    chat_id: int
    owner_id: int
    settings: TableSettings
    status: str = LOBBY
    seats: list[Player | None] = field(default_factory=list)
    game: Game | None = None
    move: int = 0
    """Move counter: every accepted action raises it, so buttons of older states are stale."""
    deadline: float | None = None
    """When the player to act times out (or when an unstarted lobby expires)."""
    table_slot: Slot | None = None
    """The lobby message, later the table message of the current deal (group chat)."""
    hand_slots: dict[int, Slot] = field(default_factory=dict)
    """Each seat's hand message of the current deal (private chats)."""
    deal_no: int = 0
    discard_pick: dict[int, list[Card]] = field(default_factory=dict)
    """Cards a declarer has marked for his discard but not confirmed (not a rule: a UI state)."""
    timeouts: dict[int, int] = field(default_factory=dict)
    """Consecutive timeouts per seat."""
    stop_votes: set[int] = field(default_factory=set)
    """Seats that voted to stop the game."""
    title: str = ""
    """The group's title (for private messages)."""
    blocked_noted: set[int] = field(default_factory=set)
    """User ids whose blocking of the bot was already explained in the group."""
    sheet_message: int | None = None
    """The group's sheet message (see :mod:`bot.sheet_messages`) the next sheet replaces."""
    sheet_photo: bool = False
    """Whether :attr:`sheet_message` is a picture (else a text message)."""
    seed: str = ""
    """The table's deal seed: deal ``n`` is shuffled by ``random.Random(f"{seed}:{n}")``, so
    a restarted bot deals exactly what it would have dealt."""
    started_at: float | None = None
    holders: list[dict[str, Any]] = field(default_factory=list)
    """Who held each seat from which deal on (:class:`bot.stats.Holder` as JSON)."""
    recent: list[tuple[int, int, str]] = field(default_factory=list)
    """The last accepted presses ``(move, user id, code)``: pressing one again (its answer
    was lost in a restart) is answered as already done."""
    unshown_ends: list[dict[str, Any]] = field(default_factory=list)
    """Ended deals (``deal_no`` and their messages) the group was not shown yet; a restart
    shows them again."""
    settlement_shown: bool | None = None
    """``False`` from the end of the game until the settlement was sent."""
    lobby_message: int | None = None
    """The lobby message of a started game until it was closed (edited to "started")."""
    archived: bool = False
    """The finished game is in the archive (``games``)."""
    paused: bool = False
    """The bot is not in the group (removed): no timers, no presses until it is added back."""

    def __post_init__(self) -> None:
        if not self.seats:
            self.seats = [None] * self.settings.players

    # ------------------------------------------------------------------ seats

    def seat_of(self, user_id: int) -> int | None:
        for i, p in enumerate(self.seats):
            if p is not None and p.user_id == user_id:
                return i
        return None

    def seated(self) -> list[tuple[int, Player]]:
        return [(i, p) for i, p in enumerate(self.seats) if p is not None]

    @property
    def full(self) -> bool:
        return all(p is not None for p in self.seats)

    def names(self) -> list[str]:
        return [p.name if p is not None else "—" for p in self.seats]

    def resize(self, players: int) -> None:
        """Change the number of seats in the lobby (seated players keep their order)."""
        people = [p for p in self.seats if p is not None][:players]
        self.seats = people + [None] * (players - len(people))

    @property
    def replaceable(self) -> list[int]:
        """Seats whose player kept timing out (Кодекс 3.1.2: another player may take them)."""
        return sorted(s for s, n in self.timeouts.items() if n >= 2)

    # ------------------------------------------------------------------ persistence

    def state_json(self) -> dict[str, Any]:
        """Everything but the settings and the game record (stored in their own columns)."""
        return {
            "seats": [p.to_json() if p is not None else None for p in self.seats],
            "table_slot": self.table_slot.to_json() if self.table_slot else None,
            "hand_slots": {str(k): v.to_json() for k, v in self.hand_slots.items()},
            "deal_no": self.deal_no,
            "discard_pick": {str(k): [c.code for c in v] for k, v in self.discard_pick.items()},
            "timeouts": {str(k): v for k, v in self.timeouts.items()},
            "stop_votes": sorted(self.stop_votes),
            "title": self.title,
            "blocked_noted": sorted(self.blocked_noted),
            "sheet_message": self.sheet_message,
            "sheet_photo": self.sheet_photo,
            "seed": self.seed,
            "started_at": self.started_at,
            "holders": self.holders,
            "recent": [list(r) for r in self.recent],
            "unshown_ends": self.unshown_ends,
            "settlement_shown": self.settlement_shown,
            "lobby_message": self.lobby_message,
            "archived": self.archived,
            "paused": self.paused,
        }

    def load_state(self, data: dict[str, Any]) -> None:
        self.seats = [Player.from_json(p) if p else None for p in data.get("seats", [])]
        self.table_slot = Slot.from_json(data.get("table_slot"))
        self.hand_slots = {}
        for k, v in data.get("hand_slots", {}).items():
            slot = Slot.from_json(v)
            if slot is not None:
                self.hand_slots[int(k)] = slot
        self.deal_no = int(data.get("deal_no", 0))
        self.discard_pick = {
            int(k): [parse_card(c) for c in v] for k, v in data.get("discard_pick", {}).items()
        }
        self.timeouts = {int(k): int(v) for k, v in data.get("timeouts", {}).items()}
        self.stop_votes = {int(s) for s in data.get("stop_votes", [])}
        self.title = str(data.get("title", ""))
        self.blocked_noted = {int(u) for u in data.get("blocked_noted", [])}
        sheet_message = data.get("sheet_message")
        self.sheet_message = int(sheet_message) if sheet_message is not None else None
        self.sheet_photo = bool(data.get("sheet_photo", False))
        self.seed = str(data.get("seed", ""))
        started = data.get("started_at")
        self.started_at = float(started) if started is not None else None
        self.holders = list(data.get("holders", []))
        self.recent = [(int(m), int(u), str(c)) for m, u, c in data.get("recent", [])]
        self.unshown_ends = list(data.get("unshown_ends", []))
        shown = data.get("settlement_shown")
        self.settlement_shown = bool(shown) if shown is not None else None
        lobby = data.get("lobby_message")
        self.lobby_message = int(lobby) if lobby is not None else None
        self.archived = bool(data.get("archived", False))
        self.paused = bool(data.get("paused", False))
