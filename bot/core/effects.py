"""What a change of a table did, for the Telegram side to show (frozen values).

Every method of :class:`~bot.core.service.TableService` that changes a table returns a
tuple of these, after the change was saved. An effect names what changed; the presenter
renders the table as it is when the message is sent (so a message coalesced in the outbox
always shows the latest state). ``TimerChanged`` asks the scheduler to re-arm the table's
timer from its saved deadline.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.preferans.actions import Action
from bot.preferans.game import FinishedDeal
from bot.preferans.seats import Seat

from .model import Player, Status, Table

__all__ = [
    "Effect",
    "Effects",
    "LobbyShown",
    "LobbyClosed",
    "Seated",
    "MustStartPrivate",
    "DealShown",
    "HandShown",
    "TurnPassed",
    "AutoPlayed",
    "DealEnded",
    "GameStopped",
    "GameOver",
    "SeatReplaceable",
    "SeatTaken",
    "RobotReplaced",
    "StopVoted",
    "VoteLapsed",
    "PlayerBlocked",
    "Paused",
    "Resumed",
    "TableMoved",
    "Remind",
    "TimerChanged",
]


@dataclass(frozen=True, slots=True)
class LobbyShown:
    """The lobby message changed (seats, settings, the settings keyboard opened)."""

    table: Table


@dataclass(frozen=True, slots=True)
class LobbyClosed:
    """The lobby message closes: the game started, or the lobby expired or was cancelled
    (``status``)."""

    table: Table
    status: Status


@dataclass(frozen=True, slots=True)
class Seated:
    """``player`` sat down in ``seat`` (he is told privately)."""

    table: Table
    seat: Seat
    player: Player


@dataclass(frozen=True, slots=True)
class MustStartPrivate:
    """``player`` must open the private chat first; then he sits down (``seat`` is
    ``None``: the lobby lists him meanwhile) or takes over ``seat``."""

    table: Table
    player: Player
    seat: Seat | None = None


@dataclass(frozen=True, slots=True)
class DealShown:
    """The current deal changed: the group's table message and every hand message."""

    table: Table
    moved: Seat | None = None
    """The seat whose move it was (``None``: the deal as a whole, e.g. a new deal)."""


@dataclass(frozen=True, slots=True)
class HandShown:
    """Only ``seat``'s hand message changed (a card marked, his chat opened again)."""

    table: Table
    seat: Seat
    anew: bool = False
    """Shown as a new message (his chat opened again: the old one may be far up)."""


@dataclass(frozen=True, slots=True)
class TurnPassed:
    """``seat`` is to act now, after another seat's move (for a turn notification)."""

    table: Table
    seat: Seat
    idle: float | None = None
    """Seconds since ``seat`` last acted or, if later, since the deal was dealt (its new hand
    message rang); ``None``: neither since the bot started."""


@dataclass(frozen=True, slots=True)
class AutoPlayed:
    """The bot acted for ``seat``, whose time ran out."""

    table: Table
    seat: Seat
    action: Action


@dataclass(frozen=True, slots=True)
class DealEnded:
    """Deal ``deal_no`` ended: its messages show its last state, then the result and the
    sheet. Shown again after a restart until confirmed (``TableService.shown``)."""

    table: Table
    deal_no: int
    finished: FinishedDeal
    auto: dict[Seat, Action]
    """Automatic actions still noted in hand messages of the deal."""


@dataclass(frozen=True, slots=True)
class GameStopped:
    """The game was stopped in the middle of a deal: freeze it, show the final sheet."""

    table: Table


@dataclass(frozen=True, slots=True)
class GameOver:
    """The game is over (finished or stopped): the settlement is due
    (``TableService.shown`` confirms it)."""

    table: Table


@dataclass(frozen=True, slots=True)
class SeatReplaceable:
    """``seat``'s player kept timing out: another player may take the seat."""

    table: Table
    seat: Seat


@dataclass(frozen=True, slots=True)
class SeatTaken:
    """``player`` took over ``seat`` from ``old_name`` (``old_id``): the replaced player's
    hand message of the deal is frozen (``old_lang``: his language), the new player's is
    a new message."""

    table: Table
    seat: Seat
    old_name: str
    player: Player
    old_id: int = 0
    old_lang: str = "ru"


@dataclass(frozen=True, slots=True)
class RobotReplaced:
    """A computer player took ``seat`` from ``old_name`` (``old_id``), who kept timing out;
    he (or anybody not seated) may take it back. His hand message of the deal is frozen
    (``old_lang``: his language)."""

    table: Table
    seat: Seat
    old_name: str
    old_id: int
    old_lang: str = "ru"


@dataclass(frozen=True, slots=True)
class StopVoted:
    """``seat`` voted to stop; ``votes`` of ``need`` so far (the game goes on); one
    message per deal's vote, edited as votes come."""

    table: Table
    seat: Seat
    votes: int
    need: int


@dataclass(frozen=True, slots=True)
class VoteLapsed:
    """The deal ended before the vote to stop had a majority: the votes of ``voters``
    (names) lapsed (a vote counts for its deal ``deal_no``, whose vote message says so)."""

    table: Table
    deal_no: int
    voters: tuple[str, ...]
    need: int


@dataclass(frozen=True, slots=True)
class PlayerBlocked:
    """The player ``name`` blocked the bot (told once in the group)."""

    table: Table
    name: str


@dataclass(frozen=True, slots=True)
class Paused:
    """The bot was removed from the group: the table waits (players told privately)."""

    table: Table


@dataclass(frozen=True, slots=True)
class Resumed:
    """The bot is in the group again: the table is shown anew (a new table message: the old
    one is far up)."""

    table: Table


@dataclass(frozen=True, slots=True)
class TableMoved:
    """The group became a supergroup: the table is shown in its new chat."""

    table: Table


@dataclass(frozen=True, slots=True)
class Remind:
    """``seat`` has ``seconds`` left to act (``None``: the timer is off and the table has
    been waiting for him a while)."""

    table: Table
    seat: Seat
    seconds: int | None


@dataclass(frozen=True, slots=True)
class TimerChanged:
    """The table's deadline, status or pause changed: re-arm its timer."""

    table: Table


Effect = (
    LobbyShown
    | LobbyClosed
    | Seated
    | MustStartPrivate
    | DealShown
    | HandShown
    | TurnPassed
    | AutoPlayed
    | DealEnded
    | GameStopped
    | GameOver
    | SeatReplaceable
    | SeatTaken
    | RobotReplaced
    | StopVoted
    | VoteLapsed
    | PlayerBlocked
    | Paused
    | Resumed
    | TableMoved
    | Remind
    | TimerChanged
)
Effects = tuple[Effect, ...]
