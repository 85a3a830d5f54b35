"""The Bot API methods the bot and python-telegram-bot call, with Telegram's checks, error
texts and flood limits; every other method answers 404 so that a test fails loudly."""

from __future__ import annotations

import hashlib
import json
import math
from collections import deque
from collections.abc import Callable
from typing import Any

from ._media import UploadedFile, image_size
from .html import EntityParseError, finish, parse_html, utf16_len
from .model import (
    NOT_MODIFIED,
    QUERY_TOO_OLD,
    ApiError,
    FakeChat,
    FloodError,
    JSONDict,
    StoredFile,
    StoredMessage,
)
from .world import World

_JSON = frozenset({"reply_markup", "media", "commands", "scope", "allowed_updates"})
_NUMBERS = frozenset({"chat_id", "message_id", "user_id", "offset", "limit", "timeout"})
_FLAGS = frozenset({"disable_notification", "show_alert", "drop_pending_updates"})
_FLOODED = frozenset(
    {"sendMessage", "sendPhoto", "sendDocument", "editMessageText", "editMessageReplyMarkup",
     "editMessageMedia"}
)  # fmt: skip
_CONFLICT_WEBHOOK = (
    "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete "
    "the webhook first"
)
CONFLICT_POLL = (
    "Conflict: terminated by other getUpdates request; make sure that only one bot instance is "
    "running"
)


def decode(raw: dict[str, Any]) -> JSONDict:
    """Parameters as JSON values: a transport's form strings decoded where the Bot API
    expects objects, numbers or flags, so that recorded calls look alike on both."""
    out: JSONDict = {}
    for key, value in raw.items():
        if isinstance(value, str):
            if key in _JSON:
                value = json.loads(value)
            elif key in _NUMBERS and value.lstrip("-").isdigit():
                value = int(value)
            elif key in _FLAGS:
                value = value.lower() in ("true", "1")
        out[key] = value
    return out


class BotApi(World):
    """The Bot API side of the fake: ``method(params)`` for each name in :attr:`methods`."""

    def _methods(self) -> dict[str, Callable[[JSONDict], Any]]:
        return {
            "getMe": self._get_me,
            "deleteWebhook": self._delete_webhook,
            "setWebhook": self._set_webhook,
            "setMyCommands": self._set_my_commands,
            "sendMessage": self._send_message,
            "sendPhoto": self._send_photo,
            "sendDocument": self._send_document,
            "editMessageText": self._edit_message_text,
            "editMessageReplyMarkup": self._edit_message_reply_markup,
            "editMessageMedia": self._edit_message_media,
            "deleteMessage": self._delete_message,
            "answerCallbackQuery": self._answer_callback_query,
            "getChatMember": self._get_chat_member,
        }

    # ------------------------------------------------------------------ checks

    def _target(self, p: JSONDict, *, write: bool = True) -> FakeChat:
        """The chat of ``chat_id`` if the bot may write there (or read, with ``write``
        false), else Telegram's error."""
        chat = self._lookup_chat(int(p.get("chat_id") or 0))
        if chat is None:
            raise ApiError(400, "Bad Request: chat not found")
        if chat.migrated_to is not None:
            raise ApiError(
                400,
                "Bad Request: group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": chat.migrated_to},
            )
        if chat.user is not None:
            if not write:
                return chat
            if chat.user.deactivated:
                raise ApiError(403, "Forbidden: user is deactivated")
            if chat.user.blocked:
                raise ApiError(403, "Forbidden: bot was blocked by the user")
            if not chat.user.started:
                raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")
        elif chat.bot_status == "kicked":
            raise ApiError(403, f"Forbidden: bot was kicked from the {chat.type} chat")
        elif chat.bot_status == "left":
            raise ApiError(403, f"Forbidden: bot is not a member of the {chat.type} chat")
        return chat

    def _text(self, p: JSONDict, name: str, limit: int) -> tuple[str, list[JSONDict]]:
        """The text or caption as Telegram keeps it, checked against its length limit in
        UTF-16 units after parsing."""
        raw = str(p.get(name) or "")
        mode = p.get("parse_mode")
        if mode not in (None, "", "HTML"):
            raise ApiError(400, f"Bad Request: the fake parses only HTML, not {mode}")
        try:
            text, entities = finish(*(parse_html(raw) if mode else (raw, [])))
        except EntityParseError as exc:
            raise ApiError(400, f"Bad Request: can't parse entities: {exc}") from None
        if not text and name == "text":
            raise ApiError(400, "Bad Request: message text is empty")
        if utf16_len(text) > limit:
            what = "message is too long" if name == "text" else "message caption is too long"
            raise ApiError(400, f"Bad Request: {what}")
        return text, entities

    def _markup(self, p: JSONDict) -> JSONDict | None:
        """An inline keyboard, checked as Telegram does (a button needs an action,
        callback_data takes 1-64 bytes, a web_app button goes to a private chat)."""
        markup = p.get("reply_markup")
        if not markup:
            return None
        rows = [[dict(b) for b in row] for row in markup.get("inline_keyboard", [])]
        for button in (b for row in rows for b in row):
            data = button.get("callback_data")
            if "web_app" in button:  # a Mini App opens from a private chat only
                url = str((button["web_app"] or {}).get("url", ""))
                if int(p.get("chat_id") or 0) <= 0 or not url.startswith("https://"):
                    raise ApiError(400, "Bad Request: BUTTON_TYPE_INVALID")
                continue
            if data is None and "url" not in button:
                raise ApiError(
                    400,
                    "Bad Request: can't parse inline keyboard button: Text buttons are "
                    "unallowed in the inline keyboard",
                )
            if data is not None and not 1 <= len(data.encode()) <= 64:
                raise ApiError(400, "Bad Request: BUTTON_DATA_INVALID")
        rows = [row for row in rows if row]
        return {"inline_keyboard": rows} if rows else None

    def _flood_check(self, method: str, chat: FakeChat) -> None:
        """429 with retry_after when a send or edit would pass a limit: a chat that got one
        stays blocked for its retry_after; the global window only answers."""
        limits = self.flood
        if not limits.enabled or method not in _FLOODED:
            return
        now = self.clock()
        scope = "private" if chat.user is not None else "group"
        banned_until = self._banned.get(chat.id, 0.0)
        if now < banned_until:
            self._flood(method, chat.id, scope, banned_until - now, ban=False)
        window = self._sends.setdefault(0, deque())
        while window and window[0] <= now - 1.0:
            window.popleft()
        if len(window) >= limits.global_per_second:
            self._flood(method, chat.id, "global", window[0] + 1.0 - now, ban=False)
        sends = self._sends.setdefault(chat.id, deque())
        if chat.user is not None:  # a token bucket: a burst, then the sustained rate
            tokens = self._private_tokens(chat.id, now)
            if tokens < 1.0:
                self._flood(method, chat.id, scope, (1.0 - tokens) / limits.private_per_second)
            self._tokens[chat.id] = (tokens - 1.0, now)
        else:
            while sends and sends[0] <= now - limits.group_window:
                sends.popleft()
            if len(sends) >= limits.group_per_minute:
                self._flood(method, chat.id, scope, sends[0] + limits.group_window - now)
            sends.append(now)
        window.append(now)

    def _private_tokens(self, chat_id: int, now: float) -> float:
        limits = self.flood
        tokens, last = self._tokens.get(chat_id, (float(limits.private_burst), now))
        return min(float(limits.private_burst), tokens + (now - last) * limits.private_per_second)

    def _flood(
        self, method: str, chat_id: int, scope: str, wait: float, *, ban: bool = True
    ) -> None:
        retry_after = max(1, math.ceil(wait - 1e-9))
        now = self.clock()
        if ban:
            self._banned[chat_id] = now + retry_after
        self._flood_errors.append(FloodError(method, chat_id, scope, retry_after, now))
        raise ApiError(
            429, f"Too Many Requests: retry after {retry_after}", {"retry_after": retry_after}
        )

    def _editable(self, p: JSONDict) -> StoredMessage:
        chat = self._target(p)
        msg = self._messages.get((chat.id, int(p.get("message_id") or 0)))
        if msg is None or msg.deleted:
            raise ApiError(400, "Bad Request: message to edit not found")
        if msg.sender is not self.bot or msg.service:
            raise ApiError(400, "Bad Request: message can't be edited")
        return msg

    def _edit(self, method: str, msg: StoredMessage, sent: Any = None, **changes: Any) -> JSONDict:
        """Change what a message shows (``sent``: its text or caption as the bot sent it)."""
        if all(getattr(msg, name) == value for name, value in changes.items()):
            raise ApiError(400, NOT_MODIFIED)
        self._flood_check(method, msg.chat)
        msg.history.append(msg.snapshot())
        for name, value in changes.items():
            setattr(msg, name, value)
        if sent is not None:
            msg.sent_text = sent
        msg.edit_date = self._now_date()
        return self._message_api(msg)

    def _file(self, kind: str, value: Any) -> StoredFile:
        """An uploaded file (a photo must be an image Telegram can read) or a known file_id."""
        if isinstance(value, str) and value in self._files:
            return self._files[value]
        if not isinstance(value, UploadedFile) or not value.content:
            raise ApiError(400, "Bad Request: wrong file identifier/HTTP URL specified")
        width = height = None
        if kind == "photo":
            size = image_size(value.content)
            if size is None:
                raise ApiError(400, "Bad Request: IMAGE_PROCESS_FAILED")
            width, height = size
        self._next_file += 1
        digest = hashlib.sha256(f"{self.bot.id}:{self._next_file}".encode()).hexdigest()
        mime = "image/jpeg" if kind == "photo" else value.content_type
        stored = StoredFile(
            f"{kind[:2].upper()}ACAgIAAxkDAAI{self._next_file:04d}{digest[:40]}",
            f"AQAD{self._next_file:04d}{digest[:8]}",
            kind, value.content, value.filename, mime or "application/octet-stream",
            width, height,
        )  # fmt: skip
        self._files[stored.file_id] = stored
        return stored

    # ------------------------------------------------------------------ methods

    def _get_me(self, p: JSONDict) -> JSONDict:
        return {
            **self.bot.to_api(),
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
        }

    def _delete_webhook(self, p: JSONDict) -> bool:
        if p.get("drop_pending_updates"):
            self._updates.clear()
        self._webhook = None
        return True

    def _set_webhook(self, p: JSONDict) -> bool:
        url = str(p.get("url") or "")
        if not url.startswith("https://"):
            raise ApiError(
                400, "Bad Request: bad webhook: An HTTPS URL must be provided for webhook"
            )
        if p.get("drop_pending_updates"):
            self._updates.clear()
        self._webhook = {"url": url, "secret_token": p.get("secret_token")}
        return True

    def _updates_batch(self, p: JSONDict) -> list[JSONDict]:
        """getUpdates without waiting: confirms updates below ``offset``, returns the rest."""
        if self._webhook is not None:
            raise ApiError(409, _CONFLICT_WEBHOOK)
        allowed = p.get("allowed_updates")
        if isinstance(allowed, list):
            self._allowed_updates = frozenset(allowed) or None
        offset = int(p.get("offset") or 0)
        while self._updates and self._updates[0]["update_id"] < offset:
            self._updates.popleft()
        return list(self._updates)[: int(p.get("limit") or 100)]

    def _set_my_commands(self, p: JSONDict) -> bool:
        commands = [{"command": c["command"], "description": c["description"]}
                    for c in p.get("commands") or []]  # fmt: skip
        for command in commands:
            name = command["command"]
            if not (0 < len(name) <= 32 and name.isascii() and name == name.lower()):
                raise ApiError(400, "Bad Request: BOT_COMMAND_INVALID")
        scope = json.dumps(p.get("scope") or {"type": "default"}, sort_keys=True)
        self._commands[(scope, str(p.get("language_code") or ""))] = commands
        return True

    def _send(self, p: JSONDict, method: str, **fields: Any) -> JSONDict:
        chat = self._target(p)
        markup = self._markup(p)
        self._flood_check(method, chat)
        msg = self._store(
            chat, self.bot, reply_markup=markup, parse_mode=p.get("parse_mode"), **fields
        )
        return self._message_api(msg)

    def _send_message(self, p: JSONDict) -> JSONDict:
        text, entities = self._text(p, "text", 4096)
        return self._send(p, "sendMessage", text=text, entities=entities, sent_text=p.get("text"))

    def _send_photo(self, p: JSONDict) -> JSONDict:
        return self._send_file(p, "sendPhoto", "photo")

    def _send_document(self, p: JSONDict) -> JSONDict:
        return self._send_file(p, "sendDocument", "document")

    def _send_file(self, p: JSONDict, method: str, kind: str) -> JSONDict:
        caption, entities = self._text(p, "caption", 1024)
        media = self._file(kind, p.get(kind))
        return self._send(
            p, method, media=media, caption=caption or None, caption_entities=entities,
            sent_text=p.get("caption"),
        )  # fmt: skip

    def _edit_message_text(self, p: JSONDict) -> JSONDict:
        msg = self._editable(p)
        if msg.text is None:
            raise ApiError(400, "Bad Request: there is no text in the message to edit")
        text, entities = self._text(p, "text", 4096)
        return self._edit(
            "editMessageText", msg, text=text, entities=entities,
            reply_markup=self._markup(p), sent=p.get("text"),
        )  # fmt: skip

    def _edit_message_reply_markup(self, p: JSONDict) -> JSONDict:
        return self._edit("editMessageReplyMarkup", self._editable(p), reply_markup=self._markup(p))

    def _edit_message_media(self, p: JSONDict) -> JSONDict:
        msg = self._editable(p)
        media: JSONDict = p.get("media") or {}
        if msg.media is None:
            raise ApiError(400, "Bad Request: there is no media in the message to edit")
        caption, entities = self._text(media, "caption", 1024)
        attached = str(media.get("media") or "").removeprefix("attach://")
        stored = self._file(str(media.get("type")), p.get(attached, attached))
        return self._edit(
            "editMessageMedia", msg, media=stored, caption=caption or None,
            caption_entities=entities, reply_markup=self._markup(p), sent=media.get("caption"),
        )  # fmt: skip

    def _delete_message(self, p: JSONDict) -> bool:
        chat = self._target(p, write=False)
        msg = self._messages.get((chat.id, int(p.get("message_id") or 0)))
        if msg is None or msg.deleted:
            raise ApiError(400, "Bad Request: message to delete not found")
        if not self._deletable(chat, msg):
            raise ApiError(400, "Bad Request: message can't be deleted")
        msg.deleted = True
        return True

    def _deletable(self, chat: FakeChat, msg: StoredMessage) -> bool:
        return chat.user is not None or (msg.sender is self.bot and not msg.service)

    def _answer_callback_query(self, p: JSONDict) -> bool:
        query = self._queries.get(str(p.get("callback_query_id")))
        # Telegram does not say how long a press waits for its answer: 15 s is an estimate.
        if query is None or query.answered or self.clock() - query.time > 15.0:
            raise ApiError(400, QUERY_TOO_OLD)
        if len(str(p.get("text") or "")) > 200:
            raise ApiError(400, "Bad Request: MESSAGE_TOO_LONG")
        query.answered = True
        query.answer = {k: v for k, v in p.items() if k != "callback_query_id"}
        return True

    def _get_chat_member(self, p: JSONDict) -> JSONDict:
        chat = self._target(p, write=False)
        user = self._users.get(int(p.get("user_id") or 0))
        if user is None:
            raise ApiError(400, "Bad Request: user not found")
        if user is self.bot:
            status = chat.bot_status if chat.user is None else "member"
        elif chat.user is not None:
            status = "kicked" if user.blocked else "member"
        else:
            status = chat.members.get(user.id, "left")
        return self._chat_member_api(user, status)
