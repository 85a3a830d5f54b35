"""``python -m bot`` with ``WEBAPP_URL``: the Mini App's server starts with the bot (long
polling) and ends with it."""

from __future__ import annotations

import asyncio
import re
import signal
from pathlib import Path

import aiohttp
import pytest

from tests.bot_helpers import bot_env
from tests.e2e.bot_process import gone, send, start
from tests.fakes import FakeBotApiServer, FakeTelegram, FloodLimits

STARTED = re.compile(r"mini app on 127\.0\.0\.1:(\d+) \(https://pref\.example\.com/app/\)")


@pytest.mark.slow
async def test_the_mini_app_runs_and_stops_with_the_bot(tmp_path: Path) -> None:
    fake = FakeTelegram(flood=FloodLimits(enabled=False))
    server = FakeBotApiServer(fake)
    server.start_in_thread()
    log = tmp_path / "bot.log"
    env = bot_env(
        fake,
        server,
        tmp_path,
        WEBAPP_URL="https://pref.example.com/app/",
        WEBAPP_LISTEN="127.0.0.1",
        WEBAPP_PORT="0",
    )
    pid = start(env, tmp_path, log)
    try:
        fake.wait_until_sync(lambda: fake.calls_to("getUpdates"), timeout=30, what="polling")
        await asyncio.to_thread(
            fake.wait_until_sync,
            lambda: STARTED.search(log.read_text()) is not None,
            timeout=30,
            what="the mini app's start",
        )
        found = STARTED.search(log.read_text())
        assert found is not None
        url = f"http://127.0.0.1:{found[1]}"
        async with aiohttp.ClientSession() as session:
            async with session.get(url + "/healthz") as response:
                assert response.status == 200
                assert await response.json() == {"ok": True, "database": "ok", "telegram": "ok"}
            async with session.ws_connect(url + "/app/ws") as ws:
                await ws.send_json({"t": "hello", "init": "", "table": 1})
                refused = await ws.receive_json(timeout=30)
                assert refused["t"] == "refused" and refused["code"] == "auth"
        send(pid, signal.SIGTERM)
        assert gone(pid, 30)
    finally:
        if not gone(pid, 0):
            send(pid, signal.SIGKILL)
            gone(pid, 10)
        server.stop()
    text = log.read_text()
    assert "ERROR" not in text and "Traceback" not in text, text[-3000:]
    assert "stopping:" not in text, text[-3000:]  # every step of the stop in its time
