"""``python -m bot.recompute`` over games archived under an older scoring rule: each game's
statistics are rebuilt under the rules the bot scores by now, and a record those rules no
longer accept keeps its archived rows and is named, instead of stopping the rebuild."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bot.preferans.outcome import DealOutcome
from bot.preferans.scoring import Pulka
from bot.recompute import main
from bot.stats import recompute_rows
from storage import GameArchive, HolderRow, Storage

HOLDERS = tuple(HolderRow(seat, 1, 100 + seat, name) for seat, name in enumerate("ABC"))


def _made(dealer: int, contract: str, declarer: int) -> dict[str, Any]:
    """A result-only deal: ``declarer`` plays ``contract`` and both defenders pass."""
    passes = {str(s): "pass" for s in range(3) if s != declarer}
    return {
        "dealer": dealer,
        "result": {"contract": contract, "declarer": declarer, "whist": passes},
    }


def _record(start: list[int], deals: list[dict[str, Any]]) -> dict[str, Any]:
    zeros = [[0, 0, 0] for _ in range(3)]
    return {
        "format": "preferans-record/1",
        "rules": {"convention": "sochi", "pulka": 10},
        "players": ["A", "B", "C"],
        "start": {"pulka": start, "gora": [0, 0, 0], "whists": zeros},
        "deals": deals,
        "stopped": False,
    }


# Deal 1: A (closed) plays 7♠; B, the dealer, has the most in pulka. The old rule gave
# all 4 points to C (40 whists); now B gets 2 and C 2 (20 each). C then closes both ways.
CHANGED = _record([10, 8, 2], [_made(1, "7S", 0), _made(2, "8S", 2)])
# Deal 1: only C's pulka, the dealer's, is open: the old rule wrote A's 2 points off his
# gora and the game went on; now they close C's pulka and the game ends after deal 1.
ENDS_EARLIER = _record([10, 10, 8], [_made(2, "6S", 0), _made(0, "6S", 2)])


def _old_rule(self: Pulka, outcome: DealOutcome) -> list[int]:
    return [int(outcome.dealer)]  # the dealer of the deal was never helped, 3 players too


async def _archive(path: Path, records: list[dict[str, Any]]) -> None:
    storage = await Storage.open(str(path))
    try:
        for chat, record in enumerate(records, start=1):
            table_id = await storage.create_table(-chat, 1, {}, {})
            archive = GameArchive(
                status="finished",
                convention="sochi",
                pulka=10,
                players=3,
                deals=len(record["deals"]),
                started_at=0.0,
                ended_at=1.0,
                record=record,
                holders=HOLDERS,
                rows=tuple(recompute_rows(record, HOLDERS)),
            )
            await storage.archive_game(table_id, archive)
    finally:
        await storage.close()


def _rows(path: Path) -> dict[int, list[tuple[Any, ...]]]:
    con = sqlite3.connect(path)
    try:
        rows = con.execute(
            "SELECT table_id, user_id, net_whists, whists_written FROM game_players "
            "ORDER BY table_id, user_id"
        ).fetchall()
    finally:
        con.close()
    out: dict[int, list[tuple[Any, ...]]] = {}
    for table_id, *row in rows:
        out.setdefault(table_id, []).append(tuple(row))
    return out


def test_games_scored_under_the_old_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bot.sqlite3"
    with monkeypatch.context() as old:
        old.setattr(Pulka, "_sitting_out", _old_rule)
        asyncio.run(_archive(path, [CHANGED, ENDS_EARLIER]))
    archived = _rows(path)
    # old rule: A wrote 40 on C (the help), and C 20 on B (his 8♠'s surplus helped B)
    assert archived[1] == [(100, 40.0, 40.0), (101, -20.0, 0.0), (102, -20.0, 20.0)]

    assert main([str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == "recomputed the statistics of 1 game(s)\n"
    assert err == (
        "kept as archived, the game of A, B, C: deal 2: the game was already over after deal 1\n"
    )
    rebuilt = _rows(path)
    # now: A wrote 20 on B and 20 on C, and C's 8♠ just closes his pulka: he writes nothing
    assert rebuilt[1] == [(100, 40.0, 40.0), (101, -20.0, 0.0), (102, -20.0, 0.0)]
    assert rebuilt[1] == [
        (r.user_id, r.net_whists, r.whists_written) for r in recompute_rows(CHANGED, HOLDERS)
    ]
    assert rebuilt[2] == archived[2]  # kept as it was archived
