"""Benchmark: one bot process on one core serving N tables, beside the smallest PTB bot.

    python tests/perf/bot_load.py --quick                      # N = 50
    python tests/perf/bot_load.py --tables 50 200 --deals 2
    python tests/perf/bot_load.py --tables 200 --profile       # py-spy on the bot at N = 200

For every N it starts, side by side, four bots, each with its own fake Bot API HTTP server
(``tests/fakes``, Telegram's per-chat flood limits on) and its own simulated players:

- ``ours``: the real bot as a separate process (``bot.app.build_application`` +
  ``bot.app.run``, long polling, a real SQLite file) with ``OVERALL_RATE=0`` (its overall
  limit off; the fake's global limit raised);
- ``ours_default``: the same bot at its default settings (``OVERALL_RATE`` 30 a second,
  the fake enforcing Telegram's ~30 a second across chats);
- ``baseline``: the smallest PTB bot (``tests/perf/baseline_bot.py``: answer the press,
  edit the pressed message) on the bot's own transport -- the bar;
- ``baseline_httpx``: the same on PTB's default client (httpx's default pool, no pacing),
  shown for reference only.

``BENCH_LOOP=uvloop`` runs ours on uvloop's event loop, ``BASELINE_LOOP=uvloop`` the
baselines (``pip install uvloop`` first; it is not a dependency of the bot).

The sides run in alternating short rounds (``--round`` seconds each: ours, baseline,
reference, ours at defaults, again), so that all of them meet the same load of the shared
machine. A side's players act only during its rounds; what they would have done meanwhile
(at most one press per player) is done in the first second of their next round (the bots
keep running; freezing them instead made every resumed round start with a burst). CPU and
updates per second are per second of the side's rounds. All bots are pinned to one core,
the fakes and the players to the other.

Our players seat N tables of 3 (arriving ``--ramp`` s apart) and press a random button of
their hand message as soon as it shows one (the buttons are exactly the legal actions; a
discard is two card toggles and the confirm button) for ``--deals`` deals; then two
players vote ``/stop``. The baselines replay the presses of ours' round just before, at
the same offsets from the round's start, from the same number of users (a press also
waits until the previous press of its table was edited).

Latency of a press is measured at the fake, the same way for every side
(:func:`press_latency`): from the moment the callback query was queued for getUpdates to
(a) its ``answerCallbackQuery`` ("first response") and (b) the first message update in
each chat the press changes, after the answer ("last call"; ours: the group's table
message, the presser's hand and the next player's, a discard toggle only the presser's
hand; the baselines: the pressed message). "Handling" counts each of these from the
moment the bot's own pacing let that call go when that is later than the press (a bot that
does not pace: from the press).

Our bot's timers (a computer move, a forced card, a turn's tick, reminder and timeout) are
watched in its process (:func:`_watch_timers`): how many ran, how late, and whether any was
dropped (due, never run nor cancelled): a dropped timer fails the run. The CPU of its
garbage collector is watched there too (:func:`_watch_gc`); ``--profile`` sorts py-spy's
samples of the bot by layer (:func:`profile_layers`). ``BENCH_LOOP_STATS=1`` in the
environment counts the bots' event loop iterations, wake-ups and the callbacks they ran
(:func:`watch_loop`; a diagnostic: its CPU is in the figures of that run).

Run by hand, not by CI. Needs Linux (/proc, sched_setaffinity); ``--profile`` needs
``pip install py-spy``. The temporary folder (databases, logs) is removed unless ``--keep``.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import math
import os
import random
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

DEAL_RE = re.compile(r"(?:Deal|Сдача) (\d+)\b")
GAME_CODE = re.compile(r"^[bcwdptuk]")
SEND_EDIT = ("sendMessage", "editMessageText")
DECODED = frozenset(SEND_EDIT)
"""The methods whose answers the players read (the others' are only counted)."""


def child_bot() -> None:
    """``--child-bot``: run the real bot in this process (what ``python -m bot`` runs)."""
    if os.environ.get("BENCH_TRACEMALLOC"):  # first: the imports' memory is traced too
        from tests.perf.memtrace import install

        install(os.environ["BENCH_TRACEMALLOC"])
    if os.environ.get("BENCH_TRACE") == "1":
        _install_trace()
    if os.environ.get("BENCH_TIMERS"):
        _watch_timers(os.environ["BENCH_TIMERS"])
    if os.environ.get("BENCH_GC"):
        _watch_gc(os.environ["BENCH_GC"])
    if os.environ.get("BENCH_LOOP_FILE"):
        watch_loop(os.environ["BENCH_LOOP_FILE"])
    old_client = os.environ.get("BENCH_OLD_CLIENT")
    if old_client:  # an experiment: the bot on another BaseRequest (e.g. the old bot/http.py)
        import importlib.util

        from telegram.request import BaseRequest

        import bot.app

        spec = importlib.util.spec_from_file_location("old_client", old_client)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)

        def lean_request(connections: int = 32) -> BaseRequest:
            request: BaseRequest = module.LeanRequest(connections, pool_timeout=None)
            return request

        bot.app.default_request = lean_request
    if os.environ.get("BENCH_LOOP") == "uvloop":
        import uvloop  # type: ignore[import-not-found]  # not a dependency: pip install uvloop

        uvloop.install()
    from bot.__main__ import main

    sys.exit(main())


def watch_loop(path: str) -> None:
    """``BENCH_LOOP_STATS``: the event loop's work, counted (a diagnostic, not for the CPU
    figures: counting costs CPU): its iterations, its wake-ups (a wait for I/O or a timer
    that lasted over 0.1 ms: the process slept), and the callbacks it ran by what they run
    (a task's step by its coroutine), written to ``path`` at exit. Installed in the bot's
    process and in the baseline's alike."""
    import asyncio.base_events
    import asyncio.events
    import atexit
    import selectors

    ran: Counter[str] = Counter()
    counts = {"iterations": 0, "wakeups": 0}
    run = asyncio.events.Handle._run
    loop_class: Any = asyncio.base_events.BaseEventLoop  # (_run_once: not in typeshed)
    run_once = loop_class._run_once
    select = selectors.EpollSelector.select

    def name(handle: Any) -> str:
        callback = handle._callback
        owner = getattr(callback, "__self__", None)
        if isinstance(owner, asyncio.Task):
            coro = owner.get_coro()
            return "task " + getattr(coro, "__qualname__", type(coro).__name__)
        return getattr(callback, "__qualname__", type(callback).__name__)

    def counted_run(self: Any) -> None:
        ran[name(self)] += 1
        run(self)

    def counted_once(self: Any) -> None:
        counts["iterations"] += 1
        run_once(self)

    def counted_select(self: Any, timeout: float | None = None) -> Any:
        began = time.perf_counter()
        ready = select(self, timeout)
        if time.perf_counter() - began > 1e-4:
            counts["wakeups"] += 1
        return ready

    asyncio.events.Handle._run = counted_run  # type: ignore[method-assign]
    loop_class._run_once = counted_once
    selectors.EpollSelector.select = counted_select  # type: ignore[method-assign]

    def dump() -> None:
        with open(path, "w") as fh:
            json.dump({**counts, "callbacks": sum(ran.values()), "ran": ran.most_common(60)}, fh)

    atexit.register(dump)


def _watch_gc(path: str) -> None:
    """``BENCH_GC``: the CPU the bot's cyclic garbage collector takes, per generation (its
    collections and their thread's CPU seconds), and the names of the bot's threads by id,
    written to ``path`` on ``SIGUSR1`` (the run's end, while every thread still lives) and
    at exit. Never on a timer: a thread waking every few seconds was charged ~10 ms of CPU
    a wake-up (the kernel counts CPU by its 100 Hz tick), ~2.5 % of the bot's CPU."""
    import atexit
    import gc

    spent = [0.0, 0.0, 0.0]
    runs = [0, 0, 0]
    began = [0.0]
    names: dict[str, str] = {}

    def dump(*_: Any) -> None:
        names.update({str(t.native_id): t.name for t in threading.enumerate()})
        tmp = path + ".tmp"
        with open(tmp, "w") as fh:
            json.dump(
                {
                    "collections": runs,
                    "cpu_s": spent,
                    "frozen": gc.get_freeze_count(),
                    "threads": names,
                },
                fh,
            )
        os.replace(tmp, path)

    def timed(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began[0] = time.thread_time()
            return
        generation = info["generation"]
        spent[generation] += time.thread_time() - began[0]
        runs[generation] += 1

    gc.callbacks.append(timed)
    signal.signal(signal.SIGUSR1, dump)
    atexit.register(dump)


TIMER_GRACE = 5.0
"""Seconds past its time after which a timer that neither ran nor was cancelled counts as
dropped."""


def _watch_timers(path: str) -> None:
    """``BENCH_TIMERS``: record every job the bot puts on its job queue (a computer move, a
    forced card, a turn's reminder or timeout...): when it was due, whether it ran and how
    late, or was cancelled; a summary is written to ``path`` at exit (not on a timer: see
    :func:`_watch_gc`). A job done is folded into its kind's counts at once, so the summary
    looks only at the jobs still waiting (its CPU is the bot's as measured)."""
    import atexit

    from telegram.ext import Job, JobQueue

    waiting: dict[str, tuple[str, float]] = {}
    """Job id -> (kind, due (monotonic)) of the jobs neither run nor cancelled yet."""
    kinds: dict[str, dict[str, Any]] = {}

    def counts(kind: str) -> dict[str, Any]:
        return kinds.setdefault(kind, {"armed": 0, "ran": 0, "cancelled": 0, "late": []})

    run_once = JobQueue.run_once
    schedule_removal = Job.schedule_removal

    def watched(self: Any, callback: Any, when: Any, *args: Any, **kwargs: Any) -> Any:
        data = kwargs.get("data", args[0] if args else None)
        kind = str(data[0]) if isinstance(data, tuple) and data else "other"
        due = time.monotonic() + float(when)
        ids: list[str] = []

        async def run(context: Any) -> None:
            if waiting.pop(ids[0], None) is not None:
                k = counts(kind)
                k["ran"] += 1
                k["late"].append(max(0.0, time.monotonic() - due))
            await callback(context)

        job = run_once(self, run, when, *args, **kwargs)
        ids.append(job.job.id)
        waiting[job.job.id] = (kind, due)
        counts(kind)["armed"] += 1
        return job

    def removed(self: Any) -> None:
        found = waiting.pop(self.job.id, None)
        if found is not None:
            counts(found[0])["cancelled"] += 1
        schedule_removal(self)

    stopped: list[float] = []
    stop = JobQueue.stop

    async def stopping(self: Any, *args: Any, **kwargs: Any) -> None:
        stopped.append(time.monotonic())  # what was due after this is not dropped
        await stop(self, *args, **kwargs)

    JobQueue.run_once = watched  # type: ignore[method-assign]
    Job.schedule_removal = removed  # type: ignore[method-assign]
    JobQueue.stop = stopping  # type: ignore[method-assign]

    def dump() -> None:
        now = stopped[0] if stopped else time.monotonic()
        out: dict[str, dict[str, Any]] = {}
        for kind, k in list(kinds.items()):
            late = sorted(k["late"])
            out[kind] = {
                "armed": k["armed"],
                "ran": k["ran"],
                "cancelled": k["cancelled"],
                "dropped": 0,
                "pending": 0,
                "late_p50": late[len(late) // 2] if late else 0.0,
                "late_p99": pct(late, 0.99) if late else 0.0,
                "late_max": late[-1] if late else 0.0,
                "late_over_1s": sum(1 for x in late if x > 1.0),
            }
        for kind, due in list(waiting.values()):
            out[kind]["dropped" if due < now - TIMER_GRACE else "pending"] += 1
        tmp = path + ".tmp"
        with open(tmp, "w") as fh:
            json.dump(out, fh)
        os.replace(tmp, path)

    atexit.register(dump)


def _install_trace() -> None:
    """``BENCH_TRACE=1``: every 5 s, log how long storage calls, HTTP requests and the event
    loop's turns took in the bot process (to see what a press waits for)."""
    import functools
    import logging

    import storage

    stats: dict[str, list[float]] = defaultdict(list)
    log = logging.getLogger("bench.trace")

    def timed(name: str, fn: Any) -> Any:
        @functools.wraps(fn)
        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            try:
                return await fn(*args, **kwargs)
            finally:
                stats[name].append(time.perf_counter() - t)

        return wrapper

    for name in ("save_table", "save_user", "user", "create_table", "set_private_ok"):
        fn = getattr(storage.Storage, name, None)
        if fn is not None and asyncio.iscoroutinefunction(fn):
            setattr(storage.Storage, name, timed(f"db.{name}", fn))
    import aiosqlite

    aiosqlite.Connection._execute = timed(  # type: ignore[method-assign]
        "sqlite_call", aiosqlite.Connection._execute
    )
    from bot.telegram.transport import AiohttpRequest

    AiohttpRequest.do_request = timed("http", AiohttpRequest.do_request)  # type: ignore[method-assign]
    beat = [time.monotonic()]
    main_thread = threading.get_ident()

    def watchdog() -> None:
        """Log where the loop's thread is when the loop has not turned for 150 ms."""
        import traceback

        reported = 0.0
        while True:
            time.sleep(0.03)
            last = beat[0]
            if time.monotonic() - last > 0.15 and last != reported:
                reported = last
                frame = sys._current_frames().get(main_thread)
                if frame is not None:
                    stack = "".join(traceback.format_stack(frame, limit=12))
                    log.warning("trace: loop stalled >150 ms in:\n%s", stack)

    threading.Thread(target=watchdog, daemon=True).start()

    async def lag() -> None:
        next_report = time.monotonic() + 5
        while True:
            t = time.perf_counter()
            beat[0] = time.monotonic()
            await asyncio.sleep(0.05)
            beat[0] = time.monotonic()
            stats["loop_lag"].append(time.perf_counter() - t - 0.05)
            if time.monotonic() >= next_report:
                next_report += 5
                parts = []
                for key, values in sorted(stats.items()):
                    if not values:
                        continue
                    values.sort()
                    parts.append(
                        f"{key} n={len(values)} p50={values[len(values) // 2] * 1000:.1f}ms "
                        f"max={values[-1] * 1000:.0f}ms"
                    )
                    values.clear()
                log.warning("trace: %s", "; ".join(parts))

    original = asyncio.BaseEventLoop.run_forever

    started: list[bool] = []

    def run_forever(self: Any) -> None:
        if not started:
            started.append(True)
            self.create_task(lag())
        original(self)

    asyncio.BaseEventLoop.run_forever = run_forever  # type: ignore[method-assign]


# ---------------------------------------------------------------------- the fake, with hooks


def _make_fake_class() -> Any:
    from tests.fakes import FakeTelegram

    class BenchFake(FakeTelegram):
        """A FakeTelegram that keeps a compact call log and reports every call to a hook.

        The fake's own full log (params and answers of every call) would hold gigabytes
        at N = 1000, so ``_record`` keeps only (time, method, ok) per chat.
        """

        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.hook: Any = None
            self.by_chat: dict[int, list[tuple[float, str, bool]]] = defaultdict(list)
            self.answers: dict[str, tuple[float, dict[str, Any]]] = {}
            self.answer_errors: list[str] = []
            self.methods: Counter[str] = Counter()
            self.handed: dict[str, float] = {}
            self.updates_handed: list[float] = []
            self.requests: list[float] = []
            """When each of the bot's requests but getUpdates came."""
            self.server_errors: Counter[str] = Counter()
            """Method -> answers that were not 200 nor a flood or refusal (4xx): the fake
            failing (a 5xx) means the benchmark measures nothing."""

        def _record(
            self, method: str, params: dict[str, Any], now: float, status: Any, body: Any
        ) -> None:
            self.methods[method] += 1
            if isinstance(status, str) or status >= 500:
                self.server_errors[method] += 1
            if method == "getUpdates":
                return
            self.requests.append(now)
            ok = status == 200
            if isinstance(body, bytes | bytearray) and (not ok or method in DECODED):
                body = json.loads(body)  # the fake answers with JSON bytes, decoded when read
            if method == "answerCallbackQuery":
                qid = str(params.get("callback_query_id"))
                if ok:
                    self.answers[qid] = (now, params)
                else:  # e.g. "query is too old": answered after Telegram's ~15 s
                    self.answer_errors.append(str((body or {}).get("description")))
            else:
                chat_id = params.get("chat_id")
                if isinstance(chat_id, int):
                    self.by_chat[chat_id].append((now, method, ok))
            if self.hook is not None:
                self.hook(method, params, now, ok, body)

        def _updates_batch(self, p: Any) -> list[dict[str, Any]]:
            batch: list[dict[str, Any]] = super()._updates_batch(p)
            now = self.clock()
            for update in batch:
                query = update.get("callback_query")
                key = query["id"] if query else f"u{update['update_id']}"
                if key not in self.handed:
                    self.handed[key] = now
                    self.updates_handed.append(now)
            return batch

    return BenchFake


def _is_alert(params: dict[str, Any]) -> bool:
    return params.get("show_alert") in (True, "true", "True", 1, "1") or bool(params.get("url"))


def _buttons(markup: dict[str, Any] | None) -> list[tuple[str, str]]:
    if not markup:
        return []
    return [
        (b.get("text", ""), b["callback_data"])
        for row in markup.get("inline_keyboard", [])
        for b in row
        if "callback_data" in b
    ]


def _code(data: str) -> str:
    return data.split(":", 2)[-1]


def _move(data: str) -> int:
    parts = data.split(":", 2)
    return int(parts[1], 36) if len(parts) == 3 else -1


# ---------------------------------------------------------------------- simulated players


@dataclass(slots=True)
class Press:
    qid: str
    table: int
    user: int
    code: str
    kind: str  # "action", "toggle" (discard card), "lobby"
    t: float
    answer_t: float | None = None
    alert: bool = False
    last_t: float | None = None
    late: bool = False
    """The answer came too late for Telegram (the query had expired)."""
    round: int = 0
    """The round (of the interleaved run) the press was made in."""


@dataclass
class Tab:
    idx: int
    group: Any
    users: list[Any]
    state: str = "new"
    started: set[int] = field(default_factory=set)
    lobby_mid: int | None = None
    lobby_data: dict[str, str] = field(default_factory=dict)
    sits: int = 0
    start_t: float | None = None
    stop_t: float | None = None
    done_t: float | None = None
    keys: dict[int, tuple[Any, ...]] = field(default_factory=dict)
    presses: list[Press] = field(default_factory=list)


class Players:
    """Plays N tables of 3 against our bot; runs inside the fake server's event loop.

    Players act only while their side's round is on (:meth:`set_active`). What they would
    have done meanwhile (at most one press per player: the bot waits for it) is done when
    their next round begins, spread over its first ``spread`` seconds as presses come in a
    steady game, not all in the same instant.
    """

    def __init__(
        self, fake: Any, tables: int, deals: int, seed: int, lang: str, ramp: float
    ) -> None:
        from bot.render.i18n import t

        self.fake = fake
        self.ramp = ramp
        self.deals = deals
        self.rng = random.Random(seed)
        self.stopped_prefix = re.sub(r"<[^>]+>", "", t(lang, "res.stopped")).strip()
        self.tabs: list[Tab] = []
        self.user_at: dict[int, tuple[Tab, int]] = {}
        self.group_at: dict[int, Tab] = {}
        self.presses: dict[str, Press] = {}
        self.skipped = 0
        self.done = 0
        self.errors: list[str] = []
        self.round = -1
        self.active = False
        self.held: list[tuple[Any, tuple[Any, ...]]] = []
        self.spread = 1.0
        self.think = 0.0
        """Seconds a player thinks before each game press (0: at once)."""
        self.pings: list[float] = []
        """Per turn notification: seconds since its player's own last press (inf: none)."""
        self.spread_rng = random.Random(seed + 1)  # apart from the players' choices
        for i in range(tables):
            users = [
                fake.add_user(f"P{i}-{k}", language_code=lang, username=f"p{i}_{k}")
                for k in range(3)
            ]
            group = fake.add_group(f"Стол {i}", users, announce=False)
            tab = Tab(i, group, users)
            self.tabs.append(tab)
            self.group_at[group.id] = tab
            for k, u in enumerate(users):
                self.user_at[u.id] = (tab, k)

    # -------------------------------------------------------------- acting

    def set_active(self, active: bool) -> None:
        """A round of this side begins (the first with the tables' arrival), or ends."""
        self.active = active
        if active:
            self.round += 1
            if self.round == 0:
                self.kick()
            loop = asyncio.get_running_loop()
            held, self.held = self.held, []
            for fn, args in held:
                loop.call_later(self.spread_rng.uniform(0, self.spread), fn, *args)

    def kick(self) -> None:
        """Tables arrive one every ``ramp`` seconds: their players press Start."""
        loop = asyncio.get_running_loop()
        for i, tab in enumerate(self.tabs):
            loop.call_later(i * self.ramp, self._arrive, tab)

    def _arrive(self, tab: Tab) -> None:
        if not self.active:
            self.held.append((self._arrive, (tab,)))
            return
        tab.state = "starting"
        for u in tab.users:
            self.fake.user_starts_bot(u)

    def _press(self, tab: Tab, ui: int, chat_id: int, mid: int, data: str, kind: str) -> None:
        if not self.active:
            self.held.append((self._press, (tab, ui, chat_id, mid, data, kind)))
            return
        t = self.fake.clock()
        try:
            qid = self.fake.press(tab.users[ui], (chat_id, mid), data)
        except (ValueError, KeyError):
            self.skipped += 1  # the keyboard changed before the press: wait for the next one
            return
        press = Press(qid, tab.idx, ui, _code(data), kind, t, round=self.round)
        self.presses[qid] = press
        if kind == "lobby":
            if press.code == "Lg":
                tab.start_t = t
        else:
            tab.presses.append(press)

    def _say(self, tab: Tab, ui: int, text: str) -> None:
        if not self.active:
            self.held.append((self._say, (tab, ui, text)))
            return
        self.fake.send_text(tab.users[ui], tab.group, text)

    def _sit_all(self, tab: Tab) -> None:
        assert tab.lobby_mid is not None
        for ui in range(3):
            self._press(tab, ui, tab.group.id, tab.lobby_mid, tab.lobby_data["Ls"], "lobby")

    def _start(self, tab: Tab) -> None:
        assert tab.lobby_mid is not None
        tab.state = "playing"
        self._press(tab, 0, tab.group.id, tab.lobby_mid, tab.lobby_data["Lg"], "lobby")

    def _stop(self, tab: Tab) -> None:
        tab.stop_t = self.fake.clock()
        self._say(tab, 0, "/stop")
        self._say(tab, 1, "/stop")

    # -------------------------------------------------------------- watching

    def on_call(self, method: str, params: dict[str, Any], now: float, ok: bool, body: Any) -> None:
        loop = asyncio.get_running_loop()
        if method == "answerCallbackQuery":
            press = self.presses.get(str(params.get("callback_query_id")))
            if press is None or press.answer_t is not None:
                return
            press.answer_t = now  # a late answer still tells when the bot got to it
            press.late = not ok
            press.alert = ok and _is_alert(params)
            tab = self.tabs[press.table]
            if press.alert:
                self.errors.append(f"table {tab.idx}: press {press.code} refused: {params}")
            if press.code == "Ls" and not press.alert:
                tab.sits += 1
                if tab.sits == 3:
                    loop.call_soon(self._start, tab)
            return
        if not ok or method not in SEND_EDIT:
            return
        result = body["result"]
        chat_id = result["chat"]["id"]
        text = result.get("text", "")
        if chat_id < 0:
            if chat_id not in self.group_at:
                return
            tab = self.group_at[chat_id]
            if tab.state == "newgame" and method == "sendMessage":
                data = {_code(d): d for _, d in _buttons(result.get("reply_markup"))}
                if "Ls" in data and "Lg" in data:
                    tab.lobby_mid = result["message_id"]
                    tab.lobby_data = data
                    tab.state = "seating"
                    loop.call_soon(self._sit_all, tab)
            elif tab.state == "stopping" and text.startswith(self.stopped_prefix):
                tab.state = "done"
                tab.done_t = now
                self.done += 1
            return
        where = self.user_at.get(chat_id)
        if where is None:
            return
        tab, ui = where
        if tab.state == "starting":
            if method == "sendMessage":
                tab.started.add(ui)
                if len(tab.started) == 3:
                    tab.state = "newgame"
                    loop.call_soon(self._say, tab, 0, "/newgame")
            return
        if tab.state != "playing":
            return
        found = DEAL_RE.search(text.split("\n", 1)[0])
        if found is None:
            if method == "sendMessage" and text.startswith(("🔔", "⏰")):  # a notification
                own = [p.t for p in tab.presses if p.user == ui]
                self.pings.append(now - own[-1] if own else math.inf)
            return
        if int(found.group(1)) > self.deals:
            tab.state = "stopping"
            loop.call_soon(self._stop, tab)
            return
        buttons = [(label, d) for label, d in _buttons(result.get("reply_markup"))]
        buttons = [(label, d) for label, d in buttons if GAME_CODE.match(_code(d))]
        if not buttons:
            return
        move = _move(buttons[0][1])
        mid = result["message_id"]
        if _code(buttons[0][1])[0] in "tuk":  # the discard: "t" marks a card, "u" unmarks
            picked = sum(1 for _, d in buttons if _code(d)[0] == "u")
            confirm = [d for _, d in buttons if _code(d) == "k"]
            key: tuple[Any, ...] = (move, picked, bool(confirm))
            if tab.keys.get(ui) == key:
                return
            tab.keys[ui] = key
            if confirm:
                loop.call_later(
                    self.think, self._press, tab, ui, chat_id, mid, confirm[0], "action"
                )
            else:
                free = [d for _, d in buttons if _code(d)[0] == "t"]
                choice = self.rng.choice(free)
                loop.call_later(self.think, self._press, tab, ui, chat_id, mid, choice, "toggle")
            return
        key = (move,)
        if tab.keys.get(ui) == key:
            return
        tab.keys[ui] = key
        choice = self.rng.choice([d for _, d in buttons])
        loop.call_later(self.think, self._press, tab, ui, chat_id, mid, choice, "action")


class BaselinePlayers:
    """Replays, round by round, the presses our bot got, against a baseline bot: the same
    number of tables and users, each press at the same offset from its round's start (and
    not before the previous press of its table was answered and edited)."""

    def __init__(self, fake: Any, tables: int) -> None:
        self.fake = fake
        self.users: list[list[Any]] = []
        self.mids: dict[int, int] = {}
        self.presses: dict[str, Press] = {}
        self.pending: dict[int, str] = {}
        self.events: list[asyncio.Event] = []
        self.stalls = 0
        keyboard = json.dumps({"inline_keyboard": [[{"text": "▶", "callback_data": "p"}]]})
        for i in range(tables):
            users = [fake.add_user(f"P{i}-{k}", started=True) for k in range(3)]
            self.users.append(users)
            for u in users:
                # the message to press, sent "by the bot" before the baseline bot starts
                _, sent = fake.handle(
                    "sendMessage", {"chat_id": u.id, "text": "ready", "reply_markup": keyboard}
                )
                self.mids[u.id] = sent["result"]["message_id"]

    def set_active(self, active: bool) -> None:
        pass  # its rounds are driven by run_round

    async def run_round(
        self, schedule: list[list[tuple[int, float]]], start: float, until: float, number: int
    ) -> None:
        """Press as ``schedule`` says (per table: user, offset from ``start``) until ``until``."""
        if not self.events:
            self.events = [asyncio.Event() for _ in self.users]
            for e in self.events:
                e.set()
        await asyncio.gather(
            *(self._table(i, presses, start, until, number) for i, presses in enumerate(schedule))
        )

    async def _table(
        self, i: int, presses: list[tuple[int, float]], start: float, until: float, number: int
    ) -> None:
        event = self.events[i]
        for ui, offset in presses:
            try:
                await asyncio.wait_for(event.wait(), max(0.0, until - self.fake.clock()))
            except TimeoutError:
                self.stalls += 1  # the previous press is still not edited: give up this round
                return
            delay = start + offset - self.fake.clock()
            if delay > 0:
                await asyncio.sleep(delay)
            user = self.users[i][ui]
            event.clear()
            t = self.fake.clock()
            qid = self.fake.press(user, (user.id, self.mids[user.id]), "p")
            self.presses[qid] = Press(qid, i, ui, "p", "action", t, round=number)
            self.pending[i] = qid

    def chats_of(self, p: Press) -> list[int]:
        """The chats a press makes the baseline update: the presser's (its message)."""
        return [self.users[p.table][p.user].id]

    def on_call(self, method: str, params: dict[str, Any], now: float, ok: bool, body: Any) -> None:
        if method == "answerCallbackQuery":
            press = self.presses.get(str(params.get("callback_query_id")))
            if press is not None and press.answer_t is None:
                press.answer_t = now
                press.late = not ok
        elif method == "editMessageText" and ok:
            text = body["result"].get("text", "")
            press = self.presses.get(text.rsplit(" ", 1)[-1])
            if press is not None and self.pending.get(press.table) == press.qid:
                self.events[press.table].set()  # the table's next press may come


# ---------------------------------------------------------------------- processes


def _pin(cpu: int | None) -> Any:
    if cpu is None:
        return None

    def pin() -> None:
        os.sched_setaffinity(0, {cpu})

    return pin


def _proc_status(pid: int) -> dict[str, int]:
    out = {}
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(("VmRSS", "VmHWM")):
                    name, value = line.split(":", 1)
                    out[name] = int(value.split()[0]) * 1024
    except OSError:
        pass
    return out


def _ticks(path: str) -> list[int] | None:
    """utime, stime, cutime and cstime of a ``/proc/.../stat`` file, in clock ticks
    (``None``: the process or thread is gone)."""
    try:
        with open(path) as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return [int(f) for f in fields[11:15]]


def _cpu_seconds(pid: int) -> float:
    """CPU seconds of ``pid`` and of every process it started (the analysis worker), the
    running ones and the ones it waited for."""
    ticks = _ticks(f"/proc/{pid}/stat")
    if ticks is None:
        return 0.0
    return sum(ticks) / os.sysconf("SC_CLK_TCK") + sum(_cpu_seconds(c) for c in _children(pid))


def _own_cpu_seconds(pid: int) -> float:
    """CPU seconds of ``pid`` alone (the bot's process, without its analysis worker)."""
    ticks = _ticks(f"/proc/{pid}/stat")
    return sum(ticks[:2]) / os.sysconf("SC_CLK_TCK") if ticks is not None else 0.0


def _thread_cpu(pid: int) -> dict[int, tuple[float, float]]:
    """``pid``'s threads' CPU seconds, user and system, by thread id: the database's and
    the pictures' threads let the GIL go, so a profile of the GIL does not see them, and
    the system time is the event loop's and the sockets'."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return {}
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[int, tuple[float, float]] = {}
    for tid in tids:
        ticks = _ticks(f"/proc/{pid}/task/{tid}/stat")
        if ticks is not None:
            out[int(tid)] = (ticks[0] / tick, ticks[1] / tick)
    return out


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                out += [int(c) for c in fh.read().split()]
    except OSError:
        pass
    return out


class Sampler(threading.Thread):
    """RSS of some processes once a second: every sample (time, bytes) and the peak."""

    def __init__(self, pids: list[int]) -> None:
        super().__init__(daemon=True)
        self.samples: dict[int, list[tuple[float, int]]] = {pid: [] for pid in pids}
        self.hwm: dict[int, int] = dict.fromkeys(pids, 0)
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.wait(1.0):
            self.sample()

    def sample(self) -> None:
        now = time.monotonic()
        for pid, samples in self.samples.items():
            st = _proc_status(pid)
            if "VmRSS" in st:
                samples.append((now, st["VmRSS"]))
            self.hwm[pid] = max(self.hwm[pid], st.get("VmHWM", 0), st.get("VmRSS", 0))

    def steady(self, pid: int, since: float) -> float:
        """The median RSS after ``since`` (the process at work), in bytes."""
        values = [rss for t, rss in self.samples[pid] if t >= since]
        return float(statistics.median(values)) if values else float("nan")

    def last(self, pid: int) -> int:
        samples = self.samples[pid]
        return samples[-1][1] if samples else 0

    def stop(self) -> None:
        self.sample()
        self._stop_event.set()


def _spawn(cmd: list[str], env: dict[str, str], cpu: int | None, log_path: str) -> Any:
    log = open(log_path, "w")  # noqa: SIM115 - closed by the caller through proc.log
    proc = subprocess.Popen(
        cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, preexec_fn=_pin(cpu)
    )
    proc.log = log  # type: ignore[attr-defined]
    return proc


def _stop_proc(proc: Any, timeout: float = 60) -> int:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    proc.log.close()
    return int(proc.returncode)


def _wait(pred: Any, timeout: float, what: str, proc: Any = None) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the bot exited ({proc.returncode}) while waiting for {what}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"no {what} within {timeout:.0f} s")
        time.sleep(0.05)


# ---------------------------------------------------------------------- statistics


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    xs = sorted(values)
    return xs[min(len(xs) - 1, max(0, math.ceil(q * len(xs)) - 1))]


def _first_after(times: list[float], t: float) -> float | None:
    i = bisect.bisect_left(times, t)
    return times[i] if i < len(times) else None


def _pacing_floor(chat: int, before: list[float]) -> float:
    """The earliest moment the bot's outbox lets a request to ``chat`` go, given the
    requests it made there before (mirrors ``bot.telegram.outbox.Outbox._wait`` with its defaults:
    private chats 1 per second; groups at most 20 per 60 s, every 0.5 s while fewer than
    10 are in the window, else spread over it). Times are arrivals at the fake, a little
    earlier than the bot's own clock reading after each answer, so the floor is slightly
    early and the latency above it slightly overstated: never in our favour."""
    if not before:
        return -math.inf
    if chat > 0:
        return before[-1] + 1.0
    last = before[-1]
    lo = bisect.bisect_right(before, last - 60.0)
    recent = before[lo:]
    if len(recent) >= 20:
        return recent[-20] + 60.0
    return last + (0.5 if len(recent) < 10 else 60.0 / 10)


def _max_in_window(times: list[float], window: float) -> int:
    best = 0
    j = 0
    for i, t in enumerate(times):
        while times[j] <= t - window:
            j += 1
        best = max(best, i - j + 1)
    return best


def _in_windows(times: list[float], windows: list[tuple[float, float]]) -> int:
    return sum(1 for t in times for a, b in windows if a <= t <= b)


def _all_calls(fake: Any) -> list[float]:
    """When every request but getUpdates reached the fake (answers included), in order."""
    times = [t for calls in fake.by_chat.values() for t, _, _ in calls]
    times += [t for t, _ in fake.answers.values()]
    return sorted(times)


def press_latency(
    p: Press,
    chats: list[int],
    shown: dict[int, list[float]],
    every: dict[int, list[float]],
    paced: bool,
    overall: list[float] | None,
    span: Any,
) -> tuple[float, float, float, float]:
    """(last call, handling, last private call, last group call) of an answered press: times
    at the fake, and handling in seconds (``span(a, b)``: the seconds from a to b).

    The same for every bot: the last call is the latest of the first message update in each
    chat the press changes (``chats``) after the press was answered. Handling counts each
    of these calls from the press, or, when later, from the earliest moment the bot's own
    pacing let a request to that chat go (``paced``: 1/s per private chat, 20/min per group,
    as ``bot.telegram.outbox`` paces them) and, with the overall limit on (``overall``: every call's
    time), from when the 30-per-second window let one more call go. A bot that does not
    pace has no such moment: its handling is its last call.
    """
    assert p.answer_t is not None
    end = end_private = end_group = p.answer_t
    own = span(p.t, p.answer_t)
    for chat in chats:
        times = shown.get(chat, [])
        i = bisect.bisect_left(times, p.answer_t)
        if i == len(times):
            continue
        t = times[i]
        floor = -math.inf
        if paced:
            prior = every.get(chat, [])
            floor = _pacing_floor(chat, prior[: bisect.bisect_left(prior, t)])
        if overall is not None:
            k = bisect.bisect_left(overall, t)
            if k >= 30:
                floor = max(floor, overall[k - 30] + 1.0)
        own = max(own, span(max(p.t, floor), t))
        end = max(end, t)
        if chat > 0:
            end_private = max(end_private, t)
        else:
            end_group = max(end_group, t)
    return end, own, end_private, end_group


def side_stats(
    presses: list[Press],
    chats_of: Any,
    fake: Any,
    windows: list[tuple[float, float]],
    paced: bool,
    overall: bool,
) -> dict[str, Any]:
    """The latency figures every side is compared on, from the fake's log of its calls."""
    shown: dict[int, list[float]] = {
        chat: [t for t, m, ok in calls if ok and m in SEND_EDIT]
        for chat, calls in fake.by_chat.items()
    }
    every: dict[int, list[float]] = {
        chat: [t for t, _, _ in calls] for chat, calls in fake.by_chat.items()
    }
    all_calls = _all_calls(fake) if overall else None
    first, last, handling, last_private, last_group = [], [], [], [], []

    def span(a: float, b: float) -> float:
        return b - a

    for p in presses:
        if p.answer_t is None:
            continue
        first.append(span(p.t, p.answer_t))
        chats = [] if p.alert else chats_of(p)
        end, own, end_private, end_group = press_latency(
            p, chats, shown, every, paced, all_calls, span
        )
        p.last_t = end
        last.append(span(p.t, end))
        handling.append(own)
        last_private.append(span(p.t, end_private))
        if p.kind == "action" and not p.alert and len(chats) > 1:
            last_group.append(span(p.t, end_group))
    active = sum(b - a for a, b in windows)
    return {
        "presses": len(presses),
        "answered": len(first),
        "active_s": active,
        "updates_per_s": _in_windows(fake.updates_handed, windows) / max(1e-9, active),
        "first_p50": pct(first, 0.5),
        "first_p99": pct(first, 0.99),
        "last_p50": pct(last, 0.5),
        "last_p99": pct(last, 0.99),
        "handling_p50": pct(handling, 0.5),
        "handling_p99": pct(handling, 0.99),
        "last_private_p50": pct(last_private, 0.5),
        "last_private_p99": pct(last_private, 0.99),
        "last_group_p50": pct(last_group, 0.5),
        "last_group_p99": pct(last_group, 0.99),
        "flood_errors": len(fake.flood_errors),
        "late_answers": sum(1 for p in presses if p.late),
        "unanswered": len(fake.unanswered_callbacks()),
    }


def our_stats(
    players: Players,
    fake: Any,
    n: int,
    deals: int,
    windows: list[tuple[float, float]],
    overall: bool,
) -> dict[str, Any]:
    presses = [p for tab in players.tabs for p in tab.presses]

    after: dict[str, int] = {}
    """Press -> the user who acts next at its table (the next press's)."""
    for tab in players.tabs:
        for a, b in zip(tab.presses, tab.presses[1:], strict=False):
            after[a.qid] = b.user

    def chats_of(p: Press) -> list[int]:
        tab = players.tabs[p.table]
        if p.kind == "toggle":  # a discard mark changes only the presser's hand
            return [tab.users[p.user].id]
        # the group's table message, the presser's hand and the hand of the player to act
        # next (the third hand is edited when his turn comes or the trick ends)
        users = {p.user, after.get(p.qid, p.user)}
        return [tab.group.id] + [tab.users[u].id for u in sorted(users)]

    stats = side_stats(presses, chats_of, fake, windows, paced=True, overall=overall)
    # A game's requests from its start to the /stop, which comes as soon as deal deals + 1
    # shows: the start of that deal stands for the lobby's close and deal 1's start, so the
    # window holds ``deals`` deals of requests.
    group_calls = private_calls = answers = 0
    kinds: Counter[str] = Counter()
    for tab in players.tabs:
        if tab.start_t is None:
            continue
        start, stop = tab.start_t, tab.stop_t if tab.stop_t is not None else math.inf
        for chat in (tab.group.id, *(u.id for u in tab.users)):
            made = [m for t, m, _ in fake.by_chat.get(chat, []) if start <= t < stop]
            kinds.update(f"{m} ({'group' if chat < 0 else 'private'})" for m in made)
            if chat < 0:
                group_calls += len(made)
            else:
                private_calls += len(made)
        n_answers = sum(1 for p in tab.presses if p.answer_t is not None and p.t < stop)
        answers += n_answers
        kinds["answerCallbackQuery"] += n_answers
    per = max(1, n * deals)
    group_max = private_pairs_fast = 0
    private_min_gap = float("inf")
    for chat, calls in fake.by_chat.items():
        times = [t for t, _, _ in calls]
        if chat < 0:
            group_max = max(group_max, _max_in_window(times, 60.0))
        else:
            for a, b in zip(times, times[1:], strict=False):
                private_min_gap = min(private_min_gap, b - a)
                if b - a < 0.95:
                    private_pairs_fast += 1
    gaps = []
    for tab in players.tabs:  # the game's own pace: two presses of a table in one round
        gaps += [
            b.t - a.t
            for a, b in zip(tab.presses, tab.presses[1:], strict=False)
            if a.round == b.round
        ]
    return {
        **stats,
        "turn_gap_p50": pct(gaps, 0.5),
        "turn_gap_p99": pct(gaps, 0.99),
        "calls_per_deal_group": group_calls / per,
        "calls_per_deal_private": private_calls / per,
        "calls_per_deal_answers": answers / per,
        "calls_per_deal_total": (group_calls + private_calls + answers) / per,
        "calls_per_deal_by_kind": {k: v / per for k, v in kinds.most_common()},
        "group_max_60s": group_max,
        "private_min_gap": private_min_gap,
        "private_gaps_under_0_95s": private_pairs_fast,
        "answer_errors": len(fake.answer_errors),
        "refused_presses": sum(1 for p in presses if p.alert),
        "sim_skipped": players.skipped,
        "tables_done": players.done,
        "pings": len(players.pings),
        "pings_since_press": {
            "under 30 s": sum(1 for x in players.pings if x < 30),
            "30-60 s": sum(1 for x in players.pings if 30 <= x < 60),
            "60 s+": sum(1 for x in players.pings if 60 <= x < math.inf),
            "none this game": sum(1 for x in players.pings if x == math.inf),
        },
    }


def baseline_stats(
    players: BaselinePlayers, fake: Any, windows: list[tuple[float, float]]
) -> dict[str, Any]:
    presses = list(players.presses.values())
    stats = side_stats(presses, players.chats_of, fake, windows, paced=False, overall=False)
    stats["unedited"] = sum(1 for p in presses if p.answer_t is not None and p.last_t == p.answer_t)
    stats["stalls"] = players.stalls
    return stats


def verify(db_path: str, players: Players, deals: int) -> dict[str, Any]:
    """Every table over; every accepted press is exactly one move of its record, in order."""
    from bot.preferans.actions import Action, Discard
    from bot.preferans.deal import Deal
    from bot.preferans.game import Game
    from bot.preferans.seats import Seat
    from bot.preferans.views import seat_view
    from bot.render.callbacks import action_code

    def forced(deal: Deal) -> list[bool]:
        """Per logged action: whether its seat had no other choice (the bot makes such a
        move itself: a forced card, the last trick, the only contract after a misère bid)."""
        hands = tuple(deal.initial_hand(Seat(s)) for s in range(deal.settings.players))
        copy = Deal(deal.settings, deal.dealer, hands, deal.talon)
        out = []
        for action in deal.log:
            seat = copy.actor
            out.append(seat is not None and len(seat_view(copy, seat).legal) == 1)
            copy.apply(action)
        return out

    def code(a: Action) -> str:
        return "k" if isinstance(a, Discard) else action_code(a)

    con = sqlite3.connect(db_path)
    names = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    rows = con.execute("SELECT id, chat_id, status, record FROM tables").fetchall()
    by_chat: dict[int, tuple[str, dict[str, Any]]] = {}
    for table_id, chat_id, status, text in rows:
        record = json.loads(text) if text else {}
        archived = None
        if "games" in names:  # the archive of finished games (schema 2 on)
            archived = con.execute(
                "SELECT record FROM games WHERE table_id = ?", (table_id,)
            ).fetchone()
        if archived is not None:
            record = json.loads(archived[0])
        elif "deals" in names:  # one row per deal (schema 2 on)
            deal_rows = con.execute(
                "SELECT data FROM deals WHERE table_id = ? ORDER BY deal_no", (table_id,)
            ).fetchall()
            record["deals"] = [json.loads(d[0]) for d in deal_rows]
        by_chat[chat_id] = (status, record)
    con.close()
    out = Counter[str]()
    problems: list[str] = []
    for tab in players.tabs:
        row = by_chat.get(tab.group.id)
        if row is None:
            problems.append(f"table {tab.idx}: no row")
            continue
        out["tables"] += 1
        if row[0] != "over":
            problems.append(f"table {tab.idx}: status {row[0]}")
            continue
        out["over"] += 1
        game = Game.from_record(row[1])
        played = [fd.deal for fd in game.finished_deals if fd.deal is not None]
        if len(game.finished_deals) != deals:
            problems.append(f"table {tab.idx}: {len(game.finished_deals)} deals")
        if game.abandoned is not None:
            played.append(game.abandoned)
        moves = [(code(a), f) for d in played for a, f in zip(d.log, forced(d), strict=True)]
        pressed = [p.code for p in tab.presses if p.kind == "action" and not p.alert]
        matched = auto = 0
        for move, no_choice in moves:
            if matched < len(pressed) and pressed[matched] == move:
                matched += 1
            elif no_choice:  # the bot's own move: nobody had to press it
                auto += 1
        out["moves"] += len(moves)
        out["accepted_presses"] += len(pressed)
        out["automatic_moves"] += auto
        out["lost"] += len(pressed) - matched
        out["extra_moves"] += len(moves) - matched - auto
        if len(pressed) != matched or len(moves) != matched + auto:
            problems.append(f"table {tab.idx}: presses {pressed} vs record {moves}")
    result: dict[str, Any] = dict(out)
    result["problems"] = problems[:10]
    result["problem_count"] = len(problems)
    return result


# ---------------------------------------------------------------------- profile


def profile_top(raw_path: str, limit: int = 15) -> list[tuple[str, float, float]]:
    """py-spy's raw (collapsed) stacks -> [(function, own %, total %)]."""
    own: Counter[str] = Counter()
    total: Counter[str] = Counter()
    samples = 0
    with open(raw_path) as fh:
        for line in fh:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack:
                continue
            n = int(count)
            samples += n
            frames = [re.sub(r":\d+\)$", ")", f) for f in stack.split(";")]
            frames = [f.replace(ROOT + "/", "").replace(sys.prefix + "/", "") for f in frames]
            own[frames[-1]] += n
            for f in set(frames):
                total[f] += n
    samples = max(1, samples)
    return [
        (f, 100 * own[f] / samples, 100 * total[f] / samples) for f, _ in own.most_common(limit)
    ]


LAYERS = (
    ("sheet picture", r"\((bot/render/picture/|bot/telegram/sheet\.py|PIL/)"),
    ("rendering (texts, keyboards)", r"\((bot/render/|bot/telegram/hands\.py)"),
    ("SQLite: saves and the hand-off", r"\((aiosqlite/|storage/|bot/core/persist|bot/core/codec)"),
    ("job queue (timers)", r"\((apscheduler/|telegram/ext/_jobqueue|bot/telegram/scheduler)"),
    ("engine and core service", r"\((bot/preferans/|bot/core/)"),
    ("HTTP: aiohttp and our transport", r"\((aiohttp/|multidict/|yarl/|bot/telegram/transport)"),
    ("PTB: requests (building, answers)", r"\(telegram/(_bot\.py|request/|ext/_extbot)"),
    ("PTB: updates (parsing, dispatch)", r"\(telegram/"),
    ("outbox, handlers, pacing", r"\(bot/telegram/(?!running\.py)"),
)
"""Layers of the bot's profile (:func:`profile_layers`), each a pattern of file paths."""
HAND_OFF = "Connection._execute (aiosqlite/"
HAND_OFF_LAYER = "SQLite: at the hand-off to its thread (not CPU)"
"""Samples with aiosqlite's ``put_nowait`` of a batch to its thread on top: ``--gil`` samples
wall time while a thread holds the GIL, and the loop's thread, pinned with the other bots
to one core, is descheduled right there, waking the worker; a commit through the thread
costs ~0.06 ms of CPU more than on the loop's thread, timed alone (README)."""


def profile_layers(raw_path: str) -> list[tuple[str, int, float]]:
    """py-spy's raw stacks (frames as ``function (path:line)``, paths relative to the
    project or site-packages) -> [(layer, samples, %)]: a sample belongs to the layer of
    its innermost frame that matches one of :data:`LAYERS` (the standard library's frames,
    a ``json.dumps`` say, count for their caller); none: the event loop itself."""
    patterns = [(name, re.compile(p)) for name, p in LAYERS]
    found: Counter[str] = Counter()
    with open(raw_path) as fh:
        for line in fh:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack:
                continue
            frames = stack.split(";")
            layer = "event loop (asyncio, selectors)"
            if frames[-1].startswith(HAND_OFF):
                frames, layer = [], HAND_OFF_LAYER
            for frame in reversed(frames):
                hit = next((name for name, rx in patterns if rx.search(frame)), None)
                if hit is not None and "bot_load.py" not in frame:
                    layer = hit
                    break
            found[layer] += int(count)
    total = max(1, sum(found.values()))
    return [(name, n, 100 * n / total) for name, n in found.most_common()]


# ---------------------------------------------------------------------- one level


@dataclass
class Side:
    """One bot of the comparison: its process, its fake Bot API and its players."""

    key: str
    fake: Any
    server: Any
    players: Any
    proc: Any = None
    windows: list[tuple[float, float]] = field(default_factory=list)
    """Its rounds: when its players act (fake clock = time.monotonic)."""
    cpu0: float | None = None
    own0: float = 0.0
    """The bot's own process's part of ``cpu0`` (without its analysis worker)."""
    threads0: dict[int, tuple[float, float]] = field(default_factory=dict)
    """``own0`` by thread and mode (:func:`_thread_cpu`)."""
    cpu_t0: float = 0.0
    """When ``cpu0`` was read (fake clock): updates and requests are counted from then."""
    began: float = 0.0

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        assert self.server._loop is not None
        return self.server._loop  # type: ignore[no-any-return]

    def set_active(self, active: bool) -> None:
        """Begin a round of the side's players, or end it."""
        if active:
            if self.cpu0 is None:
                self.cpu0 = _cpu_seconds(self.proc.pid)
                self.own0 = _own_cpu_seconds(self.proc.pid)
                self.threads0 = _thread_cpu(self.proc.pid)
                self.cpu_t0 = self.fake.clock()
            self.began = self.fake.clock()
        else:
            self.windows.append((self.began, self.fake.clock()))
        done = threading.Event()

        def switch() -> None:
            self.players.set_active(active)
            done.set()

        self.loop.call_soon_threadsafe(switch)
        done.wait(10)


SIDES = ("ours", "baseline", "baseline_httpx", "ours_default", "ours_old_client")
LABELS = {
    "ours": "ours (OVERALL_RATE=0)",
    "ours_default": "ours (defaults: OVERALL_RATE=30)",
    "baseline": "baseline (aiohttp transport)",
    "baseline_httpx": "reference: PTB default (httpx)",
    "ours_old_client": "ours on --old-client (OVERALL_RATE=0)",
}


def _start_side(key: str, n: int, args: argparse.Namespace, workdir: str) -> Side:
    from tests.fakes import FakeBotApiServer, FloodLimits

    fake_cls = _make_fake_class()
    ours = key.startswith("ours")
    global_limit = key == "ours_default" or args.global_limit
    limits = FloodLimits() if global_limit else FloodLimits(global_per_second=10**9)
    if ours:
        fake = fake_cls(flood=limits)
        players: Any = Players(fake, n, args.deals, args.seed, args.lang, args.ramp)
    else:
        fake = fake_cls(flood=FloodLimits(enabled=False))
        players = BaselinePlayers(fake, n)  # sends the messages to press: no limits yet
        fake.flood = limits
    fake.hook = players.on_call
    server = FakeBotApiServer(fake)
    server.start_in_thread()
    env = dict(os.environ)
    env.update(BOT_TOKEN=fake.token, TELEGRAM_API_URL=server.root_url, PYTHONPATH=ROOT)
    if os.environ.get("BENCH_LOOP_STATS"):
        env["BENCH_LOOP_FILE"] = os.path.join(workdir, f"{key}.loop.json")
    if ours:
        env.update(
            DATABASE_PATH=os.path.join(workdir, f"{key}.sqlite3"),
            LOG_LEVEL="WARNING",
            PREFERANS_SEED=str(args.seed),
            BENCH_TRACE="1" if args.trace else "0",
            BENCH_TIMERS=os.path.join(workdir, f"{key}.timers.json"),
            BENCH_GC=os.path.join(workdir, f"{key}.gc.json"),
        )
        if args.tracemalloc and key == "ours":
            env["BENCH_TRACEMALLOC"] = os.path.abspath(args.tracemalloc)
        if key == "ours_old_client":
            env["BENCH_OLD_CLIENT"] = os.path.abspath(args.old_client)
        if key in ("ours", "ours_old_client"):
            env["OVERALL_RATE"] = "30" if args.global_limit else "0"
        else:
            env.pop("OVERALL_RATE", None)  # the default
        cmd = [sys.executable, os.path.abspath(__file__), "--child-bot"]
    else:
        env["BASELINE_REQUEST"] = "httpx" if key == "baseline_httpx" else "aiohttp"
        env["BENCH_LOOP"] = os.environ.get("BASELINE_LOOP", "asyncio")
        cmd = [
            sys.executable,
            os.path.join(os.path.dirname(os.path.abspath(__file__)), "baseline_bot.py"),
        ]
    side = Side(key, fake, server, players)
    side.proc = _spawn(cmd, env, args.bot_cpu, os.path.join(workdir, f"{key}.log"))
    return side


def _settle(side: Side, limit: float) -> None:
    """After a round: wait until the side's presses are answered and its bot is quiet for
    0.3 s (at most ``limit`` s), so that little of its work spills into the next round."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        presses = side.players.presses.values()
        waiting = any(p.answer_t is None for p in list(presses)[-2000:])
        calls = [t for calls in list(side.fake.by_chat.values()) for t, _, _ in calls[-1:]]
        if not waiting and (not calls or side.fake.clock() - max(calls) > 0.3):
            return
        time.sleep(0.05)


def run_level(n: int, args: argparse.Namespace) -> dict[str, Any]:
    """All sides at N tables, in alternating rounds of ``--round`` seconds each."""
    workdir = tempfile.mkdtemp(prefix=f"bot_load_{n}_")
    result: dict[str, Any] = {"tables": n, "deals": args.deals, "round_s": args.round}
    sides: dict[str, Side] = {}
    sampler: Sampler | None = None
    profiler = None
    try:
        for key in args.sides:
            sides[key] = _start_side(key, n, args, workdir)
        for side in sides.values():
            _wait(lambda s=side: s.fake.methods["getUpdates"] > 0, 60, f"{side.key} up", side.proc)
        sampler = Sampler([side.proc.pid for side in sides.values()])
        sampler.start()
        ours = sides.get("ours") or next(iter(sides.values()))
        assert isinstance(ours.players, Players)
        deadline = time.monotonic() + args.timeout
        next_note = time.monotonic() + 10
        for side in sides.values():
            if isinstance(side.players, Players):
                side.players.spread = args.spread
                side.players.think = args.think
        number = 0
        while True:
            for side in sides.values():
                if side.proc.poll() is not None:
                    raise RuntimeError(f"{side.key} exited with {side.proc.returncode}")
                if args.profile and side.key == "ours" and profiler is None:
                    profiler = _start_profile(side.proc.pid, workdir, args.profile_seconds)
                side.set_active(True)
                if not isinstance(side.players, Players):
                    # replay ours' presses of its last round (those made while it was frozen
                    # count at the round's start), at the same offsets from the start
                    begun, ended = ours.windows[-1]
                    before = ours.windows[-2][1] if len(ours.windows) > 1 else -math.inf
                    schedule = [
                        [
                            (p.user, max(0.0, p.t - begun))
                            for p in tab.presses
                            if before < p.t <= ended
                        ]
                        for tab in ours.players.tabs
                    ]
                    start = side.began + 0.05
                    run = side.players.run_round(schedule, start, start + args.round, number)
                    asyncio.run_coroutine_threadsafe(run, side.loop).result(args.round + 90)
                time.sleep(max(0.0, side.began + args.round - side.fake.clock()))
                side.set_active(False)
                _settle(side, args.settle)
            number += 1
            if time.monotonic() > next_note:
                next_note += 10
                playing = sum(1 for tab in ours.players.tabs if tab.start_t is not None)
                print(
                    f"  N={n}: round {number}, {playing} started, {ours.players.done} done, "
                    f"{len(ours.players.presses)} presses",
                    file=sys.stderr,
                    flush=True,
                )
            if ours.players.done >= n or time.monotonic() > deadline:
                break
        time.sleep(args.tail)  # the last queued messages go out
        for side in sides.values():
            cpu = _cpu_seconds(side.proc.pid) - (side.cpu0 or 0.0)
            own = _own_cpu_seconds(side.proc.pid) - side.own0
            threads = {}
            for tid, (user, system) in _thread_cpu(side.proc.pid).items():
                user0, system0 = side.threads0.get(tid, (0.0, 0.0))  # (a thread started later)
                threads[tid] = (user - user0, system - system0)
            if isinstance(side.players, Players):  # the threads' names, while they live
                side.proc.send_signal(signal.SIGUSR1)
            fake = side.fake
            updates = sum(1 for t in fake.updates_handed if t >= side.cpu_t0)
            requests = sum(1 for t in fake.requests if t >= side.cpu_t0)
            result.setdefault(side.key, {}).update(
                bot_cpu_pct=100 * cpu / max(1e-9, sum(b - a for a, b in side.windows)),
                cpu_s=cpu,
                cpu_own_s=own,
                cpu_threads_s={str(tid): t for tid, t in threads.items()},
                pid=side.proc.pid,
                updates=updates,
                requests=requests,
                cpu_ms_per_update=1000 * cpu / updates if updates else float("nan"),
                cpu_ms_per_request=1000 * cpu / requests if requests else float("nan"),
                server_errors=dict(fake.server_errors),
            )
        sampler.stop()
        if profiler is not None:
            profiler.wait()
    finally:
        codes = {}
        for side in sides.values():
            if side.proc is not None:
                codes[side.key] = _stop_proc(side.proc)
            side.server.stop()
        if sampler is not None:
            sampler.stop()
    result["exit_codes"] = codes
    for side in sides.values():
        if isinstance(side.players, Players):
            stats = our_stats(
                side.players,
                side.fake,
                n,
                args.deals,
                side.windows,
                overall=side.key == "ours_default" or args.global_limit,
            )
            if side.key != "ours_default" or stats["tables_done"] == n:
                db_path = os.path.join(workdir, f"{side.key}.sqlite3")
                stats["verify"] = verify(db_path, side.players, args.deals)
            # APScheduler's warning for a timer it dropped (none since every job runs late)
            with open(os.path.join(workdir, f"{side.key}.log"), errors="replace") as fh:
                missed = sum(1 for line in fh if "was missed by" in line)
            try:
                with open(os.path.join(workdir, f"{side.key}.timers.json")) as fh:
                    stats["timers"] = json.load(fh)
            except (OSError, ValueError):
                stats["timers"] = None  # the bot wrote no summary: counted as a failure
            try:
                with open(os.path.join(workdir, f"{side.key}.gc.json")) as fh:
                    stats["gc"] = json.load(fh)
            except (OSError, ValueError):
                stats["gc"] = None
            dropped = sum(k["dropped"] for k in (stats["timers"] or {}).values())
            stats["dropped_timers"] = missed + dropped
            # (refused presses are counted apart, "refused_presses": a stale button)
            errors = [e for e in side.players.errors if " refused: " not in e]
            stats["sim_errors"] = errors[:5]
            stats["refused_examples"] = [e for e in side.players.errors if e not in errors][:3]
        else:
            stats = baseline_stats(side.players, side.fake, side.windows)
        try:
            with open(os.path.join(workdir, f"{side.key}.loop.json")) as fh:
                stats["loop"] = json.load(fh)
        except (OSError, ValueError):
            pass  # not asked for (BENCH_LOOP_STATS), or the bot was killed
        pid = side.proc.pid
        first = side.windows[0][0] if side.windows else 0.0
        stats["rss_mb"] = sampler.steady(pid, first) / 2**20 if sampler else float("nan")
        stats["rss_peak_mb"] = sampler.hwm[pid] / 2**20 if sampler else float("nan")
        if sampler:  # RSS every 10 s from the first round on: when the peak came
            stats["rss_mb_every_10s"] = [
                round(rss / 2**20) for t, rss in sampler.samples[pid][::10] if t >= first
            ]
        stats["rounds"] = len(side.windows)
        result.setdefault(side.key, {}).update(stats)
    if profiler is not None:
        result["ours"]["profile"] = profile_top(profiler.raw_path)
        result["ours"]["profile_layers"] = profile_layers(profiler.raw_path)
    if args.keep:
        result["workdir"] = workdir
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return result


def _start_profile(pid: int, workdir: str, seconds: float, name: str = "profile.txt") -> Any:
    exe = shutil.which("py-spy")
    if exe is None:
        raise SystemExit("--profile needs py-spy: pip install py-spy")
    raw = os.path.join(workdir, name)
    cmd = [exe, "record", "--pid", str(pid), "--rate", "100", "--duration", str(int(seconds))]
    cmd += ["--format", "raw", "--output", raw, "--gil", "--nonblocking"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    proc.raw_path = raw  # type: ignore[attr-defined]
    return proc


def _ms(x: float) -> str:
    return "—" if x != x else f"{x * 1000:.0f}"


def _sides_with(results: list[dict[str, Any]], key: str) -> Any:
    """(level, side, its figures) of every side whose figures hold ``key``."""
    for r in results:
        for name in SIDES:
            s = r.get(name)
            if s and key in s:
                yield r, name, s


def report(results: list[dict[str, Any]]) -> str:
    lines = [
        "| N | bot | updates/s | first response p50 / p99 ms | handling p50 / p99 ms "
        "| hand messages p50 / p99 ms | last call p50 / p99 ms | RSS steady / peak MB | CPU % |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        for name in SIDES:
            s = r.get(name)
            if not s or "updates_per_s" not in s:
                continue
            lines.append(
                f"| {r['tables']} | {LABELS[name]} | {s['updates_per_s']:.0f} | "
                f"{_ms(s['first_p50'])} / {_ms(s['first_p99'])} | "
                f"{_ms(s['handling_p50'])} / {_ms(s['handling_p99'])} | "
                f"{_ms(s['last_private_p50'])} / {_ms(s['last_private_p99'])} | "
                f"{_ms(s['last_p50'])} / {_ms(s['last_p99'])} | "
                f"{s['rss_mb']:.0f} / {s['rss_peak_mb']:.0f} | "
                f"{s.get('bot_cpu_pct', float('nan')):.0f} |"
            )
    lines += [
        "",
        "| N | bot | requests per deal: group / private / answers / total | max group req in "
        "60 s | min private gap s | flood errors | turn gap p50/p99 s | tables over "
        "| lost / extra |",
        "|---:|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        for name in ("ours", "ours_default", "ours_old_client"):
            s = r.get(name)
            if not s or "calls_per_deal_total" not in s:
                continue
            v = s.get("verify", {})
            complete = s["tables_done"] == r["tables"]
            per_deal = (
                f"{s['calls_per_deal_group']:.1f} / {s['calls_per_deal_private']:.1f} / "
                f"{s['calls_per_deal_answers']:.1f} / {s['calls_per_deal_total']:.1f}"
                if complete
                else "— (games not over)"
            )
            lost = f"{v.get('lost', 0)} / {v.get('extra_moves', 0)}" if v else "—"
            lines.append(
                f"| {r['tables']} | {LABELS[name]} | {per_deal} | {s['group_max_60s']} | "
                f"{s['private_min_gap']:.2f} | {s['flood_errors']} | "
                f"{s['turn_gap_p50']:.2f} / {s['turn_gap_p99']:.2f} | "
                f"{s['tables_done']}/{r['tables']} | {lost} |"
            )
    lines += [
        "",
        "| N | bot | CPU s (bot / analysis worker) | updates | API requests | CPU ms per update "
        "| CPU ms per request |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        for name in SIDES:
            s = r.get(name)
            if not s or "cpu_s" not in s:
                continue
            own = s.get("cpu_own_s", s["cpu_s"])
            lines.append(
                f"| {r['tables']} | {LABELS[name]} | {s['cpu_s']:.1f} ({own:.1f} / "
                f"{s['cpu_s'] - own:.1f}) | {s['updates']} | "
                f"{s['requests']} | {s['cpu_ms_per_update']:.2f} | "
                f"{s['cpu_ms_per_request']:.2f} |"
            )
    for r, name, s in _sides_with(results, "cpu_threads_s"):
        names = (s.get("gc") or {}).get("threads", {})
        by_name: dict[str, list[float]] = {}
        for tid, (user, system) in s["cpu_threads_s"].items():
            label = "main" if int(tid) == s["pid"] else names.get(tid, "other")
            label = re.sub(r"_\d+$", "", label)  # a pool's threads together
            spent = by_name.setdefault(label, [0.0, 0.0])
            spent[0] += user
            spent[1] += system
        parts = [
            f"{label} {user:.2f} + {system:.2f}"
            for label, (user, system) in sorted(by_name.items(), key=lambda kv: -sum(kv[1]))
            if user + system >= 0.01
        ]
        lines.append(
            f"\nCPU of the bot's process by thread (s, user + system), N = {r['tables']}, "
            f"{LABELS[name]}: " + "; ".join(parts)
        )
    for r, name, s in _sides_with(results, "loop"):
        requests = max(1, s["requests"])
        lines.append(
            f"\nEvent loop, N = {r['tables']}, {LABELS[name]} (whole run; per API request "
            f"of the measured part): {s['loop']['iterations'] / requests:.1f} turns, "
            f"{s['loop']['wakeups'] / requests:.2f} wake-ups, "
            f"{s['loop']['callbacks'] / requests:.1f} callbacks"
        )
    for r, _name, s in _sides_with(results, "profile_layers"):
        per_request = s["cpu_own_s"] * 1000 / max(1, s["requests"])
        cpu = sum(n for layer, n, _ in s["profile_layers"] if layer != HAND_OFF_LAYER) or 1
        lines += [
            "",
            f"Profile of the bot's process by layer, N = {r['tables']} (py-spy --gil; ms per "
            f"request: the layer's share of the samples but the hand-off's, times the "
            f"process's {per_request:.2f} ms):",
            "",
            "| layer | samples | share | ms per request |",
            "|---|---:|---:|---:|",
        ]
        for layer, n, share in s["profile_layers"]:
            ms = "—" if layer == HAND_OFF_LAYER else f"{n / cpu * per_request:.2f}"
            lines.append(f"| {layer} | {n} | {share:.1f} % | {ms} |")
    for r, name, s in _sides_with(results, "gc"):
        if s["gc"] is not None:
            runs, spent = s["gc"]["collections"], s["gc"]["cpu_s"]
            lines.append(
                f"\nGC of the bot's process, N = {r['tables']}, {LABELS[name]}: collections "
                f"{' / '.join(map(str, runs))} (generation 0 / 1 / 2), CPU "
                f"{' / '.join(f'{x:.2f}' for x in spent)} s ({sum(spent):.2f} s in all; "
                f"{s['gc'].get('frozen', 0)} objects frozen)"
            )
    lines += [
        "",
        "| N | bot | timer | armed | ran | cancelled | dropped | late p50 / p99 / max ms "
        "| ran > 1 s late |",
        "|---:|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r, name, s in _sides_with(results, "timers"):
        timers = s["timers"]
        if timers is None:
            lines.append(f"| {r['tables']} | {LABELS[name]} | — (no summary) | | | | | | |")
            continue
        for kind, k in sorted(timers.items()):
            lines.append(
                f"| {r['tables']} | {LABELS[name]} | {kind} | {k['armed']} | {k['ran']} | "
                f"{k['cancelled']} | {k['dropped']} | {_ms(k['late_p50'])} / "
                f"{_ms(k['late_p99'])} / {_ms(k['late_max'])} | {k['late_over_1s']} |"
            )
    for r in results:
        for name in ("ours", "ours_default", "ours_old_client"):
            s = r.get(name)
            if not s or not s.get("calls_per_deal_by_kind"):
                continue
            lines += ["", f"Requests per 3-person deal by kind, N = {r['tables']}, {LABELS[name]}:"]
            lines += [f"- {k}: {v:.1f}" for k, v in s["calls_per_deal_by_kind"].items()]
            since = ", ".join(f"{k} {v}" for k, v in s["pings_since_press"].items())
            lines.append(f"- turn notifications: {s['pings']} (since his own press: {since})")
    lines += ["", *targets(results)]
    return "\n".join(lines)


def failures(results: list[dict[str, Any]]) -> list[str]:
    """Why the figures mean nothing: a game that did not run to its end, the fake Bot API
    failing the bot's requests, a bot that exited badly, a timer the bot dropped, a player
    who hit a bug."""
    out = []
    for r in results:
        n = r["tables"]
        for name, code in r.get("exit_codes", {}).items():
            if code not in (0, -2):  # -2: stopped by SIGINT
                out.append(f"N={n}: {name} exited with {code}")
        for name in SIDES:
            s = r.get(name)
            if not s:
                continue
            if s.get("server_errors"):
                out.append(f"N={n}: {name}: the fake failed requests: {s['server_errors']}")
            if not s.get("updates"):
                out.append(f"N={n}: {name} handled no update")
            if "tables_done" in s and s["tables_done"] != n:
                out.append(f"N={n}: {name}: {s['tables_done']} of {n} games over")
            if s.get("dropped_timers"):
                out.append(f"N={n}: {name}: {s['dropped_timers']} timers dropped (missed)")
            if "timers" in s and s["timers"] is None:
                out.append(f"N={n}: {name}: the bot wrote no summary of its timers")
            if s.get("sim_errors"):
                out.append(f"N={n}: {name}: players' errors: {s['sim_errors']}")
    return out


def targets(results: list[dict[str, Any]]) -> list[str]:
    """The load targets (set at N = 200), checked for every N. The bar is the baseline on
    the same transport as ours; PTB's default (httpx, no pacing) is shown for reference."""
    out = []
    for r in results:
        s = r.get("ours")
        if not s:
            continue
        v = s.get("verify", {})
        checks = [
            (
                "every game over, no lost or doubled press",
                v.get("over") == r["tables"]
                and not v.get("lost")
                and not v.get("extra_moves")
                and not v.get("problem_count"),
            ),
            ("no flood errors", s["flood_errors"] == 0),
            ("≤ 20 group requests in any 60 s", s["group_max_60s"] <= 20),
            ("≤ 1 private request per second per chat", s["private_gaps_under_0_95s"] == 0),
            (f"RSS peak {s['rss_peak_mb']:.0f} MB ≤ 200 MB", s["rss_peak_mb"] <= 200),
        ]
        timers = s.get("timers")
        if timers is not None:
            late = max((k["late_max"] for k in timers.values()), default=0.0)
            text = f"no timer dropped ({s['dropped_timers']}; the latest ran {_ms(late)} ms late)"
            checks.append((text, not s["dropped_timers"]))
        b = r.get("baseline")
        if b and "handling_p99" in b:
            bound = 2 * b["handling_p99"]
            twice = f"≤ 2 × baseline p99 = {_ms(bound)} ms"
            checks.append(
                (f"handling p99 {_ms(s['handling_p99'])} ms {twice}", s["handling_p99"] <= bound)
            )
            checks.append(
                (f"first response p99 {_ms(s['first_p99'])} ms {twice}", s["first_p99"] <= bound)
            )
        out.append(
            f"N={r['tables']}: "
            + "; ".join(f"{'ok' if ok else 'MISSED'}: {text}" for text, ok in checks)
        )
    return out


def main() -> None:
    if "--child-bot" in sys.argv:
        child_bot()
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[50, 200, 1000])
    parser.add_argument("--deals", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="N = 50 only")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--ramp", type=float, default=0.05, help="seconds between two tables' arrivals"
    )
    parser.add_argument("--lang", default="ru")
    parser.add_argument("--bot-cpu", type=int, default=0, help="core of the bot process")
    parser.add_argument("--harness-cpu", type=int, default=1, help="core of the fake + players")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per N at most")
    parser.add_argument(
        "--sides",
        nargs="+",
        choices=SIDES,
        default=list(SIDES[:4]),
        help="the bots compared (ours first: the baselines replay its presses)",
    )
    parser.add_argument(
        "--old-client",
        help="for the side ours_old_client: a module with LeanRequest (the old bot/http.py)",
    )
    parser.add_argument("--round", type=float, default=6.0, help="seconds of one side's round")
    parser.add_argument(
        "--settle", type=float, default=2.0, help="at most this long for a side to go quiet"
    )
    parser.add_argument(
        "--spread", type=float, default=1.0, help="held presses spread over this many s"
    )
    parser.add_argument("--tail", type=float, default=2.0, help="for the last messages")
    parser.add_argument(
        "--think", type=float, default=0.0, help="seconds a player takes for each decision"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("--global-limit", action="store_true", help="keep the 30/s global limit")
    parser.add_argument("--profile", action="store_true", help="py-spy the bot (--gil)")
    parser.add_argument("--profile-seconds", type=float, default=40)
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--trace", action="store_true", help="bot.log: storage/HTTP/loop times")
    parser.add_argument(
        "--tracemalloc",
        metavar="FOLDER",
        help="trace ours' allocations, snapshots to FOLDER (tests/perf/memtrace.py reads them)",
    )
    args = parser.parse_args()
    args.sides = sorted(set(args.sides), key=SIDES.index)
    if args.sides[0] != "ours":
        parser.error("--sides must include ours")
    if args.quick:
        args.tables = [50]
    cpus = os.sched_getaffinity(0)
    if args.harness_cpu in cpus and len(cpus) > 1:
        os.sched_setaffinity(0, {args.harness_cpu})
    else:
        args.bot_cpu = None
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores; bot on core {args.bot_cpu}, "
        f"fake + players on core {args.harness_cpu}; {args.deals} deals per table",
        flush=True,
    )
    results = []
    for n in args.tables:
        started = time.monotonic()
        r = run_level(n, args)
        r["seconds"] = time.monotonic() - started
        results.append(r)
        print(f"N={n}: {r['seconds']:.0f} s", file=sys.stderr, flush=True)
        print(json.dumps(r, indent=1, default=str), file=sys.stderr, flush=True)
    print(report(results))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1, default=str)
    failed = failures(results)
    if failed:
        print("\nFAILED: the games did not run as they must:", file=sys.stderr)
        for line in failed:
            print(f"  {line}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
