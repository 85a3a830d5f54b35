"""Smaller points through the core service: a person's press is remembered
however many moves the computer players make, /rules states the chat's table, a misère is
declared for the declarer, and what must be cleaned up survives a restart."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from bot.core import robots
from bot.core.codec import settings_json
from bot.core.effects import Effect
from bot.core.errors import AlreadyDone
from bot.core.model import Table
from bot.core.service import TableService
from bot.preferans.actions import Action, Bid, Declare
from bot.preferans.auto_moves import auto_action, forced_declaration
from bot.preferans.contracts import MISERE, parse_contract
from bot.preferans.seats import Seat
from bot.preferans.views import seat_view
from bot.render.rules import rules_text
from tests.service.helpers import (
    GROUP,
    PEOPLE,
    lobby_of,
    service_on,
)

OWNER = PEOPLE[0]


async def _with_robots(service: TableService) -> Table:
    """The owner and two computer players, started."""
    await service.open_lobby(GROUP, OWNER, "Клуб")
    table = service.registry.open_table(GROUP)
    assert table is not None
    await service.registry.remember_user(OWNER, private_ok=True)
    await service.sit(table.id, OWNER)
    for _ in range(2):
        await service.robots.add_robot(table.id, OWNER.user_id)
    await service.start(table.id, OWNER.user_id)
    return table


def _safe(table: Table) -> Action:
    assert table.game is not None and table.game.current is not None
    seat = table.game.current.actor
    assert seat is not None
    return auto_action(seat_view(table.game.current, seat))


async def test_computer_moves_do_not_push_a_persons_press_out_of_memory() -> None:
    async with service_on() as service:
        table = await _with_robots(service)
        first: tuple[int, str] | None = None
        robot_moves = presses = 0
        while robot_moves < 14:
            found = robots.robot_to_act(table)
            if found is not None:  # the safe move stands in for the computer's decision
                action = _safe(table)

                def robot_moves_now(tb: Table, a: Action = action) -> list[Effect]:
                    return robots.apply_robot(tb, tb.move, a, 0.0, None)

                await service.change(table, robot_moves_now)
                robot_moves += 1
                continue
            move, key = table.move, f"press{presses}"
            action = _safe(table)
            await service.act(table.id, OWNER.user_id, move, key, action)
            presses += 1
            first = first or (move, key)
        assert first is not None and presses < 12
        try:
            await service.act(table.id, OWNER.user_id, first[0], first[1], None)
        except AlreadyDone:
            pass
        else:
            raise AssertionError("the repeated press was not recognised")
        assert all(p.user_id > 0 for p in table.recent)


async def test_rules_state_the_chats_table_during_and_after_the_game(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    async with service_on(path) as service:
        table = await lobby_of(service)
        await service.change_setting(table.id, OWNER.user_id, "convention")
        await service.change_setting(table.id, OWNER.user_id, "stalingrad")
        chosen = table.settings.copy()
        assert (chosen.convention, chosen.options) != ("sochi", {})
        await service.start(table.id, OWNER.user_id)
        assert settings_json(await service.registry.rules_settings(GROUP)) == settings_json(chosen)
        await service.vote_stop(table.id, PEOPLE[0].user_id)
        await service.vote_stop(table.id, PEOPLE[1].user_id)
        assert service.registry.open_table(GROUP) is None
    async with service_on(path) as service:  # read from the stored table
        after = await service.registry.rules_settings(GROUP)
        assert settings_json(after) == settings_json(chosen)
        assert rules_text(after, "ru") == rules_text(chosen, "ru")
        assert rules_text(after, "ru") != rules_text(service.registry.defaults, "ru")
        assert (
            await service.registry.rules_settings(-5) is service.registry.defaults
        )  # never had a table


def test_only_a_lone_declaration_is_forced() -> None:
    seat = Seat(0)
    view = SimpleNamespace(legal=(Declare(seat, MISERE),))
    assert forced_declaration(view) == Declare(seat, MISERE)  # type: ignore[arg-type]
    two = SimpleNamespace(
        legal=(Declare(seat, parse_contract("8S")), Declare(seat, parse_contract("8C")))
    )
    assert forced_declaration(two) is None  # type: ignore[arg-type]
    assert forced_declaration(SimpleNamespace(legal=(Bid(seat, MISERE),))) is None  # type: ignore[arg-type]
