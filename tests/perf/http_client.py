"""Benchmark: CPU per Bot API call of each HTTP client python-telegram-bot can use here.

    python tests/perf/http_client.py                  # 3 rounds x 2,000 calls per client
    python tests/perf/http_client.py --calls 5000 --rounds 5 --concurrency 1 32

A tiny keep-alive HTTP server in another process (pinned to the other core when there are
two) answers every request with the same ``sendMessage`` result. In this process a
``telegram.Bot`` sends a typical message of the bot (a ~400-character Russian text and a
two-row inline keyboard) through each client in turn, ``--concurrency`` calls in flight,
and the CPU time of this process (``time.process_time``) per call is printed. ``null`` is a
client that answers at once without any I/O: python-telegram-bot's own share of a call, so
``client - null`` is the transport's. Clients run in alternating rounds (so that a change
of the machine's load hits all of them alike); the figure is each client's median round.

Clients: ``aiohttp`` (``bot.telegram.transport.AiohttpRequest``, the bot's), ``httpx``
(PTB's default ``HTTPXRequest``, its pool as PTB sizes it), and ``lean`` -- the hand-written
HTTP/1.1 client this project used before (``bot/http.py``), measured only where that module
still exists (``--lean-file``: that module, taken from the history).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

TOKEN = "123456789:AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQ"
TEXT = (
    "<b>Сдача 3</b> · Сочинка · пуля 20\n"
    "Торговля: Анна — 6♠, Борис — пас, Вера — 7♣, Анна — 7♦, Вера — пас.\n"
    "Ход Анны: заказывает игру.\n\n"
    "Ваши карты: ♠ A K 10 8 · ♣ Q J 9 · ♦ A 10 · ♥ K 7\n"
    "Прикуп: 8♥ 7♦ — снесено две карты.\n"
    "Вистуют: Борис. Вера — пас. Осталось ходов: 10, время на ход: 60 с."
)
KEYBOARD = {
    "inline_keyboard": [
        [{"text": f"{n}♠", "callback_data": f"1:a:b{n}S"} for n in (6, 7, 8, 9, 10)],
        [{"text": t, "callback_data": f"1:a:{c}"} for t, c in (("Пас", "p"), ("Мизер", "m"))],
    ]
}
SERVER = r"""
import asyncio, json, os, sys
body = json.dumps({"ok": True, "result": {
    "message_id": 7, "date": 0, "chat": {"id": 5, "type": "private"},
    "text": sys.argv[1]}}, ensure_ascii=False).encode()
head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
response = head % len(body) + body
me = json.dumps({"ok": True, "result": {"id": 1, "is_bot": True, "first_name": "b",
    "username": "b"}}).encode()
me_response = head % len(me) + me

async def serve(reader, writer):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
            if length:
                await reader.readexactly(length)
            writer.write(me_response if b"/getMe " in head[:200] else response)
    except (asyncio.IncompleteReadError, ConnectionError):
        writer.close()

async def main():
    server = await asyncio.start_server(serve, "127.0.0.1", 0, backlog=512)
    print(server.sockets[0].getsockname()[1], flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""


def clients(lean_file: str | None) -> dict[str, Callable[[int], Any]]:
    from telegram.request import BaseRequest, HTTPXRequest

    from bot.telegram.transport import AiohttpRequest

    answer = json.dumps(
        {
            "ok": True,
            "result": {
                "message_id": 7,
                "date": 0,
                "chat": {"id": 5, "type": "private"},
                "text": TEXT,
            },
        }
    ).encode()
    me = b'{"ok":true,"result":{"id":1,"is_bot":true,"first_name":"b","username":"b"}}'

    class NullRequest(BaseRequest):
        """No I/O at all: what python-telegram-bot itself costs per call."""

        @property
        def read_timeout(self) -> float | None:
            return 5.0

        async def initialize(self) -> None:
            pass

        async def shutdown(self) -> None:
            pass

        async def do_request(self, url: str, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
            return 200, me if url.endswith("/getMe") else answer

    made: dict[str, Callable[[int], Any]] = {
        "null": lambda n: NullRequest(),
        "aiohttp": lambda n: AiohttpRequest(n, pool_timeout=None),
        "httpx": lambda n: HTTPXRequest(connection_pool_size=max(n, 1)),
    }
    if lean_file and os.path.exists(lean_file):
        import importlib.util

        spec = importlib.util.spec_from_file_location("lean_http", lean_file)
        assert spec is not None and spec.loader is not None
        lean = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(lean)
        made["lean"] = lambda n: lean.LeanRequest(n, pool_timeout=None)
    elif lean_file:
        print(f"no {lean_file}: 'lean' skipped", file=sys.stderr)
    return made


async def one_round(make: Callable[[int], Any], port: int, calls: int, concurrency: int) -> float:
    """CPU seconds per call of ``calls`` sendMessage calls, ``concurrency`` at a time."""
    from telegram import Bot, InlineKeyboardMarkup

    markup = InlineKeyboardMarkup.de_json(KEYBOARD, None)
    bot = Bot(TOKEN, base_url=f"http://127.0.0.1:{port}/bot", request=make(concurrency))
    async with bot:

        async def worker(n: int) -> None:
            for _ in range(n):
                await bot.send_message(5, TEXT, parse_mode="HTML", reply_markup=markup)

        await worker(50)  # connections opened, caches warm
        share, rest = divmod(calls, concurrency)
        start = time.process_time()
        await asyncio.gather(*(worker(share + (i < rest)) for i in range(concurrency)))
        return (time.process_time() - start) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 32])
    parser.add_argument("--clients", nargs="+", default=["null", "lean", "aiohttp", "httpx"])
    parser.add_argument(
        "--lean-file",
        default=os.path.join(ROOT, "bot", "http.py"),
        help="the old client's module, e.g. from: git show 73ff169:bot/http.py > /tmp/lean.py",
    )
    args = parser.parse_args()
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    cpus = sorted(os.sched_getaffinity(0))
    server_cpu = {cpus[-1]} if len(cpus) > 1 else None
    if server_cpu:
        os.sched_setaffinity(0, {cpus[0]})
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, TEXT],
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=(lambda: os.sched_setaffinity(0, server_cpu)) if server_cpu else None,
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        made = clients(args.lean_file)
        names = [name for name in args.clients if name in made]
        print(
            f"python {sys.version.split()[0]}; {args.rounds} rounds x {args.calls} calls; "
            f"client on core {cpus[0]}, server on {server_cpu or 'the same core'}"
        )
        for concurrency in args.concurrency:
            per: dict[str, list[float]] = {name: [] for name in names}
            for _ in range(args.rounds):
                for name in names:
                    cost = asyncio.run(one_round(made[name], port, args.calls, concurrency))
                    per[name].append(cost)
            null = statistics.median(per["null"]) if "null" in per else 0.0
            print(f"\n{concurrency} in flight: µs CPU per sendMessage (median of rounds)")
            print("| client | whole call | transport (call - null) | rounds |")
            print("|---|---:|---:|---|")
            for name in names:
                med = statistics.median(per[name])
                rounds = " ".join(f"{x * 1e6:.0f}" for x in per[name])
                print(f"| {name} | {med * 1e6:.0f} | {(med - null) * 1e6:.0f} | {rounds} |")
    finally:
        server.kill()
        server.wait()


if __name__ == "__main__":
    main()
