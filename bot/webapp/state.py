"""One user's view of one table as the Mini App's JSON ``state`` (docs/webapp.md).

Built only from that user's :func:`seat_view` (his seat) or the :func:`public_view` (not
seated) and the texts the chat shows, so a browser never gets a card its user could not
see in his chat. The words are the chat's: status lines from the table message, the legal
moves with exactly the chat keyboard's labels and callback data.
"""

from __future__ import annotations

import functools
import html
import re
from typing import Any

from telegram import InlineKeyboardMarkup

from bot.core.model import Status, Table
from bot.core.modes import RankStyle
from bot.core.viewcache import public_view, seat_view
from bot.preferans.cards import Card
from bot.preferans.deal import Phase, Trick, TrickCard
from bot.preferans.outcome import DealKind, WhistAnswer
from bot.preferans.seats import Seat
from bot.preferans.views import PublicView, SeatView
from bot.render.callbacks import decode
from bot.render.i18n import catalogue, t
from bot.render.keyboards import actions_keyboard
from bot.render.results import result_text, sheet_before
from bot.render.sheet_text import sheet_text
from bot.render.table import actor_line, prompt_line, public_block, review_text

__all__ = ["STRINGS", "plain", "table_state", "strings", "trick_json"]

STRINGS = {
    "table": "webapp.table",
    "tricks": "webapp.tricks",
    "trick": "webapp.trick",
    "talon": "deal.talon",
    "sheet": "webapp.sheet",
    "review": "webapp.review",
    "replay": "webapp.replay",
    "your_cards": "hand.yours",
    "your_turn": "hand.your_turn",
    "seconds": "webapp.seconds",
    "waiting": "webapp.waiting",
    "game_over": "webapp.game_over",
    "connecting": "webapp.connecting",
    "lost": "webapp.lost",
    "close": "webapp.close",
    "prev": "webapp.prev",
    "next": "webapp.next",
    "no_replay": "webapp.no_replay",
    "no_deals": "webapp.no_deals",
    "deal": "webapp.deal",
    "taken": "webapp.taken",
    "replaced": "webapp.replaced",
    "dealer": "deal.dealer",
    "robot": "webapp.robot",
}
"""The page's own words: its key -> the catalogue's (``{n}`` in ``seconds``, ``trick``,
``deal`` and ``taken`` is filled in by the page)."""

_TAG = re.compile(r"<[^>]*>")


def plain(text: str) -> str:
    """A chat text (Telegram HTML) as plain text: tags dropped, entities read back."""
    return html.unescape(_TAG.sub("", text))


@functools.cache
def strings(lang: str) -> dict[str, str]:
    """The page's words in ``lang``; ``{n}`` is left for the page. Built once per language
    (every state frame carries them) and shared: callers only read it."""
    entries = catalogue(lang).entries
    return {key: plain(entries[entry].forms[0]) for key, entry in STRINGS.items()}


def _tc(tc: TrickCard) -> dict[str, Any]:
    seat = None if tc.seat is None or tc.from_talon else int(tc.seat)
    return {"seat": seat, "card": tc.card.code}


def trick_json(trick: Trick) -> dict[str, Any]:
    winner = None if trick.winner is None else int(trick.winner)
    return {"cards": [_tc(tc) for tc in trick.cards], "winner": winner}


def _roles(pv: PublicView, lang: str) -> dict[Seat, str]:
    """Each seat's short role in the deal once the contract is known: playing, whist, pass."""
    if pv.declarer is None or pv.kind is DealKind.ALL_PASS:
        return {}
    roles = {pv.declarer: t(lang, "webapp.role.declarer")}
    answered: dict[Seat, WhistAnswer] = {}
    for w in pv.whists:
        answered[w.seat] = w.answer  # a returned whist stands at the later answer
    for seat, answer in answered.items():
        roles[seat] = t(lang, f"whist.{answer.value}")
    return roles


def _buttons(
    markup: InlineKeyboardMarkup | None,
) -> tuple[list[list[dict[str, str]]], dict[str, str]]:
    """The keyboard's rows as ``{text, data}`` but for the cards (played or marked for the
    discard), which go onto the cards themselves: ``{card code: data}``."""
    rows: list[list[dict[str, str]]] = []
    on_cards: dict[str, str] = {}
    for row in markup.inline_keyboard if markup is not None else ():
        kept = []
        for button in row:
            data = str(button.callback_data)
            found = decode(data)
            code = found.code if found is not None else ""
            if code[:1] in ("p", "t", "u"):  # play, mark, unmark a card (callbacks.py)
                on_cards[code[1:]] = data
            else:
                kept.append({"text": button.text, "data": data})
        if kept:
            rows.append(kept)
    return rows, on_cards


def _cards(
    cards: tuple[Card, ...], on_cards: dict[str, str], marked: tuple[Card, ...] = ()
) -> list[dict[str, Any]]:
    return [{"card": c.code, "data": on_cards.get(c.code), "marked": c in marked} for c in cards]


def _status(table: Table, pv: PublicView, sv: SeatView | None, lang: str) -> list[str]:
    """The table message's lines about the deal (the seats and open hands are drawn)."""
    shown = frozenset(int(s) for s in range(pv.players))
    block = public_block(table, pv, lang, skip_open=shown, ranks=table.settings.ranks, drawn=True)
    # the first entry lists the seats (drawn); an entry may hold several lines
    lines = [plain(line) for entry in block[1:] for line in entry.split("\n")]
    if sv is not None and sv.my_turn:
        lines.append(plain(prompt_line(table, sv, lang)))
    else:
        act = actor_line(table, pv, lang)
        if act:
            lines.append(plain("⏳ " + act))
        elif pv.phase is Phase.DONE:
            lines.append(plain(t(lang, "deal.done")))
    return lines


def table_state(
    table: Table,
    user_id: int,
    lang: str,
    *,
    now: float,
    ranks: RankStyle = RankStyle.LATIN,
) -> dict[str, Any]:
    """The JSON ``state`` of ``table`` for ``user_id`` (docs/webapp.md)."""
    me = table.seat_of(user_id)
    game = table.game
    deal = game.current if game is not None else None
    state: dict[str, Any] = {
        "t": "state",
        "lang": lang,
        "strings": strings(lang),
        "table": table.id,
        "title": table.title,
        "stage": str(table.status),
        "deal": table.deal_no,
        "move": table.move,
        "over": table.status in (Status.OVER, Status.CANCELLED, Status.EXPIRED)
        or (game is not None and game.over),
        "me": None if me is None else int(me),
        "phase": None,
        "seats": [],
        "status": [],
        "trick": [],
        "tricks": [],
        "talon": [],
        "open": {},
        "controlled": {},
        "hand": [],
        "discard": [],
        "offer_hand": [],
        "buttons": [],
        "turn_left": None,
        "sheet": sheet_text(game, lang) if game is not None else None,
        "review": _review(table, lang, ranks),
    }
    seats = state["seats"]
    for i, player in enumerate(table.seats):
        seats.append(
            {
                "seat": i,
                "name": player.name if player is not None else None,
                "robot": player is not None and player.is_robot,
                "dealer": False,
                "turn": False,
                "cards": 0,
                "tricks": 0,
                "role": "",
            }
        )
    if deal is None or table.status != Status.PLAYING:
        return state
    pv = public_view(deal)
    sv = seat_view(deal, me) if me is not None and int(me) < pv.players else None
    roles = _roles(pv, lang)
    for seat in seats[: pv.players]:
        s = Seat(seat["seat"])
        seat.update(
            dealer=s == pv.dealer,
            turn=pv.actor is not None and s == pv.actor,
            cards=pv.hand_sizes[s],
            tricks=pv.tricks[s],
            role=roles.get(s, ""),
        )
    markup = actions_keyboard(table, sv, lang, ranks=ranks) if sv is not None else None
    rows, on_cards = _buttons(markup)
    picked = table.ui.discard_pick.get(me, ()) if me is not None else ()
    state.update(
        phase=pv.phase.value,
        status=_status(table, pv, sv, lang),
        trick=[_tc(tc) for tc in pv.current_trick],
        tricks=[trick_json(tr) for tr in pv.played_tricks],
        talon=[c.code for c in pv.talon],
        open={str(int(s)): [c.code for c in h] for s, h in pv.open_hands.items()},
        buttons=rows,
    )
    if sv is not None:
        state.update(
            hand=_cards(sv.hand, on_cards, picked),
            controlled={str(int(s)): _cards(h, on_cards) for s, h in sv.controlled.items()},
            discard=[c.code for c in sv.discard],
            offer_hand=[c.code for c in sv.offer_hand],
        )
    if table.settings.turn_time and table.deadline is not None and pv.actor is not None:
        state["turn_left"] = max(0, round(table.deadline - now))
    return state


def _review(table: Table, lang: str, ranks: RankStyle) -> str | None:
    """The last finished deal in full with its result (every card is open once it ended)."""
    game = table.game
    if game is None or not game.finished_deals:
        return None
    finished = game.finished_deals[-1]
    deal_no = len(game.finished_deals)
    result = result_text(table, finished, deal_no, lang, sheet_before(game, finished))
    if finished.deal is None:
        return plain(result)
    return plain(review_text(table, finished.deal, lang, ranks=ranks) + "\n\n" + result)
