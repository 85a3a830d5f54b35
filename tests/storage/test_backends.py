"""The storage's guarantees, the same on both backends (``target``: a SQLite file or a
PostgreSQL database): the deal log, archiving, what a restart resumes, one bad table set
aside, one failed write rolled back alone, the schema version, the one-process lock."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from storage import (
    SCHEMA_VERSION,
    Storage,
    StorageError,
    archive,
    check_schema,
    is_postgres,
    lock_target,
)
from storage.rows import GameArchive, HolderRow, PlayerRow

GROUP = -1001
HEADER = {
    "format": "preferans-record/1",
    "rules": {"convention": "sochi"},
    "players": ["А", "Б", "В"],
}


def _deal(n: int) -> dict[str, Any]:
    return {"dealer": n % 3, "hands": [["7S", "8S"], ["AH"], ["10D"]], "moves": [{"n": n}]}


def _record(deals: int) -> dict[str, Any]:
    return {**HEADER, "deals": [_deal(n) for n in range(1, deals + 1)]}


def _archive(record: dict[str, Any]) -> GameArchive:
    return GameArchive(
        status="finished",
        convention="sochi",
        pulka=10,
        players=3,
        deals=len(record["deals"]),
        started_at=100.0,
        ended_at=200.0,
        record=record,
        holders=tuple(HolderRow(s, 1, s + 1, n) for s, n in enumerate(("А", "Б", "В"))),
        rows=tuple(
            PlayerRow(s + 1, s, n, deals=len(record["deals"]), net_whists=w)
            for s, (n, w) in enumerate((("А", 12.5), ("Б", -2.5), ("В", -10.0)))
        ),
    )


async def _users(store: Storage) -> None:
    for uid, name in ((1, "А"), (2, "Б"), (3, "В")):
        await store.save_user(uid, name, "ru", True)


async def _save(store: Storage, table_id: int, **kw: Any) -> None:
    args: dict[str, Any] = {
        "status": "playing",
        "settings": {"pulka": 10},
        "state": {"settlement_shown": None, "unshown_ends": []},
        "record": None,
        "move": 1,
        "deadline": None,
        "seats": [1, 2, 3],
    }
    await store.save_table(table_id, **{**args, **kw})


async def _count(store: Storage, sql: str, args: tuple[Any, ...] = ()) -> int:
    rows = await store.fetchall(sql, args)
    return int(rows[0][0])


async def test_the_deal_log_keeps_the_record_across_a_restart(target: str) -> None:
    store = await Storage.open(target)
    try:
        await _users(store)
        tid = await store.create_table(GROUP, 1, {"pulka": 10}, {})
        with pytest.raises(StorageError, match="already has an open table"):
            await store.create_table(GROUP, 2, {}, {})
        await _save(store, tid, record=_record(3), move=5, deadline=1234.5)
        await _save(store, tid, deals={3: {**_deal(3), "moves": []}}, move=6)
        await _save(store, tid, deals={4: _deal(4)}, move=7)
    finally:
        await store.close()
    store = await Storage.open(target)  # a restart
    try:
        expected = _record(4)
        expected["deals"][2] = {**_deal(3), "moves": []}
        row = await store.table(tid)
        assert row is not None and row.record == expected
        assert (row.move, row.deadline, row.chat_id, row.owner_id) == (7, None, GROUP, 1)
        assert await _count(store, "SELECT COUNT(*) FROM deals WHERE table_id = ?", (tid,)) == 4
        assert await store.open_table_ids() == [tid]
        last = await store.last_table(GROUP)
        assert last is not None and last.id == tid
    finally:
        await store.close()


async def test_an_archived_game_keeps_its_record_in_the_archive_alone(target: str) -> None:
    store = await Storage.open(target)
    try:
        await _users(store)
        tid = await store.create_table(GROUP, 1, {}, {})
        await _save(store, tid, record=_record(24))
        over = {"settlement_shown": False, "unshown_ends": []}
        record = _record(25)
        await _save(
            store, tid, status="over", state=over, deals={25: _deal(25)}, archive=_archive(record)
        )
        assert await _count(store, "SELECT COUNT(*) FROM deals") == 0
        assert await _count(store, "SELECT COUNT(*) FROM games") == 1
        row = await store.table(tid)
        assert row is not None and row.record == record
        assert await store.open_table_ids() == [tid]  # its settlement is still to show
        # later saves of the ended table (the whole record) write no deal rows again
        shown = {"settlement_shown": True, "unshown_ends": []}
        await _save(store, tid, status="over", state=shown, record=record)
        assert await _count(store, "SELECT COUNT(*) FROM deals") == 0
        assert await store.open_table_ids() == []
        row = await store.table(tid)
        assert row is not None and row.record == record
        assert await archive.last_record(store, chat_id=GROUP) == (tid, record)
        [game] = await archive.history(store, GROUP)
        assert (game.table_id, game.deals, game.results[0]) == (tid, 25, (0, "А", 12.5))
        totals = await archive.totals(store, 1)
        assert (totals.games, totals.deals, totals.net_whists) == (1, 25, 12.5)
        assert [t.user_id for t in await archive.top(store, GROUP)] == [1, 2, 3]
        assert await archive.recompute(store, lambda rec, holders: _archive(rec).rows) == 1
        assert await _count(store, "SELECT COUNT(*) FROM game_players") == 3
    finally:
        await store.close()


async def test_what_a_restart_resumes_and_a_bad_table_set_aside(target: str) -> None:
    store = await Storage.open(target)
    try:
        await _users(store)
        ids = {}
        states = {
            "lobby": ("lobby", {}),
            "playing": ("playing", {}),
            "ends_unshown": ("over", {"settlement_shown": True, "unshown_ends": [{"deal_no": 2}]}),
            "settlement_due": ("over", {"settlement_shown": False, "unshown_ends": []}),
            "done": ("over", {"settlement_shown": True, "unshown_ends": []}),
            "cancelled": ("cancelled", {}),
        }
        for n, (name, (status, state)) in enumerate(states.items()):
            ids[name] = await store.create_table(GROUP - n, 1, {}, {})
            await _save(store, ids[name], status=status, state=state, record=_record(1))
        bad = await store.create_table(GROUP - 10, 1, {}, {})
        await _save(store, bad, status="over", record=_record(1))
        await store._commit(
            lambda tx: tx.execute("UPDATE tables SET state = ? WHERE id = ?", ("{oops", bad))
        )
        want = [ids[k] for k in ("lobby", "playing", "ends_unshown", "settlement_due")]
        assert await store.open_table_ids() == want
        assert [r.id for r in await store.open_tables()] == want
        assert await store.set_aside(ids["playing"]) == GROUP - 1
        row = await store.table(ids["playing"])
        assert row is not None and row.status == "cancelled"
        assert ids["playing"] not in await store.open_table_ids()
        assert await store.set_aside(99_999) is None
    finally:
        await store.close()


async def test_the_start_up_lists_the_tables(target: str) -> None:
    """What a start-up lists before reading any table (its chat, its people, when it last
    changed; closed ones since a moment)."""
    store = await Storage.open(target)
    try:
        await _users(store)
        await store.save_user(4, "Г", "ru", True)
        lobby = await store.create_table(GROUP, 1, {}, {"waiting": [{"user_id": 4, "name": "Г"}]})
        playing = await store.create_table(GROUP - 1, 1, {}, {})
        await _save(store, playing)
        old = await store.create_table(GROUP - 2, 1, {}, {})
        await _save(store, old, status="over", state={"settlement_shown": True})
        await store._commit(  # closed long ago
            lambda tx: tx.execute("UPDATE tables SET updated_at = 1 WHERE id = ?", (old,))
        )
        closed = await store.create_table(GROUP - 3, 1, {}, {})
        await _save(store, closed, status="over", state={"settlement_shown": True})
        entries = {e.id: e for e in await store.resume_index(closed_since=100.0)}
        assert sorted(entries) == sorted([lobby, playing, closed])
        assert entries[lobby].open and entries[lobby].users == {4}  # waiting to sit down
        assert entries[playing].open and entries[playing].users == {1, 2, 3}
        assert entries[playing].chat_id == GROUP - 1
        assert not entries[closed].open and entries[closed].users == frozenset()
        assert entries[playing].updated_at >= entries[lobby].updated_at
    finally:
        await store.close()


async def test_a_tables_language_reads_on_its_own(target: str) -> None:
    """The group's language of a table whose state is damaged; none if its settings are."""
    store = await Storage.open(target)
    try:
        english = await store.create_table(GROUP, 1, {"lang": "en"}, {})
        broken = await store.create_table(GROUP - 1, 1, {"lang": "en"}, {})
        for sql, table_id in (
            ("UPDATE tables SET state = '{oops' WHERE id = ?", english),
            ("UPDATE tables SET settings = '{oops' WHERE id = ?", broken),
        ):
            await store._commit(lambda tx, sql=sql, i=table_id: tx.execute(sql, (i,)))  # type: ignore[misc]
        assert await store.stored_lang(english) == "en"
        assert await store.stored_lang(broken) is None
        assert await store.stored_lang(99_999) is None
    finally:
        await store.close()


async def test_one_failed_write_is_rolled_back_alone(target: str) -> None:
    store = await Storage.open(target)
    try:
        await _users(store)
        a = await store.create_table(GROUP, 1, {}, {})
        b = await store.create_table(GROUP - 1, 1, {}, {})
        results = await asyncio.gather(
            _save(store, a, record=_record(2), move=3),
            _save(store, b, record=_record(2), move=3, seats=[1, 2, 777]),  # no such user
            store.save_user(4, "Г", "en"),
            return_exceptions=True,
        )
        assert results[0] is None and results[2] is None
        assert isinstance(results[1], Exception)
        row_a, row_b = await store.table(a), await store.table(b)
        assert row_a is not None and row_a.move == 3 and row_a.record == _record(2)
        assert row_b is not None and row_b.move == 0 and row_b.record is None
        user = await store.user(4)
        assert user is not None and user.name == "Г"
    finally:
        await store.close()


async def test_users_and_a_group_that_moves(target: str) -> None:
    store = await Storage.open(target)
    try:
        await _users(store)
        assert (await store.notify_mode(1), await store.card_ranks(1)) == ("always", "latin")
        await store.set_notify_mode(1, "never")
        await store.set_card_ranks(1, "russian")
        await store.set_autoplay(1, False)
        await store.set_private_ok(2, False)
        assert (await store.notify_mode(1), await store.card_ranks(1)) == ("never", "russian")
        assert await store.autoplay(1) is False and await store.autoplay(99) is True
        user = await store.user(2)
        assert user is not None and user.private_ok is False
        tid = await store.create_table(GROUP, 1, {}, {})
        await _save(store, tid, status="over", record=_record(1), archive=_archive(_record(1)))
        await store.move_chat(GROUP, GROUP - 500)
        for name in ("tables", "games", "game_players"):
            sql = f"SELECT COUNT(*) FROM {name} WHERE chat_id = ?"
            assert await _count(store, sql, (GROUP - 500,)) >= 1, name
            assert await _count(store, sql, (GROUP,)) == 0, name
    finally:
        await store.close()


async def test_a_newer_database_is_refused_and_left_as_it_is(target: str) -> None:
    assert check_schema(target) == 0
    store = await Storage.open(target)
    try:
        assert await store.schema_version() == SCHEMA_VERSION
        newer = SCHEMA_VERSION + 1
        if is_postgres(target):
            await store._commit(
                lambda tx: tx.execute("UPDATE schema_version SET version = ?", (newer,))
            )
        else:
            await store._commit(lambda tx: tx.execute(f"PRAGMA user_version = {newer}"))
    finally:
        await store.close()
    with pytest.raises(StorageError, match="newer than this bot"):
        check_schema(target)
    with pytest.raises(StorageError, match="newer than this bot"):
        await Storage.open(target)


@pytest.mark.waits  # on PostgreSQL the refusal waits out the lock's 5 s
async def test_one_bot_process_per_database(target: str) -> None:
    lock = lock_target(target)
    try:
        with pytest.raises(StorageError, match="in use by another bot process"):
            lock_target(target)
    finally:
        lock.release()
    lock_target(target).release()  # free again once released


async def test_a_lost_postgres_connection_is_opened_again(target: str) -> None:
    """The server ends the bot's connection (a restart, a failover): once the driver has seen
    the connection close, the next write goes through on a new connection."""
    if not is_postgres(target):
        pytest.skip("PostgreSQL's connection (SQLite has no server to lose)")
    import asyncpg  # type: ignore[import-untyped]

    store = await Storage.open(target)
    try:
        await _users(store)
        admin = await asyncpg.connect(target)
        try:
            ended = await admin.fetchval(
                "SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        finally:
            await admin.close()
        assert ended == 1
        conn = store._backend._conn  # type: ignore[attr-defined]
        for _ in range(1000):  # the driver reads the closed socket in the event loop
            if conn.is_closed():
                break
            await asyncio.sleep(0.01)
        assert conn.is_closed()
        await store.save_user(5, "Д", "ru")
        user = await store.user(5)
        assert user is not None and user.name == "Д"
    finally:
        await store.close()


async def test_sqlite_writes_on_the_loops_thread_in_one_transaction_a_turn(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite: the saves queued in one turn of the event loop are written together, on the
    loop's own thread (a hop to the database thread and back cost more than the write)."""
    import threading

    import storage.sqlite

    batches: list[tuple[int, int]] = []
    run_jobs = storage.sqlite._run_jobs

    def recorded(conn: Any, jobs: list[Any]) -> Any:
        batches.append((threading.get_ident(), len(jobs)))
        return run_jobs(conn, jobs)

    monkeypatch.setattr(storage.sqlite, "_run_jobs", recorded)
    store = await Storage.open(str(tmp_path / "bot.sqlite3"))
    try:
        await _users(store)
        tables = [await store.create_table(GROUP - n, 1, {}, {}) for n in range(3)]
        batches.clear()
        await asyncio.gather(*(_save(store, t, move=5) for t in tables))
        assert batches == [(threading.get_ident(), 3)]
        rows = [await store.table(t) for t in tables]
        assert [row.move if row is not None else None for row in rows] == [5, 5, 5]
    finally:
        await store.close()
