"""One table that cannot be read never stops the others: at start-up it is set aside
(one log line, its chat named so the group can be told), the rest resume. So is one whose
values read well but would break it (its timer, its messages, its saves, its turns)."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.core.model import Status
from bot.core.service import TableService
from bot.preferans.actions import Action, Bid
from bot.preferans.seats import Seat
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


Chats = dict[str, tuple[int, int, int, Seat]]
"""Each kind of table: its id, chat, move and the seat to act."""


async def _damaged(
    path: Path, kinds: list[str], damage: dict[str, str], choose: Callable[[Action], bool]
) -> Chats:
    """A started game of each kind, in its own chat, one press made (a kind named
    "current deal row" plays its first deal out); then each kind's ``damage`` done to the
    rows of its table."""
    chats = {}
    async with service_on(path) as service:
        for i, kind in enumerate(kinds):
            table = await started(service, chat_id=-1000 - i)
            await press(service, table, choose)
            while kind == "current deal row" and table.deal_no < 2:
                await press(service, table, choose)
            chats[kind] = (table.id, table.chat_id, table.move, actor(table)[0])
    con = sqlite3.connect(path)
    for kind, sql in damage.items():
        con.execute(sql, (chats[kind][0],))
    con.commit()
    con.close()
    return chats


async def _resumed(
    service: TableService, caplog: pytest.LogCaptureFixture, level: int
) -> list[str]:
    """Resume; the lines logged at ``level`` or above."""
    caplog.clear()
    with caplog.at_level(level):
        await service.resumable.resume()
    return [r.getMessage() for r in caplog.records if r.levelno >= level]


async def test_corrupted_tables_are_set_aside_and_the_healthy_ones_resume(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "bot.sqlite3"
    chats = await _damaged(path, ["healthy", *CORRUPT, "healthy too"], CORRUPT, lambda a: True)
    async with service_on(path) as service:
        errors = await _resumed(service, caplog, logging.ERROR)
        assert len(errors) == len(CORRUPT), errors
        assert all("set aside" in e and "\n" not in e for e in errors)
        assert sorted(service.resumable.set_aside, key=str) == sorted(
            (
                (chats[kind][0], chats[kind][1], None if kind == "settings" else "ru")
                for kind in CORRUPT
            ),
            key=str,
        )
        for kind in ("healthy", "healthy too"):
            table_id, chat_id, move, seat = chats[kind]
            table = service.registry.open_table(chat_id)
            assert table is not None and table.id == table_id
            assert table.status is Status.PLAYING and table.move == move
            assert actor(table)[0] == seat
            await press(service, table, lambda a: True)  # and the game goes on
        for kind in CORRUPT:  # the group can start anew; /pulka finds nothing to show
            chat_id = chats[kind][1]
            assert service.registry.open_table(chat_id) is None
            assert await service.registry.last_game(chat_id) is None
            await service.open_lobby(chat_id, PEOPLE[0])
    async with service_on(path) as service:  # set aside for good: no error again
        assert await _resumed(service, caplog, logging.ERROR) == []
        assert service.resumable.set_aside == []


BREAKING = {
    "deadline 1e308": "UPDATE tables SET deadline = 1e308 WHERE id = ?",
    "deadline in ms": "UPDATE tables SET deadline = deadline * 1000 WHERE id = ?",
    "players 5": "UPDATE tables SET settings = json_set(settings, '$.players', 5) WHERE id = ?",
    "players 9": "UPDATE tables SET settings = json_set(settings, '$.players', 9) WHERE id = ?",
    "turn time": "UPDATE tables SET settings = json_set(settings, '$.turn_time', 1e12) "
    "WHERE id = ?",
    "move": "UPDATE tables SET move = 9223372036854775807 WHERE id = ?",
    "no seats": "UPDATE tables SET state = json_set(state, '$.seats', json('[null,null,null]')) "
    "WHERE id = ?",
    "no deal row": "DELETE FROM deals WHERE table_id = ?",
    "current deal row": "DELETE FROM deals WHERE table_id = ? AND deal_no = 2",
    "convention": "UPDATE tables SET settings = json_set(settings, '$.convention', 'x') "
    "WHERE id = ?",
}
"""Rows that read well but whose values would break the table: its timer (a deadline no
timer can hold, a turn time of centuries), its messages (seats that do not exist), every
later save (a move counter at the integer's limit), anybody's turn (nobody seated), or a
game dealt again from a lost deal row."""


def _pass(action: Action) -> bool:
    """Pass every bid (an all-pass deal), play the first card."""
    return not isinstance(action, Bid) or action.contract is None


async def test_a_table_set_aside_names_its_groups_language_when_its_settings_read(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The group is told in its own language: the one its damaged row still names, or
    none (the bot's default then) when its settings cannot be read either."""
    path = tmp_path / "bot.sqlite3"
    damage = {kind: CORRUPT[kind] for kind in ("state", "settings")}
    chats = await _damaged(path, ["state", "settings"], damage, lambda a: True)
    con = sqlite3.connect(path)
    english = "UPDATE tables SET settings = json_set(settings, '$.lang', 'en') WHERE id = ?"
    con.execute(english, (chats["state"][0],))
    con.commit()
    con.close()
    async with service_on(path) as service:
        await _resumed(service, caplog, logging.ERROR)
        assert sorted(service.resumable.set_aside, key=str) == sorted(
            [
                (chats["state"][0], chats["state"][1], "en"),
                (chats["settings"][0], chats["settings"][1], None),
            ],
            key=str,
        )


async def test_values_that_would_break_a_table_set_it_aside_and_the_other_plays(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "bot.sqlite3"
    chats = await _damaged(path, ["healthy", *BREAKING], BREAKING, _pass)
    async with service_on(path) as service:
        lines = await _resumed(service, caplog, logging.WARNING)
        assert len(lines) == len(BREAKING), lines  # one line each, nothing else
        assert all("set aside" in line and "\n" not in line for line in lines)
        assert sorted(service.resumable.set_aside) == sorted(
            (chats[kind][0], chats[kind][1], "ru") for kind in BREAKING
        )
        table_id, chat_id, move, seat = chats["healthy"]
        table = service.registry.open_table(chat_id)
        assert (
            table is not None
            and table.id == table_id
            and list(service.registry.tables) == [table_id]
        )
        assert table.status is Status.PLAYING and table.move == move
        assert actor(table)[0] == seat
        await press(service, table, lambda a: True)  # and the game goes on
        assert table.move == move + 1
        for kind in BREAKING:  # the group can start anew
            assert service.registry.open_table(chats[kind][1]) is None
            await service.open_lobby(chats[kind][1], PEOPLE[0])
    async with service_on(path) as service:  # set aside for good: nothing logged again
        assert await _resumed(service, caplog, logging.WARNING) == []
        assert service.resumable.set_aside == []


async def test_a_last_game_whose_table_cannot_be_read_gives_no_settings(tmp_path: Path) -> None:
    """``/rules`` in private reads the settings of the player's last game from its table:
    a row that cannot be decoded means no such settings (the bot's defaults are shown), not
    an error escaping to the player."""
    path = tmp_path / "bot.sqlite3"
    async with service_on(path) as service:
        table = await started(service)
        for person in PEOPLE[:2]:  # two of three stop the game: it is archived
            await service.vote_stop(table.id, person.user_id)
        assert table.status is Status.OVER
        found = await service.registry.last_game_settings(PEOPLE[0].user_id)
        assert found is not None and found[0] == table.settings
    con = sqlite3.connect(path)
    con.execute(CORRUPT["state"], (table.id,))
    con.commit()
    con.close()
    async with service_on(path) as service:
        assert await service.registry.last_game_settings(PEOPLE[0].user_id) is None
