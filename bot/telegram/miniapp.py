"""The Mini App beside the chat game: its server started with the bot, its presses taken
through the chat's press path, its open tables told of every change, and the hand
messages of its players left alone while they have the table open (docs/webapp.md)."""

from __future__ import annotations

import logging

from telegram import User

from bot.config import Config
from bot.core.effects import Effects
from bot.health import Shared, check
from bot.webapp.auth import WebAppUser
from bot.webapp.hub import Hub
from bot.webapp.server import WebServer, Wiring

from .buttons import web_press
from .runtime import Runtime

__all__ = ["MiniApp"]

log = logging.getLogger(__name__)


class MiniApp:
    """The Mini App of a running bot."""

    def __init__(self, rt: Runtime, config: Config, *, public: bool = True) -> None:
        """``public``: on ``WEBAPP_LISTEN:WEBAPP_PORT`` behind the bot's front; else on the
        loopback only, for the webhook's front to hand requests to."""
        assert config.webapp_url is not None
        self.rt = rt
        self.config = config
        self.url = config.webapp_url
        self.hub = Hub()
        self.hub.on_last_close = self._closed
        wiring = Wiring(
            token=config.token,
            service=rt.service,
            press=self._press,
            hub=self.hub,
            max_age=config.webapp_max_age,
            ready=self._ready,
            health=Shared(lambda: check(rt.app)),
        )
        self.server = WebServer(wiring, config.webapp_listen, config.webapp_port, public=public)
        web_links = rt.presenter.web
        web_links.link = self.link
        web_links.start = self.start_link
        web_links.watching = self.hub.watching
        rt.presenter.watchers.append(self._changed)

    def link(self, table_id: int) -> str:
        """The Mini App's address for a table (the id is only a hint: the server checks
        the signed user against the table)."""
        return f"{self.url}{'&' if '?' in self.url else '?'}t={table_id}"

    def start_link(self, table_id: int) -> str:
        """The bot's private chat, whose /start answers with the Mini App's button."""
        return f"https://t.me/{self.rt.bot_username}?start=table_{table_id}"

    # ------------------------------------------------------------------ the bot's side

    def _changed(self, effects: Effects) -> None:
        for table_id in dict.fromkeys(e.table.id for e in effects):
            self.hub.changed(table_id)

    def _closed(self, user_id: int, table_id: int) -> None:
        """His last socket of the table closed: his hand message is brought up to date."""
        table = self.rt.service.registry.get(table_id)
        seat = table.seat_of(user_id) if table is not None else None
        if table is not None and seat is not None:
            self.rt.presenter.show_hand(table, seat)

    async def _press(self, user: WebAppUser, data: str) -> str | None:
        tg_user = User(
            user.id,
            user.first_name,
            is_bot=False,
            last_name=user.last_name or None,
            username=user.username or None,
            language_code=user.language_code,
        )
        return await web_press(self.rt, tg_user, data)

    async def _ready(self, table_id: int, user_id: int) -> None:
        resumer = self.rt.app.bot_data.resumer
        if resumer is not None:
            concerned = self.rt.service.resumable.concerned
            await resumer.resume(concerned(table_id=table_id, user_id=user_id))
