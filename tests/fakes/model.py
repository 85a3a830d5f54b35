"""The fake Telegram's records: users, chats, messages, files, calls, and its errors."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

JSONDict = dict[str, Any]
Rows = list[list[tuple[str, str | None]]]

NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup are "
    "exactly the same as a current content and reply markup of the message"
)
QUERY_TOO_OLD = "Bad Request: query is too old and response timeout expired or query ID is invalid"


class ApiError(Exception):
    """A Bot API error answer (``{"ok": false, "error_code": ..., "description": ...}``)."""

    def __init__(self, code: int, description: str, parameters: JSONDict | None = None) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters

    def body(self) -> JSONDict:
        """The JSON body Telegram answers with."""
        body: JSONDict = {"ok": False, "error_code": self.code, "description": self.description}
        if self.parameters:
            body["parameters"] = dict(self.parameters)
        return body


class InjectedTimeout(Exception):
    """A test injected a timeout: the transport holds the request past the client's timeout."""

    kind = "timeout"

    def __init__(self, method: str) -> None:
        super().__init__(f"injected {self.kind} in {method}")
        self.method = method


class InjectedReset(InjectedTimeout):
    """A test injected a reset: the transport drops the connection without an answer."""

    kind = "reset"


FailureSpec = str | tuple[int, int | float | str]
"""``"timeout"``, ``"reset"``, ``(429, retry_after)`` or ``(code, description)``."""


class ManualClock:
    """A clock for ``FakeTelegram(clock=...)`` that only moves when the test says so."""

    def __init__(self, start: float = 1_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move time forward."""
        self.now += seconds


@dataclass
class FloodLimits:
    """Telegram's flood limits: a private chat's rate with a short burst, a group's 20 a
    minute (sends and edits alike) and 30 a second over all chats."""

    enabled: bool = True
    private_per_second: float = 1.0
    private_burst: int = 3
    group_per_minute: int = 20
    group_window: float = 60.0
    global_per_second: int = 30


@dataclass(eq=False)
class FakeUser:
    """A Telegram user (or the bot itself when ``is_bot``)."""

    id: int
    first_name: str
    last_name: str | None = None
    username: str | None = None
    language_code: str | None = "en"
    is_bot: bool = False
    started: bool = False  # pressed Start in the private chat with the bot
    blocked: bool = False  # blocked the bot
    deactivated: bool = False

    def to_api(self) -> JSONDict:
        """The Bot API ``User`` object."""
        data: JSONDict = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        if self.last_name:
            data["last_name"] = self.last_name
        if self.username:
            data["username"] = self.username
        if self.language_code and not self.is_bot:
            data["language_code"] = self.language_code
        return data

    @property
    def full_name(self) -> str:
        """First and last name."""
        return f"{self.first_name} {self.last_name}" if self.last_name else self.first_name


@dataclass(eq=False)
class FakeChat:
    """A private chat, group or supergroup as the bot sees it."""

    id: int
    type: str  # "private" | "group" | "supergroup"
    title: str | None = None
    user: FakeUser | None = None  # the other side of a private chat
    members: dict[int, str] = field(default_factory=dict)  # user id -> ChatMember status
    bot_status: str = "member"  # member | left | kicked (groups only)
    migrated_to: int | None = None
    migrated_from: int | None = None
    message_ids: list[int] = field(default_factory=list)
    next_message_id: int = 0  # a supergroup numbers its messages itself

    def to_api(self) -> JSONDict:
        """The Bot API ``Chat`` object."""
        if self.user is not None:
            data: JSONDict = {"id": self.id, "first_name": self.user.first_name}
            if self.user.last_name:
                data["last_name"] = self.user.last_name
            if self.user.username:
                data["username"] = self.user.username
            data["type"] = "private"
            return data
        data = {"id": self.id, "title": self.title, "type": self.type}
        if self.type == "group":
            data["all_members_are_administrators"] = True
        return data

    @property
    def bot_is_member(self) -> bool:
        """Whether the bot is in this group now."""
        return self.bot_status == "member"


@dataclass(eq=False, frozen=True)
class StoredFile:
    """An uploaded file with the ids Telegram gave it."""

    file_id: str
    file_unique_id: str
    kind: str  # "photo" | "document"
    data: bytes
    file_name: str | None
    mime_type: str | None
    width: int | None = None
    height: int | None = None

    def to_api(self) -> JSONDict | list[JSONDict]:
        """``photo`` (PhotoSize list) or ``document`` as in a Message."""
        if self.kind == "photo":
            return [
                {
                    "file_id": self.file_id,
                    "file_unique_id": self.file_unique_id,
                    "file_size": len(self.data),
                    "width": self.width,
                    "height": self.height,
                }
            ]
        data: JSONDict = {"file_name": self.file_name, "mime_type": self.mime_type}
        data.update(file_id=self.file_id, file_unique_id=self.file_unique_id)
        data["file_size"] = len(self.data)
        return data


@dataclass(eq=False)
class StoredMessage:
    """One message with its current state and edit history."""

    chat: FakeChat
    message_id: int
    sender: FakeUser
    date: int
    text: str | None = None
    entities: list[JSONDict] = field(default_factory=list)
    caption: str | None = None
    caption_entities: list[JSONDict] = field(default_factory=list)
    media: StoredFile | None = None
    reply_markup: JSONDict | None = None  # inline keyboard, echoed in API answers
    sent_text: str | None = None  # text or caption exactly as the bot sent it
    parse_mode: str | None = None
    reply_to: StoredMessage | None = None
    edit_date: int | None = None
    history: list[JSONDict] = field(default_factory=list)
    deleted: bool = False
    service: JSONDict = field(default_factory=dict)

    def snapshot(self) -> JSONDict:
        """The visible state, for the edit history."""
        return {
            "text": self.text,
            "entities": [dict(e) for e in self.entities],
            "caption": self.caption,
            "media_file_id": self.media.file_id if self.media else None,
            "reply_markup": keyboard_rows(self.reply_markup),
            "sent_text": self.sent_text,
            "parse_mode": self.parse_mode,
            "date": self.edit_date or self.date,
        }


@dataclass
class MessageView:
    """A copy of a message as a user sees it now."""

    chat_id: int
    message_id: int
    from_bot: bool
    text: str | None
    entities: list[JSONDict]
    caption: str | None
    caption_entities: list[JSONDict]
    reply_markup: Rows | None
    media: StoredFile | None  # kind, data, file_name, mime_type, width, height
    sent_text: str | None
    history: list[JSONDict]
    deleted: bool
    service: JSONDict

    @property
    def edit_count(self) -> int:
        """How many times the message was edited."""
        return len(self.history)

    @property
    def buttons(self) -> list[tuple[str, str | None]]:
        """All inline buttons, row by row."""
        return [button for row in self.reply_markup or [] for button in row]

    @property
    def content(self) -> str:
        """Text or caption (empty if neither)."""
        return self.text if self.text is not None else (self.caption or "")


@dataclass
class CallbackQueryRecord:
    """A button press and whether and how the bot answered it."""

    id: str
    user_id: int
    chat_id: int
    message_id: int
    data: str | None
    time: float
    answered: bool = False
    answer: JSONDict | None = None


class ApiCall:
    """One Bot API request as the fake received it; ``response`` is decoded on first read."""

    __slots__ = ("method", "params", "time", "status", "_body", "_raw")

    def __init__(
        self, method: str, params: JSONDict, time: float, status: int | str, raw: bytes | None
    ) -> None:
        self.method = method
        self.params = params
        self.time = time
        self.status = status  # HTTP status, or "timeout" / "reset" for injected failures
        self._raw = raw
        self._body: JSONDict | None = None

    @property
    def response(self) -> JSONDict | None:
        """The answer's JSON body (None for an injected transport failure)."""
        if self._raw is not None:
            self._body = json.loads(self._raw)
            self._raw = None
        return self._body

    @property
    def ok(self) -> bool:
        """Whether the call succeeded."""
        return self.status == 200

    def __repr__(self) -> str:
        return f"ApiCall({self.method!r}, {self.params!r}, {self.time!r}, {self.status!r})"


@dataclass
class FloodError:
    """A 429 answered to the bot."""

    method: str
    chat_id: int | None
    scope: str  # "private" | "group" | "global" | "injected"
    retry_after: int | float  # a float only when a test injected one (time scaled)
    time: float


@dataclass
class FailureRule:
    """A test's injected failure: which calls it hits, how, and how many more times."""

    methods: frozenset[str] | None
    predicate: Callable[[str, JSONDict], bool] | None
    error: FailureSpec
    remaining: int | None
    applied: bool


def keyboard_rows(markup: JSONDict | None) -> Rows | None:
    """An inline keyboard as rows of ``(text, callback_data or url)``."""
    if not markup or "inline_keyboard" not in markup:
        return None
    return [
        [(str(b.get("text", "")), b.get("callback_data", b.get("url"))) for b in row]
        for row in markup["inline_keyboard"]
    ]
