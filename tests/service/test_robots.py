"""Computer players through the core service: seated by the owner in the lobby, acting
from their seat's view only, replacing a player who kept timing out and giving the seat
back, resuming after a restart, and counted apart from people in the statistics."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from bot.core import effects as fx
from bot.core import robots
from bot.core.errors import Rejected
from bot.core.model import Player, Status, Table, is_robot_id
from bot.core.service import TableService
from bot.preferans.actions import Action, Discard
from bot.preferans.robot import FAST
from bot.preferans.views import SeatView, seat_view
from storage import archive
from tests.fakes import ManualClock
from tests.service.helpers import (
    GROUP,
    PEOPLE,
    STRANGER,
    actor,
    kinds,
    of,
    press,
    service_on,
    started,
)

OWNER = PEOPLE[0]


async def _robot_table(service: TableService, robots_wanted: int = 2) -> Table:
    """A lobby of the owner and ``robots_wanted`` computer players."""
    service.robots.budget = FAST
    await service.open_lobby(GROUP, OWNER, "Клуб")
    table = service.registry.open_table(GROUP)
    assert table is not None
    await service.registry.remember_user(OWNER, private_ok=True)
    await service.sit(table.id, OWNER)
    for _ in range(robots_wanted):
        await service.robots.add_robot(table.id, OWNER.user_id)
    return table


async def _until_human(service: TableService, table: Table, limit: int = 60) -> None:
    """Let the computer players act until a person is to act (or the game is over)."""
    for _ in range(limit):
        if robots.robot_to_act(table) is None:
            return
        effects = await service.robots.robot_move(table.id, table.move)
        assert effects, "a computer player to act must act"
    raise AssertionError("the computer players never stopped")


async def test_the_owner_adds_and_removes_computer_players() -> None:
    async with service_on() as service:
        table = await _robot_table(service)
        names = [p.name for p in table.seats if p is not None]
        assert names == ["Анна", "🤖 Пётр", "🤖 Ольга"]
        ids = [p.user_id for p in table.seats if p is not None]
        assert ids[1] < 0 and ids[2] < 0 and ids[1] != ids[2]
        with pytest.raises(Rejected, match="err.full"):
            await service.robots.add_robot(table.id, OWNER.user_id)
        with pytest.raises(Rejected, match="err.owner_only"):
            await service.robots.remove_robot(table.id, PEOPLE[1].user_id)
        effects = await service.robots.remove_robot(table.id, OWNER.user_id)
        assert kinds(effects) == ["LobbyShown"]
        assert [p.name if p else None for p in table.seats] == ["Анна", "🤖 Пётр", None]
        await service.robots.remove_robot(table.id, OWNER.user_id)
        with pytest.raises(Rejected, match="err.no_robot"):
            await service.robots.remove_robot(table.id, OWNER.user_id)
        with pytest.raises(Rejected, match="err.owner_only"):
            await service.robots.add_robot(table.id, PEOPLE[1].user_id)


async def test_english_names_in_an_english_group() -> None:
    async with service_on() as service:
        await service.open_lobby(GROUP, OWNER.__class__(1, "Ann", "en"), "Club")
        table = service.registry.open_table(GROUP)
        assert table is not None
        await service.robots.add_robot(table.id, OWNER.user_id)
        await service.robots.add_robot(table.id, OWNER.user_id)
        assert [p.name for p in table.seats if p] == ["🤖 Peter", "🤖 Olga"]


async def test_a_computer_player_decides_from_its_seat_view_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[tuple[SeatView, SeatView]] = []
    from bot.core import robots as service_module

    real = service_module.choose_at

    def spy(view: SeatView, rng: random.Random, *args: Any) -> Action:
        assert len(args) == 3  # the level's name, the slips' generator, the budget
        table = spied[0]
        assert table.game is not None and table.game.current is not None
        seen.append((view, seat_view(table.game.current, view.seat)))
        return real(view, rng, *args)

    monkeypatch.setattr(service_module, "choose_at", spy)
    spied: list[Table] = []
    async with service_on() as service:
        table = await _robot_table(service)
        spied.append(table)
        await service.start(table.id, OWNER.user_id)
        deal_no = table.deal_no
        while table.deal_no == deal_no:
            if robots.robot_to_act(table) is not None:
                await service.robots.robot_move(table.id, table.move)
            else:
                _, player = actor(table)
                assert player == OWNER
                await _human(service, table)
        assert seen
        for given, truth in seen:
            assert given == truth  # exactly its seat's view: no other hand, no talon unseen
            assert given.seat != table.seat_of(OWNER.user_id)


async def test_a_stale_robot_move_changes_nothing() -> None:
    async with service_on() as service:
        table = await _robot_table(service)
        await service.start(table.id, OWNER.user_id)
        await _until_human(service, table)
        move = table.move
        assert await service.robots.robot_move(table.id, move) == ()  # a person is to act
        assert await service.robots.robot_move(table.id, move - 1) == ()
        assert robots.apply_robot(table, move - 1, _any(table), 0.0, 7) == []
        assert table.move == move


async def _human(service: TableService, table: Table) -> None:
    """The person to act takes his first legal action (a discard: two marked cards)."""
    seat, player = actor(table)
    first = _any(table)
    if isinstance(first, Discard):
        for card in first.cards:
            await service.mark_discard(table.id, player.user_id, table.move, card, True)
        await service.confirm_discard(table.id, player.user_id, table.move, "k")
    else:
        await press(service, table, lambda a: True)


def _any(table: Table) -> Action:
    seat, _ = actor(table)
    assert table.game is not None and table.game.current is not None
    return seat_view(table.game.current, seat).legal[0]


async def test_a_timed_out_player_is_replaced_and_takes_the_seat_back() -> None:
    clock = ManualClock()
    async with service_on(clock=clock) as service:
        service.robots.budget = FAST
        table = await started(service)
        seat, late = actor(table)
        for _ in range(3):  # he misses his turns until the seat may be replaced
            if table.timeouts.get(seat, 0) >= 2:
                break
            while actor(table)[0] != seat:
                await _human(service, table)
            clock.advance(61)
            await service.timeout(table.id, table.move)
        other = next(p for s, p in table.seated() if s != seat)
        with pytest.raises(Rejected, match="err.not_seated"):
            await service.robots.replace_with_robot(table.id, seat, STRANGER.user_id)
        effects = await service.robots.replace_with_robot(table.id, seat, other.user_id)
        [replaced] = of(effects, fx.RobotReplaced)
        assert replaced.old_name == late.name and replaced.old_id == late.user_id
        # his hand message is handed over to be frozen (no buttons, how to come back)
        assert replaced.old_lang == late.lang
        robot = table.seats[seat]
        assert robots.is_robot(robot) and robot is not None
        assert table.holders[-1].user_id == robot.user_id
        assert table.game is not None and table.game.names[seat] == robot.name
        with pytest.raises(Rejected, match="err.not_replaceable"):  # a robot never times out
            await service.robots.replace_with_robot(table.id, seat, other.user_id)
        if robots.robot_to_act(table) is not None:
            assert await service.robots.robot_move(table.id, table.move)
        with pytest.raises(Rejected, match="err.already"):
            await service.take_seat(table.id, seat, other)
        await service.registry.remember_user(late, private_ok=True)
        effects = await service.take_seat(table.id, seat, late)  # he is back
        assert kinds(effects)[0] == "SeatTaken"
        assert table.seats[seat] == late
        assert [h.user_id for h in table.holders if h.seat == seat][-2:] == [
            robot.user_id,
            late.user_id,
        ]


async def test_a_robot_to_move_resumes_after_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    async with service_on(path) as service:
        table = await _robot_table(service)
        await service.start(table.id, OWNER.user_id)
        await _until_human(service, table)
        while robots.robot_to_act(table) is None:  # until a computer player is to act
            await _human(service, table)
        move = table.move
    async with service_on(path) as service:
        service.robots.budget = FAST
        effects = await service.resumable.resume()
        again = service.registry.open_table(GROUP)
        assert again is not None and again.move == move
        assert "TimerChanged" in kinds(effects)  # the scheduler arms the robot's move
        assert robots.pause(again) is not None
        assert [p.name for p in again.seats if p and robots.is_robot(p)] == [
            "🤖 Пётр",
            "🤖 Ольга",
        ]
        assert await service.robots.robot_move(again.id, move)
        assert again.move > move


async def test_statistics_keep_people_and_computer_players_apart() -> None:
    async with service_on() as service:
        table = await _robot_table(service)
        await service.start(table.id, OWNER.user_id)
        await _until_human(service, table)
        effects = await service.vote_stop(table.id, OWNER.user_id)  # one person: a majority
        assert "GameStopped" in kinds(effects) and table.status is Status.OVER
        people = await archive.top(service.storage, GROUP)
        machines = await archive.top(service.storage, GROUP, robots=True)
        assert [p.user_id for p in people] == [OWNER.user_id]
        assert sorted(p.name for p in machines) == ["🤖 Ольга", "🤖 Пётр"]
        mine = await archive.totals(service.storage, OWNER.user_id)
        assert mine.games == 1


async def test_switching_the_group_language_renames_the_computer_players() -> None:
    async with service_on() as service:
        table = await _robot_table(service)
        await service.change_setting(table.id, OWNER.user_id, "lang")
        assert table.settings.lang == "en"
        assert [p.name for p in table.seats if p] == ["Анна", "🤖 Peter", "🤖 Olga"]


async def test_the_last_person_is_not_replaced_by_a_computer() -> None:
    clock = ManualClock()
    async with service_on(clock=clock) as service:
        table = await _robot_table(service)
        await service.start(table.id, OWNER.user_id)
        seat = table.seat_of(OWNER.user_id)
        assert seat is not None
        while table.timeouts.get(seat, 0) < 2:
            await _until_human(service, table)
            clock.advance(61)
            await service.timeout(table.id, table.move)
        with pytest.raises(Rejected, match="err.last_person"):
            await service.robots.replace_with_robot(table.id, seat, OWNER.user_id)


def test_the_buttons_for_computer_players() -> None:
    from bot.core.model import Player, TableSettings
    from bot.preferans.seats import Seat
    from bot.render.callbacks import decode
    from bot.render.keyboards import lobby_keyboard, take_back_keyboard, take_keyboard

    def codes(markup: Any) -> list[str]:
        return [
            decode(b.callback_data).code  # type: ignore[union-attr]
            for row in markup.inline_keyboard
            for b in row
        ]

    table = Table(id=1, chat_id=GROUP, owner_id=1, settings=TableSettings())
    assert "La" in codes(lobby_keyboard(table)) and "Lr" not in codes(lobby_keyboard(table))
    table.seats = [Player(1, "Анна"), Player(-1, "🤖 Пётр"), Player(-2, "🤖 Ольга")]
    assert "La" not in codes(lobby_keyboard(table)) and "Lr" in codes(lobby_keyboard(table))
    assert codes(take_keyboard(table, Seat(0))) == ["R0", "Q0"]
    assert codes(take_back_keyboard(table, Seat(1))) == ["R1"]


def test_a_negative_id_is_a_computer_player() -> None:
    assert Player(-1, "🤖 Пётр").is_robot and is_robot_id(-4)
    assert not Player(1, "Анна").is_robot and not is_robot_id(123456789)
