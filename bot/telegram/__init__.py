"""The Telegram adapter: handlers, presenter, scheduler and outbox (python-telegram-bot)."""
