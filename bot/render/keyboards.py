"""Inline keyboards: the lobby, its settings, and exactly the legal actions of a seat."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from bot.core.model import Table, TableSettings
from bot.core.modes import RankStyle
from bot.preferans.actions import (
    Accept,
    Action,
    Bid,
    ChooseDefence,
    Declare,
    Discard,
    Offer,
    Play,
    Whist,
)
from bot.preferans.cards import Card, Suit, sort_hand
from bot.preferans.offer_marks import offer_buttons
from bot.preferans.outcome import WhistAnswer
from bot.preferans.seats import Seat
from bot.preferans.views import SeatView
from bot.render.i18n import t

from .callbacks import action_code, encode
from .lobby import option_value
from .offers import offers_open, sure_offers
from .table import answers_half_whist
from .text import card, cards, contract

__all__ = [
    "lobby_keyboard",
    "settings_keyboard",
    "setting_label",
    "actions_keyboard",
    "stop_keyboard",
    "take_keyboard",
    "take_back_keyboard",
    "offer_choices",
    "analysis_keyboard",
    "table_link",
    "SETTING_CODES",
]

# Lobby setting buttons: code letter -> setting key.
SETTING_CODES = {
    "p": "players",
    "c": "convention",
    "u": "pulka",
    "t": "turn_time",
    "j": "jumps",
    "x": "ten_checked",
    "s": "stalingrad",
    "h": "half_whist",
    "w": "whist_type",
    "e": "raspasy_exit",
    "l": "lang",
    "v": "sheet",
    "r": "robot_pace",
    "k": "ranks",
    "n": "robot_level",
    "i": "hints",
}
_CODE_OF = {v: k for k, v in SETTING_CODES.items()}


def _markup(rows: list[list[InlineKeyboardButton]]) -> InlineKeyboardMarkup:
    """A keyboard of the non-empty ``rows``: an empty row is refused or drawn as a gap."""
    return InlineKeyboardMarkup([row for row in rows if row])


def _btn(table: Table, text: str, code: str, move: int | None = None) -> InlineKeyboardButton:
    return InlineKeyboardButton(
        text, callback_data=encode(table.id, table.move if move is None else move, code)
    )


def lobby_keyboard(table: Table) -> InlineKeyboardMarkup:
    lang = table.settings.lang
    return _markup(
        [
            [_btn(table, t(lang, "btn.sit"), "Ls", 0), _btn(table, t(lang, "btn.stand"), "Lu", 0)],
            [_btn(table, t(lang, "btn.start"), "Lg", 0)],
            _robot_row(table),
            [
                _btn(table, t(lang, "btn.settings"), "Lo", 0),
                _btn(table, t(lang, "btn.cancel"), "Lc", 0),
            ],
        ]
    )


def _robot_row(table: Table) -> list[InlineKeyboardButton]:
    """Add a computer player to an empty seat, take one away (the owner's choice)."""
    lang = table.settings.lang
    row = []
    if not table.full:
        row.append(_btn(table, t(lang, "btn.robot_add"), "La", 0))
    if any(p is not None and p.is_robot for p in table.seats):
        row.append(_btn(table, t(lang, "btn.robot_remove"), "Lr", 0))
    return row


def setting_label(settings: TableSettings, key: str) -> str:
    """A setting's button: its name and value (the convention: its name only)."""
    value = option_value(settings, key, settings.lang)
    return value if key == "convention" else t(settings.lang, "set." + key, v=value)


def settings_keyboard(table: Table) -> InlineKeyboardMarkup:
    s = table.settings
    lang = s.lang

    def b(key: str) -> InlineKeyboardButton:
        return _btn(table, setting_label(s, key), "Lx" + _CODE_OF[key], 0)

    rows = [
        [b("players"), b("pulka")],
        [b("convention"), b("turn_time")],
        [b("jumps"), b("ten_checked")],
        [b("stalingrad"), b("half_whist")],
        [b("whist_type"), b("raspasy_exit")],
        [b("lang"), b("sheet")],
        [b("robot_pace"), b("ranks")],
        [b("robot_level"), b("hints")],
        [_btn(table, t(lang, "btn.back"), "Lb", 0)],
    ]
    return _markup(rows)


def stop_keyboard(table: Table) -> InlineKeyboardMarkup:
    return _markup([[_btn(table, t(table.settings.lang, "btn.vote_stop"), "V", 0)]])


def take_keyboard(table: Table, seat: Seat) -> InlineKeyboardMarkup:
    """Take over the seat of a player who kept timing out, or give it to a computer."""
    lang = table.settings.lang
    take = _btn(table, t(lang, "btn.take", seat=seat + 1), f"R{seat}", 0)
    robot = _btn(table, t(lang, "btn.robot_replace"), f"Q{seat}", 0)
    return _markup([[take], [robot]])


def take_back_keyboard(table: Table, seat: Seat) -> InlineKeyboardMarkup:
    """Take a computer player's seat (back)."""
    lang = table.settings.lang
    return _markup([[_btn(table, t(lang, "btn.take_back", seat=seat + 1), f"R{seat}", 0)]])


def analysis_keyboard(table: Table, deal_no: int, seat: Seat, lang: str) -> InlineKeyboardMarkup:
    """The «🔍» button under ``seat``'s review of deal ``deal_no``: its analysis, on request
    (the deal's number in place of the move: the review stays valid while play goes on)."""
    return _markup([[_btn(table, t(lang, "btn.analysis"), f"A{int(seat)}", deal_no)]])


def table_link(
    markup: InlineKeyboardMarkup | None, lang: str, url: str, *, web_app: bool
) -> InlineKeyboardMarkup:
    """``markup`` with the «🃏 Стол» button below: the Mini App itself (``web_app``: in a
    private chat) or a link to the bot's private chat that opens it (Telegram refuses
    ``web_app`` buttons in groups)."""
    text = t(lang, "webapp.button")
    if web_app:
        button = InlineKeyboardButton(text, web_app=WebAppInfo(url))
    else:
        button = InlineKeyboardButton(text, url=url)
    rows = list(markup.inline_keyboard) if markup is not None else []
    return InlineKeyboardMarkup([*rows, [button]])


def _rows_by_suit(
    buttons: list[tuple[Card, InlineKeyboardButton]],
) -> list[list[InlineKeyboardButton]]:
    rows: dict[Suit, list[InlineKeyboardButton]] = {}
    for c, button in buttons:
        rows.setdefault(c.suit, []).append(button)
    return [rows[s] for s in Suit if s in rows]


def actions_keyboard(
    table: Table, sv: SeatView, lang: str, *, ranks: RankStyle = RankStyle.LATIN
) -> InlineKeyboardMarkup | None:
    """Buttons for exactly ``sv.legal`` (none when it is not this seat's turn); card ranks
    written as the player wants (``ranks``)."""
    legal: tuple[Action, ...] = sv.legal
    if not legal:
        return None
    first = legal[0]
    if isinstance(first, Discard):
        return _discard_keyboard(table, sv, lang, ranks)
    rows = _action_rows(table, sv, lang, ranks)
    return _markup([*rows, _hint_row(table, lang)])


def _hint_row(table: Table, lang: str) -> list[InlineKeyboardButton]:
    """The «💡» button of a table that gives hints (only a person's hand message has
    buttons, and only on his turn)."""
    return [_btn(table, t(lang, "btn.hint"), "H")] if table.settings.hints else []


def _action_rows(
    table: Table, sv: SeatView, lang: str, ranks: RankStyle
) -> list[list[InlineKeyboardButton]]:
    """The rows of the buttons for ``sv.legal`` (not a discard)."""
    legal: tuple[Action, ...] = sv.legal
    first = legal[0]
    rows: list[list[InlineKeyboardButton]] = []
    if isinstance(first, Bid):
        high = sv.public.highest_bid
        by_level: dict[int, list[InlineKeyboardButton]] = {}
        tail: list[InlineKeyboardButton] = []
        for a in legal:
            assert isinstance(a, Bid)
            code = action_code(a)
            if a.contract is None:
                tail.append(_btn(table, t(lang, "btn.pass"), code))
            elif a.contract.misere:
                tail.insert(0, _btn(table, t(lang, "btn.misere"), code))
            else:
                label = contract(a.contract, lang)
                if high is not None and a.contract == high:
                    label = t(lang, "btn.here", c=label)
                by_level.setdefault(a.contract.level, []).append(_btn(table, label, code))
        rows = [by_level[k] for k in sorted(by_level)] + [tail]
    elif isinstance(first, Declare):
        by_level = {}
        for a in legal:
            assert isinstance(a, Declare)
            lvl = a.contract.level
            by_level.setdefault(lvl, []).append(
                _btn(table, contract(a.contract, lang), action_code(a))
            )
        rows = [by_level[k] for k in sorted(by_level)]
    elif isinstance(first, Whist):
        returning = answers_half_whist(sv.public, sv.seat)
        row = []
        for a in legal:
            assert isinstance(a, Whist)
            if a.answer is WhistAnswer.WHIST:
                label = t(lang, "btn.return" if returning else "btn.whist")
            elif a.answer is WhistAnswer.PASS:
                label = t(lang, "btn.let" if returning else "btn.wpass")
            else:
                label = t(lang, "btn.half")
            row.append(_btn(table, label, action_code(a)))
        rows = [row]
    elif isinstance(first, ChooseDefence):
        rows = [
            [
                _btn(table, t(lang, f"btn.{a.defence.value}"), action_code(a))
                for a in legal
                if isinstance(a, ChooseDefence)
            ]
        ]
    elif isinstance(first, Play):
        rows = _rows_by_suit(
            [
                (a.card, _btn(table, card(a.card, ranks=ranks), action_code(a)))
                for a in legal
                if isinstance(a, Play)
            ]
        )
        if offer_choices(sv):
            if offers_open(table, sv.seat):  # the offers instead of the cards, until «back»
                back = _btn(table, t(lang, "btn.offers_back"), "Ob")
                return [*_offer_rows(table, sv, lang), [back]]
            rows.append([_btn(table, t(lang, "btn.offers"), "Oo")])
    elif isinstance(first, Accept):
        sure = "✅ " if sv.public.offer in sure_offers(table, sv.seat) else ""
        yes, no = Accept(first.seat, True), Accept(first.seat, False)
        rows = [
            [
                _btn(table, sure + t(lang, "btn.accept"), action_code(yes)),
                _btn(table, t(lang, "btn.refuse"), action_code(no)),
            ]
        ]
    return rows


def offer_choices(sv: SeatView) -> list[tuple[str, Offer]]:
    """The offers worth a button, with their labels' keys (the engine's
    :func:`~bot.preferans.offer_marks.offer_buttons`)."""
    return [("btn.offer_" + kind, o) for kind, o in offer_buttons(sv)]


def _offer_rows(table: Table, sv: SeatView, lang: str) -> list[list[InlineKeyboardButton]]:
    """Offer buttons below the cards, two to a row (long labels on a narrow phone)."""
    sure = sure_offers(table, sv.seat)
    buttons = [
        _btn(table, ("✅ " if o in sure else "") + t(lang, key), action_code(o))
        for key, o in offer_choices(sv)
    ]
    return [buttons[i : i + 2] for i in range(0, len(buttons), 2)]


def _discard_keyboard(
    table: Table, sv: SeatView, lang: str, ranks: RankStyle
) -> InlineKeyboardMarkup:
    pickable: set[Card] = set()
    for a in sv.legal:
        if isinstance(a, Discard):
            pickable.update(a.cards)
    picked = table.ui.discard_pick.get(sv.seat, ())
    buttons = []
    for c in sort_hand(pickable):
        label = ("✅" if c in picked else "") + card(c, ranks=ranks)
        # "t" marks, "u" unmarks: pressing the same button twice never undoes the first
        buttons.append((c, _btn(table, label, f"{'u' if c in picked else 't'}{c.code}")))
    rows = _rows_by_suit(buttons)
    if len(picked) == 2:
        picks = cards(sort_hand(picked), ranks=ranks)
        rows.append([_btn(table, t(lang, "btn.discard", cards=picks), "k")])
    return _markup([*rows, _hint_row(table, lang)])
