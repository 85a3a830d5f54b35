"""The small pieces every text is made of: suits, cards, contracts, names, actions."""

from __future__ import annotations

import functools
import html
from collections.abc import Iterable

from bot.core.model import Table, TableSettings
from bot.core.modes import RankStyle
from bot.preferans.actions import Accept, Bid, ChooseDefence, Declare, Discard, Play, Whist
from bot.preferans.cards import Card, Suit, sort_hand
from bot.preferans.contracts import Contract
from bot.preferans.seats import Seat
from bot.render.i18n import t
from bot.render.sheet_text import short_name

__all__ = [
    "SUITS",
    "NAME_WIDTH",
    "suit",
    "RUSSIAN_RANKS",
    "rank",
    "card",
    "cards",
    "contract",
    "hand_lines",
    "name",
    "short_name_html",
    "title_of",
    "group_title",
    "convention_title",
    "turn_label",
    "action_text",
    "forced_note",
    "votes_text",
    "ended_text",
]

SUITS = ("♠️", "♣️", "♦️", "♥️")
"""Emoji suits: on phones ♦️ ♥️ are red and ♠️ ♣️ black."""

NAME_WIDTH = 16


def suit(s: Suit) -> str:
    return SUITS[int(s)]


RUSSIAN_RANKS = {"J": "В", "Q": "Д", "K": "К", "A": "Т"}
"""Валет, дама, король, туз: the ranks as preferans books write them (``ranks="russian"``)."""


def rank(c: Card, ranks: RankStyle = RankStyle.LATIN) -> str:
    """``c``'s rank: ``J Q K A``, or ``В Д К Т`` for ``ranks="russian"``."""
    label = c.rank.label
    return RUSSIAN_RANKS.get(label, label) if ranks == RankStyle.RUSSIAN else label


def card(c: Card, *, ranks: RankStyle = RankStyle.LATIN) -> str:
    """``10♥️``."""
    return f"{rank(c, ranks)}{suit(c.suit)}"


def cards(cs: Iterable[Card], *, ranks: RankStyle = RankStyle.LATIN) -> str:
    return " ".join(card(c, ranks=ranks) for c in cs)


def contract(c: Contract | None, lang: str) -> str:
    if c is None:
        return t(lang, "pass")
    if c.misere:
        return t(lang, "misere")
    # A narrow no-break space tells a contract (7 ♥️) from a card (7♥️).
    return f"{c.level}\u202f{t(lang, 'nt') if c.trump is None else suit(c.trump)}"


def hand_lines(hand: Iterable[Card], *, ranks: RankStyle = RankStyle.LATIN) -> list[str]:
    """One line per suit, high to low: ``♠️ A K 10``."""
    by_suit: dict[Suit, list[Card]] = {}
    for c in sort_hand(hand):
        by_suit.setdefault(c.suit, []).append(c)
    return [
        f"{suit(s)} {' '.join(rank(c, ranks) for c in by_suit[s])}" for s in Suit if s in by_suit
    ]


def name(table: Table, seat: Seat | int) -> str:
    """The seat's player, shortened and HTML-escaped."""
    player = table.seats[int(seat)] if int(seat) < len(table.seats) else None
    return short_name_html(player.name if player is not None else f"#{int(seat) + 1}")


@functools.lru_cache(maxsize=4096)
def short_name_html(raw: str) -> str:
    """A player's name as the group sees it: shortened and HTML-escaped (cached: a move's
    messages name the players ~50 times)."""
    return html.escape(short_name(raw, NAME_WIDTH))


def convention_title(settings: TableSettings, lang: str) -> str:
    conv = settings.rules().convention
    return conv.title_ru if lang == "ru" else conv.title_en


def turn_label(seconds: int, lang: str) -> str:
    return t(lang, "turn.off") if not seconds else t(lang, "turn.sec", n=seconds)


def action_text(
    action: object, lang: str, *, private: bool = False, ranks: RankStyle = RankStyle.LATIN
) -> str:
    """A move in a few words; a discard names its cards only in the declarer's own chat."""
    match action:
        case Bid() | Declare():
            return contract(action.contract, lang)
        case Whist():
            return t(lang, f"whist.{action.answer.value}")
        case ChooseDefence():
            return t(lang, f"defence.{action.defence.value}")
        case Play():
            return card(action.card, ranks=ranks)
        case Discard():
            shown = cards(action.cards, ranks=ranks) if private else "🂠 🂠"
            return t(lang, "act.discarded", cards=shown)
        case Accept():
            return t(lang, "action.accept" if action.accepted else "action.refuse")
    return str(action)


def title_of(table: Table, others: Iterable[Table] = ()) -> str:
    """The group's title for a private message: shortened and HTML-escaped.

    ``others`` are the player's other open tables: when one of them shows the same title
    (two groups named alike), the table's number follows it, so that his hand messages
    tell the two apart ("Друзья #12", "Друзья #15"); otherwise the title alone reads best.
    """
    shown = group_title(table.title, table.id)
    rest = (o for o in others if o.id != table.id)
    if any(group_title(o.title, o.id) == shown for o in rest) and table.title:
        return f"{shown} #{table.id}"
    return shown


def group_title(title: str, table_id: int) -> str:
    """A group's title for a private message, shortened and HTML-escaped; the table's
    number where the table never knew the title."""
    return html.escape(short_name(title, 24)) if title else f"#{table_id}"


def forced_note(table: Table, lang: str, seat: Seat | None = None) -> str:
    """The note that a declaration was made for a declarer who had no choice: for him
    (``seat`` is his) or for everybody else."""
    forced = table.ui.forced
    assert forced is not None
    what = action_text(forced.action, lang)
    if seat == forced.seat:
        return t(lang, "hand.forced", what=what)
    return t(lang, "declare.forced", name=name(table, forced.seat), what=what)


def votes_text(table: Table, need: int) -> str:
    """The group's message of the running vote to stop: who voted, of how many needed."""
    voters = ", ".join(name(table, s) for s in sorted(table.stop_votes))
    return t(
        table.settings.lang, "stop.votes", names=voters, votes=len(table.stop_votes), need=need
    )


def ended_text(table: Table) -> str:
    """How the game ended, for the group."""
    finished = table.game is not None and table.game.finished
    return t(table.settings.lang, "end.finished" if finished else "end.stopped")
