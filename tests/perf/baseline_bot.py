"""The smallest python-telegram-bot bot, the yardstick of ``tests/perf/bot_load.py``.

    BOT_TOKEN=... TELEGRAM_API_URL=http://127.0.0.1:PORT python tests/perf/baseline_bot.py

One ``CallbackQueryHandler``: every button press is answered, then the pressed message is
edited (a new text, the same one-button keyboard, so it can be pressed again). Updates are
handled concurrently, as the real bot does, so the baseline is not slowed down by waiting
for one press at a time. No storage, no rate limiter, nothing else.

``BASELINE_REQUEST=aiohttp``: on the bot's own Bot API transport
(``bot.telegram.transport.AiohttpRequest``, the same settings as the bot's), so that the
rest of the work is compared like with like; ``httpx`` (or unset): PTB's default client.
"""

from __future__ import annotations

import logging
import os

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import ApplicationBuilder, CallbackQueryHandler, ContextTypes

KEYBOARD = InlineKeyboardMarkup([[InlineKeyboardButton("▶", callback_data="p")]])


async def on_press(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    assert query is not None
    await query.answer()
    await query.edit_message_text(f"pressed {query.id}", reply_markup=KEYBOARD)


def main() -> None:
    if os.environ.get("BENCH_LOOP_FILE"):  # bot_load.py's BENCH_LOOP_STATS, as in the bot
        from tests.perf.bot_load import watch_loop

        watch_loop(os.environ["BENCH_LOOP_FILE"])
    if os.environ.get("BENCH_LOOP") == "uvloop":
        import uvloop  # type: ignore[import-not-found]  # not a dependency: pip install uvloop

        uvloop.install()
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s", level="WARNING")
    api = os.environ["TELEGRAM_API_URL"].rstrip("/")
    builder = (
        ApplicationBuilder()
        .token(os.environ["BOT_TOKEN"])
        .base_url(api + "/bot")
        .base_file_url(api + "/file/bot")
        .concurrent_updates(True)
    )
    if os.environ.get("BASELINE_REQUEST") == "aiohttp":
        from bot.app import default_request

        builder = builder.request(default_request())
        builder = builder.get_updates_request(default_request(1))
    app = builder.build()
    app.add_handler(CallbackQueryHandler(on_press))
    app.run_polling(allowed_updates=[Update.CALLBACK_QUERY])


if __name__ == "__main__":
    main()
