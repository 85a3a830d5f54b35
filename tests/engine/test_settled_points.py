"""Rule and record points settled in docs/rules.md and docs/record-format.md, checked
through the game and the record (scoring details are in test_scoring.py, deal details in
test_engine_scenarios.py)."""

from __future__ import annotations

import io
import json
import random
from typing import Any

import pytest

from bot.preferans.actions import Bid, ChooseDefence, Declare, Whist
from bot.preferans.contracts import parse_contract
from bot.preferans.conventions import Rules
from bot.preferans.game import Game
from bot.preferans.outcome import DealKind, DealOutcome, Defence, WhistAnswer
from bot.preferans.record import RecordError
from bot.preferans.seats import Seat
from bot.replay import main as replay_main
from bot.replay import replay_json
from tests.engine_helpers import lowest_discard

W, P, H = WhistAnswer.WHIST, WhistAnswer.PASS, WhistAnswer.HALF


def record(deals: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    rules = {"convention": "sochi", "pulka": 10} | extra.pop("rules", {})
    return {
        "format": "preferans-record/1",
        "rules": rules,
        "players": ["Анна", "Борис", "Вера"],
        "deals": deals,
    } | extra


def allpass(dealer: int) -> dict[str, Any]:
    return {"dealer": dealer, "result": {"contract": "all-pass", "tricks": [4, 3, 3]}}


def result(dealer: int, contract: str, declarer: int, **more: Any) -> dict[str, Any]:
    return {"dealer": dealer, "result": {"contract": contract, "declarer": declarer} | more}


def refused(data: dict[str, Any]) -> str:
    with pytest.raises(RecordError) as info:
        Game.from_record(data)
    return str(info.value)


def to_whisting(game: Game, seed: int) -> tuple[Seat, Seat, Seat]:
    """Start a deal; the first hand wins 6♠ and names it; returns declarer and defenders."""
    deal = game.start_deal(random.Random(seed))
    declarer = deal.first_hand
    for seat in deal.active:
        game.apply(Bid(seat, parse_contract("6S") if seat == declarer else None))
    game.apply(lowest_discard(deal))
    game.apply(Declare(declarer, parse_contract("6S")))
    first, second = deal.defenders
    return declarer, first, second


def play_out(game: Game, rng: random.Random) -> None:
    deal = game.current
    assert deal is not None
    while not deal.is_over:
        game.apply(rng.choice(deal.legal_actions()))


# ----------------------------------------------------------------- returned whist


def test_returned_whist_played_in_leningrad_is_not_pooled() -> None:
    # Leningrad plays gentleman whists; after "пас — полвиста — вист" the former
    # half-whister writes only the consolation when the declarer fails (Кодекс 3.8.14).
    for seed in range(100):
        game = Game(Rules.preset("leningrad", 20), ["Анна", "Борис", "Вера"])
        declarer, first, second = to_whisting(game, seed)
        game.apply(Whist(first, P))
        game.apply(Whist(second, H))
        game.apply(Whist(first, W))
        game.apply(ChooseDefence(first, Defence.OPEN))
        play_out(game, random.Random(seed))
        outcome = game.finished_deals[-1].outcome
        assert outcome.whists == {first: W, second: H} and outcome.returned_whist
        taken = outcome.tricks[declarer] if outcome.tricks else 0
        if taken < 6:
            break
    else:
        pytest.fail("no random play left the declarer short")
    under = 6 - taken
    whists = game.sheet.whists
    # Leningrad 6♠: 4 whists per defender trick, consolation 4 per missing trick.
    assert whists[first][declarer] == 4 * (10 - taken) + 4 * under
    assert whists[second][declarer] == 4 * under
    # the record keeps the answers as they were given, and replays to the same sheet
    moves = game.to_record()["deals"][-1]["moves"]
    answers = [(m["seat"], m["whist"]) for m in moves if "whist" in m]
    assert answers == [(first, "pass"), (second, "half"), (first, "whist")]
    again = Game.from_record(json.loads(json.dumps(game.to_record())))
    assert again.sheet == game.sheet


def test_returned_whist_result_only_round_trip() -> None:
    # A result-only returned whist: each defender's final answer, "whist" and "half".
    data = record(
        [result(0, "6C", 1, whist={"2": "whist", "0": "half"}, tricks=[0, 5, 5])],
        rules={"convention": "rostov"},
    )
    game = Game.from_record(data)
    assert game.sheet.whists[2][1] == 20 and game.sheet.whists[0][1] == 10
    assert game.to_record()["deals"] == data["deals"]
    plain = record([result(0, "6C", 1, whist={"2": "whist", "0": "pass"}, tricks=[0, 5, 5])])
    plain["rules"]["convention"] = "rostov"
    assert Game.from_record(plain).sheet.whists[0][1] == 15  # pooled: (20 + 10) / 2


def test_result_only_returned_whist_needs_a_half_whist_table() -> None:
    deal = result(0, "8C", 1, whist={"2": "whist", "0": "half"}, tricks=[0, 8, 2])
    assert "only on 6 and 7" in refused(record([deal]))
    deal = result(0, "6C", 1, whist={"2": "whist", "0": "half"}, tricks=[0, 5, 5])
    assert "not played" in refused(record([deal], rules={"half_whist": False}))
    assert "cannot half-whist" in refused(
        record([result(0, "6C", 1, whist={"2": "half", "0": "whist"}, tricks=[0, 5, 5])])
    )


# ------------------------------------------------- half-whist answered by the first defender


@pytest.mark.parametrize(("again", "played"), [(P, False), (W, True)])
def test_half_whist_is_answered_by_the_first_defender(again: WhistAnswer, played: bool) -> None:
    game = Game(Rules.preset("sochi", 20), ["Анна", "Борис", "Вера"])
    declarer, first, second = to_whisting(game, 7)
    game.apply(Whist(first, P))
    game.apply(Whist(second, H))
    deal = game.current
    assert deal is not None and deal.to_act == first
    assert not deal.can(Whist(second, W)) and not deal.can(Whist(second, P))
    game.apply(Whist(first, again))
    if played:
        assert deal.whisters == (first,) and deal.to_act == first
    else:
        assert deal.is_over and game.finished_deals[-1].outcome.tricks is None
        # the half-whister writes half the obligation of 6: two tricks × price 2
        assert game.sheet.whists[second][declarer] == 4
    data = game.to_record()
    moves = data["deals"][-1]["moves"]
    assert [(m["seat"], m["whist"]) for m in moves if "whist" in m] == [
        (first, "pass"),
        (second, "half"),
        (first, again.value),
    ]
    # a second answer by the half-whister instead is refused
    bad = json.loads(json.dumps(data))
    index = next(i for i, m in enumerate(bad["deals"][-1]["moves"]) if m.get("whist") == "half")
    bad["deals"][-1]["moves"][index + 1] = {"seat": int(second), "whist": "whist"}
    message = refused(bad)
    assert message.startswith(f"deal 1, move {index + 2}:") and f"seat {int(first)}" in message


# --------------------------------------------------------- result-only deals obey the rules


def test_result_only_six_after_two_all_passes_is_refused_like_a_played_one() -> None:
    rules = {"raspasy_exit": [6, 7, 7]}
    six = result(2, "6S", 0, whist={"1": "pass", "2": "pass"})
    message = refused(record([allpass(0), allpass(1), six], rules=rules))
    assert message.startswith("deal 3: ") and "7S" in message and "raspasy_exit" in message
    # the played record of the same is refused too
    game = Game(Rules.preset("sochi", 10, raspasy_exit=[6, 7, 7]), ["Анна", "Борис", "Вера"])
    game.add_result(DealOutcome(3, Seat(0), DealKind.ALL_PASS, tricks=(4, 3, 3)))
    game.add_result(DealOutcome(3, Seat(1), DealKind.ALL_PASS, tricks=(4, 3, 3)))
    deal = game.start_deal(random.Random(1)).to_json()
    deal["moves"] = [{"seat": 0, "bid": "6S"}]
    message = refused(record([allpass(0), allpass(1), deal], rules=rules))
    assert message.startswith("deal 3, move 1: ") and "at least 7S" in message
    # seven, and misère, are fine; after one all-pass six is still fine
    seven = result(2, "7S", 0, whist={"1": "pass", "2": "pass"})
    assert Game.from_record(record([allpass(0), allpass(1), seven], rules=rules)).sheet.pulka[0]
    six_after_one = result(1, "6S", 2, whist={"0": "pass", "1": "pass"})
    Game.from_record(record([allpass(0), six_after_one], rules=rules))


def test_result_only_misere_after_all_pass_whatever_raspasy_exit() -> None:
    misere = {"dealer": 2, "result": {"contract": "misere", "declarer": 0, "tricks": [0, 5, 5]}}
    game = Game.from_record(record([allpass(0), allpass(1), misere], rules={"raspasy_exit": [10]}))
    assert game.sheet.pulka == (10, 0, 0)
    nine = result(2, "9S", 0, whist={"1": "pass", "2": "pass"})
    assert "at least 10S" in refused(
        record([allpass(0), allpass(1), nine], rules={"raspasy_exit": [10]})
    )


def test_game_verify_result_changes_nothing() -> None:
    game = Game(Rules.preset("sochi", 10, raspasy_exit=[8]), ["A", "B", "C"])
    game.add_result(DealOutcome(3, Seat(0), DealKind.ALL_PASS, tricks=(4, 3, 3)))
    before = game.sheet
    seven = DealOutcome(
        3, Seat(1), DealKind.GAME, Seat(2), parse_contract("7S"), {Seat(0): P, Seat(1): P}
    )
    assert not game.can_add_result(seven)
    with pytest.raises(ValueError, match="at least 8S"):
        game.add_result(seven)
    assert game.sheet == before and len(game.finished_deals) == 1
    eight = DealOutcome(
        3, Seat(1), DealKind.GAME, Seat(2), parse_contract("8S"), {Seat(0): P, Seat(1): P}
    )
    assert game.can_add_result(eight)
    game.add_result(eight)
    assert game.sheet.pulka == (0, 0, 6)


# ----------------------------------------------------------------------- end of a game


def test_deal_after_a_start_sheet_that_is_over_names_deal_one() -> None:
    over = {"pulka": [10, 10, 10], "gora": [0, 4, 2], "whists": [[0] * 3] * 3}
    data = record([allpass(0)], start=over)
    assert refused(data) == "deal 1: the game was already over after deal 0"


def test_deal_after_the_last_deal_ended_the_game_is_refused(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    near = {"pulka": [10, 10, 8], "gora": [0, 0, 0], "whists": [[0] * 3] * 3}
    ends = result(0, "6S", 2, whist={"0": "pass", "1": "pass"})
    game = Game.from_record(record([ends], start=near))
    assert game.finished and replay_json(game)["finished"] is True
    data = record([ends, allpass(1)], start=near)
    assert refused(data) == "deal 2: the game was already over after deal 1"
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(data)))
    assert replay_main(["-"]) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err == "deal 2: the game was already over after deal 1\n"


def test_finished_of_a_stopped_game_only_when_the_end_was_reached() -> None:
    open_start = {"pulka": [10, 4, 8], "gora": [0, 0, 0], "whists": [[0] * 3] * 3}
    stopped = Game.from_record(record([allpass(0)], start=open_start, stopped=True))
    out = replay_json(stopped)
    assert out["finished"] is False and out["settlement"] is not None
    assert out["pulka"] == [10, 10, 10]  # closed at the stop, shortfalls to gora
    ends = result(0, "6S", 2, whist={"0": "pass", "1": "pass"})
    near = {"pulka": [10, 10, 8], "gora": [0, 0, 0], "whists": [[0] * 3] * 3}
    both = replay_json(Game.from_record(record([ends], start=near, stopped=True)))
    assert both["finished"] is True and both["settlement"] is not None
    lening = {"pulka": [12, 4, 8], "gora": [0, 0, 0], "whists": [[0] * 3] * 3}
    data = record([], start=lening, stopped=True, rules={"convention": "leningrad"})
    assert replay_json(Game.from_record(data))["finished"] is False
