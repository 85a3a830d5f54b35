"""The search: alpha-beta by null-window questions ("can the side that wants tricks for
``seat`` force at least k of them?") over bitmask hands, with a transposition table at
trick boundaries and equal cards merged.

Hands are indexed 0, 1, 2 in playing order; a card is the bit ``suit * 8 + rank``.
"""

from __future__ import annotations

from bisect import bisect_left
from operator import neg

from .bounds import NEXT as _NEXT
from .bounds import SUIT_MASK, caught, ducks, trick_game_bounds
from .moves import LOW_FIRST, REST_LOW, TOPS_HIGH, follow_cards, lead_cards
from .tables import BITS, COMPRESS, NTH, REPS, REPS_LOW, Reps

__all__ = ["Core", "BudgetExceeded", "SUIT_MASK", "NO_LIMIT"]


BIT = tuple(1 << c for c in range(32))
"""Each card's bit (a look-up: shifts of Python ints are not specialised, indexing is)."""
SUIT_OF = tuple(c >> 3 for c in range(32))
"""Each card's suit, by look-up for the same reason."""
SHIFT = tuple(c & 24 for c in range(32))
"""How far each card's suit lies from bit 0 (``suit * 8``)."""

_Plan = tuple[int, int, bool, bool, bool, bool, bool, bool, Reps, Reps, int]
"""See :meth:`Core._plan`."""

NO_LIMIT = 1 << 62
""":attr:`Core.limit` when the search is not limited (an int, so the check is one compare)."""


class BudgetExceeded(Exception):
    """The search visited more positions than its budget allowed."""


class Core:
    """One search setting: trump, who maximises ``seat``'s tricks, and a table to reuse.

    ``maximiser[i]`` says whether hand ``i`` wants ``seat`` to take tricks.
    ``talon_owner`` is -1 when talon cards only name the suit, else the index used for
    the (dealer's) talon card as a trick winner — never one of 0, 1, 2.
    """

    def __init__(
        self, trump: int, maximiser: tuple[bool, bool, bool], seat: int, *, talon_competes: bool
    ) -> None:
        self.trump = trump
        self.maximiser = maximiser
        self.seat = seat
        self.talon_competes = talon_competes
        # Trick games: try low cards first (keep the winners); misère-like goals: high first.
        self.low_first = maximiser[seat]
        self.trick_game = maximiser[seat]
        self.duck_check = not maximiser[seat] and trump < 0
        # Lead order, for the others and for ``seat`` (measured on random deals): in
        # trick games the declarer cashes his top cards first; in misère and all-pass
        # everybody tries low cards that are not the suit's top first.
        if not maximiser[seat]:
            self.lead_order = (REST_LOW, REST_LOW)
        elif trump >= 0:
            self.lead_order = (LOW_FIRST, TOPS_HIGH)
        else:
            self.lead_order = (REST_LOW, TOPS_HIGH)
        self._plans = (self._plan(0), self._plan(1), self._plan(2))
        self.table: dict[int, list[int]] = {}
        self.exact: dict[tuple[int, int, int, int], list[int]] = {}
        self.talon_table: dict[tuple[int, int, int, tuple[int, ...]], list[int]] = {}
        """Bounds of positions before a trick the talon opens (see :mod:`.midtrick`)."""
        self.nodes = 0
        self.limit = NO_LIMIT
        """Past this many nodes (counted since the Core was made) the search stops."""

    def _plan(self, p0: int) -> _Plan:
        """What a trick led by hand ``p0`` needs that depends on the leader only: the
        next two hands, who maximises, how the second hand orders its cards, the order
        each follower tries them in and the lead order."""
        seat = self.seat
        low_first = self.low_first
        maxi = self.maximiser
        p1 = _NEXT[p0]
        p2 = _NEXT[p1]
        duck_first = p1 == seat and not low_first
        under_first = p0 == seat and not low_first
        win_first = low_first and (p1 == seat or p0 == seat)
        # Each follower's cards per suit led, in the order tried: low first in trick
        # games, and for a hand that wants seat's tricks.
        reps1 = REPS_LOW if low_first or maxi[p1] else REPS
        reps2 = REPS_LOW if low_first else REPS
        reorder = win_first or under_first or duck_first
        order = self.lead_order[p0 == seat]
        return (
            p1,
            p2,
            maxi[p0],
            maxi[p1],
            maxi[p2],
            win_first,
            under_first,
            reorder,
            reps1,
            reps2,
            order,
        )

    # ------------------------------------------------------------------ trick boundary

    def ge(self, h0: int, h1: int, h2: int, leader: int, k: int) -> bool:
        """Can the maximisers force ``seat`` at least ``k`` of the tricks left?"""
        if k <= 0:
            return True
        # At a trick boundary every hand holds the same number of cards.
        n = (h0 if leader == 0 else h1 if leader == 1 else h2).bit_count()
        if k > n:
            return False
        return self._node(h0, h1, h2, leader, k, n)

    def _node(self, h0: int, h1: int, h2: int, leader: int, k: int, n: int) -> bool:
        """:meth:`ge` when the answer is not trivial (0 < k <= n, ``n`` cards in each
        hand): one position searched, counted against the budget."""
        self.nodes = nodes = self.nodes + 1
        if nodes > self.limit:
            raise BudgetExceeded
        if n == 1:
            # The last trick: one card each, played in turn from the leader.
            if leader == 0:
                best, second, third, p1, p2 = h0, h1, h2, 1, 2
            elif leader == 1:
                best, second, third, p1, p2 = h1, h2, h0, 2, 0
            else:
                best, second, third, p1, p2 = h2, h0, h1, 0, 1
            trump = self.trump
            best = best.bit_length() - 1
            winner = leader
            card = second.bit_length() - 1
            if SUIT_OF[card] == SUIT_OF[best]:
                if card > best:
                    best, winner = card, p1
            elif SUIT_OF[card] == trump:
                best, winner = card, p1
            card = third.bit_length() - 1
            if SUIT_OF[card] == SUIT_OF[best]:
                if card > best:
                    winner = p2
            elif SUIT_OF[card] == trump:
                winner = p2
            return winner == self.seat
        # Two tables: by the exact cards (cheap key) and by relative ranks (shared by
        # positions that differ only in cards already gone); both hold the same entry,
        # [lowest, highest, best lead], started from the sure bounds.
        fast_key = (h0, h1, h2, leader)
        entry = self.exact.get(fast_key)
        alive = h0 | h1 | h2
        if entry is None:
            c = COMPRESS
            b = BITS
            x = (alive & 255) << 8
            key = (c[x | (h0 & 255)] << 8) | b[x | (h1 & 255)]
            x = ((alive >> 8) & 255) << 8
            key = (key << 20) | (c[x | ((h0 >> 8) & 255)] << 8) | b[x | ((h1 >> 8) & 255)]
            x = ((alive >> 16) & 255) << 8
            key = (key << 20) | (c[x | ((h0 >> 16) & 255)] << 8) | b[x | ((h1 >> 16) & 255)]
            x = (alive >> 24) << 8
            key = (key << 22) | (c[x | (h0 >> 24)] << 10) | (b[x | (h1 >> 24)] << 2) | leader
            entry = self.table.get(key)
            if entry is None:
                hands = (h0, h1, h2)
                if self.trick_game:
                    lo, hi = trick_game_bounds(hands, leader, n, alive, self.seat, self.trump)
                    entry = [lo, hi, -1]
                elif self.duck_check:
                    if ducks(hands, leader, alive, self.seat):
                        entry = [0, 0, -1]
                    elif caught(hands, leader, alive, self.seat):
                        entry = [1, n, -1]
                    else:
                        entry = [0, n, -1]
                else:
                    entry = [0, n, -1]
                self.table[key] = entry
            self.exact[fast_key] = entry
        lo, hi, first = entry
        if lo >= k:
            return True
        if hi < k:
            return False
        if first >= 0:
            # The table keeps the best lead by its rank among the live cards.
            shift = first & 24
            first = shift + NTH[(((alive >> shift) & 255) << 3) | (first & 7)]
        move = self._trick(h0, h1, h2, leader, k, n, first, alive)
        if move >= 0:
            # The leader's side got what it wants, by this lead.
            result = self.maximiser[leader]
            shift = move & 24
            entry[2] = shift | ((alive >> shift) & ((1 << (move & 7)) - 1)).bit_count()
        else:
            result = not self.maximiser[leader]
        if result:
            entry[0] = k
        else:
            entry[1] = k - 1
        return result

    def _trick(
        self, a: int, b: int, c: int, leader: int, k: int, n: int, first: int, alive: int
    ) -> int:
        """Play one whole trick from its lead (hands ``a``, ``b``, ``c`` by index, ``alive``
        their cards together): the lead with which the leader's side gets what it wants,
        or -1 if none does."""
        trump = self.trump
        seat = self.seat
        p0 = leader
        p1, p2, m0, m1, m2, win_first, under_first, reorder, reps1, reps2, order = self._plans[p0]
        # The hands in playing order from the leader.
        if p0 == 0:
            h0, h1, h2 = a, b, c
        elif p0 == 1:
            h0, h1, h2 = b, c, a
        else:
            h0, h1, h2 = c, a, b
        leads = lead_cards(h0, alive, order)
        if first >= 0 and first in leads:
            leads.remove(first)
            leads.insert(0, first)
        # Children are asked only when not decided here, so past ge's trivial answers.
        node = self._node
        won_k = k - 1  # what the maximisers still need if seat takes this trick
        rest = n - 1
        # A child where seat needs nothing more is won, one where he needs more than is
        # left is lost: decided without a call.
        won_known = 1 if won_k <= 0 else (0 if won_k > rest else -1)
        lost_known = 0 if k > rest else -1
        # The last hand tries first the cards whose trick goes the way it wants (a)
        # (seat takes it when the last hand is a maximiser), then the others (b).
        if m2:
            known_a, need_a, known_b, need_b = won_known, won_k, lost_known, k
        else:
            known_a, need_a, known_b, need_b = lost_known, k, won_known, won_k
        value_a = known_a == 1
        value_b = known_b == 1
        # Answers are the bools True and False, compared by identity below (cheaper
        # than ==, which Python does not specialise for bools).
        mv1: tuple[int, ...] | list[int]
        mv2: tuple[int, ...] | list[int]
        for c0 in leads:
            suit = SUIT_OF[c0]
            n0 = h0 ^ BIT[c0]
            # The followers' cards (leads of one suit rarely repeat: not kept per suit).
            # The suit's live cards, shifted into a table index's high byte.
            shift = SHIFT[c0]
            live = ((alive >> shift) & 255) << 8
            held = h1 & SUIT_MASK[suit]
            if held:
                mv1 = reps1[suit][live | (held >> shift)]
            else:
                mv1 = follow_cards(h1, suit, trump, alive, reps1)
            if reorder and SUIT_OF[mv1[0]] == suit:
                # Following suit: the cards are one suit, in order (low to high in the
                # first two cases, high to low in the third), split at the lead.
                if win_first:
                    # Trick game, second hand against the declarer's lead or being him:
                    # the cheapest card that beats the lead first.
                    i = bisect_left(mv1, c0)
                    mv1 = (*mv1[i:], *mv1[:i])
                elif under_first:
                    # Misère or all-pass, ``seat`` led: the others keep his card on top,
                    # with the highest card under it first.
                    i = bisect_left(mv1, c0)
                    mv1 = (*mv1[i - 1 :: -1], *mv1[i:]) if i else mv1
                else:
                    # Misère or all-pass, ``seat`` second: his highest card under the
                    # lead first.
                    i = bisect_left(mv1, -c0, key=neg)
                    mv1 = (*mv1[i:], *mv1[:i])
            held = h2 & SUIT_MASK[suit]
            if held:
                mv2 = reps2[suit][live | (held >> shift)]
            else:
                mv2 = follow_cards(h2, suit, trump, alive, reps2)
            r1 = not m1
            if len(mv2) == 1:
                # One card for the last hand (the commonest case): each second-hand
                # card's value is that of the one child.
                c2 = mv2[0]
                n2 = h2 ^ BIT[c2]
                s2 = SUIT_OF[c2]
                for c1 in mv1:
                    n1 = h1 ^ BIT[c1]
                    if SUIT_OF[c1] == suit:
                        b1, w1 = (c1, p1) if c1 > c0 else (c0, p0)
                    elif SUIT_OF[c1] == trump:
                        b1, w1 = c1, p1
                    else:
                        b1, w1 = c0, p0
                    if s2 == SUIT_OF[b1]:
                        w = p2 if c2 > b1 else w1
                    else:
                        w = p2 if s2 == trump else w1
                    if w == seat:
                        known, need = won_known, won_k
                    else:
                        known, need = lost_known, k
                    if known >= 0:
                        value = known == 1
                    elif p0 == 0:
                        value = node(n0, n1, n2, w, need, rest)
                    elif p0 == 1:
                        value = node(n2, n0, n1, w, need, rest)
                    else:
                        value = node(n1, n2, n0, w, need, rest)
                    if value is m1:
                        r1 = m1
                        break
                if r1 is m0:
                    return c0
                continue
            for c1 in mv1:
                n1 = h1 ^ BIT[c1]
                if SUIT_OF[c1] == suit:
                    b1, w1 = (c1, p1) if c1 > c0 else (c0, p0)
                elif SUIT_OF[c1] == trump:
                    b1, w1 = c1, p1
                else:
                    b1, w1 = c0, p0
                bs = SUIT_OF[b1]
                # The last hand: the (a) cards first, the (b) ones only if no (a) card
                # is enough.
                r2 = not m2
                later: list[tuple[int, int]] = []
                for c2 in mv2:
                    if SUIT_OF[c2] == bs:
                        w = p2 if c2 > b1 else w1
                    elif SUIT_OF[c2] == trump:
                        w = p2
                    else:
                        w = w1
                    if (w == seat) is not m2:
                        later.append((c2, w))
                        continue
                    if known_a >= 0:
                        value = value_a
                    elif p0 == 0:
                        value = node(n0, n1, h2 ^ BIT[c2], w, need_a, rest)
                    elif p0 == 1:
                        value = node(h2 ^ BIT[c2], n0, n1, w, need_a, rest)
                    else:
                        value = node(n1, h2 ^ BIT[c2], n0, w, need_a, rest)
                    if value is m2:
                        r2 = m2
                        break
                else:
                    for c2, w in later:
                        if known_b >= 0:
                            value = value_b
                        elif p0 == 0:
                            value = node(n0, n1, h2 ^ BIT[c2], w, need_b, rest)
                        elif p0 == 1:
                            value = node(h2 ^ BIT[c2], n0, n1, w, need_b, rest)
                        else:
                            value = node(n1, h2 ^ BIT[c2], n0, w, need_b, rest)
                        if value is m2:
                            r2 = m2
                            break
                if r2 is m1:
                    r1 = m1
                    break
            if r1 is m0:
                return c0
        return -1
