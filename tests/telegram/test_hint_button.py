"""The lobby's level and hint settings as drawn, and the «💡» button: routed to its own
handler, drawn for the seat on turn of a table that gives hints, never otherwise."""

from __future__ import annotations

import re

from bot.core.model import Table
from bot.core.service import TableService
from bot.preferans.seats import Seat
from bot.preferans.views import seat_view
from bot.render import keyboards
from bot.render.callbacks import encode
from bot.render.lobby import lobby_text
from bot.telegram.buttons import PATTERNS
from tests.service.helpers import PEOPLE, actor, lobby_of, service_on, to_discard


def _buttons(markup: object) -> list[tuple[str, str]]:
    rows = getattr(markup, "inline_keyboard", ())
    return [(b.text, b.callback_data) for row in rows for b in row if b.callback_data]


def _hand(table: Table, seat: Seat) -> list[tuple[str, str]]:
    assert table.game is not None and table.game.current is not None
    player = table.seats[seat]
    assert player is not None
    view = seat_view(table.game.current, seat)
    return _buttons(keyboards.actions_keyboard(table, view, player.lang))


async def _set(service: TableService, table: Table, key: str, times: int = 1) -> None:
    for _ in range(times):
        await service.change_setting(table.id, PEOPLE[0].user_id, key)


def test_the_hint_button_has_its_own_route() -> None:
    data = encode(5, 9, "H")
    assert [k for k, p in PATTERNS.items() if re.match(p, data)] == ["hint"]
    for forged in ("1:2:H1", "1:2:HH", "1:2:h"):
        assert not re.match(PATTERNS["hint"], forged)


async def test_the_settings_show_the_level_and_the_hints() -> None:
    async with service_on() as service:
        table = await lobby_of(service, 2)
        texts = [text for text, _ in _buttons(keyboards.settings_keyboard(table))]
        assert "Компьютер: сильный" in texts and "Подсказки 💡: нет" in texts
        assert "Уровень компьютера" not in lobby_text(table)  # no computer player, usual level
        await service.robots.add_robot(table.id, PEOPLE[0].user_id)
        assert "🤖 Уровень компьютера: сильный" in lobby_text(table)
        await _set(service, table, "robot_level", 2)
        await _set(service, table, "hints")
        texts = [text for text, _ in _buttons(keyboards.settings_keyboard(table))]
        assert "Компьютер: новичок" in texts and "Подсказки 💡: да" in texts
        lines = lobby_text(table).splitlines()
        assert lines[2:4] == ["🤖 Уровень компьютера: новичок", "💡 Подсказки компьютера включены"]
        closed = lobby_text(table, closed_key="lobby.started")  # the start message
        assert "🤖 Уровень компьютера: новичок" in closed and "💡 Подсказки" in closed
        await service.robots.remove_robot(table.id, PEOPLE[0].user_id)
        assert "🤖 Уровень компьютера: новичок" in lobby_text(table)  # one may come later


async def test_the_hint_button_only_on_turn_and_only_with_hints() -> None:
    async with service_on() as service:
        table = await lobby_of(service)
        await _set(service, table, "hints")
        await service.start(table.id, PEOPLE[0].user_id)
        seat, _ = actor(table)
        bids = _hand(table, seat)
        assert bids[-1][0] == "💡 Подсказка"
        assert bids[-1][1] == encode(table.id, table.move, "H")
        assert all(_hand(table, Seat(s)) == [] for s in range(3) if s != seat)
        table.settings.hints = False  # as a table without hints
        assert all(data != encode(table.id, table.move, "H") for _, data in _hand(table, seat))


async def test_the_declarer_gets_the_hint_button_for_his_discard() -> None:
    async with service_on() as service:
        table = await lobby_of(service)
        await _set(service, table, "hints")
        await service.start(table.id, PEOPLE[0].user_id)
        declarer = await to_discard(service, table)
        marks = _hand(table, declarer)
        assert marks[-1] == ("💡 Подсказка", encode(table.id, table.move, "H"))
        assert len(marks) == 13  # twelve cards to mark and the hint
