"""What is at the bottom of each private chat, so that ``/start`` during a game brings a
player's hand message down only when it is not there already.

Message ids in a private chat grow with time but are not consecutive (a bot's and a
person's private chats share one counter per account), so they are only compared: the
bot's latest messages in the chat (the ones deleted since left out) and the person's
latest message are remembered while the bot runs. After a restart nothing is known, and
a hand is sent again as before. The outbox notes what it sends and deletes; the ``/start``
handler (:mod:`.commands`) what the person writes.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Collection
from typing import Any

__all__ = ["ChatEnds", "SENT_KEPT", "CHATS_KEPT"]

SENT_KEPT = 8
"""The bot's latest messages remembered per private chat (a player's hands, one a table)."""
CHATS_KEPT = 20_000
"""Private chats remembered, the least recently active forgotten first."""


class ChatEnds:
    """The latest messages of each chat, as far as the bot knows them."""

    def __init__(self) -> None:
        self._newest: dict[int, int] = {}
        """Chat id -> the highest message id the bot sent there (a group's too)."""
        self._sent: OrderedDict[int, tuple[int, ...]] = OrderedDict()
        """Chat id -> the ids of the bot's latest messages there, oldest first."""
        self._heard: OrderedDict[int, int] = OrderedDict()
        """Chat id -> the id of the person's latest message there but ``/start``."""

    def newest(self, chat_id: int) -> int:
        """The highest message id the bot sent to ``chat_id`` (0: none known)."""
        return self._newest.get(chat_id, 0)

    def sent(self, chat_id: int, message_id: int) -> None:
        """The bot sent ``message_id`` to a chat (the latest few kept for private chats)."""
        if message_id > self._newest.get(chat_id, 0):
            self._newest[chat_id] = message_id
        if chat_id > 0:
            ids = self._sent.pop(chat_id, ())
            self._sent[chat_id] = (*ids, message_id)[-SENT_KEPT:]
            _trim(self._sent)

    def deleted(self, chat_id: int, message_id: int) -> None:
        """The bot deleted one of its messages (a turn notification): it hides nothing."""
        ids = self._sent.get(chat_id)
        if ids is not None and message_id in ids:
            self._sent[chat_id] = tuple(i for i in ids if i != message_id)

    def heard(self, chat_id: int, message_id: int) -> None:
        """The person wrote ``message_id`` in his private chat with the bot."""
        self._heard.pop(chat_id, None)
        self._heard[chat_id] = message_id
        _trim(self._heard)

    def at_bottom(self, chat_id: int, ids: Collection[int]) -> set[int]:
        """Which of ``ids`` (the bot's messages in a private chat) are the last messages
        there, with nothing known below them but each other and the person's ``/start``."""
        found: set[int] = set()
        for message_id in reversed(self._sent.get(chat_id, ())):
            if message_id not in ids:
                break
            found.add(message_id)
        heard = self._heard.get(chat_id)
        return found if heard is None else {i for i in found if i > heard}


def _trim(chats: OrderedDict[int, Any]) -> None:
    while len(chats) > CHATS_KEPT:
        chats.popitem(last=False)
