"""A fake Telegram Bot API for tests: the in-memory Telegram, PTB's in-process request
backend and an HTTP server. README.md in this folder describes them."""

from ._media import UploadedFile
from .http_server import FakeBotApiServer
from .inprocess import FakeRequest
from .model import (
    ApiCall,
    ApiError,
    FakeChat,
    FakeUser,
    FloodError,
    FloodLimits,
    ManualClock,
    MessageView,
)
from .telegram import FakeTelegram

__all__ = [
    "ApiCall",
    "ApiError",
    "FakeBotApiServer",
    "FakeChat",
    "FakeRequest",
    "FakeTelegram",
    "FakeUser",
    "FloodError",
    "FloodLimits",
    "ManualClock",
    "MessageView",
    "UploadedFile",
]
