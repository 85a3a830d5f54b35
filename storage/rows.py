"""The typed rows the storage reads and writes (plain values; the bot builds them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "UserRow",
    "TableRow",
    "ShownRow",
    "ResumeEntry",
    "HolderRow",
    "PlayerRow",
    "GameArchive",
    "PLAYER_COLUMNS",
]


@dataclass(frozen=True, slots=True)
class UserRow:
    """A user the bot knows: his name, language and whether he can be written to."""

    user_id: int
    name: str
    lang: str
    private_ok: bool


@dataclass(frozen=True, slots=True)
class TableRow:
    """One table as stored: JSON columns decoded, the record with all its deals."""

    id: int
    chat_id: int
    owner_id: int
    status: str
    settings: dict[str, Any]
    state: dict[str, Any]
    record: dict[str, Any] | None
    move: int
    deadline: float | None
    created_at: float


@dataclass(frozen=True, slots=True)
class ShownRow:
    """A Telegram message that shows part of a table: ``kind`` ('table', 'hand', 'vote',
    'sheet', 'reminder', 'live') and ``part`` (which one of its kind) in ``chat``, the
    digest of what it last showed and a note of its kind (a sheet's 'photo', a text)."""

    table_id: int
    chat: int
    kind: str
    part: int
    message_id: int
    digest: str | None = None
    note: str | None = None


@dataclass(frozen=True, slots=True)
class ResumeEntry:
    """A table a restart resumes (or one closed lately), as the start-up lists it before
    reading any: its chat, the people it concerns and when it last changed."""

    id: int
    chat_id: int
    users: frozenset[int]
    """Seated people, and in a lobby those waiting to sit down."""
    updated_at: float
    open: bool
    """To resume (else closed lately: read only if somebody presses its buttons)."""


@dataclass(frozen=True, slots=True)
class HolderRow:
    """``user_id`` (named ``name``) holds ``seat`` from deal ``from_deal`` on."""

    seat: int
    from_deal: int
    user_id: int
    name: str


@dataclass(frozen=True, slots=True)
class PlayerRow:
    """One player's statistics of one archived game (a ``game_players`` row)."""

    user_id: int
    seat: int
    name: str
    deals: int = 0
    contracts_made: int = 0
    contracts_failed: int = 0
    miseres_made: int = 0
    miseres_failed: int = 0
    net_whists: float = 0.0
    whists_written: float = 0.0


PLAYER_COLUMNS = tuple(PlayerRow.__dataclass_fields__)
"""The columns of ``game_players`` the bot fills, in :class:`PlayerRow`'s order."""


@dataclass(frozen=True, slots=True)
class GameArchive:
    """A finished or stopped game as archived (``games`` row and ``game_players`` rows)."""

    status: str
    """``finished`` or ``stopped``."""
    convention: str
    pulka: int
    players: int
    deals: int
    started_at: float
    ended_at: float
    record: dict[str, Any]
    holders: tuple[HolderRow, ...]
    rows: tuple[PlayerRow, ...]
