"""``python -m bot.healthcheck`` (the container's HEALTHCHECK) in long polling: healthy
while the database can be read and Telegram answers getMe, one line why not otherwise
(webhook mode asks the bot's /healthz: tests/e2e/test_bot_webhook.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from bot import health
from bot.config import Config
from bot.healthcheck import main
from bot.telegram.webhook import Webhook
from tests.bot_helpers import bot_env
from tests.fakes import FakeBotApiServer, FakeTelegram


def test_the_polling_health_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = FakeTelegram()
    server = FakeBotApiServer(fake)
    server.start_in_thread()
    try:
        env = bot_env(fake, server, tmp_path)
        for name in ("BOT_TOKEN", "TELEGRAM_API_URL", "DATABASE_PATH"):
            monkeypatch.setenv(name, env[name])
        monkeypatch.delenv("WEBHOOK_URL", raising=False)
        monkeypatch.delenv("DATABASE_URL", raising=False)
        assert main() == 0
        assert capsys.readouterr().err == ""

        fake.fail_next("getMe", error=(401, "Unauthorized"))
        assert main() == 1
        err = capsys.readouterr().err
        assert err == "unhealthy: telegram: getMe answered 401\n"
        assert fake.token.split(":")[1] not in err

        broken = tmp_path / "broken.sqlite3"
        broken.write_bytes(b"not a database at all" * 100)
        monkeypatch.setenv("DATABASE_PATH", str(broken))
        assert main() == 1
        assert capsys.readouterr().err.startswith("unhealthy: database: database ")
    finally:
        server.stop()


def test_a_bad_setting_is_unhealthy(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("BOT_TOKEN", raising=False)
    assert main() == 1
    assert capsys.readouterr().err.startswith("unhealthy: BOT_TOKEN is not set")


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """urllib would go through a proxy the environment names, even to 127.0.0.1."""
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)


async def test_the_two_probes_run_side_by_side() -> None:
    """The webhook gives a request IDLE seconds: the database and Telegram are asked at
    once, so the report comes within one TIMEOUT even when both hang. Here each probe
    answers only once the other has started: one after the other, the first times out."""
    started = {"database": asyncio.Event(), "telegram": asyncio.Event()}

    async def both(mine: str, other: str) -> None:
        started[mine].set()
        await started[other].wait()

    async def schema_version() -> int:
        await both("database", "telegram")
        return 6

    async def get_me() -> None:
        await both("telegram", "database")

    app: Any = SimpleNamespace(
        bot_data=SimpleNamespace(storage=SimpleNamespace(schema_version=schema_version)),
        bot=SimpleNamespace(get_me=get_me),
    )
    assert await health.check(app) == (True, {"ok": True, "database": "ok", "telegram": "ok"})


async def test_health_requests_that_come_together_share_one_check() -> None:
    """/healthz needs no secret, and each check's getMe counts against the rate limit the
    game's messages share: requests that come while a check runs wait for that one."""
    asked, answer = asyncio.Event(), asyncio.Event()
    calls = []

    async def schema_version() -> int:
        return 6

    async def get_me() -> None:
        calls.append(1)
        asked.set()
        await answer.wait()

    hook = Webhook(Config(token="1:x", webhook_url="https://example.org/hook"))
    app: Any = SimpleNamespace(
        bot_data=SimpleNamespace(storage=SimpleNamespace(schema_version=schema_version)),
        bot=SimpleNamespace(get_me=get_me),
    )
    hook.app = app

    async def healthz() -> object:
        reader = asyncio.StreamReader()
        reader.feed_data(b"GET /healthz HTTP/1.1\r\nHost: bot\r\n\r\n")
        reader.feed_eof()
        return await hook.front._request(reader, cast(Any, object()))

    requests = [asyncio.create_task(healthz()) for _ in range(5)]
    await asked.wait()
    answer.set()
    report = b'{"ok": true, "database": "ok", "telegram": "ok"}'
    assert await asyncio.gather(*requests) == [(200, report)] * 5
    assert len(calls) == 1
    await hook.stop(app)
