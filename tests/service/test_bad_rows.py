"""One table that cannot be read never stops the others: at start-up it is set aside
(one log line, its chat named so the group can be told), the rest resume (issue 17, item 4)."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest

from bot.core.model import Status
from tests.service.helpers import PEOPLE, actor, press, service_on, started

CORRUPT = {
    "state": "UPDATE tables SET state = '{\"seats\": [' WHERE id = ?",
    "settings": "UPDATE tables SET settings = 'not json' WHERE id = ?",
    "record": "UPDATE tables SET record = '{\"format\":' WHERE id = ?",
    "deal row": "UPDATE deals SET data = '{oops' WHERE table_id = ?",
    "deal content": "UPDATE deals SET data = '{\"dealer\": 7}' WHERE table_id = ?",
    "deadline": "UPDATE tables SET deadline = 'soon' WHERE id = ?",
    "seats": "UPDATE tables SET state = '{\"seats\": 5}' WHERE id = ?",
}


async def test_corrupted_tables_are_set_aside_and_the_healthy_ones_resume(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "bot.sqlite3"
    chats = {}
    async with service_on(path) as service:
        for i, kind in enumerate(["healthy", *CORRUPT, "healthy too"]):
            table = await started(service, chat_id=-1000 - i)
            await press(service, table, lambda a: True)
            chats[kind] = (table.id, table.chat_id, table.move, actor(table)[0])
    con = sqlite3.connect(path)
    for kind, sql in CORRUPT.items():
        con.execute(sql, (chats[kind][0],))
    con.commit()
    con.close()
    async with service_on(path) as service:
        with caplog.at_level(logging.ERROR):
            await service.resume()
        errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
        assert len(errors) == len(CORRUPT), errors
        assert all("set aside" in e and "\n" not in e for e in errors)
        assert sorted(service.set_aside) == sorted(
            (chats[kind][0], chats[kind][1]) for kind in CORRUPT
        )
        for kind in ("healthy", "healthy too"):
            table_id, chat_id, move, seat = chats[kind]
            table = service.open_table(chat_id)
            assert table is not None and table.id == table_id
            assert table.status is Status.PLAYING and table.move == move
            assert actor(table)[0] == seat
            await press(service, table, lambda a: True)  # and the game goes on
        for kind in CORRUPT:  # the group can start anew; /pulka finds nothing to show
            chat_id = chats[kind][1]
            assert service.open_table(chat_id) is None
            assert await service.last_game(chat_id) is None
            await service.open_lobby(chat_id, PEOPLE[0])
    async with service_on(path) as service:  # set aside for good: no error again
        caplog.clear()
        with caplog.at_level(logging.ERROR):
            await service.resume()
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert service.set_aside == []
