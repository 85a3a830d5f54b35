"""Cheap sure bounds on ``seat``'s tricks at a trick boundary, tried before a search.

Each is sound whatever the rest of the play: a bound that is not sure would make the
solver wrong, and the tests compare it with a plain minimax.
"""

from __future__ import annotations

from .tables import DUCK, RUN

__all__ = ["trick_game_bounds", "ducks", "caught", "SUIT_MASK", "NEXT"]

SUIT_MASK = (0xFF, 0xFF << 8, 0xFF << 16, 0xFF << 24)
NEXT = (1, 2, 0)
_SIDE_SHIFTS = tuple(tuple(s * 8 for s in range(4) if s != trump) for trump in range(4))
"""For each trump suit, the bit offsets of the three side suits."""


def trick_game_bounds(
    hands: tuple[int, int, int], leader: int, n: int, alive: int, seat: int, trump: int
) -> tuple[int, int]:
    """Sure tricks of a trick game's declarer (``seat``) and of his defenders.

    A trump above every trump of the other side wins whenever it is played; the
    hand on lead can cash its top cards in a row while nobody can ruff them.
    """
    mine = hands[seat]
    lo = 0
    taken = 0  # tricks the defenders surely take
    if trump >= 0:
        tmask = SUIT_MASK[trump]
        st = mine & tmask
        ot = (alive & ~mine) & tmask
        lo = (st >> ot.bit_length()).bit_count()
        top = st.bit_length()
        d1 = hands[NEXT[seat]] & tmask
        d2 = hands[NEXT[NEXT[seat]]] & tmask
        taken = (d1 >> top).bit_count()
        d2 = (d2 >> top).bit_count()
        if d2 > taken:
            taken = d2
    cash = _cash(hands, leader, alive, trump)
    if leader == seat:
        if cash > lo:
            lo = cash
    elif cash > taken:
        taken = cash
    return lo, n - taken


def ducks(hands: tuple[int, int, int], leader: int, alive: int, seat: int) -> bool:
    """Misère or all-pass, no trump, the others on lead: can ``seat`` lose every trick?

    He does if he can duck every lead in every suit (then he never leads again);
    when he must discard he throws his highest card, which keeps every suit duckable.
    """
    if leader == seat:
        return False
    mine = hands[seat]
    duck = DUCK
    return (
        duck[((alive & 255) << 8) | (mine & 255)]
        and duck[(((alive >> 8) & 255) << 8) | ((mine >> 8) & 255)]
        and duck[(((alive >> 16) & 255) << 8) | ((mine >> 16) & 255)]
        and duck[((alive >> 24) << 8) | (mine >> 24)]
    )


def caught(hands: tuple[int, int, int], leader: int, alive: int, seat: int) -> bool:
    """Misère or all-pass, no trump: must ``seat`` take the trick about to be played?

    On lead, he escapes only by leading under a hand that holds nothing lower in
    that suit (it must cover); not on lead, he is caught when the leader has a suit
    in which all his cards are above all of theirs.
    """
    mine = hands[seat]
    if leader == seat:
        a = hands[NEXT[seat]]
        b = hands[NEXT[NEXT[seat]]]
        for mask in SUIT_MASK:
            suit = mine & mask
            if suit:
                below = (suit & -suit) - 1
                xa = a & mask
                xb = b & mask
                if (xa and not xa & below) or (xb and not xb & below):
                    return False
        return True
    lead = hands[leader]
    others = alive & ~mine
    for mask in SUIT_MASK:
        suit = mine & mask
        if suit and lead & mask and (suit & -suit) > (others & mask):
            return True
    return False


def _cash(hands: tuple[int, int, int], leader: int, alive: int, trump: int) -> int:
    """Tricks the hand on lead takes by leading its top cards while it can."""
    held = hands[leader]
    run = RUN
    if trump < 0:
        # No trump: every top card wins, the lead stays, all suits can be cashed.
        return (
            run[((alive & 255) << 8) | (held & 255)]
            + run[(((alive >> 8) & 255) << 8) | ((held >> 8) & 255)]
            + run[(((alive >> 16) & 255) << 8) | ((held >> 16) & 255)]
            + run[((alive >> 24) << 8) | (held >> 24)]
        )
    # Trumps first (nothing beats them), then one side suit as long as every hand
    # that could ruff still follows: a hand that keeps a trump followed every trump
    # lead, so its side suits are as long as now.
    tshift = trump * 8
    total = run[(((alive >> tshift) & 255) << 8) | ((held >> tshift) & 255)]
    tmask = SUIT_MASK[trump]
    # A partner's ruff wins the trick for the side but takes the lead away (he must
    # trump when void), so both other hands count as ruffers.
    r1 = hands[NEXT[leader]]
    r2 = hands[NEXT[NEXT[leader]]]
    if not r1 & tmask:
        r1 = -1  # no trump: never ruffs, as if it held every card
    if not r2 & tmask:
        r2 = -1
    side = 0
    for shift in _SIDE_SHIFTS[trump]:
        cards = run[(((alive >> shift) & 255) << 8) | ((held >> shift) & 255)]
        if cards > side:
            length = ((r1 >> shift) & 255).bit_count()
            if length < cards:
                cards = length
            length = ((r2 >> shift) & 255).bit_count()
            if length < cards:
                cards = length
            if cards > side:
                side = cards
    return total + side
