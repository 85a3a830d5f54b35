"""Benchmark: one bot process on one core serving N tables, beside the smallest PTB bot.

    python tests/perf/bot_load.py --quick                      # N = 50, about a minute
    python tests/perf/bot_load.py --tables 50 200 1000 --deals 2
    python tests/perf/bot_load.py --tables 200 --profile       # py-spy on the bot at N = 200

For every N it starts the fake Bot API HTTP server (``tests/fakes``, Telegram's per-chat
flood limits on) and the real bot as a separate process (``bot.app.build_application`` +
``bot.app.run``, long polling, a real SQLite file, pinned to one core), seats N tables of
3 players and has every simulated player press a random button of his hand message as
soon as it shows one (the buttons are exactly the legal actions; a discard is two card
toggles and the confirm button) for ``--deals`` deals; then two players vote ``/stop``.
Then the baseline bot (``tests/perf/baseline_bot.py``: answer the press, edit the pressed
message) gets the same presses from the same number of users, at the same moments (a
press also waits until the previous press of its table was fully answered).

Latency of a press is measured at the fake, from the moment the callback query was queued
for getUpdates to (a) the ``answerCallbackQuery`` call ("first response") and (b) the last
API call it caused ("last call"). For the baseline (b) is the edit whose text names the
query. For our bot, a game action refreshes the group's table message and the three hand
messages, so (b) is the latest of: the first sendMessage/editMessageText to each of these
four chats that arrived after the press was answered (the bot queues the new views only
after answering); a discard toggle refreshes only the presser's hand. Coalesced edits
count for every press they show, so (b) includes the waiting that Telegram's limits
impose (1 request per second per private chat, 20 per minute per group).

Telegram's ~30 messages per second across all chats (a limit on bulk notifications) is
not modelled by default: the fake's global limit is raised and the bot runs with
``OVERALL_RATE=0`` (its own overall limit off), or the whole bot would be capped at ~30
edits per second whatever N is. ``--global-limit`` keeps both.

Run by hand, not by CI. Needs Linux (/proc, sched_setaffinity); ``--profile`` needs
``pip install py-spy``.
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


def child_bot() -> None:
    """``--child-bot``: run the real bot in this process (what ``python -m bot`` runs)."""
    pool = int(os.environ.get("BENCH_POOL", "0"))
    if pool:  # an experiment: the bot's HTTP connection pool, requests beyond it wait here
        import telegram.request

        request_cls = telegram.request.HTTPXRequest
        init, do_request = request_cls.__init__, request_cls.do_request

        def patched_init(self: Any, *args: Any, **kwargs: Any) -> None:
            gate = kwargs.get("connection_pool_size", 1) > 1
            if gate:
                kwargs["connection_pool_size"] = pool
                kwargs["pool_timeout"] = None
            init(self, *args, **kwargs)
            self.bench_gate = asyncio.Semaphore(pool) if gate else None

        async def gated(self: Any, *args: Any, **kwargs: Any) -> Any:
            if self.bench_gate is None:
                return await do_request(self, *args, **kwargs)
            async with self.bench_gate:
                return await do_request(self, *args, **kwargs)

        request_cls.__init__ = patched_init  # type: ignore[method-assign]
        request_cls.do_request = gated  # type: ignore[method-assign]
    if os.environ.get("BENCH_TRACE") == "1":
        _install_trace()
    from bot.__main__ import main

    sys.exit(main())


def _install_trace() -> None:
    """``BENCH_TRACE=1``: every 5 s, log how long storage calls, HTTP requests and the event
    loop's turns took in the bot process (to see what a press waits for)."""
    import functools
    import logging

    import telegram.request

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

    aiosqlite.Connection._execute = timed("sqlite_call", aiosqlite.Connection._execute)
    import bot.http

    for request_cls in (telegram.request.HTTPXRequest, bot.http.LeanRequest):
        request_cls.do_request = timed("http", request_cls.do_request)  # type: ignore[method-assign]
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

    class BenchFake(FakeTelegram):  # type: ignore[misc]
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

        def _record(
            self, method: str, params: dict[str, Any], now: float, status: Any, body: Any
        ) -> None:
            self.methods[method] += 1
            if method == "getUpdates":
                return
            ok = status == 200
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

        def _m_get_updates(self, p: Any, poll: Any) -> list[dict[str, Any]]:
            batch: list[dict[str, Any]] = super()._m_get_updates(p, poll)
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
    """Plays N tables of 3 against our bot; runs inside the fake server's event loop."""

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

    def kick(self) -> None:
        """Tables arrive one every ``ramp`` seconds: their players press Start."""
        loop = asyncio.get_running_loop()
        for i, tab in enumerate(self.tabs):
            loop.call_later(i * self.ramp, self._arrive, tab)

    def _arrive(self, tab: Tab) -> None:
        tab.state = "starting"
        for u in tab.users:
            self.fake.user_starts_bot(u)

    def _press(self, tab: Tab, ui: int, chat_id: int, mid: int, data: str, kind: str) -> None:
        t = self.fake.clock()
        try:
            qid = self.fake.press(tab.users[ui], (chat_id, mid), data)
        except (ValueError, KeyError):
            self.skipped += 1  # the keyboard changed before the press: wait for the next one
            return
        press = Press(qid, tab.idx, ui, _code(data), kind, t)
        self.presses[qid] = press
        if kind == "lobby":
            if press.code == "Lg":
                tab.start_t = t
        else:
            tab.presses.append(press)

    def _say(self, tab: Tab, ui: int, text: str) -> None:
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
            tab = self.group_at.get(chat_id)
            if tab is None:
                return
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
                loop.call_soon(self._press, tab, ui, chat_id, mid, confirm[0], "action")
            else:
                free = [d for _, d in buttons if _code(d)[0] == "t"]
                choice = self.rng.choice(free)
                loop.call_soon(self._press, tab, ui, chat_id, mid, choice, "toggle")
            return
        key = (move,)
        if tab.keys.get(ui) == key:
            return
        tab.keys[ui] = key
        choice = self.rng.choice([d for _, d in buttons])
        loop.call_soon(self._press, tab, ui, chat_id, mid, choice, "action")


class BaselinePlayers:
    """Replays the presses of a run against our bot, against the baseline bot."""

    def __init__(self, fake: Any, schedule: list[list[tuple[int, float]]]) -> None:
        self.fake = fake
        self.schedule = schedule
        self.users: list[list[Any]] = []
        self.mids: dict[int, int] = {}
        self.presses: dict[str, Press] = {}
        self.pending: dict[int, str] = {}
        self.events: list[asyncio.Event] = []
        self.user_tab: dict[int, int] = {}
        self.stalls = 0
        self.finished = 0
        keyboard = json.dumps({"inline_keyboard": [[{"text": "▶", "callback_data": "p"}]]})
        for i in range(len(schedule)):
            users = [fake.add_user(f"P{i}-{k}", started=True) for k in range(3)]
            self.users.append(users)
            for u in users:
                self.user_tab[u.id] = i
                # the message to press, sent "by the bot" before the baseline bot starts
                _, sent = fake.handle(
                    "sendMessage", {"chat_id": u.id, "text": "ready", "reply_markup": keyboard}
                )
                self.mids[u.id] = sent["result"]["message_id"]

    async def run(self, start: float) -> None:
        self.events = [asyncio.Event() for _ in self.schedule]
        for e in self.events:
            e.set()
        await asyncio.gather(*(self._table(i, start) for i in range(len(self.schedule))))

    async def _table(self, i: int, start: float) -> None:
        event = self.events[i]
        for ui, offset in self.schedule[i]:
            try:
                await asyncio.wait_for(event.wait(), 60)
            except TimeoutError:
                self.stalls += 1
            delay = start + offset - self.fake.clock()
            if delay > 0:
                await asyncio.sleep(delay)
            user = self.users[i][ui]
            event.clear()
            t = self.fake.clock()
            qid = self.fake.press(user, (user.id, self.mids[user.id]), "p")
            self.presses[qid] = Press(qid, i, ui, "p", "action", t)
            self.pending[i] = qid
        try:
            await asyncio.wait_for(event.wait(), 60)
        except TimeoutError:
            self.stalls += 1
        self.finished += 1

    def on_call(self, method: str, params: dict[str, Any], now: float, ok: bool, body: Any) -> None:
        if method == "answerCallbackQuery":
            press = self.presses.get(str(params.get("callback_query_id")))
            if press is not None and press.answer_t is None:
                press.answer_t = now
                press.late = not ok
        elif method == "editMessageText" and ok:
            text = body["result"].get("text", "")
            press = self.presses.get(text.rsplit(" ", 1)[-1])
            if press is not None:
                press.last_t = now
                if self.pending.get(press.table) == press.qid:
                    self.events[press.table].set()


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


def _cpu_seconds(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Sampler(threading.Thread):
    """RSS of a process once a second; its peak."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak = 0
        self.last = 0
        self.hwm = 0
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.wait(1.0):
            self.sample()

    def sample(self) -> None:
        st = _proc_status(self.pid)
        self.last = st.get("VmRSS", self.last)
        self.peak = max(self.peak, self.last)
        self.hwm = max(self.hwm, st.get("VmHWM", 0))

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
    requests it made there before (mirrors ``bot.outbox.Outbox._wait`` with its defaults:
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


def our_stats(players: Players, fake: Any, n: int, deals: int) -> dict[str, Any]:
    shown: dict[int, list[float]] = {
        chat: [t for t, m, ok in calls if ok and m in SEND_EDIT]
        for chat, calls in fake.by_chat.items()
    }
    every: dict[int, list[float]] = {
        chat: [t for t, _, _ in calls] for chat, calls in fake.by_chat.items()
    }
    first, last, queue, last_private, last_group = [], [], [], [], []
    handling: list[float] = []
    presses = [p for tab in players.tabs for p in tab.presses]
    for p in presses:
        if p.answer_t is None:
            continue
        first.append(p.answer_t - p.t)
        if p.qid in fake.handed:
            queue.append(fake.handed[p.qid] - p.t)
        tab = players.tabs[p.table]
        if p.alert:
            chats: list[int] = []
        elif p.kind == "toggle":
            chats = [tab.users[p.user].id]
        else:
            chats = [tab.group.id] + [u.id for u in tab.users]
        end = end_private = end_group = p.answer_t
        own = p.answer_t - p.t
        for chat in chats:
            times = shown.get(chat, [])
            i = bisect.bisect_left(times, p.answer_t)
            t = times[i] if i < len(times) else None
            if t is not None:
                # what of the wait was the bot's own doing, not Telegram's limits
                prior = every.get(chat, [])
                prior = prior[: bisect.bisect_left(prior, t)]
                own = max(own, t - max(p.t, _pacing_floor(chat, prior)))
                end = max(end, t)
                if chat > 0:
                    end_private = max(end_private, t)
                else:
                    end_group = max(end_group, t)
        p.last_t = end
        last.append(end - p.t)
        handling.append(own)
        last_private.append(end_private - p.t)
        if p.kind == "action" and not p.alert:
            last_group.append(end_group - p.t)
    starts = [tab.start_t for tab in players.tabs if tab.start_t is not None]
    ends = [tab.done_t for tab in players.tabs if tab.done_t is not None]
    t0, t1 = min(starts), max(ends) if ends else fake.clock()
    handed = [t for t in fake.updates_handed if t0 <= t <= t1]
    group_calls = private_calls = answers = 0
    for tab in players.tabs:
        if tab.start_t is None:
            continue
        group_calls += sum(1 for t, _, _ in fake.by_chat.get(tab.group.id, []) if t >= tab.start_t)
        for u in tab.users:
            private_calls += sum(1 for t, _, _ in fake.by_chat.get(u.id, []) if t >= tab.start_t)
        answers += sum(1 for p in tab.presses if p.answer_t is not None)
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
    for tab in players.tabs:
        acts = [p for p in tab.presses]
        gaps += [b.t - a.t for a, b in zip(acts, acts[1:], strict=False)]
    return {
        **_latency_stats(len(presses), t0, t1, handed, first, last, handling),
        "last_private_p50": pct(last_private, 0.5),
        "last_private_p99": pct(last_private, 0.99),
        "last_group_p50": pct(last_group, 0.5),
        "last_group_p99": pct(last_group, 0.99),
        "queue_p50": pct(queue, 0.5),
        "queue_p99": pct(queue, 0.99),
        "turn_gap_p50": pct(gaps, 0.5),
        "turn_gap_p99": pct(gaps, 0.99),
        "calls_per_deal_group": group_calls / per,
        "calls_per_deal_private": private_calls / per,
        "calls_per_deal_answers": answers / per,
        "calls_per_deal_total": (group_calls + private_calls + answers) / per,
        "group_max_60s": group_max,
        "private_min_gap": private_min_gap,
        "private_gaps_under_0_95s": private_pairs_fast,
        "flood_errors": len(fake.flood_errors),
        "answer_errors": len(fake.answer_errors),
        "late_answers": sum(1 for p in presses if p.late),
        "unanswered": len(fake.unanswered_callbacks()),
        "refused_presses": sum(1 for p in presses if p.alert),
        "sim_skipped": players.skipped,
        "tables_done": players.done,
    }


def _latency_stats(
    presses: int,
    t0: float,
    t1: float,
    handed: list[float],
    first: list[float],
    last: list[float],
    handling: list[float],
) -> dict[str, Any]:
    """The figures both bots are compared on."""
    return {
        "presses": presses,
        "window_s": t1 - t0,
        "updates_per_s": len(handed) / max(1e-9, t1 - t0),
        "first_p50": pct(first, 0.5),
        "first_p99": pct(first, 0.99),
        "last_p50": pct(last, 0.5),
        "last_p99": pct(last, 0.99),
        "handling_p50": pct(handling, 0.5),
        "handling_p99": pct(handling, 0.99),
    }


def baseline_stats(players: BaselinePlayers, fake: Any, t0: float, t1: float) -> dict[str, Any]:
    first, last = [], []
    for p in players.presses.values():
        if p.answer_t is not None:
            first.append(p.answer_t - p.t)
        if p.answer_t is not None and p.last_t is not None:
            last.append(max(p.answer_t, p.last_t) - p.t)
    handed = [t for t in fake.updates_handed if t0 <= t <= t1]
    return {
        # the baseline never waits for Telegram's limits: its handling is its last call
        **_latency_stats(len(players.presses), t0, t1, handed, first, last, last),
        "unanswered": len(fake.unanswered_callbacks()),
        "unedited": sum(1 for p in players.presses.values() if p.last_t is None),
        "late_answers": sum(1 for p in players.presses.values() if p.late),
        "flood_errors": len(fake.flood_errors),
        "stalls": players.stalls,
    }


def verify(db_path: str, players: Players, deals: int) -> dict[str, Any]:
    """Every table over; every accepted press is exactly one move of its record, in order."""
    from bot.callbacks import action_code

    from bot.preferans.actions import Discard
    from bot.preferans.game import Game

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
            deals = con.execute(
                "SELECT data FROM deals WHERE table_id = ? ORDER BY deal_no", (table_id,)
            ).fetchall()
            record["deals"] = [json.loads(d[0]) for d in deals]
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
        logs = [fd.deal.log for fd in game.finished_deals if fd.deal is not None]
        if len(game.finished_deals) != deals:
            problems.append(f"table {tab.idx}: {len(game.finished_deals)} deals")
        if game.abandoned is not None:
            logs.append(game.abandoned.log)
        moves = ["k" if isinstance(a, Discard) else action_code(a) for log in logs for a in log]
        pressed = [p.code for p in tab.presses if p.kind == "action" and not p.alert]
        matched = 0
        for code in moves:
            if matched < len(pressed) and pressed[matched] == code:
                matched += 1
        out["moves"] += len(moves)
        out["accepted_presses"] += len(pressed)
        out["lost"] += len(pressed) - matched
        out["extra_moves"] += len(moves) - matched
        if len(pressed) != matched or len(moves) != matched:
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


# ---------------------------------------------------------------------- one level


def run_level(n: int, args: argparse.Namespace) -> dict[str, Any]:
    from tests.fakes import FakeBotApiServer, FloodLimits

    fake_cls = _make_fake_class()
    limits = FloodLimits() if args.global_limit else FloodLimits(global_per_second=10**9)
    workdir = tempfile.mkdtemp(prefix=f"bot_load_{n}_")
    db_path = os.path.join(workdir, "bot.sqlite3")
    result: dict[str, Any] = {"tables": n, "deals": args.deals, "workdir": workdir}

    # ------------------------------------------------------------ our bot
    fake = fake_cls(flood=limits)
    players = Players(fake, n, args.deals, args.seed, args.lang, args.ramp)
    fake.hook = players.on_call
    server = FakeBotApiServer(fake)
    server.start_in_thread()
    env = dict(os.environ)
    env.update(
        BOT_TOKEN=fake.token,
        TELEGRAM_API_URL=server.root_url,
        DATABASE_PATH=db_path,
        LOG_LEVEL="WARNING",
        PYTHONPATH=ROOT,
        OVERALL_RATE="30" if args.global_limit else "0",
        PREFERANS_SEED=str(args.seed),
        BENCH_TRACE="1" if args.trace else "0",
        BENCH_POOL=str(args.pool),
    )
    cmd = [sys.executable, os.path.abspath(__file__), "--child-bot"]
    proc = _spawn(cmd, env, args.bot_cpu, os.path.join(workdir, "bot.log"))
    sampler = Sampler(proc.pid)
    profiler = None
    try:
        _wait(lambda: fake.methods["getUpdates"] > 0, 60, "first getUpdates", proc)
        sampler.start()
        assert server._loop is not None
        server._loop.call_soon_threadsafe(players.kick)
        cpu0 = None
        deadline = time.monotonic() + args.timeout
        next_note = time.monotonic() + 10
        while players.done < n and time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"the bot exited with {proc.returncode}; see {workdir}")
            if cpu0 is None and any(tab.start_t is not None for tab in players.tabs):
                cpu0 = (_cpu_seconds(proc.pid), time.monotonic(), time.process_time())
                if args.profile:
                    profiler = _start_profile(proc.pid, workdir, args.profile_seconds)
            if time.monotonic() > next_note:
                next_note += 10
                playing = sum(1 for tab in players.tabs if tab.start_t is not None)
                print(
                    f"  N={n}: {playing} started, {players.done} done, "
                    f"{len(players.presses)} presses, RSS {sampler.last / 2**20:.0f} MB",
                    file=sys.stderr,
                    flush=True,
                )
            time.sleep(0.1)
        cpu1 = (_cpu_seconds(proc.pid), time.monotonic(), time.process_time())
        time.sleep(1.0)  # let the last queued messages go out
        sampler.stop()
        if profiler is not None:
            profiler.wait()
    finally:
        code = _stop_proc(proc)
        server.stop()
    result["bot_exit"] = code
    result["connections_opened"] = server.connections_opened
    ours = our_stats(players, fake, n, args.deals)
    ours["rss_mb"] = sampler.last / 2**20
    ours["rss_peak_mb"] = max(sampler.peak, sampler.hwm) / 2**20
    if cpu0 is not None:
        span = max(1e-9, cpu1[1] - cpu0[1])
        ours["bot_cpu_pct"] = 100 * (cpu1[0] - cpu0[0]) / span
        ours["harness_cpu_pct"] = 100 * (cpu1[2] - cpu0[2]) / span
    ours["complete"] = players.done == n
    ours["verify"] = verify(db_path, players, args.deals)
    ours["sim_errors"] = players.errors[:5]
    with open(os.path.join(workdir, "presses.jsonl"), "w") as fh:
        for tab in players.tabs:
            for p in tab.presses:
                row = [tab.idx, p.user, p.code, p.kind, p.t, p.answer_t, p.last_t, p.alert]
                fh.write(json.dumps(row) + "\n")
    if profiler is not None:
        ours["profile"] = profile_top(profiler.raw_path)
        ours["profile_file"] = profiler.raw_path
    result["ours"] = ours

    # ------------------------------------------------------------ the baseline
    if not args.no_baseline:
        for kind in args.baselines:
            key = "baseline" if kind == "ptb" else f"baseline_{kind}"
            result[key] = run_baseline(players, args, limits, workdir, kind)
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


def run_baseline(
    ours: Players, args: argparse.Namespace, limits: Any, workdir: str, kind: str = "ptb"
) -> dict[str, Any]:
    from tests.fakes import FakeBotApiServer, FloodLimits

    starts = [p.t for tab in ours.tabs for p in tab.presses]
    t0 = min(starts)
    window = args.baseline_seconds
    schedule = [
        [(p.user, p.t - t0) for p in tab.presses if p.t - t0 <= window] for tab in ours.tabs
    ]
    fake = _make_fake_class()(flood=FloodLimits(enabled=False))
    players = BaselinePlayers(fake, schedule)  # sends the messages to press: no limits yet
    fake.flood = limits
    fake.hook = players.on_call
    server = FakeBotApiServer(fake)
    server.start_in_thread()
    env = dict(os.environ)
    env.update(BOT_TOKEN=fake.token, TELEGRAM_API_URL=server.root_url, PYTHONPATH=ROOT)
    env["BASELINE_REQUEST"] = kind
    cmd = [
        sys.executable,
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "baseline_bot.py"),
    ]
    proc = _spawn(cmd, env, args.bot_cpu, os.path.join(workdir, f"baseline-{kind}.log"))
    sampler = Sampler(proc.pid)
    profiler = None
    try:
        _wait(lambda: fake.methods["getUpdates"] > 0, 60, "baseline getUpdates", proc)
        sampler.start()
        assert server._loop is not None
        start = fake.clock() + 0.5
        cpu0 = (_cpu_seconds(proc.pid), time.monotonic())
        if args.profile:
            seconds = min(args.profile_seconds, window)
            profiler = _start_profile(proc.pid, workdir, seconds, f"baseline-{kind}-profile.txt")
        future = asyncio.run_coroutine_threadsafe(players.run(start), server._loop)
        future.result(timeout=args.timeout)
        cpu1 = (_cpu_seconds(proc.pid), time.monotonic())
        t1 = fake.clock()
        sampler.stop()
    finally:
        _stop_proc(proc)
        server.stop()
    stats = baseline_stats(players, fake, start, t1)
    if profiler is not None:
        profiler.wait()
        stats["profile"] = profile_top(profiler.raw_path)
        stats["profile_file"] = profiler.raw_path
    stats["rss_mb"] = sampler.last / 2**20
    stats["rss_peak_mb"] = max(sampler.peak, sampler.hwm) / 2**20
    stats["bot_cpu_pct"] = 100 * (cpu1[0] - cpu0[0]) / max(1e-9, cpu1[1] - cpu0[1])
    return stats


# ---------------------------------------------------------------------- report


def _ms(x: float) -> str:
    return "—" if x != x else f"{x * 1000:.0f}"


def report(results: list[dict[str, Any]]) -> str:
    lines = [
        "| N | bot | updates/s | first response p50 / p99 ms | handling p50 / p99 ms "
        "| hand messages p50 / p99 ms | last call p50 / p99 ms | RSS MB | CPU % |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        for name in ("ours", "baseline", "baseline_lean"):
            s = r.get(name)
            if not s:
                continue
            label = {"baseline": "baseline (PTB default)", "baseline_lean": "baseline (lean HTTP)"}
            lines.append(
                f"| {r['tables']} | {label.get(name, name)} | {s['updates_per_s']:.0f} | "
                f"{_ms(s['first_p50'])} / {_ms(s['first_p99'])} | "
                f"{_ms(s['handling_p50'])} / {_ms(s['handling_p99'])} | "
                f"{_ms(s.get('last_private_p50', s['last_p50']))} / "
                f"{_ms(s.get('last_private_p99', s['last_p99']))} | "
                f"{_ms(s['last_p50'])} / {_ms(s['last_p99'])} | "
                f"{s['rss_peak_mb']:.0f} | {s.get('bot_cpu_pct', float('nan')):.0f} |"
            )
    lines += [
        "",
        "| N | calls/deal group / private / answers / total | max group req in 60 s "
        "| min private gap s | flood errors | turn gap p50/p99 s | tables over | lost / extra |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        s = r["ours"]
        v = s["verify"]
        lines.append(
            f"| {r['tables']} | {s['calls_per_deal_group']:.1f} / "
            f"{s['calls_per_deal_private']:.1f} / {s['calls_per_deal_answers']:.1f} / "
            f"{s['calls_per_deal_total']:.1f} | {s['group_max_60s']} | "
            f"{s['private_min_gap']:.2f} | {s['flood_errors']} | "
            f"{s['turn_gap_p50']:.2f} / {s['turn_gap_p99']:.2f} | "
            f"{v.get('over', 0)}/{r['tables']} | {v.get('lost', 0)} / {v.get('extra_moves', 0)} |"
        )
    lines += ["", *targets(results)]
    return "\n".join(lines)


def targets(results: list[dict[str, Any]]) -> list[str]:
    """Issue 7's targets, checked for every N that has a baseline (they are set at 200)."""
    out = []
    for r in results:
        s = r["ours"]
        v = s["verify"]
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
            (f"RSS {s['rss_peak_mb']:.0f} MB ≤ 200 MB", s["rss_peak_mb"] <= 200),
        ]
        for key, label in (("baseline", "PTB default"), ("baseline_lean", "lean HTTP")):
            b = r.get(key)
            if not b:
                continue
            bound = 2 * b["handling_p99"]
            twice = f"≤ 2 × baseline ({label}) p99 = {_ms(bound)} ms"
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
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument(
        "--baselines",
        nargs="+",
        choices=["ptb", "lean"],
        default=["ptb", "lean"],
        help="PTB's default HTTP client, and/or ours (bot.http.LeanRequest)",
    )
    parser.add_argument(
        "--baseline-seconds", type=float, default=120, help="replay this much of the presses"
    )
    parser.add_argument("--global-limit", action="store_true", help="keep the 30/s global limit")
    parser.add_argument("--profile", action="store_true", help="py-spy the bot (--gil)")
    parser.add_argument("--profile-seconds", type=float, default=40)
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--trace", action="store_true", help="bot.log: storage/HTTP/loop times")
    parser.add_argument("--pool", type=int, default=0, help="experiment: the bot's HTTP pool")
    args = parser.parse_args()
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


if __name__ == "__main__":
    main()
