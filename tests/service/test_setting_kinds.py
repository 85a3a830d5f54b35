"""The table's and the players' modes are enums whose values are the strings stored since
the first version: an old saved table loads with them and is saved back byte for byte."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from bot.core.codec import settings_from_json, settings_json
from bot.core.model import Status
from bot.core.modes import NotifyMode, RankStyle, RobotPace, SheetMode
from tests.service.helpers import GROUP, PEOPLE, press, service_on, started

OLD_SETTINGS = (
    '{"players": 3, "convention": "sochi", "pulka": 10, "turn_time": 60, "options": {}, '
    '"lang": "ru", "sheet": "both", "robot_pace": "fast", "ranks": "russian", '
    '"robot_level": "strong", "hints": false}'
)
"""A table's settings column as an older version of the bot wrote it."""


def test_old_settings_load_as_kinds_and_are_written_back_unchanged() -> None:
    settings = settings_from_json(json.loads(OLD_SETTINGS))
    assert settings.sheet is SheetMode.BOTH
    assert settings.robot_pace is RobotPace.FAST
    assert settings.ranks is RankStyle.RUSSIAN
    assert json.dumps(settings_json(settings)) == OLD_SETTINGS
    # plain strings, not enum members, go to the JSON writers
    assert {type(v) for v in settings_json(settings).values()} == {int, str, dict, bool}


async def test_an_old_saved_table_resumes_with_its_modes(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    async with service_on(path) as service:
        table = await started(service)
        await service.registry.set_notify_mode(PEOPLE[1], NotifyMode.SLOW)
        await service.registry.set_card_ranks(PEOPLE[2], RankStyle.RUSSIAN)
    con = sqlite3.connect(path)
    # the same data in another layout: the save after the resume rewrites it
    spaced = json.dumps(json.loads(OLD_SETTINGS), indent=1)
    con.execute("UPDATE tables SET settings = ? WHERE id = ?", (spaced, table.id))
    con.commit()
    con.close()
    async with service_on(path) as service:
        await service.resumable.resume()
        again = service.registry.open_table(GROUP)
        assert again is not None and again.status is Status.PLAYING
        assert again.settings.sheet is SheetMode.BOTH
        assert again.settings.robot_pace is RobotPace.FAST
        assert again.settings.ranks is RankStyle.RUSSIAN
        assert await service.registry.notify_mode(PEOPLE[0].user_id) is NotifyMode.ALWAYS
        assert await service.registry.notify_mode(PEOPLE[1].user_id) is NotifyMode.SLOW
        await service.registry.load_ranks(PEOPLE[2].user_id)
        assert service.registry.card_ranks(PEOPLE[2].user_id) is RankStyle.RUSSIAN
        assert service.registry.card_ranks(PEOPLE[0].user_id) is RankStyle.LATIN
        await press(service, again, lambda a: True)
    con = sqlite3.connect(path)
    [(stored,)] = con.execute("SELECT settings FROM tables WHERE id = ?", (table.id,))
    con.close()
    assert stored == OLD_SETTINGS
