"""Benchmark: a restart with many open tables -- how soon a new user's /start is answered.

    python tests/perf/restart_load.py --tables 1000 200 [--root DIR] [--seed 1]

For each N: N tables in play are written to a real SQLite file by the bot's own code (the
core service, the presenter and the outbox, sending to the fake Telegram in-process; no
updates): three people in their own group each, 0-2 all-pass deals played out and the
current deal under way (bids passed, 0-24 cards played), their messages showing it in the
fake, the deals' ends and the lobbies marked shown, a 5-minute turn half gone (no timer
goes off while the benchmark runs; the players' forced cards do not play themselves).
Then the real bot (``python -m bot``: long polling, SQLite, ``OVERALL_RATE`` at its
default of 30 a second) starts against the fake Bot API served over HTTP with Telegram's
limits on (``FloodLimits()``: 1 a second per private chat, 20 a minute per group, 30 a
second in all), and a new user's ``/start`` is queued the moment the process is spawned.
Measured from the spawn:

- **first poll**: the bot's first ``getUpdates``;
- **/start answered**: the bot's message to the new user (the target: within 10 s);
- **requests re-showing**: every request to the tables' chats until the bot is quiet (no
  request but long polls for ``--quiet`` seconds), by method and outcome;
- **all resumed**: the bot's own line "resumed N table(s) in X s" (background resuming;
  an older bot resumed every table before it polled and has no such line), and the last
  re-showing request.

``--root`` runs another tree of the bot (for comparison: ``git worktree`` or
``git archive <commit> | tar -x -C DIR``); the tables are written by that tree's code too,
so its database has that tree's schema. The script fails (exit status 1) when it measured
nothing: no table written, no answer to /start, or the bot not started.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))

IGNORED = {"getupdates", "getme", "deletewebhook", "setmycommands", "getmycommands"}
"""Requests that are not re-showing a table."""


def fail(why: str) -> None:
    print(f"FAILED: {why}", file=sys.stderr)
    raise SystemExit(1)


async def write_tables(fake: Any, path: str, count: int, seed: int) -> list[int]:
    """``count`` tables in play written by the bot's code (see the module's docstring)."""
    from telegram import Bot

    from bot.core.effects import DealShown
    from bot.core.model import Player, Table, TableSettings
    from bot.core.service import Shown, TableService
    from bot.preferans.actions import Bid, Offer
    from bot.preferans.views import seat_view
    from bot.telegram.outbox import Outbox
    from bot.telegram.presenter import Presenter
    from bot.telegram.sheet import SheetMessages
    from bot.telegram.shown import MessageStore
    from storage import Storage
    from tests.fakes import FakeRequest

    try:  # as the bot does at its start (post_init)
        from bot.telegram.edits import ignore_typed_method_advice
    except ImportError:  # a --root tree from before it: the warning is only noise
        pass
    else:
        ignore_typed_method_advice()
    storage = await Storage.open(path)
    # "text", not SheetMode.TEXT: a tree older than bot/core/modes.py (--root) took a string
    defaults = TableSettings(pulka=20, turn_time=300, sheet="text")  # type: ignore[arg-type]
    service = TableService(storage, seed=seed, defaults=defaults)
    bot = Bot(fake.token, request=FakeRequest(fake), get_updates_request=FakeRequest(fake))
    await bot.initialize()
    outbox = Outbox(bot, private_interval=0.0, group_limit=10**6, group_fast_interval=0.0)
    store = MessageStore(storage)
    presenter = Presenter(service, outbox, SheetMessages(outbox, service, store), store)
    presenter.analysis = False
    outbox.on_sent = store.sent
    rng = random.Random(seed)

    def choose(table: Table) -> Any:
        deal = table.game.current if table.game is not None else None
        assert deal is not None and deal.actor is not None
        legal = seat_view(deal, deal.actor).legal
        passes = [a for a in legal if isinstance(a, Bid) and a.contract is None]
        cards = [a for a in legal if not isinstance(a, Bid | Offer)]
        return passes[0] if passes else rng.choice(cards)

    async def one(i: int) -> int:
        people = [
            fake.add_user(f"Игрок{i}_{s}", language_code="ru", started=True) for s in range(3)
        ]
        group = fake.add_group(f"Клуб {i}", people)
        players = [Player(u.id, u.first_name, "ru") for u in people]
        for p in players:
            await service.registry.remember_user(p, private_ok=True)
            await service.registry.set_autoplay(p, False)  # no forced card plays itself meanwhile
        await service.open_lobby(group.id, players[0], group.title)
        table = service.registry.open_table(group.id)
        assert table is not None
        for p in players:
            await service.sit(table.id, p)
        await service.start(table.id, players[0].user_id)
        last_deal = 1 + rng.choice((0, 1, 2))
        cards = rng.randint(0, 24)
        played = 0
        while table.deal_no < last_deal or played < cards:
            game = table.game
            assert game is not None and game.current is not None
            seat = game.current.actor
            assert seat is not None
            player = table.seats[seat]
            assert player is not None
            before = table.deal_no
            await service.act(table.id, player.user_id, table.move, f"x{table.move}", choose(table))
            played = 0 if table.deal_no != before else played + (game.current.phase.name == "PLAY")
        # what the running bot would have shown: the deals' ends, the lobby, the deal now
        for deal_no in list(table.unshown.ends):
            await service.shown(table, Shown("end", deal_no))
        await service.shown(table, Shown("lobby"))
        presenter.show((DealShown(table),))
        return table.id

    ids: list[int] = []
    for start in range(0, count, 50):  # 50 at a time: their saves share commits
        ids += await asyncio.gather(*(one(i) for i in range(start, min(count, start + 50))))
        await outbox.drain()
    await outbox.drain()
    await store.flush()  # what the messages show
    await outbox.close(1.0)
    await bot.shutdown()
    await storage.close()
    return ids


def arm_turns(path: str, seed: int) -> None:
    """Each table's turn (5 minutes) half gone: its deadline 130-148 s from now, so that
    no timer (at half time, 15 s before the end) goes off while the benchmark runs."""
    rng = random.Random(seed)
    con = sqlite3.connect(path)
    try:
        now = time.time()
        ids = [r[0] for r in con.execute("SELECT id FROM tables WHERE status = 'playing'")]
        con.executemany(
            "UPDATE tables SET deadline = ? WHERE id = ?",
            [(now + rng.uniform(130, 148), i) for i in ids],
        )
        con.commit()
    finally:
        con.close()


def measure(count: int, root: str, seed: int, quiet: float, timeout: float) -> dict[str, Any]:
    from tests.fakes import FakeBotApiServer, FakeTelegram, FloodLimits

    folder = tempfile.mkdtemp(prefix="restart-load-")
    path = os.path.join(folder, "bot.sqlite3")
    fake = FakeTelegram(flood=FloodLimits(enabled=False))
    began = time.perf_counter()
    ids = asyncio.run(write_tables(fake, path, count, seed))
    written = time.perf_counter() - began
    if len(ids) != count:
        fail(f"{len(ids)} tables written, {count} asked")
    print(f"N={count}: tables written in {written:.0f} s ({path})", flush=True)
    arm_turns(path, seed)
    pending = fake.pending_updates()  # the groups' "bot added": handled before the restart
    if pending:
        fake.handle("getUpdates", {"offset": pending[-1]["update_id"] + 1, "timeout": 0})
    fake.flood = FloodLimits()  # Telegram's limits from here on
    server = FakeBotApiServer(fake)
    server.start_in_thread()
    log_path = os.path.join(folder, "bot.log")
    env = dict(os.environ)
    env.update(
        BOT_TOKEN=fake.token,
        TELEGRAM_API_URL=server.root_url,
        DATABASE_PATH=path,
        PREFERANS_ANALYSIS="off",
        LOG_LEVEL="INFO",
        PYTHONPATH=root,
    )
    env.pop("OVERALL_RATE", None)  # the default: 30 a second
    newcomer = fake.add_user("Новичок", language_code="ru")
    first_call = len(fake.calls)
    with open(log_path, "w") as log:
        t0 = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-m", "bot"], env=env, cwd=root, stdout=log, stderr=log
        )
        fake.user_starts_bot(newcomer)  # at start-up
        try:
            answer = fake.wait_until_sync(
                lambda: next(
                    (
                        c
                        for c in fake.calls[first_call:]
                        if c.method == "sendMessage"
                        and str(c.params.get("chat_id")) == str(newcomer.id)
                        and c.status == 200
                    ),
                    None,
                ),
                timeout=timeout,
                what="the answer to /start",
            )
            last = fake.calls[-1].time
            while time.monotonic() < t0 + timeout:  # until the bot is quiet
                time.sleep(0.5)
                calls = [c for c in fake.calls[first_call:] if c.method.lower() not in IGNORED]
                if calls and calls[-1].time > last:
                    last = calls[-1].time
                elif time.monotonic() - max(last, t0) > quiet:
                    break
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
            server.stop()
    text = open(log_path).read()
    if proc.returncode not in (0, -signal.SIGTERM) and "started" not in text:
        fail(f"the bot did not start (see {log_path})")
    calls = fake.calls[first_call:]
    polls = [c for c in calls if c.method == "getUpdates"]
    shows = [
        c
        for c in calls
        if c.method.lower() not in IGNORED
        and str(c.params.get("chat_id")) != str(newcomer.id)
        and c.method != "answerCallbackQuery"
    ]
    kinds: Counter[str] = Counter()
    for c in shows:
        outcome = "ok" if c.status == 200 else str(c.status)
        if c.status == 400 and "not modified" in str((c.response or {}).get("description")):
            outcome = "not modified"
        kinds[f"{c.method} {outcome}"] += 1
    found = re.search(r"resumed (\d+) table\(s\) in ([\d.]+) s", text)
    shutil.rmtree(folder)  # (kept, with the bot's log, when the run failed: see fail())
    return {
        "tables": count,
        "first_poll": polls[0].time - t0 if polls else None,
        "start_answered": answer.time - t0,
        "requests": len(shows),
        "kinds": dict(kinds),
        "chats": len({str(c.params.get("chat_id")) for c in shows}),
        "last_request": (shows[-1].time - t0) if shows else None,
        "resumed_log": float(found.group(2)) if found else None,
        "flood_errors": len(fake.flood_errors),
        "log": log_path,
        "shows": [
            (
                round(c.time - t0, 2),
                c.method,
                c.params.get("chat_id"),
                c.params.get("message_id"),
                repr(str(c.params.get("text", ""))[-70:]),
            )
            for c in shows
        ],
    }


def fmt(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds:.1f} s"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, nargs="+", default=[1000, 200])
    parser.add_argument("--root", default=ROOT, help="the tree of the bot to run")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quiet", type=float, default=8.0)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--verbose", action="store_true", help="list each re-showing request")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    sys.path.insert(0, root)  # the bot's code of that tree (the fake is this tree's)
    sys.path.insert(1, ROOT)
    for count in args.tables:
        r = measure(count, root, args.seed, args.quiet, args.timeout)
        print(
            f"N={r['tables']}: first poll {fmt(r['first_poll'])}, /start answered "
            f"{fmt(r['start_answered'])}, {r['requests']} requests re-showing to "
            f"{r['chats']} chats, last at {fmt(r['last_request'])}, all resumed (log) "
            f"{fmt(r['resumed_log'])}, flood errors {r['flood_errors']}",
            flush=True,
        )
        for kind, n in sorted(r["kinds"].items()):
            print(f"    {kind}: {n}")
        if args.verbose:
            for show in r["shows"]:
                print("   ", *show)
        if r["start_answered"] is None:
            fail("no answer to /start measured")


if __name__ == "__main__":
    main()
