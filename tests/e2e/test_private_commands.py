"""``/rules``, ``/history`` and ``/top`` in the private chat: the player's own tables and
games, each under its group's title, and never the bot's defaults for a table he played."""

from __future__ import annotations

import logging
import re
import sqlite3
from pathlib import Path

import pytest

from bot.core.model import TableSettings
from bot.core.modes import SheetMode
from bot.render.i18n import t
from tests.bot_helpers import (
    Harness,
    button,
    is_alert,
    open_and_start,
    play_deal,
    running_bot,
    simple_policy,
)
from tests.fakes import FakeChat, FakeUser

SOCHI = TableSettings(convention="sochi", pulka=2, turn_time=0, sheet=SheetMode.TEXT)
LENINGRAD = TableSettings(convention="leningrad", pulka=2, turn_time=0, sheet=SheetMode.TEXT)
DAY = r"\d\d\.\d\d\.\d{4}"


async def _ask(h: Harness, user: FakeUser, command: str) -> str:
    """``command`` sent in ``user``'s private chat; the bot's answer."""
    before = len(h.fake.bot_messages(user))
    h.fake.send_text(user, user.id, command)
    await h.idle()
    answers = h.fake.bot_messages(user)[before:]
    assert len(answers) == 1, [m.content for m in answers]
    return answers[0].content


async def _play_out(h: Harness) -> None:
    """6♠ by the first hand and two passes, deal after deal, until the game is over."""
    for _ in range(20):
        table = h.table()
        if table.game is not None and table.game.over:
            return
        assert table.game is not None and table.game.current is not None
        first = int(table.game.current.first_hand)
        await play_deal(h, simple_policy({first: ["b6S"]}, contract="c6S"))
    raise AssertionError("the game did not end")


async def _start_in(h: Harness, group: FakeChat, users: list[FakeUser]) -> None:
    """``/newgame`` in ``group``, ``users`` sit down, the first starts the game."""
    await h.say(users[0], "/newgame", chat=group)
    lobby = h.fake.last_bot_message(group)
    assert lobby is not None
    for user in users:
        lobby = h.fake.message(group.id, lobby.message_id)
        data = button(lobby, "Ls")
        assert not is_alert(await h.press(user, lobby, data))
    lobby = h.fake.message(group.id, lobby.message_id)
    data = button(lobby, "Lg")
    assert not is_alert(await h.press(users[0], lobby, data))


async def test_private_rules_history_and_top_speak_of_the_players_own_games(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path, lang="ru", defaults=SOCHI) as h:
        anna = h.users[0]
        # nothing played yet: a new table's rules, said to be that
        text = await _ask(h, anna, "/rules")
        assert text.startswith("Вы ещё не играли. Правила нового стола")
        assert "Сочинка, пуля до 2" in text
        assert await _ask(h, anna, "/history") == t("ru", "hist.mine_none")
        assert await _ask(h, anna, "/top") == re.sub(r"<[^>]+>", "", t("ru", "top.in_private"))
        # a Sochi game in play: its table, under the group's title
        await open_and_start(h)
        text = await _ask(h, anna, "/rules")
        assert text.startswith("🃏 Ваш стол в группе «Preferans club»:\nСочинка, пуля до 2\n")
        await _play_out(h)
        # then a Leningrad game, played to its end
        h.service.registry.defaults = LENINGRAD
        await open_and_start(h)
        await _play_out(h)
        text = await _ask(h, anna, "/rules")
        head, rules = text.split("\n", 1)
        assert re.fullmatch(
            rf"Сейчас вы не за столом\. Правила вашей последней игры "
            rf"\(группа «Preferans club», {DAY}\):",
            head,
        ), head
        assert rules.startswith("Ленинградка, пуля до 2\n") and "Сочинка" not in rules
        # /history: her games in every group, newest first, each with its group
        lines = (await _ask(h, anna, "/history")).split("\n")
        assert lines[0] == "📜 Ваши последние игры"
        games = [line for line in lines if re.match(r"\d+\. ", line)]
        assert len(games) == 2
        assert re.fullmatch(
            rf"1\. {DAY} · «Preferans club» · Ленинградка, пуля до 2 · сдач: \d+ · закончена",
            games[0],
        ), games[0]
        assert "Сочинка, пуля до 2" in games[1]
        assert "Boris" in lines[lines.index(games[0]) + 1]


async def test_private_rules_show_every_table_the_player_sits_at(tmp_path: Path) -> None:
    async with running_bot(tmp_path, lang="ru", defaults=SOCHI, users=4) as h:
        anna, boris, vera, gleb = h.users
        second = h.fake.add_group("Второй клуб", h.users)
        await open_and_start(h)
        h.service.registry.defaults = LENINGRAD
        await _start_in(h, second, [anna, boris, gleb])
        text = await _ask(h, anna, "/rules")
        first, other = text.split("\n\n")
        assert first.startswith("🃏 Ваш стол в группе «Preferans club»:\nСочинка, пуля до 2\n")
        assert other.startswith("🃏 Ваш стол в группе «Второй клуб»:\nЛенинградка, пуля до 2\n")
        # who sits at one table only sees that one
        text = await _ask(h, vera, "/rules")
        assert text.startswith("🃏 Ваш стол в группе «Preferans club»:") and "\n\n" not in text


@pytest.mark.parametrize(
    ("command", "answer", "logged", "damages"),
    [
        (
            "/pulka",
            "pulka.unreadable",
            "the sheet",
            ('{"format":', '{"format": "preferans-record/1", "deals": 7}'),
        ),
        ("/export", "export.unreadable", "the record", ('{"format":',)),
    ],
)
async def test_private_command_on_a_game_whose_record_cannot_be_read(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    command: str,
    answer: str,
    logged: str,
    damages: tuple[str, ...],
) -> None:
    """His last game's record is damaged (not JSON; for the sheet also JSON no game is
    built from): /pulka and /export in private say so (and the log warns) instead of
    leaving him with no answer; the row is left as it was."""
    async with running_bot(tmp_path) as h:
        anna = h.users[0]
        await open_and_start(h)
        for user in h.users[:2]:
            await h.say(user, "/stop")
        table = h.table()
        assert table.game is not None and table.game.over
        del h.service.registry.tables[table.id]  # as a finished game's table is, once shown
        for damage in damages:
            con = sqlite3.connect(tmp_path / "bot.sqlite3")
            con.execute("UPDATE games SET record = ? WHERE table_id = ?", (damage, table.id))
            con.commit()
            con.close()
            caplog.clear()
            with caplog.at_level(logging.WARNING):
                assert await _ask(h, anna, command) == t("en", answer)
            [line] = [r for r in caplog.records if r.levelno >= logging.WARNING]
            assert line.getMessage().startswith(f"{logged} of user {anna.id}'s last game")
            con = sqlite3.connect(tmp_path / "bot.sqlite3")
            [(kept,)] = con.execute("SELECT record FROM games WHERE table_id = ?", (table.id,))
            con.close()
            assert kept == damage  # left as it was
