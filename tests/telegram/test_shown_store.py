"""Which message shows what is the Telegram side's own (bot/telegram/shown.py): a message
sent is written to its own row without the table being saved again, read back after a
restart, sent anew where a player must get a new one, and forgotten once its deal's end
was shown; a group upgraded gets one new lobby."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from bot.core import effects as fx
from bot.telegram.shown import MessageStore
from storage import ShownRow
from tests.service.helpers import GROUP, PEOPLE, all_pass, lobby_of, service_on, started
from tests.telegram.test_presenter import _presenter

NEW_GROUP = -1_000_000_000_100


async def test_a_sent_message_is_its_own_row_and_the_table_is_not_saved_again(
    tmp_path: Path,
) -> None:
    path = tmp_path / "bot.sqlite3"
    async with service_on(path) as service:
        table = await started(service)
        store = MessageStore(service.storage)
        presenter, outbox, _, _ = _presenter(service, store)
        presenter.show((fx.DealShown(table),))
        group = store.get(table.id, "table", GROUP, 1)
        hand = store.get(table.id, "hand", PEOPLE[0].user_id, 1)
        assert group is not None and hand is not None
        assert {id(s) for s, _, _ in outbox.shown} == {
            id(group),
            *map(id, store.of_kind(table.id, "hand")),
        }
        saves: list[int] = []
        save_table = service.storage.save_table

        async def spy(table_id: int, **kw: Any) -> None:
            saves.append(table_id)
            await save_table(table_id, **kw)

        service.storage.save_table = spy  # type: ignore[method-assign]
        group.message_id = 501  # as the outbox sets it once Telegram took the message
        await store.sent(group)
        assert saves == []  # the core's table is not touched by a message sent
        assert await service.storage.shown_rows(table.id) == [
            ShownRow(table.id, GROUP, "table", 1, 501)
        ]
        hand.message_id = 502
        group.shown, hand.shown = "d1", "d2"  # what they show, as the outbox notes it
        await store.flush()
        rows = sorted(await service.storage.shown_rows(table.id), key=lambda r: r.message_id)
        assert rows == [
            ShownRow(table.id, GROUP, "table", 1, 501, "d1"),
            ShownRow(table.id, PEOPLE[0].user_id, "hand", 1, 502, "d2"),
        ]
        assert saves == []
    async with service_on(path) as service:  # the bot restarted
        await service.resumable.resume()
        again = MessageStore(service.storage)
        await again.load(table.id)
        group = again.get(table.id, "table", GROUP, 1)
        assert group is not None and (group.message_id, group.shown) == (501, "d1")
        hand = again.get(table.id, "hand", PEOPLE[0].user_id, 1)
        assert hand is not None and (hand.message_id, hand.shown) == (502, "d2")


async def test_a_hand_asked_for_again_and_a_seat_taken_over_are_new_messages() -> None:
    async with service_on() as service:
        table = await started(service)
        presenter, outbox, _, _ = _presenter(service)
        store = presenter.store
        presenter.show((fx.DealShown(table),))
        user = PEOPLE[1]
        old = store.get(table.id, "hand", user.user_id, 1)
        assert old is not None
        old.message_id = 600
        seat = table.seat_of(user.user_id)
        assert seat is not None
        presenter.show((fx.HandShown(table, seat),))  # the same message, edited
        assert outbox.shown[-1][0] is old
        presenter.show(await service.unblocked(user))  # /start again: a new message
        new = store.get(table.id, "hand", user.user_id, 1)
        assert new is not None and new is not old and new.message_id is None
        assert outbox.shown[-1][0] is new


async def test_a_deals_messages_are_forgotten_once_the_group_saw_it_end(
    tmp_path: Path,
) -> None:
    async with service_on(tmp_path / "bot.sqlite3") as service:
        table = await started(service)
        presenter, outbox, _, _ = _presenter(service, MessageStore(service.storage))
        presenter.analysis = False
        store = presenter.store
        presenter.show((fx.DealShown(table),))
        for n, slot in enumerate(
            [*store.of_kind(table.id, "table"), *store.of_kind(table.id, "hand")]
        ):
            slot.message_id = 700 + n
        await store.flush()
        assert len(await service.storage.shown_rows(table.id)) == 4
        presenter.show(await all_pass(service, table))
        assert table.deal_no == 2 and store.get(table.id, "table", GROUP, 1) is not None
        for run in outbox.calls:  # the end is confirmed once the outbox sent it
            await run()
        assert table.unshown.ends == []
        assert store.get(table.id, "table", GROUP, 1) is None
        assert store.of_kind(table.id, "hand") == [
            s for s in store.of_kind(table.id, "hand") if s.part == 2
        ]
        await store.flush()
        assert await service.storage.shown_rows(table.id) == []  # deal 2's not sent yet


async def test_a_group_upgraded_gets_one_new_lobby_however_often_it_is_told() -> None:
    """The upgrade comes twice (the update and a refused send) at the same time: the
    table moves once (the second is a no-op) and the new group gets one lobby message."""
    async with service_on() as service:
        table = await lobby_of(service, 2)
        presenter, outbox, _, _ = _presenter(service)
        presenter.show((fx.LobbyShown(table),))
        old = presenter.store.get(table.id, "table", GROUP, 0)
        assert old is not None
        told = [service.migrate(GROUP, NEW_GROUP), service.migrate(GROUP, NEW_GROUP)]
        first, second = await asyncio.gather(*told)
        assert len(first) == 1 and second == ()
        presenter.show(first)
        assert table.chat_id == NEW_GROUP
        [slot] = [slot for slot, _, _ in outbox.shown if slot.chat_id == NEW_GROUP]
        assert slot is not old
