"""The presenter turns the core's effects into messages: the group's table message from
the public view only, each hand message from its own seat's view only. No network: the
outbox is a recorder."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.core.model import Table
from bot.preferans.cards import Card
from bot.render.text import hand_lines
from bot.telegram.presenter import Presenter
from bot.telegram.shown import MessageStore, Slot
from tests.service.helpers import GROUP, actor, press, service_on, started


@dataclass
class RecordingOutbox:
    """What the presenter asked to send, in order (the outbox's interface, no Telegram)."""

    shown: list[tuple[Slot, str, Any]] = field(default_factory=list)
    posts: list[tuple[int, str]] = field(default_factory=list)
    calls: list[Any] = field(default_factory=list)

    def show(
        self, slot: Slot, text: str, markup: Any = None, *, sound: Any = None, answer: bool = False
    ) -> None:
        self.shown.append((slot, text, markup))

    def show_lazy(self, slot: Slot, render: Any, *, sound: Any = None, epoch: Any = None) -> None:
        content = render() if callable(render) else render  # as if it were sent at once
        if content is not None:
            self.shown.append((slot, *content))

    def post(
        self, chat_id: int, text: str, markup: Any = None, *, done: Any = None, sound: Any = None
    ) -> None:
        self.posts.append((chat_id, text))

    deleted: list[tuple[int, int]] = field(default_factory=list)

    def delete(self, chat_id: int, message_id: int) -> None:
        self.deleted.append((chat_id, message_id))

    def call(self, chat_id: int, run: Any) -> None:
        self.calls.append(run)

    def drop(self, slot: Slot) -> bool:
        return slot.message_id is None


@dataclass
class RecordingSheets:
    ended: list[str] = field(default_factory=list)

    def deal_ended(self, table: Table, result: str, slot: Slot | None = None) -> None:
        self.ended.append(result)

    def game_stopped(self, table: Table) -> None:
        self.ended.append("stopped")


def _presenter(
    service: Any, store: MessageStore | None = None
) -> tuple[Presenter, RecordingOutbox, RecordingSheets, list[int]]:
    outbox, sheets, armed = RecordingOutbox(), RecordingSheets(), []
    presenter = Presenter(service, outbox, sheets, store)  # type: ignore[arg-type]
    presenter.arm = lambda table: armed.append(table.id)
    return presenter, outbox, sheets, armed


def _lines_of(cards: list[Card]) -> list[str]:
    return hand_lines(cards)


async def test_the_group_sees_no_hand_and_each_player_only_his_own() -> None:
    async with service_on() as service:
        table = await started(service)
        presenter, outbox, _, armed = _presenter(service)
        presenter.show(await press(service, table, lambda a: True))
        assert armed == [table.id]
        deal = table.game.current  # type: ignore[union-attr]
        assert deal is not None
        by_chat = {slot.chat_id: text for slot, text, _ in outbox.shown}
        group = by_chat[GROUP]
        for seat, player in table.seated():
            mine = _lines_of(list(deal.hand(seat)))
            assert not any(line in group for line in mine)  # no hand in the group
            text = by_chat[player.user_id]
            assert all(line in text for line in mine)
            for other, _ in table.seated():
                if other != seat:
                    theirs = _lines_of(list(deal.hand(other)))
                    assert not any(line in text for line in theirs if line not in mine)
        # buttons only for the player to act
        seat, player = actor(table)
        markups = {slot.chat_id: markup for slot, _, markup in outbox.shown}
        assert markups[player.user_id] is not None
        assert all(m is None for chat, m in markups.items() if chat not in (player.user_id, GROUP))


async def test_a_deal_end_is_confirmed_only_after_it_was_sent() -> None:
    async with service_on() as service:
        table = await started(service)
        presenter, outbox, sheets, _ = _presenter(service)
        await service.vote_stop(table.id, 1)
        effects = await service.vote_stop(table.id, 2)
        presenter.show(effects)
        assert sheets.ended == ["stopped"]
        assert any("🥇" in text for chat, text in outbox.posts if chat == GROUP)
        assert table.unshown.settlement  # not confirmed until the outbox ran the job
        for run in outbox.calls:
            await run()
        assert not table.unshown.settlement and service.registry.forget(table.id)
