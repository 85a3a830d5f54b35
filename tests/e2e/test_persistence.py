"""Durable tables: migrations, the per-deal game log, resume (timers, unshown messages),
the archive with /history, /stats, /top and /export, backups, and the order of updates."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.__main__ import main as bot_main
from bot.core.model import Holder, Status, Table, TableSettings
from bot.core.modes import SheetMode
from bot.core.viewcache import seat_view
from bot.preferans.actions import Whist
from bot.preferans.conventions import Rules
from bot.preferans.game import Game
from bot.preferans.outcome import WhistAnswer
from bot.preferans.seats import Seat
from bot.render.callbacks import action_code, decode
from bot.stats import game_rows, recompute_rows
from bot.telegram.scheduler import JobKind
from bot.telegram.shown import hand_of
from storage import SCHEMA_VERSION, Storage, StorageError, check_schema, lock_database
from storage import archive as archive_mod
from storage.backup import backup
from storage.backup import main as backup_main
from storage.connection import migrations, statements
from tests.bot_helpers import (
    NO_FLOOD,
    Harness,
    Policy,
    button,
    code_of,
    is_alert,
    open_and_start,
    play_deal,
    running_bot,
    simple_policy,
    take_turn,
)
from tests.fakes import FakeTelegram, FakeUser, ManualClock, MessageView

SMALL = TableSettings(pulka=2, turn_time=0, sheet=SheetMode.TEXT)


def _db(tmp_path: Path) -> Path:
    return tmp_path / "bot.sqlite3"


def _rows(path: Path, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(path)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def _six_spades(h: Harness) -> Policy:
    """6♠ by the first hand, both defenders pass: nine presses a deal."""
    first = int(h.deal().first_hand)
    return simple_policy({first: ["b6S"]}, contract="c6S")


async def _play_short_deal(h: Harness) -> None:
    await play_deal(h, _six_spades(h))


async def _play_to_the_end(h: Harness) -> Game:
    for _ in range(20):
        game = h.game()
        if game.over:
            return game
        await _play_short_deal(h)
    raise AssertionError("the game did not end")


def _random_game(rules: Rules, players: int, seed: int, *, deals: int, stop: bool) -> Game:
    names = ["Anna", "Boris", "Vera", "Gleb"][:players]
    game = Game(rules, names)
    rng = random.Random(seed)
    while not game.over and len(game.finished_deals) < deals:
        game.start_deal(rng)
        while game.current is not None:
            game.apply(rng.choice(game.current.legal_actions()))
    if stop and not game.over:
        game.start_deal(rng)
        for _ in range(5):
            assert game.current is not None
            game.apply(rng.choice(game.current.legal_actions()))
        game.stop()
    return game


# ---------------------------------------------------------------------- migrations


def _v1_database(path: Path, tables: list[dict[str, Any]]) -> None:
    """A database as the first version of the bot left it (only migration 001)."""
    number, _, sql = migrations()[0]
    assert number == 1
    con = sqlite3.connect(path)
    try:
        for statement in statements(sql):
            con.execute(statement)
        con.execute("PRAGMA user_version = 1")
        for uid, name in ((501, "Anna"), (502, "Boris"), (503, "Vera")):
            con.execute(
                "INSERT INTO users (user_id, name, lang, private_ok, updated_at) "
                "VALUES (?, ?, 'en', 1, 0)",
                (uid, name),
            )
        for t in tables:
            con.execute(
                "INSERT INTO tables (id, chat_id, owner_id, status, settings, state, record, "
                "move, deadline, created_at, updated_at) VALUES (?, ?, 501, ?, ?, ?, ?, ?, "
                "NULL, 1000, 1000)",
                (
                    t["id"],
                    t["chat_id"],
                    t["status"],
                    json.dumps(t["settings"]),
                    json.dumps(t["state"]),
                    json.dumps(t["record"]),
                    t["move"],
                ),
            )
            for seat, uid in enumerate((501, 502, 503)):
                con.execute("INSERT INTO seats VALUES (?, ?, ?)", (t["id"], seat, uid))
        con.commit()
    finally:
        con.close()


def _state(chat_id: int, deal_no: int) -> dict[str, Any]:
    return {
        "seats": [
            {"user_id": 501, "name": "Anna", "lang": "en"},
            {"user_id": 502, "name": "Boris", "lang": "en"},
            {"user_id": 503, "name": "Vera", "lang": "en"},
        ],
        "table_slot": {"chat_id": chat_id, "message_id": None},
        "hand_slots": {str(s): {"chat_id": 501 + s, "message_id": None} for s in range(3)},
        "deal_no": deal_no,
    }


async def test_an_older_database_is_upgraded_in_place_and_its_games_go_on(tmp_path: Path) -> None:
    fake = FakeTelegram(flood=NO_FLOOD)
    people = [
        fake.add_user(n, language_code="en", started=True, user_id=501 + i)
        for i, n in enumerate(("Anna", "Boris", "Vera"))
    ]
    group = fake.add_group("Preferans club", people)
    rules = Rules.preset("sochi", 2)
    settings = {"players": 3, "convention": "sochi", "pulka": 2, "turn_time": 0, "lang": "en"}
    over = _random_game(rules, 3, 4, deals=3, stop=True)
    playing = _random_game(rules, 3, 5, deals=1, stop=False)
    rng = random.Random(9)
    playing.start_deal(rng)
    for _ in range(4):
        assert playing.current is not None
        playing.apply(playing.current.legal_actions()[0])
    path = _db(tmp_path)
    _v1_database(
        path,
        [
            {
                "id": 1,
                "chat_id": group.id,
                "status": "over",
                "settings": settings,
                "state": _state(group.id, over.deal_count),
                "record": over.to_record(),
                "move": 50,
            },
            {
                "id": 2,
                "chat_id": group.id,
                "status": "playing",
                "settings": settings,
                "state": _state(group.id, playing.deal_count),
                "record": playing.to_record(),
                "move": 60,
            },
        ],
    )
    assert check_schema(str(path)) == 1
    async with running_bot(tmp_path, fake=fake, people=people, group=group) as h:
        assert await h.app.bot_data.storage.schema_version() == SCHEMA_VERSION
        table = h.service.registry.get(2)
        assert table is not None and table.status == "playing"
        assert table.game is not None and table.game.current is not None
        assert table.game.current.actor is not None
        assert table.game.to_record() == playing.to_record()  # rebuilt from its log
        assert h.hand_message(h.user_of_seat(int(table.game.current.actor))) is not None
        await take_turn(h, simple_policy())  # it goes on
        assert table.move == 61
        # the game that ended before archiving existed is archived, with statistics
        await h.say(people[0], "/history")
        status = "finished" if over.finished else "stopped"
        assert "Last games" in h.group_texts()[-1] and status in h.group_texts()[-1]
        # the archived game's deal rows are dropped: its record is read from the archive
        row = await h.app.bot_data.storage.table(1)
        assert row.record == over.to_record()
    deals = _rows(path, "SELECT table_id, COUNT(*) FROM deals GROUP BY table_id ORDER BY 1")
    assert table.game is not None
    assert deals == [(2, table.game.deal_count)]
    header = json.loads(_rows(path, "SELECT record FROM tables WHERE id = 1")[0][0])
    assert "deals" not in header and header["players"] == ["Anna", "Boris", "Vera"]
    assert _rows(path, "SELECT COUNT(*) FROM game_players WHERE table_id = 1") == [(3,)]


def test_a_newer_database_is_refused_at_start_up_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``python -m bot``'s ``main`` in-process: the refusal comes before anything starts
    (tests/e2e/test_startup.py runs the real process for a refused database path)."""
    path = _db(tmp_path)
    con = sqlite3.connect(path)
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    con.commit()
    con.close()
    with pytest.raises(StorageError, match="newer"):
        check_schema(str(path))
    monkeypatch.setenv("BOT_TOKEN", "123:abc")
    monkeypatch.setenv("DATABASE_PATH", str(path))
    status = bot_main()
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "newer than this bot" in lines[0], err
    assert _rows(path, "PRAGMA user_version") == [(SCHEMA_VERSION + 1,)]  # left untouched
    lock_database(str(path)).release()  # and the lock was let go


async def test_migrations_run_in_one_transaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = str(_db(tmp_path))
    good = migrations()
    broken = [*good[:1], (2, "002_broken.sql", "CREATE TABLE x (a INTEGER); SELECT nope FROM y")]
    monkeypatch.setattr("storage.sqlite.migrations", lambda: broken)
    with pytest.raises(StorageError, match="migration 002_broken.sql failed"):
        await Storage.open(path)
    # nothing of the failed run stayed: not even migration 001
    assert _rows(Path(path), "PRAGMA user_version") == [(0,)]
    assert _rows(Path(path), "SELECT name FROM sqlite_master WHERE type = 'table'") == []


# ---------------------------------------------------------------------- the game log


async def test_an_action_writes_only_its_deal_and_the_record_is_the_log(tmp_path: Path) -> None:
    async with running_bot(tmp_path, defaults=SMALL) as h:
        await open_and_start(h)
        storage = h.app.bot_data.storage
        writes: list[dict[str, Any]] = []
        original = storage.save_table

        async def spy(table_id: int, **kw: Any) -> None:
            writes.append(kw)
            await original(table_id, **kw)

        storage.save_table = spy
        await take_turn(h, _six_spades(h))
        acts = [w for w in writes if w["deals"] is not None]
        assert acts and all(w["record"] is None for w in acts)
        assert all(list(w["deals"]) == [1] for w in acts)
        await _play_short_deal(h)  # the deal ends: the whole record once
        assert any(w["record"] is not None for w in writes)
        table = h.table()
        row = await storage.table(table.id)
        assert table.game is not None
        assert row.record == table.game.to_record()
    path = _db(tmp_path)
    assert _rows(path, "SELECT COUNT(*) FROM deals") == [(2,)]
    assert "deals" not in json.loads(_rows(path, "SELECT record FROM tables")[0][0])


# ---------------------------------------------------------------------- resume


async def test_turn_timers_resume_from_the_stored_deadline(tmp_path: Path) -> None:
    clock = ManualClock()
    fake = FakeTelegram(flood=NO_FLOOD)
    settings = TableSettings(turn_time=60, sheet=SheetMode.TEXT)
    async with running_bot(tmp_path, fake=fake, clock=clock, defaults=settings) as h:
        people, group = h.users, h.group
        await open_and_start(h)
        await take_turn(h, simple_policy())
        table = h.table()
        move, deadline = table.move, table.deadline
        assert deadline == pytest.approx(clock.now + 60)
    clock.advance(20)  # restarted before the deadline: the timer waits for the rest
    async with running_bot(
        tmp_path, fake=fake, people=people, group=group, clock=clock, defaults=settings
    ) as h:
        table = h.table()
        assert table.move == move and table.deadline == deadline
        jobs = h.app.job_queue.get_jobs_by_name(f"table:{table.id}")
        # the half-time tick first (40 s left, 30 s at half time), then the rest
        [tick] = jobs
        assert tick.data == ("tick", table.id, move)
        assert tick.next_t.timestamp() == pytest.approx(__import__("time").time() + 10, abs=3)
        clock.advance(10)
        await h.rt.scheduler.on_timer(JobKind.TICK, table.id, move)
        jobs = h.app.job_queue.get_jobs_by_name(f"table:{table.id}")
        assert sorted(j.data for j in jobs) == [
            ("remind", table.id, move),
            ("turn", table.id, move),
        ]
        assert max(j.next_t.timestamp() for j in jobs) == pytest.approx(
            __import__("time").time() + 30, abs=3
        )
    clock.advance(90)  # down past the deadline: it acts at once after the restart
    async with running_bot(
        tmp_path, fake=fake, people=people, group=group, clock=clock, defaults=settings
    ) as h:
        table = h.table()
        await h.fake.wait_until(lambda: table.move == move + 1, timeout=30, what="timeout")
        await h.idle()
        shown = h.table_message()
        assert shown is not None and "ran out of time" in shown.content
        assert table.deadline == pytest.approx(clock.now + 60)


def _sheets_of_deal_1(fake: FakeTelegram, chat_id: int) -> int:
    """Requests that showed the result of deal 1 with the sheet in the group."""
    return sum(
        1
        for c in fake.calls
        if c.method in ("sendMessage", "editMessageText")
        and c.params.get("chat_id") == chat_id
        and "Deal 1:" in str(c.params.get("text"))
        and "Player" in str(c.params.get("text"))
    )


async def test_what_the_group_was_not_shown_is_shown_after_a_restart(tmp_path: Path) -> None:
    fake = FakeTelegram(flood=NO_FLOOD)
    async with running_bot(tmp_path, fake=fake, defaults=SMALL) as h:
        people, group = h.users, h.group
        await open_and_start(h)
        table = h.table()
        slots = [s for s in [h.table_slot(), *h.hand_slots().values()] if s is not None]
        deal1 = [(table.id, s.chat_id, s.kind, s.part, s.message_id) for s in slots]
        lobby = next(m for m in h.fake.bot_messages(group) if "New pulka" in m.content)
        await _play_short_deal(h)
        assert table.unshown.ends == [] and not table.unshown.lobby  # confirmed
        sheets = _sheets_of_deal_1(fake, group.id)
    # as if the bot had died right after committing the end of deal 1
    path = _db(tmp_path)
    state = json.loads(_rows(path, "SELECT state FROM tables")[0][0])
    state["unshown_ends"] = [{"deal_no": 1}]
    state["lobby_unshown"] = True
    con = sqlite3.connect(path)
    con.execute("UPDATE tables SET state = ?", (json.dumps(state),))
    con.executemany(  # (the messages of what was confirmed are not kept any more)
        "INSERT INTO shown (table_id, chat, kind, part, message_id) VALUES (?, ?, ?, ?, ?)",
        [*deal1, (table.id, group.id, "table", 0, lobby.message_id)],
    )
    con.commit()
    con.close()
    async with running_bot(tmp_path, fake=fake, people=people, group=group, defaults=SMALL) as h:
        assert _sheets_of_deal_1(fake, group.id) == sheets + 1  # the result and sheet again
        assert "started" in h.fake.message(group.id, lobby.message_id).content
        table = h.table()
        assert table.unshown.ends == [] and not table.unshown.lobby
        while not h.game().over:
            await _play_to_the_end(h)
        assert "Game over" in h.group_texts()[-1]
        assert not h.table().unshown.settlement
    # the settlement of a finished game that was not confirmed is posted again
    con = sqlite3.connect(path)
    con.execute("UPDATE tables SET state = json_set(state, '$.settlement_shown', json('false'))")
    con.commit()
    con.close()
    async with running_bot(tmp_path, fake=fake, people=people, group=group, defaults=SMALL) as h:
        assert sum("Game over" in t for t in h.group_texts()) == 2
    assert _rows(path, "SELECT json_extract(state, '$.settlement_shown') FROM tables") == [(1,)]


async def test_a_stopped_game_is_archived_and_its_settlement_survives_a_restart(
    tmp_path: Path,
) -> None:
    fake = FakeTelegram(flood=NO_FLOOD)
    async with running_bot(tmp_path, fake=fake, defaults=SMALL) as h:
        people, group = h.users, h.group
        await open_and_start(h)
        await take_turn(h, simple_policy())
        for user in people[:2]:
            await h.say(user, "/stop")
        assert "Game stopped" in h.group_texts()[-1]
    path = _db(tmp_path)
    assert _rows(path, "SELECT status, deals FROM games") == [("stopped", 0)]
    assert _rows(path, "SELECT COUNT(*), SUM(deals) FROM game_players") == [(3, 0)]
    con = sqlite3.connect(path)
    con.execute("UPDATE tables SET state = json_set(state, '$.settlement_shown', json('false'))")
    con.commit()
    con.close()
    async with running_bot(tmp_path, fake=fake, people=people, group=group, defaults=SMALL) as h:
        assert sum("Game stopped" in t for t in h.group_texts()) == 2
        for user in people:  # the unfinished deal's hands are frozen, without buttons
            assert not h.hand(user).buttons
    assert _rows(path, "SELECT COUNT(*) FROM games") == [(1,)]


async def test_a_repeated_press_is_already_done_and_discard_marks_are_idempotent(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path, defaults=SMALL) as h:
        await open_and_start(h)
        first = Seat(h.deal().first_hand)
        bids = simple_policy({first: ["b6S"]})
        for _ in range(3):
            await take_turn(h, bids)
        declarer = h.actor()
        assert declarer is not None
        msg = h.hand(declarer)
        marks = [d for _, d in msg.buttons if d and code_of(d).startswith("t")]
        for _ in range(2):  # pressed twice (an answer lost): still marked once
            qid = h.fake.press(declarer, msg, marks[0], force=True)
            await h.idle()
            assert not is_alert(h.fake.callback_answers[qid])
        picked = h.table().ui.discard_pick[first]
        assert [c.code for c in picked] == [code_of(marks[0])[1:]]
        msg = h.hand(declarer)
        unmark = button(msg, "u" + code_of(marks[0])[1:])
        for _ in range(2):
            h.fake.press(declarer, msg, unmark, force=True)
            await h.idle()
        assert h.table().ui.discard_pick[first] == ()
        # the start button pressed again after the game started
        lobby = next(m for m in h.fake.bot_messages(h.group) if "New pulka" in m.content)
        table = h.table()
        from bot.render.callbacks import encode

        qid = h.fake.press(h.users[0], lobby, encode(table.id, 0, "Lg"), force=True)
        await h.idle()
        answer = h.fake.callback_answers[qid]
        assert not is_alert(answer) and "Already done" in answer["text"]


async def _timed_out(
    h: Harness, clock: ManualClock, code: str
) -> tuple[FakeUser, MessageView, str, int]:
    """The player to act lets his time (60 s) run out holding the ``code`` button: he, his
    hand message, that button's data and the move it was for."""
    user = h.actor()
    assert user is not None
    msg = h.hand(user)
    data = button(msg, code)
    table = h.table()
    move = table.move
    clock.advance(61)
    await h.rt.scheduler.on_timer(JobKind.TURN, table.id, move)
    await h.idle()
    assert table.move == move + 1
    return user, msg, data, move


async def test_his_press_of_what_his_timeout_made_is_already_done_after_a_restart(
    tmp_path: Path,
) -> None:
    """The timer passes for him, the bot is redeployed, then his own «Pass» arrives: the
    same quiet answer as without the restart, not "out of date"."""
    clock = ManualClock()
    fake = FakeTelegram(flood=NO_FLOOD)
    settings = TableSettings(turn_time=60, sheet=SheetMode.TEXT)
    async with running_bot(tmp_path, fake=fake, clock=clock, defaults=settings) as h:
        people, group = h.users, h.group
        await open_and_start(h)
        user, msg, data, move = await _timed_out(h, clock, "bP")
    async with running_bot(
        tmp_path, fake=fake, people=people, group=group, clock=clock, defaults=settings
    ) as h:
        assert h.table().move == move + 1
        calls = len(fake.calls)
        qid = fake.press(user, msg, data, force=True)  # his client still showed «Pass»
        await h.idle()
        assert fake.callback_answer(qid) == {"text": "✓ Already done.", "show_alert": False}
        # answered, and nothing else sent: his buttons are not taken away as out of date
        sent = [c.method for c in fake.calls[calls:] if c.method != "getUpdates"]
        assert sent == ["answerCallbackQuery"]
        assert h.table().move == move + 1


async def test_his_press_of_the_game_s_last_move_his_timer_made_is_already_done(
    tmp_path: Path,
) -> None:
    """The game's last move is the one his timer made (the second defender's pass): his
    own «Pass», arriving after the game ended, and again after a restart, is already done
    (the game is over: no deal left to read his press against)."""
    clock = ManualClock()
    fake = FakeTelegram(flood=NO_FLOOD)
    settings = TableSettings(pulka=2, turn_time=60, sheet=SheetMode.TEXT)
    async with running_bot(tmp_path, fake=fake, clock=clock, defaults=settings) as h:
        people, group = h.users, h.group
        await open_and_start(h)
        policy, policy_deal = _six_spades(h), h.table().deal_no
        for _ in range(200):
            deal, game = h.deal(), h.game()
            assert deal.actor is not None
            trial = Game.from_record(game.to_record())
            last = Whist(deal.actor, WhistAnswer.PASS)
            if last in seat_view(deal, deal.actor).legal:
                trial.apply(last)
                if trial.over:
                    break
            if h.table().deal_no != policy_deal:  # a new deal: 6♠ by its first hand
                policy, policy_deal = _six_spades(h), h.table().deal_no
            await take_turn(h, policy)
        else:
            pytest.fail("the game did not come to its last pass")
        user, msg, data, _ = await _timed_out(h, clock, "wP")
        table = h.table()
        assert table.status is Status.OVER and table.game is not None and table.game.over
        answer = await h.press(user, msg, data, force=True)
        assert answer == {"text": "✓ Already done.", "show_alert": False}
    async with running_bot(
        tmp_path, fake=fake, people=people, group=group, clock=clock, defaults=settings
    ) as h:
        answer = await h.press(user, msg, data, force=True)
        assert answer == {"text": "✓ Already done.", "show_alert": False}


async def test_old_buttons_of_a_message_no_table_keeps_go_away_when_pressed(tmp_path: Path) -> None:
    """A hand message sent just before a crash (its id never saved) keeps its buttons."""
    from telegram import InlineKeyboardButton, InlineKeyboardMarkup

    async with running_bot(tmp_path, defaults=SMALL) as h:
        await open_and_start(h)
        user = h.actor()
        assert user is not None
        msg = h.hand(user)
        rows = [[InlineKeyboardButton(text, callback_data=d) for text, d in msg.buttons if d]]
        orphan = await h.app.bot.send_message(
            user.id, "🃏 Deal 1", reply_markup=InlineKeyboardMarkup(rows)
        )
        await take_turn(h, simple_policy())  # pressed on the real hand message
        orphan_view = h.fake.message(user.id, orphan.message_id)
        other = next(d for _, d in orphan_view.buttons if d and code_of(d) != "bP")
        answer = await h.press(user, orphan_view, other)
        assert is_alert(answer) and "out of date" in answer["text"]
        assert h.fake.message(user.id, orphan.message_id).buttons == []
        assert h.hand_message(user) is not None  # the real one is left alone


# ---------------------------------------------------------------------- archive, commands


async def test_history_stats_top_and_export_of_a_finished_game(tmp_path: Path) -> None:
    async with running_bot(tmp_path, defaults=SMALL) as h:
        anna, boris, vera = h.users
        await h.say(anna, "/history")
        assert "No finished games" in h.group_texts()[-1]
        await open_and_start(h)
        await take_turn(h, _six_spades(h))
        # the record of a game in progress never holds the current deal's hands
        await h.say(anna, "/export")
        doc = h.fake.last_bot_message(h.group)
        assert doc is not None and doc.media is not None and doc.media.kind == "document"
        assert json.loads(doc.media.data)["deals"] == []
        game = await _play_to_the_end(h)
        table = h.table()
        path = _db(tmp_path)
        assert _rows(path, "SELECT status, deals FROM games") == [
            ("finished", len(game.finished_deals))
        ]
        await h.say(anna, "/export")
        doc = h.fake.last_bot_message(h.group)
        assert doc is not None and doc.media is not None
        assert doc.media.file_name == f"pulka-{table.id}.json"
        record = json.loads(doc.media.data)
        assert record == game.to_record()
        assert Game.from_record(record).settlement() == game.settlement()
        assert "preferans-record/1" in doc.content and "python" not in doc.content
        # /history: the game with everybody's result
        await h.say(anna, "/history")
        text = h.group_texts()[-1]
        settlement = game.settlement()
        assert settlement is not None
        assert "finished" in text and f"deals: {len(game.finished_deals)}" in text
        for seat, name in enumerate(game.names):
            v = float(settlement[seat])
            assert name in text
            shown = f"{v:.2f}".rstrip("0").rstrip(".")
            assert (f"+{shown}" if v > 0 else shown) in text
        # /stats of oneself, and of the player replied to
        await h.say(anna, "/stats")
        mine = h.group_texts()[-1]
        assert "Anna" in mine and "In this group:" in mine and "games 1" in mine
        said = h.fake.send_text(boris, h.group, "nice game")
        h.fake.send_text(anna, h.group, "/stats", reply_to=said)
        await h.idle()
        his = h.group_texts()[-1]
        assert "Boris" in his and "Anna" not in his
        # /top: by net whists
        await h.say(vera, "/top")
        top = h.group_texts()[-1].splitlines()[1:]
        order = sorted(range(3), key=lambda s: (-settlement[s], s))
        assert [line.split(". ", 1)[1].split(":")[0] for line in top] == [
            game.names[s] for s in order
        ]
        # the stored statistics are the ones the record gives, and recompute the same
        storage = h.app.bot_data.storage
        holders = [Holder(s, 1, p.user_id, p.name) for s, p in table.seated()]
        expected = {r.user_id: r for r in game_rows(record, holders)}
        for user in h.users:
            totals = await archive_mod.totals(storage, user.id, h.group.id)
            r = expected[user.id]
            assert totals.games == 1 and totals.deals == r.deals == len(game.finished_deals)
            assert totals.contracts_made == r.contracts_made
            assert totals.net_whists == round(r.net_whists, 2)
        assert sum(r.net_whists for r in expected.values()) == pytest.approx(0)
        assert sum(r.contracts_made + r.contracts_failed for r in expected.values()) == sum(
            1 for fd in game.finished_deals if fd.outcome.kind.value == "game"
        )
        before = _rows(path, "SELECT * FROM game_players ORDER BY user_id")
        assert await archive_mod.recompute(storage, recompute_rows) == 1
        assert _rows(path, "SELECT * FROM game_players ORDER BY user_id") == before
        # in a private chat: the player's last game, and his overall statistics
        h.fake.send_text(vera, vera.id, "/export")
        await h.idle()
        exported = h.fake.bot_messages(vera)[-1].media
        assert exported is not None and json.loads(exported.data) == record
        h.fake.send_text(vera, vera.id, "/stats")
        await h.idle()
        assert "games 1" in h.fake.bot_messages(vera)[-1].content
    proc = subprocess.run(
        [sys.executable, "-m", "bot.recompute", str(path)],
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path.cwd())},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0 and "1 game(s)" in proc.stdout, proc.stderr
    assert _rows(path, "SELECT * FROM game_players ORDER BY user_id") == before


def test_statistics_follow_the_seat_holders() -> None:
    rules = Rules.preset("leningrad", 10)
    game = _random_game(rules, 4, 11, deals=6, stop=True)
    record = game.to_record()
    holders = [Holder(Seat(s), 1, 100 + s, n) for s, n in enumerate(["A", "B", "C", "D"])]
    holders.append(Holder(Seat(1), 4, 200, "Newcomer"))
    rows = {r.user_id: r for r in game_rows(record, holders)}
    finished = game.finished_deals
    assert sum(r.deals for r in rows.values()) == 3 * len(finished)  # the dealer sits out
    held_by_b = sum(1 for n, fd in enumerate(finished, 1) if n < 4 and Seat(1) in fd.outcome.active)
    assert rows[101].deals == held_by_b
    assert rows[101].net_whists == 0 and rows[200].seat == 1
    settlement = game.settlement()
    assert settlement is not None
    assert rows[200].net_whists == pytest.approx(float(settlement[1]))
    assert sum(r.net_whists for r in rows.values()) == pytest.approx(0)
    declared = sum(
        r.contracts_made + r.contracts_failed + r.miseres_made + r.miseres_failed
        for r in rows.values()
    )
    assert declared == sum(1 for fd in finished if fd.outcome.declarer is not None)


# ---------------------------------------------------------------------- backups


async def test_backup_while_the_bot_writes_is_complete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(_db(tmp_path))
    store = await Storage.open(path)
    try:
        for i in range(30):
            await store.save_user(i, f"user {i}", "en", True)
        assert Path(path + "-wal").stat().st_size > 0  # not checkpointed yet
        copy = str(tmp_path / "copy.sqlite3")
        assert backup(path, copy) == SCHEMA_VERSION
        await store.save_user(99, "later", "en", True)  # the bot goes on writing
    finally:
        await store.close()
    assert _rows(Path(copy), "SELECT COUNT(*) FROM users") == [(30,)]
    assert _rows(Path(copy), "PRAGMA integrity_check") == [("ok",)]
    assert not Path(copy + "-wal").exists()  # one self-contained file
    again = await Storage.open(copy)  # a copy is a working database
    await again.close()
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path.cwd())}
    out = tmp_path / "cli.sqlite3"
    proc = subprocess.run(
        [sys.executable, "-m", "storage.backup", path, str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert _rows(out, "SELECT COUNT(*) FROM users") == [(31,)]
    capsys.readouterr()
    status = backup_main([str(tmp_path / "missing"), str(out)])  # in-process: the same main
    assert status == 2 and capsys.readouterr().err.startswith("error: no database")


# ---------------------------------------------------------------------- concurrency


def _on_turn(h: Harness, table: Table) -> tuple[FakeUser, MessageView]:
    """The player on turn at ``table`` and his hand message."""
    assert table.game is not None and (deal := table.game.current) is not None
    assert deal.actor is not None
    user = next(u for u in h.users if table.seat_of(u.id) == int(deal.actor))
    slot = hand_of(h.rt.store, table, user.id)
    assert slot is not None and slot.message_id is not None
    return user, h.fake.message(user.id, slot.message_id)


async def test_one_table_at_a_time_in_order_other_tables_do_not_wait(tmp_path: Path) -> None:
    async with running_bot(tmp_path, defaults=SMALL) as h:
        await open_and_start(h)
        a = h.table()
        other = h.fake.add_group("Second club", h.users)
        await h.idle()
        h.group = other
        await open_and_start(h)
        b = h.table()
        assert a.id != b.id
        storage = h.app.bot_data.storage
        original = storage.save_table
        gate = asyncio.Event()

        async def slow(table_id: int, **kw: Any) -> None:
            if table_id == a.id:
                await gate.wait()
            await original(table_id, **kw)

        storage.save_table = slow
        # table A: the player on turn presses three buttons in a row; B: one press
        actor_a, msg_a = _on_turn(h, a)
        datas = [d for _, d in msg_a.buttons if d and code_of(d).startswith("b")][:3]
        codes = [code_of(d) for d in datas]
        qids = [h.fake.press(actor_a, msg_a, d) for d in datas]
        move_b = b.move
        await h.fake.wait_until(lambda: a.move > 0 and not h.fake.pending_updates(), timeout=30)
        actor_b, msg_b = _on_turn(h, b)
        qid_b = h.fake.press(actor_b, msg_b, next(d for _, d in msg_b.buttons if d))
        await h.fake.wait_until(lambda: qid_b in h.fake.callback_answers, timeout=30)
        assert b.move == move_b + 1  # B went on while A's first press still waits
        assert not any(q in h.fake.callback_answers for q in qids)
        gate.set()
        await h.idle()
        answers = [h.fake.callback_answers[q] for q in qids]
        assert not is_alert(answers[0])  # the first press wins...
        assert all(is_alert(x) for x in answers[1:])  # ...the later ones are out of date
        assert a.game is not None and (deal := a.game.current) is not None
        assert len(deal.auction) == 1 and action_code(deal.auction[0]) == codes[0]
        first = decode(datas[0])
        assert first is not None
        assert a.move == first.move + 1
