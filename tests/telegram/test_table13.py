"""Smaller points where the presenter shows them: a declaration made for the
declarer is noted for everybody; the time to move; the 4-player dealer's silent hand."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from bot.core import effects as fx
from bot.core.modes import NotifyMode, RankStyle
from bot.preferans.actions import Bid, Discard, Play
from bot.preferans.cards import parse_card
from bot.preferans.contracts import MISERE, parse_contract
from bot.preferans.deal import Phase
from bot.preferans.views import public_view, seat_view
from bot.render.keyboards import actions_keyboard
from bot.render.table import table_text, time_left
from bot.render.text import card, contract, hand_lines, name
from bot.telegram.outbox import Outbox
from bot.telegram.personal import PATTERN, notify_keyboard
from bot.telegram.scheduler import NUDGE_AFTER, JobKind, turn_jobs
from bot.telegram.shown import MessageStore, Slot
from tests.fakes import ManualClock
from tests.service.helpers import (
    GROUP,
    PEOPLE,
    actor,
    legal,
    lobby_of,
    press,
    service_on,
    started,
)
from tests.telegram.test_presenter import _presenter


async def test_a_misere_is_declared_for_the_declarer_and_everybody_sees_it() -> None:
    async with service_on() as service:
        table = await started(service)
        presenter, outbox, _, _ = _presenter(service)
        declarer, player = actor(table)
        await press(service, table, lambda a: isinstance(a, Bid) and a.contract == MISERE)
        while not any(isinstance(a, Discard) for a in legal(table)):
            await press(service, table, lambda a: isinstance(a, Bid) and a.contract is None)
        [*_, two] = [a for a in legal(table) if isinstance(a, Discard)]
        for card in two.cards:
            await service.mark_discard(table.id, player.user_id, table.move, card, True)
        presenter.show(await service.confirm_discard(table.id, player.user_id, table.move, "k"))
        deal = table.game.current  # type: ignore[union-attr]
        assert deal is not None and deal.contract == MISERE and deal.phase is Phase.PLAY
        assert table.ui.forced is not None and table.ui.forced.seat == declarer
        texts = {slot.chat_id: text for slot, text, _ in outbox.shown}
        assert "объявлено автоматически" in texts[GROUP]
        assert "Объявлено за вас: мизер" in texts[player.user_id]
        for _, other in table.seated():
            if other != player:
                assert "объявлено автоматически" in texts[other.user_id]
        await press(service, table, lambda a: True)  # the next move: the note goes
        assert table.ui.forced is None


async def test_the_dealer_who_sits_out_gets_his_deal_without_a_ring() -> None:
    async with service_on() as service:
        table = await lobby_of(service, 4)
        presenter, outbox, _, _ = _presenter(service)
        presenter.show(await service.start(table.id, PEOPLE[0].user_id))
        assert table.game is not None and table.game.current is not None
        dealer = table.seats[table.game.current.dealer]
        assert dealer is not None
        hands = {slot.chat_id for slot, _, _ in outbox.shown if slot.chat_id > 0}
        assert hands == {p.user_id for p in PEOPLE}  # he still sees the deal
        assert [s.chat_id for s, _, _ in outbox.shown if s.silent] == [dealer.user_id]


class _Bot:
    """Answers sendMessage like Telegram and keeps what it was asked."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def do_api_request(self, endpoint: str, api_kwargs: dict[str, Any]) -> Any:
        assert endpoint == "sendMessage"
        self.sent.append(api_kwargs)
        return {"message_id": len(self.sent)}


async def test_a_silent_slot_is_sent_without_notification() -> None:
    bot = _Bot()
    outbox = Outbox(bot, private_interval=0, group_fast_interval=0)
    quiet, loud = Slot(0, "hand", 5, 1, silent=True), Slot(0, "hand", 6, 1)
    outbox.show(quiet, "a")
    outbox.show(loud, "b")
    await outbox.drain(5)
    # (each value as PTB writes it into the request: its JSON text)
    sent = [(m["chat_id"], m["disable_notification"]) for m in bot.sent]
    assert sent == [("5", "true"), ("6", "false")]
    await outbox.close()


def test_the_turn_jobs_bring_the_time_up_to_date_and_nudge_without_a_timer() -> None:
    assert turn_jobs(60, 60.0) == [(30.0, "tick"), (45.0, "remind"), (60.05, "turn")]
    assert turn_jobs(60, 20.0) == [(5.0, "remind"), (20.05, "turn")]  # half time is past
    assert turn_jobs(30, 30.0) == [(15.0, "tick"), (20.0, "remind"), (30.05, "turn")]
    assert turn_jobs(0, None) == [(NUDGE_AFTER, "remind")]
    assert [kind for _, kind in turn_jobs(60, 60.0)] == [JobKind.TICK, JobKind.REMIND, JobKind.TURN]


def test_the_time_shown_is_never_less_than_the_time_left() -> None:
    assert time_left(60, None, "ru") == "⏳ на ход 60 с"
    assert time_left(60, 58.0, "ru") == "⏳ на ход 60 с"  # just started
    assert time_left(60, 30.0, "ru") == "⏳ осталось меньше 30 с"
    assert time_left(60, 14.9, "ru") == "⏳ осталось меньше 15 с"
    assert time_left(60, 0.2, "en") == "⏳ under 5 s left"
    for left in range(0, 55):
        shown = int(time_left(60, left + 0.5, "en").split()[2])
        assert left + 0.5 <= shown < left + 6


async def test_the_hand_counts_down_at_half_time() -> None:
    clock = ManualClock()
    async with service_on(clock=clock) as service:
        table = await started(service)
        presenter, outbox, _, _ = _presenter(service)
        _, player = actor(table)
        assert table.deadline is not None
        clock.now = table.deadline - 30
        presenter.show(service.registry.tick(table.id, table.move))
        [(slot, text, markup)] = outbox.shown
        assert slot.chat_id == player.user_id and markup is not None
        assert "осталось меньше 30 с" in text
        assert service.registry.tick(table.id, table.move - 1) == ()  # an old move's job: nothing


async def test_with_the_timer_off_a_slow_player_is_pinged_once_he_idles() -> None:
    async with service_on(turn_time=0) as service:
        table = await started(service)
        presenter, outbox, _, _ = _presenter(service)
        _, player = actor(table)
        await service.registry.set_notify_mode(player, NotifyMode.SLOW)
        assert table.deadline is None
        [remind] = service.registry.remind(table.id, table.move)
        assert isinstance(remind, fx.Remind) and remind.seconds is None
        presenter.show((remind,))
        for run in outbox.calls:
            await run()
        text = f"⏰ {player.name}, ваш ход — стол «Клуб» ждёт."
        assert outbox.posts == [(player.user_id, text)]


async def test_after_a_restart_the_old_notification_goes_and_the_vote_loses_its_buttons(
    tmp_path: Path,
) -> None:
    path = tmp_path / "bot.sqlite3"
    async with service_on(path) as service:
        table = await started(service)
        _, player = actor(table)
        vote = await service.vote_stop(table.id, PEOPLE[0].user_id)
        presenter, outbox, _, _ = _presenter(service, MessageStore(service.storage))
        presenter.store.put(table.id, "reminder", player.user_id, 0, 77)
        presenter.show(vote)
        presenter.store.put(table.id, "live", GROUP, 88, 88, "🛑 vote")
        await presenter.store.flush()
    async with service_on(path) as service:  # the bot restarted
        presenter, outbox, _, _ = _presenter(service, MessageStore(service.storage))
        await presenter.store.load(table.id)
        presenter.show(await service.resumable.resume())
        assert (player.user_id, 77) in outbox.deleted
        table = service.registry.open_table(GROUP)  # type: ignore[assignment]
        assert table is not None and presenter.store.of_kind(table.id, "reminder") == []
        presenter.show(await service.vote_stop(table.id, PEOPLE[1].user_id))  # stopped
        frozen = [(s.message_id, text, m) for s, text, m in outbox.shown if s.chat_id == GROUP]
        assert (88, "🛑 vote\n\n🛑 Игра остановлена.", None) in frozen


async def test_each_player_reads_card_ranks_his_way_and_the_group_the_tables(
    tmp_path: Path,
) -> None:
    path = tmp_path / "bot.sqlite3"
    async with service_on(path) as service:
        table = await started(service)
        anna = PEOPLE[0]
        shown = await service.registry.set_card_ranks(anna, RankStyle.RUSSIAN)
        assert [(type(e).__name__, e.table) for e in shown] == [("HandShown", table)]
    async with service_on(path) as service:  # stored (migration 004), read back on resume
        presenter, outbox, _, _ = _presenter(service)
        presenter.show(await service.resumable.resume())
        table = service.registry.open_table(GROUP)  # type: ignore[assignment]
        assert table is not None and table.game is not None and table.game.current is not None
        deal = table.game.current
        texts = {slot.chat_id: (text, markup) for slot, text, markup in outbox.shown}
        for seat, player in table.seated():
            text, markup = texts[player.user_id]
            style = RankStyle.RUSSIAN if player == anna else RankStyle.LATIN
            assert "\n".join(hand_lines(deal.hand(seat), ranks=style)) in text
            assert service.registry.card_ranks(player.user_id) == style
            if seat == deal.actor:  # the bid buttons, ranks or not
                assert markup is not None and "♠️" in str(markup.to_dict())
            else:
                assert markup is None
        assert table.settings.ranks == "latin"


async def test_card_buttons_follow_the_players_ranks() -> None:
    async with service_on() as service:
        table = await started(service)
        while table.game.current.phase is not Phase.PLAY:  # type: ignore[union-attr]
            await press(service, table, lambda a: isinstance(a, Bid) and a.contract is None)
        seat, player = actor(table)
        assert table.game is not None and table.game.current is not None
        sv = seat_view(table.game.current, seat)
        for style in (RankStyle.LATIN, RankStyle.RUSSIAN):
            markup = actions_keyboard(table, sv, "ru", ranks=style)
            assert markup is not None
            labels = {b.text for row in markup.inline_keyboard for b in row}
            assert labels == {card(a.card, ranks=style) for a in sv.legal if isinstance(a, Play)}
        played = next(a.card for a in sv.legal if isinstance(a, Play) and a.card.rank.label == "A")
        await press(service, table, lambda a: isinstance(a, Play) and a.card == played)
        assert table.game.current is not None
        pv = public_view(table.game.current)
        assert card(played) in table_text(table, pv, 1)
        table.settings.ranks = RankStyle.RUSSIAN  # the group's choice in the lobby
        assert card(played, ranks=RankStyle.RUSSIAN) in table_text(table, pv, 1)


def test_ranks_are_written_the_russian_way_only_when_asked() -> None:
    hand = [parse_card(c) for c in ("AS", "KS", "10S", "QH", "JH", "7H")]
    assert hand_lines(hand) == ["♠️ A K 10", "♥️ Q J 7"]  # as before
    assert hand_lines(hand, ranks=RankStyle.RUSSIAN) == ["♠️ Т К 10", "♥️ Д В 7"]
    assert card(parse_card("AD"), ranks=RankStyle.RUSSIAN) == "Т♦️"
    assert card(parse_card("AD")) == "A♦️"
    assert re.match(PATTERN, "0:0:Cr") and re.match(PATTERN, "0:0:Na")
    assert not re.match(PATTERN, "0:0:Cx")
    markup = notify_keyboard("ru", NotifyMode.ALWAYS, RankStyle.RUSSIAN)
    labels = [b.text for b in markup.inline_keyboard[-2]]
    assert labels == ["J Q K A", "✅ В Д К Т"]


async def test_a_held_bid_reads_naturally_in_both_languages() -> None:
    async with service_on() as service:
        table = await started(service)
        first, _ = actor(table)
        six_s, six_c = parse_contract("6S"), parse_contract("6C")
        await press(service, table, lambda a: isinstance(a, Bid) and a.contract == six_s)
        await press(service, table, lambda a: isinstance(a, Bid) and a.contract == six_c)
        await press(service, table, lambda a: isinstance(a, Bid) and a.contract is None)
        assert actor(table)[0] == first
        await press(service, table, lambda a: isinstance(a, Bid) and a.contract == six_c)
        assert table.game is not None and table.game.current is not None
        pv = public_view(table.game.current)
        assert f"{name(table, first)} здесь {contract(six_c, 'ru')}" in table_text(table, pv, 1)
        table.settings.lang = "en"
        assert f"{name(table, first)} holds {contract(six_c, 'en')}" in table_text(table, pv, 1)


async def test_a_discard_made_for_the_declarer_is_not_shown_to_him_after_the_first_lead() -> None:
    """Кодекс 3.4.9: after the first lead the declarer may not look at his discard, so the
    note of a discard made for him when his time ran out goes with the first card."""
    clock = ManualClock()
    async with service_on(clock=clock) as service:
        table = await started(service)
        presenter, outbox, _, _ = _presenter(service)
        await press(service, table, lambda a: isinstance(a, Bid) and a.contract is None)
        declarer, player = actor(table)  # second hand: first hand leads, not he
        await press(service, table, lambda a: isinstance(a, Bid) and a.contract == MISERE)
        while not any(isinstance(a, Discard) for a in legal(table)):
            await press(service, table, lambda a: isinstance(a, Bid) and a.contract is None)
        assert table.deadline is not None
        clock.now = table.deadline + 1
        presenter.show(await service.timeout(table.id, table.move))
        deal = table.game.current  # type: ignore[union-attr]
        assert deal is not None and deal.phase is Phase.PLAY and deal.declarer == declarer
        note = "⏰ Время вышло, за вас: снос"

        def mine() -> str:
            return [text for slot, text, _ in outbox.shown if slot.chat_id == player.user_id][-1]

        presenter.show_hand(table, declarer)
        assert note in mine()  # before the first lead he may still look at it
        assert actor(table)[0] != declarer
        await press(service, table, lambda a: isinstance(a, Play))
        presenter.show_hand(table, declarer)
        assert note not in mine()
        assert table.ui.hand_auto.get(declarer) is not None  # kept: he has not moved yet
