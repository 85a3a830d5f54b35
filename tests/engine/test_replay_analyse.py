"""``python -m bot.replay --analyse``: each played deal gets its analysis, nothing else
changes, and a bad input is still one line and status 2."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from bot.preferans.analysis import analyse
from bot.preferans.game import Game
from bot.replay import main, replay_json

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "tests" / "records" / "analysis_example.json"


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_example_shows_the_card_that_lost_eight_tricks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = _run(["--analyse", str(EXAMPLE)], capsys)
    assert status == 0 and err == ""
    deal = json.loads(out)["deals"][0]
    assert deal["tricks"] == [1, 9, 0]
    assert deal["analysis"] == {
        "best": [9, 1, 0],
        "changes": [{"trick": 1, "seat": 0, "card": "7H", "delta": -8}],
    }


def test_the_docs_show_what_the_command_prints() -> None:
    text = (ROOT / "docs" / "record-format.md").read_text(encoding="utf-8")
    game = Game.from_record(json.loads(EXAMPLE.read_text(encoding="utf-8")))
    entry = replay_json(game, analyse=True)["deals"][0]
    block = text.split("### A deal's analysis", 1)[1].split("```json\n", 1)[1].split("```")[0]
    assert json.loads(block) == entry


def _mixed_record() -> dict[str, Any]:
    """A result-only deal, a deal without play, and played deals, in a row."""
    game = Game.from_record(
        {
            "format": "preferans-record/1",
            "rules": {"convention": "sochi", "pulka": 10},
            "players": ["Anna", "Boris", "Vera"],
            "deals": [{"dealer": 0, "result": {"contract": "all-pass", "tricks": [3, 3, 4]}}],
        }
    )
    rng = random.Random(3)
    without_play = played = 0
    while not (without_play and played):
        deal = game.start_deal(rng)
        while not deal.is_over:
            game.apply(rng.choice(deal.legal_actions()))
        if deal.trick_number == 0:
            without_play += 1
        else:
            played += 1
    return game.to_record()


def test_only_played_deals_get_an_analysis(capsys: pytest.CaptureFixture[str]) -> None:
    record = _mixed_record()
    game = Game.from_record(record)
    plain = replay_json(game)
    analysed = replay_json(game, analyse=True)
    assert len(analysed["deals"]) == len(game.finished_deals) >= 3
    for finished, before, after in zip(
        game.finished_deals, plain["deals"], analysed["deals"], strict=True
    ):
        extra = after.pop("analysis", None)
        assert after == before  # nothing else changes
        expected = None if finished.deal is None else analyse(finished.deal)
        assert extra == (None if expected is None else expected.to_json())
    assert analysed["deals"] and {k: v for k, v in analysed.items() if k != "deals"} == {
        k: v for k, v in plain.items() if k != "deals"
    }
    assert sum(1 for d in game.finished_deals if d.deal is None) == 1
    assert sum(1 for d in game.finished_deals if d.deal is not None and d.deal.trick_number == 0)


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--analyse", "--text"], "--analyse: only with the JSON output, not with --text"),
        (["--analyse"], "record: 'format' must be 'preferans-record/1', not None"),
    ],
)
def test_bad_input_is_one_line_and_status_2(
    args: list[str], line: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"deals": []}) if "--text" not in args else EXAMPLE.read_text())
    status, out, err = _run([*args, str(path)], capsys)
    assert (status, out, err) == (2, "", line + "\n")
