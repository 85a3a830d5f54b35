"""The search: alpha-beta by null-window questions ("can the side that wants tricks for
``seat`` force at least k of them?") over bitmask hands, with a transposition table at
trick boundaries and equal cards merged.

Hands are indexed 0, 1, 2 in playing order; a card is the bit ``suit * 8 + rank``.
"""

from __future__ import annotations

from .bounds import NEXT as _NEXT
from .bounds import SUIT_MASK, caught, ducks, trick_game_bounds
from .tables import BITS, COMPRESS, NTH, REPS

__all__ = ["Core", "BudgetExceeded", "SUIT_MASK"]


# How a hand orders its leads (see Core.lead_order).
_TOPS_HIGH = 0  # the suits' top cards first, high to low, then the rest high to low
_REST_LOW = 1  # cards that are not the top of their suit first, low to high, then the tops
_LOW_FIRST = 2  # hearts to spades, low to high within a suit


class BudgetExceeded(Exception):
    """The search visited more positions than its budget allowed."""


def _moves(hand: int, suit: int, trump: int, alive: int) -> list[int]:
    """Representative legal cards of ``hand`` when ``suit`` was led (-1: leading)."""
    if suit >= 0:
        follow = hand & SUIT_MASK[suit]
        if follow:
            shift = suit * 8
            reps = REPS[suit][(((alive >> shift) & 255) << 8) | (follow >> shift)]
            assert reps is not None
            return list(reps)
        # Кодекс: no card of the suit led — a trump must be played if held.
        if trump >= 0 and hand & SUIT_MASK[trump]:
            shift = trump * 8
            reps = REPS[trump][(((alive >> shift) & 255) << 8) | ((hand >> shift) & 255)]
            assert reps is not None
            return list(reps)
    out: list[int] = []
    for s in range(4):
        shift = s * 8
        held = (hand >> shift) & 255
        if held:
            reps = REPS[s][(((alive >> shift) & 255) << 8) | held]
            assert reps is not None
            out.extend(reps)
    return out


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
            self.lead_order = (_REST_LOW, _REST_LOW)
        elif trump >= 0:
            self.lead_order = (_LOW_FIRST, _TOPS_HIGH)
        else:
            self.lead_order = (_REST_LOW, _TOPS_HIGH)
        self.table: dict[int, list[int]] = {}
        self.exact: dict[tuple[int, int, int, int], list[int]] = {}
        self.nodes = 0
        self.limit: int | None = None

    # ------------------------------------------------------------------ trick boundary

    def ge(self, h0: int, h1: int, h2: int, leader: int, k: int) -> bool:
        """Can the maximisers force ``seat`` at least ``k`` of the tricks left?"""
        hands = (h0, h1, h2)
        n = hands[leader].bit_count()
        if k <= 0:
            return True
        if k > n:
            return False
        self.nodes += 1
        if self.limit is not None and self.nodes > self.limit:
            raise BudgetExceeded
        if n == 1:
            return self._last_trick(hands, leader) == self.seat
        alive = h0 | h1 | h2
        # Two tables: by the exact cards (cheap key) and by relative ranks (shared by
        # positions that differ only in cards already gone); both hold the same entry,
        # [lowest, highest, best lead], started from the sure bounds.
        fast_key = (h0, h1, h2, leader)
        entry = self.exact.get(fast_key)
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
        result, move = self._trick(hands, leader, k, n, first)
        if move >= 0:
            shift = move & 24
            entry[2] = shift | ((alive >> shift) & ((1 << (move & 7)) - 1)).bit_count()
        if result:
            entry[0] = k
        else:
            entry[1] = k - 1
        return result

    def _last_trick(self, hands: tuple[int, int, int], leader: int) -> int:
        trump = self.trump
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
        p2 = _NEXT[p1]
        m0, m1, m2 = maxi[p0], maxi[p1], maxi[p2]
        h0, h1, h2 = hands[p0], hands[p1], hands[p2]
        alive = h0 | h1 | h2
        leads = _moves(h0, -1, trump, alive)
        order = self.lead_order[p0 == seat]
        if len(leads) > 1:
            others = alive & ~h0
            if order == _TOPS_HIGH:
                leads.sort(key=lambda c: (bool((others & SUIT_MASK[c >> 3]) >> c), -c))
            elif order == _REST_LOW:
                leads.sort(key=lambda c: (not (others & SUIT_MASK[c >> 3]) >> c, c))
            else:
                leads.reverse()
        if first >= 0 and first in leads:
            leads.remove(first)
            leads.insert(0, first)
        ge = self.ge
        won_k = k - 1  # what the maximisers still need if seat takes this trick
        rest = n - 1
        # A child where seat needs nothing more is won, one where he needs more than is
        # left is lost: decided without a call.
        won_known = 1 if won_k <= 0 else (0 if won_k > rest else -1)
        lost_known = 0 if k > rest else -1
        follow1: dict[int, list[int]] = {}
        follow2: dict[int, list[int]] = {}
        for c0 in leads:
            suit = c0 >> 3
            n0 = h0 & ~(1 << c0)
            mv1 = follow1.get(suit)
            if mv1 is None:
                mv1 = follow1[suit] = _moves(h1, suit, trump, alive)
                if low_first or m1:
                    mv1.reverse()
            if win_first and mv1[0] >> 3 == suit:
                # Trick game, second hand against the declarer's lead or being him: the
                # cheapest card that beats the lead first.
                mv1 = [c for c in mv1 if c > c0] + [c for c in mv1 if c < c0]
            if under_first and mv1[0] >> 3 == suit:
                # Misère or all-pass, ``seat`` led: the others keep his card on top, with
                # the highest card under it first.
                mv1 = [c for c in reversed(mv1) if c < c0] + [c for c in mv1 if c > c0]
            if duck_first and mv1[0] >> 3 == suit:
                # Misère or all-pass, ``seat`` second: his highest card under the lead first.
                mv1 = [c for c in mv1 if c < c0] + [c for c in mv1 if c > c0]
            mv2 = follow2.get(suit)
            if mv2 is None:
                mv2 = follow2[suit] = _moves(h2, suit, trump, alive)
                if low_first:
                    mv2.reverse()
            r1 = not m1
            for c1 in mv1:
                n1 = h1 & ~(1 << c1)
                if (c1 >> 3) == suit:
                    b1, w1 = (c1, p1) if c1 > c0 else (c0, p0)
                elif (c1 >> 3) == trump:
                    b1, w1 = c1, p1
                else:
                    b1, w1 = c0, p0
                # The last hand: cards whose trick goes the way it wants are tried first,
                # the others only if none of those is enough.
                r2 = not m2
                later: list[tuple[int, int]] = []
                for c2 in mv2:
                    if (c2 >> 3) == (b1 >> 3):
                        w = p2 if c2 > b1 else w1
                    elif (c2 >> 3) == trump:
                        w = p2
                    else:
                        w = w1
                    if (w == seat) != m2:
                        later.append((c2, w))
                        continue
                    if w == seat:
                        known = won_known
                        need = won_k
                    else:
                        known = lost_known
                        need = k
                    if known >= 0:
                        value = known == 1
                    elif p0 == 0:
                        value = ge(n0, n1, h2 & ~(1 << c2), w, need)
                    elif p0 == 1:
                        value = ge(h2 & ~(1 << c2), n0, n1, w, need)
                    else:
                        value = ge(n1, h2 & ~(1 << c2), n0, w, need)
                    if value == m2:
                        r2 = m2
                        break
                else:
                    for c2, w in later:
                        if w == seat:
                            known = won_known
                            need = won_k
                        else:
                            known = lost_known
                            need = k
                        if known >= 0:
                            value = known == 1
                        elif p0 == 0:
                            value = ge(n0, n1, h2 & ~(1 << c2), w, need)
                        elif p0 == 1:
                            value = ge(h2 & ~(1 << c2), n0, n1, w, need)
                        else:
                            value = ge(n1, h2 & ~(1 << c2), n0, w, need)
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
        for card in _moves(hands[p], suit, self.trump, alive):
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
