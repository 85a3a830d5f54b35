"""The deal: the group's table message (public view only) and each hand (seat view only).

The table message is built only from :func:`public_view`, a hand message only from
:func:`seat_view` (and, until the player's next move, the cards his view showed with an
offer just refused: ``TableUi.offer_shown``), so no hidden card can reach the wrong chat
by mistake.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Iterable

from bot.core.model import Table
from bot.core.modes import RankStyle
from bot.preferans.actions import Whist
from bot.preferans.cards import parse_card
from bot.preferans.contracts import Contract
from bot.preferans.deal import Deal, Phase, TrickCard
from bot.preferans.outcome import DealKind, WhistAnswer
from bot.preferans.seats import Seat, sits_out
from bot.preferans.views import PublicView, SeatView
from bot.render.i18n import t

from .offers import offer_lines, sure_offers
from .text import card, cards, contract, convention_title, hand_lines, name, title_of

__all__ = [
    "actor_line",
    "answers_half_whist",
    "public_block",
    "table_text",
    "hand_text",
    "prompt_line",
    "time_left",
    "review_text",
]


def _auction_line(table: Table, pv: PublicView, lang: str) -> str | None:
    if not pv.auction:
        return None
    parts = []
    high: Contract | None = None
    for b in pv.auction:
        if b.contract is None:
            what = t(lang, "pass")
        elif high is not None and b.contract == high:
            # "здесь 7♠" in Russian; in English the word of Skat and preferans: "holds 7♠"
            what = t(lang, "bid.here", c=contract(b.contract, lang))
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


def _trick_cards(table: Table, tcs: Iterable[TrickCard], lang: str, ranks: RankStyle) -> str:
    out = []
    for tc in tcs:
        who = (
            t(lang, "deal.talon_card") if tc.seat is None or tc.from_talon else name(table, tc.seat)
        )
        out.append(f"{who} {card(tc.card, ranks=ranks)}")
    return " · ".join(out)


def _tricks_line(table: Table, pv: PublicView, lang: str) -> str:
    parts = []
    for s in map(Seat, range(pv.players)):
        if sits_out(pv.players, pv.dealer, s) and pv.tricks[s] == 0:
            continue
        parts.append(f"{name(table, s)} {pv.tricks[s]}")
    return f"{t(lang, 'deal.tricks')}: " + " · ".join(parts)


def actor_line(table: Table, pv: PublicView, lang: str) -> str | None:
    """Who acts now, for everyone."""
    if pv.actor is None:
        return None
    who = name(table, pv.actor)
    if pv.offer is not None:
        return t(lang, "act.offer", name=who)
    if pv.phase is Phase.PLAY and pv.to_act is not None and pv.to_act != pv.actor:
        return t(lang, "act.play_for", name=who, other=name(table, pv.to_act))
    if answers_half_whist(pv, pv.actor):
        return t(lang, "act.half", name=who)
    return t(lang, f"act.{pv.phase.value}", name=who)


def answers_half_whist(pv: PublicView, seat: Seat) -> bool:
    """Whether ``seat`` is to answer the partner's half-whist: return the whist or leave
    the half-whist (Кодекс 3.8.8), not whist or pass."""
    return pv.phase is Phase.WHIST and any(w.seat == seat for w in pv.whists)


BLOCKS_KEPT = 256
"""Public blocks kept (:func:`public_block`): a move renders the same block for the table
message and each hand edited after it, moments apart."""

_blocks: OrderedDict[tuple[object, ...], tuple[PublicView, list[str]]] = OrderedDict()


def public_block(
    table: Table,
    pv: PublicView,
    lang: str,
    *,
    skip_open: frozenset[int] = frozenset(),
    ranks: RankStyle = RankStyle.LATIN,
    drawn: bool = False,
) -> list[str]:
    """What everybody sees of the deal: auction, talon, contract, whists, play. ``drawn``:
    leave out what a drawn table shows by itself (the talon, the trick on the table, the
    tricks each seat took).

    Kept for the last :data:`BLOCKS_KEPT` views: a move's table message and the hands
    edited after it show the same block (one view per state of a deal, shared:
    :mod:`bot.core.viewcache`). The key is the view's ``id`` (the view is kept with the
    block, so that ``id`` names no other view meanwhile) and all else the block reads: the
    players' names, the offer just refused.
    """
    # a hand message skips its own seat's open hand: the same block when none is open
    skip_open = frozenset(s for s in skip_open if pv.open_hands.get(Seat(s)))
    key = (
        id(pv),
        lang,
        skip_open,
        ranks,
        drawn,
        tuple(p.name if p is not None else None for p in table.seats),
        table.ui.offer_note,
    )
    kept = _blocks.get(key)
    if kept is None:
        kept = _blocks[key] = (pv, _public_block(table, pv, lang, skip_open, ranks, drawn))
        if len(_blocks) > BLOCKS_KEPT:
            _blocks.popitem(last=False)
    else:
        _blocks.move_to_end(key)
    return list(kept[1])


def _public_block(
    table: Table,
    pv: PublicView,
    lang: str,
    skip_open: frozenset[int],
    ranks: RankStyle,
    drawn: bool,
) -> list[str]:
    lines: list[str] = []
    seats = []
    for s in map(Seat, range(pv.players)):
        tag = ""
        if s == pv.dealer:
            out = sits_out(pv.players, pv.dealer, s)
            tag = f" ({t(lang, 'deal.sits_out' if out else 'deal.dealer')})"
        marker = "👉" if pv.actor is not None and s == pv.actor else "▫️"
        seats.append(f"{marker} {name(table, s)}{tag}")
    lines.append("\n".join(seats))
    auction = _auction_line(table, pv, lang)
    if auction:
        lines.append(auction)
    if pv.kind is DealKind.ALL_PASS:
        lines.append(f"<b>{t(lang, 'deal.allpass')}</b>")
    if pv.talon and not drawn:
        lines.append(f"{t(lang, 'deal.talon')}: {cards(pv.talon, ranks=ranks)}")
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
            t(lang, "deal.open_hand", name=name(table, seat))
            + "\n"
            + "\n".join(hand_lines(hand, ranks=ranks))
        )
    if pv.phase is Phase.PLAY or pv.phase is Phase.DONE:
        if pv.current_trick and not drawn:
            lines.append(
                f"{t(lang, 'deal.trick', n=pv.trick_number)}: "
                + _trick_cards(table, pv.current_trick, lang, ranks)
            )
        if pv.last_trick is not None and pv.last_trick.winner is not None:
            lines.append(
                f"{t(lang, 'deal.last_trick')}: "
                + _trick_cards(table, pv.last_trick.cards, lang, ranks)
                + " → "
                + t(lang, "deal.took", name=name(table, pv.last_trick.winner))
            )
        if any(pv.tricks) and not drawn:
            lines.append(_tricks_line(table, pv, lang))
    lines += offer_lines(table, pv, lang)
    return lines


def table_text(
    table: Table, pv: PublicView, deal_no: int, *, note: str | None = None, ended: str | None = None
) -> str:
    """The group's table message of a deal: public information only (card ranks as the
    table writes them)."""
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
    lines += public_block(table, pv, lang, ranks=table.settings.ranks)
    act = actor_line(table, pv, lang)
    if ended:  # the game ended in the middle of the deal: nobody is to act any more
        lines.append(ended)
    elif act:
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
    table: Table,
    sv: SeatView,
    deal_no: int,
    lang: str,
    *,
    note: str | None = None,
    ended: str | None = None,
    left: float | None = None,
    ranks: RankStyle = RankStyle.LATIN,
    others: Iterable[Table] = (),
) -> str:
    """A player's private hand message: his cards, the public table and his prompt;
    ``left``: the seconds he has left to act (``None``: the whole turn); ``ranks``: how
    he wants card ranks written; ``others``: the player's other open tables, see
    :func:`title_of`."""
    pv = sv.public
    title = title_of(table, others)
    lines = [t(lang, "hand.title", n=deal_no, title=title)]
    if sv.hand:
        mine = "\n".join(hand_lines(sv.hand, ranks=ranks))
        lines.append(t(lang, "hand.yours") + "\n<b>" + mine + "</b>")
    elif sits_out(pv.players, pv.dealer, sv.seat) and pv.phase is not Phase.DONE:
        lines.append(t(lang, "hand.none"))
    if sv.discard:
        lines.append(t(lang, "hand.discard", cards=cards(sv.discard, ranks=ranks)))
    for other, hand in sv.controlled.items():
        lines.append(
            t(lang, "hand.controlled", name=name(table, other))
            + "\n"
            + "\n".join(hand_lines(hand, ranks=ranks))
        )
    if sv.offer_hand and pv.offer is not None:  # shown to those who answer the offer
        offerer = name(table, pv.offer.seat)
        shown = "\n".join(hand_lines(sv.offer_hand, ranks=ranks))
        lines.append(t(lang, "offer.hand", name=offerer) + "\n" + shown)
    kept = table.ui.offer_shown.get(sv.seat)
    if kept is not None and pv.offer is None and pv.phase is Phase.PLAY and not ended:
        played = {tc.card for tc in pv.current_trick}  # the offerer may have led since
        rest = hand_lines([c for c in kept.cards if c not in played], ranks=ranks)
        if rest:
            offerer = name(table, kept.offer.seat)
            lines.append(t(lang, "offer.hand_kept", name=offerer) + "\n" + "\n".join(rest))
    shown_above = frozenset({int(sv.seat), *(int(s) for s in sv.controlled)})
    lines += public_block(table, pv, lang, skip_open=shown_above, ranks=ranks)
    if ended:  # the game ended in the middle of the deal: nobody is to act any more
        lines.append(ended)
    elif sv.my_turn:
        lines.append(prompt_line(table, sv, lang))
        if sure_offers(table, sv.seat):
            lines.append(t(lang, "offer.sure"))
        if table.settings.turn_time:
            lines.append(time_left(table.settings.turn_time, left, lang))
    else:
        act = actor_line(table, pv, lang)
        if act:
            lines.append(f"⏳ {act}")
        elif pv.phase is Phase.DONE:
            lines.append(t(lang, "deal.done"))
    if note:
        lines.append(note)
    return "\n\n".join(lines)


def prompt_line(table: Table, sv: SeatView, lang: str) -> str:
    """What ``sv``'s seat is asked to do on its turn."""
    pv = sv.public
    if pv.offer is not None:
        return t(lang, "offer.prompt")
    if pv.phase is Phase.PLAY and pv.to_act is not None and pv.to_act != sv.seat:
        return t(lang, "hand.play_for", name=name(table, pv.to_act))
    if answers_half_whist(pv, sv.seat):
        return t(lang, "hand.half_prompt")
    return t(lang, _PROMPTS.get(pv.phase, "hand.your_turn"))


def time_left(turn: int, left: float | None, lang: str) -> str:
    """The time to act: the whole turn at its start, later the time left rounded up to 5 s,
    so the text is never less than the truth until it is brought up to date (see
    :func:`bot.telegram.scheduler.turn_jobs`)."""
    if left is None or left > turn - 5:
        return t(lang, "act.deadline", n=turn)
    return t(lang, "act.left", n=max(5, math.ceil(left / 5) * 5))


def review_text(table: Table, deal: Deal, lang: str, *, ranks: RankStyle = RankStyle.LATIN) -> str:
    """A finished deal in full for its players: every hand as dealt with the tricks it
    took, the talon and the discard (only once the deal is over: no card is secret then)."""
    if not deal.is_over:
        raise ValueError("a deal is shown in full only once it is over")
    record = deal.to_json()
    tricks = deal.outcome().tricks
    lines = [f"<b>{t(lang, 'review.title')}</b>"]
    for seat, codes in enumerate(record["hands"]):
        if not codes:
            continue  # the 4-player dealer holds no cards
        taken = t(lang, "n.tricks", count=tricks[seat]) if tricks is not None else ""
        head = f"{name(table, seat)}: {taken}" if taken else name(table, seat)
        hand = [parse_card(c) for c in codes]
        lines.append(head + "\n" + "\n".join(hand_lines(hand, ranks=ranks)))
    talon = cards((parse_card(c) for c in record["talon"]), ranks=ranks)
    lines.append(f"{t(lang, 'deal.talon')}: {talon}")
    if deal.discard:
        lines.append(t(lang, "review.discard", cards=cards(deal.discard, ranks=ranks)))
    return "\n\n".join(lines)
