"""A fake Telegram Bot API for tests: in-memory model, in-process PTB backend, HTTP server.

See README.md in this folder for the API.
"""

from ._media import UploadedFile
from .http_server import FakeBotApiServer
from .inprocess import FakeRequest
from .telegram_state import (
    ApiCall,
    ApiError,
    CallbackQueryRecord,
    FakeChat,
    FakeTelegram,
    FakeUser,
    FloodError,
    FloodLimits,
    InjectedReset,
    InjectedTimeout,
    ManualClock,
    MediaView,
    MessageView,
)

__all__ = [
    "ApiCall",
    "ApiError",
    "CallbackQueryRecord",
    "FakeBotApiServer",
    "FakeChat",
    "FakeRequest",
    "FakeTelegram",
    "FakeUser",
    "FloodError",
    "FloodLimits",
    "InjectedReset",
    "InjectedTimeout",
    "ManualClock",
    "MediaView",
    "MessageView",
    "UploadedFile",
]
