"""The lobby through the core service: seats, settings, start, cancel, expiry."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core import effects as fx
from bot.core.errors import AlreadyDone, Rejected
from bot.core.model import Player, Status
from bot.render.keyboards import lobby_keyboard
from bot.render.lobby import lobby_text
from tests.fakes import ManualClock
from tests.service.helpers import (
    GROUP,
    PEOPLE,
    STRANGER,
    kinds,
    lobby_of,
    of,
    open_table,
    service_on,
)


async def test_a_lobby_opens_once_per_chat_and_is_saved() -> None:
    async with service_on() as service:
        effects = await service.open_lobby(GROUP, PEOPLE[0], "Клуб")
        assert kinds(effects) == ["LobbyShown", "TimerChanged"]
        table = effects[0].table
        assert table.status is Status.LOBBY and table.deadline is not None
        with pytest.raises(Rejected) as err:
            await service.open_lobby(GROUP, PEOPLE[1])
        assert err.value.key == "table_exists"
        row = await service.storage.table(table.id)
        assert row is not None and row.status == "lobby" and row.settings["pulka"] == 10


async def test_sitting_needs_the_private_chat_first() -> None:
    async with service_on() as service:
        await service.open_lobby(GROUP, PEOPLE[0])
        table = service.registry.open_table(GROUP)
        assert table is not None
        effects = await service.sit(table.id, STRANGER)
        assert kinds(effects) == ["MustStartPrivate", "LobbyShown"]
        assert table.seat_of(STRANGER.user_id) is None
        await service.registry.remember_user(STRANGER, private_ok=True)
        effects = await service.sit(table.id, STRANGER)
        [seated] = of(effects, fx.Seated)
        assert seated.seat == 0 and table.seat_of(STRANGER.user_id) == 0
        with pytest.raises(Rejected, match="err.already"):
            await service.sit(table.id, STRANGER)
        await service.stand(table.id, STRANGER.user_id)
        assert table.seat_of(STRANGER.user_id) is None
        with pytest.raises(Rejected, match="err.not_seated"):
            await service.stand(table.id, STRANGER.user_id)


async def test_a_full_table_and_the_owners_settings() -> None:
    async with service_on() as service:
        table = await lobby_of(service, 3)
        await service.registry.remember_user(STRANGER, private_ok=True)
        with pytest.raises(Rejected, match="err.full"):
            await service.sit(table.id, STRANGER)
        with pytest.raises(Rejected, match="err.owner_only"):
            await service.change_setting(table.id, PEOPLE[1].user_id, "pulka")
        with pytest.raises(Rejected, match="err.owner_only"):
            await service.show_settings(table.id, PEOPLE[1].user_id, True)
        await service.show_settings(table.id, PEOPLE[0].user_id, True)
        assert table.ui.settings_open
        await service.change_setting(table.id, PEOPLE[0].user_id, "players")
        assert len(table.seats) == 4 and table.seats[3] is None
        await service.change_setting(table.id, PEOPLE[0].user_id, "jumps")
        assert table.settings.options == {"jumps": True}
        await service.change_setting(table.id, PEOPLE[0].user_id, "jumps")
        assert table.settings.options == {}  # back to the preset: no override kept
        with pytest.raises(Rejected, match="err.stale"):
            await service.change_setting(table.id, PEOPLE[0].user_id, "no such setting")
        row = await service.storage.table(table.id)
        assert row is not None and row.settings["players"] == 4


async def test_start_needs_every_seat_and_a_seated_player() -> None:
    async with service_on() as service:
        table = await lobby_of(service, 2)
        with pytest.raises(Rejected, match="err.not_full"):
            await service.start(table.id, PEOPLE[0].user_id)
        await service.registry.remember_user(PEOPLE[2], private_ok=True)
        await service.sit(table.id, PEOPLE[2])
        with pytest.raises(Rejected, match="err.not_seated"):
            await service.start(table.id, STRANGER.user_id)
        effects = await service.start(table.id, PEOPLE[1].user_id)
        assert kinds(effects) == ["LobbyClosed", "DealShown", "TimerChanged"]
        assert table.status is Status.PLAYING and table.game is not None
        assert table.game.current is not None and table.deal_no == 1
        with pytest.raises(AlreadyDone):  # pressed again: its answer was lost
            await service.start(table.id, PEOPLE[1].user_id)
        with pytest.raises(Rejected, match="err.stale"):
            await service.stand(table.id, PEOPLE[1].user_id)


async def test_cancel_by_the_owner_and_expiry_by_the_clock() -> None:
    clock = ManualClock()
    async with service_on(clock=clock) as service:
        table = await lobby_of(service, 1)
        with pytest.raises(Rejected, match="err.owner_only"):
            await service.cancel(table.id, PEOPLE[1].user_id)
        effects = await service.cancel(table.id, PEOPLE[0].user_id)
        [closed] = of(effects, fx.LobbyClosed)
        assert closed.status is Status.CANCELLED and table.status is Status.CANCELLED
        assert service.registry.open_table(GROUP) is None
        await service.open_lobby(GROUP, PEOPLE[0])
        second = service.registry.open_table(GROUP)
        assert second is not None
        assert kinds(await service.expire(second.id)) == ["TimerChanged"]  # not due yet
        clock.advance(service.lobby_ttl + 1)
        assert kinds(await service.expire(second.id)) == ["LobbyClosed", "TimerChanged"]
        assert second.status is Status.EXPIRED
        assert service.registry.forget(second.id) and service.registry.get(second.id) is None
        with pytest.raises(Rejected, match="err.stale"):
            await service.sit(second.id, PEOPLE[1])


async def test_the_chat_keeps_its_tables_language_after_the_table_closes() -> None:
    """/history, /stats, /top and /stop answer in the group's language, not the caller's."""
    async with service_on() as service:
        assert await service.registry.chat_lang(GROUP) is None
        english = Player(5, "Ed", "en")
        await service.open_lobby(GROUP, english, "Club")
        table = service.registry.open_table(GROUP)
        assert table is not None and await service.registry.chat_lang(GROUP) == "en"
        await service.cancel(table.id, english.user_id)
        assert service.registry.open_table(GROUP) is None
        assert await service.registry.chat_lang(GROUP) == "en"
        assert await service.registry.chat_lang(GROUP - 1) is None


async def test_one_who_never_opened_the_private_chat_is_shown_waiting(tmp_path: Path) -> None:
    """He pressed «Сесть» without the private chat: the lobby lists him and says how to open
    it, until he sits down (or stands up); a restart keeps him listed."""
    path = tmp_path / "bot.sqlite3"
    async with service_on(path) as service:
        table = await lobby_of(service, 1)
        effects = await service.sit(table.id, STRANGER)
        assert kinds(effects) == ["MustStartPrivate", "LobbyShown"]
        assert table.seat_of(STRANGER.user_id) is None and table.waiting == [STRANGER]
        text = lobby_text(table)
        assert (
            "⏳ Ещё не открыли чат с ботом: Дина. Нажмите «Сесть» ещё раз, а в открывшемся "
            "чате с ботом — «Запустить»: туда придут ваши карты." in text
        )
        assert kinds(await service.sit(table.id, STRANGER)) == ["MustStartPrivate"]  # listed once
        assert table.waiting == [STRANGER]
    async with service_on(path) as service:
        await service.resumable.resume()
        table = open_table(service)
        assert table is not None and table.waiting == [STRANGER]
        assert kinds(await service.stand(table.id, STRANGER.user_id)) == ["LobbyShown"]
        assert table.waiting == [] and "Дина" not in lobby_text(table)
        await service.sit(table.id, STRANGER)
        await service.registry.remember_user(STRANGER, private_ok=True)  # he pressed Start
        [seated] = of(await service.sit(table.id, STRANGER), fx.Seated)
        assert seated.player == STRANGER and table.waiting == []
        assert "Ещё не открыли" not in lobby_text(table)


async def test_a_full_lobby_asks_for_start_and_sends_no_empty_row() -> None:
    async with service_on() as service:
        table = await lobby_of(service, 2)
        assert "Нажмите «Сесть»" in lobby_text(table)
        await service.registry.remember_user(PEOPLE[2], private_ok=True)
        await service.sit(table.id, PEOPLE[2])
        text = lobby_text(table)
        assert "Нажмите «Сесть»" not in text
        assert text.endswith("Все места заняты — любой из сидящих может нажать «Начать».")
        rows = lobby_keyboard(table).inline_keyboard
        assert [len(row) for row in rows] == [2, 1, 2]  # no computer row: no seat, no robot
