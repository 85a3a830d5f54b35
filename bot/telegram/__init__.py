"""The Telegram side of the bot: the Bot API transport and the adapter around the core service
(handlers, presenter, scheduler, outbox)."""

import os

# python-telegram-bot 22.2 and later: a time period (``RetryAfter.retry_after``) is a
# ``datetime.timedelta`` once opted in, as it will be in its next major version; without the
# opt-in it warns (PTBDeprecationWarning) on every flood error it raises.
os.environ["PTB_TIMEDELTA"] = "true"
