"""The Telegram side of the bot: the Bot API transport and the adapter around the core service
(handlers, presenter, scheduler, outbox)."""
