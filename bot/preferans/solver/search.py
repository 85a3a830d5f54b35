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
from .moves import LOW_FIRST, REST_LOW, TOPS_HIGH, follow_cards, lead_cards, moves
from .tables import BITS, COMPRESS, NTH, REPS, REPS_LOW

__all__ = ["Core", "BudgetExceeded", "SUIT_MASK", "NO_LIMIT"]


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
        self.table: dict[int, list[int]] = {}
        self.exact: dict[tuple[int, int, int, int], list[int]] = {}
        self.nodes = 0
        self.limit = NO_LIMIT
        """Past this many nodes (counted since the Core was made) the search stops."""

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
            return self._last_trick(h0, h1, h2, leader) == self.seat
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
        result, move = self._trick((h0, h1, h2), leader, k, n, first)
        if move >= 0:
            shift = move & 24
            entry[2] = shift | ((alive >> shift) & ((1 << (move & 7)) - 1)).bit_count()
        if result:
            entry[0] = k
        else:
            entry[1] = k - 1
        return result

    def _last_trick(self, h0: int, h1: int, h2: int, leader: int) -> int:
        trump = self.trump
        hands = (h0, h1, h2)
        best = hands[leader].bit_length() - 1
        winner = leader
        p = leader
        for _ in range(2):
            p = _NEXT[p]
            card = hands[p].bit_length() - 1
            if (card >> 3) == (best >> 3):
                if card > best:
                    best, winner = card, p
            elif (card >> 3) == trump:
                best, winner = card, p
        return winner

    def _trick(
        self, hands: tuple[int, int, int], leader: int, k: int, n: int, first: int
    ) -> tuple[bool, int]:
        """Play one whole trick from its lead; returns the answer and the deciding lead."""
        trump = self.trump
        seat = self.seat
        maxi = self.maximiser
        low_first = self.low_first
        p0 = leader
        p1 = _NEXT[p0]
        duck_first = p1 == seat and not low_first
        under_first = p0 == seat and not low_first
        win_first = low_first and (p1 == seat or p0 == seat)
        reorder = win_first or under_first or duck_first
        p2 = _NEXT[p1]
        m0, m1, m2 = maxi[p0], maxi[p1], maxi[p2]
        h0, h1, h2 = hands[p0], hands[p1], hands[p2]
        alive = h0 | h1 | h2
        leads = lead_cards(h0, alive, self.lead_order[p0 == seat])
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
        # Each follower's cards per suit led, in the order tried: low first in trick
        # games, and for a hand that wants seat's tricks.
        reps1 = REPS_LOW if low_first or m1 else REPS
        reps2 = REPS_LOW if low_first else REPS
        follow1: list[tuple[int, ...] | list[int] | None] = [None, None, None, None]
        follow2: list[tuple[int, ...] | list[int] | None] = [None, None, None, None]
        for c0 in leads:
            suit = c0 >> 3
            n0 = h0 & ~(1 << c0)
            mv1 = follow1[suit]
            if mv1 is None:
                held = h1 & SUIT_MASK[suit]
                if held:
                    shift = suit * 8
                    mv1 = reps1[suit][(((alive >> shift) & 255) << 8) | (held >> shift)]
                else:
                    mv1 = follow_cards(h1, suit, trump, alive, reps1)
                follow1[suit] = mv1
            if reorder and mv1[0] >> 3 == suit:
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
            mv2 = follow2[suit]
            if mv2 is None:
                held = h2 & SUIT_MASK[suit]
                if held:
                    shift = suit * 8
                    mv2 = reps2[suit][(((alive >> shift) & 255) << 8) | (held >> shift)]
                else:
                    mv2 = follow_cards(h2, suit, trump, alive, reps2)
                follow2[suit] = mv2
            r1 = not m1
            for c1 in mv1:
                n1 = h1 & ~(1 << c1)
                if (c1 >> 3) == suit:
                    b1, w1 = (c1, p1) if c1 > c0 else (c0, p0)
                elif (c1 >> 3) == trump:
                    b1, w1 = c1, p1
                else:
                    b1, w1 = c0, p0
                bs = b1 >> 3
                # The last hand: the (a) cards first, the (b) ones only if no (a) card
                # is enough.
                r2 = not m2
                later: list[tuple[int, int]] = []
                for c2 in mv2:
                    if (c2 >> 3) == bs:
                        w = p2 if c2 > b1 else w1
                    elif (c2 >> 3) == trump:
                        w = p2
                    else:
                        w = w1
                    if (w == seat) != m2:
                        later.append((c2, w))
                        continue
                    if known_a >= 0:
                        value = value_a
                    elif p0 == 0:
                        value = node(n0, n1, h2 & ~(1 << c2), w, need_a, rest)
                    elif p0 == 1:
                        value = node(h2 & ~(1 << c2), n0, n1, w, need_a, rest)
                    else:
                        value = node(n1, h2 & ~(1 << c2), n0, w, need_a, rest)
                    if value == m2:
                        r2 = m2
                        break
                else:
                    for c2, w in later:
                        if known_b >= 0:
                            value = value_b
                        elif p0 == 0:
                            value = node(n0, n1, h2 & ~(1 << c2), w, need_b, rest)
                        elif p0 == 1:
                            value = node(h2 & ~(1 << c2), n0, n1, w, need_b, rest)
                        else:
                            value = node(n1, h2 & ~(1 << c2), n0, w, need_b, rest)
                        if value == m2:
                            r2 = m2
                            break
                if r2 == m1:
                    r1 = m1
                    break
            if r1 == m0:
                return m0, c0
        return not m0, -1

    # ------------------------------------------------------------------ any position

    def ge_from(
        self,
        hands: list[int],
        first: int,
        played: list[int],
        talon: tuple[int, ...],
        k: int,
    ) -> bool:
        """Like :meth:`ge` for any position: ``played`` are the cards of the trick in
        progress played from hand ``first``; ``talon`` the talon cards still to open
        tricks (``talon[0]`` opens this one)."""
        if len(played) == 3:
            winner = self._winner(first, played, talon[0] if talon else -1)
            won = 1 if winner == self.seat else 0
            if talon[1:]:
                return self.ge_from(hands, 0, [], talon[1:], k - won)
            # Кодекс 3.7.6.1: after the talon's tricks the first hand leads.
            leader = 0 if talon else winner
            return self.ge(hands[0], hands[1], hands[2], leader, k - won)
        if not played and not talon:
            return self.ge(hands[0], hands[1], hands[2], first, k)
        if not played and not hands[first]:
            return k <= 0
        p = (first + len(played)) % 3
        lead = talon[0] if talon else played[0]
        alive = hands[0] | hands[1] | hands[2] | (1 << lead)
        for card in played:
            alive |= 1 << card
        want = self.maximiser[p]
        suit = (lead >> 3) if (talon or played) else -1
        for card in moves(hands[p], suit, self.trump, alive):
            child = list(hands)
            child[p] &= ~(1 << card)
            if self.ge_from(child, first, [*played, card], talon, k) == want:
                return want
        return not want

    def _winner(self, first: int, played: list[int], talon_card: int) -> int:
        """The hand index taking a finished trick (3 if the dealer's talon card does, -1
        if nobody can: a 3-player talon suit no hand holds, impossible in a real deal)."""
        trump = self.trump
        best, winner = -1, -1
        if talon_card >= 0:
            suit = talon_card >> 3
            if self.talon_competes:
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
