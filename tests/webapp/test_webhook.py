"""Webhook mode with the Mini App: one port for the webhook, the Mini App and /healthz;
the webhook's own limits stay in front."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import time
from pathlib import Path

import aiohttp
import pytest

from bot.webapp.auth import sign
from tests.e2e.bot_process import start
from tests.e2e.test_bot_webhook import _hooked, _listening, _post, _stop


@pytest.mark.waits
async def test_one_port_serves_the_webhook_the_mini_app_and_health(tmp_path: Path) -> None:
    fake, user, group, server, port, env = _hooked(
        tmp_path, WEBHOOK_SECRET="s3cret-token", WEBAPP_URL="https://preferans.example.org/app/"
    )
    log = tmp_path / "bot.log"
    pid = start(env, tmp_path, log)
    try:
        await asyncio.to_thread(_listening, port)
        base = f"http://127.0.0.1:{port}"
        hook = base + "/tg-hook"
        assert await asyncio.to_thread(_post, hook, {"update_id": 1}, None) == 403
        person = json.dumps({"id": user.id, "first_name": "Anna"})
        init = sign({"user": person, "auth_date": str(int(time.time()))}, fake.token)
        async with aiohttp.ClientSession() as session:
            async with session.get(base + "/healthz") as response:
                assert response.status == 200
                assert (await response.json())["ok"] is True
            async with session.get(base + "/app/static/none.js") as response:
                assert response.status == 404  # the Mini App's server answered
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True)) as one:
            # (each on a connection of its own: the webhook's front sees its head)
            async with one.post(base + "/app/ws", data=b"x" * 1000) as response:
                assert response.status == 405  # refused in front, its body unread
            async with one.get(base + "/app/", data=b"x" * 1000) as response:
                assert response.status == 413
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(base + "/app/ws") as ws:
                await ws.send_json({"t": "hello", "init": init, "table": 7})
                refused = await ws.receive_json(timeout=30)
                closing = await ws.receive(timeout=30)
        assert refused["t"] == "refused" and refused["code"] == "no_table"
        assert closing.type == aiohttp.WSMsgType.CLOSE and ws.close_code == 4404
        # the webhook's limits stay in front: a slow socket is dropped after its time
        with socket.create_connection(("127.0.0.1", port), timeout=30) as slow:
            slow.sendall(b"GET /app/ws HTTP/1.1\r\nHost: x\r\n")
            assert await asyncio.to_thread(slow.recv, 100) == b""
    finally:
        _stop(pid, server, signal.SIGTERM)
    text = log.read_text()
    assert "mini app on 127.0.0.1:" in text
    assert "ERROR" not in text and "Traceback" not in text, text[-3000:]
    assert "stopping:" not in text, text[-3000:]  # every step of the stop in its time
