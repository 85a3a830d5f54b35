"""The project's own documents: the JSON examples of docs/record-format.md are real
records that replay to what the text says, and the docs README points to exist."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from bot.preferans.game import Game
from bot.replay import replay_json

ROOT = Path(__file__).resolve().parents[2]
RECORD_FORMAT = ROOT / "docs" / "record-format.md"


def json_blocks() -> list[Any]:
    text = RECORD_FORMAT.read_text(encoding="utf-8")
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", text, re.S)]


def test_every_json_example_parses_and_records_replay() -> None:
    blocks = json_blocks()
    assert len(blocks) >= 5
    records = [b for b in blocks if isinstance(b, dict) and "format" in b]
    assert len(records) >= 2
    for data in records:
        Game.from_record(data)


def test_played_deal_example_scores_as_described() -> None:
    deal = next(b for b in json_blocks() if "hands" in b)
    data = {
        "format": "preferans-record/1",
        "rules": {"convention": "sochi", "pulka": 10},
        "players": ["Anna", "Boris", "Vera"],
        "deals": [deal],
    }
    out = replay_json(Game.from_record(data))
    # "Anna writes 2 into her pulka and Vera writes 2 tricks × 2 = 4 whists on Anna"
    assert out["pulka"] == [2, 0, 0] and out["whists"][2] == [4, 0, 0]
    assert out["deals"][0]["tricks"] is None


def test_four_player_example_scores_as_described() -> None:
    data = next(b for b in json_blocks() if "format" in b and len(b["players"]) == 4)
    out = replay_json(Game.from_record(data))
    # "Анна writes 4 × 8 + 8 = 40 whists on Глеб, Вера only the consolation 8, and
    # Борис, the dealer, the consolation 8 too"
    assert [row[3] for row in out["whists"]] == [40, 8, 8, 0]
    assert out["deals"][0]["gora"][0] == 2  # Анна's talon trick at 2 a trick


def test_result_example_and_replay_output_agree() -> None:
    blocks = json_blocks()
    result = next(b for b in blocks if "result" in b and b["result"]["contract"] == "7H")
    output = next(b for b in blocks if "settlement" in b)
    data = {
        "format": "preferans-record/1",
        "rules": {"convention": "sochi", "pulka": 10},
        "players": ["Anna", "Boris", "Vera"],
        "deals": [result],
    }
    assert replay_json(Game.from_record(data)) == output


def test_readme_links_to_the_docs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in ("docs/rules.md", "docs/record-format.md"):
        assert f"({name})" in readme and (ROOT / name).is_file()


def test_readme_gives_two_commands_and_ci_runs_the_second() -> None:
    """A newcomer's two commands: one starts the bot with nothing but ``BOT_TOKEN`` given,
    one runs the whole suite; ``.ci/run`` runs that one word for word."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Two commands for a newcomer", 1)[1].split("\n## ", 1)[0]
    start, tests = re.findall(r"```sh\n(.+)\n```", section)
    assert start.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install . ")
    assert start.endswith("&& BOT_TOKEN=123456:ABC-your-token python -m bot")
    assert tests.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install")
    assert tests.endswith("&& python -m pytest -n auto")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert tests in ci
