"""Updates as they come from Telegram, slimmed before python-telegram-bot parses them.

A button press arrives with the whole message the button was under: its text, entities and
keyboard. The bot reads only which message it was (``message_id``, ``chat``, ``date``), and
parsing the rest into ``telegram`` objects is most of a press's parsing: ``Update.de_json``
of a press on a hand message (15 card buttons, an 8-line text) took 337 us, 114 us with the
message cut to the keys in :data:`PRESSED_MESSAGE_KEYS`; ``json.loads`` and the cut together
20 us (timed alone on the shared 2-core machine; a press is ~4.6 Bot API requests of the
bot's). Both ways in, long polling (:class:`~bot.telegram.running.OutageWatch`) and the
webhook, cut the same keys.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["PRESSED_MESSAGE_KEYS", "slim_update", "slim_updates"]

PRESSED_MESSAGE_KEYS: Final = frozenset(
    ("message_id", "date", "chat", "from", "message_thread_id", "is_topic_message")
)
"""What the bot reads of the message a pressed button is under: which message it is (a
``date`` of 0 marks one too old to be accessible), in which chat and topic."""


def slim_update(update: Any) -> Any:
    """``update`` (a JSON object of the Bot API) with a pressed message cut to
    :data:`PRESSED_MESSAGE_KEYS`, in place; anything else is left as it is."""
    if type(update) is dict:
        query = update.get("callback_query")
        if type(query) is dict:
            message = query.get("message")
            if type(message) is dict and not message.keys() <= PRESSED_MESSAGE_KEYS:
                query["message"] = {k: v for k, v in message.items() if k in PRESSED_MESSAGE_KEYS}
    return update


def slim_updates(answer: Any) -> Any:
    """A ``getUpdates`` answer with each update slimmed (:func:`slim_update`), in place."""
    if type(answer) is dict:
        result = answer.get("result")
        if type(result) is list:
            for update in result:
                slim_update(update)
    return answer
