"""Turn notifications: the message with a sound that calls a player to his turn, and the
reminder before his time runs out (each player's ``/settings`` decides which he gets).

One sound a turn: a reminder for a turn he was already called to edits that message (an
edit rings nothing) instead of sending a second one.
"""

from __future__ import annotations

from telegram.error import BadRequest

from bot.core import effects as fx
from bot.core.model import Table, is_robot_id
from bot.core.modes import NotifyMode
from bot.core.service import TableService
from bot.render.i18n import t
from bot.render.text import name, title_of

from .edits import edit_text
from .outbox import Outbox, message_gone
from .shown import MessageStore

__all__ = ["Pings", "ACTIVE_SECONDS"]

ACTIVE_SECONDS = 30.0
"""A player who acted this recently (or whose new hand message rang this recently) is still
looking at his hand: the turn passing to him needs no notifying message (the silent edit of
his hand message is enough). A three-handed round of people taking 5-10 s a decision lasts
15-30 s: at 20 s a third of the notifications went to players who had pressed 20-30 s
before and were waiting for the other two (tests/perf/README.md, "The bot under load")."""


class Pings:
    """Sends, replaces and deletes the turn notifications."""

    def __init__(self, service: TableService, outbox: Outbox, store: MessageStore) -> None:
        self.service = service
        self.outbox = outbox
        self.store = store
        """Keeps the table's notification (one at most), so a restart deletes it too."""

    def remind(self, e: fx.Remind) -> None:
        """The player to act is running out of time (or, with the timer off, the table has
        waited for him a while)."""
        table = e.table
        player = table.player(e.seat)
        if player is None:
            return
        if e.seconds is None:  # the timer is off: the table has been waiting a while
            text = t(player.lang, "remind.idle", name=name(table, e.seat), title=title_of(table))
        else:
            text = t(player.lang, "remind", name=name(table, e.seat), n=e.seconds)
        self._notify(
            table, player.user_id, text, (NotifyMode.ALWAYS, NotifyMode.SLOW), replace=True
        )

    def turn_passed(self, e: fx.TurnPassed, *, forced: bool) -> None:
        """A notifying message for the player whose turn it is now, unless he acted moments
        ago (he is still looking) or does not want it; ``forced``: his only card plays
        itself after a pause."""
        table = e.table
        player = table.player(e.seat)
        if player is None or (e.idle is not None and e.idle < ACTIVE_SECONDS):
            return
        title = title_of(table, self.service.registry.tables_of(player.user_id))
        text = t(player.lang, "turn.notify", title=title, n=table.deal_no)
        self._notify(table, player.user_id, text, (NotifyMode.ALWAYS,), forced=forced)

    def _notify(
        self,
        table: Table,
        user_id: int,
        text: str,
        modes: tuple[NotifyMode, ...],
        *,
        forced: bool = False,
        replace: bool = False,
    ) -> None:
        """Post ``text`` to ``user_id`` if his setting is one of ``modes``, nobody moved meanwhile
        and (``forced``) his only card does not play itself (no ring for a move he need not
        make); it replaces the table's previous notification and goes once he moved. With
        ``replace``, the notification of this turn he got already is edited instead."""
        if is_robot_id(user_id):  # a computer player: no chat to notify
            return
        move = table.move

        async def remember(message_id: int) -> None:
            if table.move != move:  # he moved before it went out: it is already stale
                self.outbox.delete(user_id, message_id)
                return
            self.clear(table)
            self.store.put(table.id, "reminder", user_id, 0, message_id)
            await self.store.flush()

        async def run() -> bool:
            if table.move != move or await self.service.registry.notify_mode(user_id) not in modes:
                return False
            if forced and await self.service.registry.autoplay(user_id):
                return False
            if replace and await self._edited(table, user_id, text):
                return True
            self.outbox.post(user_id, text, done=remember)
            return False  # the post is paced as a request of its own

        self.outbox.call(user_id, run)

    async def _edited(self, table: Table, user_id: int, text: str) -> bool:
        """Put ``text`` in the notification of this turn ``user_id`` got (cleared whenever
        anybody moves); ``False`` if there is none (or he deleted it)."""
        sent = next(iter(self.store.of_kind(table.id, "reminder")), None)
        if sent is None or sent.chat_id != user_id or sent.message_id is None:
            return False
        bot, mid = self.outbox.bot, sent.message_id
        try:
            await self.outbox.retry(lambda: edit_text(bot, user_id, mid, text, None))
        except BadRequest as exc:
            return not message_gone(exc)  # "not modified": it shows the text already
        return True

    def clear(self, table: Table) -> None:
        """Delete the table's notification (somebody moved, or the game is over)."""
        for old in self.store.of_kind(table.id, "reminder"):
            self.store.drop(old)  # (its row goes with the next write)
            if old.message_id is not None:
                self.outbox.delete(old.chat_id, old.message_id)
