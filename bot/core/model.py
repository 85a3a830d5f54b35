"""A table in one group: its status, settings, seats and game, apart from what Telegram needs.

Nothing here decides a rule (the game is :class:`bot.preferans.game.Game`). A
:class:`Table` holds the game state; what the group was not shown yet (:class:`Unshown`)
and the state of the buttons (:class:`TableUi`) are kept apart, each in its own object.
Which Telegram message shows what is the Telegram side's own (:mod:`bot.telegram.shown`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import cast

from bot.preferans.actions import Accept, Action, Offer
from bot.preferans.cards import Card
from bot.preferans.conventions import CONVENTIONS, Rules
from bot.preferans.deal import Deal
from bot.preferans.game import Game
from bot.preferans.offers import OpenOffer
from bot.preferans.robot.levels import DEFAULT_LEVEL, LEVEL_NAMES
from bot.preferans.seats import Seat

from .modes import NotifyMode, RankStyle, RobotPace, SheetMode

__all__ = [
    "Status",
    "OptionValue",
    "SettingValue",
    "TableSettings",
    "SETTING_CHOICES",
    "TABLE_KEYS",
    "SHEET_MODES",
    "NOTIFY_MODES",
    "RANK_STYLES",
    "Player",
    "is_robot_id",
    "Holder",
    "Press",
    "Unshown",
    "AutoMove",
    "OfferNote",
    "TableUi",
    "Table",
]


class Status(StrEnum):
    """Where a table is in its life."""

    LOBBY = "lobby"
    PLAYING = "playing"
    OVER = "over"
    EXPIRED = "expired"
    CANCELLED = "cancelled"

    @property
    def open(self) -> bool:
        """In the lobby or in play (a chat has at most one such table)."""
        return self in (Status.LOBBY, Status.PLAYING)


OptionValue = bool | str | tuple[int, ...]
"""The value of a rules option (:data:`bot.preferans.conventions.OPTION_NAMES`)."""
SettingValue = int | str | OptionValue

SETTING_CHOICES: dict[str, tuple[SettingValue, ...]] = {
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
    "sheet": tuple(SheetMode),
    "robot_pace": tuple(RobotPace),
    "ranks": tuple(RankStyle),
    "robot_level": LEVEL_NAMES,
    "hints": (False, True),
}
"""Choices offered by the lobby's settings (each button cycles through them)."""
TABLE_KEYS = (
    "players",
    "convention",
    "pulka",
    "turn_time",
    "lang",
    "sheet",
    "robot_pace",
    "ranks",
    "robot_level",
    "hints",
)
"""Settings of the table itself; the other keys of :data:`SETTING_CHOICES` are rules options."""
SHEET_MODES = tuple(SheetMode)
RANK_STYLES = tuple(RankStyle)
NOTIFY_MODES = tuple(NotifyMode)


@dataclass(slots=True)
class TableSettings:
    """What the lobby lets the table choose; ``options`` override the convention's preset."""

    players: int = 3
    convention: str = "sochi"
    pulka: int = 20
    turn_time: int = 60
    """Seconds per decision; 0 turns the timer off."""
    options: dict[str, OptionValue] = field(default_factory=dict)
    lang: str = "ru"
    """Language of the group messages."""
    sheet: SheetMode = SheetMode.PICTURE
    """How the sheet is shown in the group."""
    robot_pace: RobotPace = RobotPace.NORMAL
    """How long computer players pause before they act."""
    ranks: RankStyle = RankStyle.LATIN
    """How the group's messages write card ranks."""
    robot_level: str = DEFAULT_LEVEL
    """How strong every computer player at the table plays (a name of
    :data:`bot.preferans.robot.levels.LEVELS`), one seated mid-game too."""
    hints: bool = False
    """Each person on turn gets a «💡» button: what the strongest computer player would do."""

    def rules(self) -> Rules:
        """The engine's rules for these settings."""
        return Rules.preset(self.convention, self.pulka, **self.options)

    def value(self, key: str) -> SettingValue:
        """The effective value of a setting or option (an option's override or preset)."""
        source: object = self if key in TABLE_KEYS else self.rules()
        return cast(SettingValue, getattr(source, key))

    def copy(self) -> TableSettings:
        return TableSettings(
            self.players,
            self.convention,
            self.pulka,
            self.turn_time,
            dict(self.options),
            self.lang,
            self.sheet,
            self.robot_pace,
            self.ranks,
            self.robot_level,
            self.hints,
        )


def is_robot_id(user_id: int) -> bool:
    """Computer players take negative ids (-1, -2, ...); people, Telegram's positive ones."""
    return user_id < 0


@dataclass(frozen=True, slots=True)
class Player:
    """A Telegram user at the table; his private chat id is his user id."""

    user_id: int
    name: str
    lang: str = "ru"

    @property
    def is_robot(self) -> bool:
        """A computer player (no private chat, no stored user row)."""
        return is_robot_id(self.user_id)


@dataclass(frozen=True, slots=True)
class Holder:
    """``user_id`` (named ``name``) holds ``seat`` from deal ``from_deal`` on."""

    seat: Seat
    from_deal: int
    user_id: int
    name: str


@dataclass(frozen=True, slots=True)
class Press:
    """An accepted press: pressing it again (its answer was lost in a restart) is already
    done. ``key`` is what the adapter says was pressed (opaque here)."""

    move: int
    user_id: int
    key: str


@dataclass(slots=True, eq=False)
class Unshown:
    """What the group was not shown yet: saved with the change that caused it, cleared once
    it was sent, shown again after a restart (see :mod:`bot.telegram.recovery`)."""

    ends: list[int] = field(default_factory=list)
    """The deals (numbers from 1) that ended: their messages show their last state, then
    the result and the sheet."""
    settlement: bool = False
    """The settlement of a game that is over is due."""
    lobby: bool = False
    """The lobby message of a started game is to be closed ("started")."""

    @property
    def anything(self) -> bool:
        return bool(self.ends) or self.settlement or self.lobby


@dataclass(frozen=True, slots=True)
class AutoMove:
    """An action the bot took for a player who ran out of time."""

    seat: Seat
    action: Action


@dataclass(frozen=True, slots=True)
class OfferNote:
    """An offer that was just refused, who refused it and the offerer's cards shown with it."""

    offer: Offer
    refused_by: Seat
    cards: tuple[Card, ...] = ()


@dataclass(slots=True, eq=False)
class TableUi:
    """The state of the buttons and notes, not of the game."""

    discard_pick: dict[Seat, tuple[Card, ...]] = field(default_factory=dict)
    """Cards a declarer has marked for his discard but not confirmed."""
    settings_open: bool = False
    """The lobby shows the settings keyboard (not stored)."""
    auto_note: AutoMove | None = None
    """The last automatic action, noted in the group's table message (not stored)."""
    forced: AutoMove | None = None
    """A declaration made for a declarer who had no choice (the engine's
    ``forced_declaration``), noted in the deal's messages until the next move (not stored)."""
    made_for: list[tuple[int, int, Action]] = field(default_factory=list)
    """The latest actions the bot made for people (a forced card, a timeout's) as (move,
    user id, action): his own press of that action at that move, arriving a moment later,
    is already done, not out of date (stored, like ``Table.recent``: the press may arrive
    after a restart)."""
    hand_auto: dict[Seat, Action] = field(default_factory=dict)
    """Automatic actions noted in each seat's hand message until he acts (not stored)."""
    acted_at: dict[Seat, float] = field(default_factory=dict)
    """When each seat last pressed a button (the service's clock; not stored): a player
    who acted moments ago is still looking and needs no turn notification."""
    dealt_at: float | None = None
    """When the current deal was dealt (not stored): its new hand messages rang, so a turn
    soon after needs no notification either."""
    offer_sure: tuple[int, dict[Seat, frozenset[Offer]]] = (-1, {})
    """At move N, the offers the solver proved guaranteed for each seat ("✅
    гарантировано"; not stored: only for the move it was found at). A leader's seat is
    here, with no offer proved or some, while his hand shows its offer buttons."""
    offer_note: OfferNote | None = None
    """The offer refused by the last move, for the table message (not stored)."""
    offer_shown: dict[Seat, OfferNote] = field(default_factory=dict)
    """A refused offer, for each seat that answered it: the offerer's cards stay in that
    seat's hand message until its own next move (not stored)."""
    retry_at: float | None = None
    """When a computer player's move that could not be saved is tried again (the service's
    clock; not stored)."""

    def after_move(
        self, deal: Deal, actor: Seat | None, action: Action, answered: OpenOffer | None
    ) -> None:
        """The offer notes after ``actor``'s ``action``; ``answered``: the offer that was
        open before it. The cards shown with a refused offer do not vanish at once: each
        player who answered may still look at them while he chooses his card to the trick
        (he has seen them anyway), and they go with that card."""
        self.offer_note = None
        if actor is not None:
            self.offer_shown.pop(actor, None)
        if isinstance(action, Accept) and not action.accepted and answered is not None:
            offerer = answered.offer.seat
            note = OfferNote(answered.offer, action.seat, tuple(sorted(deal.hand(offerer))))
            self.offer_note = note  # the leader plays on
            self.offer_shown = dict.fromkeys(answered.answerers, note)


@dataclass(slots=True, eq=False)
class Table:
    """A table in one group chat, from the lobby to the settlement."""

    id: int
    chat_id: int
    owner_id: int
    settings: TableSettings
    status: Status = Status.LOBBY
    seats: list[Player | None] = field(default_factory=list)
    game: Game | None = None
    move: int = 0
    """Move counter: every accepted change raises it, so buttons of older states are stale."""
    deadline: float | None = None
    """When the player to act times out (or when an unstarted lobby expires)."""
    deal_no: int = 0
    timeouts: dict[Seat, int] = field(default_factory=dict)
    """Consecutive timeouts per seat."""
    stop_votes: set[Seat] = field(default_factory=set)
    title: str = ""
    """The group's title (for private messages)."""
    seed: str = ""
    """The deal seed: deal ``n`` is shuffled by ``random.Random(f"{seed}:{n}")``, so a
    restarted bot deals exactly what it would have dealt."""
    started_at: float | None = None
    holders: list[Holder] = field(default_factory=list)
    recent: list[Press] = field(default_factory=list)
    paused: bool = False
    """The bot is not in the group (removed): no timers, no presses until it is added back."""
    archived: bool = False
    """The finished game is in the archive (``games``)."""
    blocked_noted: set[int] = field(default_factory=set)
    """User ids whose blocking of the bot was already explained in the group."""
    waiting: list[Player] = field(default_factory=list)
    """People who pressed «Сесть» in the lobby but have not opened the private chat yet
    (the lobby shows them and how to open it)."""
    unshown: Unshown = field(default_factory=Unshown)
    ui: TableUi = field(default_factory=TableUi)

    def __post_init__(self) -> None:
        if not self.seats:
            self.seats = [None] * self.settings.players

    def seat_of(self, user_id: int) -> Seat | None:
        for i, p in enumerate(self.seats):
            if p is not None and p.user_id == user_id:
                return Seat(i)
        return None

    def player(self, seat: Seat) -> Player | None:
        return self.seats[seat] if 0 <= seat < len(self.seats) else None

    def seated(self) -> list[tuple[Seat, Player]]:
        return [(Seat(i), p) for i, p in enumerate(self.seats) if p is not None]

    def to_act(self) -> tuple[Deal, Seat, Player | None] | None:
        """The running deal, its seat to act and that seat's player (none while the table is
        paused or out of play)."""
        if self.status != Status.PLAYING or self.paused or self.game is None:
            return None
        deal = self.game.current
        if deal is None or deal.actor is None:
            return None
        return deal, deal.actor, self.player(deal.actor)

    @property
    def full(self) -> bool:
        return all(p is not None for p in self.seats)

    def names(self) -> list[str]:
        return [p.name if p is not None else "—" for p in self.seats]

    def resize(self, players: int) -> None:
        """Change the number of seats in the lobby (seated players keep their order)."""
        people = [p for p in self.seats if p is not None][:players]
        self.seats = people + [None] * (players - len(people))
