"""Inline keyboards: the lobby, its settings, and exactly the legal actions of a seat."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.core.model import Table
from bot.preferans.actions import Action, Bid, ChooseDefence, Declare, Discard, Play, Whist
from bot.preferans.cards import Card, Seat, Suit, sort_hand
from bot.preferans.outcome import WhistAnswer
from bot.preferans.views import SeatView
from bot.render.i18n import t

from .callbacks import action_code, encode
from .lobby import option_value
from .text import card, cards, contract

__all__ = [
    "lobby_keyboard",
    "settings_keyboard",
    "actions_keyboard",
    "stop_keyboard",
    "take_keyboard",
    "take_back_keyboard",
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
}
_CODE_OF = {v: k for k, v in SETTING_CODES.items()}


def _btn(table: Table, text: str, code: str, move: int | None = None) -> InlineKeyboardButton:
    return InlineKeyboardButton(
        text, callback_data=encode(table.id, table.move if move is None else move, code)
    )


def lobby_keyboard(table: Table) -> InlineKeyboardMarkup:
    lang = table.settings.lang
    return InlineKeyboardMarkup(
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
    if any(p is not None and p.user_id < 0 for p in table.seats):  # bot.core.robots.is_robot
        row.append(_btn(table, t(lang, "btn.robot_remove"), "Lr", 0))
    return row


def settings_keyboard(table: Table) -> InlineKeyboardMarkup:
    s = table.settings
    lang = s.lang

    def b(key: str) -> InlineKeyboardButton:
        label_key = "set." + key
        value = option_value(s, key, lang)
        text = value if key == "convention" else t(lang, label_key, v=value)
        return _btn(table, text, "Lx" + _CODE_OF[key], 0)

    rows = [
        [b("players"), b("pulka")],
        [b("convention"), b("turn_time")],
        [b("jumps"), b("ten_checked")],
        [b("stalingrad"), b("half_whist")],
        [b("whist_type"), b("raspasy_exit")],
        [b("lang"), b("sheet")],
        [b("robot_pace"), b("ranks")],
        [_btn(table, t(lang, "btn.back"), "Lb", 0)],
    ]
    return InlineKeyboardMarkup(rows)


def stop_keyboard(table: Table) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[_btn(table, t(table.settings.lang, "btn.vote_stop"), "V", 0)]])


def take_keyboard(table: Table, seat: Seat) -> InlineKeyboardMarkup:
    """Take over the seat of a player who kept timing out, or give it to a computer."""
    lang = table.settings.lang
    take = _btn(table, t(lang, "btn.take", seat=seat + 1), f"R{seat}", 0)
    robot = _btn(table, t(lang, "btn.robot_replace"), f"Q{seat}", 0)
    return InlineKeyboardMarkup([[take], [robot]])


def take_back_keyboard(table: Table, seat: Seat) -> InlineKeyboardMarkup:
    """Take a computer player's seat (back)."""
    lang = table.settings.lang
    return InlineKeyboardMarkup(
        [[_btn(table, t(lang, "btn.take_back", seat=seat + 1), f"R{seat}", 0)]]
    )


def _rows_by_suit(
    buttons: list[tuple[Card, InlineKeyboardButton]],
) -> list[list[InlineKeyboardButton]]:
    rows: dict[Suit, list[InlineKeyboardButton]] = {}
    for c, button in buttons:
        rows.setdefault(c.suit, []).append(button)
    return [rows[s] for s in Suit if s in rows]


def actions_keyboard(
    table: Table, sv: SeatView, lang: str, *, ranks: str = "latin"
) -> InlineKeyboardMarkup | None:
    """Buttons for exactly ``sv.legal`` (none when it is not this seat's turn); card ranks
    written as the player wants (``ranks``)."""
    legal: tuple[Action, ...] = sv.legal
    if not legal:
        return None
    first = legal[0]
    if isinstance(first, Discard):
        return _discard_keyboard(table, sv, lang, ranks)
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
        returning = any(w.seat == sv.seat for w in sv.public.whists)
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
    return InlineKeyboardMarkup(rows)


def _discard_keyboard(table: Table, sv: SeatView, lang: str, ranks: str) -> InlineKeyboardMarkup:
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
    return InlineKeyboardMarkup(rows)
