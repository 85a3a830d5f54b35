"""Where the bot's memory goes: ``tracemalloc`` in the bot's process under load, and a report.

``bot_load.py --tracemalloc`` sets ``BENCH_TRACEMALLOC`` for the bot it starts
(:func:`install` in that process): Python's allocations are traced, with their tracebacks,
and snapshots are written to that folder: ``peak.snap`` when the traced memory is at its
highest (taken again each time it grows by 4 MB), ``last.snap`` every 30 s (the one left
after the games ended and the tables closed: what stays), and ``series.json``, the traced
memory and the RSS every 2 s. Then::

    python tests/perf/memtrace.py FOLDER            # by file and line, then by traceback

The report counts the bot's process only (the fake Bot API and the players run in the
benchmark's process). Tracing slows the bot severalfold: the latencies and the RSS of such
a run mean nothing; only the breakdown does. Memory allocated outside Python's allocator
(SQLite's page cache, Pillow's image buffers, OpenSSL) is not traced: the RSS minus the
traced memory shows it.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import time
import tracemalloc
from collections import defaultdict

FRAMES = 12
"""Frames kept per allocation (enough to reach the bot's code from PTB's or aiohttp's)."""
GROWTH = 4 << 20
"""``peak.snap`` is taken again when the traced memory grew by this much."""
PLACES = (
    ("bot/preferans/solver", "solver"),
    ("bot/preferans", "engine"),
    ("bot/core", "core"),
    ("bot/telegram", "telegram adapter"),
    ("bot/render", "render"),
    ("bot/webapp", "mini app"),
    ("/storage/", "storage"),
    ("/telegram/", "python-telegram-bot"),
    ("/apscheduler/", "apscheduler"),
    ("/aiohttp/", "aiohttp"),
    ("/multidict/", "aiohttp"),
    ("/yarl/", "aiohttp"),
    ("/aiosqlite/", "aiosqlite"),
    ("/PIL/", "Pillow"),
    ("/babel/", "babel"),
    ("/json/", "json"),
    ("/asyncio/", "asyncio"),
    ("<frozen importlib", "imports"),
    ("/importlib/", "imports"),
)


def _rss() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) * 1024
    return 0


def install(folder: str) -> None:
    """Trace the allocations of this process; snapshots and the series go to ``folder``."""
    os.makedirs(folder, exist_ok=True)
    tracemalloc.start(FRAMES)
    began = time.monotonic()
    series: list[tuple[float, int, int]] = []

    def dump(name: str) -> None:
        snapshot = tracemalloc.take_snapshot()
        snapshot.dump(os.path.join(folder, name + ".tmp"))
        os.replace(os.path.join(folder, name + ".tmp"), os.path.join(folder, name))

    def every() -> None:
        highest = 0
        last = time.monotonic()
        while True:
            time.sleep(2.0)
            current, _ = tracemalloc.get_traced_memory()
            series.append((round(time.monotonic() - began, 1), current, _rss()))
            with open(os.path.join(folder, "series.json"), "w") as fh:
                json.dump(series, fh)
            if current > highest + GROWTH:
                highest = current
                dump("peak.snap")
            elif time.monotonic() - last > 30:
                last = time.monotonic()
                dump("last.snap")

    threading.Thread(target=every, name="memtrace", daemon=True).start()


def place(filename: str) -> str:
    """The part of the program a file belongs to."""
    for part, name in PLACES:
        if part in filename:
            return name
    return "python" if "/lib/python3" in filename else "other"


def _clean(snapshot: tracemalloc.Snapshot) -> tracemalloc.Snapshot:
    return snapshot.filter_traces(
        (
            tracemalloc.Filter(False, tracemalloc.__file__),
            tracemalloc.Filter(False, __file__),
        )
    )


def report(folder: str, top: int = 25) -> str:
    """By part of the program, by file and line, and the largest tracebacks of each
    snapshot in ``folder``."""
    out = []
    for name in ("peak.snap", "last.snap"):
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            continue
        snapshot = _clean(tracemalloc.Snapshot.load(path))
        stats = snapshot.statistics("lineno")
        total = sum(s.size for s in stats)
        out.append(f"== {name}: {total / 2**20:.1f} MB traced, {len(snapshot.traces)} blocks")
        parts: dict[str, int] = defaultdict(int)
        for s in stats:
            parts[place(s.traceback[0].filename)] += s.size
        for part, size in sorted(parts.items(), key=lambda kv: -kv[1]):
            out.append(f"  {size / 2**20:7.2f} MB  {part}")
        out.append("  -- by file and line")
        for s in stats[:top]:
            frame = s.traceback[0]
            out.append(
                f"  {s.size / 2**20:7.2f} MB {s.count:8d}  {_short(frame.filename)}:{frame.lineno}"
            )
        out.append("  -- by traceback (the bot's frames)")
        for s in snapshot.statistics("traceback")[: top // 2]:
            out.append(f"  {s.size / 2**20:7.2f} MB {s.count:8d}")
            for frame in s.traceback[::-1][:FRAMES]:
                out.append(f"        {_short(frame.filename)}:{frame.lineno}")
    series = os.path.join(folder, "series.json")
    if os.path.exists(series):
        with open(series) as fh:
            points = json.load(fh)
        out.append("== traced / RSS MB every ~20 s")
        for t, traced, rss in points[::10]:
            out.append(f"  {t:7.0f} s  {traced / 2**20:7.1f}  {rss / 2**20:7.1f}")
    return "\n".join(out)


ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")) + "/"


def _short(filename: str) -> str:
    for marker in ("site-packages/", ROOT, "lib/python3.11/"):
        if marker in filename:
            return filename.split(marker, 1)[1]
    return filename


def main() -> None:
    parser = argparse.ArgumentParser(description="Where the bot's memory went, by a traced run.")
    parser.add_argument("folder", help="the folder bot_load.py --tracemalloc wrote")
    parser.add_argument("top", nargs="?", type=int, default=25, help="lines of each part")
    args = parser.parse_args()
    print(report(args.folder, args.top))


if __name__ == "__main__":
    main()
