"""Moves through the core service: stale and forged presses, repeated ones, discard
marks, timeouts, replaceable seats, takeover and stop votes."""

from __future__ import annotations

import pytest

from bot.core import effects as fx
from bot.core.errors import AlreadyDone, Rejected
from bot.core.model import Status, Table
from bot.core.modes import NotifyMode
from bot.core.service import Shown, TableService
from bot.preferans.actions import Action, Bid, Discard, Play
from bot.preferans.cards import Card
from bot.preferans.contracts import parse_contract
from bot.preferans.seats import replaceable
from tests.fakes import ManualClock
from tests.service.helpers import (
    PEOPLE,
    STRANGER,
    actor,
    decoded,
    kinds,
    legal,
    of,
    pick,
    service_on,
    started,
    time_out,
    to_discard,
)


def PASS(a: Action) -> bool:
    return isinstance(a, Bid) and a.contract is None


def FIRST(a: Action) -> bool:
    return isinstance(a, Bid)


async def test_a_move_is_applied_saved_and_passes_the_turn() -> None:
    async with service_on() as service:
        table = await started(service)
        seat, player = actor(table)
        move = table.move
        effects = await service.act(table.id, player.user_id, move, "bP", pick(table, PASS))
        assert kinds(effects)[:2] == ["DealShown", "TimerChanged"]
        [turn] = of(effects, fx.TurnPassed)
        assert turn.seat != seat and table.move == move + 1
        assert table.timeouts[seat] == 0
        row = await service.storage.table(table.id)
        assert row is not None and row.move == table.move
        assert row.record is not None
        assert row.record["deals"][0]["moves"] == [{"seat": seat, "bid": "pass"}]


async def test_stale_forged_and_out_of_turn_presses_change_nothing() -> None:
    async with service_on() as service:
        table = await started(service)
        seat, player = actor(table)
        other = next(p for s, p in table.seated() if s != seat)
        move, passes = table.move, pick(table, PASS)
        with pytest.raises(Rejected, match="err.stale"):
            await service.act(table.id, player.user_id, move - 1, "bP", passes)
        with pytest.raises(Rejected, match="err.not_turn"):
            await service.act(table.id, other.user_id, move, "bP", passes)
        with pytest.raises(Rejected, match="err.not_seated"):
            await service.act(table.id, STRANGER.user_id, move, "bP", passes)
        with pytest.raises(Rejected, match="err.illegal"):  # the press names no action
            await service.act(table.id, player.user_id, move, "b99", None)
        with pytest.raises(Rejected, match="err.stale"):
            await service.act(table.id + 100, player.user_id, move, "bP", passes)
        assert table.move == move and actor(table)[0] == seat


async def test_an_action_not_among_the_legal_ones_is_refused_and_changes_nothing() -> None:
    """The core checks a decoded press against the seat's legal actions: a card during the
    auction, another seat's bid, a bid the auction does not allow, a discard pressed as one
    action are refused as illegal, and neither the table nor what is stored changes."""
    async with service_on() as service:
        table = await started(service)
        seat, player = actor(table)
        other = next(s for s, _ in table.seated() if s != seat)
        deal = table.game.current if table.game is not None else None
        assert deal is not None
        hand = sorted(deal.hand(seat))
        move, row = table.move, await service.storage.table(table.id)
        assert row is not None
        wrong: list[Action] = [
            Play(seat, hand[0]),
            Bid(other, None),
            Bid(seat, parse_contract("10NT")),
            Discard(seat, (hand[0], hand[1])),
        ]
        assert not any(a in legal(table) for a in wrong)
        for action in wrong:
            with pytest.raises(Rejected, match="err.illegal"):
                await service.act(table.id, player.user_id, move, "x", action)
        assert table.move == move and actor(table)[0] == seat
        assert len(deal.auction) == 0 and table.timeouts.get(seat, 0) == 0
        assert table.recent == []
        assert await service.storage.table(table.id) == row


async def test_a_repeated_press_is_already_done() -> None:
    async with service_on() as service:
        table = await started(service)
        _, player = actor(table)
        move = table.move
        passes, six = pick(table, PASS), decoded(table, "b6S")
        await service.act(table.id, player.user_id, move, "bP", passes)
        with pytest.raises(AlreadyDone):
            await service.act(table.id, player.user_id, move, "bP", passes)
        with pytest.raises(Rejected, match="err.stale"):  # another button of that state
            await service.act(table.id, player.user_id, move, "b6S", six)


async def test_discard_marks_are_idempotent_and_confirmed_as_one_action() -> None:
    async with service_on() as service:
        table = await started(service)
        declarer = await to_discard(service, table)
        player = table.seats[declarer]
        assert player is not None
        move = table.move
        cards = sorted({c for a in legal(table) if isinstance(a, Discard) for c in a.cards})
        uid = player.user_id
        with pytest.raises(Rejected, match="err.pick_two"):
            await service.confirm_discard(table.id, uid, move, "k")
        for _ in range(2):  # pressed twice (an answer lost): still marked once
            await service.mark_discard(table.id, uid, move, cards[0], True)
        assert table.ui.discard_pick[declarer] == (cards[0],)
        assert await service.mark_discard(table.id, uid, move, cards[0], True) == ()
        await service.mark_discard(table.id, uid, move, cards[1], True)
        await service.mark_discard(table.id, uid, move, cards[2], True)  # the oldest drops
        assert table.ui.discard_pick[declarer] == (cards[1], cards[2])
        with pytest.raises(Rejected, match="err.illegal"):
            await service.mark_discard(table.id, uid, move, None, True)
        effects = await service.confirm_discard(table.id, uid, move, "k")
        assert "DealShown" in kinds(effects) and declarer not in table.ui.discard_pick
        assert not any(isinstance(a, Discard) for a in legal(table))


async def _declarer_to_discard(service: TableService) -> tuple[Table, int, list[Card]]:
    """A game whose declarer is to discard: the table, his user id and the cards he may
    mark, lowest first."""
    table = await started(service)
    player = table.seats[await to_discard(service, table)]
    assert player is not None
    cards = sorted({c for a in legal(table) if isinstance(a, Discard) for c in a.cards})
    return table, player.user_id, cards


async def test_a_declarer_out_of_time_discards_the_two_cards_he_marked() -> None:
    """He marked two cards and his time ran out before he confirmed them: the timer
    discards his two, not the two lowest; his confirm arriving late is already done."""
    clock = ManualClock()
    async with service_on(clock=clock, turn_time=30) as service:
        table, uid, cards = await _declarer_to_discard(service)
        mine = {cards[-1], cards[-2]}  # the two highest: never the timer's own choice
        for c in mine:
            await service.mark_discard(table.id, uid, table.move, c, True)
        _, move, auto = await time_out(service, table, clock)
        assert isinstance(auto.action, Discard) and set(auto.action.cards) == mine
        deal = table.game.current if table.game is not None else None
        assert deal is not None and set(deal.discard) == mine
        with pytest.raises(AlreadyDone):
            await service.confirm_discard(table.id, uid, move, "k")


async def test_a_declarer_out_of_time_with_one_card_marked_discards_the_two_lowest() -> None:
    clock = ManualClock()
    async with service_on(clock=clock, turn_time=30) as service:
        table, uid, cards = await _declarer_to_discard(service)
        discards = [a for a in legal(table) if isinstance(a, Discard)]
        await service.mark_discard(table.id, uid, table.move, cards[-1], True)
        _, _, auto = await time_out(service, table, clock)
        lowest = min(discards, key=lambda a: sorted((int(c.rank), int(c.suit)) for c in a.cards))
        assert auto.action == lowest and cards[-1] not in auto.action.cards


async def test_a_turn_whose_buttons_were_never_delivered_does_not_time_out() -> None:
    """Telegram slow or down: the player to act never saw his buttons, so his time starts
    again instead of a move being made for him; once they are out, the timer acts."""
    clock = ManualClock()
    async with service_on(clock=clock, turn_time=30) as service:
        table = await started(service)
        seat, _ = actor(table)
        move = table.move
        for _ in range(3):
            clock.advance(31)
            effects = await service.timeout(table.id, move, unseen=True)
            assert kinds(effects) == ["TimerChanged"] and table.move == move
            assert table.deadline == clock() + 30  # a whole new turn from now
        stored = await service.storage.table(table.id)
        assert stored is not None and stored.deadline == table.deadline  # saved
        clock.advance(31)
        [auto] = of(await service.timeout(table.id, move), fx.AutoPlayed)
        assert auto.seat == seat and table.move == move + 1


async def test_his_late_press_of_what_his_timeout_made_is_already_done() -> None:
    clock = ManualClock()
    async with service_on(clock=clock, turn_time=30) as service:
        table = await started(service)
        player, move, auto = await time_out(service, table, clock)
        assert auto.action == Bid(auto.seat, None)
        # he pressed the very move the timer made for him; the adapter reads his press
        # against the deal as it is now, the next hand's turn
        with pytest.raises(AlreadyDone):
            await service.act(table.id, player.user_id, move, "bP", decoded(table, "bP"))
        with pytest.raises(Rejected, match="err.stale"):  # another one: too late
            await service.act(table.id, player.user_id, move, "b6S", decoded(table, "b6S"))
        assert table.move == move + 1


async def test_timeouts_act_safely_and_make_a_seat_replaceable() -> None:
    clock = ManualClock()
    async with service_on(clock=clock, turn_time=30) as service:
        table = await started(service)
        first, _ = actor(table)
        move = table.move
        assert kinds(await service.timeout(table.id, move)) == ["TimerChanged"]  # not due
        assert await service.timeout(table.id, move - 1) == ()  # an old job
        turns = 0
        while table.timeouts.get(first, 0) < 2:
            clock.advance(31)
            seat, _ = actor(table)
            effects = await service.timeout(table.id, table.move)
            [auto] = of(effects, fx.AutoPlayed)
            assert auto.seat == seat and table.ui.auto_note is not None
            turns += 1
            assert turns < 10
        assert any(isinstance(e, fx.SeatReplaceable) and e.seat == first for e in effects)
        assert replaceable(table.timeouts) == [first]
        # a stranger takes the seat: first he must open the private chat
        effects = await service.take_seat(table.id, first, STRANGER)
        assert kinds(effects) == ["MustStartPrivate"]
        await service.registry.remember_user(STRANGER, private_ok=True)
        old = table.seats[first]
        # a discard half marked by the old player is not the new one's (he marks his own)
        assert table.game is not None and table.game.current is not None
        table.ui.discard_pick[first] = (min(table.game.current.hand(first)),)
        effects = await service.take_seat(table.id, first, STRANGER)
        [taken] = of(effects, fx.SeatTaken)
        assert old is not None and taken.old_name == old.name
        # the replaced player is named, for his hand message to be frozen
        assert (taken.old_id, taken.old_lang) == (old.user_id, old.lang)
        assert table.seats[first] == STRANGER and table.timeouts[first] == 0
        assert first not in table.ui.discard_pick
        assert table.holders[-1].user_id == STRANGER.user_id
        with pytest.raises(Rejected, match="err.not_replaceable"):
            await service.take_seat(table.id, first, PEOPLE[3])


async def test_a_stop_vote_needs_a_majority_and_archives_the_game() -> None:
    async with service_on() as service:
        table = await started(service)
        effects = await service.vote_stop(table.id, PEOPLE[0].user_id)
        [vote] = of(effects, fx.StopVoted)
        assert (vote.votes, vote.need) == (1, 2)
        with pytest.raises(Rejected, match="err.voted"):
            await service.vote_stop(table.id, PEOPLE[0].user_id)
        with pytest.raises(Rejected, match="err.not_seated"):
            await service.vote_stop(table.id, STRANGER.user_id)
        effects = await service.vote_stop(table.id, PEOPLE[1].user_id)
        assert kinds(effects) == ["GameStopped", "GameOver", "TimerChanged"]
        assert table.status is Status.OVER and table.unshown.settlement and table.archived
        rows = await service.storage.fetchall("SELECT status FROM games")
        assert [r[0] for r in rows] == ["stopped"]
        assert not service.registry.forget(table.id)  # the settlement is still to be shown
        await service.shown(table, Shown("settlement"))
        assert service.registry.forget(table.id)


async def test_turn_passed_says_how_long_the_next_player_has_been_idle() -> None:
    """The presenter pings only a player who has not acted moments ago."""
    clock = ManualClock()
    async with service_on(clock=clock) as service:
        table = await started(service)
        idles = []
        for _ in range(4):  # bid 6♠, pass, pass around the table and back
            clock.advance(7)
            _, player = actor(table)
            effects = await service.act(
                table.id, player.user_id, table.move, "b", pick(table, FIRST)
            )
            idles += [e.idle for e in of(effects, fx.TurnPassed)]
        # the others have not acted yet: idle since the deal was dealt (their hands rang)
        assert idles[:2] == [7, 14]
        assert [i for i in idles[2:] if i is not None] and all(
            i == 14 for i in idles[2:] if i is not None
        )  # three seats, 7 s a move: the next one acted two moves ago


async def test_the_notification_setting_is_kept_per_user() -> None:
    async with service_on() as service:
        assert await service.registry.notify_mode(PEOPLE[0].user_id) == "always"
        await service.registry.set_notify_mode(PEOPLE[0], NotifyMode.SLOW)
        assert await service.registry.notify_mode(PEOPLE[0].user_id) == "slow"
        assert await service.storage.notify_mode(PEOPLE[0].user_id) == "slow"
        with pytest.raises(Rejected):
            # a mode the bot does not know is refused
            await service.registry.set_notify_mode(PEOPLE[0], "loud")  # type: ignore[arg-type]
