"""``python -m bot.replay FILE --hint``: the computer player's move for the seat on turn."""

from __future__ import annotations

import json
import random
from pathlib import Path

from bot.preferans.actions import action_from_json
from bot.preferans.conventions import Rules
from bot.preferans.game import Game
from bot.preferans.robot import STRONG, choose
from bot.preferans.views import seat_view
from tests.engine.replay_run import replay


def _game_in_progress() -> Game:
    """A pulka whose second deal stops at its third bid."""
    game = Game(Rules.preset("sochi", pulka=10), ["Anna", "Boris", "Vera"])
    rng = random.Random(8)
    deal = game.start_deal(rng)
    while not deal.is_over:
        game.apply(rng.choice(deal.legal_actions()))
    deal = game.start_deal(rng)
    for _ in range(2):
        game.apply(rng.choice(deal.legal_actions()))
    return game


def test_hint_is_the_computer_players_move_for_the_seat_on_turn(tmp_path: Path) -> None:
    game = _game_in_progress()
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game.to_record()), encoding="utf-8")
    run = replay([str(path), "--hint"])
    assert (run.returncode, run.stderr) == (0, "")
    move = json.loads(run.stdout)
    deal = game.current
    assert deal is not None and deal.actor is not None
    view = seat_view(deal, deal.actor)
    assert move == choose(view, random.Random(0), budget=STRONG).to_json()
    assert move["seat"] == int(deal.actor)
    assert action_from_json(move, 3) in deal.legal_actions()


def test_hint_needs_a_seat_on_turn(tmp_path: Path) -> None:
    game = Game(Rules.preset("sochi", pulka=10), ["Anna", "Boris", "Vera"])
    rng = random.Random(2)
    deal = game.start_deal(rng)
    while not deal.is_over:
        game.apply(rng.choice(deal.legal_actions()))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game.to_record()), encoding="utf-8")
    run = replay([str(path), "--hint"])
    assert (run.returncode, run.stdout) == (2, "")
    assert run.stderr == "--hint: the record's last deal is over; nobody is on turn\n"
    both = replay([str(path), "--hint", "--text"])
    assert (both.returncode, both.stdout) == (2, "")
    assert both.stderr == "--hint: alone, not with --text, --analyse or --png\n"
