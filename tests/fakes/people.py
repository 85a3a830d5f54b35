"""The users' side of the fake Telegram: tests create users and groups, write, press buttons,
block the bot or upgrade a group, and the bot gets the updates Telegram would send."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from .html import finish
from .methods import BotApi
from .model import CallbackQueryRecord, FakeChat, FakeUser, JSONDict, MessageView, keyboard_rows
from .world import Ref

_MEMBER = ("creator", "member")


class People(BotApi):
    """Simulated users and groups."""

    def add_user(
        self,
        first_name: str = "Test",
        last_name: str | None = None,
        username: str | None = None,
        *,
        language_code: str | None = "en",
        user_id: int | None = None,
        started: bool = False,
    ) -> FakeUser:
        """A user; ``started`` marks Start as pressed already (no update queued)."""
        with self._lock:
            if user_id is None:
                user_id = self._next_user_id
                self._next_user_id += 1
            if user_id in self._users:
                raise ValueError(f"user id {user_id} already exists")
            user = FakeUser(user_id, first_name, last_name, username, language_code)
            user.started = started
            self._users[user_id] = user
            self._notify()
            return user

    def add_group(
        self,
        title: str,
        members: Iterable[FakeUser | int],
        *,
        announce: bool = True,
    ) -> FakeChat:
        """A basic group with the bot, whose first member is its creator; with ``announce``
        the bot gets ``my_chat_member`` and ``new_chat_members``."""
        with self._lock:
            people = [self._user(m) for m in members]
            chat = FakeChat(-self._next_group_id, "group", title=title, bot_status="left")
            self._next_group_id += 1
            chat.members = {user.id: "member" for user in people}
            chat.members[people[0].id] = "creator"
            self._chats[chat.id] = chat
            self._bot_joins(chat, people[0], announce=announce)
            self._notify()
            return chat

    def user_joins(self, group: FakeChat | int, user: FakeUser | int) -> MessageView:
        """``user`` joins the group (a ``new_chat_members`` service message)."""
        with self._lock:
            chat, member = self._chat(group), self._user(user)
            chat.members[member.id] = "member"
            msg = self._store(chat, member, service={"new_chat_members": [member.to_api()]})
            self._deliver(msg)
            self._notify()
            return self._view(msg)

    def user_starts_bot(self, user: FakeUser | int, payload: str | None = None) -> MessageView:
        """The user presses Start (or opens a ``t.me/bot?start=payload`` link): ``/start``."""
        with self._lock:
            person = self._user(user)
            chat = self._private_chat(person)
            if person.blocked:
                person.blocked = False
                self._my_chat_member(chat, person, "kicked", "member")
            person.started = True
            view = self._user_message(person, chat, "/start" + (f" {payload}" if payload else ""))
            self._notify()
            return view

    def send_text(
        self, user: FakeUser | int, chat: Ref, text: str, *, reply_to: MessageView | None = None
    ) -> MessageView:
        """``user`` writes ``text`` in a group, or to the bot (``chat`` is then the user).
        Raises ValueError if the user could not send it."""
        with self._lock:
            person, target = self._user(user), self._chat(chat)
            if target.user is not None:
                if target.id != person.id:
                    raise ValueError("a user can only write in his own private chat with the bot")
                if person.blocked or not person.started:
                    raise ValueError(f"{person.full_name} has not started the bot or blocked it")
            elif target.migrated_to is not None:
                raise ValueError(f"group {target.id} was upgraded to {target.migrated_to}")
            elif target.members.get(person.id) not in _MEMBER:
                raise ValueError(f"{person.full_name} is not a member of {target.title}")
            replied = self._stored(target.id, reply_to.message_id) if reply_to else None
            view = self._user_message(person, target, text, replied)
            self._notify()
            return view

    def press(
        self,
        user: FakeUser | int,
        message: MessageView | tuple[int, int],
        callback_data: str | None = None,
        *,
        button_text: str | None = None,
        force: bool = False,
    ) -> str:
        """``user`` presses an inline button (by ``callback_data`` or ``button_text``): queues
        a ``callback_query`` and returns its id. The button must be on the message now, unless
        ``force`` (a stale client)."""
        with self._lock:
            person = self._user(user)
            if isinstance(message, MessageView):
                message = (message.chat_id, message.message_id)
            msg = self._stored(*message)
            chat = msg.chat
            if msg.deleted:
                raise ValueError(f"message {msg.message_id} was deleted")
            if chat.user is not None and chat.id != person.id:
                raise ValueError("a user can only press buttons in his own private chat")
            if chat.user is None and chat.members.get(person.id) not in _MEMBER:
                raise ValueError(f"{person.full_name} is not a member of {chat.title}")
            buttons = [b for row in keyboard_rows(msg.reply_markup) or [] for b in row]
            data = callback_data
            if button_text is not None:
                data = next((d for text, d in buttons if text == button_text), data)
            if not force and not any(d == data for _, d in buttons):
                raise ValueError(f"message {msg.message_id} has no button {data!r}: {buttons}")
            self._next_query += 1
            query_id = str(self.bot.id * 10_000_000 + 4_000_000 + self._next_query)
            self._queries[query_id] = CallbackQueryRecord(
                query_id, person.id, chat.id, msg.message_id, data, self.clock()
            )
            digest = hashlib.sha256(f"{self.bot.id}:{chat.id}".encode()).digest()
            payload: JSONDict = {
                "id": query_id,
                "from": person.to_api(),
                "message": self._message_api(msg),
                "chat_instance": str(int.from_bytes(digest[:8], "big", signed=True)),
            }
            if data is not None:
                payload["data"] = data
            self._queue("callback_query", payload)
            self._notify()
            return query_id

    def upgrade_to_supergroup(self, group: FakeChat | int) -> FakeChat:
        """A basic group becomes a supergroup: the migrate messages come, and the old id then
        answers "group chat was upgraded" with its ``migrate_to_chat_id``."""
        with self._lock:
            old = self._chat(group)
            actor = self._creator(old)
            new = FakeChat(
                -self._next_supergroup_id, "supergroup", title=old.title,
                members=dict(old.members), bot_status=old.bot_status, migrated_from=old.id,
            )  # fmt: skip
            self._next_supergroup_id += 1
            self._chats[new.id] = new
            old.migrated_to = new.id
            self._deliver(self._store(old, actor, service={"migrate_to_chat_id": new.id}))
            self._deliver(self._store(new, actor, service={"migrate_from_chat_id": old.id}))
            self._notify()
            return new

    def remove_bot(self, group: FakeChat | int) -> None:
        """The group's creator removes the bot (``my_chat_member``; sends then get 403)."""
        with self._lock:
            chat = self._chat(group)
            old, chat.bot_status = chat.bot_status, "kicked"
            new = "kicked" if chat.type == "supergroup" else "left"
            self._my_chat_member(chat, self._creator(chat), old, new)
            self._notify()

    def add_bot(self, group: FakeChat | int) -> None:
        """The group's creator adds the bot again (``my_chat_member``, ``new_chat_members``)."""
        with self._lock:
            chat = self._chat(group)
            self._bot_joins(chat, self._creator(chat), announce=True)
            self._notify()

    def block_bot(self, user: FakeUser | int) -> None:
        """The user blocks the bot (``my_chat_member`` member to kicked; sends then get 403)."""
        self._set_blocked(user, True)

    def unblock_bot(self, user: FakeUser | int) -> None:
        """The user unblocks the bot (``my_chat_member`` kicked to member)."""
        self._set_blocked(user, False)

    def user_deletes(self, user: FakeUser | int, message_id: int) -> None:
        """The user deletes a message in his private chat with the bot (for both sides;
        Telegram tells the bot nothing)."""
        with self._lock:
            person = self._user(user)
            self._stored(self._private_chat(person).id, message_id).deleted = True

    def _set_blocked(self, user: FakeUser | int, blocked: bool) -> None:
        with self._lock:
            person = self._user(user)
            if person.blocked != blocked:
                person.blocked = blocked
                old, new = ("member", "kicked") if blocked else ("kicked", "member")
                self._my_chat_member(self._private_chat(person), person, old, new)
                self._notify()

    def _user_message(
        self, user: FakeUser, chat: FakeChat, text: str, reply_to: object = None
    ) -> MessageView:
        plain, entities = finish(text, [])
        msg = self._store(chat, user, text=plain, entities=entities, reply_to=reply_to)
        self._deliver(msg)
        return self._view(msg)

    def _bot_joins(self, chat: FakeChat, actor: FakeUser, *, announce: bool) -> None:
        old, chat.bot_status = chat.bot_status, "member"
        if announce:
            if old == "kicked" and chat.type == "group":
                old = "left"  # a basic group keeps no ban list
            self._my_chat_member(chat, actor, old, chat.bot_status)
            msg = self._store(chat, actor, service={"new_chat_members": [self.bot.to_api()]})
            self._deliver(msg)
