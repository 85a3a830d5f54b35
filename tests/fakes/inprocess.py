"""A python-telegram-bot request backend that talks to a FakeTelegram without any network.

Usage::

    fake = FakeTelegram()
    app = (
        Application.builder()
        .token(fake.token)
        .request(FakeRequest(fake))
        .get_updates_request(FakeRequest(fake))
        .build()
    )
"""

from __future__ import annotations

import json
import re
from typing import IO, Any
from urllib.parse import parse_qsl

from telegram._utils.types import ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

from ._media import UploadedFile
from ._routes import route
from .telegram_state import FakeTelegram, InjectedReset, InjectedTimeout

_API_PATH = re.compile(r"/bot(?P<token>[^/]+)/(?P<method>[A-Za-z0-9_]+)/?$")
_FILE_PATH = re.compile(r"/file/bot(?P<token>[^/]+)/(?P<path>.+)$")


def request_params(request_data: RequestData | None) -> dict[str, Any]:
    """The parameters exactly as PTB's HTTPXRequest would put them on the wire.

    Non-file values are the JSON-encoded strings of ``RequestData.json_parameters`` (plain
    strings stay as they are) and file parts become :class:`UploadedFile`.
    """
    params: dict[str, Any] = {}
    if request_data is None:
        return params
    params.update(request_data.json_parameters)
    for name, (filename, content, mimetype) in request_data.multipart_data.items():
        if not isinstance(content, bytes):
            handle: IO[bytes] = content
            content = handle.read()
        params[name] = UploadedFile(filename, content, mimetype)
    return params


class FakeRequest(BaseRequest):
    """Routes PTB's Bot API calls straight into a :class:`FakeTelegram`.

    Injected ``"timeout"`` failures raise :class:`telegram.error.TimedOut`, injected
    ``"reset"`` failures :class:`telegram.error.NetworkError`, as HTTPXRequest would.
    """

    def __init__(self, fake: FakeTelegram, *, read_timeout: float | None = 5.0) -> None:
        self.fake = fake
        self._read_timeout = read_timeout
        self._initialized = False

    @property
    def read_timeout(self) -> float | None:
        """Default read timeout (PTB adds the long-poll timeout to it for getUpdates)."""
        return self._read_timeout

    async def initialize(self) -> None:
        """Nothing to set up."""
        self._initialized = True

    async def shutdown(self) -> None:
        """Nothing to tear down."""
        self._initialized = False

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        """Answer the request from the fake: ``(status, JSON payload bytes)``."""
        del read_timeout, write_timeout, connect_timeout, pool_timeout
        file_route, api_route, query = route(url, _API_PATH, _FILE_PATH)
        if file_route is not None and method == "GET":
            error = self.fake.check_token(file_route[0])
            content = self.fake.file_content(file_route[1]) if error is None else None
            if content is None:
                return 404, b'{"ok":false,"error_code":404,"description":"Not Found"}'
            return 200, content
        if api_route is None:
            return 404, b'{"ok":false,"error_code":404,"description":"Not Found"}'
        error = self.fake.check_token(api_route[0])
        if error is not None:
            return error[0], json.dumps(error[1]).encode()
        params: dict[str, Any] = dict(parse_qsl(query, keep_blank_values=True))
        params.update(request_params(request_data))
        try:
            status, payload = await self.fake.handle_encoded(api_route[1], params)
        except InjectedTimeout as exc:
            raise TimedOut(f"Timed out (injected by FakeTelegram in {exc.method})") from exc
        except InjectedReset as exc:
            raise NetworkError(
                f"httpx.ReadError: connection reset (injected in {exc.method})"
            ) from exc
        return status, payload
