"""What was played, read through the core (``service.archive``): the Telegram side's
/history, /stats, /top, /export and /pulka never read the storage past the service."""

from __future__ import annotations

from bot.core.model import Status
from bot.preferans.conventions import Rules
from bot.preferans.game import Game
from tests.service.helpers import GROUP, PEOPLE, STRANGER, service_on, started


async def test_a_stopped_game_is_read_back_by_chat_and_by_player() -> None:
    async with service_on() as service:
        table = await started(service)
        for p in PEOPLE[:2]:  # two of three stop the game
            await service.vote_stop(table.id, p.user_id)
        assert table.status is Status.OVER and table.game is not None
        record = table.game.to_record()
        archive = service.archive
        [game] = await archive.games(chat_id=GROUP, limit=5)
        assert (game.table_id, game.status, game.title) == (table.id, "stopped", "Клуб")
        assert await archive.games(user_id=PEOPLE[1].user_id, limit=5) == [game]
        assert await archive.games(user_id=STRANGER.user_id, limit=5) == []
        assert await archive.last_of_chat(GROUP) == (table.id, record)
        assert await archive.last_of_player(PEOPLE[2].user_id) == (table.id, record)
        assert await archive.last_of_player(STRANGER.user_id) is None
        assert (await archive.totals(PEOPLE[0].user_id, GROUP)).games == 1
        assert (await archive.totals(PEOPLE[0].user_id, GROUP - 1)).games == 0
        assert {s.user_id for s in await archive.top(GROUP, 10)} == {p.user_id for p in PEOPLE[:3]}
        assert await archive.top(GROUP, 10, robots=True) == []


async def test_a_chats_game_the_archive_does_not_hold_is_read_from_its_table() -> None:
    """A game over before the archive existed (or not archived yet): /export in the group
    still finds its record in the table's row."""
    async with service_on() as service:
        game = Game(Rules.preset("sochi", 10), ["Анна", "Борис", "Вера"])
        game.stop()
        storage = service.storage
        table_id = await storage.create_table(GROUP, PEOPLE[0].user_id, {}, {})
        await storage.save_table(
            table_id,
            status="over",
            settings={},
            state={},
            record=game.to_record(),
            move=1,
            deadline=None,
            seats=None,
        )
        assert await service.archive.games(chat_id=GROUP) == []
        assert await service.archive.last_of_chat(GROUP) == (table_id, game.to_record())
        assert await service.archive.last_of_chat(GROUP - 1) is None
