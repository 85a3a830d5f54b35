"""A pure in-memory model of the Telegram Bot API for one bot.

``FakeTelegram.handle(method, params)`` answers Bot API calls the way api.telegram.org does
(same JSON shapes, HTTP status codes and error descriptions); the simulation methods
(``add_user``, ``send_text``, ``press``...) let tests play the users, and the inspection
methods (``messages``, ``calls``, ``callback_answers``...) let them check what the bot did.

Everything is guarded by one re-entrant lock, so the model can be driven from a test thread
while an HTTP server thread serves the bot.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import math
import mimetypes
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ._formatting import EntityParseError, format_text
from ._media import UploadedFile, image_size, photo_sizes

JSONDict = dict[str, Any]
Clock = Callable[[], float]
T = TypeVar("T")

MAX_TEXT_LENGTH = 4096
MAX_CAPTION_LENGTH = 1024
MAX_CALLBACK_DATA_BYTES = 64
MAX_BUTTONS = 100

NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup are "
    "exactly the same as a current content and reply markup of the message"
)
MESSAGE_TO_EDIT_NOT_FOUND = "Bad Request: message to edit not found"
CHAT_NOT_FOUND = "Bad Request: chat not found"
CANT_INITIATE = "Forbidden: bot can't initiate conversation with a user"
BLOCKED = "Forbidden: bot was blocked by the user"
BUTTON_DATA_INVALID = "Bad Request: BUTTON_DATA_INVALID"
MESSAGE_TOO_LONG = "Bad Request: message is too long"
QUERY_TOO_OLD = "Bad Request: query is too old and response timeout expired or query ID is invalid"
GROUP_MIGRATED = "Bad Request: group chat was upgraded to a supergroup chat"
CONFLICT_WEBHOOK = (
    "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete "
    "the webhook first"
)
CONFLICT_POLL = (
    "Conflict: terminated by other getUpdates request; make sure that only one bot instance is "
    "running"
)

ALL_UPDATE_TYPES = (
    "message", "edited_message", "channel_post", "edited_channel_post", "business_connection",
    "business_message", "edited_business_message", "deleted_business_messages",
    "message_reaction", "message_reaction_count", "inline_query", "chosen_inline_result",
    "callback_query", "shipping_query", "pre_checkout_query", "purchased_paid_media", "poll",
    "poll_answer", "my_chat_member", "chat_member", "chat_join_request", "chat_boost",
    "removed_chat_boost",
)  # fmt: skip
# What Telegram sends when allowed_updates was never set (or set to an empty list).
DEFAULT_UPDATE_TYPES = frozenset(ALL_UPDATE_TYPES) - {
    "chat_member",
    "message_reaction",
    "message_reaction_count",
}

# Methods whose successful calls count against the flood limits (messages and edits).
FLOOD_METHODS = frozenset(
    m.lower()
    for m in (
        "sendMessage", "sendPhoto", "sendDocument", "sendAudio", "sendVideo", "sendAnimation",
        "sendVoice", "sendVideoNote", "sendSticker", "sendMediaGroup", "sendLocation",
        "sendVenue", "sendContact", "sendPoll", "sendDice", "copyMessage", "forwardMessage",
        "editMessageText", "editMessageCaption", "editMessageMedia", "editMessageReplyMarkup",
    )
)  # fmt: skip

# Real Bot API methods this fake does not model: answered with 501 so a test fails loudly.
UNSUPPORTED_METHODS = frozenset(
    m.lower()
    for m in (
        "sendAudio", "sendVideo", "sendAnimation", "sendVoice", "sendVideoNote", "sendSticker",
        "sendMediaGroup", "sendLocation", "sendVenue", "sendContact", "sendPoll", "sendDice",
        "copyMessage", "copyMessages", "forwardMessage", "forwardMessages", "stopPoll",
        "answerInlineQuery", "banChatMember", "unbanChatMember", "restrictChatMember",
        "promoteChatMember", "setChatPermissions", "exportChatInviteLink",
        "editMessageLiveLocation", "setMessageReaction", "sendInvoice",
    )
)  # fmt: skip

INLINE_BUTTON_ACTIONS = (
    "url", "callback_data", "web_app", "login_url", "switch_inline_query",
    "switch_inline_query_current_chat", "switch_inline_query_chosen_chat", "copy_text",
    "callback_game", "pay",
)  # fmt: skip

CHAT_ACTIONS = frozenset(
    {
        "typing", "upload_photo", "record_video", "upload_video", "record_voice", "upload_voice",
        "upload_document", "choose_sticker", "find_location", "record_video_note",
        "upload_video_note",
    }
)  # fmt: skip

JSON_FIELDS = frozenset(
    {
        "reply_markup", "entities", "caption_entities", "commands", "scope", "media",
        "reply_parameters", "link_preview_options", "allowed_updates", "message_ids",
        "permissions", "rights", "menu_button", "results",
    }
)  # fmt: skip

# Fields decoded to numbers / booleans when they arrive as form strings, so that recorded calls
# look the same whatever the transport.
NUMBER_FIELDS = frozenset(
    {
        "chat_id", "from_chat_id", "message_id", "user_id", "offset", "limit", "timeout",
        "reply_to_message_id", "message_thread_id", "cache_time", "max_connections",
        "until_date", "duration", "width", "height",
    }
)  # fmt: skip
BOOL_FIELDS = frozenset(
    {
        "disable_notification", "protect_content", "show_alert", "drop_pending_updates",
        "has_spoiler", "allow_sending_without_reply", "disable_web_page_preview",
        "disable_content_type_detection", "revoke_messages", "only_if_banned",
        "allow_paid_broadcast", "show_caption_above_media",
    }
)  # fmt: skip


# --------------------------------------------------------------------------- errors


class ApiError(Exception):
    """A Bot API error answer (``{"ok": false, "error_code": ..., "description": ...}``)."""

    def __init__(self, code: int, description: str, parameters: JSONDict | None = None) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters

    def body(self) -> JSONDict:
        """The JSON body Telegram would answer with."""
        body: JSONDict = {"ok": False, "error_code": self.code, "description": self.description}
        if self.parameters:
            body["parameters"] = dict(self.parameters)
        return body


class InjectedTransportError(Exception):
    """Raised by ``handle`` when a test injected a transport failure; transports map it."""

    kind = "transport"

    def __init__(self, method: str) -> None:
        super().__init__(f"injected {self.kind} in {method}")
        self.method = method


class InjectedTimeout(InjectedTransportError):
    """The request must look like it timed out (no answer in time)."""

    kind = "timeout"


class InjectedReset(InjectedTransportError):
    """The connection must be dropped without an answer."""

    kind = "reset"


FailureSpec = str | tuple[int | str, int | float | str] | ApiError | JSONDict


# --------------------------------------------------------------------------- model


class ManualClock:
    """A clock for ``FakeTelegram(clock=...)`` that only moves when the test says so."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move time forward."""
        self.now += seconds


@dataclass
class FloodLimits:
    """Flood-control settings; the defaults follow Telegram's documented limits."""

    enabled: bool = True
    private_per_second: float = 1.0  # sustained rate per private chat
    private_burst: int = 3  # short bursts Telegram tolerates in a private chat
    group_per_minute: int = 20  # messages+edits per group in a sliding window
    group_window: float = 60.0
    global_per_second: int = 30  # across all chats, sliding 1 s window


@dataclass(eq=False)
class FakeUser:
    """A Telegram user (or the bot itself when ``is_bot``)."""

    id: int
    first_name: str
    last_name: str | None = None
    username: str | None = None
    language_code: str | None = "en"
    is_bot: bool = False
    is_premium: bool = False
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
        if self.is_premium:
            data["is_premium"] = True
        return data

    @property
    def full_name(self) -> str:
        """First and last name."""
        return f"{self.first_name} {self.last_name}" if self.last_name else self.first_name


@dataclass(eq=False)
class FakeChat:
    """A private chat, group or supergroup as seen by the bot."""

    id: int
    type: str  # "private" | "group" | "supergroup"
    title: str | None = None
    username: str | None = None
    user: FakeUser | None = None  # the other side of a private chat
    members: dict[int, str] = field(default_factory=dict)  # user id -> ChatMember status
    bot_status: str = "member"  # member | administrator | left | kicked (groups only)
    migrated_to: int | None = None
    migrated_from: int | None = None
    pinned: list[int] = field(default_factory=list)
    message_ids: list[int] = field(default_factory=list)
    next_message_id: int = 0  # supergroups have their own message id sequence

    def to_api(self) -> JSONDict:
        """The Bot API ``Chat`` object."""
        if self.type == "private":
            assert self.user is not None
            data: JSONDict = {"id": self.id, "first_name": self.user.first_name}
            if self.user.last_name:
                data["last_name"] = self.user.last_name
            if self.user.username:
                data["username"] = self.user.username
            data["type"] = "private"
            return data
        data = {"id": self.id, "title": self.title}
        if self.username:
            data["username"] = self.username
        data["type"] = self.type
        if self.type == "group":
            data["all_members_are_administrators"] = True
        return data

    @property
    def bot_is_member(self) -> bool:
        """Whether the bot is currently in this group."""
        return self.bot_status in ("member", "administrator", "creator")


@dataclass(eq=False)
class StoredFile:
    """An uploaded (or URL-registered) file with the ids Telegram gave it."""

    file_id: str
    file_unique_id: str
    kind: str  # "photo" | "document"
    data: bytes
    file_name: str | None
    mime_type: str | None
    file_path: str
    width: int | None = None
    height: int | None = None
    sizes: list[JSONDict] = field(default_factory=list)  # PhotoSize objects for photos

    def to_api(self) -> JSONDict | list[JSONDict]:
        """``photo`` (list of PhotoSize) or ``document`` (Document) as in a Message."""
        if self.kind == "photo":
            return [dict(size) for size in self.sizes]
        data: JSONDict = {}
        if self.file_name:
            data["file_name"] = self.file_name
        if self.mime_type:
            data["mime_type"] = self.mime_type
        data.update(
            file_id=self.file_id, file_unique_id=self.file_unique_id, file_size=len(self.data)
        )
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
    keyboard: JSONDict | None = None  # reply keyboard / remove / force_reply as sent
    sent_text: str | None = None  # text or caption exactly as the bot sent it
    parse_mode: str | None = None
    reply_to: StoredMessage | None = None
    edit_date: int | None = None
    history: list[JSONDict] = field(default_factory=list)
    deleted: bool = False
    service: JSONDict = field(default_factory=dict)
    has_spoiler: bool = False
    link_preview_options: JSONDict | None = None

    def snapshot(self) -> JSONDict:
        """The visible state, for the edit history."""
        return {
            "text": self.text,
            "entities": [dict(e) for e in self.entities],
            "caption": self.caption,
            "media_file_id": self.media.file_id if self.media else None,
            "reply_markup": _keyboard_rows(self.reply_markup),
            "sent_text": self.sent_text,
            "parse_mode": self.parse_mode,
            "date": self.edit_date or self.date,
        }


@dataclass
class MediaView:
    """Photo or document attached to a message."""

    kind: str
    file_id: str
    file_unique_id: str
    file_name: str | None
    mime_type: str | None
    data: bytes
    width: int | None
    height: int | None


@dataclass
class MessageView:
    """A snapshot of a message as a user would see it now."""

    chat_id: int
    message_id: int
    from_id: int
    from_bot: bool
    date: int
    text: str | None
    entities: list[JSONDict]
    caption: str | None
    caption_entities: list[JSONDict]
    reply_markup: list[list[tuple[str, str | None]]] | None
    keyboard: JSONDict | None
    media: MediaView | None
    sent_text: str | None
    parse_mode: str | None
    reply_to_message_id: int | None
    edit_date: int | None
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
        """Text or caption (empty string if neither)."""
        return self.text if self.text is not None else (self.caption or "")


@dataclass
class CallbackQueryRecord:
    """A button press and whether/how the bot answered it."""

    id: str
    user_id: int
    chat_id: int
    message_id: int
    data: str | None
    time: float
    answered: bool = False
    answer: JSONDict | None = None


class ApiCall:
    """One Bot API request as the fake received it.

    ``response`` is the JSON body answered (None for injected transport failures). It is
    kept as the bytes sent and decoded when a test first reads it: most calls are never
    looked at, and decoding every answer cost more than the rest of the fake.
    """

    __slots__ = ("method", "params", "time", "status", "_body", "_raw")

    def __init__(
        self,
        method: str,
        params: JSONDict,
        time: float,
        status: int | str,  # HTTP status, or "timeout" / "reset" for injected failures
        response: JSONDict | bytes | None,
    ) -> None:
        self.method = method
        self.params = params
        self.time = time
        self.status = status
        self._raw = response if isinstance(response, bytes) else None
        self._body = None if isinstance(response, bytes) else response

    @property
    def response(self) -> JSONDict | None:
        """The answer's JSON body."""
        if self._raw is not None:
            self._body = json.loads(self._raw)
            self._raw = None
        return self._body

    @property
    def ok(self) -> bool:
        """Whether the call succeeded."""
        return self.status == 200

    def __repr__(self) -> str:
        return (
            f"ApiCall(method={self.method!r}, params={self.params!r}, time={self.time!r}, "
            f"status={self.status!r}, response={self.response!r})"
        )


@dataclass
class FloodError:
    """A 429 answered to the bot."""

    method: str
    chat_id: int | None
    scope: str  # "private" | "group" | "global" | "injected"
    retry_after: int | float  # a float only when a test injected one (time scaled)
    time: float


@dataclass
class _FailureRule:
    methods: frozenset[str] | None
    predicate: Callable[[str, JSONDict], bool] | None
    error: FailureSpec
    remaining: int | None
    applied: bool


@dataclass
class _Poll:
    ticket: int
    can_wait: bool
    first: bool = True


@dataclass
class _Described:
    value: Any
    description: str


class _WaitForUpdates(Exception):
    def __init__(self, timeout: float, version: int) -> None:
        super().__init__("long poll")
        self.timeout = timeout
        self.version = version


def _wake(future: asyncio.Future[None]) -> None:
    """End a :meth:`FakeTelegram._wait_change` (once: a timer and a notification may race)."""
    if not future.done():
        future.set_result(None)


def _keyboard_rows(markup: JSONDict | None) -> list[list[tuple[str, str | None]]] | None:
    if not markup or "inline_keyboard" not in markup:
        return None
    rows = []
    for row in markup["inline_keyboard"]:
        out_row = []
        for button in row:
            value = button.get("callback_data")
            if value is None:
                value = button.get("url")
            if value is None:
                for key in INLINE_BUTTON_ACTIONS:
                    if isinstance(button.get(key), str):
                        value = button[key]
                        break
            out_row.append((str(button.get("text", "")), value))
        rows.append(out_row)
    return rows


_ENCODER = json.JSONEncoder(ensure_ascii=False)
"""What ``json.dumps(body, ensure_ascii=False)`` builds anew on every call."""


def _encode(body: JSONDict) -> bytes:
    """A JSON body as the transports send it (UTF-8, not ASCII-escaped)."""
    return _ENCODER.encode(body).encode("utf-8")


def _decode_params(raw: Mapping[str, Any]) -> JSONDict:
    """JSON-decode the fields the Bot API treats as JSON (form fields arrive as strings)."""
    out: JSONDict = {}
    for key, value in raw.items():
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        if isinstance(value, str):
            if key in JSON_FIELDS:
                try:
                    value = json.loads(value)
                except ValueError:
                    pass
            elif key in NUMBER_FIELDS:
                value = _number(value)
            elif key in BOOL_FIELDS and value.strip().lower() in ("true", "false", "1", "0"):
                value = value.strip().lower() in ("true", "1")
        out[key] = value
    return out


def _number(value: str) -> int | float | str:
    """``"42"`` -> 42, ``"0.5"`` -> 0.5; anything else (e.g. ``"@channel"``) unchanged."""
    text = value.strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return value


class _KnownUsers(Mapping[int, JSONDict]):
    """The ``User`` objects of all users, for text mentions (``tg://user?id=``): built on
    first use, as most texts link to nobody."""

    def __init__(self, users: dict[int, FakeUser]) -> None:
        self._users = users
        self._built: dict[int, JSONDict] | None = None

    def _all(self) -> dict[int, JSONDict]:
        if self._built is None:
            self._built = {uid: u.to_api() for uid, u in self._users.items()}
        return self._built

    def __getitem__(self, user_id: int) -> JSONDict:
        return self._all()[user_id]

    def __iter__(self) -> Iterator[int]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


class _Params:
    """Typed access to request parameters (values may be JSON-native or form strings)."""

    def __init__(self, data: JSONDict) -> None:
        self.data = data

    def get(self, name: str) -> Any:
        return self.data.get(name)

    def text(self, name: str) -> str | None:
        value = self.data.get(name)
        if value is None:
            return None
        if isinstance(value, UploadedFile):
            raise ApiError(400, f'Bad Request: field "{name}" must be of type String')
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float)):
            return str(value)
        if not isinstance(value, str):
            raise ApiError(400, f'Bad Request: field "{name}" must be of type String')
        return value

    def integer(self, name: str, default: int | None = None) -> int | None:
        value = self.data.get(name)
        if value is None or value == "":
            return default
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str):
            try:
                return int(value.strip())
            except ValueError:
                pass
        raise ApiError(400, f'Bad Request: field "{name}" must be a valid Number')

    def number(self, name: str, default: float = 0.0) -> float:
        value = self.data.get(name)
        if value is None or value == "":
            return default
        try:
            return float(value)
        except (TypeError, ValueError):
            raise ApiError(400, f'Bad Request: field "{name}" must be a valid Number') from None

    def flag(self, name: str, default: bool = False) -> bool:
        value = self.data.get(name)
        if value is None or value == "":
            return default
        if isinstance(value, str):
            return value.strip().lower() in ("true", "1")
        return bool(value)

    def obj(self, name: str, what: str | None = None) -> Any:
        value = self.data.get(name)
        if value is None or value == "":
            return None
        if isinstance(value, str):
            raise ApiError(400, f"Bad Request: can't parse {what or name} JSON object")
        return value


# --------------------------------------------------------------------------- the fake


class FakeTelegram:
    """In-memory Telegram for one bot: Bot API semantics plus a simulation API for tests."""

    def __init__(
        self,
        token: str = "123456789:AAHfakeTokenForTestsOnly_abcdefghijk",
        *,
        bot_username: str = "fake_test_bot",
        bot_first_name: str = "Fake Bot",
        clock: Clock = time.monotonic,
        flood: FloodLimits | None = None,
        privacy_mode: bool = True,
        strict_html: bool = True,
        callback_timeout: float = 15.0,
        first_update_id: int = 100_000_001,
    ) -> None:
        self.token = token
        try:
            bot_id = int(token.split(":", 1)[0])
        except ValueError:
            raise ValueError("token must look like '<bot id>:<secret>'") from None
        self.bot = FakeUser(bot_id, bot_first_name, username=bot_username, is_bot=True)
        self.clock: Clock = clock
        self.flood = flood if flood is not None else FloodLimits()
        self.privacy_mode = privacy_mode
        self.strict_html = strict_html
        self.callback_timeout = callback_timeout
        self._epoch = time.time() - clock()

        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._version = 0
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

        self._users: dict[int, FakeUser] = {bot_id: self.bot}
        self._chats: dict[int, FakeChat] = {}
        self._messages: dict[tuple[int, int], StoredMessage] = {}
        self._files: dict[str, StoredFile] = {}
        self._files_by_path: dict[str, StoredFile] = {}
        self._urls: dict[str, tuple[bytes, str | None]] = {}
        self._queries: dict[str, CallbackQueryRecord] = {}
        self._commands: dict[str, list[JSONDict]] = {}
        self._bot_settings: dict[str, Any] = {}

        self._updates: deque[JSONDict] = deque()
        self._next_update_id = first_update_id
        self._allowed_updates: frozenset[str] | None = None
        self._poll_gen = 0
        self._webhook: JSONDict | None = None

        self._next_user_id = 500_000_001
        self._next_group_id = 4_100_000_001
        self._next_supergroup_id = 1_002_100_000_001
        self._common_box = 0  # message ids of private chats and basic groups
        self._next_file = 0
        self._next_query = 0

        self._private_buckets: dict[int, tuple[float, float]] = {}
        self._group_sends: dict[int, deque[float]] = {}
        self._global_sends: deque[float] = deque()
        self._flood_until: dict[int, float] = {}

        self._failures: list[_FailureRule] = []
        self._calls: list[ApiCall] = []
        self._flood_errors: list[FloodError] = []

        handlers: dict[str, Callable[[_Params], Any]] = {
            "getMe": self._m_get_me,
            "logOut": lambda p: True,
            "close": lambda p: True,
            "deleteWebhook": self._m_delete_webhook,
            "setWebhook": self._m_set_webhook,
            "getWebhookInfo": self._m_get_webhook_info,
            "setMyCommands": self._m_set_my_commands,
            "getMyCommands": self._m_get_my_commands,
            "deleteMyCommands": self._m_delete_my_commands,
            "sendMessage": self._m_send_message,
            "editMessageText": self._m_edit_message_text,
            "editMessageReplyMarkup": self._m_edit_message_reply_markup,
            "editMessageCaption": self._m_edit_message_caption,
            "editMessageMedia": self._m_edit_message_media,
            "deleteMessage": self._m_delete_message,
            "deleteMessages": self._m_delete_messages,
            "answerCallbackQuery": self._m_answer_callback_query,
            "sendPhoto": self._m_send_photo,
            "sendDocument": self._m_send_document,
            "getFile": self._m_get_file,
            "getChat": self._m_get_chat,
            "getChatMember": self._m_get_chat_member,
            "getChatAdministrators": self._m_get_chat_administrators,
            "getChatMemberCount": self._m_get_chat_member_count,
            "pinChatMessage": self._m_pin_chat_message,
            "unpinChatMessage": self._m_unpin_chat_message,
            "unpinAllChatMessages": self._m_unpin_all_chat_messages,
            "leaveChat": self._m_leave_chat,
            "sendChatAction": self._m_send_chat_action,
        }
        for setting in ("Description", "ShortDescription", "Name"):
            handlers[f"setMy{setting}"] = self._setting_setter(setting)
            handlers[f"getMy{setting}"] = self._setting_getter(setting)
        handlers["setChatMenuButton"] = self._setting_setter("MenuButton")
        handlers["getChatMenuButton"] = self._setting_getter("MenuButton")
        self._handlers = {name.lower(): fn for name, fn in handlers.items()}
        self._canonical = {name.lower(): name for name in handlers}

    # ------------------------------------------------------------------ entry points

    def check_token(self, token: str) -> tuple[int, JSONDict] | None:
        """Answer for a request made with ``token``: None if valid, else Telegram's error."""
        if token == self.token:
            return None
        if ":" not in token or not token.split(":", 1)[0].isdigit():
            return 404, {"ok": False, "error_code": 404, "description": "Not Found"}
        return 401, {"ok": False, "error_code": 401, "description": "Unauthorized"}

    def handle(self, method: str, params: Mapping[str, Any]) -> tuple[int, JSONDict]:
        """Answer one Bot API call: ``(http_status, json_body)``.

        ``params`` may hold JSON-native values or form strings (JSON-encoded where the Bot API
        expects objects) and :class:`UploadedFile` for multipart file parts. getUpdates long
        polling blocks the calling thread, except inside a running event loop (use
        :meth:`handle_async` there). Injected transport failures raise
        :class:`InjectedTimeout` / :class:`InjectedReset`.
        """
        if method.lower() != "getupdates":
            return self._decoded(self._call(method, params, None))
        try:
            asyncio.get_running_loop()
            in_loop = True
        except RuntimeError:
            in_loop = False
        poll = _Poll(self._begin_poll(), can_wait=not in_loop)
        deadline: float | None = None
        while True:
            try:
                return self._decoded(self._call(method, params, poll))
            except _WaitForUpdates as wait:
                now = time.monotonic()
                deadline = deadline if deadline is not None else now + wait.timeout
                with self._cond:
                    if now >= deadline:
                        poll.can_wait = False
                    elif self._version == wait.version:
                        self._cond.wait(deadline - now)
                poll.first = False

    async def handle_async(self, method: str, params: Mapping[str, Any]) -> tuple[int, JSONDict]:
        """Like :meth:`handle`, but getUpdates long polling waits without blocking the loop."""
        return self._decoded(await self.handle_encoded(method, params))

    async def handle_encoded(self, method: str, params: Mapping[str, Any]) -> tuple[int, bytes]:
        """:meth:`handle_async` with the body as the UTF-8 JSON bytes a transport sends."""
        if method.lower() != "getupdates":
            return self._call(method, params, None)
        poll = _Poll(self._begin_poll(), can_wait=True)
        deadline: float | None = None
        while True:
            try:
                return self._call(method, params, poll)
            except _WaitForUpdates as wait:
                now = time.monotonic()
                deadline = deadline if deadline is not None else now + wait.timeout
                if now >= deadline:
                    poll.can_wait = False
                else:
                    await self._wait_change(wait.version, deadline - now)
                poll.first = False

    def file_content(self, file_path: str) -> bytes | None:
        """Bytes served at ``/file/bot<token>/<file_path>`` (None if unknown)."""
        with self._lock:
            stored = self._files_by_path.get(file_path)
            return stored.data if stored else None

    # ------------------------------------------------------------------ failure injection

    def fail_next(
        self,
        method: str | Iterable[str] | None,
        times: int = 1,
        error: FailureSpec = (500, "Internal Server Error"),
        *,
        applied: bool = False,
    ) -> None:
        """Make the next ``times`` calls of ``method`` (None = any method) fail with ``error``.

        ``error`` is ``(429, retry_after)`` (a fraction of a second scales time down: real
        Telegram sends whole seconds), ``(code, description)``, an :class:`ApiError`, a
        full JSON body dict, ``"timeout"`` or ``"reset"``. With ``applied=True`` the call takes
        effect first and only the answer is lost (meaningful for "timeout"/"reset").
        """
        methods = None
        if method is not None:
            names = [method] if isinstance(method, str) else list(method)
            methods = frozenset(n.lower() for n in names)
        with self._lock:
            self._failures.append(_FailureRule(methods, None, error, times, applied))

    def fail_when(
        self,
        predicate: Callable[[str, JSONDict], bool],
        error: FailureSpec,
        *,
        times: int | None = None,
        applied: bool = False,
    ) -> None:
        """Fail calls for which ``predicate(method, params)`` is true (``times`` None = always).

        ``params`` are decoded (JSON fields parsed); ``method`` is the canonical name, e.g.
        ``"sendMessage"``.
        """
        with self._lock:
            self._failures.append(_FailureRule(None, predicate, error, times, applied))

    def clear_failures(self) -> None:
        """Drop all pending failure rules."""
        with self._lock:
            self._failures.clear()

    # ------------------------------------------------------------------ simulation: people

    def add_user(
        self,
        first_name: str = "Test",
        last_name: str | None = None,
        username: str | None = None,
        *,
        language_code: str | None = "en",
        user_id: int | None = None,
        is_premium: bool = False,
        started: bool = False,
    ) -> FakeUser:
        """Create a user. ``started=True`` marks Start as already pressed (no update queued)."""
        with self._lock:
            if user_id is None:
                user_id = self._next_user_id
                self._next_user_id += 1
            if user_id in self._users:
                raise ValueError(f"user id {user_id} already exists")
            user = FakeUser(
                user_id,
                first_name,
                last_name,
                username,
                language_code=language_code,
                is_premium=is_premium,
                started=started,
            )
            self._users[user_id] = user
            self._notify()
            return user

    def add_group(
        self,
        title: str,
        members: Iterable[FakeUser | int],
        *,
        supergroup: bool = False,
        creator: FakeUser | int | None = None,
        admins: Iterable[FakeUser | int] = (),
        bot_admin: bool = False,
        with_bot: bool = True,
        username: str | None = None,
        announce: bool = True,
    ) -> FakeChat:
        """Create a group (or supergroup) with ``members``; the first member is the creator.

        With ``with_bot`` the bot is a member; with ``announce`` the bot receives the
        ``my_chat_member`` update and the ``new_chat_members`` service message about joining.
        """
        with self._lock:
            member_users = [self._user(m) for m in members]
            if not member_users:
                raise ValueError("a group needs at least one member")
            owner = self._user(creator) if creator is not None else member_users[0]
            if supergroup:
                chat_id = -self._next_supergroup_id
                self._next_supergroup_id += 1
            else:
                chat_id = -self._next_group_id
                self._next_group_id += 1
            chat = FakeChat(
                chat_id,
                "supergroup" if supergroup else "group",
                title=title,
                username=username,
                bot_status="left",
            )
            for user in member_users:
                chat.members[user.id] = "member"
            chat.members[owner.id] = "creator"
            for admin in admins:
                chat.members[self._user(admin).id] = "administrator"
            self._chats[chat_id] = chat
            if with_bot:
                self._bot_joins(chat, owner, admin=bot_admin, announce=announce)
            self._notify()
            return chat

    def user_joins(self, group: FakeChat | int, user: FakeUser | int) -> MessageView:
        """``user`` joins the group (service message ``new_chat_members``)."""
        with self._lock:
            chat, member = self._chat(group), self._user(user)
            chat.members[member.id] = "member"
            msg = self._store(chat, member, service={"new_chat_members": [member.to_api()]})
            self._deliver(msg)
            self._notify()
            return self._view(msg)

    def user_leaves(self, group: FakeChat | int, user: FakeUser | int) -> MessageView:
        """``user`` leaves the group (service message ``left_chat_member``)."""
        with self._lock:
            chat, member = self._chat(group), self._user(user)
            chat.members[member.id] = "left"
            msg = self._store(chat, member, service={"left_chat_member": member.to_api()})
            self._deliver(msg)
            self._notify()
            return self._view(msg)

    def user_starts_bot(self, user: FakeUser | int, payload: str | None = None) -> MessageView:
        """The user presses Start (or opens a t.me/bot?start=payload link): queues /start."""
        with self._lock:
            person = self._user(user)
            chat = self._private_chat(person)
            if person.blocked:
                person.blocked = False
                self._my_chat_member(chat, person, "kicked", "member")
            person.started = True
            text = "/start" if payload is None else f"/start {payload}"
            msg = self._user_message(person, chat, text, None)
            self._notify()
            return msg

    def send_text(
        self,
        user: FakeUser | int,
        chat: FakeChat | FakeUser | int,
        text: str,
        *,
        reply_to: MessageView | StoredMessage | int | None = None,
    ) -> MessageView:
        """``user`` sends ``text`` in ``chat`` (a group, or the user for the private chat).

        Commands, mentions, hashtags and URLs get their entities. In groups the bot only
        receives the update if privacy mode lets it (commands, replies to the bot, service
        messages) or if it is an administrator or privacy mode is off.
        """
        with self._lock:
            person = self._user(user)
            target = self._chat(chat)
            if target.type == "private":
                if target.id != person.id:
                    raise ValueError("a user can only write in their own private chat with the bot")
                if person.blocked:
                    raise ValueError(f"{person.full_name} blocked the bot; call unblock_bot first")
                if not person.started:
                    raise ValueError(
                        f"{person.full_name} has not started the bot; call user_starts_bot first"
                    )
            else:
                if target.migrated_to is not None:
                    raise ValueError(f"group {target.id} was upgraded to {target.migrated_to}")
                if target.members.get(person.id) not in ("creator", "administrator", "member"):
                    raise ValueError(f"{person.full_name} is not a member of {target.title}")
            replied = None
            if reply_to is not None:
                replied = self._stored(target, reply_to)
            view = self._user_message(person, target, text, replied)
            self._notify()
            return view

    def user_edits(
        self, user: FakeUser | int, message: MessageView | StoredMessage, text: str
    ) -> MessageView:
        """``user`` edits their own text message; queues an ``edited_message`` update."""
        with self._lock:
            person = self._user(user)
            msg = self._resolve_message_ref(message)
            if msg.sender.id != person.id or msg.text is None or msg.deleted:
                raise ValueError("a user can only edit their own, existing text messages")
            msg.history.append(msg.snapshot())
            msg.text, msg.entities = format_text(text, None, None, strict_html=False)
            msg.edit_date = self._now_date()
            if self._bot_receives(msg):
                self._queue("edited_message", self._message_api(msg))
            self._notify()
            return self._view(msg)

    def press(
        self,
        user: FakeUser | int,
        message: MessageView | StoredMessage | JSONDict | tuple[int, int],
        callback_data: str | None = None,
        *,
        button_text: str | None = None,
        force: bool = False,
    ) -> str:
        """``user`` presses an inline button; queues a ``callback_query`` update, returns its id.

        The button is chosen by ``callback_data`` or ``button_text`` and must currently be on
        the message (``force=True`` skips that check, e.g. to model a stale client).
        """
        with self._lock:
            person = self._user(user)
            msg = self._resolve_message_ref(message)
            if msg.deleted:
                raise ValueError(f"message {msg.message_id} was deleted")
            chat = msg.chat
            if chat.type == "private":
                if chat.id != person.id:
                    raise ValueError("a user can only press buttons in their own private chat")
            elif chat.members.get(person.id) not in ("creator", "administrator", "member"):
                raise ValueError(f"{person.full_name} is not a member of {chat.title}")
            data = callback_data
            buttons = [
                b
                for row in (msg.reply_markup or {}).get("inline_keyboard", [])
                for b in row
                if "callback_data" in b
            ]
            if button_text is not None:
                found = [b for b in buttons if b.get("text") == button_text]
                if found:
                    data = found[0]["callback_data"]
                elif not force:
                    raise ValueError(f"no button {button_text!r} on message {msg.message_id}")
            elif not force and not any(b["callback_data"] == data for b in buttons):
                raise ValueError(
                    f"message {msg.message_id} has no button with callback_data {data!r}; "
                    f"buttons: {_keyboard_rows(msg.reply_markup)}"
                )
            self._next_query += 1
            query_id = str(self.bot.id * 10_000_000 + 4_000_000 + self._next_query)
            self._queries[query_id] = CallbackQueryRecord(
                query_id, person.id, chat.id, msg.message_id, data, self.clock()
            )
            payload: JSONDict = {
                "id": query_id,
                "from": person.to_api(),
                "message": self._message_api(msg),
                "chat_instance": self._chat_instance(chat),
            }
            if data is not None:
                payload["data"] = data
            self._queue("callback_query", payload)
            self._notify()
            return query_id

    def upgrade_to_supergroup(
        self, group: FakeChat | int, by: FakeUser | int | None = None
    ) -> FakeChat:
        """Upgrade a basic group: queues the migrate messages; the old id then fails to send."""
        with self._lock:
            old = self._chat(group)
            if old.type != "group" or old.migrated_to is not None:
                raise ValueError("only a basic group that was not upgraded yet can be upgraded")
            actor = self._user(by) if by is not None else self._creator(old)
            new = FakeChat(
                -self._next_supergroup_id,
                "supergroup",
                title=old.title,
                members=dict(old.members),
                bot_status=old.bot_status,
                migrated_from=old.id,
            )
            self._next_supergroup_id += 1
            self._chats[new.id] = new
            old.migrated_to = new.id
            old_msg = self._store(old, actor, service={"migrate_to_chat_id": new.id})
            self._deliver(old_msg)
            new_msg = self._store(new, actor, service={"migrate_from_chat_id": old.id})
            self._deliver(new_msg)
            self._notify()
            return new

    def remove_bot(self, group: FakeChat | int, by: FakeUser | int | None = None) -> None:
        """A group admin removes the bot (``my_chat_member`` update; sends then get 403)."""
        with self._lock:
            chat = self._chat(group)
            if not chat.bot_is_member:
                raise ValueError("the bot is not in this group")
            actor = self._user(by) if by is not None else self._creator(chat)
            old = chat.bot_status
            chat.bot_status = "kicked"
            self._my_chat_member(
                chat, actor, old, "kicked" if chat.type == "supergroup" else "left"
            )
            self._notify()

    def add_bot(
        self, group: FakeChat | int, by: FakeUser | int | None = None, *, admin: bool = False
    ) -> None:
        """A member (re-)adds the bot to the group (``my_chat_member`` + ``new_chat_members``)."""
        with self._lock:
            chat = self._chat(group)
            if chat.bot_is_member:
                raise ValueError("the bot is already in this group")
            actor = self._user(by) if by is not None else self._creator(chat)
            self._bot_joins(chat, actor, admin=admin, announce=True)
            self._notify()

    def block_bot(self, user: FakeUser | int) -> None:
        """The user blocks the bot (``my_chat_member`` member→kicked; sends then get 403)."""
        with self._lock:
            person = self._user(user)
            if person.blocked:
                return
            person.blocked = True
            self._my_chat_member(self._private_chat(person), person, "member", "kicked")
            self._notify()

    def unblock_bot(self, user: FakeUser | int) -> None:
        """The user unblocks the bot (``my_chat_member`` kicked→member)."""
        with self._lock:
            person = self._user(user)
            if not person.blocked:
                return
            person.blocked = False
            self._my_chat_member(self._private_chat(person), person, "kicked", "member")
            self._notify()

    def register_url(self, url: str, content: bytes, filename: str | None = None) -> None:
        """Make ``url`` downloadable for sendPhoto/sendDocument by URL (Telegram fetches URLs)."""
        with self._lock:
            self._urls[url] = (content, filename)

    # ------------------------------------------------------------------ inspection

    @property
    def calls(self) -> list[ApiCall]:
        """Every API call so far (copy)."""
        with self._lock:
            return list(self._calls)

    def calls_to(self, method: str) -> list[ApiCall]:
        """Calls of one method (case-insensitive name)."""
        name = method.lower()
        with self._lock:
            return [c for c in self._calls if c.method.lower() == name]

    @property
    def flood_errors(self) -> list[FloodError]:
        """Every 429 answered so far (copy)."""
        with self._lock:
            return list(self._flood_errors)

    @property
    def callback_answers(self) -> dict[str, JSONDict]:
        """Callback query id -> answerCallbackQuery params, for answered queries."""
        with self._lock:
            return {q.id: dict(q.answer or {}) for q in self._queries.values() if q.answered}

    def callback_answer(self, query_id: str) -> JSONDict:
        """The answerCallbackQuery params of one query ({} while unanswered)."""
        with self._lock:
            query = self._queries.get(query_id)
            return dict(query.answer or {}) if query is not None and query.answered else {}

    @property
    def callback_queries(self) -> list[CallbackQueryRecord]:
        """All button presses so far."""
        with self._lock:
            return list(self._queries.values())

    def unanswered_callbacks(self) -> list[str]:
        """Ids of callback queries the bot never answered."""
        with self._lock:
            return [q.id for q in self._queries.values() if not q.answered]

    def messages(
        self, chat: FakeChat | FakeUser | int, *, include_deleted: bool = False
    ) -> list[MessageView]:
        """Messages of a chat in order, as they look now (deleted ones hidden by default)."""
        return self._views(chat, lambda msg: include_deleted or not msg.deleted)

    def bot_messages(self, chat: FakeChat | FakeUser | int) -> list[MessageView]:
        """Visible messages the bot sent in a chat."""
        bot_id = self.bot.id
        return self._views(
            chat, lambda msg: not msg.deleted and msg.sender.id == bot_id and not msg.service
        )

    def _views(
        self, chat: FakeChat | FakeUser | int, keep: Callable[[StoredMessage], bool]
    ) -> list[MessageView]:
        """Views of a chat's messages that ``keep`` selects, in order (views of these only:
        a view copies the message's history and entities)."""
        with self._lock:
            target = self._chat(chat)
            stored = (self._messages[(target.id, message_id)] for message_id in target.message_ids)
            return [self._view(msg) for msg in stored if keep(msg)]

    def last_bot_message(self, chat: FakeChat | FakeUser | int) -> MessageView | None:
        """The newest visible bot message of a chat."""
        sent = self.bot_messages(chat)
        return sent[-1] if sent else None

    def message(self, chat: FakeChat | FakeUser | int, message_id: int) -> MessageView:
        """One message (deleted ones too)."""
        with self._lock:
            target = self._chat(chat)
            msg = self._messages.get((target.id, message_id))
            if msg is None:
                raise KeyError(f"no message {message_id} in chat {target.id}")
            return self._view(msg)

    def pending_updates(self) -> list[JSONDict]:
        """Updates queued and not yet confirmed by the bot."""
        with self._lock:
            updates: list[JSONDict] = json.loads(json.dumps(list(self._updates)))
            return updates

    def pending_update_count(self) -> int:
        """How many updates are queued and not yet confirmed (no copy: for busy loops)."""
        return len(self._updates)

    def commands(
        self, scope: JSONDict | None = None, language_code: str = ""
    ) -> list[tuple[str, str]] | None:
        """Commands set for a scope/language as (command, description), None if never set."""
        with self._lock:
            stored = self._commands.get(
                self._scope_key(scope or {"type": "default"}, language_code)
            )
            if stored is None:
                return None
            return [(c["command"], c["description"]) for c in stored]

    def user(self, user_id: int) -> FakeUser:
        """A user by id."""
        with self._lock:
            return self._user(user_id)

    def chat(self, chat_id: int) -> FakeChat:
        """A chat by id."""
        with self._lock:
            return self._chat(chat_id)

    @property
    def webhook_url(self) -> str | None:
        """The URL set by setWebhook, if any."""
        with self._lock:
            return self._webhook["url"] if self._webhook else None

    @property
    def webhook_secret(self) -> str | None:
        """The secret token given with the webhook (Telegram sends it in every POST)."""
        with self._lock:
            return self._webhook["secret_token"] if self._webhook else None

    # ------------------------------------------------------------------ waiting

    async def wait_until(
        self, predicate: Callable[[], T | None], timeout: float = 5.0, what: str = ""
    ) -> T:
        """Wait (without blocking the loop) until ``predicate()`` is truthy; return its value."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                version = self._version
            result = predicate()
            if result:
                return result
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"condition not met within {timeout}s: {what or predicate}")
            await self._wait_change(version, min(remaining, 0.05))

    def wait_until_sync(
        self, predicate: Callable[[], T | None], timeout: float = 5.0, what: str = ""
    ) -> T:
        """Blocking :meth:`wait_until` for tests whose bot runs in another thread or process."""
        deadline = time.monotonic() + timeout
        while True:
            with self._cond:
                result = predicate()
                if result:
                    return result
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"condition not met within {timeout}s: {what or predicate}")
                self._cond.wait(min(remaining, 0.05))

    async def wait_for_bot_message(
        self,
        chat: FakeChat | FakeUser | int,
        predicate: Callable[[MessageView], bool] | str | None = None,
        timeout: float = 5.0,
    ) -> MessageView:
        """Wait for a bot message in ``chat`` matching ``predicate`` (or containing a string)."""
        if isinstance(predicate, str):
            needle = predicate
            predicate = lambda m: needle in m.content  # noqa: E731
        check = predicate or (lambda m: True)

        def find() -> MessageView | None:
            for msg in reversed(self.bot_messages(chat)):
                if check(msg):
                    return msg
            return None

        return await self.wait_until(find, timeout, f"bot message in {chat}")

    # ------------------------------------------------------------------ internals: plumbing

    def _notify(self) -> None:
        with self._lock:
            self._version += 1
            self._cond.notify_all()
            if not self._waiters:
                return
            try:
                here: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
            except RuntimeError:
                here = None
            for loop, future in list(self._waiters):
                if loop is here:  # the waiter's own loop, in its thread: wake it directly
                    _wake(future)  # (no write to the loop's self-pipe, no extra loop turn)
                    continue
                try:
                    loop.call_soon_threadsafe(_wake, future)
                except RuntimeError:  # loop closed
                    self._waiters.remove((loop, future))

    async def _wait_change(self, seen_version: int, timeout: float) -> None:
        """Wait until :meth:`_notify` (or ``timeout``): a bare future and a timer, which
        cost less than an Event under ``wait_for`` (a task of its own on every wait)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        entry = (loop, future)
        with self._lock:
            if self._version != seen_version:
                return
            self._waiters.append(entry)
        timer = loop.call_later(timeout, _wake, future)
        try:
            await future
        finally:
            timer.cancel()
            with self._lock:
                if entry in self._waiters:
                    self._waiters.remove(entry)

    def _begin_poll(self) -> int:
        with self._lock:
            self._poll_gen += 1
            self._notify()
            return self._poll_gen

    @staticmethod
    def _decoded(answer: tuple[int, bytes]) -> tuple[int, JSONDict]:
        return answer[0], json.loads(answer[1])

    def _call(self, method: str, raw: Mapping[str, Any], poll: _Poll | None) -> tuple[int, bytes]:
        """Answer one call: (status, JSON bytes), recorded. The JSON is made once, here: it
        is what the transport sends, and the record decodes it only if a test reads it."""
        name = method.lower()
        canonical = self._canonical.get(name, method)
        with self._lock:
            now = self.clock()
            params = _decode_params(raw)
            rule = None
            if poll is None or poll.first:
                rule = self._take_failure(canonical, params)
            if rule is not None and (not rule.applied or poll is not None):
                return self._inject(rule, canonical, params, now)
            status, body = self._execute(name, params, poll)
            payload = _encode(body)
            if rule is not None:
                kind = rule.error if isinstance(rule.error, str) else None
                if kind in ("timeout", "reset"):
                    self._record(canonical, params, now, kind, payload)
                    self._notify()
                    raise (
                        InjectedTimeout(canonical)
                        if kind == "timeout"
                        else InjectedReset(canonical)
                    )
                # an applied HTTP error: the call took effect but the client sees an error
                status, body = self._error_body(rule.error, canonical, now)
                payload = _encode(body)
            self._record(canonical, params, now, status, payload)
            self._notify()
            return status, payload

    def _record(
        self,
        method: str,
        params: JSONDict,
        now: float,
        status: int | str,
        body: JSONDict | bytes | None,
    ) -> None:
        self._calls.append(ApiCall(method, params, now, status, body))

    def _take_failure(self, method: str, params: JSONDict) -> _FailureRule | None:
        for rule in self._failures:
            if rule.methods is not None and method.lower() not in rule.methods:
                continue
            if rule.predicate is not None and not rule.predicate(method, params):
                continue
            if rule.remaining is not None:
                rule.remaining -= 1
                if rule.remaining <= 0:
                    self._failures.remove(rule)
            return rule
        return None

    def _inject(
        self, rule: _FailureRule, method: str, params: JSONDict, now: float
    ) -> tuple[int, bytes]:
        if rule.error == "timeout":
            self._record(method, params, now, "timeout", None)
            self._notify()
            raise InjectedTimeout(method)
        if rule.error == "reset":
            self._record(method, params, now, "reset", None)
            self._notify()
            raise InjectedReset(method)
        status, body = self._error_body(rule.error, method, now)
        payload = _encode(body)
        self._record(method, params, now, status, payload)
        self._notify()
        return status, payload

    def _error_body(self, error: FailureSpec, method: str, now: float) -> tuple[int, JSONDict]:
        if isinstance(error, ApiError):
            return error.code, error.body()
        if isinstance(error, dict):
            return int(error.get("error_code", 400)), dict(error)
        if isinstance(error, tuple):
            code, detail = error
            if int(code) == 429:
                # Telegram's retry_after is whole seconds; a test may scale time down with a
                # fraction (0.2), which is passed as given (PTB and the bot take floats too).
                wait = float(detail)
                retry_after: int | float = int(wait) if wait.is_integer() else wait
                self._flood_errors.append(FloodError(method, None, "injected", retry_after, now))
                return 429, ApiError(
                    429,
                    f"Too Many Requests: retry after {retry_after}",
                    {"retry_after": retry_after},
                ).body()
            return int(code), ApiError(int(code), str(detail)).body()
        raise ValueError(f"unsupported failure spec {error!r}")

    def _execute(self, name: str, params: JSONDict, poll: _Poll | None) -> tuple[int, JSONDict]:
        if name == "getupdates":
            handler: Callable[[_Params], Any] = lambda p: self._m_get_updates(p, poll)  # noqa: E731
        elif name in self._handlers:
            handler = self._handlers[name]
        elif name in UNSUPPORTED_METHODS:
            description = f"Not Implemented: the fake Bot API does not support {name}"
            return 501, {"ok": False, "error_code": 501, "description": description}
        else:
            return 404, {"ok": False, "error_code": 404, "description": "Not Found"}
        try:
            result = handler(_Params(params))
        except ApiError as exc:
            return exc.code, exc.body()
        if isinstance(result, _Described):
            return 200, {"ok": True, "result": result.value, "description": result.description}
        return 200, {"ok": True, "result": result}

    # ------------------------------------------------------------------ internals: lookups

    def _now_date(self) -> int:
        return int(self._epoch + self.clock())

    def _user(self, ref: FakeUser | int) -> FakeUser:
        user_id = ref.id if isinstance(ref, FakeUser) else int(ref)
        try:
            return self._users[user_id]
        except KeyError:
            raise KeyError(f"unknown user {user_id}") from None

    def _private_chat(self, user: FakeUser) -> FakeChat:
        chat = self._chats.get(user.id)
        if chat is None:
            chat = FakeChat(user.id, "private", user=user)
            self._chats[user.id] = chat
        return chat

    def _chat(self, ref: FakeChat | FakeUser | int) -> FakeChat:
        if isinstance(ref, FakeUser):
            return self._private_chat(self._user(ref))
        chat_id = ref.id if isinstance(ref, FakeChat) else int(ref)
        chat = self._lookup_chat(chat_id)
        if chat is None:
            raise KeyError(f"unknown chat {chat_id}")
        return chat

    def _lookup_chat(self, chat_id: int) -> FakeChat | None:
        chat = self._chats.get(chat_id)
        if chat is None and chat_id > 0 and chat_id in self._users:
            user = self._users[chat_id]
            if user.is_bot:
                return None
            chat = self._private_chat(user)
        return chat

    def _creator(self, chat: FakeChat) -> FakeUser:
        for user_id, status in chat.members.items():
            if status == "creator":
                return self._users[user_id]
        return self.bot

    def _stored(self, chat: FakeChat, ref: MessageView | StoredMessage | int) -> StoredMessage:
        message_id = ref if isinstance(ref, int) else ref.message_id
        msg = self._messages.get((chat.id, message_id))
        if msg is None:
            raise KeyError(f"no message {message_id} in chat {chat.id}")
        return msg

    def _resolve_message_ref(
        self, ref: MessageView | StoredMessage | JSONDict | tuple[int, int]
    ) -> StoredMessage:
        if isinstance(ref, StoredMessage):
            return ref
        if isinstance(ref, MessageView):
            key = (ref.chat_id, ref.message_id)
        elif isinstance(ref, dict):
            key = (int(ref["chat"]["id"]), int(ref["message_id"]))
        else:
            key = (int(ref[0]), int(ref[1]))
        msg = self._messages.get(key)
        if msg is None:
            raise KeyError(f"no message {key[1]} in chat {key[0]}")
        return msg

    def _chat_instance(self, chat: FakeChat) -> str:
        digest = hashlib.sha256(f"{self.bot.id}:{chat.id}".encode()).digest()
        return str(int.from_bytes(digest[:8], "big", signed=True))

    def _known_users(self) -> Mapping[int, JSONDict]:
        return _KnownUsers(self._users)

    # ------------------------------------------------------------------ internals: messages

    def _next_message_id(self, chat: FakeChat) -> int:
        if chat.type == "supergroup":
            chat.next_message_id += 1
            return chat.next_message_id
        self._common_box += 1
        return self._common_box

    def _store(self, chat: FakeChat, sender: FakeUser, **fields: Any) -> StoredMessage:
        msg = StoredMessage(chat, self._next_message_id(chat), sender, self._now_date(), **fields)
        self._messages[(chat.id, msg.message_id)] = msg
        chat.message_ids.append(msg.message_id)
        return msg

    def _message_api(self, msg: StoredMessage, *, nested: bool = True) -> JSONDict:
        data: JSONDict = {
            "message_id": msg.message_id,
            "from": msg.sender.to_api(),
            "chat": msg.chat.to_api(),
            "date": msg.date,
        }
        if msg.edit_date is not None:
            data["edit_date"] = msg.edit_date
        if msg.reply_to is not None and nested:
            data["reply_to_message"] = self._message_api(msg.reply_to, nested=False)
        if msg.text is not None:
            data["text"] = msg.text
            if msg.entities:
                data["entities"] = [dict(e) for e in msg.entities]
            if msg.link_preview_options:
                data["link_preview_options"] = dict(msg.link_preview_options)
        if msg.media is not None:
            data[msg.media.kind] = msg.media.to_api()
            if msg.caption is not None:
                data["caption"] = msg.caption
                if msg.caption_entities:
                    data["caption_entities"] = [dict(e) for e in msg.caption_entities]
            if msg.has_spoiler:
                data["has_media_spoiler"] = True
        data.update(msg.service)
        if msg.reply_markup is not None:
            data["reply_markup"] = json.loads(json.dumps(msg.reply_markup))
        return data

    def _view(self, msg: StoredMessage) -> MessageView:
        media = None
        if msg.media is not None:
            f = msg.media
            media = MediaView(
                f.kind, f.file_id, f.file_unique_id, f.file_name, f.mime_type, f.data,
                f.width, f.height,
            )  # fmt: skip
        return MessageView(
            chat_id=msg.chat.id,
            message_id=msg.message_id,
            from_id=msg.sender.id,
            from_bot=msg.sender.id == self.bot.id,
            date=msg.date,
            text=msg.text,
            entities=[dict(e) for e in msg.entities],
            caption=msg.caption,
            caption_entities=[dict(e) for e in msg.caption_entities],
            reply_markup=_keyboard_rows(msg.reply_markup),
            keyboard=json.loads(json.dumps(msg.keyboard)) if msg.keyboard else None,
            media=media,
            sent_text=msg.sent_text,
            parse_mode=msg.parse_mode,
            reply_to_message_id=msg.reply_to.message_id if msg.reply_to else None,
            edit_date=msg.edit_date,
            history=[dict(h) for h in msg.history],
            deleted=msg.deleted,
            service=json.loads(json.dumps(msg.service)) if msg.service else {},
        )

    def _user_message(
        self, user: FakeUser, chat: FakeChat, text: str, reply_to: StoredMessage | None
    ) -> MessageView:
        plain, entities = format_text(text, None, None, strict_html=False)
        msg = self._store(chat, user, text=plain, entities=entities, reply_to=reply_to)
        self._deliver(msg)
        return self._view(msg)

    def _deliver(self, msg: StoredMessage) -> None:
        """Queue a ``message`` update if the bot can see this message."""
        if self._bot_receives(msg):
            self._queue("message", self._message_api(msg))

    def _bot_receives(self, msg: StoredMessage) -> bool:
        chat = msg.chat
        if chat.type == "private":
            return True
        if not chat.bot_is_member:
            return False
        if msg.service or not self.privacy_mode or chat.bot_status == "administrator":
            return True
        if msg.reply_to is not None and msg.reply_to.sender.id == self.bot.id:
            return True
        text = msg.text or ""
        command = next(
            (e for e in msg.entities if e["type"] == "bot_command" and e["offset"] == 0), None
        )
        if command is None:
            return False
        name = text[: command["length"]]
        if "@" in name:
            return name.split("@", 1)[1].lower() == (self.bot.username or "").lower()
        return True

    def _queue(self, kind: str, payload: JSONDict) -> None:
        allowed = self._allowed_updates or DEFAULT_UPDATE_TYPES
        if kind not in allowed:
            return
        update_id = self._next_update_id
        self._next_update_id += 1
        self._updates.append({"update_id": update_id, kind: payload})

    def _chat_member_api(self, user: FakeUser, status: str) -> JSONDict:
        data: JSONDict = {"user": user.to_api(), "status": status}
        if status == "creator":
            data["is_anonymous"] = False
        elif status == "administrator":
            data.update(
                can_be_edited=False, is_anonymous=False, can_manage_chat=True,
                can_delete_messages=True, can_manage_video_chats=True, can_restrict_members=True,
                can_promote_members=False, can_change_info=True, can_invite_users=True,
                can_post_stories=False, can_edit_stories=False, can_delete_stories=False,
                can_pin_messages=True,
            )  # fmt: skip
        elif status == "kicked":
            data["until_date"] = 0
        return data

    def _my_chat_member(self, chat: FakeChat, actor: FakeUser, old: str, new: str) -> None:
        """Queue a my_chat_member update (delivered even when the bot just lost access)."""
        self._queue(
            "my_chat_member",
            {
                "chat": chat.to_api(),
                "from": actor.to_api(),
                "date": self._now_date(),
                "old_chat_member": self._chat_member_api(self.bot, old),
                "new_chat_member": self._chat_member_api(self.bot, new),
            },
        )

    def _bot_joins(self, chat: FakeChat, actor: FakeUser, *, admin: bool, announce: bool) -> None:
        old = chat.bot_status
        chat.bot_status = "administrator" if admin else "member"
        if announce:
            if old == "kicked" and chat.type == "group":
                old = "left"  # basic groups have no ban list
            self._my_chat_member(chat, actor, old, chat.bot_status)
            msg = self._store(chat, actor, service={"new_chat_members": [self.bot.to_api()]})
            self._deliver(msg)

    # ------------------------------------------------------------------ internals: checks

    def _chat_param(self, p: _Params, name: str = "chat_id") -> FakeChat:
        value = p.get(name)
        if value is None or value == "":
            raise ApiError(400, "Bad Request: chat_id is empty")
        if isinstance(value, str) and value.startswith("@"):
            wanted = value[1:].lower()
            for chat in self._chats.values():
                if chat.type != "private" and (chat.username or "").lower() == wanted:
                    return chat
            raise ApiError(400, CHAT_NOT_FOUND)
        try:
            chat_id = int(value)
        except (TypeError, ValueError):
            raise ApiError(400, CHAT_NOT_FOUND) from None
        found = self._lookup_chat(chat_id)
        if found is None:
            if chat_id in self._users:  # another bot
                raise ApiError(403, "Forbidden: bot can't send messages to bots")
            raise ApiError(400, CHAT_NOT_FOUND)
        return found

    def _check_access(self, chat: FakeChat, *, write: bool = True) -> None:
        if chat.migrated_to is not None:
            raise ApiError(400, GROUP_MIGRATED, {"migrate_to_chat_id": chat.migrated_to})
        if chat.type == "private":
            assert chat.user is not None
            if not write:
                return
            if chat.user.deactivated:
                raise ApiError(403, "Forbidden: user is deactivated")
            if chat.user.blocked:
                raise ApiError(403, BLOCKED)
            if not chat.user.started:
                raise ApiError(403, CANT_INITIATE)
            return
        if chat.bot_status == "kicked":
            raise ApiError(403, f"Forbidden: bot was kicked from the {chat.type} chat")
        if chat.bot_status == "left":
            raise ApiError(403, f"Forbidden: bot is not a member of the {chat.type} chat")

    def _writable_chat(self, p: _Params) -> FakeChat:
        chat = self._chat_param(p)
        self._check_access(chat)
        return chat

    def _format(
        self, p: _Params, text_field: str, entities_field: str, *, empty_error: str
    ) -> tuple[str, list[JSONDict], str | None, str | None]:
        """Return (plain text, entities, text as sent, parse_mode) for text or caption."""
        raw = p.text(text_field)
        parse_mode = p.text("parse_mode") or None
        explicit = p.obj(entities_field, "message entities")
        if explicit is not None and not isinstance(explicit, list):
            raise ApiError(400, "Bad Request: can't parse message entities JSON object")
        if raw is None or raw == "":
            if empty_error:
                raise ApiError(400, empty_error)
            return "", [], raw, parse_mode
        try:
            plain, entities = format_text(
                raw,
                None if explicit is not None else parse_mode,
                explicit,
                strict_html=self.strict_html,
                users=self._known_users(),
            )
        except EntityParseError as exc:
            raise ApiError(400, f"Bad Request: can't parse entities: {exc}") from None
        except ValueError:
            raise ApiError(400, "Bad Request: unsupported parse_mode") from None
        if not plain and empty_error:
            raise ApiError(400, empty_error)
        return plain, entities, raw, parse_mode

    def _markup(self, p: _Params, *, inline_only: bool) -> tuple[JSONDict | None, JSONDict | None]:
        """Validate reply_markup; return (inline keyboard to echo, other keyboard)."""
        markup = p.obj("reply_markup", "reply keyboard markup")
        if markup is None:
            return None, None
        if not isinstance(markup, dict):
            raise ApiError(400, "Bad Request: can't parse reply keyboard markup JSON object")
        if "inline_keyboard" in markup:
            rows = markup["inline_keyboard"]
            if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
                raise ApiError(
                    400, 'Bad Request: field "inline_keyboard" must be an Array of Arrays'
                )
            if sum(len(r) for r in rows) > MAX_BUTTONS:
                raise ApiError(400, "Bad Request: reply markup is too long")
            clean_rows = []
            for row in rows:
                clean_row = []
                for button in row:
                    clean_row.append(self._check_button(button))
                if clean_row:
                    clean_rows.append(clean_row)
            return ({"inline_keyboard": clean_rows} if clean_rows else None), None
        if inline_only:
            raise ApiError(400, "Bad Request: inline keyboard expected")
        if "keyboard" in markup:
            rows = markup["keyboard"]
            if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
                raise ApiError(400, 'Bad Request: field "keyboard" must be an Array of Arrays')
            for row in rows:
                for button in row:
                    text = button if isinstance(button, str) else (button or {}).get("text")
                    if not isinstance(text, str):
                        raise ApiError(
                            400,
                            "Bad Request: can't parse keyboard button: "
                            'Field "text" must be of type String',
                        )
            return None, markup
        if markup.get("remove_keyboard") or markup.get("force_reply"):
            return None, markup
        raise ApiError(400, "Bad Request: can't parse reply keyboard markup JSON object")

    def _check_button(self, button: Any) -> JSONDict:
        if not isinstance(button, dict):
            raise ApiError(
                400,
                "Bad Request: can't parse inline keyboard button: "
                "InlineKeyboardButton must be an Object",
            )
        if not isinstance(button.get("text"), str):
            raise ApiError(
                400,
                "Bad Request: can't parse inline keyboard button: "
                'Field "text" must be of type String',
            )
        clean = {k: v for k, v in button.items() if v is not None}
        actions = [k for k in INLINE_BUTTON_ACTIONS if k in clean]
        if not actions:
            raise ApiError(
                400,
                "Bad Request: can't parse inline keyboard button: Text buttons are unallowed in "
                "the inline keyboard",
            )
        if "callback_data" in clean:
            data = clean["callback_data"]
            if not isinstance(data, str):
                raise ApiError(
                    400,
                    "Bad Request: can't parse inline keyboard button: "
                    'Field "callback_data" must be of type String',
                )
            if not 1 <= len(data.encode("utf-8")) <= MAX_CALLBACK_DATA_BYTES:
                raise ApiError(400, BUTTON_DATA_INVALID)
        if "url" in clean:
            url = clean["url"]
            if not isinstance(url, str) or not _valid_button_url(url):
                raise ApiError(
                    400,
                    f"Bad Request: inline keyboard button URL '{url}' is invalid: Wrong HTTP URL",
                )
        return clean

    def _reply_target(self, chat: FakeChat, p: _Params) -> StoredMessage | None:
        params = p.obj("reply_parameters", "reply parameters")
        message_id = None
        allow_missing = p.flag("allow_sending_without_reply")
        if isinstance(params, dict):
            message_id = params.get("message_id")
            allow_missing = bool(params.get("allow_sending_without_reply", allow_missing))
        if message_id is None:
            message_id = p.integer("reply_to_message_id")
        if message_id is None:
            return None
        msg = self._messages.get((chat.id, int(message_id)))
        if msg is None or msg.deleted:
            if allow_missing:
                return None
            raise ApiError(400, "Bad Request: message to be replied not found")
        return msg

    def _flood_check(self, method: str, chat: FakeChat) -> None:
        limits = self.flood
        if not limits.enabled or method.lower() not in FLOOD_METHODS:
            return
        now = self.clock()
        banned_until = self._flood_until.get(chat.id)
        scope = "private" if chat.type == "private" else "group"
        if banned_until is not None and now < banned_until:
            self._flood(method, chat.id, scope, banned_until - now, ban=False)
        window = self._global_sends
        while window and window[0] <= now - 1.0:
            window.popleft()
        if len(window) >= limits.global_per_second:
            self._flood(method, chat.id, "global", window[0] + 1.0 - now, ban=False)
        if chat.type == "private":
            tokens, last = self._private_buckets.get(chat.id, (float(limits.private_burst), now))
            tokens = min(
                float(limits.private_burst), tokens + (now - last) * limits.private_per_second
            )
            if tokens < 1.0:
                self._flood(method, chat.id, scope, (1.0 - tokens) / limits.private_per_second)
        else:
            sends = self._group_sends.setdefault(chat.id, deque())
            while sends and sends[0] <= now - limits.group_window:
                sends.popleft()
            if len(sends) >= limits.group_per_minute:
                self._flood(method, chat.id, scope, sends[0] + limits.group_window - now)

    def _flood_commit(self, method: str, chat: FakeChat) -> None:
        limits = self.flood
        if not limits.enabled or method.lower() not in FLOOD_METHODS:
            return
        now = self.clock()
        self._global_sends.append(now)
        if chat.type == "private":
            tokens, last = self._private_buckets.get(chat.id, (float(limits.private_burst), now))
            tokens = min(
                float(limits.private_burst), tokens + (now - last) * limits.private_per_second
            )
            self._private_buckets[chat.id] = (tokens - 1.0, now)
        else:
            self._group_sends.setdefault(chat.id, deque()).append(now)

    def _flood(
        self, method: str, chat_id: int, scope: str, wait: float, *, ban: bool = True
    ) -> None:
        retry_after = max(1, math.ceil(wait - 1e-9))
        now = self.clock()
        if ban:
            self._flood_until[chat_id] = now + retry_after
        self._flood_errors.append(FloodError(method, chat_id, scope, retry_after, now))
        raise ApiError(
            429, f"Too Many Requests: retry after {retry_after}", {"retry_after": retry_after}
        )

    def _message_param(self, chat: FakeChat, p: _Params, missing: str) -> StoredMessage:
        if p.get("inline_message_id"):
            raise ApiError(400, "Bad Request: MESSAGE_ID_INVALID")
        message_id = p.integer("message_id")
        if message_id is None:
            raise ApiError(400, "Bad Request: message identifier is not specified")
        msg = self._messages.get((chat.id, message_id))
        if msg is None or msg.deleted:
            raise ApiError(400, missing)
        return msg

    def _editable(self, p: _Params) -> StoredMessage:
        chat = self._writable_chat(p)
        msg = self._message_param(chat, p, MESSAGE_TO_EDIT_NOT_FOUND)
        if msg.sender.id != self.bot.id or msg.service:
            raise ApiError(400, "Bad Request: message can't be edited")
        return msg

    def _apply_edit(self, method: str, msg: StoredMessage, **changes: Any) -> JSONDict:
        self._flood_check(method, msg.chat)
        msg.history.append(msg.snapshot())
        for key, value in changes.items():
            setattr(msg, key, value)
        msg.edit_date = self._now_date()
        self._flood_commit(method, msg.chat)
        return self._message_api(msg)

    # ------------------------------------------------------------------ internals: files

    def _new_file_ids(self, prefix: str, unique_prefix: str) -> tuple[str, str, int]:
        self._next_file += 1
        n = self._next_file
        digest = hashlib.sha256(f"{self.bot.id}:{n}".encode()).digest()
        body = base64.urlsafe_b64encode(digest[:36]).decode().rstrip("=")
        return f"{prefix}{n:04d}{body}", f"{unique_prefix}{n:04d}{body[:8]}", n

    def _make_file(
        self, kind: str, data: bytes, filename: str | None, content_type: str | None
    ) -> StoredFile:
        if not data:
            raise ApiError(400, "Bad Request: file must be non-empty")
        if kind == "photo":
            size = image_size(data)
            if size is None:
                raise ApiError(400, "Bad Request: IMAGE_PROCESS_FAILED")
            width, height = size
            if width + height > 10000 or max(width, height) > 20 * min(width, height):
                raise ApiError(400, "Bad Request: PHOTO_INVALID_DIMENSIONS")
            if len(data) > 10 * 1024 * 1024:
                raise ApiError(400, "Bad Request: PHOTO_SAVE_FILE_INVALID")
            file_id, unique_id, n = self._new_file_ids("AgACAgIAAxkDAAI", "AQAD")
            stored = StoredFile(
                file_id, unique_id, "photo", data, filename, "image/jpeg",
                f"photos/file_{n}.jpg", width, height,
            )  # fmt: skip
            sizes = photo_sizes(width, height)
            for index, (w, h) in enumerate(sizes):
                last = index == len(sizes) - 1
                size_id = file_id if last else f"{file_id}_{index}"
                approx = len(data) if last else max(1, len(data) * w * h // (width * height))
                stored.sizes.append(
                    {
                        "file_id": size_id,
                        "file_unique_id": f"{unique_id}{'' if last else index}",
                        "file_size": approx,
                        "width": w,
                        "height": h,
                    }
                )
                self._files[size_id] = stored
        else:
            if len(data) > 50 * 1024 * 1024:
                raise ApiError(413, "Request Entity Too Large")
            name = filename or "file"
            mime = mimetypes.guess_type(name, strict=False)[0]
            if mime is None and content_type and content_type != "application/octet-stream":
                mime = content_type
            mime = mime or "application/octet-stream"
            file_id, unique_id, n = self._new_file_ids("BQACAgIAAxkDAAI", "AgAD")
            ext = mimetypes.guess_extension(mime) or ""
            if "." in name:
                ext = "." + name.rsplit(".", 1)[1]
            stored = StoredFile(
                file_id, unique_id, "document", data, name, mime, f"documents/file_{n}{ext}"
            )
            self._files[file_id] = stored
        self._files_by_path[stored.file_path] = stored
        return stored

    def _input_file(self, p: _Params, value: Any, field_name: str, kind: str) -> StoredFile:
        if isinstance(value, str) and value.startswith("attach://"):
            attached = p.get(value[len("attach://") :])
            if not isinstance(attached, UploadedFile):
                raise ApiError(400, f'Bad Request: can\'t find attached file "{value}"')
            value = attached
        if value is None or value == "":
            raise ApiError(400, f"Bad Request: there is no {field_name} in the request")
        if isinstance(value, UploadedFile):
            return self._make_file(kind, value.content, value.filename, value.content_type)
        if not isinstance(value, str):
            raise ApiError(400, f"Bad Request: wrong type of the {field_name} field")
        if value.startswith(("http://", "https://")):
            if value not in self._urls:
                raise ApiError(400, "Bad Request: failed to get HTTP URL content")
            content, filename = self._urls[value]
            name = filename or value.rstrip("/").rsplit("/", 1)[-1] or None
            return self._make_file(kind, content, name, None)
        stored = self._files.get(value)
        if stored is None:
            raise ApiError(400, "Bad Request: wrong file identifier/HTTP URL specified")
        if stored.kind != kind:
            raise ApiError(
                400,
                f"Bad Request: can't use file of type {stored.kind.capitalize()} "
                f"as {kind.capitalize()}",
            )
        return stored

    # ------------------------------------------------------------------ methods: bot & updates

    def _m_get_me(self, p: _Params) -> JSONDict:
        data = self.bot.to_api()
        data.update(
            can_join_groups=True,
            can_read_all_group_messages=not self.privacy_mode,
            supports_inline_queries=False,
            can_connect_to_business=False,
            has_main_web_app=False,
        )
        return data

    def _m_get_updates(self, p: _Params, poll: _Poll | None) -> list[JSONDict]:
        if self._webhook is not None:
            raise ApiError(409, CONFLICT_WEBHOOK)
        if poll is not None and poll.ticket != self._poll_gen:
            raise ApiError(409, CONFLICT_POLL)
        offset = p.integer("offset", 0) or 0
        limit = min(100, max(1, p.integer("limit", 100) or 100))
        timeout = max(0.0, p.number("timeout", 0.0))
        allowed = p.obj("allowed_updates", "allowed updates")
        if isinstance(allowed, list):
            self._allowed_updates = frozenset(allowed) if allowed else None
        if offset > 0:
            while self._updates and self._updates[0]["update_id"] < offset:
                self._updates.popleft()
        elif offset < 0:
            while len(self._updates) > -offset:
                self._updates.popleft()
        batch = list(self._updates)[:limit]
        if not batch and timeout > 0 and poll is not None and poll.can_wait:
            raise _WaitForUpdates(timeout, self._version)
        return batch

    def _m_delete_webhook(self, p: _Params) -> _Described:
        if p.flag("drop_pending_updates"):
            self._updates.clear()
        if self._webhook is None:
            return _Described(True, "Webhook is already deleted")
        self._webhook = None
        return _Described(True, "Webhook was deleted")

    def _m_set_webhook(self, p: _Params) -> _Described:
        url = p.text("url") or ""
        if p.flag("drop_pending_updates"):
            self._updates.clear()
        if not url:
            return self._m_delete_webhook(p)
        if not url.startswith("https://"):
            raise ApiError(
                400, "Bad Request: bad webhook: An HTTPS URL must be provided for webhook"
            )
        allowed = p.obj("allowed_updates", "allowed updates")
        if isinstance(allowed, list):
            self._allowed_updates = frozenset(allowed) if allowed else None
        already = self._webhook is not None and self._webhook["url"] == url
        self._webhook = {
            "url": url,
            "max_connections": p.integer("max_connections", 40) or 40,
            "secret_token": p.text("secret_token"),
        }
        return _Described(True, "Webhook is already set" if already else "Webhook was set")

    def _m_get_webhook_info(self, p: _Params) -> JSONDict:
        info: JSONDict = {
            "url": self._webhook["url"] if self._webhook else "",
            "has_custom_certificate": False,
            "pending_update_count": len(self._updates),
        }
        if self._webhook:
            info["max_connections"] = self._webhook["max_connections"]
        if self._allowed_updates:
            info["allowed_updates"] = sorted(self._allowed_updates)
        return info

    def _scope_key(self, scope: Any, language_code: str) -> str:
        if not isinstance(scope, dict) or "type" not in scope:
            raise ApiError(400, "Bad Request: can't parse BotCommandScope JSON object")
        kind = scope["type"]
        valid = (
            "default", "all_private_chats", "all_group_chats", "all_chat_administrators",
            "chat", "chat_administrators", "chat_member",
        )  # fmt: skip
        if kind not in valid:
            raise ApiError(400, "Bad Request: unsupported bot command scope type")
        key: JSONDict = {"type": kind}
        if kind in ("chat", "chat_administrators", "chat_member"):
            chat = self._chat_param(_Params(scope))
            key["chat_id"] = chat.id
        if kind == "chat_member":
            key["user_id"] = int(scope.get("user_id", 0))
        return json.dumps([key, language_code], sort_keys=True)

    def _m_set_my_commands(self, p: _Params) -> bool:
        commands = p.obj("commands", "commands")
        if commands is None:
            commands = []
        if not isinstance(commands, list):
            raise ApiError(400, "Bad Request: can't parse commands JSON object")
        if len(commands) > 100:
            raise ApiError(400, "Bad Request: too many commands specified")
        clean = []
        for command in commands:
            if not isinstance(command, dict):
                raise ApiError(
                    400, "Bad Request: can't parse BotCommand: BotCommand must be an Object"
                )
            for name in ("command", "description"):
                if name not in command:
                    raise ApiError(
                        400, f"Bad Request: can't parse BotCommand: Can't find field \"{name}\""
                    )
            text, description = str(command["command"]), str(command["description"])
            if (
                not (1 <= len(text) <= 32)
                or not all(c.islower() or c.isdigit() or c == "_" for c in text)
                or not text.isascii()
            ):
                raise ApiError(400, "Bad Request: BOT_COMMAND_INVALID")
            if not (1 <= len(description.strip()) and len(description) <= 256):
                raise ApiError(400, "Bad Request: BOT_COMMAND_DESCRIPTION_INVALID")
            clean.append({"command": text, "description": description})
        key = self._scope_key(
            p.obj("scope", "BotCommandScope") or {"type": "default"}, p.text("language_code") or ""
        )
        if clean:
            self._commands[key] = clean
        else:
            self._commands.pop(key, None)
        return True

    def _m_get_my_commands(self, p: _Params) -> list[JSONDict]:
        key = self._scope_key(
            p.obj("scope", "BotCommandScope") or {"type": "default"}, p.text("language_code") or ""
        )
        return [dict(c) for c in self._commands.get(key, [])]

    def _m_delete_my_commands(self, p: _Params) -> bool:
        key = self._scope_key(
            p.obj("scope", "BotCommandScope") or {"type": "default"}, p.text("language_code") or ""
        )
        self._commands.pop(key, None)
        return True

    def _setting_setter(self, name: str) -> Callable[[_Params], bool]:
        def setter(p: _Params) -> bool:
            self._bot_settings[name] = dict(p.data)
            return True

        return setter

    def _setting_getter(self, name: str) -> Callable[[_Params], JSONDict]:
        field_name = {"Description": "description", "ShortDescription": "short_description"}.get(
            name, name.lower()
        )

        def getter(p: _Params) -> JSONDict:
            stored = self._bot_settings.get(name, {})
            if name == "MenuButton":
                return stored.get("menu_button") or {"type": "commands"}
            default = self.bot.first_name if name == "Name" else ""
            return {field_name: stored.get(field_name, default)}

        return getter

    # ------------------------------------------------------------------ methods: messages

    def _m_send_message(self, p: _Params) -> JSONDict:
        chat = self._writable_chat(p)
        text, entities, raw, parse_mode = self._format(
            p, "text", "entities", empty_error="Bad Request: message text is empty"
        )
        if len(text) > MAX_TEXT_LENGTH:
            raise ApiError(400, MESSAGE_TOO_LONG)
        inline, other = self._markup(p, inline_only=False)
        reply_to = self._reply_target(chat, p)
        self._flood_check("sendMessage", chat)
        msg = self._store(
            chat,
            self.bot,
            text=text,
            entities=entities,
            reply_markup=inline,
            keyboard=other,
            sent_text=raw,
            parse_mode=parse_mode,
            reply_to=reply_to,
            link_preview_options=p.obj("link_preview_options", "link preview options"),
        )
        self._flood_commit("sendMessage", chat)
        return self._message_api(msg)

    def _m_edit_message_text(self, p: _Params) -> JSONDict:
        msg = self._editable(p)
        if msg.text is None:
            raise ApiError(400, "Bad Request: there is no text in the message to edit")
        text, entities, raw, parse_mode = self._format(
            p, "text", "entities", empty_error="Bad Request: message text is empty"
        )
        if len(text) > MAX_TEXT_LENGTH:
            raise ApiError(400, MESSAGE_TOO_LONG)
        inline, _ = self._markup(p, inline_only=True)
        if text == msg.text and entities == msg.entities and inline == msg.reply_markup:
            raise ApiError(400, NOT_MODIFIED)
        return self._apply_edit(
            "editMessageText", msg, text=text, entities=entities, reply_markup=inline,
            sent_text=raw, parse_mode=parse_mode,
        )  # fmt: skip

    def _m_edit_message_reply_markup(self, p: _Params) -> JSONDict:
        msg = self._editable(p)
        inline, _ = self._markup(p, inline_only=True)
        if inline == msg.reply_markup:
            raise ApiError(400, NOT_MODIFIED)
        return self._apply_edit("editMessageReplyMarkup", msg, reply_markup=inline)

    def _m_edit_message_caption(self, p: _Params) -> JSONDict:
        msg = self._editable(p)
        if msg.media is None:
            raise ApiError(400, "Bad Request: there is no caption in the message to edit")
        caption, entities, raw, parse_mode = self._format(
            p, "caption", "caption_entities", empty_error=""
        )
        if len(caption) > MAX_CAPTION_LENGTH:
            raise ApiError(400, "Bad Request: message caption is too long")
        inline, _ = self._markup(p, inline_only=True)
        new_caption = caption or None
        if (
            new_caption == msg.caption
            and entities == msg.caption_entities
            and inline == msg.reply_markup
        ):
            raise ApiError(400, NOT_MODIFIED)
        return self._apply_edit(
            "editMessageCaption", msg, caption=new_caption, caption_entities=entities,
            reply_markup=inline, sent_text=raw, parse_mode=parse_mode,
        )  # fmt: skip

    def _m_edit_message_media(self, p: _Params) -> JSONDict:
        msg = self._editable(p)
        media = p.obj("media", "InputMedia")
        if not isinstance(media, dict) or "type" not in media:
            raise ApiError(400, "Bad Request: can't parse InputMedia JSON object")
        kind = media["type"]
        if kind not in ("photo", "document"):
            raise ApiError(501, f"Not Implemented: the fake Bot API does not support {kind} media")
        if msg.media is None:
            raise ApiError(400, "Bad Request: there is no media in the message to edit")
        media_params = _Params({**p.data, **{k: v for k, v in media.items() if k != "media"}})
        caption, entities, raw, parse_mode = self._format(
            media_params, "caption", "caption_entities", empty_error=""
        )
        if len(caption) > MAX_CAPTION_LENGTH:
            raise ApiError(400, "Bad Request: message caption is too long")
        inline, _ = self._markup(p, inline_only=True)
        stored = self._input_file(p, media.get("media"), kind, kind)
        if (
            stored is msg.media
            and (caption or None) == msg.caption
            and entities == msg.caption_entities
            and inline == msg.reply_markup
        ):
            raise ApiError(400, NOT_MODIFIED)
        return self._apply_edit(
            "editMessageMedia", msg, media=stored, caption=caption or None,
            caption_entities=entities, reply_markup=inline, sent_text=raw,
            parse_mode=parse_mode, has_spoiler=bool(media.get("has_spoiler")),
        )  # fmt: skip

    def _deletable(self, chat: FakeChat, msg: StoredMessage) -> bool:
        if chat.type == "private" or msg.sender.id == self.bot.id and not msg.service:
            return True
        return chat.bot_status == "administrator"

    def _m_delete_message(self, p: _Params) -> bool:
        chat = self._chat_param(p)
        self._check_access(chat, write=False)
        msg = self._message_param(chat, p, "Bad Request: message to delete not found")
        if not self._deletable(chat, msg):
            raise ApiError(400, "Bad Request: message can't be deleted")
        msg.deleted = True
        return True

    def _m_delete_messages(self, p: _Params) -> bool:
        chat = self._chat_param(p)
        self._check_access(chat, write=False)
        ids = p.obj("message_ids", "message identifiers")
        if not isinstance(ids, list) or not 1 <= len(ids) <= 100:
            raise ApiError(400, "Bad Request: message identifiers are not specified")
        for message_id in ids:
            msg = self._messages.get((chat.id, int(message_id)))
            if msg is not None and not msg.deleted and self._deletable(chat, msg):
                msg.deleted = True
        return True

    def _m_answer_callback_query(self, p: _Params) -> bool:
        query_id = p.text("callback_query_id") or ""
        query = self._queries.get(query_id)
        if query is None or query.answered or self.clock() - query.time > self.callback_timeout:
            raise ApiError(400, QUERY_TOO_OLD)
        text = p.text("text")
        if text is not None and len(text) > 200:
            raise ApiError(400, "Bad Request: MESSAGE_TOO_LONG")
        query.answered = True
        query.answer = {k: v for k, v in p.data.items() if k != "callback_query_id"}
        return True

    def _send_media(self, p: _Params, method: str, kind: str) -> JSONDict:
        chat = self._writable_chat(p)
        caption, entities, raw, parse_mode = self._format(
            p, "caption", "caption_entities", empty_error=""
        )
        if len(caption) > MAX_CAPTION_LENGTH:
            raise ApiError(400, "Bad Request: message caption is too long")
        inline, other = self._markup(p, inline_only=False)
        reply_to = self._reply_target(chat, p)
        stored = self._input_file(p, p.get(kind), kind, kind)
        self._flood_check(method, chat)
        msg = self._store(
            chat,
            self.bot,
            media=stored,
            caption=caption or None,
            caption_entities=entities,
            reply_markup=inline,
            keyboard=other,
            sent_text=raw,
            parse_mode=parse_mode,
            reply_to=reply_to,
            has_spoiler=p.flag("has_spoiler"),
        )
        self._flood_commit(method, chat)
        return self._message_api(msg)

    def _m_send_photo(self, p: _Params) -> JSONDict:
        return self._send_media(p, "sendPhoto", "photo")

    def _m_send_document(self, p: _Params) -> JSONDict:
        return self._send_media(p, "sendDocument", "document")

    def _m_get_file(self, p: _Params) -> JSONDict:
        file_id = p.text("file_id") or ""
        stored = self._files.get(file_id)
        if stored is None:
            raise ApiError(400, "Bad Request: invalid file_id")
        if len(stored.data) > 20 * 1024 * 1024:
            raise ApiError(400, "Bad Request: file is too big")
        size = len(stored.data)
        unique = stored.file_unique_id
        for photo_size in stored.sizes:
            if photo_size["file_id"] == file_id:
                size, unique = photo_size["file_size"], photo_size["file_unique_id"]
        return {
            "file_id": file_id,
            "file_unique_id": unique,
            "file_size": size,
            "file_path": stored.file_path,
        }

    # ------------------------------------------------------------------ methods: chats

    def _m_get_chat(self, p: _Params) -> JSONDict:
        chat = self._chat_param(p)
        self._check_access(chat, write=False)
        data = chat.to_api()
        data.pop("all_members_are_administrators", None)
        data.update(
            accent_color_id=chat.id % 7 if chat.type == "private" else 0,
            max_reaction_count=11,
            accepted_gift_types={
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        )
        if chat.type != "private":
            data["permissions"] = {
                "can_send_messages": True, "can_send_audios": True, "can_send_documents": True,
                "can_send_photos": True, "can_send_videos": True, "can_send_video_notes": True,
                "can_send_voice_notes": True, "can_send_polls": True,
                "can_send_other_messages": True, "can_add_web_page_previews": True,
                "can_change_info": True, "can_invite_users": True, "can_pin_messages": True,
                "can_manage_topics": False,
            }  # fmt: skip
        for message_id in reversed(chat.pinned):
            pinned = self._messages.get((chat.id, message_id))
            if pinned is not None and not pinned.deleted:
                data["pinned_message"] = self._message_api(pinned, nested=False)
                break
        return data

    def _member_status(self, chat: FakeChat, user_id: int) -> tuple[FakeUser, str]:
        user = self._users.get(user_id)
        if user is None:
            raise ApiError(400, "Bad Request: user not found")
        if user_id == self.bot.id:
            if chat.type == "private":
                return user, "member"
            return (
                user,
                chat.bot_status
                if chat.bot_status != "kicked" or chat.type == "supergroup"
                else "left",
            )
        if chat.type == "private":
            if user_id != chat.id:
                raise ApiError(400, "Bad Request: user not found")
            return user, "kicked" if user.blocked else "member"
        return user, chat.members.get(user_id, "left")

    def _m_get_chat_member(self, p: _Params) -> JSONDict:
        chat = self._chat_param(p)
        self._check_access(chat, write=False)
        user_id = p.integer("user_id")
        if user_id is None:
            raise ApiError(400, "Bad Request: user_id is empty")
        user, status = self._member_status(chat, user_id)
        return self._chat_member_api(user, status)

    def _m_get_chat_administrators(self, p: _Params) -> list[JSONDict]:
        chat = self._chat_param(p)
        self._check_access(chat, write=False)
        if chat.type == "private":
            raise ApiError(400, "Bad Request: there are no administrators in the private chat")
        result = [
            self._chat_member_api(self._users[uid], status)
            for uid, status in chat.members.items()
            if status in ("creator", "administrator")
        ]
        result.sort(key=lambda m: m["status"] != "creator")
        if chat.bot_status == "administrator":
            result.append(self._chat_member_api(self.bot, "administrator"))
        return result

    def _m_get_chat_member_count(self, p: _Params) -> int:
        chat = self._chat_param(p)
        self._check_access(chat, write=False)
        if chat.type == "private":
            return 2
        active = ("creator", "administrator", "member", "restricted")
        return sum(1 for s in chat.members.values() if s in active) + int(chat.bot_is_member)

    def _m_pin_chat_message(self, p: _Params) -> bool:
        chat = self._writable_chat(p)
        msg = self._message_param(chat, p, "Bad Request: message to pin not found")
        if msg.message_id in chat.pinned:
            chat.pinned.remove(msg.message_id)
        chat.pinned.append(msg.message_id)
        return True

    def _m_unpin_chat_message(self, p: _Params) -> bool:
        chat = self._writable_chat(p)
        message_id = p.integer("message_id")
        if message_id is None:
            if chat.pinned:
                chat.pinned.pop()
        elif message_id in chat.pinned:
            chat.pinned.remove(message_id)
        return True

    def _m_unpin_all_chat_messages(self, p: _Params) -> bool:
        chat = self._writable_chat(p)
        chat.pinned.clear()
        return True

    def _m_leave_chat(self, p: _Params) -> bool:
        chat = self._chat_param(p)
        if chat.type == "private":
            raise ApiError(400, "Bad Request: chat member status can't be changed in private chats")
        self._check_access(chat, write=False)
        old = chat.bot_status
        chat.bot_status = "left"
        self._my_chat_member(chat, self.bot, old, "left")
        return True

    def _m_send_chat_action(self, p: _Params) -> bool:
        self._writable_chat(p)
        if (p.text("action") or "") not in CHAT_ACTIONS:
            raise ApiError(400, "Bad Request: wrong parameter action in request")
        return True


def _valid_button_url(url: str) -> bool:
    low = url.lower()
    if low.startswith("tg://"):
        return len(url) > 5
    if any(ch.isspace() for ch in url):
        return False
    if low.startswith(("http://", "https://")):
        host = url.split("://", 1)[1].split("/", 1)[0]
        return bool(host) and ("." in host or host.startswith("localhost"))
    return "." in url.split("/", 1)[0]
