"""Texts for Telegram (HTML): the lobby, the table (public view only), each hand (seat view).

The table message is built only from :func:`public_view`, a hand message only from
:func:`seat_view`, so no hidden card can reach the wrong chat by mistake.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from fractions import Fraction

from bot.preferans.actions import Whist
from bot.preferans.cards import Card, Seat, Suit, sort_hand
from bot.preferans.contracts import Contract
from bot.preferans.deal import Phase, TrickCard
from bot.preferans.game import FinishedDeal, Game
from bot.preferans.outcome import DealKind, WhistAnswer
from bot.preferans.views import PublicView, SeatView
from bot.render.i18n import t
from bot.render.sheet_text import fmt_number, sheet_table, short_name
from bot.tables import Table, TableSettings

__all__ = [
    "SUITS",
    "suit",
    "card",
    "cards",
    "contract",
    "hand_lines",
    "lobby_text",
    "table_text",
    "hand_text",
    "result_text",
    "settlement_text",
    "pulka_text",
    "rules_text",
    "name",
    "turn_label",
    "option_value",
]

SUITS = ("♠️", "♣️", "♦️", "♥️")
"""Emoji suits: on phones ♦️ ♥️ are red and ♠️ ♣️ black."""

NAME_WIDTH = 16


def suit(s: Suit) -> str:
    return SUITS[int(s)]


def card(c: Card) -> str:
    """``10♥️``."""
    return f"{c.rank.label}{suit(c.suit)}"


def cards(cs: Iterable[Card]) -> str:
    return " ".join(card(c) for c in cs)


def contract(c: Contract | None, lang: str) -> str:
    if c is None:
        return t(lang, "pass")
    if c.misere:
        return t(lang, "misere")
    # A narrow no-break space tells a contract (7 ♥️) from a card (7♥️).
    return f"{c.level}\u202f{t(lang, 'nt') if c.trump is None else suit(c.trump)}"


def hand_lines(hand: Iterable[Card]) -> list[str]:
    """One line per suit, high to low: ``♠️ A K 10``."""
    by_suit: dict[Suit, list[Card]] = {}
    for c in sort_hand(hand):
        by_suit.setdefault(c.suit, []).append(c)
    return [f"{suit(s)} {' '.join(c.rank.label for c in by_suit[s])}" for s in Suit if s in by_suit]


def name(table: Table, seat: Seat | int) -> str:
    """The seat's player, shortened and HTML-escaped."""
    player = table.seats[int(seat)] if int(seat) < len(table.seats) else None
    raw = player.name if player is not None else f"#{int(seat) + 1}"
    return html.escape(short_name(raw, NAME_WIDTH))


def convention_title(settings: TableSettings, lang: str) -> str:
    conv = settings.rules().convention
    return conv.title_ru if lang == "ru" else conv.title_en


def turn_label(seconds: int, lang: str) -> str:
    return t(lang, "turn.off") if not seconds else t(lang, "turn.sec", n=seconds)


# ---------------------------------------------------------------------- lobby


def option_value(settings: TableSettings, key: str, lang: str) -> str:
    """How a setting's current value reads on its button."""
    if key == "players":
        return str(settings.players)
    if key == "convention":
        return convention_title(settings, lang)
    if key == "pulka":
        return str(settings.pulka)
    if key == "turn_time":
        return turn_label(settings.turn_time, lang)
    if key == "lang":
        return settings.lang.upper()
    if key == "sheet":
        return t(lang, f"set.sheet.{settings.sheet}")
    value = settings.option(key)
    if key == "ten_checked":
        return t(lang, "set.ten.yes" if value else "set.ten.no")
    if key in ("jumps", "stalingrad", "half_whist"):
        return t(lang, "yes" if value else "no")
    if key == "whist_type":
        return t(lang, f"set.{value}")
    if key == "raspasy_exit":
        return "-".join(str(v) for v in value)
    raise KeyError(key)


def options_summary(settings: TableSettings, lang: str) -> str:
    """The options that differ from the usual table, in a few words (empty if none)."""
    rules = settings.rules()
    parts = []
    if rules.jumps:
        parts.append(t(lang, "opt.jumps"))
    if rules.ten_checked:
        parts.append(t(lang, "opt.ten_checked"))
    if rules.stalingrad:
        parts.append(t(lang, "opt.stalingrad"))
    if not rules.half_whist:
        parts.append(t(lang, "opt.no_half"))
    if "whist_type" in settings.options:
        parts.append(t(lang, "set.whist_type", v=t(lang, f"set.{rules.whist_type}")))
    if rules.raspasy_exit != (6,):
        parts.append(t(lang, "opt.exit", v="-".join(str(v) for v in rules.raspasy_exit)))
    return ", ".join(parts)


def lobby_text(table: Table, *, closed_key: str | None = None) -> str:
    """The lobby message in the group."""
    s = table.settings
    lang = s.lang
    lines = [
        t(lang, "lobby.title"),
        t(
            lang,
            "lobby.conf",
            convention=convention_title(s, lang),
            pulka=s.pulka,
            players=s.players,
            turn=turn_label(s.turn_time, lang),
        ),
    ]
    opts = options_summary(s, lang)
    if opts:
        lines.append(t(lang, "set.options", v=opts))
    lines.append("")
    lines.append(t(lang, "lobby.seats"))
    for i, p in enumerate(table.seats):
        who = name(table, i) if p is not None else f"<i>{t(lang, 'lobby.free')}</i>"
        lines.append(f"{i + 1}. {who}")
    lines.append("")
    lines.append(t(lang, closed_key) if closed_key else t(lang, "lobby.hint"))
    return "\n".join(lines)


# ---------------------------------------------------------------------- a deal


def _auction_line(table: Table, pv: PublicView, lang: str) -> str | None:
    if not pv.auction:
        return None
    parts = []
    high: Contract | None = None
    for b in pv.auction:
        if b.contract is None:
            what = t(lang, "pass")
        elif high is not None and b.contract == high:
            what = f"{t(lang, 'here')} {contract(b.contract, lang)}"
        else:
            what = contract(b.contract, lang)
        if b.contract is not None:
            high = b.contract
        parts.append(f"{name(table, b.seat)} {what}")
    return f"{t(lang, 'deal.auction')}: " + " · ".join(parts)


def _whist_line(table: Table, pv: PublicView, lang: str) -> str | None:
    if not pv.whists:
        return None
    parts = []
    answered: dict[Seat, WhistAnswer] = {}
    for w in pv.whists:
        parts.append(f"{name(table, w.seat)} {_whist_word(w, answered, lang)}")
        answered[w.seat] = w.answer
    line = f"{t(lang, 'deal.whists')}: " + " · ".join(parts)
    if pv.defence is not None and pv.phase is not Phase.WHIST:
        whisters = {w.seat for w in pv.whists if w.answer is WhistAnswer.WHIST}
        if len(whisters) == 1:
            line += "\n" + t(lang, "deal.defence", v=t(lang, f"defence.{pv.defence.value}"))
    return line


def _whist_word(w: Whist, answered: dict[Seat, WhistAnswer], lang: str) -> str:
    if w.seat in answered:  # the first defender answers the half-whist again
        return t(lang, "whist.return" if w.answer is WhistAnswer.WHIST else "whist.let")
    return t(lang, f"whist.{w.answer.value}")


def _trick_cards(table: Table, tcs: Iterable[TrickCard], lang: str) -> str:
    out = []
    for tc in tcs:
        who = (
            t(lang, "deal.talon_card") if tc.seat is None or tc.from_talon else name(table, tc.seat)
        )
        out.append(f"{who} {card(tc.card)}")
    return " · ".join(out)


def _tricks_line(table: Table, pv: PublicView, lang: str) -> str:
    parts = []
    for s in range(pv.players):
        if pv.players == 4 and s == pv.dealer and pv.tricks[s] == 0:
            continue
        parts.append(f"{name(table, s)} {pv.tricks[s]}")
    return f"{t(lang, 'deal.tricks')}: " + " · ".join(parts)


def actor_line(table: Table, pv: PublicView, lang: str) -> str | None:
    """Who acts now, for everyone."""
    if pv.actor is None:
        return None
    who = name(table, pv.actor)
    if pv.phase is Phase.PLAY and pv.to_act is not None and pv.to_act != pv.actor:
        return t(lang, "act.play_for", name=who, other=name(table, pv.to_act))
    return t(lang, f"act.{pv.phase.value}", name=who)


def public_block(
    table: Table, pv: PublicView, lang: str, *, skip_open: frozenset[int] = frozenset()
) -> list[str]:
    """What everybody sees of the deal: auction, talon, contract, whists, play."""
    lines: list[str] = []
    seats = []
    for s in range(pv.players):
        tag = ""
        if s == pv.dealer:
            tag = f" ({t(lang, 'deal.sits_out' if pv.players == 4 else 'deal.dealer')})"
        marker = "👉" if pv.actor is not None and s == pv.actor else "▫️"
        seats.append(f"{marker} {name(table, s)}{tag}")
    lines.append("\n".join(seats))
    auction = _auction_line(table, pv, lang)
    if auction:
        lines.append(auction)
    if pv.kind is DealKind.ALL_PASS:
        lines.append(f"<b>{t(lang, 'deal.allpass')}</b>")
    if pv.talon:
        lines.append(f"{t(lang, 'deal.talon')}: {cards(pv.talon)}")
    if pv.declarer is not None:
        if pv.contract is not None:
            lines.append(
                "<b>"
                + t(
                    lang,
                    "deal.contract",
                    contract=contract(pv.contract, lang),
                    name=name(table, pv.declarer),
                )
                + "</b>"
            )
        elif pv.bid is not None:
            lines.append(
                t(lang, "deal.bid", contract=contract(pv.bid, lang), name=name(table, pv.declarer))
            )
    whists = _whist_line(table, pv, lang)
    if whists:
        lines.append(whists)
    for seat, hand in pv.open_hands.items():
        if int(seat) in skip_open or not hand:
            continue
        lines.append(
            t(lang, "deal.open_hand", name=name(table, seat)) + "\n" + "\n".join(hand_lines(hand))
        )
    if pv.phase is Phase.PLAY or pv.phase is Phase.DONE:
        if pv.current_trick:
            lines.append(
                f"{t(lang, 'deal.trick', n=pv.trick_number)}: "
                + _trick_cards(table, pv.current_trick, lang)
            )
        if pv.last_trick is not None and pv.last_trick.winner is not None:
            lines.append(
                f"{t(lang, 'deal.last_trick')}: "
                + _trick_cards(table, pv.last_trick.cards, lang)
                + " → "
                + t(lang, "deal.took", name=name(table, pv.last_trick.winner))
            )
        if any(pv.tricks):
            lines.append(_tricks_line(table, pv, lang))
    return lines


def table_text(table: Table, pv: PublicView, deal_no: int, *, note: str | None = None) -> str:
    """The group's table message of a deal: public information only."""
    lang = table.settings.lang
    lines = [
        t(
            lang,
            "deal.title",
            n=deal_no,
            convention=convention_title(table.settings, lang),
            pulka=table.settings.pulka,
        )
    ]
    lines += public_block(table, pv, lang)
    act = actor_line(table, pv, lang)
    if act:
        lines.append(f"⏳ {act}" if table.settings.turn_time else act)
    elif pv.phase is Phase.DONE:
        lines.append(t(lang, "deal.done"))
    if note:
        lines.append(note)
    return "\n\n".join(lines)


_PROMPTS = {
    Phase.AUCTION: "hand.bid",
    Phase.DISCARD: "hand.discard_prompt",
    Phase.CONTRACT: "hand.contract_prompt",
    Phase.WHIST: "hand.whist_prompt",
    Phase.DEFENCE: "hand.defence_prompt",
    Phase.PLAY: "hand.play_prompt",
}


def hand_text(
    table: Table, sv: SeatView, deal_no: int, lang: str, *, note: str | None = None
) -> str:
    """A player's private hand message: his cards, the public table and his prompt."""
    pv = sv.public
    title = html.escape(short_name(table.title or "", 24)) if table.title else f"#{table.id}"
    lines = [t(lang, "hand.title", n=deal_no, title=title)]
    if sv.hand:
        lines.append(t(lang, "hand.yours") + "\n<b>" + "\n".join(hand_lines(sv.hand)) + "</b>")
    elif pv.players == 4 and sv.seat == pv.dealer and pv.phase is not Phase.DONE:
        lines.append(t(lang, "hand.none"))
    if sv.discard:
        lines.append(t(lang, "hand.discard", cards=cards(sv.discard)))
    for other, hand in sv.controlled.items():
        lines.append(
            t(lang, "hand.controlled", name=name(table, other)) + "\n" + "\n".join(hand_lines(hand))
        )
    shown_above = frozenset({int(sv.seat), *(int(s) for s in sv.controlled)})
    lines += public_block(table, pv, lang, skip_open=shown_above)
    if sv.my_turn:
        if pv.phase is Phase.PLAY and pv.to_act is not None and pv.to_act != sv.seat:
            lines.append(t(lang, "hand.play_for", name=name(table, pv.to_act)))
        else:
            lines.append(t(lang, _PROMPTS.get(pv.phase, "hand.your_turn")))
        if table.settings.turn_time:
            lines.append(t(lang, "act.deadline", n=table.settings.turn_time))
    else:
        act = actor_line(table, pv, lang)
        if act:
            lines.append(f"⏳ {act}")
        elif pv.phase is Phase.DONE:
            lines.append(t(lang, "deal.done"))
    if note:
        lines.append(note)
    return "\n\n".join(lines)


# ---------------------------------------------------------------------- results


def result_text(table: Table, finished: FinishedDeal, deal_no: int, lang: str) -> str:
    """A short line about a finished deal."""
    o = finished.outcome
    if o.kind is DealKind.ALL_PASS:
        tricks = o.tricks or ()
        parts = [f"{name(table, s)} {tricks[s]}" for s in o.active if tricks]
        return t(lang, "res.allpass", n=deal_no, tricks=", ".join(parts))
    assert o.declarer is not None and o.contract is not None

    who = name(table, o.declarer)
    if o.kind is DealKind.MISERE:
        k = o.tricks[o.declarer] if o.tricks else 0
        key = "res.misere_made" if k == 0 else "res.misere_fail"
        return t(lang, key, n=deal_no, name=who, k=k)
    c = contract(o.contract, lang)
    if o.tricks is None:
        if any(a is WhistAnswer.HALF for a in o.whists.values()):
            half = next(s for s, a in o.whists.items() if a is WhistAnswer.HALF)
            why = t(lang, "res.why.half", who=name(table, half))
        elif not o.whists:
            why = t(lang, "res.why.ten")
        else:
            why = t(lang, "res.why.pass")
        return t(lang, "res.unplayed", n=deal_no, name=who, contract=c, why=why)
    k = o.tricks[o.declarer]
    if k >= o.contract.level:
        return t(lang, "res.made", n=deal_no, name=who, contract=c, k=k)
    return t(lang, "res.failed", n=deal_no, name=who, contract=c, k=k, u=o.contract.level - k)


def _names(table: Table, game: Game) -> list[str]:
    return [p.name if p is not None else game.names[i] for i, p in enumerate(table.seats)][
        : game.players
    ]


def pulka_text(table: Table, game: Game, lang: str) -> str:
    """The running sheet as a monospace table."""
    rules = game.rules
    conv = rules.convention
    head = t(
        lang,
        "sheet.title",
        convention=conv.title_ru if lang == "ru" else conv.title_en,
        size=rules.pulka,
        deals=len(game.finished_deals),
    )
    body = sheet_table(_names(table, game), game.sheet, lang, game.settlement())
    return f"{html.escape(head)}\n<pre>{html.escape(body)}</pre>"


def settlement_text(table: Table, game: Game, lang: str) -> str:
    """The final settlement, winner first."""
    settlement = game.settlement()
    assert settlement is not None
    names = _names(table, game)
    key = "res.over" if game.finished else "res.stopped"
    order = sorted(range(game.players), key=lambda i: (-settlement[i], i))
    lines = [t(lang, key)]
    medals = ["🥇", "🥈", "🥉", "4."]
    for place, i in enumerate(order):
        v: Fraction = settlement[i]
        sign = "+" if v > 0 else ""
        lines.append(
            f"{medals[place]} {html.escape(short_name(names[i], NAME_WIDTH))}: "
            f"<b>{sign}{fmt_number(v)}</b>"
        )
    return "\n".join(lines)


def rules_text(settings: TableSettings, lang: str) -> str:
    """The convention's scoring in a few lines."""
    lines = [
        t(lang, "rules.head", convention=convention_title(settings, lang), pulka=settings.pulka),
        t(lang, "rules.prices"),
        t(lang, f"rules.{settings.convention}"),
    ]
    opts = options_summary(settings, lang)
    if opts:
        lines.append(t(lang, "rules.options", v=opts))
    return "\n".join(lines)


def action_text(action: object, lang: str, *, private: bool = False) -> str:
    """A move in a few words; a discard names its cards only in the declarer's own chat."""
    from bot.preferans.actions import Bid, ChooseDefence, Declare, Discard, Play, Whist

    if isinstance(action, Bid):
        return contract(action.contract, lang)
    if isinstance(action, Declare):
        return contract(action.contract, lang)
    if isinstance(action, Whist):
        return t(lang, f"whist.{action.answer.value}")
    if isinstance(action, ChooseDefence):
        return t(lang, f"defence.{action.defence.value}")
    if isinstance(action, Play):
        return card(action.card)
    if isinstance(action, Discard):
        return t(lang, "act.discarded", cards=cards(action.cards) if private else "🂠 🂠")
    return str(action)
