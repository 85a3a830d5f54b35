"""The fake Telegram served over HTTP on 127.0.0.1 by an ``aiohttp.web`` server.

In the test's event loop::

    srv = await FakeBotApiServer(fake).start()
    app = Application.builder().token(fake.token).base_url(srv.base_url).build()
    ...
    await srv.aclose()

or in a thread of its own, for a bot in a subprocess or another thread::

    srv = FakeBotApiServer(fake)
    srv.start_in_thread()
    ...
    srv.stop()
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from aiohttp import web

from ._media import UploadedFile
from .model import InjectedReset, InjectedTimeout
from .telegram import FakeTelegram


class FakeBotApiServer:
    """Serves ``POST``/``GET /bot<token>/<method>`` (JSON, form or multipart bodies). An
    injected timeout holds the request until the client gives up (at most
    ``injected_timeout_hold`` seconds); an injected reset drops the connection."""

    def __init__(
        self, fake: FakeTelegram, port: int = 0, *, injected_timeout_hold: float = 30.0
    ) -> None:
        self.fake = fake
        self.port = port
        self.injected_timeout_hold = injected_timeout_hold
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def root_url(self) -> str:
        """``http://127.0.0.1:PORT``, for the bot's ``TELEGRAM_API_URL``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """For ``ApplicationBuilder.base_url``."""
        return f"{self.root_url}/bot"

    async def start(self) -> FakeBotApiServer:
        """Listen in the running event loop."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._answer)
        # A client that goes away cancels its request: a long poll or a held timeout ends;
        # stopping waits for no request (a held one would keep it up to its hold).
        self._runner = web.AppRunner(
            app, access_log=None, handler_cancellation=True, shutdown_timeout=0.1
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", self.port)
        await site.start()
        self.port = self._runner.addresses[0][1]
        return self

    async def aclose(self) -> None:
        """Stop listening and drop every connection."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def start_in_thread(self, timeout: float = 5.0) -> str:
        """Serve from a thread with its own event loop; returns :attr:`base_url`."""
        loop = asyncio.new_event_loop()
        started = asyncio.run_coroutine_threadsafe(self.start(), loop)
        self._loop = loop
        self._thread = threading.Thread(target=loop.run_forever, name="FakeBotApi", daemon=True)
        self._thread.start()
        started.result(timeout)
        return self.base_url

    def stop(self, timeout: float = 5.0) -> None:
        """Stop a server started by :meth:`start_in_thread`."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        asyncio.run_coroutine_threadsafe(self.aclose(), loop).result(timeout)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout)
        loop.close()
        self._loop = self._thread = None

    async def _answer(self, request: web.Request) -> web.StreamResponse:
        error = self.fake.check_token(request.match_info["token"])
        if error is not None:
            return web.json_response(error[1], status=error[0])
        params: dict[str, Any] = dict(request.query)
        if request.content_type == "application/json":
            params.update(await request.json())
        elif request.can_read_body:
            for name, value in (await request.post()).items():
                if isinstance(value, web.FileField):
                    content = value.file.read()
                    params[name] = UploadedFile(value.filename, content, value.content_type)
                else:
                    params[name] = value
        try:
            status, body = await self.fake.handle_encoded(request.match_info["method"], params)
        except InjectedTimeout as exc:
            if not isinstance(exc, InjectedReset):
                await asyncio.sleep(self.injected_timeout_hold)
            if request.transport is not None:
                request.transport.abort()  # no answer: the client sees the connection drop
            return web.Response()
        return web.Response(body=body, status=status, content_type="application/json")
