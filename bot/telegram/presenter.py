"""Turns the core's effects into Telegram messages (through the outbox).

The group's table message is rendered from the deal's public view only, each hand
message from its seat's view only. Messages are rendered from the table as it is now,
so a later effect's state wins. Which message shows what is found in the
:class:`~.shown.MessageStore` by the table's state (its deal, its players), never kept by
the core. What the group must see of an ended deal, a settlement and a started game's
lobby is confirmed to the core once the outbox sent it (a job queued right behind those
messages), so a restart shows what was not confirmed.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from functools import partial

from telegram import InlineKeyboardMarkup

from bot.core import effects as fx
from bot.core.effects import Effects
from bot.core.forced import forced_move
from bot.core.model import Player, Status, Table
from bot.core.play import stop_need
from bot.core.robots import is_robot
from bot.core.service import Shown, TableService
from bot.core.viewcache import public_view, seat_view
from bot.preferans.analysis import reached_play
from bot.preferans.deal import Deal
from bot.preferans.scoring import Sheet
from bot.preferans.seats import Seat
from bot.render import keyboards
from bot.render.i18n import t
from bot.render.lobby import CLOSED_KEYS, lobby_text
from bot.render.offers import offer_end_line
from bot.render.results import result_text, settlement_text, sheet_before
from bot.render.table import hand_text, table_text
from bot.render.text import (
    action_text,
    ended_text,
    forced_note,
    name,
    short_name_html,
    title_of,
    votes_text,
)

from .analysing import Analyst
from .hands import HandEdits, WebLinks, epoch, hand_content, review_content
from .outbox import Outbox, Sound
from .pings import Pings
from .queue import Content
from .reviews import Reviews
from .sheet import SheetMessages
from .shown import MessageStore, Slot, hand_of, hand_slot, hands_of, renew_hand, table_slot

__all__ = ["Presenter"]

log = logging.getLogger(__name__)


class Presenter:
    """Shows what changed."""

    def __init__(
        self,
        service: TableService,
        outbox: Outbox,
        sheets: SheetMessages,
        store: MessageStore | None = None,
    ) -> None:
        self.service = service
        self.outbox = outbox
        self.sheets = sheets
        self.store = store or MessageStore()
        """Which message shows what (shared with the outbox's ``on_sent`` and the sheets)."""
        self.arm: Callable[[Table], None] = lambda table: None
        """Re-arms a table's timer (the scheduler's, set when the parts are wired)."""
        self.analysis = True
        """Whether an ended deal's review offers its analysis («🔍»; tests switch it off)."""
        self.analyst = Analyst()
        """Runs the analyses off the event loop."""
        self.reviews = Reviews(service, outbox, self.analyst)
        """The analyses players asked for."""
        self.autoplay = False
        """Whether forced cards play themselves (the scheduler's pause is set)."""
        self.pings = Pings(service, outbox, self.store)
        self.hands = HandEdits()
        self.watchers: list[Callable[[Effects], None]] = []
        """Told of every change shown (the Mini App's open tables)."""
        self.web = WebLinks()

    def show(self, effects: Effects) -> None:
        """Show every effect, in order."""
        for effect in effects:
            self._one(effect)
        for watcher in self.watchers:
            watcher(effects)

    def _one(self, e: fx.Effect) -> None:
        table = e.table
        lang = table.settings.lang
        match e:
            case fx.LobbyShown():
                self.show_lobby(table)
            case fx.LobbyClosed():
                text = lobby_text(table, closed_key=CLOSED_KEYS[e.status])
                lobby = self.store.get(table.id, "table", table.chat_id, 0)
                if lobby is not None:  # (none: it was never sent, nothing to close)
                    link = e.status == Status.PLAYING  # the game's table, a tap away
                    self.outbox.show(lobby, text, self.web.group(table, None) if link else None)
                if e.status == Status.PLAYING:
                    self._confirm(table, Shown("lobby"))
                else:  # cancelled or expired: the seated players are told privately
                    for _, player in table.seated():
                        title = title_of(table, self._others(player))
                        self._tell(player, t(player.lang, "end.lobby_closed", title=title))
            case fx.Seated():
                title = title_of(table, self._others(e.player))
                text = t(e.player.lang, "start.seated", title=title, seat=e.seat + 1)
                self.outbox.post(e.player.user_id, text)
            case fx.DealShown():
                self.pings.clear(table)
                self.show_deal(table, e.moved)
            case fx.HandShown():
                if e.anew and (seated := table.player(e.seat)) is not None:
                    renew_hand(self.store, table, seated.user_id)
                self.show_hand(table, e.seat)
            case fx.DealEnded():
                self._show_ended(e)
            case fx.GameStopped():
                self._show_abandoned(table)
                self.sheets.game_stopped(table)
            case fx.GameOver():
                self.pings.clear(table)
                self.hands.forget(table.id)
                game = table.game
                if game is not None and game.settlement() is not None:
                    # the game's end rings the group (Sound)
                    text = settlement_text(table, game, lang)
                    self.outbox.post(table.chat_id, text, sound=Sound.RING)
                self._confirm(table, Shown("settlement"))
                self._game_ended(table)
            case fx.SeatReplaceable():
                text = t(lang, "timeout.replace", name=name(table, e.seat))
                self._post_buttons(table, text, keyboards.take_keyboard(table, e.seat))
            case fx.RobotReplaced():
                old = short_name_html(e.old_name)
                text = t(lang, "robot.replaced", new=name(table, e.seat), old=old)
                self._post_buttons(table, text, keyboards.take_back_keyboard(table, e.seat))
                button = t(e.old_lang, "btn.take_back", seat=e.seat + 1)
                note = t(e.old_lang, "hand.robot_took", robot=name(table, e.seat), button=button)
                hand = hand_of(self.store, table, e.old_id)
                self._freeze_hand(table, e.seat, hand, e.old_lang, note)
            case fx.SeatTaken():
                old = short_name_html(e.old_name)
                new = name(table, e.seat)
                note = t(e.old_lang, "hand.seat_taken", name=new)
                hand = hand_of(self.store, table, e.old_id)
                self._freeze_hand(table, e.seat, hand, e.old_lang, note)
                renew_hand(self.store, table, e.player.user_id)  # a new message, not one frozen
                self.outbox.post(table.chat_id, t(lang, "replaced", new=new, old=old))
                title = title_of(table, self._others(e.player))
                text = t(e.player.lang, "start.took", title=title, seat=e.seat + 1)
                self.outbox.post(e.player.user_id, text)
            case fx.StopVoted():
                # one message per deal's vote, edited as votes come
                vote = self.store.slot(table.id, "vote", table.chat_id, table.deal_no)
                text = votes_text(table, stop_need(table))
                self.outbox.show(vote, text, keyboards.stop_keyboard(table))
            case fx.VoteLapsed():
                lapsed = self.store.get(table.id, "vote", table.chat_id, e.deal_no)
                if lapsed is not None:
                    voters = ", ".join(short_name_html(v) for v in e.voters)
                    text = t(lang, "stop.lapsed", names=voters, votes=len(e.voters), need=e.need)
                    self.outbox.show(lapsed, text, None)
            case fx.PlayerBlocked():
                self.outbox.post(table.chat_id, t(lang, "blocked", name=short_name_html(e.name)))
            case fx.Paused():
                if table.status == Status.PLAYING:
                    for _, player in table.seated():
                        title = title_of(table, self._others(player))
                        self._tell(player, t(player.lang, "paused.private", title=title))
            case fx.Resumed():
                self.store.drop(table_slot(self.store, table))  # a new one: the old is far up
                if table.status == Status.LOBBY:
                    self.show_lobby(table)
                else:
                    self.outbox.post(table.chat_id, t(lang, "resumed"))
                    self.show_deal(table)
            case fx.TableMoved():
                if table.status == Status.LOBBY:
                    self.show_lobby(table)
                else:
                    self.show_deal(table)
            case fx.Remind():
                self.show_hand(table, e.seat)  # the time left; sent again if it never got through
                self.pings.remind(e)
            case fx.TurnPassed():
                forced = self.autoplay and forced_move(table) is not None
                self.pings.turn_passed(e, forced=forced)
            case fx.TimerChanged():
                self.arm(table)
            # MustStartPrivate is answered by the button or the command; AutoPlayed shows
            # through the deal's messages.

    # ------------------------------------------------------------------ messages

    def show_lobby(self, table: Table) -> None:
        if table.status != Status.LOBBY:
            return
        slot = table_slot(self.store, table, 0)
        shown = table.ui.settings_open
        keyboard = keyboards.settings_keyboard(table) if shown else keyboards.lobby_keyboard(table)
        markup = self.web.group(table, keyboard)
        # the lobby answers a person's press (a seat, a setting): it goes with the answers
        self.outbox.show(slot, lobby_text(table), markup, sound=Sound.RING, answer=True)

    def show_deal(self, table: Table, moved: Seat | None = None) -> None:
        """Refresh the group's table message and the hand messages of the current deal: after
        ``moved``'s move only those :class:`.hands.HandEdits` says (``None``: every one).
        Rendered when sent, so a state coalesced away costs nothing."""
        game = table.game
        if table.status != Status.PLAYING or game is None or game.current is None:
            return
        slot = table_slot(self.store, table)
        deal = game.current
        lang = table.settings.lang
        auto = table.ui.auto_note
        note = None
        if auto is not None:
            what = action_text(auto.action, lang, ranks=table.settings.ranks)
            note = t(lang, "timeout.note", name=name(table, auto.seat), what=what)
        elif table.ui.forced is not None:
            note = forced_note(table, lang)
        pv, deal_no = public_view(deal), table.deal_no

        def render() -> Content:
            return table_text(table, pv, deal_no, note=note), None

        # the first deal's table message is the game's start: it rings the group (Sound); the
        # last state of each trick and phase is shown, whatever came after it meanwhile
        sound = Sound.RING if table.deal_no == 1 else Sound.QUIET
        self.outbox.show_lazy(slot, render, sound=sound, epoch=epoch(deal))
        seats = [Seat(seat) for seat in range(len(table.seats))]
        for seat in self.hands.due(table.id, deal, seats, moved):
            self.show_hand(table, seat)

    def show_hand(self, table: Table, seat: Seat) -> None:
        """Refresh ``seat``'s hand message (rendered when it is sent: the state then);
        not while its player has the table open in the Mini App."""
        player = table.player(seat)
        if player is not None and self.web.watching(player.user_id, table.id):
            return  # brought up to date when he closes it
        slot = hand_slot(self.store, table, seat)
        if slot is not None:
            content = partial(
                hand_content, self.service, self.store, table, seat, slot, self.web.link
            )
            self.outbox.show_lazy(slot, content)

    def _show_ended(self, e: fx.DealEnded) -> None:
        """The last state of a finished deal in its messages, then the result and the pulka."""
        table = e.table
        deal = e.finished.deal
        lang = table.settings.lang
        before = sheet_before(table.game, e.finished) if table.game is not None else None
        result = result_text(table, e.finished, e.deal_no, lang, before)
        claim = offer_end_line(table, deal, lang) if deal is not None else None
        if claim is not None:  # the deal ended by an accepted offer
            result = claim + "\n\n" + result
        self.hands.forget(table.id)
        slot = table_slot(self.store, table, e.deal_no)
        if deal is not None:
            # (the last trick's state before it is shown first)
            text = table_text(table, public_view(deal), e.deal_no, note=result)
            self.outbox.show_lazy(slot, (text, None), epoch=epoch(deal))
            # the analysis only on request (:mod:`.reviews`): people seldom look at it
            hands = hands_of(self.store, table, e.deal_no)
            self._show_reviews(e, before, hands, ask=self.analysis and reached_play(deal))
        self.sheets.deal_ended(table, result, slot)
        self._confirm(table, Shown("end", e.deal_no))

    def _show_reviews(
        self, e: fx.DealEnded, before: Sheet | None, hands: dict[Seat, Slot], *, ask: bool
    ) -> None:
        """Every player's hand message of an ended deal becomes its review (``ask``: with
        the «🔍» button for its analysis)."""
        for seat, slot in hands.items():
            if (player := e.table.player(seat)) is not None:
                review = partial(
                    review_content, self.service, e, seat, player, before, None, ask=ask
                )
                self.outbox.show_lazy(slot, review)

    def close(self) -> None:
        """Stop the analyses (the bot stops): their reviews keep their button."""
        self.analyst.close()

    def _show_abandoned(self, table: Table) -> None:
        """A game stopped in the middle of a deal: freeze its messages without buttons."""
        game = table.game
        deal = game.abandoned if game is not None else None
        if deal is None:
            return
        ended = t(table.settings.lang, "end.stopped")
        text = table_text(table, public_view(deal), table.deal_no, ended=ended)
        self.outbox.show(table_slot(self.store, table), text, None)
        for seat, player in table.seated():
            slot = hand_slot(self.store, table, seat)
            self._freeze_hand(table, seat, slot, player.lang, t(player.lang, "end.stopped"), deal)

    def _freeze_hand(
        self,
        table: Table,
        seat: Seat,
        slot: Slot | None,
        lang: str,
        ended: str,
        deal: Deal | None = None,
    ) -> None:
        """``seat``'s hand message ``slot`` of ``deal`` (the current one) as it is now, with
        nobody to act and no buttons: the game stopped, or its player was replaced."""
        game = table.game
        deal = deal or (game.current if game is not None else None)
        if slot is None or deal is None:
            return
        sv = dataclasses.replace(seat_view(deal, seat), legal=())
        ranks = self.service.registry.card_ranks(slot.chat_id)
        others = self.service.registry.tables_of(slot.chat_id)
        text = hand_text(table, sv, table.deal_no, lang, ended=ended, ranks=ranks, others=others)
        self.outbox.show(slot, text, None)

    def _post_buttons(self, table: Table, text: str, markup: InlineKeyboardMarkup) -> None:
        """Post a group message with buttons that only make sense while the game runs
        (take a seat, take it back): they are taken away when it ends, and one still
        queued then is never sent."""
        game = table.game

        def due() -> bool:
            return table.status == Status.PLAYING and table.game is game

        async def remember(message_id: int) -> None:
            slot = self.store.put(table.id, "live", table.chat_id, message_id, message_id, text)
            if table.status == Status.PLAYING:
                await self.store.flush()
            else:  # the game ended while it was on its way
                self.store.drop(slot)
                self.outbox.show(slot, text + "\n\n" + ended_text(table), None)

        self.outbox.post(table.chat_id, text, markup, done=remember, due=due)

    def _game_ended(self, table: Table) -> None:
        """Take the buttons off the stop-vote and seat messages; tell each player privately."""
        for slot in self.store.of_kind(table.id, "live"):
            self.store.drop(slot)
            self.outbox.show(slot, (slot.note or "") + "\n\n" + ended_text(table), None)
        vote = self.store.get(table.id, "vote", table.chat_id, table.deal_no)
        if vote is not None and not self.outbox.drop(vote):  # a vote not sent yet never is
            text = votes_text(table, stop_need(table)) + "\n\n" + ended_text(table)
            self.outbox.show(vote, text, None)
        game = table.game
        if game is None or game.settlement() is None:
            return
        for _, player in table.seated():
            title = title_of(table, self._others(player))
            self._tell(player, title + "\n" + settlement_text(table, game, player.lang))

    def _others(self, player: Player) -> list[Table]:
        """The player's open tables, to tell two groups of the same title apart."""
        return self.service.registry.tables_of(player.user_id)

    def _tell(self, player: Player, text: str) -> None:
        """A private message to a seated player; a computer player has no chat (its negative
        id would name a group)."""
        if not is_robot(player):
            self.outbox.post(player.user_id, text)

    def _confirm(self, table: Table, what: Shown) -> None:
        """Queue, behind the group's pending messages, the confirmation that ``what`` was
        shown (it runs once they went out)."""

        async def run() -> bool:
            await self.service.shown(table, what)
            if what.kind == "end":  # its messages are not edited any more
                self.store.drop_deal(table.id, what.deal_no)
            elif what.kind == "lobby":
                self.store.drop_deal(table.id, 0)
            return False  # no request to Telegram: nothing to pace

        self.outbox.call(table.chat_id, run)
