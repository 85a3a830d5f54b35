"""A forced card plays itself: the service plays a player's only legal card
when the scheduler's pause is over, if his setting allows; a stale job does nothing; the
last trick plays itself to the end of the deal."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core import effects as fx
from bot.core.errors import AlreadyDone, Rejected
from bot.core.forced import forced_move
from bot.core.model import Table
from bot.core.service import TableService
from bot.preferans.actions import Bid, Play
from bot.preferans.seats import Seat
from bot.render.callbacks import action_code
from tests.service.helpers import (
    actor,
    decoded,
    legal,
    of,
    open_table,
    press,
    service_on,
    started,
)


async def _all_pass(service: TableService, table: Table) -> None:
    """Everybody passes: the all-pass is played."""
    while not isinstance(legal(table)[0], Play):
        await press(service, table, lambda a: isinstance(a, Bid) and a.contract is None)


async def _until_forced(service: TableService, table: Table, *, last: bool = False) -> None:
    """Play the lowest cards until the player to act has no choice (on the last trick)."""
    assert table.game is not None
    while True:
        deal = table.game.current
        assert deal is not None
        if forced_move(table) is not None and (deal.trick_number == 10 or not last):
            return
        await press(service, table, lambda a: isinstance(a, Play))


async def _forced(service: TableService) -> Table:
    """A started game at the first card its player to act has no choice in."""
    table = await started(service)
    await _all_pass(service, table)
    await _until_forced(service, table)
    return table


async def test_the_only_card_plays_itself_and_a_stale_job_does_nothing() -> None:
    async with service_on() as service:
        table = await _forced(service)
        seat, _ = actor(table)
        card = forced_move(table)
        move = table.move
        assert await service.forced_play(table.id, move - 1) == ()  # an old job
        assert table.move == move
        effects = await service.forced_play(table.id, move)
        assert table.move == move + 1 and of(effects, fx.DealShown)
        assert table.game is not None and table.game.current is not None
        assert table.game.current.log[-1] == card and card is not None and card.seat == seat
        assert not of(effects, fx.AutoPlayed)  # his own card, not a timeout's
        row = await service.storage.table(table.id)
        assert row is not None and row.move == table.move  # saved like a press
        assert await service.forced_play(table.id, move) == ()  # the same job again


async def test_his_press_of_the_card_that_just_played_itself_is_already_done(
    tmp_path: Path,
) -> None:
    path = tmp_path / "bot.sqlite3"
    async with service_on(path) as service:
        table = await _forced(service)
        _, player = actor(table)
        card = forced_move(table)
        assert card is not None
        move, code = table.move, action_code(card)
        await service.forced_play(table.id, move)
        # his press of that very card arrives a moment later, read (as the adapter reads
        # it) against the deal as it is now: the next hand's turn; his card was played
        with pytest.raises(AlreadyDone):
            await service.act(table.id, player.user_id, move, code, decoded(table, code))
    # the bot restarts (a deploy) between his card played for him and his press
    async with service_on(path) as service:
        await service.resumable.resume()
        table = open_table(service)
        with pytest.raises(AlreadyDone):
            await service.act(table.id, player.user_id, move, code, decoded(table, code))
        assert table.move == move + 1
        other = actor(table)[1].user_id
        with pytest.raises(Rejected, match="err.stale"):  # somebody else's press of that move
            await service.act(table.id, other, move, code, decoded(table, code))


async def test_a_player_who_switched_it_off_presses_it_himself() -> None:
    async with service_on() as service:
        table = await _forced(service)
        _, player = actor(table)
        assert await service.registry.autoplay(player.user_id) is True  # on by default
        await service.registry.set_autoplay(player, False)
        assert await service.storage.autoplay(player.user_id) is False
        move = table.move
        assert await service.forced_play(table.id, move) == ()
        assert table.move == move
        await service.registry.set_autoplay(player, True)
        assert await service.forced_play(table.id, move) != ()
        assert table.move == move + 1


async def test_the_last_trick_plays_itself_to_the_next_deal() -> None:
    async with service_on() as service:
        table = await started(service)
        await _all_pass(service, table)
        await _until_forced(service, table, last=True)
        deal_no = table.deal_no
        assert table.game is not None and table.game.current is not None
        assert table.game.current.trick_number == 10 and not table.game.current.current_trick
        effects = await service.forced_play(table.id, table.move)
        [ended] = of(effects, fx.DealEnded)
        assert ended.deal_no == deal_no and table.deal_no == deal_no + 1
        assert ended.finished.deal is not None and ended.finished.deal.is_over


async def test_the_last_trick_stops_at_a_player_who_switched_it_off() -> None:
    async with service_on() as service:
        table = await started(service)
        await _all_pass(service, table)
        await _until_forced(service, table, last=True)
        seat, _ = actor(table)
        # the second hand of the last trick wants to press his card himself
        second = next(p for s, p in table.seated() if s == _next_to_act(table, seat))
        await service.registry.set_autoplay(second, False)
        move = table.move
        await service.forced_play(table.id, move)
        assert table.move == move + 1 and actor(table)[1] == second


def _next_to_act(table: Table, seat: Seat) -> Seat:
    assert table.game is not None and table.game.current is not None
    active = table.game.current.active
    return active[(active.index(seat) + 1) % 3]
