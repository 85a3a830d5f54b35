"""The computer players' strength level and the «💡» hints through the core service: table
settings stored with the table, the level applied to every computer player (one seated
mid-game too), the hint for the person on turn only, refused once the turn passed."""

from __future__ import annotations

import asyncio
import random
import threading
from pathlib import Path

import pytest

from bot.core import hints as hints_module
from bot.core import robots
from bot.core.errors import Rejected
from bot.core.model import Table
from bot.core.service import TableService
from bot.preferans.actions import Action, Bid, Play
from bot.preferans.cards import Card
from bot.preferans.game import Game
from bot.preferans.robot import FAST
from bot.preferans.robot.hints import Hint
from bot.preferans.robot.levels import choose_at
from bot.preferans.seats import Seat
from bot.preferans.views import SeatView
from bot.replay import hint_move
from tests.fakes import ManualClock
from tests.service.helpers import (
    GROUP,
    PEOPLE,
    STRANGER,
    actor,
    lobby_of,
    press,
    service_on,
    started,
)
from tests.service.test_robots import _robot_table as robot_lobby

OWNER = PEOPLE[0]


async def test_level_and_hints_are_lobby_settings_stored_with_the_table(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    async with service_on(path) as service:
        table = await lobby_of(service)
        assert (table.settings.robot_level, table.settings.hints) == ("strong", False)
        with pytest.raises(Rejected, match="err.owner_only"):
            await service.change_setting(table.id, PEOPLE[1].user_id, "robot_level")
        levels = []
        for _ in range(3):
            await service.change_setting(table.id, OWNER.user_id, "robot_level")
            levels.append(table.settings.robot_level)
        assert levels == ["amateur", "beginner", "strong"]
        await service.change_setting(table.id, OWNER.user_id, "robot_level")
        await service.change_setting(table.id, OWNER.user_id, "robot_level")
        await service.change_setting(table.id, OWNER.user_id, "hints")
        assert (table.settings.robot_level, table.settings.hints) == ("beginner", True)
    async with service_on(path) as service:
        await service.resumable.resume()
        again = service.registry.open_table(GROUP)
        assert again is not None
        assert (again.settings.robot_level, again.settings.hints) == ("beginner", True)
        assert again.settings.rules() == table.settings.rules()  # not a rules option


async def _robot_table(service: TableService, level_presses: int) -> Table:
    """The owner and two computer players, the level pressed ``level_presses`` times."""
    table = await robot_lobby(service)
    for _ in range(level_presses):
        await service.change_setting(table.id, OWNER.user_id, "robot_level")
    await service.start(table.id, OWNER.user_id)
    return table


async def _person(service: TableService, table: Table) -> None:
    """The person to act passes in the auction, and else takes his first choice."""
    await press(service, table, lambda a: not isinstance(a, Bid) or a.contract is None)


async def _until_move(service: TableService, table: Table, move: int) -> None:
    """Play on to ``move``, the computer players at their level."""
    while table.move < move:
        if robots.robot_to_act(table) is not None:
            assert await service.robots.robot_move(table.id, table.move)
        else:
            await _person(service, table)


async def test_a_beginner_plays_another_card_where_the_strong_player_is_known() -> None:
    decided: dict[str, Action | None] = {}
    for level, presses in (("strong", 0), ("beginner", 2)):
        async with service_on() as service:
            table = await _robot_table(service, presses)
            assert table.settings.robot_level == level
            await _until_move(service, table, 18)
            decided[level] = await robots.decide(table, 18, service.robots.budget)
    assert decided == {
        "strong": Play(Seat(2), Card.H10),
        "beginner": Play(Seat(2), Card.SQ),
    }


async def test_a_computer_player_seated_mid_game_plays_at_the_tables_level() -> None:
    clock = ManualClock()
    async with service_on(clock=clock) as service:
        service.robots.budget = FAST
        table = await lobby_of(service)
        for _ in range(2):
            await service.change_setting(table.id, OWNER.user_id, "robot_level")
        await service.start(table.id, OWNER.user_id)
        seat, _ = actor(table)
        while table.timeouts.get(seat, 0) < 2:  # he misses his turns
            if actor(table)[0] == seat:
                clock.advance(61)
                await service.timeout(table.id, table.move)
            else:
                await _person(service, table)
        other = next(p for s, p in table.seated() if s != seat)
        await service.robots.replace_with_robot(table.id, seat, other.user_id)
        assert robots.is_robot(table.seats[seat])
        differs = 0
        while table.game is not None and table.deal_no <= 2:
            found = robots.robot_to_act(table)
            if found is None:
                await _person(service, table)
                continue
            move, view = table.move, found[1]
            action = await robots.decide(table, move, service.robots.budget)
            assert action is not None
            if view.legal and action in view.legal:  # not an offer of its own
                rng = random.Random(f"{table.seed}:robot:{move}")
                slip = random.Random(f"{table.seed}:slip:{move}")
                assert action == choose_at(view, rng, "beginner", slip, FAST)
                rng = random.Random(f"{table.seed}:robot:{move}")
                differs += action != choose_at(view, rng, "strong", random.Random(0), FAST)
            assert await service.robots.robot_move(table.id, move)
        assert differs == 3  # in two deals: visibly weaker than the strong player


async def _hinting(service: TableService) -> Table:
    """A started table of three people that gives hints (a press waits as long as its
    hint takes: no test depends on how busy the machine is)."""
    service.robots.hints.wait = None
    table = await lobby_of(service)
    await service.change_setting(table.id, OWNER.user_id, "hints")
    await service.start(table.id, OWNER.user_id)
    return table


async def test_no_hints_unless_the_table_gives_them() -> None:
    async with service_on() as service:
        table = await started(service)
        assert table.settings.hints is False
        _, player = actor(table)
        with pytest.raises(Rejected, match="err.stale"):
            await service.robots.hint(table.id, player.user_id, table.move)


async def test_the_hint_is_the_replay_hint_for_the_person_on_turn() -> None:
    async with service_on() as service:
        table = await _hinting(service)
        for _ in range(2):
            await _person(service, table)
        seat, player = actor(table)
        found = await service.robots.hint(table.id, player.user_id, table.move)
        assert table.game is not None
        record = Game.from_record(table.game.to_record())
        assert found.action.to_json() == hint_move(record)
        assert found.action.seat == seat
        waiting = next(p for s, p in table.seated() if s != seat)
        with pytest.raises(Rejected, match="err.hint_late"):
            await service.robots.hint(table.id, waiting.user_id, table.move)
        with pytest.raises(Rejected, match="err.not_seated"):
            await service.robots.hint(table.id, STRANGER.user_id, table.move)


async def test_a_hint_for_a_turn_that_passed_is_refused() -> None:
    async with service_on() as service:
        table = await _hinting(service)
        _, player = actor(table)
        move = table.move
        await _person(service, table)
        with pytest.raises(Rejected, match="err.hint_late"):
            await service.robots.hint(table.id, player.user_id, move)
        while actor(table)[1] != player:  # his turn again, the old button still stale
            await _person(service, table)
        with pytest.raises(Rejected, match="err.hint_late"):
            await service.robots.hint(table.id, player.user_id, move)
        found = await service.robots.hint(table.id, player.user_id, table.move)
        assert found.action.seat == actor(table)[0]


async def test_the_table_plays_on_while_a_hint_is_worked_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    release = threading.Event()
    started_work = asyncio.Event()
    loop = asyncio.get_running_loop()
    real = hints_module.hint

    def slow_hint(view: SeatView) -> Hint:
        loop.call_soon_threadsafe(started_work.set)
        release.wait()
        return real(view)

    monkeypatch.setattr(hints_module, "hint", slow_hint)
    async with service_on() as service:
        table = await _hinting(service)
        _, player = actor(table)
        asking = asyncio.create_task(service.robots.hint(table.id, player.user_id, table.move))
        try:
            await started_work.wait()
            await _person(service, table)  # he acts meanwhile: the table did not wait
        finally:
            release.set()  # the worker thread never outlives the test
        with pytest.raises(Rejected, match="err.hint_late"):
            await asking


async def test_a_hint_too_slow_for_the_press_is_asked_for_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    release = threading.Event()
    calls: list[SeatView] = []
    real = hints_module.hint

    def slow_hint(view: SeatView) -> Hint:
        calls.append(view)
        release.wait()
        return real(view)

    monkeypatch.setattr(hints_module, "hint", slow_hint)
    async with service_on() as service:
        table = await _hinting(service)
        _, player = actor(table)
        service.robots.hints.wait = 0.0  # the press's wait is over before the search
        try:
            with pytest.raises(Rejected, match="err.hint_busy"):
                await service.robots.hint(table.id, player.user_id, table.move)
        finally:
            release.set()
        service.robots.hints.wait = None
        found = await service.robots.hint(table.id, player.user_id, table.move)  # the same search
        assert found.action.seat == actor(table)[0] and len(calls) == 1
