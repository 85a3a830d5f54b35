"""``python -m bot``: run the Telegram bot (long polling, or a webhook with WEBHOOK_URL)."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys

from bot.config import Config, ConfigError


def main() -> int:
    try:
        config = Config.from_env()
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from storage import StorageError, check_schema, check_target, lock_target

    try:  # a bad path, a second process, or a database newer than this code: refused first
        check_target(config.database)
        lock = lock_target(config.database)
    except StorageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        check_schema(config.database)
    except StorageError as exc:
        lock.release()  # (main() also runs in-process in tests)
        print(f"error: {exc}", file=sys.stderr)
        return 2
    # the lock lost to another process (PostgreSQL: storage/pg_lock.py): stop as on SIGTERM
    lock.on_lost = lambda reason: os.kill(os.getpid(), signal.SIGTERM)
    logging.basicConfig(
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        level=getattr(logging, config.log_level, logging.INFO),
    )
    # httpx logs every request URL, and the URL holds the token.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("httpcore").setLevel(logging.WARNING)

    from telegram.error import TelegramError

    from bot.app import build_application, run, wait_for_telegram

    try:
        asyncio.run(wait_for_telegram(config))
        application = build_application(config)
        run(application, config)
    except (ConfigError, StorageError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0
    except TelegramError as exc:
        # e.g. an invalid token or a webhook URL Telegram refuses: one line, no traceback.
        print(f"error: Telegram refused to start the bot: {exc.message}", file=sys.stderr)
        return 1
    finally:
        lock.release()
    if lock.lost is not None:  # logged as an ERROR too; a supervisor sees a failure
        print(f"error: {lock.lost}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
