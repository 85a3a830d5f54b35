"""Finished games: the archive (``games``) and per-player statistics (``game_players``).

A game is archived in the transaction that ends it (``Storage.save_table(archive=...)``):
its whole pulka record, who held each seat, and one row per player the bot computed from
the record (plain :class:`~storage.rows.PlayerRow` values: the storage knows no rules).
The rows can always be rebuilt from the records (``python -m bot.recompute FILE``, which
passes the bot's computation to :func:`recompute`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Any

from .connection import Database, Tx, dumps
from .rows import PLAYER_COLUMNS, GameArchive, HolderRow, PlayerRow

__all__ = [
    "ArchiveStore",
    "GameSummary",
    "Totals",
    "history",
    "last_record",
    "totals",
    "top",
    "recompute",
    "write_archive",
]


def write_archive(tx: Tx, table_id: int, archive: GameArchive) -> None:
    """(In a write transaction.) Replace the archive entry of ``table_id``, and drop the
    table's deal rows the archived record holds as they are (each ~1 KB a deal, kept
    twice otherwise): reading the table takes its deals from the archive."""
    tx.execute("DELETE FROM game_players WHERE table_id = ?", (table_id,))
    tx.execute("DELETE FROM games WHERE table_id = ?", (table_id,))
    tx.execute(
        "INSERT INTO games (table_id, chat_id, status, convention, pulka, players, deals, "
        "started_at, ended_at, record, holders) "
        "SELECT id, chat_id, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM tables WHERE id = ?",
        (
            archive.status,
            archive.convention,
            archive.pulka,
            archive.players,
            archive.deals,
            archive.started_at,
            archive.ended_at,
            dumps(archive.record),
            dumps([asdict(h) for h in archive.holders]),
            table_id,
        ),
    )
    tx.executemany(
        f"INSERT INTO game_players (table_id, chat_id, {', '.join(PLAYER_COLUMNS)}) "
        f"SELECT id, chat_id, {', '.join('?' for _ in PLAYER_COLUMNS)} "
        "FROM tables WHERE id = ?",
        [(*(getattr(row, c) for c in PLAYER_COLUMNS), table_id) for row in archive.rows],
    )
    tx.executemany(
        "DELETE FROM deals WHERE table_id = ? AND deal_no = ? AND data = ?",
        [(table_id, n, dumps(d)) for n, d in enumerate(archive.record.get("deals", []), 1)],
    )


class ArchiveStore(Database):
    """Writes of the ``games`` and ``game_players`` tables."""

    async def archive_game(self, table_id: int, archive: GameArchive) -> None:
        """Archive (or archive again) a game on its own (old games, recomputed statistics)."""
        await self._commit(partial(write_archive, table_id=table_id, archive=archive))


_STAT_COLUMNS = PLAYER_COLUMNS[PLAYER_COLUMNS.index("deals") :]
"""The summable columns of a player's game row (after user_id, seat, name)."""


@dataclass(frozen=True, slots=True)
class GameSummary:
    """One archived game for ``/history``."""

    table_id: int
    chat_id: int
    status: str
    convention: str
    pulka: int
    players: int
    deals: int
    ended_at: float
    results: list[tuple[int, str, float]] = field(default_factory=list)
    """``(seat, name, net whists)`` of the players holding the seats at the end."""
    title: str = ""
    """The group's title as the table last knew it ("" when it never knew one)."""


@dataclass(slots=True)
class Totals:
    """A player's statistics summed over games (one group, or everywhere)."""

    user_id: int
    name: str = ""
    games: int = 0
    deals: int = 0
    contracts_made: int = 0
    contracts_failed: int = 0
    miseres_made: int = 0
    miseres_failed: int = 0
    net_whists: float = 0.0
    whists_written: float = 0.0


_STATE = "(SELECT t.state FROM tables AS t WHERE t.id = g.table_id)"
"""The table's state, for the group's title it keeps (read in Python: the same query on
both dialects)."""


def _title(state: Any) -> str:
    """The group's title kept in the table's state (the bot's JSON; unreadable: none)."""
    try:
        title = json.loads(state).get("title") if isinstance(state, str) else None
    except (ValueError, AttributeError):
        return ""
    return title if isinstance(title, str) else ""


async def history(
    storage: Database, chat_id: int | None = None, limit: int = 10, *, user_id: int | None = None
) -> list[GameSummary]:
    """The last ``limit`` archived games of a chat, or of a player in every chat
    (``user_id``), newest first."""
    if chat_id is not None:
        where, args = "g.chat_id = ?", chat_id
    elif user_id is not None:
        where = "g.table_id IN (SELECT table_id FROM game_players WHERE user_id = ?)"
        args = user_id
    else:
        raise ValueError("give chat_id or user_id")
    games = await storage.fetchall(
        "SELECT g.table_id, g.chat_id, g.status, g.convention, g.pulka, g.players, g.deals, "
        f"g.ended_at, {_STATE} FROM games AS g WHERE {where} "
        "ORDER BY g.ended_at DESC, g.table_id DESC LIMIT ?",
        (args, limit),
    )
    out = []
    for g in games:
        rows = await storage.fetchall(
            "SELECT seat, name, net_whists FROM game_players WHERE table_id = ? "
            "ORDER BY net_whists DESC, seat",
            (g[0],),
        )
        out.append(
            GameSummary(
                table_id=int(g[0]),
                chat_id=int(g[1]),
                status=str(g[2]),
                convention=str(g[3]),
                pulka=int(g[4]),
                players=int(g[5]),
                deals=int(g[6]),
                ended_at=float(g[7]),
                results=[(int(r[0]), str(r[1]), float(r[2])) for r in rows],
                title=_title(g[8]),
            )
        )
    return out


async def last_record(
    storage: Database, *, chat_id: int | None = None, user_id: int | None = None
) -> tuple[int, dict[str, Any]] | None:
    """``(table id, record)`` of the last archived game of a chat or of a player."""
    if chat_id is not None:
        rows = await storage.fetchall(
            "SELECT table_id, record FROM games WHERE chat_id = ? "
            "ORDER BY ended_at DESC, table_id DESC LIMIT 1",
            (chat_id,),
        )
    elif user_id is not None:
        rows = await storage.fetchall(
            "SELECT g.table_id, g.record FROM games AS g JOIN game_players AS p "
            "ON p.table_id = g.table_id WHERE p.user_id = ? "
            "ORDER BY g.ended_at DESC, g.table_id DESC LIMIT 1",
            (user_id,),
        )
    else:
        raise ValueError("give chat_id or user_id")
    if not rows:
        return None
    return int(rows[0][0]), json.loads(rows[0][1])


def _sums() -> str:
    return ", ".join(f"SUM(p.{c})" for c in _STAT_COLUMNS)


def _totals(row: Sequence[Any]) -> Totals:
    user_id, name, games, *rest = row
    values = dict(zip(_STAT_COLUMNS, rest, strict=True))
    return Totals(
        user_id=int(user_id),
        name=str(name or user_id),
        games=int(games or 0),
        deals=int(values["deals"] or 0),
        contracts_made=int(values["contracts_made"] or 0),
        contracts_failed=int(values["contracts_failed"] or 0),
        miseres_made=int(values["miseres_made"] or 0),
        miseres_failed=int(values["miseres_failed"] or 0),
        net_whists=round(float(values["net_whists"] or 0), 2),
        whists_written=round(float(values["whists_written"] or 0), 2),
    )


_NAME = (
    "COALESCE((SELECT u.name FROM users AS u WHERE u.user_id = p.user_id), "
    "(SELECT q.name FROM game_players AS q WHERE q.user_id = p.user_id "
    "ORDER BY q.table_id DESC LIMIT 1))"
)


async def totals(storage: Database, user_id: int, chat_id: int | None = None) -> Totals:
    """A player's statistics in one chat, or over every chat (``chat_id=None``)."""
    where = "p.user_id = ?"
    args: tuple[int, ...] = (user_id,)
    if chat_id is not None:
        where, args = "p.user_id = ? AND p.chat_id = ?", (user_id, chat_id)
    rows = await storage.fetchall(
        f"SELECT p.user_id, {_NAME}, COUNT(*), {_sums()} FROM game_players AS p "
        f"WHERE {where} GROUP BY p.user_id",
        args,
    )
    if not rows:
        return Totals(user_id=user_id)
    return _totals(rows[0])


async def top(
    storage: Database, chat_id: int, limit: int = 10, *, robots: bool = False
) -> list[Totals]:
    """The chat's people (or, with ``robots``, its computer players: their user ids are
    negative) by net whists (then by games), best first."""
    who = "p.user_id < 0" if robots else "p.user_id > 0"
    rows = await storage.fetchall(
        f"SELECT p.user_id, {_NAME}, COUNT(*), {_sums()} FROM game_players AS p "
        f"WHERE p.chat_id = ? AND {who} GROUP BY p.user_id "
        "ORDER BY SUM(p.net_whists) DESC, COUNT(*) DESC, p.user_id LIMIT ?",
        (chat_id, limit),
    )
    return [_totals(r) for r in rows]


Compute = Callable[[dict[str, Any], Sequence[HolderRow]], Sequence[PlayerRow] | None]
"""``(record, holders) -> rows``: the bot's statistics of one game; ``None`` leaves the
game's archived rows as they are (its record cannot be scored any more)."""


def holder_rows(raw: Any) -> tuple[HolderRow, ...]:
    """Holders as stored in ``games.holders`` (JSON)."""
    return tuple(
        HolderRow(int(h["seat"]), int(h["from_deal"]), int(h["user_id"]), str(h["name"]))
        for h in raw
    )


async def recompute(storage: ArchiveStore, compute: Compute) -> int:
    """Rebuild every game's player rows from its archived record; returns the games rebuilt
    (a game ``compute`` gives ``None`` for keeps its rows and is not counted)."""
    games = await storage.fetchall(
        "SELECT table_id, status, convention, pulka, players, deals, started_at, ended_at, "
        "record, holders FROM games ORDER BY table_id"
    )
    done = 0
    for g in games:
        record = json.loads(g[8])
        holders = holder_rows(json.loads(g[9]))
        rows = compute(record, holders)
        if rows is None:
            continue
        done += 1
        await storage.archive_game(
            int(g[0]),
            GameArchive(
                status=str(g[1]),
                convention=str(g[2]),
                pulka=int(g[3]),
                players=int(g[4]),
                deals=int(g[5]),
                started_at=float(g[6]),
                ended_at=float(g[7]),
                record=record,
                holders=holders,
                rows=tuple(rows),
            ),
        )
    return done
