"""Every button the bot draws is routed to exactly one handler by its ``pattern``; data
that is not ours goes to the catch-all (answered as out of date)."""

from __future__ import annotations

import re

from bot.preferans.seats import Seat
from bot.preferans.views import seat_view
from bot.render import keyboards
from bot.render.callbacks import encode
from bot.telegram.buttons import PATTERNS
from tests.service.helpers import actor, lobby_of, service_on, started, to_discard


def _routes(data: str) -> list[str]:
    return [kind for kind, pattern in PATTERNS.items() if re.match(pattern, data)]


def _data(markup: object) -> list[str]:
    rows = getattr(markup, "inline_keyboard", ())
    return [b.callback_data for row in rows for b in row if b.callback_data]


async def test_every_drawn_button_has_exactly_one_route() -> None:
    async with service_on() as service:
        table = await lobby_of(service, 3)
        drawn = _data(keyboards.lobby_keyboard(table)) + _data(keyboards.settings_keyboard(table))
        assert {_routes(d)[0] for d in drawn} == {"lobby"}
        await service.start(table.id, 1)
        drawn = _data(keyboards.stop_keyboard(table)) + _data(
            keyboards.take_keyboard(table, Seat(1))
        )
        drawn += _data(keyboards.take_back_keyboard(table, Seat(1)))
        assert [_routes(d) for d in drawn] == [["vote"], ["take"], ["robot"], ["take"]]
        seat, player = actor(table)
        sv = service.registry.tables[table.id].game.current  # type: ignore[union-attr]
        assert sv is not None
        bids = _data(keyboards.actions_keyboard(table, seat_view(sv, seat), player.lang))
        assert bids and all(_routes(d) == ["move"] for d in bids)


async def test_discard_buttons_mark_and_confirm() -> None:
    async with service_on() as service:
        table = await started(service)
        declarer = await to_discard(service, table)
        player = table.seats[declarer]
        assert player is not None and table.game is not None and table.game.current is not None
        sv = seat_view(table.game.current, declarer)
        marks = _data(keyboards.actions_keyboard(table, sv, player.lang))
        assert marks and all(_routes(d) == ["mark"] for d in marks)


def test_forged_data_goes_to_the_catch_all() -> None:
    for data in ("", "x", "1:2", "1:2:", "1:2:Z", "ZZ:1:V", "1:2:V7", "1:2:Rx", "-1:2:k"):
        assert _routes(data) == [], data
    assert _routes(encode(5, 9, "k")) == ["discard"]
    assert _routes(encode(5, 0, "R3")) == ["take"]
    assert _routes(encode(5, 0, "Q3")) == ["robot"]
