"""The benchmarks' own logic that a run by hand relies on: bot_load.py's check of what the
bot stored, solver.py's figures from a single deal (players.py --quick asks for one)."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import pytest

from bot.preferans.actions import Discard
from bot.preferans.conventions import Rules
from bot.preferans.game import Game
from bot.render.callbacks import action_code
from tests.fakes import FakeTelegram
from tests.perf import solver
from tests.perf.bot_load import Players, Press, verify


def test_a_table_still_playing_leaves_the_others_deal_counts_alone(tmp_path: Path) -> None:
    """A table whose deals are read from its deal rows (not archived: still playing) is the
    only one reported; the archived one has its one deal, every move pressed."""
    game = Game(Rules.preset("sochi", 10), ["P0", "P1", "P2"])
    rng = random.Random(1)
    game.start_deal(rng)
    deal = game.current
    assert deal is not None
    while game.current is not None:
        game.apply(rng.choice(game.current.legal_actions()))
    record = game.to_record()
    players = Players(FakeTelegram(), 2, 1, 1, "ru", 0.0)
    playing, over = players.tabs
    codes = ["k" if isinstance(a, Discard) else action_code(a) for a in deal.log]
    over.presses = [Press(str(i), 1, 0, c, "action", 0.0) for i, c in enumerate(codes)]
    db = tmp_path / "bot.sqlite3"
    con = sqlite3.connect(db)
    con.executescript(
        "CREATE TABLE tables (id INTEGER, chat_id INTEGER, status TEXT, record TEXT);"
        "CREATE TABLE games (table_id INTEGER, record TEXT);"
        "CREATE TABLE deals (table_id INTEGER, deal_no INTEGER, data TEXT);"
    )
    started = {**record, "deals": []}
    con.execute(
        "INSERT INTO tables VALUES (1, ?, 'playing', ?)", (playing.group.id, json.dumps(started))
    )
    con.execute("INSERT INTO deals VALUES (1, 1, ?)", (json.dumps(record["deals"][0]),))
    con.execute("INSERT INTO tables VALUES (2, ?, 'over', ?)", (over.group.id, json.dumps(record)))
    con.execute("INSERT INTO games VALUES (2, ?)", (json.dumps(record),))
    con.commit()
    con.close()
    result = verify(str(db), players, 1)
    assert result["problems"] == ["table 0: status playing"]
    assert (result["over"], result["lost"], result["extra_moves"]) == (1, 0, 0)


def test_solver_figures_from_one_deal_time_a_first_lead_of_each_kind(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One solve per kind at least (``deals // 2`` was none: the median of no times)."""
    monkeypatch.setattr(solver, "_timed", lambda *args, **kwargs: (0.002, 10))
    figures = solver.solver_figures(1, 1)
    assert [figures[f"values {kind} p50 ms"] for kind in solver._KINDS] == [2.0] * 4
