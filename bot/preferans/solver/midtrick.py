"""Positions inside a trick, or before the tricks the talon opens on all-pass: played
out card by card (every representative card, no table) down to a trick boundary,
where :meth:`.search.Core.ge` takes over.
"""

from __future__ import annotations

from .moves import moves
from .search import Core

__all__ = ["ge_from"]


def ge_from(
    core: Core,
    hands: list[int],
    first: int,
    played: list[int],
    talon: tuple[int, ...],
    k: int,
) -> bool:
    """Like :meth:`.Core.ge` for any position: ``played`` are the cards of the trick in
    progress played from hand ``first``; ``talon`` the talon cards still to open
    tricks (``talon[0]`` opens this one)."""
    if len(played) == 3:
        winner = _winner(core, first, played, talon[0] if talon else -1)
        won = 1 if winner == core.seat else 0
        if talon[1:]:
            return ge_from(core, hands, 0, [], talon[1:], k - won)
        # Кодекс 3.7.6.1: after the talon's tricks the first hand leads.
        leader = 0 if talon else winner
        return core.ge(hands[0], hands[1], hands[2], leader, k - won)
    if not played and not talon:
        return core.ge(hands[0], hands[1], hands[2], first, k)
    if not played and not hands[first]:
        return k <= 0
    entry = None
    if not played:
        # A trick the talon opens (all-pass, tricks 1 and 2): bounds kept as at a trick
        # boundary, since the same hands are reached by many orders of play.
        key = (hands[0], hands[1], hands[2], talon)
        entry = core.talon_table.get(key)
        if entry is None:
            entry = core.talon_table[key] = [0, hands[first].bit_count()]
        if entry[0] >= k:
            return True
        if entry[1] < k:
            return False
    p = (first + len(played)) % 3
    lead = talon[0] if talon else played[0]
    alive = hands[0] | hands[1] | hands[2] | (1 << lead)
    for card in (*played, *talon):  # the talon's next card too: cards around it differ
        alive |= 1 << card
    want = core.maximiser[p]
    suit = (lead >> 3) if (talon or played) else -1
    result = not want
    for card in moves(hands[p], suit, core.trump, alive):
        child = list(hands)
        child[p] &= ~(1 << card)
        if ge_from(core, child, first, [*played, card], talon, k) == want:
            result = want
            break
    if entry is not None:
        if result:
            entry[0] = k
        else:
            entry[1] = k - 1
    return result


def _winner(core: Core, first: int, played: list[int], talon_card: int) -> int:
    """The hand index taking a finished trick (3 if the dealer's talon card does, -1
    if nobody can: a 3-player talon suit no hand holds, impossible in a real deal)."""
    trump = core.trump
    best, winner = -1, -1
    if talon_card >= 0:
        suit = talon_card >> 3
        if core.talon_competes:
            best, winner = talon_card, 3
    else:
        suit = played[0] >> 3
    for i, card in enumerate(played):
        s = card >> 3
        if best < 0:
            if s == suit or s == trump:
                best, winner = card, (first + i) % 3
        elif s == best >> 3:
            if card > best:
                best, winner = card, (first + i) % 3
        elif s == trump:
            best, winner = card, (first + i) % 3
    return winner
