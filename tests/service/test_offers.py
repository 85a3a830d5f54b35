"""Offers through the core service: refused, accepted, timed out, pressed stale
or by a player who does not answer, answered by a computer player, checked by the solver."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core import effects as fx
from bot.core.errors import AlreadyDone, Rejected
from bot.core.model import Player, Table
from bot.core.offers import OFFER_BUDGET
from bot.core.service import TableService
from bot.preferans.actions import Accept, Declare, Discard, Offer, Play, Whist
from bot.preferans.cards import Card
from bot.preferans.contracts import parse_contract
from bot.preferans.deal import Deal
from bot.preferans.offer_marks import offer_check
from bot.preferans.outcome import WhistAnswer
from bot.preferans.seats import Seat
from bot.preferans.views import seat_view
from bot.render.table import hand_text
from tests.bot_helpers import cards_in
from tests.fakes import ManualClock
from tests.service.helpers import (
    GROUP,
    actor,
    decoded,
    legal,
    of,
    press,
    service_on,
    started,
    to_discard,
)

SIX = parse_contract("6S")


async def to_trick(service: TableService, table: Table, number: int) -> Seat:
    """6♠ declared and whisted by both defenders; the first card played until trick
    ``number`` waits for its lead. Returns the leader."""
    declarer = await to_discard(service, table)
    player = table.seats[declarer]
    assert player is not None
    cards = sorted({c for a in legal(table) if isinstance(a, Discard) for c in a.cards})
    for c in cards[:2]:
        await service.mark_discard(table.id, player.user_id, table.move, c, True)
    await service.confirm_discard(table.id, player.user_id, table.move, "k")
    await press(service, table, lambda a: isinstance(a, Declare) and a.contract == SIX)
    while any(isinstance(a, Whist) for a in legal(table)):
        await press(
            service, table, lambda a: isinstance(a, Whist) and a.answer is WhistAnswer.WHIST
        )
    deal = _deal(table)
    while not (deal.trick_number == number and not deal.current_trick):
        await press(service, table, lambda a: isinstance(a, Play))
    seat, _ = actor(table)
    return seat


def _deal(table: Table) -> Deal:
    assert table.game is not None and table.game.current is not None
    return table.game.current


def all_to(table: Table, seat: Seat) -> Offer:
    leader, _ = actor(table)
    offers = seat_view(_deal(table), leader).offers
    return next(o for o in offers if o.tricks[seat] == sum(o.tricks))


async def offer(service: TableService, table: Table, wanted: Offer) -> None:
    _, player = actor(table)
    code = "o" + "-".join(map(str, wanted.tricks))
    assert decoded(table, code) == wanted  # the button's code names this very offer
    await service.act(table.id, player.user_id, table.move, code, wanted)


async def answer(service: TableService, table: Table, yes: bool) -> Seat:
    seat, player = actor(table)
    code = "aY" if yes else "aN"
    await service.act(table.id, player.user_id, table.move, code, decoded(table, code))
    return seat


async def test_a_refusal_withdraws_the_offer_and_stale_or_foreign_presses_change_nothing() -> None:
    async with service_on() as service:
        table = await started(service)
        leader = await to_trick(service, table, 7)
        wanted = all_to(table, leader)
        await offer(service, table, wanted)
        deal = _deal(table)
        assert deal.open_offer is not None and deal.open_offer.offer == wanted
        first, second = deal.open_offer.answerers
        move = table.move
        # the one who answers later, and the offerer, have nothing to press yet
        for seat in (second, leader):
            p = table.seats[seat]
            assert p is not None
            with pytest.raises(Rejected, match="err.not_turn"):
                await service.act(table.id, p.user_id, move, "aY", decoded(table, "aY"))
        assert await answer(service, table, False) == first
        assert deal.open_offer is None and actor(table)[0] == leader
        assert table.ui.offer_note is not None and table.ui.offer_note.refused_by == first
        # the accept button of the withdrawn offer is out of date
        p = table.seats[second]
        assert p is not None
        with pytest.raises(Rejected, match="err.stale"):
            await service.act(table.id, p.user_id, move, "aY", decoded(table, "aY"))
        row = await service.storage.table(table.id)
        assert row is not None and row.record is not None
        moves = row.record["deals"][-1]["moves"]
        assert moves[-2:] == [wanted.to_json(), {"seat": int(first), "accept": False}]
        # the leader plays on; the note goes with the next card
        await press(service, table, lambda a: isinstance(a, Play))
        assert table.ui.offer_note is None


def _kept(table: Table, seat: Seat) -> frozenset[Card] | None:
    """The refused offer's cards in ``seat``'s hand message, if they are still there."""
    text = hand_text(table, seat_view(_deal(table), seat), 1, "ru")
    label = "карты, открытые с предложением (видны до вашего хода):"
    if label not in text:
        return None
    return cards_in(text.split(label)[1].split("\n\n")[0])


async def test_the_cards_of_a_refused_offer_stay_with_each_answerer_until_his_card() -> None:
    async with service_on() as service:
        table = await started(service)
        leader = await to_trick(service, table, 7)
        await offer(service, table, all_to(table, leader))
        deal = _deal(table)
        assert deal.open_offer is not None
        first, second = deal.open_offer.answerers
        shown = set(deal.hand(leader))
        await answer(service, table, False)
        # both who answered may still look at them while they choose their cards
        assert _kept(table, first) == _kept(table, second) == shown
        assert _kept(table, leader) is None
        await press(service, table, lambda a: isinstance(a, Play))  # the leader leads
        [led] = [tc.card for tc in deal.current_trick]
        assert _kept(table, first) == _kept(table, second) == shown - {led}
        await press(service, table, lambda a: isinstance(a, Play))  # the first answerer
        assert _kept(table, first) is None and _kept(table, second) == shown - {led}
        await press(service, table, lambda a: isinstance(a, Play))  # the second answerer
        assert _kept(table, second) is None and _kept(table, first) is None


async def test_all_accepting_ends_the_deal_scored_from_the_offer() -> None:
    async with service_on() as service:
        table = await started(service)
        leader = await to_trick(service, table, 6)
        before = tuple(_deal(table).tricks)
        wanted = all_to(table, leader)
        await offer(service, table, wanted)
        await answer(service, table, True)
        seat, player = actor(table)
        effects = await service.act(
            table.id, player.user_id, table.move, "aY", decoded(table, "aY")
        )
        [ended] = of(effects, fx.DealEnded)
        outcome = ended.finished.deal.outcome() if ended.finished.deal else None
        assert outcome is not None
        assert outcome.tricks == tuple(b + n for b, n in zip(before, wanted.tricks, strict=True))
        assert table.game is not None and table.game.deal_count == 2


async def test_the_timer_refuses_an_open_offer_for_the_player() -> None:
    clock = ManualClock()
    async with service_on(clock=clock, turn_time=30) as service:
        table = await started(service)
        leader = await to_trick(service, table, 8)
        await offer(service, table, all_to(table, leader))
        seat, _ = actor(table)
        clock.advance(31)
        effects = await service.timeout(table.id, table.move)
        [auto] = of(effects, fx.AutoPlayed)
        assert auto.seat == seat and auto.action == Accept(seat, False)
        assert _deal(table).open_offer is None and actor(table)[0] == leader
        assert table.timeouts[seat] == 1


async def test_a_computer_player_answers_an_offer() -> None:
    async with service_on() as service:
        table = await started(service)
        leader = await to_trick(service, table, 8)
        deal = _deal(table)
        robot_seat = leader.next(3)  # the first to answer
        table.seats[robot_seat] = Player(-1, "🤖 Пётр")  # the seat given to a computer player
        # every trick left to the computer player's side: nothing to lose by accepting
        await offer(service, table, all_to(table, robot_seat))
        assert deal.open_offer is not None and deal.open_offer.waiting == robot_seat
        await service.robots.robot_move(table.id, table.move)
        assert [a for a in deal.log if isinstance(a, Accept)] == [Accept(robot_seat, True)]
        assert deal.open_offer is not None and deal.open_offer.waiting == robot_seat.next(3)


async def test_the_solver_marks_the_guaranteed_offers_of_a_person() -> None:
    async with service_on() as service:
        table = await started(service)
        leader = await to_trick(service, table, 6)
        deal = _deal(table)
        # nothing is checked at his lead until he opens his offers
        assert table.ui.offer_sure[0] != table.move
        _, person = actor(table)
        shown = await service.open_offers(table.id, person.user_id, table.move, True)
        assert [type(e) for e in shown] == [fx.HandShown]
        assert of(shown, fx.HandShown)[0].seat == leader
        move, sure = table.ui.offer_sure
        assert move == table.move
        # what the engine proves over every layout the leader cannot see (offer_marks.py)
        check = offer_check(deal, [leader])
        assert check is not None
        expected = check.run(OFFER_BUDGET)
        assert expected.get(leader) and sure == expected
        # «назад»: his cards again, the move unchanged (nothing was done)
        before = table.move
        await service.open_offers(table.id, person.user_id, table.move, False)
        assert table.move == before and leader not in table.ui.offer_sure[1]
        offers = seat_view(deal, leader).offers
        await offer(service, table, offers[0])
        answerer, _ = actor(table)
        move, sure = table.ui.offer_sure
        marked = {answerer: sure.get(answerer, frozenset())} if move == table.move else {}
        check = offer_check(deal, [answerer])
        assert check is not None
        assert {s: m for s, m in marked.items() if m} == check.run(OFFER_BUDGET)


async def test_opening_the_offers_is_refused_to_others_and_on_a_stale_button() -> None:
    async with service_on() as service:
        table = await started(service)
        await to_trick(service, table, 6)
        _, person = actor(table)
        other = next(p for _, p in table.seated() if p.user_id != person.user_id)
        with pytest.raises(Rejected) as refused:
            await service.open_offers(table.id, other.user_id, table.move, True)
        assert refused.value.key == "err.not_turn"
        with pytest.raises(Rejected) as refused:
            await service.open_offers(table.id, person.user_id, table.move - 1, True)
        assert refused.value.key == "err.stale"
        await press(service, table, lambda a: isinstance(a, Play))  # mid-trick: no offers
        _, person = actor(table)
        with pytest.raises(Rejected) as refused:
            await service.open_offers(table.id, person.user_id, table.move, True)
        assert refused.value.key == "err.stale"
        assert table.ui.offer_sure[0] != table.move


async def test_an_open_offer_survives_a_restart_and_a_repeated_press_is_already_done(
    tmp_path: Path,
) -> None:
    path = tmp_path / "bot.sqlite3"
    async with service_on(path) as service:
        table = await started(service)
        leader = await to_trick(service, table, 9)
        wanted = all_to(table, leader)
        await offer(service, table, wanted)
        seat, player = actor(table)
        move = table.move
        await answer(service, table, True)
    async with service_on(path) as service:
        await service.resumable.resume()
        again = service.registry.open_table(GROUP)
        assert again is not None
        deal = _deal(again)
        assert deal.open_offer is not None and deal.open_offer.offer == wanted
        assert deal.open_offer.accepted_by() == (seat,)
        # the first answer pressed again (its answer lost in the restart): already done
        with pytest.raises(AlreadyDone):
            await service.act(again.id, player.user_id, move, "aY", decoded(again, "aY"))
        await answer(service, again, True)
        assert again.game is not None and len(again.game.finished_deals) == 1
