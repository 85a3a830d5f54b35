"""The pulka record: writing, reading, move-by-move checks and python -m bot.replay."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.preferans.conventions import Rules
from bot.preferans.game import Game
from bot.preferans.record import RecordError
from bot.replay import replay_json
from tests.engine.replay_run import Replayed, replay

ROOT = Path(__file__).resolve().parents[2]


def play_game(
    convention: str, players: int, seed: int, max_deals: int = 60, **options: Any
) -> Game:
    """A game of random legal moves (a short pulka so it usually finishes)."""
    rng = random.Random(seed)
    names = ["Анна", "Boris", "Вера", "Dmitry"][:players]
    game = Game(Rules.preset(convention, 6, **options), names)
    for _ in range(max_deals):
        if game.over:
            break
        deal = game.start_deal(rng)
        while not deal.is_over:
            game.apply(rng.choice(deal.legal_actions()))
    return game


def run_replay(record: Any, *args: str) -> Replayed:
    """``python -m bot.replay ARGS -`` with the record on standard input (in-process)."""
    return replay([*args, "-"], json.dumps(record, ensure_ascii=False))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    convention=st.sampled_from(["sochi", "leningrad", "rostov"]),
    players=st.sampled_from([3, 4]),
    seed=st.integers(0, 10**6),
    jumps=st.booleans(),
    ten_checked=st.booleans(),
    stalingrad=st.booleans(),
    half_whist=st.booleans(),
)
def test_written_record_replays_to_the_same_sheet(
    convention: str,
    players: int,
    seed: int,
    jumps: bool,
    ten_checked: bool,
    stalingrad: bool,
    half_whist: bool,
) -> None:
    game = play_game(
        convention,
        players,
        seed,
        jumps=jumps,
        ten_checked=ten_checked,
        stalingrad=stalingrad,
        half_whist=half_whist,
        raspasy_exit=[6, 7, 7],
    )
    record = json.loads(json.dumps(game.to_record()))
    again = Game.from_record(record)
    assert replay_json(again) == replay_json(game)
    assert again.to_record() == record
    settlement = game.settlement()
    if settlement is not None:
        assert sum(settlement) == 0


def test_replay_command_prints_the_sheet_of_a_played_game() -> None:
    """The real ``python -m bot.replay``, as a process (the other tests run it in-process)."""
    game = play_game("sochi", 3, seed=7)
    result = subprocess.run(
        [sys.executable, "-m", "bot.replay", "-"],
        input=json.dumps(game.to_record(), ensure_ascii=False),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert json.loads(result.stdout) == json.loads(json.dumps(replay_json(game)))


def test_readme_example_file_is_accepted() -> None:
    path = ROOT / "tests" / "records" / "example.json"
    result = replay([str(path)])
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["pulka"] == [0, 4, 0]
    assert out["whists"] == [[0, 0, 0], [0, 0, 0], [0, 12, 0]]
    assert out["deals"][0]["tricks"] == [1, 7, 2]
    assert out["finished"] is False and out["settlement"] is None
    text = replay(["--text", str(path)])
    assert text.returncode == 0
    assert "Boris" in text.stdout and "12" in text.stdout


def _played_record() -> dict[str, Any]:
    game = play_game("sochi", 3, seed=11, max_deals=3)
    record: dict[str, Any] = json.loads(json.dumps(game.to_record()))
    return record


def _first_play_index(deal: dict[str, Any]) -> int:
    return next(i for i, m in enumerate(deal["moves"]) if "play" in m)


def _expect_error(record: Any, *needles: str) -> str:
    result = run_replay(record)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def test_unknown_card_names_deal_and_move() -> None:
    record = _played_record()
    deal = record["deals"][1]
    i = _first_play_index(deal)
    deal["moves"][i]["play"] = "11S"
    _expect_error(record, "deal 2", f"move {i + 1}", "unknown card '11S'")


def test_not_following_suit_names_the_suit() -> None:
    # Find a played deal and a later card that breaks suit; build it from the engine's view.
    for seed in range(50):
        game = play_game("sochi", 3, seed=seed, max_deals=1)
        record = json.loads(json.dumps(game.to_record()))
        deal = record["deals"][0]
        moves = deal["moves"]
        hands = {i: set(h) for i, h in enumerate(deal["hands"])}
        plays = [i for i, m in enumerate(moves) if "play" in m]
        for k in range(0, len(plays) - 2, 3):
            lead = moves[plays[k]]["play"]
            second = moves[plays[k + 1]]
            seat = second["seat"]
            suit = lead[-1]
            already = {moves[p]["play"] for p in plays[: k + 1]}
            holding = {c for c in hands.get(seat, set()) if c not in already}
            held_after = holding - {moves[p]["play"] for p in plays[:k]}
            follows = [c for c in held_after if c[-1] == suit]
            others = [c for c in held_after if c[-1] != suit]
            if follows and others and second["play"][-1] == suit:
                second["play"] = sorted(others)[0]
                line = _expect_error(record, "deal 1", f"move {plays[k + 1] + 1}")
                assert "must follow" in line
                return
    pytest.fail("no deal found to break suit in")


def test_wrong_seat_and_illegal_bid() -> None:
    record = _played_record()
    bad = copy.deepcopy(record)
    bad["deals"][0]["moves"][0]["seat"] = (bad["deals"][0]["moves"][0]["seat"] + 1) % 3
    _expect_error(bad, "deal 1, move 1", "turn")
    bad = copy.deepcopy(record)
    bad["deals"][0]["moves"][0] = {"seat": record["deals"][0]["moves"][0]["seat"], "bid": "9NT"}
    _expect_error(bad, "deal 1, move 1", "9NT")


def test_duplicate_card_in_hands() -> None:
    record = _played_record()
    deal = record["deals"][0]
    seats = [i for i, h in enumerate(deal["hands"]) if h]
    deal["hands"][seats[1]][0] = deal["hands"][seats[0]][0]
    _expect_error(record, "deal 1", "dealt twice")


def test_dealer_must_pass_clockwise() -> None:
    record = _played_record()
    record["deals"][1]["dealer"] = record["deals"][0]["dealer"]
    _expect_error(record, "deal 2", "clockwise")


def test_unknown_option_and_convention() -> None:
    record = _played_record()
    record["rules"]["doubles"] = True
    _expect_error(record, "rules", "unknown option 'doubles'")
    record = _played_record()
    record["rules"]["convention"] = "klassika"
    _expect_error(record, "unknown convention 'klassika'")


def test_impossible_trick_counts() -> None:
    record = {
        "format": "preferans-record/1",
        "rules": {"convention": "sochi", "pulka": 10},
        "players": ["A", "B", "C"],
        "deals": [
            {
                "dealer": 0,
                "result": {
                    "contract": "6S",
                    "declarer": 1,
                    "whist": {"2": "whist", "0": "pass"},
                    "tricks": [0, 7, 4],
                },
            }
        ],
    }
    _expect_error(record, "deal 1", "impossible trick counts")


def test_only_the_last_deal_may_be_unfinished() -> None:
    record = _played_record()
    deal = record["deals"][0]
    deal["moves"] = deal["moves"][:-1]
    _expect_error(record, "deal 1", "unfinished")
    record = _played_record()
    record["deals"][-1]["moves"] = record["deals"][-1]["moves"][:3]
    result = run_replay(record)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert len(out["deals"]) == len(record["deals"]) - 1


def test_malformed_json_and_missing_file() -> None:
    result = replay(["-"], "{not json")
    assert result.returncode == 2 and result.stdout == ""
    assert "not valid JSON" in result.stderr
    result = replay(["/nonexistent/x.json"])
    assert result.returncode == 2 and result.stdout == ""


def test_stopped_game_settles() -> None:
    record = _played_record()
    record["stopped"] = True
    result = run_replay(record)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["settlement"] is not None
    assert abs(sum(out["settlement"])) < 0.02


def test_record_error_is_a_value_error() -> None:
    with pytest.raises(RecordError):
        Game.from_record({"format": "preferans-record/2"})
