"""A computer player whose offer was refused does not offer it again in the same position:
with a person away and a turn timer, the timer refused for him and the computer player
offered again, round and round (the deal never went on, its row grew on every round)."""

from __future__ import annotations

from bot.core import effects as fx
from bot.core import robots
from bot.preferans.actions import Accept, Offer, Play
from bot.preferans.seats import Seat
from tests.engine.test_offers import play_to_trick
from tests.engine.test_robot_offers import cold_all_pass
from tests.fakes import ManualClock
from tests.service.helpers import of, service_on
from tests.service.test_robots import OWNER, _robot_table


async def test_a_refused_robot_offer_is_not_made_again_in_that_position() -> None:
    clock = ManualClock()
    async with service_on(clock=clock, turn_time=30) as service:
        table = await _robot_table(service)  # the owner in seat 0, computer players 1 and 2
        await service.start(table.id, OWNER.user_id)
        assert table.game is not None
        # seat 1 holds every spade and A♣ K♣ on all-pass: from trick 4 it takes every trick
        deal = table.game.current = cold_all_pass()
        play_to_trick(deal, 4)
        assert deal.actor == Seat(1) and robots.robot_to_act(table) is not None
        await service.robots.robot_move(table.id, table.move)
        [offer] = [a for a in deal.log if isinstance(a, Offer)]
        assert offer.seat == Seat(1)
        await service.robots.robot_move(table.id, table.move)  # seat 2 accepts: it loses nothing
        assert deal.log[-1] == Accept(Seat(2), True)
        assert table.deadline is not None
        clock.now = table.deadline + 1  # the owner is away: the timer refuses for him
        effects = await service.timeout(table.id, table.move)
        assert [e.action for e in of(effects, fx.AutoPlayed)] == [Accept(Seat(0), False)]
        assert deal.actor == Seat(1) and deal.open_offer is None
        moves = len(deal.log)
        await service.robots.robot_move(table.id, table.move)  # the same position again
        assert len(deal.log) == moves + 1 and isinstance(deal.log[-1], Play)
        assert [a for a in deal.log if isinstance(a, Offer)] == [offer]
