"""Inline buttons: one python-telegram-bot handler per kind of press, routed by ``pattern``.

Callback data is ``<table>:<move>:<code>`` (:mod:`bot.render.callbacks`). A press, from the
chat or from the Mini App (:func:`web_press`), takes one path: decoded, routed by its kind,
handed to the core service, its effects shown; a chat press is then answered exactly
once, a refused one with the reason.
"""

from __future__ import annotations

import html
import re
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from telegram import CallbackQuery, Update, User
from telegram.ext import Application, CallbackQueryHandler

from bot.core import effects as fx
from bot.core.effects import Effects
from bot.core.errors import Rejected
from bot.core.model import Table
from bot.core.viewcache import public_view
from bot.preferans.cards import Card, parse_card
from bot.preferans.seats import Seat
from bot.render.callbacks import CallbackData, action_at, action_of, decode, to_base36
from bot.render.hint import hint_text
from bot.render.i18n import lang_of, t
from bot.render.keyboards import SETTING_CODES, setting_label

from .recovery import stale_buttons
from .runtime import Context, Runtime, player_of, runtime
from .shown import Slot

__all__ = ["add_handlers", "PATTERNS", "web_press"]

_HEAD = r"^[0-9a-z]{1,12}:[0-9a-z]{1,12}:"
PATTERNS = {
    "lobby": _HEAD + r"L",
    "vote": _HEAD + r"V$",
    "take": _HEAD + r"R\d{1,2}$",
    "robot": _HEAD + r"Q\d{1,2}$",
    "mark": _HEAD + r"[tu]",
    "discard": _HEAD + r"k$",
    "move": _HEAD + r"[bcwdpoa]",
    "hint": _HEAD + r"H$",
    "offers": _HEAD + r"O[ob]$",
    "analysis": _HEAD + r"A\d([a-z][0-9A-Za-z-]+)?$",  # the timer's move for him, if any
}
"""Callback data of each kind of button; anything else is answered as out of date."""


class _Press:
    """One press being handled, from the chat or the Mini App: the answer chosen for it is
    held, and sent once what it changed was handed to the outbox (a slow answer to the
    press never holds back the next player's buttons)."""

    def __init__(self, rt: Runtime, user: User) -> None:
        self.rt = rt
        self.user = user
        self.lang = lang_of(user.language_code)
        self.held: tuple[str | None, bool, str | None] | None = None
        """The answer chosen while the press is handled."""
        self.stale = False
        """Refused as out of date."""

    async def answer(
        self, text: str | None = None, *, alert: bool = False, url: str | None = None
    ) -> None:
        if self.held is None:
            self.held = (text, alert, url)

    def refused(self, exc: Rejected) -> None:
        """The press was refused: the reason is the answer (unless one was chosen)."""
        if self.held is None:
            self.held = (t(self.lang, exc.key, **exc.values), exc.alert, None)
        self.stale = exc.key == "err.stale"

    async def flush(self, query: CallbackQuery) -> None:
        """Answer the chat's press (an empty answer if none was chosen)."""
        text, alert, url = self.held or (None, False, None)
        await self.rt.outbox.answer(query, text, alert=alert, url=url)

    def deep_link(self, payload: str) -> str:
        return f"https://t.me/{self.rt.bot_username}?start={payload}"


Handle = Callable[[_Press, Table, CallbackData], Awaitable[Effects]]


async def _handle(press: _Press, data: str | None, where: int | None) -> None:
    """One press: its data decoded and routed by :data:`PATTERNS`, the core asked, what
    changed shown; a refusal is held as the answer. ``where``: the chat of the pressed
    message (the Mini App's: the presser's own)."""
    rt = press.rt
    try:
        handle, group_only = next(
            (route for kind, route in _ROUTES.items() if re.match(PATTERNS[kind], data or "")),
            (_unknown, False),
        )
        decoded = decode(data)
        table = rt.service.registry.get(decoded.table_id) if decoded is not None else None
        if decoded is None or table is None:
            raise Rejected("err.stale")
        if group_only and where != table.chat_id:
            raise Rejected("err.stale")  # lobby and seat buttons live in the group only
        effects = await handle(press, table, decoded)
        rt.show(effects)  # queued before the press is answered: the table goes first
    except Rejected as exc:
        press.refused(exc)


async def web_press(rt: Runtime, user: User, data: str) -> str | None:
    """A press from the Mini App, by the signed ``user``: the chat's own path (the same
    move numbers, checks and saving); returns the answer's text, if any."""
    press = _Press(rt, user)
    await _handle(press, data, user.id)
    return press.held[0] if press.held is not None else None


Run = Callable[[_Press, CallbackQuery], Awaitable[None]]


def _answered(run: Run) -> Callable[[Update, Context], Coroutine[Any, Any, None]]:
    """A chat press handler: ``run``, then the press answered exactly once; a refused one
    with the reason (an out-of-date private message also loses its buttons)."""

    async def callback(update: Update, context: Context) -> None:
        query = update.callback_query
        if query is None:
            return
        rt = runtime(context)
        press = _Press(rt, query.from_user)
        try:
            try:
                await run(press, query)
            except Rejected as exc:
                press.refused(exc)
            if press.stale:
                stale_buttons(rt.store, rt.outbox, query)
        finally:
            await press.flush(query)

    return callback


async def _chat_press(press: _Press, query: CallbackQuery) -> None:
    """Any press in the chat but the analysis's."""
    where = query.message.chat.id if query.message is not None else None
    await _handle(press, query.data, where)


async def _lobby(press: _Press, table: Table, data: CallbackData) -> Effects:
    """Sit, stand up, start, open or close the settings, cancel, change a setting."""
    service, user_id, code = press.rt.service, press.user.id, data.code
    if code == "Ls":
        player = player_of(press.user)
        effects = await service.sit(table.id, player)
        for e in effects:
            if isinstance(e, fx.MustStartPrivate):
                await press.answer(url=press.deep_link(f"s{to_base36(table.id)}"))
            elif isinstance(e, fx.Seated):
                await press.answer(t(player.lang, "ok.seated", seat=e.seat + 1))
        return effects
    if code == "Lu":
        return await service.stand(table.id, user_id)
    if code == "Lg":
        return await service.start(table.id, user_id)
    if code in ("Lo", "Lb"):
        return await service.show_settings(table.id, user_id, code == "Lo")
    if code == "Lc":
        return await service.cancel(table.id, user_id)
    if code == "La":
        return await service.robots.add_robot(table.id, user_id)
    if code == "Lr":
        return await service.robots.remove_robot(table.id, user_id)
    if code.startswith("Lx") and code[2:] in SETTING_CODES:
        key = SETTING_CODES[code[2:]]
        effects = await service.change_setting(table.id, user_id, key)
        # the new value at once, as the button will read: the lobby's edit takes a moment,
        # and a player who sees nothing presses again and overshoots
        shown = [e.table for e in effects if isinstance(e, fx.LobbyShown)]
        settings = (shown[0] if shown else table).settings
        await press.answer(setting_label(settings, key))
        return effects
    raise Rejected("err.stale")


async def _vote(press: _Press, table: Table, data: CallbackData) -> Effects:
    """Vote to stop the game."""
    effects = await press.rt.service.vote_stop(table.id, press.user.id)
    await press.answer(t(press.lang, "ok.voted"))
    return effects


async def _take(press: _Press, table: Table, data: CallbackData) -> Effects:
    """Take over the seat of a player who kept timing out."""
    number = int(data.code[1:])
    if number >= len(table.seats):
        raise Rejected("err.not_replaceable")
    seat = Seat(number)
    effects = await press.rt.service.take_seat(table.id, seat, player_of(press.user))
    if any(isinstance(e, fx.MustStartPrivate) for e in effects):
        await press.answer(url=press.deep_link(f"r{to_base36(table.id)}_{int(seat)}"))
    return effects


async def _robot(press: _Press, table: Table, data: CallbackData) -> Effects:
    """Give the seat of a player who kept timing out to a computer player."""
    number = int(data.code[1:])
    if number >= len(table.seats):
        raise Rejected("err.not_replaceable")
    return await press.rt.service.robots.replace_with_robot(table.id, Seat(number), press.user.id)


async def _mark(press: _Press, table: Table, data: CallbackData) -> Effects:
    """Mark (``t``) or unmark (``u``) a card for the discard."""
    try:
        card: Card | None = parse_card(data.code[1:])
    except ValueError:
        card = None  # refused as illegal once the turn was checked
    mark = data.code[0] == "t"
    return await press.rt.service.mark_discard(table.id, press.user.id, data.move, card, mark)


async def _discard(press: _Press, table: Table, data: CallbackData) -> Effects:
    """Confirm the two marked cards as the discard."""
    return await press.rt.service.confirm_discard(table.id, press.user.id, data.move, data.code)


async def _move(press: _Press, table: Table, data: CallbackData) -> Effects:
    """Bid, name the contract, whist, choose the defence, play a card, make or answer an
    offer."""
    deal = table.game.current if table.game is not None else None
    if deal is not None:
        action = action_of(data.code, public_view(deal))
    else:  # the game is over: a late press of the last move the bot made for him
        seat = table.seat_of(press.user.id)  # (the core leaves the seat out of that check)
        action = action_at(data.code, seat, seat) if seat is not None else None
    return await press.rt.service.act(table.id, press.user.id, data.move, data.code, action)


async def _offers(press: _Press, table: Table, data: CallbackData) -> Effects:
    """Open (``Oo``) the offer buttons, checked by the solver, or go back (``Ob``) to the
    cards."""
    return await press.rt.service.open_offers(table.id, press.user.id, data.move, data.code == "Oo")


ALERT_LIMIT = 200
"""Characters an alert holds (Bot API ``answerCallbackQuery``); a longer hint is posted."""


async def _hint(press: _Press, table: Table, data: CallbackData) -> Effects:
    """What the strongest computer player would do in the presser's seat: an alert in his
    own chat (the hand message's), or a message there if it is too long for one."""
    rt = press.rt
    found = await rt.service.robots.hint(table.id, press.user.id, data.move)
    seat = table.seat_of(press.user.id)
    player = table.player(seat) if seat is not None else None
    lang = player.lang if player is not None else press.lang
    text = hint_text(found, lang, ranks=rt.service.registry.card_ranks(press.user.id))
    if len(text) <= ALERT_LIMIT:
        await press.answer(text, alert=True)
    else:
        rt.outbox.post(press.user.id, html.escape(text))
        await press.answer(t(lang, "ok.hint_sent"))
    return ()


async def _analysis(press: _Press, query: CallbackQuery) -> None:
    """«🔍» under a player's review: its analysis, worked out and added to that review
    (:mod:`.reviews`). The callback data holds the deal's number in place of the move, and
    the table may be forgotten already (a finished game): not the other presses' route."""
    rt, data, message = press.rt, decode(query.data), query.message
    # only in the player's own chat, where the bot sent him his review
    if data is None or message is None or message.chat.id != press.user.id:
        raise Rejected("err.stale")
    if not rt.presenter.analysis:  # switched off since the review was shown
        raise Rejected("err.stale")
    # the review is the deal's hand message (not kept in the store once the deal was shown)
    slot = Slot(data.table_id, "hand", message.chat.id, data.move, message.message_id)
    seat, user = Seat(int(data.code[1])), player_of(press.user)
    auto = action_at(data.code[2:], seat, seat) if len(data.code) > 2 else None
    if len(data.code) > 2 and auto is None:
        raise Rejected("err.stale")  # a move code no button of ours carries
    key = await rt.presenter.reviews.ask(data.table_id, data.move, seat, slot, user, auto)
    await press.answer(t(press.lang, key))


async def _unknown(press: _Press, table: Table, data: CallbackData) -> Effects:
    raise Rejected("err.stale")


_ROUTES: dict[str, tuple[Handle, bool]] = {
    "lobby": (_lobby, True),
    "vote": (_vote, False),
    "take": (_take, True),
    "robot": (_robot, True),
    "mark": (_mark, False),
    "discard": (_discard, False),
    "move": (_move, False),
    "hint": (_hint, False),
    "offers": (_offers, False),
}
"""Each kind of press (tried in this order) and whether its button lives in the group only."""


def add_handlers(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Register the button handlers: the analysis, then every other press."""
    analysis = _answered(_analysis)
    application.add_handler(CallbackQueryHandler(analysis, pattern=PATTERNS["analysis"]))
    application.add_handler(CallbackQueryHandler(_answered(_chat_press)))
