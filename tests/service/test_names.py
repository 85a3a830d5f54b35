"""Names that show nothing get a stand-in naming the seat, in the record as well; bidi
controls are removed."""

from __future__ import annotations

from pathlib import Path

from bot.core.model import Player, Status
from bot.core.names import clean_name, named
from bot.preferans.game import Game
from tests.service.helpers import GROUP, PEOPLE, actor, press, service_on

BLANK = ["   ", "\u3000", "\u00a0\u00a0", "\u200b\u200d\ufeff", "\u202e\u2066 \u2069"]


def stand_in(lang: str, number: int) -> str:
    return f"{'Игрок' if lang == 'ru' else 'Player'} {number}"


def test_bidi_controls_are_removed_and_invisible_names_are_empty() -> None:
    for raw in BLANK:
        assert clean_name(raw) == "", repr(raw)
    assert clean_name("\u202eАнна Каренина\u202c") == "Анна Каренина"
    assert clean_name("  Борис\u3000 \u00a0Годунов ") == "Борис Годунов"
    assert clean_name("\u2067عمر\u2069\u200f") == "عمر"
    assert clean_name("👨\u200d👩") == "👨\u200d👩"  # a joiner inside a visible name stays
    player = Player(5, "\u3000")
    assert named(player, 2, "ru", stand_in).name == "Игрок 3"
    assert named(Player(5, "Вера"), 2, "ru", stand_in) == Player(5, "Вера")


async def test_blank_names_play_are_recorded_and_resume_after_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    people = [Player(p.user_id, raw) for p, raw in zip(PEOPLE[:3], BLANK[1:4], strict=True)]
    async with service_on(path) as service:
        service.stand_in = stand_in
        await service.open_lobby(GROUP, people[0], "Клуб")
        table = service.registry.open_table(GROUP)
        assert table is not None
        for p in people:
            await service.registry.remember_user(p, private_ok=True)
            await service.sit(table.id, p)
        assert table.names() == ["Игрок 1", "Игрок 2", "Игрок 3"]
        await service.start(table.id, people[0].user_id)
        await press(service, table, lambda a: True)
        seat, _ = actor(table)
        move = table.move
        row = await service.storage.table(table.id)
        assert row is not None and row.record is not None
        assert row.record["players"] == ["Игрок 1", "Игрок 2", "Игрок 3"]
        Game.from_record(row.record)  # what bot.replay reads
    async with service_on(path) as service:
        await service.resumable.resume()
        again = service.registry.open_table(GROUP)
        assert again is not None and again.status is Status.PLAYING
        assert again.move == move and actor(again)[0] == seat
        assert again.game is not None and again.game.names == ["Игрок 1", "Игрок 2", "Игрок 3"]
