"""Telegram handlers and the controller that shows tables (python-telegram-bot style).

Handlers decode an update, call :class:`~bot.service.GameService` under the table's
lock, and let :class:`Controller` render the result: the group's table message from the
public view only, each private hand message from that seat's view only.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from typing import Any, cast

from telegram import CallbackQuery, Message, Update, User
from telegram.constants import ChatType
from telegram.error import BadRequest, NetworkError, TelegramError
from telegram.ext import Application, ContextTypes, Job

from bot import chat_events, keyboards, recovery
from bot.callbacks import decode, from_base36, to_base36
from bot.preferans.views import public_view, seat_view
from bot.render import texts as render
from bot.render.i18n import lang_of, t
from bot.service import AlreadyDone, DealEnd, GameService, Rejected, Step
from bot.sheet_messages import SheetMessages
from bot.tables import CANCELLED, CLOSED_STATES, EXPIRED, LOBBY, PLAYING, Player, Slot, Table

__all__ = [
    "Controller",
    "start",
    "help_command",
    "rules_command",
    "newgame",
    "pulka_command",
    "stop_command",
    "button",
    "error_handler",
]

log = logging.getLogger(__name__)

REMIND_BEFORE = 15.0
EVICT_AFTER = 600.0
"""Seconds a closed table stays in memory (late presses on it get the precise answers)."""
"""Seconds before the turn deadline when the player is reminded (at most a third of it)."""


def player_of(user: User) -> Player:
    """Our view of a Telegram user."""
    name = user.full_name or user.username or str(user.id)
    return Player(user.id, name, lang_of(user.language_code))


class Controller:
    """Shows tables in Telegram and runs their timers."""

    def __init__(
        self,
        application: Application[Any, Any, Any, Any, Any, Any],
        service: GameService,
        outbox: Any,
    ) -> None:
        self.app = application
        self.service = service
        self.outbox = outbox
        self.settings_open: set[int] = set()
        self.notes: dict[int, str] = {}
        self.hand_notes: dict[tuple[int, int], str] = {}
        self.reminders: dict[int, tuple[int, int]] = {}
        self.sheets = SheetMessages(outbox, service)
        self.timers: dict[int, list[Job[Any]]] = {}
        """Table id -> its scheduled jobs (looking them up by name scans every job)."""

    @property
    def bot_username(self) -> str:
        return str(self.app.bot.username)

    # ------------------------------------------------------------------ showing

    def show_lobby(self, table: Table) -> None:
        slot = table.table_slot
        if slot is None:
            slot = table.table_slot = Slot(table.chat_id)
        if table.status == LOBBY:
            markup = (
                keyboards.settings_keyboard(table)
                if table.id in self.settings_open
                else keyboards.lobby_keyboard(table)
            )
            self.outbox.show(slot, render.lobby_text(table), markup)
        else:
            key = {EXPIRED: "lobby.expired", CANCELLED: "lobby.cancelled"}.get(
                table.status, "lobby.started"
            )
            self.outbox.show(slot, render.lobby_text(table, closed_key=key), None)

    def show_deal(self, table: Table) -> None:
        """Refresh the group's table message and every hand message of the current deal."""
        game = table.game
        if game is None or game.current is None or table.table_slot is None:
            return
        deal = game.current
        note = self.notes.get(table.id)
        pv = public_view(deal)
        self.outbox.show(table.table_slot, render.table_text(table, pv, table.deal_no, note=note))
        for seat, player in table.seated():
            slot = table.hand_slots.get(seat)
            if slot is None:
                continue
            sv = seat_view(deal, seat)  # type: ignore[arg-type]
            text = render.hand_text(
                table, sv, table.deal_no, player.lang, note=self.hand_notes.get((table.id, seat))
            )
            self.outbox.show(slot, text, keyboards.actions_keyboard(table, sv, player.lang))

    def show_hand(self, table: Table, seat: int) -> None:
        game = table.game
        player = table.seats[seat]
        slot = table.hand_slots.get(seat)
        if game is None or game.current is None or player is None or slot is None:
            return
        sv = seat_view(game.current, seat)  # type: ignore[arg-type]
        text = render.hand_text(table, sv, table.deal_no, player.lang)
        self.outbox.show(slot, text, keyboards.actions_keyboard(table, sv, player.lang))

    def _show_ended(self, table: Table, end: DealEnd) -> None:
        """The last state of a finished deal in its messages, then the result and the pulka."""
        deal = end.finished.deal
        lang = table.settings.lang
        assert table.game is not None
        result = render.result_text(table, end.finished, end.deal_no, lang)
        if deal is not None:
            if end.table_slot is not None:
                text = render.table_text(table, public_view(deal), end.deal_no, note=result)
                self.outbox.show(end.table_slot, text, None)
            for seat, slot in end.hand_slots.items():
                player = table.seats[seat]
                if player is None:
                    continue
                sv = seat_view(deal, seat)  # type: ignore[arg-type]
                note = render.result_text(table, end.finished, end.deal_no, player.lang)
                auto = self.hand_notes.pop((table.id, seat), None)
                if auto:
                    note = auto + "\n\n" + note
                text = render.hand_text(table, sv, end.deal_no, player.lang, note=note)
                self.outbox.show(slot, text, None)
        self.sheets.deal_ended(table, result, end.table_slot)
        recovery.deal_shown(self, table, end.deal_no)

    def _show_abandoned(self, table: Table) -> None:
        """A game stopped in the middle of a deal: freeze its messages without buttons."""
        game = table.game
        deal = game.abandoned if game is not None else None
        if deal is None:
            return
        if table.table_slot is not None:
            self.outbox.show(
                table.table_slot, render.table_text(table, public_view(deal), table.deal_no), None
            )
        for seat, player in table.seated():
            slot = table.hand_slots.get(seat)
            if slot is None:
                continue
            sv = dataclasses.replace(seat_view(deal, seat), legal=())  # type: ignore[arg-type]
            self.outbox.show(slot, render.hand_text(table, sv, table.deal_no, player.lang), None)

    def publish(self, table: Table, step: Step) -> None:
        """Show what one accepted change did."""
        self._clear_reminder(table)
        lang = table.settings.lang
        who = step.actor_seat
        if step.action is not None and step.auto and who is not None:
            player = table.seats[who]
            self.notes[table.id] = t(
                lang,
                "timeout.note",
                name=render.name(table, who),
                what=render.action_text(step.action, lang),
            )
            if player is not None:
                self.hand_notes[(table.id, who)] = t(
                    player.lang,
                    "hand.auto",
                    what=render.action_text(step.action, player.lang, private=True),
                )
        elif step.action is not None:
            self.notes.pop(table.id, None)
            if who is not None:
                self.hand_notes.pop((table.id, who), None)
        for end in step.ended:
            self._show_ended(table, end)
        if step.game_over and table.game is not None:
            if not step.ended:
                self._show_abandoned(table)
                self.sheets.game_stopped(table)
            self.outbox.post(table.chat_id, render.settlement_text(table, table.game, lang))
            recovery.settlement_posted(self, table)
            self.notes.pop(table.id, None)
        if step.new_deal and not step.auto:
            self.notes.pop(table.id, None)
        if table.status == PLAYING:
            self.show_deal(table)
        if step.replaceable is not None:
            self.outbox.post(
                table.chat_id,
                t(lang, "timeout.replace", name=render.name(table, step.replaceable)),
                keyboards.take_keyboard(table, step.replaceable),
            )

    # ------------------------------------------------------------------ timers

    def arm(self, table: Table) -> None:
        """(Re)schedule the table's timer: lobby expiry, or turn reminder and timeout."""
        jq = self.app.job_queue
        if jq is None:
            return
        name = f"table:{table.id}"
        for job in self.timers.pop(table.id, ()):
            if jq.scheduler.get_job(job.job.id) is not None:  # not run yet
                job.schedule_removal()
        if table.status in CLOSED_STATES:
            # a closed table leaves memory once everything of it was shown (its rows stay)
            data = ("evict", table.id, 0)
            self.timers[table.id] = [jq.run_once(self._job, EVICT_AFTER, data=data, name=name)]
            return
        if table.deadline is None or table.status not in (LOBBY, PLAYING) or table.paused:
            return
        delay = max(0.0, table.deadline - self.service.clock())
        jobs = self.timers[table.id] = []
        if table.status == LOBBY:
            jobs.append(
                jq.run_once(self._job, delay + 0.05, data=("expire", table.id, 0), name=name)
            )
            return
        turn = table.settings.turn_time
        before = min(REMIND_BEFORE, turn / 3)
        if turn >= 6 and delay > before:
            data = ("remind", table.id, table.move)
            jobs.append(jq.run_once(self._job, delay - before, data=data, name=name))
        jobs.append(
            jq.run_once(self._job, delay + 0.05, data=("turn", table.id, table.move), name=name)
        )

    async def _job(self, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A table's timer went off."""
        job = context.job
        assert job is not None
        kind, table_id, move = cast("tuple[str, int, int]", job.data)
        await self.on_timer(kind, table_id, move)

    async def on_timer(self, kind: str, table_id: int, move: int) -> None:
        """Handle a timer: expire a lobby, remind a player, or act for him."""
        table = self.service.get(table_id)
        if table is None:
            return
        if kind == "evict":
            self.evict(table)
            return
        async with self.service.lock(table_id):
            if table.paused:
                return
            if kind == "expire":
                if await self.service.expire(table):
                    self.settings_open.discard(table.id)
                    self.show_lobby(table)
                self.arm(table)
                return
            if kind == "remind":
                self._remind(table, move)
                return
            step = await self.service.timeout(table, move)
            if step is None:
                if table.move == move and table.deadline is not None:
                    self.arm(table)  # the clock says it is not due yet
                return
            self.publish(table, step)
            self.arm(table)

    def evict(self, table: Table) -> bool:
        """Forget a closed table that was shown in full; else try again later."""
        if self.sheets.pending(table.id) or not self.service.forget(table.id):
            if table.status in CLOSED_STATES:
                self.arm(table)
            return False
        for per_table in (self.notes, self.reminders, self.timers):
            per_table.pop(table.id, None)
        self.settings_open.discard(table.id)
        for key in [k for k in self.hand_notes if k[0] == table.id]:
            del self.hand_notes[key]
        self.sheets.forget(table.id)
        return True

    def _remind(self, table: Table, move: int) -> None:
        game = table.game
        if table.status != PLAYING or table.move != move or game is None or game.current is None:
            return
        actor = game.current.actor
        if actor is None or table.deadline is None:
            return
        player = table.seats[int(actor)]
        if player is None:
            return
        self.show_hand(table, int(actor))  # sends it again if it never got through
        left = max(1, round(table.deadline - self.service.clock()))
        text = t(player.lang, "remind", name=render.name(table, actor), n=left)

        async def remember(msg: Message) -> None:
            self.reminders[table.id] = (msg.chat_id, msg.message_id)

        self.outbox.post(player.user_id, text, done=remember)

    def _clear_reminder(self, table: Table) -> None:
        sent = self.reminders.pop(table.id, None)
        if sent is not None:
            self.outbox.delete(*sent)

    # ------------------------------------------------------------------ outbox hooks

    async def on_sent(self, slot: Slot) -> None:
        """A kept-up-to-date message got its id: save it so a restart can edit it."""
        for table in list(self.service.tables.values()):
            if slot is table.table_slot or slot in table.hand_slots.values():
                async with self.service.lock(table.id):  # never a snapshot mid-change
                    await self.service.save(table)

    async def on_forbidden(self, chat_id: int) -> None:
        """A player blocked the bot: explain it in the group (once), unseat him from lobbies."""
        if chat_id <= 0:  # the bot was removed from a group
            await chat_events.group_lost(self, chat_id)
            return
        await self.service.blocked(chat_id)
        for table in self.service.tables_of(chat_id):
            async with self.service.lock(table.id):
                seat = table.seat_of(chat_id)
                if seat is None:
                    continue
                name = render.name(table, seat)
                if table.status == LOBBY:
                    table.seats[seat] = None
                    await self.service.save(table)
                    self.show_lobby(table)
                if chat_id not in table.blocked_noted:
                    table.blocked_noted.add(chat_id)
                    await self.service.save(table)
                    self.outbox.post(table.chat_id, t(table.settings.lang, "blocked", name=name))

    # ------------------------------------------------------------------ buttons

    async def button(self, query: CallbackQuery) -> None:
        """Apply a button press; every press is answered exactly once."""
        user = query.from_user
        lang = lang_of(user.language_code)
        answered = False

        async def answer(
            text: str | None = None, alert: bool = False, url: str | None = None
        ) -> None:
            nonlocal answered
            if answered:
                return
            answered = True
            await _answer(query, text, alert, url)

        try:
            data = decode(query.data)
            table = self.service.get(data.table_id) if data is not None else None
            if data is None or table is None:
                raise Rejected("err.stale")
            async with self.service.lock(table.id):
                code = data.code
                if table.paused:
                    raise Rejected("err.paused")
                where = query.message.chat.id if query.message is not None else None
                if code[0] in "LR" and where != table.chat_id:
                    raise Rejected("err.stale")  # lobby and seat buttons live in the group only
                if code.startswith("L"):
                    await self._lobby_button(table, query, code, answer)
                elif code == "V":
                    await self._vote(table, user, answer)
                elif code.startswith("R"):
                    await self._take_button(table, user, code, answer)
                elif code[0] in "tu":  # mark / unmark a card for the discard
                    await self.service.toggle_discard(
                        table, user.id, data.move, code[1:], mark=code[0] == "t"
                    )
                    await answer()
                    seat = table.seat_of(user.id)
                    if seat is not None:
                        self.show_hand(table, seat)
                else:
                    step = await self.service.act(table, user.id, data.move, code)
                    await answer()
                    self.publish(table, step)
                    self.arm(table)
        except Rejected as exc:
            await answer(t(lang, exc.key, **exc.values), alert=exc.alert)
            if exc.key == "err.stale":
                recovery.stale_buttons(self, query)
        finally:
            if not answered:
                await answer()

    async def _lobby_button(
        self, table: Table, query: CallbackQuery, code: str, answer: Any
    ) -> None:
        user = query.from_user
        player = player_of(user)
        if code == "Lg" and table.status == PLAYING and table.seat_of(user.id) is not None:
            raise AlreadyDone()  # pressed again after a restart lost the answer
        if table.status != LOBBY:
            raise Rejected("err.stale")
        if code == "Ls":
            if table.seat_of(user.id) is not None:
                raise Rejected("err.already")
            if not any(p is None for p in table.seats):
                raise Rejected("err.full")
            if not await self.service.can_write(user.id):
                await self.service.remember_user(player)
                await answer(url=f"https://t.me/{self.bot_username}?start=s{to_base36(table.id)}")
                return
            seat = await self.service.sit(table, player)
            await answer(t(player.lang, "ok.seated", seat=seat + 1))
            self.show_lobby(table)
            self.outbox.post(
                user.id, t(player.lang, "start.seated", title=_title(table), seat=seat + 1)
            )
        elif code == "Lu":
            await self.service.stand(table, user.id)
            await answer()
            self.show_lobby(table)
        elif code == "Lg":
            lobby_slot = table.table_slot
            step = await self.service.start(table, user.id)
            await answer()
            self.settings_open.discard(table.id)
            if lobby_slot is not None:
                self.outbox.show(
                    lobby_slot, render.lobby_text(table, closed_key="lobby.started"), None
                )
                recovery.lobby_closed(self, table)
            log.info("table %s: game started (%d players)", table.id, len(table.seats))
            self.publish(table, step)
            self.arm(table)
        elif code == "Lo":
            if user.id != table.owner_id:
                raise Rejected("err.owner_only")
            self.settings_open.add(table.id)
            await answer()
            self.show_lobby(table)
        elif code == "Lb":
            self.settings_open.discard(table.id)
            await answer()
            self.show_lobby(table)
        elif code == "Lc":
            await self.service.cancel(table, user.id)
            await answer()
            self.settings_open.discard(table.id)
            self.show_lobby(table)
            self.arm(table)
        elif code.startswith("Lx") and code[2:] in keyboards.SETTING_CODES:
            await self.service.change_setting(table, user.id, keyboards.SETTING_CODES[code[2:]])
            await answer()
            self.show_lobby(table)
        else:
            raise Rejected("err.stale")

    async def _vote(self, table: Table, user: User, answer: Any) -> None:
        votes, need, step = await self.service.vote_stop(table, user.id)
        await answer(t(lang_of(user.language_code), "ok.voted"))
        if step is None:
            seat = table.seat_of(user.id)
            assert seat is not None
            self.outbox.post(
                table.chat_id,
                t(
                    table.settings.lang,
                    "stop.vote",
                    name=render.name(table, seat),
                    votes=votes,
                    need=need,
                ),
                keyboards.stop_keyboard(table),
            )
            return
        log.info("table %s: stopped by vote", table.id)
        self.publish(table, step)
        self.arm(table)

    async def _take_button(self, table: Table, user: User, code: str, answer: Any) -> None:
        try:
            seat = int(code[1:])
        except ValueError:
            raise Rejected("err.stale") from None
        player = player_of(user)
        if table.status != PLAYING or seat not in table.replaceable:
            raise Rejected("err.not_replaceable")
        if table.seat_of(user.id) is not None:
            raise Rejected("err.already")
        if not await self.service.can_write(user.id):
            await self.service.remember_user(player)
            await answer(
                url=f"https://t.me/{self.bot_username}?start=r{to_base36(table.id)}_{seat}"
            )
            return
        await self._take(table, seat, player)
        await answer()

    async def _take(self, table: Table, seat: int, player: Player) -> None:
        old = render.name(table, seat)
        await self.service.take_seat(table, seat, player)
        self.outbox.post(
            table.chat_id, t(table.settings.lang, "replaced", new=render.name(table, seat), old=old)
        )
        self.outbox.post(
            player.user_id, t(player.lang, "start.took", title=_title(table), seat=seat + 1)
        )
        self.show_deal(table)
        self.arm(table)

    # ------------------------------------------------------------------ commands

    async def deep_link(self, player: Player, payload: str) -> str:
        """``/start s<table>`` (sit down) or ``/start r<table>_<seat>`` (take a seat)."""
        try:
            if payload.startswith("s"):
                table = self.service.get(from_base36(payload[1:]))
                if table is None:
                    raise Rejected("err.stale")
                await self._may_join(table, player)
                async with self.service.lock(table.id):
                    seat = await self.service.sit(table, player)
                    self.show_lobby(table)
                return t(player.lang, "start.seated", title=_title(table), seat=seat + 1)
            if payload.startswith("r"):
                tid, _, seat_text = payload[1:].partition("_")
                table = self.service.get(from_base36(tid))
                if table is None:
                    raise Rejected("err.stale")
                await self._may_join(table, player)
                async with self.service.lock(table.id):
                    await self._take(table, int(seat_text), player)
                return ""
        except ValueError:
            return t(player.lang, "start.private")
        except Rejected as exc:
            return t(player.lang, exc.key, **exc.values)
        return t(player.lang, "start.private")

    async def _may_join(self, table: Table, player: Player) -> None:
        """A deep link seats only members of the table's group, and not while it is paused."""
        if table.paused:
            raise Rejected("err.paused")
        if not await chat_events.is_member(self.app.bot, table.chat_id, player.user_id):
            raise Rejected("err.not_member")

    async def unblocked(self, user_id: int) -> None:
        """A player pressed Start again: resend his hand messages."""
        for table in self.service.tables_of(user_id):
            async with self.service.lock(table.id):
                if user_id in table.blocked_noted:
                    table.blocked_noted.discard(user_id)
                    seat = table.seat_of(user_id)
                    if seat is not None and table.status == PLAYING:
                        self.show_hand(table, seat)  # sent anew, or brought up to date
                    await self.service.save(table)

    async def resume(self) -> None:
        """After a restart: refresh the messages of unfinished tables and re-arm timers."""
        for table in await self.service.resume():
            if table.paused:
                continue  # the bot is not in the group; chat_events resumes it when re-added
            recovery.replay(self, table)  # deal ends, settlement, lobby not shown yet
            if table.status == LOBBY:
                self.show_lobby(table)
            elif table.status == PLAYING:
                self.show_deal(table)
            self.arm(table)
        log.info("resumed %d table(s)", len(self.service.tables))


def _title(table: Table) -> str:
    return chat_events.title_of(table)  # a group title may hold markup characters


async def _answer(query: CallbackQuery, text: str | None, alert: bool, url: str | None) -> None:
    """Answer a press; timeouts, resets and 5xx are retried, a refused answer only logged."""
    for attempt in range(1, 4):
        try:
            await query.answer(text, show_alert=alert, url=url)
            return
        except TelegramError as exc:
            retry = isinstance(exc, NetworkError) and not isinstance(exc, BadRequest)
            if not retry or attempt == 3:
                log.info("answering a button press failed: %s", exc)
                return
            await asyncio.sleep(0.3 * attempt)


def _ctl(context: ContextTypes.DEFAULT_TYPE) -> Controller:
    return context.application.bot_data["ctl"]  # type: ignore[no-any-return]


def _group_lang(ctl: Controller, update: Update) -> str:
    chat = update.effective_chat
    table = ctl.service.open_table(chat.id) if chat is not None else None
    if table is not None:
        return table.settings.lang
    user = update.effective_user
    return lang_of(user.language_code if user else None)


def _is_group(update: Update) -> bool:
    chat = update.effective_chat
    return chat is not None and chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)


# ---------------------------------------------------------------------- handlers


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Let the bot write to the user; a deep link seats him at a table."""
    ctl = _ctl(context)
    user = update.effective_user
    chat = update.effective_chat
    if user is None or chat is None:
        return
    if chat.type != ChatType.PRIVATE:
        ctl.outbox.post(chat.id, t(_group_lang(ctl, update), "help"))
        return
    player = player_of(user)
    await ctl.service.remember_user(player, private_ok=True)
    payload = context.args[0] if context.args else ""
    text = await ctl.deep_link(player, payload) if payload else t(player.lang, "start.private")
    if text:
        ctl.outbox.post(chat.id, text)
    await ctl.unblocked(user.id)


async def help_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Explain how to play with the bot."""
    ctl = _ctl(context)
    chat = update.effective_chat
    if chat is not None:
        ctl.outbox.post(chat.id, t(_group_lang(ctl, update), "help"))


async def rules_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Show the chosen convention's scoring in a few lines."""
    ctl = _ctl(context)
    chat = update.effective_chat
    if chat is None:
        return
    table = ctl.service.open_table(chat.id)
    settings = table.settings if table is not None else ctl.service.defaults
    ctl.outbox.post(chat.id, render.rules_text(settings, _group_lang(ctl, update)))


async def newgame(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Open a lobby in the group."""
    ctl = _ctl(context)
    user = update.effective_user
    chat = update.effective_chat
    if user is None or chat is None:
        return
    player = player_of(user)
    if not _is_group(update):
        ctl.outbox.post(chat.id, t(player.lang, "only_group"))
        return
    existing = ctl.service.open_table(chat.id)
    if existing is not None:
        ctl.outbox.post(chat.id, t(existing.settings.lang, "table_exists"))
        return
    try:
        table = await ctl.service.new_table(chat.id, player, chat.title or "")
    except Rejected as exc:
        ctl.outbox.post(chat.id, t(player.lang, exc.key))
        return
    log.info("table %s opened in chat %s", table.id, chat.id)
    async with ctl.service.lock(table.id):
        ctl.show_lobby(table)
        ctl.arm(table)


async def pulka_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Show the pulka (the running score) of the chat's game."""
    ctl = _ctl(context)
    chat = update.effective_chat
    if chat is None:
        return
    lang = _group_lang(ctl, update)
    found = await ctl.service.last_game(chat.id)
    if found is None:
        ctl.outbox.post(chat.id, t(lang, "no_table"))
        return
    table, game = found
    message = update.effective_message
    ctl.sheets.pulka(table, game, after=message.message_id if message is not None else 0)


async def stop_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Vote to stop the game (more than half of the seated players stop it)."""
    ctl = _ctl(context)
    chat = update.effective_chat
    user = update.effective_user
    if chat is None or user is None:
        return
    lang = _group_lang(ctl, update)
    table = ctl.service.open_table(chat.id)
    if table is None or table.status != PLAYING:
        ctl.outbox.post(chat.id, t(lang, "stop.not_playing"))
        return
    async with ctl.service.lock(table.id):
        try:
            votes, need, step = await ctl.service.vote_stop(table, user.id)
        except Rejected as exc:
            ctl.outbox.post(chat.id, t(lang, exc.key))
            return
        if step is None:
            seat = table.seat_of(user.id)
            assert seat is not None
            ctl.outbox.post(
                chat.id,
                t(lang, "stop.vote", name=render.name(table, seat), votes=votes, need=need),
                keyboards.stop_keyboard(table),
            )
            return
        log.info("table %s: stopped by vote", table.id)
        ctl.publish(table, step)
        ctl.arm(table)


async def button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Handle an inline button press."""
    query = update.callback_query
    if query is not None:
        await _ctl(context).button(query)


async def error_handler(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log errors raised by handlers (without the update's content)."""
    log.error("error while handling an update", exc_info=context.error)
