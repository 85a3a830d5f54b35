"""The fake Telegram's state: users, chats, messages and the update queue, with the lookups
and the Bot API shapes that both the Bot API methods and the simulated users need."""

from __future__ import annotations

import asyncio
import copy
import threading
import time
from collections import deque
from collections.abc import Callable

from .model import (
    ApiCall,
    CallbackQueryRecord,
    FailureRule,
    FakeChat,
    FakeUser,
    FloodError,
    FloodLimits,
    JSONDict,
    MessageView,
    StoredFile,
    StoredMessage,
    keyboard_rows,
)

Clock = Callable[[], float]
Ref = FakeChat | FakeUser | int
# What Telegram sends when allowed_updates was never set (or set to an empty list).
DEFAULT_UPDATES = frozenset(
    {"message", "edited_message", "callback_query", "my_chat_member", "channel_post"}
)


def _wake(future: asyncio.Future[None]) -> None:
    """End a wait (once: a timer and a notification may race)."""
    if not future.done():
        future.set_result(None)


class World:
    """Everything the fake knows, under one re-entrant lock: a test thread may drive it while
    a server thread serves the bot."""

    def __init__(
        self,
        token: str,
        clock: Clock,
        flood: FloodLimits | None,
    ) -> None:
        self.token = token
        bot_id = int(token.split(":", 1)[0])
        self.bot = FakeUser(bot_id, "Fake Bot", username="fake_test_bot", is_bot=True)
        self.clock = clock
        self.flood = flood if flood is not None else FloodLimits()
        self._epoch = time.time() - clock()
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._version = 0
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self._users: dict[int, FakeUser] = {bot_id: self.bot}
        self._chats: dict[int, FakeChat] = {}
        self._messages: dict[tuple[int, int], StoredMessage] = {}
        self._files: dict[str, StoredFile] = {}
        self._queries: dict[str, CallbackQueryRecord] = {}
        self._commands: dict[tuple[str, str], list[JSONDict]] = {}
        self._updates: deque[JSONDict] = deque()
        self._next_update_id = 100_000_001
        self._allowed_updates: frozenset[str] | None = None
        self._webhook: JSONDict | None = None
        self._next_user_id = 500_000_001
        self._next_group_id = 4_100_000_001
        self._next_supergroup_id = 1_002_100_000_001
        self._common_box = 0  # message ids of private chats and basic groups
        self._next_file = 0
        self._next_query = 0
        self._failures: list[FailureRule] = []
        self._calls: list[ApiCall] = []
        self._flood_errors: list[FloodError] = []
        self._banned: dict[int, float] = {}  # chat id -> end of its 429
        self._sends: dict[int, deque[float]] = {}  # chat id (0: all chats) -> recent sends
        self._tokens: dict[int, tuple[float, float]] = {}  # private chat -> (tokens, when)

    # ------------------------------------------------------------------ waking waiters

    def _notify(self) -> None:
        """Something changed: wake every waiter, in threads and in event loops."""
        with self._lock:
            self._version += 1
            self._cond.notify_all()
            try:
                here: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
            except RuntimeError:
                here = None
            for loop, future in list(self._waiters):
                if loop is here:
                    _wake(future)
                    continue
                try:
                    loop.call_soon_threadsafe(_wake, future)
                except RuntimeError:  # loop closed
                    self._waiters.remove((loop, future))

    async def _wait_change(self, seen_version: int, timeout: float) -> None:
        """Wait until :meth:`_notify` or ``timeout``, without blocking the loop."""
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

    # ------------------------------------------------------------------ lookups

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
            chat = self._chats[user.id] = FakeChat(user.id, "private", user=user)
        return chat

    def _lookup_chat(self, chat_id: int) -> FakeChat | None:
        chat = self._chats.get(chat_id)
        if chat is None and chat_id in self._users and not self._users[chat_id].is_bot:
            chat = self._private_chat(self._users[chat_id])
        return chat

    def _chat(self, ref: Ref) -> FakeChat:
        if isinstance(ref, FakeUser):
            return self._private_chat(self._user(ref))
        chat_id = ref.id if isinstance(ref, FakeChat) else int(ref)
        chat = self._lookup_chat(chat_id)
        if chat is None:
            raise KeyError(f"unknown chat {chat_id}")
        return chat

    def _creator(self, chat: FakeChat) -> FakeUser:
        owner = next((u for u, status in chat.members.items() if status == "creator"), None)
        return self._users[owner] if owner is not None else self.bot

    def _stored(self, chat_id: int, message_id: int) -> StoredMessage:
        msg = self._messages.get((chat_id, message_id))
        if msg is None:
            raise KeyError(f"no message {message_id} in chat {chat_id}")
        return msg

    # ------------------------------------------------------------------ messages

    def _store(self, chat: FakeChat, sender: FakeUser, **fields: object) -> StoredMessage:
        if chat.type == "supergroup":  # a supergroup numbers its messages itself
            chat.next_message_id += 1
            message_id = chat.next_message_id
        else:
            self._common_box += 1
            message_id = self._common_box
        msg = StoredMessage(chat, message_id, sender, self._now_date())
        for name, value in fields.items():
            setattr(msg, name, value)
        self._messages[(chat.id, message_id)] = msg
        chat.message_ids.append(message_id)
        return msg

    def _message_api(self, msg: StoredMessage, *, nested: bool = True) -> JSONDict:
        """The Bot API ``Message`` object."""
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
                data["entities"] = copy.deepcopy(msg.entities)
        if msg.media is not None:
            data[msg.media.kind] = msg.media.to_api()
            if msg.caption is not None:
                data["caption"] = msg.caption
                if msg.caption_entities:
                    data["caption_entities"] = copy.deepcopy(msg.caption_entities)
        data.update(copy.deepcopy(msg.service))
        if msg.reply_markup is not None:
            data["reply_markup"] = copy.deepcopy(msg.reply_markup)
        return data

    def _view(self, msg: StoredMessage) -> MessageView:
        return MessageView(
            chat_id=msg.chat.id,
            message_id=msg.message_id,
            from_bot=msg.sender.id == self.bot.id,
            text=msg.text,
            entities=copy.deepcopy(msg.entities),
            caption=msg.caption,
            caption_entities=copy.deepcopy(msg.caption_entities),
            reply_markup=keyboard_rows(msg.reply_markup),
            media=msg.media,
            sent_text=msg.sent_text,
            history=copy.deepcopy(msg.history),
            deleted=msg.deleted,
            service=copy.deepcopy(msg.service),
        )

    # ------------------------------------------------------------------ updates

    def _queue(self, kind: str, payload: JSONDict) -> None:
        if kind in (self._allowed_updates or DEFAULT_UPDATES):
            self._updates.append({"update_id": self._next_update_id, kind: payload})
            self._next_update_id += 1

    def _bot_receives(self, msg: StoredMessage) -> bool:
        """Privacy mode (Telegram's default): in a group the bot sees commands (``/cmd`` or
        ``/cmd@this_bot``), replies to itself and service messages."""
        chat = msg.chat
        if chat.type == "private":
            return True
        if not chat.bot_is_member:
            return False
        if msg.service:
            return True
        if msg.reply_to is not None and msg.reply_to.sender.id == self.bot.id:
            return True
        command = next((e for e in msg.entities if e["type"] == "bot_command"), None)
        if command is None or command["offset"] != 0:
            return False
        name = (msg.text or "")[: command["length"]]
        return "@" not in name or name.split("@", 1)[1].lower() == (self.bot.username or "")

    def _deliver(self, msg: StoredMessage) -> None:
        if self._bot_receives(msg):
            self._queue("message", self._message_api(msg))

    def _chat_member_api(self, user: FakeUser, status: str) -> JSONDict:
        data: JSONDict = {"user": user.to_api(), "status": status}
        if status == "creator":
            data["is_anonymous"] = False
        elif status == "kicked":
            data["until_date"] = 0
        return data

    def _my_chat_member(self, chat: FakeChat, actor: FakeUser, old: str, new: str) -> None:
        """Queue a ``my_chat_member`` update (it comes even when the bot just lost access)."""
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
