"""The offers to end a deal in text (record format, "Offers"): the open offer and its
answers, how an accepted one ended the deal, the solver's guaranteed marks."""

from __future__ import annotations

from bot.core.model import Table
from bot.core.viewcache import public_view
from bot.preferans.actions import Accept, Offer
from bot.preferans.deal import Deal, Phase
from bot.preferans.outcome import DealKind
from bot.preferans.seats import Seat, sits_out
from bot.preferans.views import PublicView
from bot.render.i18n import t

from .text import name

__all__ = ["sure_offers", "offers_open", "offer_split", "offer_lines", "offer_end_line"]


def sure_offers(table: Table, seat: Seat) -> frozenset[Offer]:
    """The offers the solver proved guaranteed for ``seat`` at the table's current move."""
    move, sure = table.ui.offer_sure
    return sure.get(seat, frozenset()) if move == table.move else frozenset()


def offers_open(table: Table, seat: Seat) -> bool:
    """Whether ``seat``'s hand shows his offer buttons (opened at the current move; see
    :func:`bot.core.offers.open_offers`)."""
    move, sure = table.ui.offer_sure
    return move == table.move and seat in sure


def offer_split(table: Table, pv: PublicView, offer: Offer) -> str:
    """``Анна 5 · Пётр 0``: the tricks an offer gives each seat that plays."""
    parts = []
    for s in map(Seat, range(pv.players)):
        if offer.tricks[s] == 0 and (sits_out(pv.players, pv.dealer, s) or s == pv.open_passer):
            continue
        parts.append(f"{name(table, s)} {offer.tricks[s]}")
    return " · ".join(parts)


def offer_lines(table: Table, pv: PublicView, lang: str) -> list[str]:
    """The open offer and who accepted it, or the offer the last move refused."""
    offer = pv.offer
    if offer is not None:
        line = t(
            lang, "offer.open", name=name(table, offer.seat), split=offer_split(table, pv, offer)
        )
        if pv.offer_accepted:
            names = ", ".join(name(table, s) for s in pv.offer_accepted)
            line += "\n" + t(lang, "offer.accepted_by", names=names)
        return [line]
    note = table.ui.offer_note
    if note is None or pv.phase is not Phase.PLAY:
        return []
    who = name(table, note.refused_by)
    return [t(lang, "offer.refused", who=who, name=name(table, note.offer.seat))]


def offer_end_line(table: Table, deal: Deal, lang: str) -> str | None:
    """How a deal ended by an accepted offer (record format, "Offers"): who offered what
    and the tricks it gave; else ``None``."""
    log = deal.log
    if not deal.is_over or not log or not isinstance(log[-1], Accept):
        return None
    offer = next(a for a in reversed(log) if isinstance(a, Offer))
    pv = public_view(deal)
    who, split = name(table, offer.seat), offer_split(table, pv, offer)
    key = _offer_name(pv, offer)
    if key is None:
        return t(lang, "offer.accepted", name=who, split=split)
    return t(lang, "offer.accepted_named", name=who, what=t(lang, key), split=split)


def _offer_name(pv: PublicView, offer: Offer) -> str | None:
    """The key of the name the offer goes by, if it has one (its button's)."""
    me, left = offer.seat, sum(offer.tricks)
    if offer.tricks[me] == left:
        return "offer.name.mine"
    if left in offer.tricks:
        if pv.kind is DealKind.ALL_PASS:
            return None  # each plays for himself: "yours" would name nobody
        taker = Seat(offer.tricks.index(left))
        # a defender who gives the rest to the other defender keeps them on his side
        side = pv.declarer not in (me, taker)
        return "offer.name.ours" if side else "offer.name.yours"
    if pv.kind is DealKind.GAME and me == pv.declarer and pv.contract is not None:
        before = pv.tricks[me] - offer.tricks[me]  # the deal's tricks include the offer's
        if offer.tricks[me] == pv.contract.level - before - 1:
            return "offer.name.one_down"
    return None
