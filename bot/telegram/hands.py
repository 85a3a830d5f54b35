"""The hand messages: which a move edits at once and which wait; what they show, and
what they show once the deal ended (its review).

A move changes what every seat's hand message shows (the card just played, whose turn it
is), but only two players look at theirs right then: the one who moved and the one now
to act. The other seats' edits wait, and merge with the newer states, until one of them is
to act, a trick is complete or the deal's phase changes (auction, discard and contract,
whisting, play): so at every trick's end each hand shows the whole trick, and nobody ever
acts on a view older than the table. That saves about one private request per move.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from telegram import InlineKeyboardMarkup

from bot.core import effects as fx
from bot.core.model import Player, Table
from bot.core.service import TableService
from bot.core.viewcache import seat_view
from bot.preferans.actions import Discard
from bot.preferans.analysis import Analysis
from bot.preferans.deal import Deal, Phase
from bot.preferans.scoring import Sheet
from bot.preferans.seats import Seat
from bot.render import keyboards
from bot.render.analysis import analysis_line
from bot.render.i18n import t
from bot.render.offers import offer_end_line
from bot.render.results import result_text
from bot.render.table import hand_text, review_text
from bot.render.text import action_text, forced_note

from .queue import Content
from .shown import MessageStore, Slot

__all__ = ["HandEdits", "WebLinks", "epoch", "hand_content", "review_content"]


_STAGES = {Phase.DISCARD: Phase.CONTRACT, Phase.DEFENCE: Phase.WHIST}
"""Phases that are one stage to the players: the declarer's discard and contract (nothing
of the discard is public), the whists and the lone whister's choice of defence."""


def epoch(deal: Deal) -> tuple[object, ...]:
    """Where the deal stands, coarsely: its stage (auction, discard and contract, whisting,
    play, the end) and the tricks complete. The last state of each epoch is one every
    player sees (and the group's table message)."""
    return (_STAGES.get(deal.phase, deal.phase), len(deal.played_tricks))


class HandEdits:
    """Per table: the deal and epoch its hand messages were last all edited in."""

    def __init__(self) -> None:
        self._tables: dict[int, tuple[Deal, tuple[object, ...]]] = {}

    def due(self, table_id: int, deal: Deal, seats: list[Seat], moved: Seat | None) -> list[Seat]:
        """Those of ``seats`` whose hand message is edited now, after ``moved``'s move in
        ``deal`` (``None``: the deal as a whole changed: every seat)."""
        now = epoch(deal)
        if moved is None or self._tables.get(table_id) != (deal, now):
            self._tables[table_id] = (deal, now)
            return seats
        return [s for s in seats if s in (moved, deal.actor)]

    def forget(self, table_id: int) -> None:
        """The deal or the game ended."""
        self._tables.pop(table_id, None)


@dataclass(eq=False)
class WebLinks:
    """The Mini App as the chat shows it (all off without it)."""

    link: Callable[[int], str] | None = None
    """A table's Mini App link, for a ``web_app`` button in private chats."""
    start: Callable[[int], str] | None = None
    """A table's link to the bot's private chat that answers with :attr:`link`."""
    watching: Callable[[int, int], bool] = lambda user_id, table_id: False
    """Whether a user has a table open in the Mini App: his hand message waits."""

    def group(
        self, table: Table, markup: InlineKeyboardMarkup | None
    ) -> InlineKeyboardMarkup | None:
        """The group's ``markup`` with the «🃏 Стол» link, if the Mini App is on."""
        if self.start is None:
            return markup
        url = self.start(table.id)
        return keyboards.table_link(markup, table.settings.lang, url, web_app=False)


def hand_content(
    service: TableService,
    store: MessageStore,
    table: Table,
    seat: Seat,
    slot: Slot,
    web: Callable[[int], str] | None = None,
) -> Content | None:
    """``seat``'s hand message now: his view, the notes for him, the time left, and with
    ``web`` (the Mini App's link of a table) its «🃏 Стол» button; ``None`` once ``slot``
    is not his hand message of the deal any more (what replaced its content there was
    rendered at once)."""
    game = table.game
    player = table.player(seat)
    if game is None or game.current is None or player is None:
        return None
    if not store.kept(slot) or slot.key != (player.user_id, "hand", table.deal_no):
        return None
    sv = seat_view(game.current, seat)
    ranks = service.registry.card_ranks(player.user_id)
    notes = []
    mine = table.ui.hand_auto.get(seat)
    if isinstance(mine, Discard) and not sv.discard:
        mine = None  # Кодекс 3.4.9: after the first lead he may not look at his discard
    if mine is not None:
        what = action_text(mine, player.lang, private=True, ranks=ranks)
        notes.append(t(player.lang, "hand.auto", what=what))
    if table.ui.forced is not None:
        notes.append(forced_note(table, player.lang, seat))
    left = table.deadline - service.clock() if table.deadline is not None else None
    note = "\n\n".join(notes) or None
    text = hand_text(
        table,
        sv,
        table.deal_no,
        player.lang,
        note=note,
        left=left,
        ranks=ranks,
        others=service.registry.tables_of(player.user_id),
    )
    markup = keyboards.actions_keyboard(table, sv, player.lang, ranks=ranks)
    if web is not None:
        markup = keyboards.table_link(markup, player.lang, web(table.id), web_app=True)
    return text, markup


def review_content(
    service: TableService,
    e: fx.DealEnded,
    seat: Seat,
    player: Player,
    before: Sheet | None,
    found: Analysis | None,
    *,
    ask: bool = False,
) -> Content | None:
    """``player``'s hand message of an ended deal: the deal in full, its analysis
    (``found``) once it is ready, the result; with ``ask`` (and no analysis yet) the
    «🔍» button that asks for it."""
    table = e.table
    deal = e.finished.deal
    if deal is None:
        return None
    ranks = service.registry.card_ranks(player.user_id)
    note = result_text(table, e.finished, e.deal_no, player.lang, before)
    claim = offer_end_line(table, deal, player.lang)  # the deal ended by an accepted offer
    note = note if claim is None else claim + "\n\n" + note
    review = review_text(table, deal, player.lang, ranks=ranks)
    if found is not None:
        review += "\n\n" + analysis_line(table, found, player.lang, reader=seat, ranks=ranks)
    note = review + "\n\n" + note
    auto = e.auto.get(seat)
    if auto is not None:
        what = action_text(auto, player.lang, private=True, ranks=ranks)
        note = t(player.lang, "hand.auto", what=what) + "\n\n" + note
    sv = seat_view(deal, seat)
    others = service.registry.tables_of(player.user_id)
    text = hand_text(table, sv, e.deal_no, player.lang, note=note, ranks=ranks, others=others)
    if ask and found is None:
        return text, keyboards.analysis_keyboard(table, e.deal_no, seat, player.lang)
    return text, None
