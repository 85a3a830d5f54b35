"""Building and running the python-telegram-bot Application."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import time
from collections.abc import Callable
from typing import Any

from telegram import Bot, BotCommand
from telegram.error import BadRequest, Forbidden, NetworkError, TelegramError, TimedOut
from telegram.ext import (
    Application,
    ApplicationBuilder,
    ChatMemberHandler,
    MessageHandler,
    filters,
)
from telegram.request import BaseRequest

from bot.config import Config
from bot.core.codec import settings_from_json
from bot.core.model import TableSettings
from bot.core.service import LOBBY_TTL, TableService
from bot.render.i18n import t
from bot.telegram import buttons, commands, history, membership, personal, resuming
from bot.telegram.edits import ignore_typed_method_advice
from bot.telegram.outbox import Outbox
from bot.telegram.resuming import Resumer
from bot.telegram.running import OUTBOX_FLUSH, OutageWatch, serve
from bot.telegram.runtime import CONTEXT_TYPES, BotData, Runtime
from bot.telegram.scheduler import FORCED_PAUSE, configure_jobs
from bot.telegram.transport import AiohttpRequest
from bot.telegram.webhook import Webhook
from storage import Storage, describe

__all__ = [
    "build_application",
    "run",
    "COMMANDS",
    "set_commands",
    "default_request",
]

log = logging.getLogger(__name__)

COMMANDS = (*commands.COMMANDS, *history.COMMANDS, *personal.COMMANDS)


HTTP_CONNECTIONS = 32
"""Bot API requests in flight at most (kept-alive connections); more wait in turn."""


def default_request(connections: int = HTTP_CONNECTIONS) -> BaseRequest:
    """The Bot API client (aiohttp; a proxy from the environment, read once). No pool
    timeout: a burst waits its turn (answers to presses first) rather than fail."""
    return AiohttpRequest(connections, pool_timeout=None)


async def set_commands(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Register the command menu in Russian and English; failures are only logged."""
    for lang, code in (("en", None), ("ru", "ru"), ("en", "en")):
        commands = [BotCommand(c, t(lang, f"cmd.{c}")) for c in COMMANDS]
        try:
            await application.bot.set_my_commands(commands, language_code=code)
        except TelegramError as exc:
            log.warning("set_my_commands(%s) failed: %s", code or "default", exc)


def build_application(
    config: Config,
    *,
    seed: int | None = None,
    clock: Callable[[], float] = time.time,
    defaults: TableSettings | None = None,
    lobby_ttl: float = LOBBY_TTL,
    private_interval: float = 1.0,
    outbox_options: dict[str, Any] | None = None,
    request: BaseRequest | None = None,
    get_updates_request: BaseRequest | None = None,
    forced_pause: float | None = FORCED_PAUSE,
    analysis: bool = True,
    resume_hold: asyncio.Event | None = None,
) -> Application[Any, Any, Any, Any, Any, Any]:
    """The bot's Application; the service is created in ``post_init`` (after the loop starts).

    Keyword arguments exist for tests: a seed for the deals, a clock, default table
    settings, pacing, a request backend (a fake Bot API), the pause before a forced card
    plays itself (``None``: never), whether ended deals are analysed and an event the
    background resuming of the tables waits for (:mod:`bot.telegram.resuming`). Without them the
    seed and the default settings come from the config (``PREFERANS_SEED``,
    ``PREFERANS_DEFAULTS``); ``PREFERANS_PACING=off`` turns the pacing off and
    ``PREFERANS_ANALYSIS=off`` the analysis.
    """
    # python-telegram-bot 22.2 and later: a time period (``RetryAfter.retry_after``) is a
    # ``datetime.timedelta`` once opted in, as it will be in its next major version; without
    # the opt-in it warns (PTBDeprecationWarning) on every flood error it raises. PTB reads the
    # variable when it builds the error, so setting it here (not at import) is enough.
    os.environ["PTB_TIMEDELTA"] = "true"
    if seed is None:
        seed = config.seed
    if defaults is None and config.table_defaults:
        defaults = settings_from_json(config.table_defaults)
    # Telegram's limit for all chats together (0 switches it off); the outbox keeps every
    # limit (bot/telegram/pacing.py)
    overall_rate = config.overall_rate
    analysis = analysis and config.analysis
    if not config.pacing:
        private_interval = overall_rate = 0.0
        outbox_options = {"group_limit": 1_000_000, "group_fast_interval": 0.0}

    async def post_init(app: Application[Any, Any, Any, Any, BotData, Any]) -> None:
        ignore_typed_method_advice()  # before the first message goes out
        storage = await Storage.open(config.database)
        service = TableService(
            storage,
            seed=seed,
            clock=clock,
            defaults=defaults,
            lobby_ttl=lobby_ttl,
            stand_in=lambda lang, number: t(lang, "name.stand_in", n=number),
        )
        outbox = Outbox(
            app.bot,
            private_interval=private_interval,
            overall_rate=overall_rate,
            **(outbox_options or {}),
        )
        rt = app.bot_data.rt = Runtime.build(app, service, outbox)
        rt.scheduler.forced_pause = forced_pause
        rt.presenter.autoplay = forced_pause is not None
        rt.presenter.analysis = analysis
        app.bot_data.storage = storage
        schema = await storage.schema_version()
        log.info("database %s (schema %d)", describe(config.database), schema)
        await set_commands(app)
        # the tables are listed, and resumed in the background: updates are answered now
        resumer = app.bot_data.resumer = Resumer(service, rt.presenter, outbox)
        resumer.hold = resume_hold
        await resumer.start()
        if config.webapp_url:  # the table as a Mini App, served beside the bot
            # imported only then: its web server costs a bot without it ~3 MB
            from bot.telegram.miniapp import MiniApp

            # with a webhook, on the webhook's port: its server hands the Mini App's
            # requests to this one, on the loopback (bot/telegram/webhook.py)
            miniapp = MiniApp(rt, config, public=not config.webhook_url).server
            app.bot_data.miniapp = miniapp
            await miniapp.start()
            log.info("mini app on %s:%d (%s)", miniapp.listen, miniapp.port, config.webapp_url)

    async def post_stop(app: Application[Any, Any, Any, Any, BotData, Any]) -> None:
        rt = app.bot_data.rt
        resumer = app.bot_data.resumer
        miniapp, app.bot_data.miniapp = app.bot_data.miniapp, None
        if miniapp is not None:  # no press from the page once the stop began
            await miniapp.stop()
        if resumer is not None:
            await resumer.stop()
        if rt is not None:
            rt.presenter.close()
            await rt.outbox.close(OUTBOX_FLUSH)
        if resumer is not None:  # what the messages show now: a restart edits no other
            await resumer.save_shown()

    async def post_shutdown(app: Application[Any, Any, Any, Any, BotData, Any]) -> None:
        storage, app.bot_data.storage = app.bot_data.storage, None
        if storage is not None:
            await storage.close()

    builder: ApplicationBuilder[Any, Any, Any, Any, Any, Any] = (
        ApplicationBuilder()
        .token(config.token)
        .concurrent_updates(True)
        .context_types(CONTEXT_TYPES)
        .post_init(post_init)
        .post_stop(post_stop)
        .post_shutdown(post_shutdown)
    )
    if config.base_url:
        builder = builder.base_url(config.base_url)
        if config.base_file_url:
            builder = builder.base_file_url(config.base_file_url)
    builder = builder.request(request if request is not None else default_request())
    # getUpdates has its own single connection, as PTB's default (long polls must not wait),
    # watched for outages (one WARNING, one INFO when over)
    builder = builder.get_updates_request(
        OutageWatch(get_updates_request if get_updates_request is not None else default_request(1))
    )
    application = builder.build()
    configure_jobs(application.job_queue)

    resuming.add_handler(application)  # ahead of the others: the tables an update needs
    commands.add_handlers(application)
    history.add_handlers(application)
    personal.add_handlers(application)
    buttons.add_handlers(application)
    application.add_handler(ChatMemberHandler(membership.my_chat_member))  # my_chat_member
    application.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, membership.migrated))
    application.add_error_handler(commands.error_handler)
    return application


START_RETRY_CAP = 60.0
"""The longest pause between attempts to reach Telegram at start-up."""


async def wait_for_telegram(config: Config, *, first_pause: float = 1.0) -> None:
    """Ask Telegram who the bot is until it answers: while it cannot be reached, try again
    with a pause doubling up to :data:`START_RETRY_CAP` (one WARNING line each); a refusal
    (a wrong token) is raised."""
    pause = first_pause
    while True:
        bot = Bot(
            config.token,
            base_url=config.base_url or "https://api.telegram.org/bot",
            request=AiohttpRequest(1),
            # never used (no getUpdates here), but PTB's default, an httpx client, would cost
            # ~0.15 s of CPU at every start: httpx's transport imports and a TLS context
            get_updates_request=AiohttpRequest(1),
        )
        try:
            async with bot:  # initialize() asks getMe
                return
        except (TimedOut, NetworkError) as exc:
            if isinstance(exc, BadRequest | Forbidden):
                raise
            log.warning("Telegram cannot be reached (%s); trying again in %.0f s", exc, pause)
        await asyncio.sleep(pause)
        pause = min(START_RETRY_CAP, pause * 2)


YOUNG_COLLECTION = 10_000
"""Allocations between two collections of the youngest generation (Python's default: 700)."""


def settle_collector() -> None:
    """The cyclic garbage collector set for a long-running bot: what was created so far
    (the modules, the catalogues, the solver's tables) lives as long as the process and
    leaves the collector's generations (``gc.freeze``), and the youngest generation is
    collected every :data:`YOUNG_COLLECTION` allocations, when most of a press's objects
    are already freed by their reference counts (measured in tests/perf/README.md)."""
    gc.freeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_COLLECTION, middle, oldest)


def run(application: Application[Any, Any, Any, Any, Any, Any], config: Config) -> None:
    """Long polling, or a webhook when ``WEBHOOK_URL`` is set (:mod:`bot.telegram.webhook`),
    until a stop signal (:mod:`bot.telegram.running`)."""
    settle_collector()
    if not config.webhook_url:
        log.info("starting (long polling)")
        serve(application)
        return
    hook = Webhook(config)
    log.info("starting (webhook on %s:%d)", config.webhook_listen, config.webhook_port)
    serve(application, hook.start, hook.stop)
