"""Watchers for the hostile tests: they sit between the bot and Telegram and record what
must never happen.

- :class:`PrivacyWatch` checks every text and keyboard the bot's outbox sends *at the
  moment it is rendered* (as it is sent), against the deal as it stands then: a card of another
  hand may show only if the rules opened it by then (played, talon turned, hand open,
  the offerer's shown to those who answer his offer, and after a refusal until their next
  move);
  the discard only in the declarer's own chat and only before the first lead. At the end
  :meth:`PrivacyWatch.check_transport` checks that every version of every message
  Telegram holds was such a text (or shows no card at all).
- :class:`ActSpy` records every accepted button action and who pressed it: only the
  player on turn may act, never another user.
- :class:`ErrorLog` collects log records at ERROR and above (handler exceptions, sends
  that failed for a reason other than Telegram being down).
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from bot.core.model import Table
from bot.preferans.actions import Accept, Offer, Play
from bot.preferans.cards import Card
from bot.preferans.deal import Deal
from bot.preferans.game import Game
from bot.preferans.offers import answer_order
from bot.preferans.robot.hints import Hint
from bot.preferans.seats import Seat
from bot.render.callbacks import decode
from bot.render.text import title_of
from tests.bot_helpers import Harness, cards_in

_DEAL = re.compile(r"(?:Deal|Сдача)(?:</b>)? (\d+)\b")


def deal_by_number(game: Game, number: int, current_no: int) -> Deal | None:
    """Deal ``number`` (1-based) of ``game``: finished, current or abandoned."""
    finished = game.finished_deals
    if 1 <= number <= len(finished):
        return finished[number - 1].deal
    if game.current is not None and number == current_no:
        return game.current
    if game.abandoned is not None and number == len(finished) + 1:
        return game.abandoned
    return None


def public_cards(deal: Deal) -> set[Card]:
    """Cards the rules have opened by now: played, the turned talon, open hands."""
    shown = {a.card for a in deal.log if isinstance(a, Play)} | set(deal.talon_shown)
    return shown.union(*(deal.initial_hand(seat) for seat in deal.open_hands))


def _seat_held(table: Table, user_id: int, deal_no: int | None = None) -> int | None:
    """The seat ``user_id`` holds; or the one he was replaced in during deal ``deal_no``, the
    current deal: his hand message of it is frozen as he last saw it (his own cards)."""
    seat = table.seat_of(user_id)
    if seat is not None:
        return int(seat)
    mine = [i for i, h in enumerate(table.holders) if h.user_id == user_id]
    if not mine or deal_no not in (None, table.deal_no):
        return None
    last = table.holders[mine[-1]]
    after = [h for h in table.holders[mine[-1] + 1 :] if h.seat == last.seat]
    return int(last.seat) if after and after[0].from_deal == table.deal_no else None


def _refused_offer_cards(deal: Deal, seat: Seat) -> set[Card]:
    """The cards of the last refused offer, which each seat that was to answer it has seen
    and may go on seeing until its own next move (the bot keeps them in its hand message)."""
    log = deal.log
    refusals = [i for i, a in enumerate(log) if isinstance(a, Accept) and not a.accepted]
    if not refusals:
        return set()
    at = refusals[-1]
    offer = next(a for a in reversed(log[:at]) if isinstance(a, Offer))
    if seat not in answer_order(offer.seat, deal.active, deal.open_passer):
        return set()
    moved = {a.seat for a in log[at + 1 :]}
    if deal.open_passer in moved:  # the whister moves the passer's cards (Кодекс 3.8.5)
        moved.update(s for s in deal.defenders if s != deal.open_passer)
    return set() if seat in moved else set(deal.hand(offer.seat))


def _labels(markup: Any) -> list[str]:
    if markup is None:
        return []
    rows = getattr(markup, "inline_keyboard", None)
    if rows is not None:
        return [b.text for row in rows for b in row]
    return [label for row in markup for label, *_ in row]  # the fake's (text, data) rows


@dataclass
class PrivacyWatch:
    """Checks what the bot shows, when it shows it (see the module docstring)."""

    h: Harness
    violations: list[str] = field(default_factory=list)
    approved: dict[int, set[str]] = field(default_factory=lambda: defaultdict(set))
    with_cards: int = 0
    hinted: dict[int, set[Card]] = field(default_factory=lambda: defaultdict(set))
    """Each user's cards when a «💡» hint was worked out for him."""

    def install(self) -> PrivacyWatch:
        outbox = self.h.rt.outbox
        show, post = outbox.show_lazy, outbox.post

        def watched_show(slot: Any, render: Any, **kw: Any) -> None:
            """(``Outbox.show`` goes through here too.) Checked as it is rendered: when
            it is sent."""

            def checked() -> Any:
                content = render() if callable(render) else render
                if content is not None:
                    self.check(slot.chat_id, *content)
                return content

            show(slot, checked, **kw)

        def watched_post(chat_id: int, text: str, markup: Any = None, **kw: Any) -> None:
            self.check(chat_id, text, markup)
            post(chat_id, text, markup, **kw)

        outbox.show_lazy = watched_show  # type: ignore[method-assign]
        outbox.post = watched_post  # type: ignore[method-assign]
        service = self.h.service
        hint = service.robots.hint

        async def watched_hint(table_id: int, user_id: int, move: int) -> Hint:
            found = await hint(table_id, user_id, move)
            table = service.registry.tables[table_id]
            seat = table.seat_of(user_id)
            if table.game is not None and table.game.current is not None and seat is not None:
                self.hinted[user_id] |= table.game.current.hand(seat)
            return found

        service.robots.hint = watched_hint  # type: ignore[method-assign]
        return self

    # ------------------------------------------------------------------ at render time

    def _tables(self) -> list[Table]:
        return list(self.h.service.registry.tables.values())

    def _group_table(self, chat_id: int) -> Table | None:
        # A message queued for a group that has since become a supergroup is rendered for
        # the old id (Telegram refuses it, and it is shown again in the new chat); its
        # table has moved to the new id by then.
        moved = self.h.fake.chat(chat_id).migrated_to
        tables = [tb for tb in self._tables() if tb.chat_id in (chat_id, moved)]
        open_ = [tb for tb in tables if tb.status.open]
        return open_[0] if open_ else max(tables, key=lambda tb: tb.id, default=None)

    def _private_table(self, user_id: int, head: str) -> Table | None:
        seated = (tb for tb in self._tables() if _seat_held(tb, user_id) is not None)
        named = [tb for tb in seated if f"· {title_of(tb)}" in head]
        # the same title twice: the open table, else the newest
        open_ = [tb for tb in named if tb.status.open]
        return open_[0] if len(open_) == 1 else max(named, key=lambda tb: tb.id, default=None)

    def check(self, chat_id: int, text: str, markup: Any) -> None:
        self.approved[chat_id].add(text)
        shown = cards_in(text)
        on_buttons: set[Card] = set().union(*map(cards_in, _labels(markup)))
        if not shown and not on_buttons:
            return
        self.with_cards += 1
        head = text.split("\n", 1)[0]
        found = _DEAL.search(head)
        if chat_id < 0:
            table = self._group_table(chat_id)
            if on_buttons:
                self.violations.append(f"cards on group buttons: {_labels(markup)}")
        else:
            table = self._private_table(chat_id, head)
        if found is None or table is None or table.game is None:
            self.violations.append(f"cards outside a deal in chat {chat_id}: {text!r}")
            return
        deal = deal_by_number(table.game, int(found.group(1)), table.deal_no)
        if deal is None:
            self.violations.append(f"no deal {found.group(1)} for chat {chat_id}: {text!r}")
            return
        public = public_cards(deal)
        allowed = set(public)
        seat = _seat_held(table, chat_id, int(found.group(1))) if chat_id > 0 else None
        if seat is not None and deal.is_over:
            return  # privacy covers live deals: a finished deal is shown in full to its players
        if seat is not None and seat < deal.players:
            allowed |= set(deal.hand(Seat(seat)))
            if deal.declarer == seat and not any(isinstance(a, Play) for a in deal.log):
                allowed |= set(deal.discard)
            open_offer = deal.open_offer
            if open_offer is not None and Seat(seat) in open_offer.answerers:
                # record format, "Offers": the offerer's hand is shown to those who answer
                allowed |= set(deal.hand(open_offer.offer.seat))
            allowed |= _refused_offer_cards(deal, Seat(seat))
        everything = shown | on_buttons
        if not everything <= allowed:
            extra = sorted(c.code for c in everything - allowed)
            self.violations.append(
                f"chat {chat_id} (seat {seat}) was shown {extra} in deal {found.group(1)}: {text!r}"
            )
        discard = (set(deal.discard) - public) & everything  # (a talon card
        # turned face up may be discarded: it was public as the talon, not as the discard)
        if discard and not (seat is not None and deal.declarer == seat):
            self.violations.append(f"the discard {discard} shown in chat {chat_id}: {text!r}")

    # ------------------------------------------------------------------ at the end

    def check_transport(self, chats: list[int]) -> None:
        """Every version of every bot message in ``chats`` is a checked text or shows no
        card (a picture's caption, a reply to a command)."""
        fake = self.h.fake
        for chat_id in chats:
            try:
                messages = fake.bot_messages(chat_id)
                chat = fake.chat(chat_id)
            except KeyError:
                continue
            ok_texts = set(self.approved.get(chat_id, set()))
            if chat.migrated_from is not None:
                ok_texts |= self.approved.get(chat.migrated_from, set())
            for m in messages:
                versions = [
                    (
                        v.get("sent_text"),
                        v.get("text") or v.get("caption") or "",
                        v.get("reply_markup") or [],
                    )
                    for v in m.history
                ]
                versions.append((m.sent_text, m.content, m.reply_markup or []))
                for sent, plain, markup in versions:
                    if sent is not None and sent in ok_texts:
                        continue
                    if cards_in(plain) or any(cards_in(lb) for lb in _labels(markup)):
                        self.violations.append(
                            f"unchecked text with cards in chat {chat_id}: {plain!r}"
                        )
        for query in fake.callback_queries:
            shown = cards_in(str((query.answer or {}).get("text") or ""))
            if shown and not shown <= self._hint_cards(query.user_id, query.data):
                self.violations.append(f"callback answer {query.id} shows cards: {query.answer}")

    def _hint_cards(self, user_id: int, data: str | None) -> set[Card]:
        """The cards a «💡» answer (alone among the answers) may name: the presser's own,
        as he held them when a hint was worked out for him."""
        found = decode(data)
        return self.hinted[user_id] if found is not None and found.code == "H" else set()


@dataclass
class ActSpy:
    """Wraps :meth:`TableService.act`, ``confirm_discard`` and ``mark_discard``: who acted,
    and was it his turn."""

    h: Harness
    violations: list[str] = field(default_factory=list)
    accepted: int = 0

    def install(self) -> ActSpy:
        service = self.h.service

        def seats(table_id: int, user_id: int) -> tuple[int | None, int | None]:
            """The user's seat and the seat to act."""
            table = service.registry.get(table_id)
            game = table.game if table is not None else None
            deal = game.current if game is not None else None
            if table is None or deal is None or deal.actor is None:
                return None, None
            return table.seat_of(user_id), int(deal.actor)

        def spied(name: str, counted: bool) -> None:
            run = getattr(service, name)

            async def spy(table_id: int, user_id: int, move: int, *a: Any) -> Any:
                seat, actor = seats(table_id, user_id)
                effects = await run(table_id, user_id, move, *a)
                self.accepted += counted
                if actor is None or seat != actor:
                    self.violations.append(
                        f"user {user_id} (seat {seat}) did {name} {a} on table {table_id} "
                        f"while seat {actor} was to act"
                    )
                return effects

            setattr(service, name, spy)

        spied("act", True)
        spied("confirm_discard", True)
        spied("mark_discard", False)
        return self


class ErrorLog(logging.Handler):
    """Log records at ERROR and above, from any logger."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def __enter__(self) -> ErrorLog:
        logging.getLogger().addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        logging.getLogger().removeHandler(self)

    def lines(self) -> list[str]:
        out = []
        for r in self.records:
            line = f"{r.name}: {r.getMessage()}"
            if r.exc_info and r.exc_info[1] is not None:
                line += f" ({type(r.exc_info[1]).__name__}: {r.exc_info[1]})"
            out.append(line)
        return out


def assert_replays(game: Game) -> None:
    """The record replays through the engine (every move legal) to the same sheet."""
    replayed = Game.from_record(game.to_record())
    assert replayed.to_record() == game.to_record()
    assert replayed.sheet == game.sheet
    assert replayed.settlement() == game.settlement()
    assert replayed.over == game.over
