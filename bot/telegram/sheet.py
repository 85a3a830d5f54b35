"""The pulka sheet in the group: one message per table that follows the game.

After every deal, on ``/pulka`` and at the end of the game the group gets the sheet as
the table's setting ``sheet`` asks:

* ``picture`` (the default): the PNG of :func:`bot.render.picture.draw.render_png` with a
  one-line caption (the deal's result line, on ``/pulka`` the sheet's title, for a
  finished game the settlement);
* ``text``: the monospace sheet as before (the result line and the pulka table);
* ``both``: the picture with the monospace sheet as its caption (one message; if the
  caption would be longer than Telegram allows, the text follows as its own message).

**One sheet message per table.** A new sheet replaces the previous one:

* if anything was posted in the group after the previous sheet (the next deal's table
  message, the ``/pulka`` command itself...), the new sheet is sent as a new message at
  the bottom and then the previous one is deleted. In a busy group the freshest sheet is
  always where people look, and sheets never pile up;
* if the previous sheet is still the newest message the bot knows of in the group, it is
  edited in place (``editMessageMedia`` with the new picture and caption, or
  ``editMessageText`` for the text sheet): no extra message, no jump. A message that
  cannot be edited any more is replaced as above.

The bot only sees commands in a group (privacy mode), so "newest" means newer than the
bot's own messages, the table message of the current deal and the command that asked.

**Where the work happens.** :meth:`SheetMessages.show` only takes a snapshot of the
sheet (called under the table lock, it copies a few references) and queues a job in the
group's :class:`~bot.telegram.outbox.Outbox` queue, so the picture is sent in order with the
group's other messages, within its flood budget and with ``RetryAfter`` waited out. The
job draws the PNG in the pictures' own thread (:mod:`.drawing`), away from the event
loop and from the table lock, one picture at a time. A newer sheet of the same table
that comes while a job still waits only replaces that job's content. If drawing fails,
or Telegram refuses the photo for good, the text sheet is sent instead. The sheet
message's id is stored with the table (``Messages.sheet_message``, saved by the core
service), so after a restart the next sheet still replaces it. (``/pulka`` about a
finished game that is no longer in memory replaces its sheet too, but that id is kept
only until a restart.)
"""

from __future__ import annotations

import asyncio
import html
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, cast

from telegram import Bot, InputFile, InputMediaPhoto
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, TelegramError

from bot.core.model import Table
from bot.core.modes import SheetMode
from bot.core.service import TableService
from bot.preferans.conventions import Rules
from bot.preferans.game import FinishedDeal, Game
from bot.preferans.scoring import Sheet
from bot.render.i18n import t
from bot.render.picture.draw import render_png
from bot.render.results import pulka_text, settlement_text, sheet_title

from .drawing import Kept, painter
from .edits import edit_text, send_text
from .outbox import Outbox, Sound, message_gone, not_modified
from .shown import MessageStore, Slot

__all__ = ["SheetMessages", "SheetSnapshot", "CAPTION_LIMIT", "caption_length"]

log = logging.getLogger(__name__)

CAPTION_LIMIT = 1024
"""Telegram's limit for a photo caption (characters after parsing the HTML)."""

FILE_NAME = "pulka.png"
SOUND = Sound.QUIET
"""A sheet never rings the group (a game's end rings with its settlement)."""

_TAG = re.compile(r"<[^>]+>")


def caption_length(text_html: str) -> int:
    """How long ``text_html`` is for Telegram: without tags, in UTF-16 code units."""
    plain = html.unescape(_TAG.sub("", text_html))
    return len(plain.encode("utf-16-le")) // 2


class SheetSnapshot:
    """What the picture needs of a :class:`Game`, copied at one moment.

    The PNG is drawn in a worker thread while the game goes on in the event loop; the
    snapshot holds only immutable parts (rules, sheets, finished deals), so the picture
    shows exactly the state it was asked for.
    """

    __slots__ = (
        "rules",
        "players",
        "names",
        "start",
        "finished_deals",
        "finished",
        "stopped",
        "over",
        "sheet",
        "_settlement",
    )

    def __init__(self, game: Game, names: Sequence[str] | None = None) -> None:
        self.rules: Rules = game.rules
        self.players: int = game.players
        self.names: list[str] = list(names if names is not None else game.names)
        self.start: Sheet = game.start
        self.finished_deals: tuple[FinishedDeal, ...] = tuple(game.finished_deals)
        self.finished: bool = game.finished
        self.stopped: bool = game.stopped
        self.over: bool = game.over
        self.sheet: Sheet = game.sheet
        self._settlement: tuple[Fraction, ...] | None = game.settlement()

    def settlement(self) -> tuple[Fraction, ...] | None:
        return self._settlement

    def same(self, other: SheetSnapshot) -> bool:
        """Whether ``other`` draws the same picture (its parts are immutable)."""
        return all(getattr(self, k) == getattr(other, k) for k in self.__slots__)


def _names(table: Table, game: Game) -> list[str]:
    """The players as the group knows them now (a player who took a seat included)."""
    out = list(game.names)
    for i, p in enumerate(table.seats[: game.players]):
        if p is not None:
            out[i] = p.name
    return out


@dataclass(eq=False, slots=True)
class _Job:
    table: Table
    mode: SheetMode
    lang: str
    caption: str
    """The picture's caption (HTML, one line or a short block)."""
    text: str
    """The text sheet (HTML): the message in ``text`` mode and the fallback."""
    snapshot: SheetSnapshot | None
    slots: list[Slot] = field(default_factory=list)
    """Messages the sheet comes after (their ids are read when the job runs)."""
    after: int = 0
    """A message id the sheet comes after (the command that asked for it)."""


Ref = tuple[int, bool]
"""A sheet message: its id and whether it is a picture."""


class SheetMessages:
    """Sends and replaces each table's sheet message in its group."""

    def __init__(
        self,
        outbox: Outbox,
        service: TableService,
        store: MessageStore | None = None,
        *,
        render_picture: Callable[[Game, str], bytes] = render_png,
    ) -> None:
        self.outbox = outbox
        self.service = service
        self.store = store or MessageStore()
        """Where the sheet message of a table in play is kept (:mod:`.shown`)."""
        self.render_picture = render_picture
        self._pending: dict[int, _Job] = {}
        """Table id -> its job still waiting in the outbox."""
        self._current: dict[int, Ref] = {}
        """Table id -> its sheet message (also for tables rebuilt from the database)."""
        self._drawn: Kept[SheetSnapshot] = Kept()
        """Each table's last picture, for the tables drawn last (:class:`.drawing.Kept`)."""

    # ------------------------------------------------------------------ what to show

    def deal_ended(self, table: Table, result: str, slot: Slot | None = None) -> None:
        """A deal ended: the result line with the sheet (the final one if the game is over).

        ``slot`` is the finished deal's table message, which the sheet comes after.
        """
        game = table.game
        assert game is not None
        lang = table.settings.lang
        text = result + "\n\n" + pulka_text(table, game, lang)
        self.show(table, game, caption=result, text=text, slots=[slot] if slot else [])

    def game_stopped(self, table: Table) -> None:
        """The game was stopped by vote: the final sheet (the settlement follows)."""
        game = table.game
        assert game is not None
        lang = table.settings.lang
        caption = html.escape(t(lang, "sheet.stopped"))
        self.show(table, game, caption=caption, text=pulka_text(table, game, lang))

    def pulka(self, table: Table, game: Game, *, after: int = 0) -> None:
        """``/pulka``: the current sheet; for a finished game with its settlement."""
        lang = table.settings.lang
        text = pulka_text(table, game, lang)
        if game.settlement() is not None:
            settlement = settlement_text(table, game, lang)
            text += "\n\n" + settlement
            caption = settlement
        else:
            caption = html.escape(sheet_title(game, lang))
        self.show(table, game, caption=caption, text=text, after=after)

    def show(
        self,
        table: Table,
        game: Game,
        *,
        caption: str,
        text: str,
        slots: Sequence[Slot] = (),
        after: int = 0,
    ) -> None:
        """Queue ``table``'s sheet of ``game`` in its group (replacing the previous one)."""
        mode = table.settings.sheet
        snapshot = SheetSnapshot(game, _names(table, game)) if mode != SheetMode.TEXT else None
        job = self._pending.get(table.id)
        if job is not None and job.table is table:
            job.mode, job.caption, job.text, job.snapshot = mode, caption, text, snapshot
            job.lang = table.settings.lang
            job.slots.extend(slots)
            job.after = max(job.after, after)
            return
        job = _Job(table, mode, table.settings.lang, caption, text, snapshot, list(slots), after)
        self._pending[table.id] = job
        self.outbox.call(table.chat_id, lambda: self._send(job))

    def pending(self, table_id: int) -> bool:
        """A sheet of this table is still queued."""
        return table_id in self._pending

    def forget(self, table_id: int) -> None:
        """The table left memory (its sheet message is kept with its messages)."""
        self._current.pop(table_id, None)
        self._drawn.put(table_id, None)

    def current(self, table: Table) -> Ref | None:
        """The table's sheet message, if it has one."""
        ref = self._current.get(table.id)
        kept = self.store.get(table.id, "sheet", table.chat_id, 0)
        if ref is None and kept is not None and kept.message_id is not None:
            ref = (kept.message_id, kept.note == "photo")
        return ref

    # ------------------------------------------------------------------ sending

    async def _send(self, job: _Job) -> int:
        """Run in the group's outbox worker: draw, send or edit, then delete the old one."""
        table = job.table
        if self._pending.get(table.id) is job:
            del self._pending[table.id]
        chat_id = table.chat_id
        held = self.service.registry.tables.get(table.id) is table
        if held:  # a table resumed: its sheet message is read with its messages
            await self.store.load(table.id)
        elif table.id not in self._current:  # a finished game's /pulka: its last sheet goes
            ref = await self.store.stored_sheet(table.id, chat_id)
            if ref is not None:
                self._current[table.id] = ref
        old = self.current(table)
        known = [job.after, self.outbox.ends.newest(chat_id)]
        current = self.store.get(table.id, "table", chat_id, table.deal_no)
        known += [s.message_id for s in [*job.slots, current] if s and s.message_id]
        in_place = old if old is not None and old[0] >= max(known) else None
        sent: Ref | None = None
        extra: str | None = None
        if job.mode != SheetMode.TEXT and job.snapshot is not None:
            png = await self._draw(table.id, job.snapshot, job.lang)
            if png is not None:
                caption = job.caption
                if job.mode == SheetMode.BOTH:
                    if caption_length(job.text) <= CAPTION_LIMIT:
                        caption = job.text
                    else:
                        extra = job.text
                try:
                    sent = await self._photo(chat_id, png, caption, in_place)
                except Forbidden:
                    raise
                except TelegramError as exc:
                    log.warning("chat %s: the sheet picture was refused (%s)", chat_id, exc)
                    extra = None
        if sent is None:
            sent = await self._text(chat_id, job.text, in_place)
        self._current[table.id] = sent
        if extra is not None:  # right under the picture, before the group's next message
            await self._text(chat_id, extra, None)
        if old is not None and old[0] != sent[0]:
            self.outbox.delete(chat_id, old[0])
        if held:  # (a finished game shown by /pulka is not kept)
            self.store.put(table.id, "sheet", chat_id, 0, sent[0], "photo" if sent[1] else "text")
            await self.store.flush()
        return 1 if extra is None else 2  # both count in the group's 20 a minute

    async def _draw(self, table_id: int, snapshot: SheetSnapshot, lang: str) -> bytes | None:
        drawn = self._drawn.get(table_id)
        if drawn is not None and drawn[1] == lang and drawn[0].same(snapshot):
            return drawn[2]
        try:
            loop = asyncio.get_running_loop()
            draw = self.render_picture
            png = await loop.run_in_executor(painter(), draw, cast(Game, snapshot), lang)
        except Exception:
            log.exception("the sheet picture could not be drawn; sending the text sheet")
            return None
        self._drawn.put(table_id, (snapshot, lang, png))
        return png

    async def _photo(self, chat_id: int, png: bytes, caption: str, in_place: Ref | None) -> Ref:
        bot: Bot = self.outbox.bot

        def edit(mid: int) -> Awaitable[Any]:
            media = InputMediaPhoto(
                InputFile(png, filename=FILE_NAME, attach=True),
                caption=caption,
                parse_mode=ParseMode.HTML,
            )
            return bot.edit_message_media(media, chat_id=chat_id, message_id=mid)

        async def send() -> int:
            sent = await bot.send_photo(
                chat_id,
                InputFile(png, filename=FILE_NAME),
                caption=caption,
                parse_mode=ParseMode.HTML,
                disable_notification=SOUND.disable_notification,
            )
            return sent.message_id

        return await self._edit_or_send(chat_id, True, in_place, edit, send)

    async def _text(self, chat_id: int, text: str, in_place: Ref | None) -> Ref:
        # (Telegram's answer is not parsed: see edits.py)
        bot: Bot = self.outbox.bot

        def edit(mid: int) -> Awaitable[None]:
            return edit_text(bot, chat_id, mid, text, None)

        def send() -> Awaitable[int]:
            return send_text(bot, chat_id, text, None, silent=SOUND.disable_notification)

        return await self._edit_or_send(chat_id, False, in_place, edit, send)

    async def _edit_or_send(
        self,
        chat_id: int,
        photo: bool,
        in_place: Ref | None,
        edit: Callable[[int], Awaitable[Any]],
        send: Callable[[], Awaitable[int]],
    ) -> Ref:
        """Edit ``in_place`` if it is a message of the same kind and still editable, else
        send a new one."""
        if in_place is not None and in_place[1] == photo:
            mid = in_place[0]
            try:
                await self.outbox.retry(lambda: edit(mid))
                return in_place
            except BadRequest as exc:
                if not_modified(exc):
                    return in_place
                # gone, or a photo that cannot take text (or the reverse): sent anew
                if not message_gone(exc, "no media", "no text"):
                    raise
        message_id: int = await self.outbox.retry(send)
        self.outbox.ends.sent(chat_id, message_id)
        return message_id, photo
