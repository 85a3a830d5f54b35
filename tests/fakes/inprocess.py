"""A python-telegram-bot request backend that hands PTB's calls to a FakeTelegram, with no
network::

    fake = FakeTelegram()
    app = Application.builder().token(fake.token).request(FakeRequest(fake)).build()
"""

from __future__ import annotations

import re
from typing import IO, Any

from telegram._utils.types import ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

from ._media import UploadedFile
from .model import InjectedReset, InjectedTimeout
from .telegram import FakeTelegram, encode

_API_PATH = re.compile(r"/bot([^/]+)/([A-Za-z0-9_]+)$")


class FakeRequest(BaseRequest):
    """Hands each call to the fake with the parameters PTB's HTTPXRequest would put on the
    wire (JSON-encoded strings, file parts as :class:`UploadedFile`). An injected timeout
    raises TimedOut and an injected reset NetworkError, as HTTPXRequest would."""

    def __init__(self, fake: FakeTelegram, *, read_timeout: float | None = 5.0) -> None:
        self.fake = fake
        self._read_timeout = read_timeout

    @property
    def read_timeout(self) -> float | None:
        """PTB adds the long poll's timeout to it for getUpdates."""
        return self._read_timeout

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to tear down."""

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
        """``(status, JSON body)`` of the fake's answer."""
        found = _API_PATH.search(url)
        if found is None:
            return 404, encode({"ok": False, "error_code": 404, "description": "Not Found"})
        error = self.fake.check_token(found[1])
        if error is not None:
            return error[0], encode(error[1])
        params: dict[str, Any] = {}
        if request_data is not None:
            params.update(request_data.json_parameters)
            for name, (filename, content, mimetype) in request_data.multipart_data.items():
                if not isinstance(content, bytes):
                    handle: IO[bytes] = content
                    content = handle.read()
                params[name] = UploadedFile(filename, content, mimetype)
        try:
            return await self.fake.handle_encoded(found[2], params)
        except InjectedReset as exc:
            raise NetworkError(f"connection reset (injected in {exc.method})") from exc
        except InjectedTimeout as exc:
            raise TimedOut(f"Timed out (injected in {exc.method})") from exc
