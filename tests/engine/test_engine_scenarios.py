"""Hand-built deals with exact expectations for the rules engine (bot/preferans).

The rules are docs/rules.md and, where it is silent, the Кодекс преферанса
(rules 3.3–3.9).
"""

from __future__ import annotations

import copy
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.preferans.actions import (
    Bid,
    ChooseDefence,
    Declare,
    Discard,
    IllegalAction,
    Play,
    Reason,
    Whist,
)
from bot.preferans.cards import Card, Suit, sort_hand
from bot.preferans.contracts import MISERE, Contract
from bot.preferans.deal import Deal, DealSettings, MoveError, Phase, TrickCard
from bot.preferans.outcome import DealKind, WhistAnswer
from bot.preferans.seats import Seat
from bot.preferans.views import public_view, seat_view
from tests.engine_helpers import (
    CLOSED,
    HALF,
    OPEN,
    P,
    W,
    assert_caller_error,
    assert_rejected,
    assert_same_state,
    bid,
    bids,
    c,
    cards,
    check_invariants,
    check_outcome,
    discard_and_declare,
    legal_cards,
    legal_codes,
    lowest_discard,
    make_deal,
    play,
    play_randomly,
    play_trick,
    random_deal,
    referee,
    snapshot,
    whist,
    win_auction,
)
from tests.strategies import DealPlan, deal_settings, deals

S0, S1, S2, S3 = Seat.S0, Seat.S1, Seat.S2, Seat.S3

# A 3-player table, dealer 0: first hand 1, second hand 2, third hand 0.
TABLE = {
    1: "AS KS QS JS 10S AC KC AD KD 7H",
    2: "9S 8S QC JC 10C QD JD 10D AH KH",
    0: "7S 9C 8C 7C 9D 8D 7D QH JH 10H",
}
TABLE_TALON = "9H 8H"


def table(**options: object) -> Deal:
    return make_deal(TABLE, TABLE_TALON, **options)  # type: ignore[arg-type]


def table_game(
    contract: str = "6S", discard: str = "9H 8H", bid_with: str | None = None, **options: object
) -> Deal:
    """Seat 1 wins the auction, discards and names ``contract``; whisting is next."""
    deal = table(**options)
    win_auction(deal, 1, bid_with or "6S")
    discard_and_declare(deal, discard, contract)
    return deal


# ============================================================ all-pass (распасы)

# card-games-magazine.txt, "ПРИМЕРЫ И ЗАДАЧИ. РАСПАСОВКА": four players, the dealer
# (seat 0) sits on the talon ПВ БК = JS KD.
MAGAZINE = {
    0: "",
    1: "AS 7S AC 9C 7C JD 9D 8D QH 9H",
    2: "QS 10S 8S KC QC 10C 7D KH 8H 7H",
    3: "KS 9S JC 8C AD QD 10D AH JH 10H",
}
MAGAZINE_TRICKS = [
    # (cards in playing order, winner); tricks 1 and 2 start with the dealer's talon card
    ([(1, "7S"), (2, "10S"), (3, "9S")], S0),
    ([(1, "JD"), (2, "7D"), (3, "QD")], S0),
    ([(1, "AS"), (2, "QS"), (3, "KS")], S1),
    ([(1, "AC"), (2, "KC"), (3, "JC")], S1),
    ([(1, "9C"), (2, "QC"), (3, "8C")], S2),
    ([(2, "10C"), (3, "AH"), (1, "7C")], S2),
    ([(2, "8H"), (3, "JH"), (1, "QH")], S1),
    ([(1, "8D"), (2, "KH"), (3, "10D")], S3),
    ([(3, "AD"), (1, "9D"), (2, "8S")], S3),
    ([(3, "10H"), (1, "9H"), (2, "7H")], S3),
]


def test_magazine_four_player_all_pass_played_as_in_the_text() -> None:
    deal = make_deal(MAGAZINE, "JS KD", players=4, dealer=0)
    assert deal.active == (S1, S2, S3)
    assert public_view(deal).talon == ()
    bid(deal, 1, "pass")
    bid(deal, 2, "pass")
    assert public_view(deal).talon == ()
    assert_rejected(deal, Bid(S0, None), Reason.NOT_YOUR_TURN)  # the dealer does not bid
    bid(deal, 3, "pass")
    assert deal.kind is DealKind.ALL_PASS and deal.phase is Phase.PLAY
    assert deal.declarer is None
    # trick 1: the dealer's first talon card is turned and led; first hand plays to it
    pub = public_view(deal)
    assert pub.talon == (Card.SJ,)
    assert pub.current_trick == (TrickCard(S0, Card.SJ, from_talon=True),)
    assert deal.to_act == S1 and deal.lead_suit is Suit.SPADES
    for number, (moves, winner) in enumerate(MAGAZINE_TRICKS, start=1):
        assert deal.trick_number == number
        assert deal.to_act == moves[0][0], f"trick {number}"
        assert play_trick(deal, *moves) == winner, f"trick {number}"
        assert deal.last_trick is not None and deal.last_trick.number == number
        check_invariants(deal)
        if number == 1:
            # the second talon card is turned only now, for trick 2
            pub = public_view(deal)
            assert pub.talon == (Card.SJ, Card.DK)
            assert pub.current_trick == (TrickCard(S0, Card.DK, from_talon=True),)
            assert deal.to_act == S1
        if number == 2:
            # trick 3 is led by the first hand although the dealer took trick 2
            assert deal.to_act == S1 and deal.current_trick == ()
    assert deal.is_over
    out = deal.outcome()
    assert out.kind is DealKind.ALL_PASS
    assert out.tricks == (2, 3, 2, 3)
    assert out.whists == {} and out.declarer is None and out.contract is None
    check_outcome(deal)
    assert public_view(deal).talon == (Card.SJ, Card.DK)


# Three players, dealer 0, talon AS 7H: the talon card only names the suit.
THREE_ALL_PASS = {
    1: "9S KS AC KC QC JC AD KD 8H 10H",
    2: "7S QS JS 10C 9C QD JD 10D 9H JH",
    0: "8S 10S 8C 7C 9D 8D 7D AH KH QH",
}


def test_three_player_all_pass_talon_names_the_suit_and_never_wins() -> None:
    deal = make_deal(THREE_ALL_PASS, "AS 7H")
    bids(deal, (1, "pass"), (2, "pass"), (0, "pass"))
    assert deal.kind is DealKind.ALL_PASS
    assert public_view(deal).talon == (Card.SA,)
    assert deal.current_trick == (TrickCard(None, Card.SA, from_talon=True),)
    assert deal.to_act == S1
    # on spades (named by the ace) first hand must follow suit
    assert_rejected(deal, Play(S1, Card.CA), Reason.MUST_FOLLOW_SUIT, "must follow spades")
    # the talon ace takes nothing: the nine, highest of the players' spades, takes
    assert play_trick(deal, (1, "9S"), (2, "7S"), (0, "8S")) == S1
    assert deal.tricks == [0, 1, 0]
    assert public_view(deal).talon == (Card.SA, Card.H7)
    assert deal.current_trick == (TrickCard(None, Card.H7, from_talon=True),)
    assert deal.to_act == S1  # the second talon card is answered from first hand on
    assert play_trick(deal, (1, "8H"), (2, "9H"), (0, "AH")) == S0
    # trick 3 is led by the first hand, not by seat 0 who took trick 2
    assert deal.trick_number == 3 and deal.current_trick == ()
    assert deal.to_act == S1
    assert_rejected(deal, Play(S0, Card.DA), Reason.NOT_YOUR_TURN)
    assert_rejected(deal, Play(S0, Card.C8), Reason.NOT_YOUR_TURN, "seat 1")
    # later tricks: the winner leads; no trumps on all-pass
    assert play_trick(deal, (1, "AC"), (2, "10C"), (0, "8C")) == S1
    assert deal.to_act == S1
    assert play_trick(deal, (1, "JC"), (2, "9C"), (0, "7C")) == S1
    assert play_trick(deal, (1, "QC"), (2, "QD"), (0, "KH")) == S1  # discards never win
    play_randomly(deal, random.Random(3))
    out = deal.outcome()
    assert out.tricks is not None and sum(out.tricks) == 10
    check_outcome(deal)


@settings(max_examples=10, deadline=None, database=None)
@given(
    plan=deals(deal_settings(conventions=st.just("rostov"))),
    play_seed=st.integers(0, 2**32 - 1),
)
def test_rostov_all_pass_talon_stays_closed_and_first_hand_leads(
    plan: DealPlan, play_seed: int
) -> None:
    deal = plan.deal()
    players = deal.players
    first = deal.first_hand
    for seat in deal.active:
        bid(deal, seat, "pass")
    assert deal.kind is DealKind.ALL_PASS and deal.phase is Phase.PLAY
    assert deal.to_act == first and deal.current_trick == ()
    assert deal.lead_suit is None
    rng = random.Random(play_seed)
    talon = set(deal.talon)
    first_play = True
    while not deal.is_over:
        pub = public_view(deal)
        assert pub.talon == ()
        assert not (pub.visible_cards() & talon)
        for s in range(players):
            assert not (seat_view(deal, Seat(s)).visible_cards() & talon)
        action = rng.choice(deal.legal_actions())
        if first_play:
            assert action.seat == first
            first_play = False
        deal.apply(action)
        check_invariants(deal)
    assert public_view(deal).talon == ()
    out = deal.outcome()
    assert out.tricks is not None and sum(out.tricks) == 10
    if players == 4:
        assert out.tricks[deal.dealer] == 0
    check_outcome(deal)


def test_four_player_all_pass_dealer_talon_card_can_win_and_counts() -> None:
    deal = make_deal(MAGAZINE, "JS KD", players=4, dealer=0)
    bids(deal, (1, "pass"), (2, "pass"), (3, "pass"))
    # the dealer's jack is beaten by the queen of spades
    assert play_trick(deal, (1, "7S"), (2, "QS"), (3, "9S")) == S2
    assert deal.tricks == [0, 0, 1, 0]
    assert deal.to_act == S1  # trick 2 again from the talon, first hand answers


# ============================================================ auction (торговля)


def test_here_in_a_two_way_auction() -> None:
    deal = table()
    bid(deal, 1, "6S")
    bid(deal, 2, "pass")
    assert deal.legal_actions() == [Bid(S0, c("6C")), Bid(S0, MISERE), Bid(S0, None)]
    bid(deal, 0, "6C")
    # first hand sits before third hand: he may repeat the bid ("6C здесь")
    assert deal.legal_actions() == [Bid(S1, c("6C")), Bid(S1, c("6D")), Bid(S1, None)]
    bid(deal, 1, "6C")
    assert deal.highest_bid == c("6C") and deal.highest_bidder == S1
    # third hand may not say здесь; he has to go one step up
    assert deal.legal_actions() == [Bid(S0, c("6D")), Bid(S0, None)]
    assert_rejected(deal, Bid(S0, c("6C")), Reason.HERE_NOT_ALLOWED, "seat 0 bids 6C", "здесь")
    bid(deal, 0, "6D")
    bid(deal, 1, "6D")
    bid(deal, 0, "pass")
    assert deal.phase is Phase.DISCARD
    assert deal.declarer == S1 and deal.bid == c("6D")
    assert [a.to_json()["bid"] for a in deal.auction] == "6S pass 6C 6C 6D 6D pass".split()


def test_here_in_a_three_way_auction() -> None:
    deal = table()
    bids(deal, (1, "6S"), (2, "6C"), (0, "6D"))
    # first hand may say здесь to anybody
    assert deal.legal_actions() == [Bid(S1, c("6D")), Bid(S1, c("6H")), Bid(S1, None)]
    bid(deal, 1, "6H")
    # the second hand may not say здесь to the first hand's bid
    assert_rejected(deal, Bid(S2, c("6H")), Reason.HERE_NOT_ALLOWED)
    assert deal.legal_actions() == [Bid(S2, c("6NT")), Bid(S2, None)]
    bid(deal, 2, "6NT")
    # the third hand never may say здесь
    assert_rejected(deal, Bid(S0, c("6NT")), Reason.HERE_NOT_ALLOWED)
    bid(deal, 0, "7S")
    bid(deal, 1, "pass")
    # the second hand sits before the third: здесь to the third hand's bid is fine
    assert Bid(S2, c("7S")) in deal.legal_actions()
    bid(deal, 2, "7S")
    assert deal.highest_bidder == S2
    assert_rejected(deal, Bid(S0, c("7S")), Reason.HERE_NOT_ALLOWED, "здесь")
    assert deal.legal_actions() == [Bid(S0, c("7C")), Bid(S0, None)]
    bid(deal, 0, "pass")
    assert deal.declarer == S2 and deal.bid == c("7S")


def test_first_hand_says_here_to_the_second_hand() -> None:
    deal = table()
    bids(deal, (1, "6S"), (2, "6C"), (0, "pass"), (1, "6C"), (2, "6D"), (1, "6D"))
    bid(deal, 2, "pass")
    assert deal.declarer == S1 and deal.bid == c("6D")


def test_no_jumps_by_default() -> None:
    deal = table()
    assert_rejected(deal, Bid(S1, c("6C")), Reason.BID_JUMP, "seat 1 bids 6C", "no jumps")
    bid(deal, 1, "6S")
    assert_rejected(deal, Bid(S2, c("7S")), Reason.BID_JUMP, "seat 2 bids 7S", "one step")
    assert_rejected(deal, Bid(S2, c("6D")), Reason.BID_JUMP)
    assert deal.legal_actions() == [Bid(S2, c("6C")), Bid(S2, MISERE), Bid(S2, None)]


def test_jumps_allowed_with_the_option() -> None:
    deal = table(jumps=True)
    bid(deal, 1, "6S")
    bid(deal, 2, "7S")
    bid(deal, 0, "9NT")
    legal = deal.legal_actions()
    assert Bid(S1, c("9NT")) in legal  # здесь
    assert legal_codes(deal) == "9NT 10S 10C 10D 10H 10NT".split()
    bid(deal, 1, "10NT")
    assert deal.legal_actions() == [Bid(S2, None)]


def test_misere_only_as_first_call_and_then_at_any_point() -> None:
    deal = table()
    bids(deal, (1, "6S"), (2, "6C"))
    # third hand has not called yet: misère is his first call, after two bids
    assert Bid(S0, MISERE) in deal.legal_actions()
    bid(deal, 0, "misere")
    assert_rejected(
        deal, Bid(S1, MISERE), Reason.MISERE_AFTER_BID, "seat 1 bids misere", "first call"
    )
    # after misère only a 9-level bid outbids it, one step: 9♠
    assert deal.legal_actions() == [Bid(S1, c("9S")), Bid(S1, None)]
    assert_rejected(deal, Bid(S1, c("8NT")), Reason.BID_TOO_LOW, "too low")
    assert_rejected(deal, Bid(S1, c("7S")), Reason.BID_TOO_LOW)
    assert_rejected(deal, Bid(S1, c("9C")), Reason.BID_JUMP)
    bid(deal, 1, "9S")
    bid(deal, 2, "pass")
    # the misère bidder may only pass now
    assert deal.legal_actions() == [Bid(S0, None)]
    assert_rejected(deal, Bid(S0, c("9C")), Reason.MISERE_BIDDER_TRICKS, "only pass")
    assert_rejected(deal, Bid(S0, MISERE), Reason.MISERE_AFTER_BID)
    bid(deal, 0, "pass")
    assert deal.declarer == S1 and deal.bid == c("9S") and deal.kind is DealKind.GAME


def test_misere_outbid_only_by_nine() -> None:
    deal = table()
    bid(deal, 1, "misere")
    assert deal.legal_actions() == [Bid(S2, c("9S")), Bid(S2, None)]
    assert_rejected(deal, Bid(S2, MISERE), Reason.MISERE_TOO_LATE)
    assert_rejected(deal, Bid(S2, c("6S")), Reason.BID_TOO_LOW)
    bids(deal, (2, "pass"), (0, "pass"))
    assert deal.declarer == S1 and deal.kind is DealKind.MISERE and deal.bid == MISERE

    jumps = table(jumps=True)
    bid(jumps, 1, "misere")
    legal = legal_codes(jumps)
    assert legal == ["9S", "9C", "9D", "9H", "9NT", "10S", "10C", "10D", "10H", "10NT"]
    bid(jumps, 2, "9H")
    assert_rejected(jumps, Bid(S0, MISERE), Reason.MISERE_TOO_LATE)


def test_bid_below_current_rejected() -> None:
    deal = table()
    bids(deal, (1, "6S"), (2, "6C"), (0, "6D"), (1, "6H"))
    assert_rejected(deal, Bid(S2, c("6C")), Reason.BID_TOO_LOW, "too low", "6H")
    assert_rejected(deal, Bid(S2, c("6S")), Reason.BID_TOO_LOW)


def test_minimum_level_seven_after_all_pass() -> None:
    deal = table(min_level=7)
    assert deal.legal_actions() == [Bid(S1, c("7S")), Bid(S1, MISERE), Bid(S1, None)]
    assert_rejected(deal, Bid(S1, c("6S")), Reason.BID_BELOW_MINIMUM, "at least 7S")
    assert_rejected(deal, Bid(S1, c("6NT")), Reason.BID_BELOW_MINIMUM)
    bid(deal, 1, "7S")
    assert deal.legal_actions() == [Bid(S2, c("7C")), Bid(S2, MISERE), Bid(S2, None)]


def test_all_three_pass_is_all_pass() -> None:
    deal = table()
    bids(deal, (1, "pass"), (2, "pass"), (0, "pass"))
    assert deal.kind is DealKind.ALL_PASS and deal.phase is Phase.PLAY
    assert deal.declarer is None and deal.contract is None and deal.bid is None
    assert deal.to_act == S1


@pytest.mark.parametrize("third_bids", [True, False])
def test_first_two_pass_third_may_bid_or_pass(third_bids: bool) -> None:
    deal = table()
    bids(deal, (1, "pass"), (2, "pass"))
    assert deal.phase is Phase.AUCTION and deal.to_act == S0
    assert deal.legal_actions() == [Bid(S0, c("6S")), Bid(S0, MISERE), Bid(S0, None)]
    assert_rejected(deal, Bid(S1, c("6S")), Reason.NOT_YOUR_TURN)  # a pass is final
    if third_bids:
        bid(deal, 0, "6S")
        assert deal.declarer == S0 and deal.phase is Phase.DISCARD
    else:
        bid(deal, 0, "pass")
        assert deal.kind is DealKind.ALL_PASS


def test_a_pass_is_final() -> None:
    deal = table()
    bids(deal, (1, "6S"), (2, "pass"), (0, "6C"))
    assert deal.to_act == S1  # seat 2 is skipped
    bid(deal, 1, "6D")
    assert deal.to_act == S0
    assert_rejected(deal, Bid(S2, c("6H")), Reason.NOT_YOUR_TURN, "seat 0")


# ============================================================ talon, discard, contract


def test_talon_shown_after_the_auction_and_discard_checked() -> None:
    deal = table()
    bids(deal, (1, "6S"), (2, "pass"))
    assert public_view(deal).talon == ()
    for s in (0, 1, 2):
        assert not (seat_view(deal, Seat(s)).visible_cards() & {Card.H9, Card.H8})
    bid(deal, 0, "pass")
    assert deal.phase is Phase.DISCARD and deal.to_act == S1
    assert public_view(deal).talon == (Card.H9, Card.H8)
    assert len(deal.hand(S1)) == 12 and {Card.H9, Card.H8} <= deal.hand(S1)
    assert public_view(deal).hand_sizes == (10, 12, 10)
    assert len(deal.legal_actions()) == 66
    assert_rejected(deal, Discard(S1, (Card.SA, Card.HQ)), Reason.CARD_NOT_HELD, "QH")
    assert_rejected(deal, Discard(S1, (Card.SA,)), Reason.DISCARD_COUNT, "two")
    assert_rejected(deal, Discard(S1, (Card.SA, Card.SA)), Reason.DISCARD_COUNT)
    assert_rejected(deal, Discard(S1, (Card.SA, Card.SK, Card.SQ)), Reason.DISCARD_COUNT)
    assert_rejected(deal, Discard(S2, (Card.S9, Card.S8)), Reason.NOT_YOUR_TURN)
    assert_rejected(deal, Declare(S1, c("6S")), Reason.WRONG_PHASE, "discard")
    assert_rejected(deal, Play(S1, Card.SA), Reason.WRONG_PHASE)


def test_discard_is_seen_only_by_the_declarer_until_the_first_lead() -> None:
    deal = table()
    win_auction(deal, 1)
    hidden = {Card.DK, Card.H7}
    deal.apply(Discard(S1, (Card.H7, Card.DK)))
    assert deal.discard == (Card.DK, Card.H7)

    def check(declarer_sees: bool) -> None:
        pub = public_view(deal)
        assert not (pub.visible_cards() & hidden)
        for s in (S0, S2):
            view = seat_view(deal, s)
            assert view.discard == () and not (view.visible_cards() & hidden)
        own = seat_view(deal, S1)
        assert own.discard == ((Card.DK, Card.H7) if declarer_sees else ())
        assert not (set(own.hand) & hidden)
        check_invariants(deal)

    assert deal.phase is Phase.CONTRACT
    check(True)
    deal.apply(Declare(S1, c("6S")))
    check(True)
    whist(deal, 2, W)
    check(True)
    whist(deal, 0, P)
    assert deal.phase is Phase.DEFENCE
    check(True)
    deal.apply(ChooseDefence(S2, CLOSED))
    assert deal.phase is Phase.PLAY
    check(True)
    play(deal, 1, "AS")
    check(False)
    play_randomly(deal, random.Random(5))
    check(False)


def test_contract_not_below_the_bid() -> None:
    deal = table()
    bids(deal, (1, "6S"), (2, "6C"), (0, "pass"), (1, "pass"))
    assert deal.declarer == S2 and deal.bid == c("6C")
    deal.apply(lowest_discard(deal))
    assert deal.phase is Phase.CONTRACT
    legal = legal_codes(deal)
    assert legal[0] == "6C" and "6S" not in legal and "misere" not in legal
    assert legal[-1] == "10NT" and len(legal) == 24
    assert_rejected(deal, Declare(S2, c("6S")), Reason.CONTRACT_BELOW_BID, "6S", "6C")
    assert_rejected(deal, Declare(S2, MISERE), Reason.MISERE_MISMATCH, "misère")
    assert_rejected(deal, Declare(S1, c("7S")), Reason.NOT_YOUR_TURN)
    deal.apply(Declare(S2, c("9D")))  # higher than the bid is fine
    assert deal.contract == c("9D") and deal.phase is Phase.WHIST


def test_contract_after_winning_with_misere_must_be_misere() -> None:
    deal = table()
    bids(deal, (1, "pass"), (2, "misere"), (0, "pass"))
    assert deal.declarer == S2 and deal.kind is DealKind.MISERE
    deal.apply(lowest_discard(deal))
    assert deal.legal_actions() == [Declare(S2, MISERE)]
    assert_rejected(deal, Declare(S2, c("6S")), Reason.MISERE_MISMATCH, "misère")
    assert_rejected(deal, Declare(S2, c("10NT")), Reason.MISERE_MISMATCH)


# ============================================================ whisting


def test_whist_whist_plays_closed_without_a_choice() -> None:
    deal = table_game()
    assert deal.phase is Phase.WHIST and deal.defenders == (S2, S0)
    assert deal.to_act == S2
    assert deal.legal_actions() == [Whist(S2, W), Whist(S2, P)]
    assert_rejected(deal, Whist(S2, HALF), Reason.HALF_WHIST_NOT_ALLOWED, "second defender")
    assert_rejected(deal, Whist(S0, W), Reason.NOT_YOUR_TURN)
    whist(deal, 2, W)
    # the second defender may pass or whist whatever the first said; no half after a whist
    assert deal.legal_actions() == [Whist(S0, W), Whist(S0, P)]
    assert_rejected(deal, Whist(S0, HALF), Reason.HALF_WHIST_NOT_ALLOWED, "passed")
    whist(deal, 0, W)
    assert deal.phase is Phase.PLAY and deal.defence is CLOSED
    assert deal.whisters == (S2, S0)
    assert public_view(deal).open_hands == {}
    assert_rejected(deal, ChooseDefence(S2, OPEN), Reason.WRONG_PHASE)
    assert deal.to_act == S1  # first hand leads
    play_randomly(deal, random.Random(1))
    out = deal.outcome()
    assert out.whists == {S2: W, S0: W} and out.defence is CLOSED
    check_outcome(deal)


@pytest.mark.parametrize(("first", "second", "whister"), [(W, P, S2), (P, W, S0)])
def test_one_whister_chooses_open_or_closed(
    first: WhistAnswer, second: WhistAnswer, whister: Seat
) -> None:
    for defence in (OPEN, CLOSED):
        deal = table_game()
        whist(deal, 2, first)
        whist(deal, 0, second)
        assert deal.phase is Phase.DEFENCE and deal.to_act == whister
        assert deal.actor == whister
        assert deal.legal_actions() == [
            ChooseDefence(whister, OPEN),
            ChooseDefence(whister, CLOSED),
        ]
        passer = S0 if whister == S2 else S2
        assert_rejected(deal, ChooseDefence(passer, defence), Reason.NOT_YOUR_TURN)
        assert_rejected(deal, ChooseDefence(S1, defence), Reason.NOT_YOUR_TURN)
        assert_rejected(deal, Play(S1, Card.SA), Reason.WRONG_PHASE, "open or closed")
        deal.apply(ChooseDefence(whister, defence))
        assert deal.phase is Phase.PLAY and deal.defence is defence
        play_randomly(deal, random.Random(2))
        out = deal.outcome()
        assert out.whists == {S2: first, S0: second} and out.defence is defence
        check_outcome(deal)


def test_pass_pass_ends_the_deal_without_play() -> None:
    deal = table_game("7S")
    whist(deal, 2, P)
    assert deal.legal_actions() == [Whist(S0, W), Whist(S0, P), Whist(S0, HALF)]
    whist(deal, 0, P)
    assert deal.is_over
    out = deal.outcome()
    assert out.kind is DealKind.GAME and out.contract == c("7S") and out.declarer == S1
    assert out.tricks is None and out.whists == {S2: P, S0: P} and out.defence is None
    assert_rejected(deal, Play(S1, Card.SA), Reason.DEAL_OVER, "over")
    assert_rejected(deal, Whist(S2, W), Reason.DEAL_OVER)
    assert_rejected(deal, Bid(S1, None), Reason.DEAL_OVER)
    check_outcome(deal)


@pytest.mark.parametrize("contract", ["6S", "6NT", "7S", "7H"])
def test_pass_half_ends_the_deal_without_play(contract: str) -> None:
    deal = table_game(contract)
    whist(deal, 2, P)
    whist(deal, 0, HALF)
    # the first defender may now return the whist or let the half-whist stand
    assert deal.phase is Phase.WHIST and deal.to_act == S2
    assert deal.legal_actions() == [Whist(S2, W), Whist(S2, P)]
    assert_rejected(deal, Whist(S2, HALF), Reason.HALF_WHIST_NOT_ALLOWED)
    assert_rejected(deal, Whist(S0, W), Reason.NOT_YOUR_TURN)
    whist(deal, 2, P)
    assert deal.is_over
    out = deal.outcome()
    assert out.tricks is None and out.whists == {S2: P, S0: HALF}
    assert out.contract == c(contract)
    check_outcome(deal)


def test_half_whist_returned_by_the_first_defender() -> None:
    deal = table_game("6D", bid_with="6S")
    whist(deal, 2, P)
    whist(deal, 0, HALF)
    whist(deal, 2, W)
    assert deal.phase is Phase.DEFENCE and deal.to_act == S2
    assert deal.whisters == (S2,)
    assert_rejected(deal, ChooseDefence(S0, OPEN), Reason.NOT_YOUR_TURN)
    deal.apply(ChooseDefence(S2, OPEN))
    assert set(public_view(deal).open_hands) == {S2, S0}
    assert deal.open_passer == S0
    play_randomly(deal, random.Random(4))
    out = deal.outcome()
    assert out.whists == {S2: W, S0: HALF} and out.whisters == (S2,)
    assert out.returned_whist and out.defence is OPEN
    check_outcome(deal)


@pytest.mark.parametrize("contract", ["8S", "9NT", "10H"])
def test_no_half_whist_on_eight_and_above(contract: str) -> None:
    deal = table_game(contract)
    whist(deal, 2, P)
    assert deal.legal_actions() == [Whist(S0, W), Whist(S0, P)]
    assert_rejected(
        deal, Whist(S0, HALF), Reason.HALF_WHIST_NOT_ALLOWED, "seat 0 answers half", "6 and 7"
    )


def test_half_whist_option_off() -> None:
    deal = table_game("6S", half_whist=False)
    whist(deal, 2, P)
    assert deal.legal_actions() == [Whist(S0, W), Whist(S0, P)]
    assert_rejected(deal, Whist(S0, HALF), Reason.HALF_WHIST_NOT_ALLOWED, "not played")


@pytest.mark.parametrize("contract", ["10S", "10NT"])
def test_ten_checked_ends_the_deal_as_made(contract: str) -> None:
    deal = table_game(contract, ten_checked=True)
    assert deal.is_over
    out = deal.outcome()
    assert out.kind is DealKind.GAME and out.contract == c(contract)
    assert out.tricks is None and out.whists == {}
    assert_rejected(deal, Whist(S2, W), Reason.DEAL_OVER)
    check_outcome(deal)
    # nine is whisted as usual with the option on; ten is whisted without it
    assert table_game("9NT", ten_checked=True).phase is Phase.WHIST
    assert table_game(contract).phase is Phase.WHIST


def test_stalingrad_six_spades_must_be_whisted_by_both() -> None:
    deal = table_game("6S", stalingrad=True)
    assert deal.legal_actions() == [Whist(S2, W)]
    assert_rejected(deal, Whist(S2, P), Reason.WHIST_NOT_ALLOWED, "stalingrad")
    whist(deal, 2, W)
    assert deal.legal_actions() == [Whist(S0, W)]
    assert_rejected(deal, Whist(S0, P), Reason.WHIST_NOT_ALLOWED, "stalingrad")
    assert_rejected(deal, Whist(S0, HALF), Reason.HALF_WHIST_NOT_ALLOWED)
    whist(deal, 0, W)
    assert deal.phase is Phase.PLAY and deal.defence is CLOSED
    # any other contract is whisted freely
    other = table_game("6C", stalingrad=True)
    assert other.legal_actions() == [Whist(S2, W), Whist(S2, P)]


# ============================================================ open and closed defence


def _lone_whister_deal(
    players: int, declarer_index: int, whister_first: bool, seed: int
) -> tuple[Deal, Seat, Seat]:
    dealer = seed % players
    deal = random_deal(seed, players=players, dealer=dealer)
    declarer = deal.active[declarer_index]
    win_auction(deal, declarer)
    deal.apply(lowest_discard(deal))
    deal.apply(Declare(declarer, c("7NT")))
    d1, d2 = deal.defenders
    whist(deal, d1, W if whister_first else P)
    whist(deal, d2, P if whister_first else W)
    whister, passer = (d1, d2) if whister_first else (d2, d1)
    return deal, whister, passer


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("declarer_index", [0, 1, 2])
@pytest.mark.parametrize("whister_first", [True, False])
def test_open_defence(players: int, declarer_index: int, whister_first: bool) -> None:
    deal, whister, passer = _lone_whister_deal(players, declarer_index, whister_first, 7)
    declarer = deal.declarer
    assert deal.phase is Phase.DEFENCE
    assert public_view(deal).open_hands == {}
    deal.apply(ChooseDefence(whister, OPEN))
    # both defenders lie down before the first lead, whoever leads
    pub = public_view(deal)
    assert deal.trick_number == 1 and deal.current_trick == ()
    assert set(pub.open_hands) == {whister, passer}
    assert set(pub.open_hands[passer]) == deal.hand(passer)
    assert set(pub.open_hands[whister]) == deal.hand(whister)
    assert deal.open_passer == passer
    rng = random.Random(players * 10 + declarer_index)
    saw_passer_turn = False
    while not deal.is_over:
        check_invariants(deal)
        to_act = deal.to_act
        assert declarer not in public_view(deal).open_hands
        if to_act == passer:
            saw_passer_turn = True
            assert deal.actor == whister
            wview = seat_view(deal, whister)
            assert wview.controlled == {passer: tuple(sort_hand(deal.hand(passer)))}
            assert wview.legal == tuple(deal.legal_actions()) and wview.legal
            assert all(a.seat == passer for a in wview.legal)
            assert seat_view(deal, passer).legal == ()
            assert deal.legal_actions_for(passer) == []
        else:
            assert deal.actor == to_act
        deal.apply(rng.choice(deal.legal_actions()))
    assert saw_passer_turn
    out = deal.outcome()
    assert out.defence is OPEN and out.whisters == (whister,)
    check_outcome(deal)


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("declarer_index", [0, 1, 2])
def test_closed_defence_with_a_lone_whister(players: int, declarer_index: int) -> None:
    deal, whister, passer = _lone_whister_deal(players, declarer_index, True, 11)
    deal.apply(ChooseDefence(whister, CLOSED))
    rng = random.Random(declarer_index)
    while not deal.is_over:
        check_invariants(deal)
        assert public_view(deal).open_hands == {}
        assert deal.actor == deal.to_act
        for s in range(players):
            view = seat_view(deal, Seat(s))
            assert view.controlled == {}
            others = set().union(*(deal.hand(Seat(t)) for t in range(players) if t != s))
            others -= set(deal.talon)  # shown to everyone when the declarer took it
            assert not (view.visible_cards() & others)
        assert deal.to_act is not None
        assert seat_view(deal, deal.to_act).legal == tuple(deal.legal_actions())
        deal.apply(rng.choice(deal.legal_actions()))
    check_outcome(deal)


def test_open_defence_table_details() -> None:
    deal = table_game()
    whist(deal, 2, P)
    whist(deal, 0, W)
    deal.apply(ChooseDefence(S0, OPEN))
    pub = public_view(deal)
    assert pub.open_hands == {
        S0: tuple(cards("7S 9C 8C 7C 9D 8D 7D QH JH 10H")),
        S2: tuple(cards("9S 8S QC JC 10C QD JD 10D AH KH")),
    }
    assert deal.to_act == S1 and deal.actor == S1
    play(deal, 1, "10S")
    assert deal.to_act == S2 and deal.actor == S0
    assert seat_view(deal, S0).controlled == {S2: tuple(cards("9S 8S QC JC 10C QD JD 10D AH KH"))}
    assert seat_view(deal, S0).legal == (Play(S2, Card.S9), Play(S2, Card.S8))
    assert seat_view(deal, S2).legal == () and seat_view(deal, S2).controlled == {}
    assert seat_view(deal, S1).legal == ()
    play(deal, 2, "8S")
    assert deal.to_act == S0 and deal.actor == S0
    assert seat_view(deal, S0).legal == (Play(S0, Card.S7),)
    assert play_trick(deal, (0, "7S")) == S1


# ============================================================ misère


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("declarer_index", [1, 2])
def test_misere_defender_leads_hands_open_before_the_first_lead(
    players: int, declarer_index: int
) -> None:
    deal = random_deal(21 + declarer_index, players=players, dealer=1)
    declarer = deal.active[declarer_index]
    win_auction(deal, declarer, "misere")
    assert deal.kind is DealKind.MISERE
    assert public_view(deal).talon == deal.talon
    deal.apply(lowest_discard(deal))
    deal.apply(Declare(declarer, MISERE))
    # no whisting: play starts at once, the first hand (a defender) leads
    assert deal.phase is Phase.PLAY and deal.to_act == deal.first_hand != declarer
    assert deal.trump is None
    assert_rejected(deal, Whist(deal.defenders[0], W), Reason.WRONG_PHASE)
    pub = public_view(deal)
    assert set(pub.open_hands) == set(deal.defenders)
    for s in deal.defenders:
        assert set(pub.open_hands[s]) == deal.hand(s)
    rng = random.Random(declarer_index)
    while not deal.is_over:
        check_invariants(deal)
        assert declarer not in public_view(deal).open_hands
        deal.apply(rng.choice(deal.legal_actions()))
    out = deal.outcome()
    assert out.kind is DealKind.MISERE and out.whists == {} and out.defence is None
    check_outcome(deal)


@pytest.mark.parametrize("players", [3, 4])
def test_misere_declarer_leads_first_card_hidden_hands(players: int) -> None:
    deal = random_deal(31, players=players, dealer=0)
    declarer = deal.first_hand
    win_auction(deal, declarer, "misere")
    deal.apply(lowest_discard(deal))
    deal.apply(Declare(declarer, MISERE))
    assert deal.phase is Phase.PLAY and deal.to_act == declarer
    assert public_view(deal).open_hands == {}
    d1, d2 = deal.defenders
    check_invariants(deal)
    assert not (seat_view(deal, d1).visible_cards() & deal.hand(d2))
    assert not (seat_view(deal, declarer).visible_cards() & deal.hand(d1))
    lead = deal.legal_actions()[0]
    assert isinstance(lead, Play)
    deal.apply(lead)
    pub = public_view(deal)
    assert set(pub.open_hands) == {d1, d2}
    assert set(pub.open_hands[d1]) == deal.hand(d1)
    assert declarer not in pub.open_hands
    assert pub.current_trick == (TrickCard(declarer, lead.card),)
    check_invariants(deal)
    play_randomly(deal, random.Random(9))
    assert declarer not in public_view(deal).open_hands
    check_outcome(deal)


def test_misere_has_no_trumps() -> None:
    deal = table()
    bids(deal, (1, "misere"), (2, "pass"), (0, "pass"))
    discard_and_declare(deal, "9H 8H", "misere")
    assert deal.trump is None and public_view(deal).trump is None
    assert play_trick(deal, (1, "AS"), (2, "9S"), (0, "7S")) == S1
    play(deal, 1, "KS")
    play(deal, 2, "8S")
    # seat 0 has no spades: any card, nothing is a trump
    assert legal_cards(deal) == deal.hand(S0)
    play(deal, 0, "QH")
    assert deal.last_trick is not None and deal.last_trick.winner == S1
    play(deal, 1, "QS")
    # seat 2 has no spades left either and may throw anything
    assert legal_cards(deal) == deal.hand(S2)


# ============================================================ play


def test_follow_suit_and_trump_and_trick_winner() -> None:
    deal = table_game()
    whist(deal, 2, W)
    whist(deal, 0, W)
    assert deal.to_act == S1 and deal.trump is Suit.SPADES
    assert_rejected(deal, Play(S2, Card.SA), Reason.NOT_YOUR_TURN, "seat 1's turn")
    assert_rejected(deal, Play(S1, Card.H9), Reason.CARD_NOT_HELD, "9H", "not in hand")
    assert_rejected(deal, Play(S1, Card.HQ), Reason.CARD_NOT_HELD, "seat 1", "QH")
    play(deal, 1, "7H")
    assert deal.to_act == S2
    assert_rejected(
        deal, Play(S2, Card.S9), Reason.MUST_FOLLOW_SUIT, "seat 2", "9S", "must follow hearts"
    )
    assert_rejected(deal, Play(S2, Card.CQ), Reason.MUST_FOLLOW_SUIT, "must follow")
    assert_rejected(deal, Play(S0, Card.HQ), Reason.NOT_YOUR_TURN, "seat 2")
    assert deal.legal_actions() == [Play(S2, Card.HA), Play(S2, Card.HK)]
    play(deal, 2, "AH")
    assert_rejected(deal, Play(S0, Card.S7), Reason.MUST_FOLLOW_SUIT, "must follow hearts")
    play(deal, 0, "10H")
    assert deal.last_trick is not None and deal.last_trick.winner == S2
    assert deal.tricks == [0, 0, 1]
    # the winner leads next
    assert deal.to_act == S2
    assert_rejected(deal, Play(S1, Card.SA), Reason.NOT_YOUR_TURN)
    play(deal, 2, "KH")
    play(deal, 0, "JH")
    # seat 1 has no hearts but holds trumps: he must trump
    assert_rejected(
        deal, Play(S1, Card.CA), Reason.MUST_TRUMP, "seat 1", "AC", "must trump with spades"
    )
    assert_rejected(deal, Play(S1, Card.DA), Reason.MUST_TRUMP, "no hearts")
    assert len(deal.legal_actions()) == 5
    play(deal, 1, "10S")
    # the lowest trump beats the king of the suit led
    assert deal.last_trick is not None and deal.last_trick.winner == S1
    assert deal.to_act == S1
    assert_rejected(deal, Bid(S1, c("6S")), Reason.WRONG_PHASE, "play a card")
    assert_rejected(deal, Discard(S1, (Card.SA, Card.SK)), Reason.WRONG_PHASE)
    assert_rejected(deal, Whist(S2, W), Reason.WRONG_PHASE)
    check_invariants(deal)


# seat 1 holds all diamonds, seat 2 all clubs, seat 0 all hearts; spades split.
SUITS = {
    1: "7D 8D 9D 10D JD QD KD AD AS KS",
    2: "AC KC QC JC 10C 9C 8C 7C QS JS",
    0: "AH KH QH JH 10H 9H 8H 7H 10S 9S",
}


def _suits_game(contract: str) -> Deal:
    deal = make_deal(SUITS, "8S 7S")
    win_auction(deal, 1)
    discard_and_declare(deal, "8S 7S", contract)
    whist(deal, 2, W)
    whist(deal, 0, W)
    return deal


def test_off_suit_never_wins_without_trumps() -> None:
    deal = _suits_game("6NT")
    assert deal.trump is None
    play(deal, 1, "7D")
    assert legal_cards(deal) == deal.hand(S2)
    assert play_trick(deal, (2, "AC"), (0, "AH")) == S1
    assert deal.to_act == S1


def test_lowest_trump_beats_ace_of_the_suit_led() -> None:
    deal = _suits_game("6H")
    play(deal, 1, "AD")
    play(deal, 2, "AC")  # no diamonds, no hearts: anything
    assert_rejected(deal, Play(S0, Card.S10), Reason.MUST_TRUMP, "must trump with hearts")
    assert play_trick(deal, (0, "7H")) == S0
    assert deal.to_act == S0


def test_higher_trump_wins() -> None:
    deal = _suits_game("6S")
    play(deal, 1, "7D")
    # no diamonds: both defenders must trump; no obligation to overtrump
    assert deal.legal_actions() == [Play(S2, Card.SQ), Play(S2, Card.SJ)]
    play(deal, 2, "JS")
    assert deal.legal_actions() == [Play(S0, Card.S10), Play(S0, Card.S9)]
    assert play_trick(deal, (0, "10S")) == S2
    assert deal.to_act == S2
    # a trump lead: the declarer's ace takes it
    play(deal, 2, "QS")
    play(deal, 0, "9S")
    assert play_trick(deal, (1, "AS")) == S1
    assert deal.to_act == S1
    # seat 2 has only clubs left: on a diamond lead they are discards and never win
    play(deal, 1, "8D")
    assert legal_cards(deal) == deal.hand(S2)  # trumps gone
    assert play_trick(deal, (2, "AC"), (0, "AH")) == S1


def test_wrong_phase_during_the_auction() -> None:
    deal = table()
    assert_rejected(deal, Play(S1, Card.SA), Reason.WRONG_PHASE, "seat 1 plays AS", "auction")
    assert_rejected(deal, Whist(S1, W), Reason.WRONG_PHASE, "seat 1 must bid")
    assert_rejected(deal, Declare(S1, c("6S")), Reason.WRONG_PHASE)
    assert_rejected(deal, ChooseDefence(S1, OPEN), Reason.WRONG_PHASE)
    assert_rejected(deal, Discard(S1, (Card.SA, Card.SK)), Reason.WRONG_PHASE)
    assert_rejected(deal, Bid(S2, c("6S")), Reason.NOT_YOUR_TURN, "seat 1's turn to bid")


def test_actions_after_the_deal_is_over() -> None:
    deal = table_game()
    whist(deal, 2, W)
    whist(deal, 0, W)
    play_randomly(deal, random.Random(8))
    assert deal.is_over and deal.legal_actions() == []
    for action in (
        Play(S1, Card.SA),
        Bid(S1, None),
        Whist(S2, W),
        Declare(S1, c("6S")),
        ChooseDefence(S2, OPEN),
        Discard(S1, (Card.SA, Card.SK)),
    ):
        assert_rejected(deal, action, Reason.DEAL_OVER, str(action), "over")
    assert all(seat_view(deal, Seat(s)).legal == () for s in range(3))


def test_outcome_before_the_end_is_refused() -> None:
    """Asking an unfinished deal for its outcome is the caller's bug, not a player's move."""
    deal = table()
    with pytest.raises(ValueError, match="not over yet") as info:
        deal.outcome()
    assert type(info.value) is ValueError


# ============================================================ records


def _played_table_deal() -> Deal:
    deal = table_game("7S", discard="9H 8H", bid_with="6S")
    whist(deal, 2, P)
    whist(deal, 0, W)
    deal.apply(ChooseDefence(S0, OPEN))
    play_trick(deal, (1, "7H"), (2, "AH"), (0, "10H"))
    play(deal, 2, "KH")
    return deal


def test_record_round_trip() -> None:
    deal = _played_table_deal()
    data = json.loads(json.dumps(deal.to_json()))
    assert data["dealer"] == 0 and data["talon"] == ["9H", "8H"]
    assert data["moves"][:3] == [
        {"seat": 1, "bid": "6S"},
        {"seat": 2, "bid": "pass"},
        {"seat": 0, "bid": "pass"},
    ]
    assert {"seat": 1, "discard": ["9H", "8H"]} in data["moves"]
    assert {"seat": 0, "defence": "open"} in data["moves"]
    assert data["moves"][-1] == {"seat": 2, "play": "KH"}
    rebuilt = Deal.from_json(deal.settings, data)
    assert_same_state(deal, rebuilt)
    assert_same_state(deal, deal.replay())
    # both go on identically
    rng_a, rng_b = random.Random(1), random.Random(1)
    play_randomly(deal, rng_a)
    play_randomly(rebuilt, rng_b)
    assert_same_state(deal, rebuilt)
    assert_same_state(deal, Deal.from_json(deal.settings, deal.to_json()))


def test_record_round_trip_four_players_all_pass() -> None:
    deal = make_deal(MAGAZINE, "JS KD", players=4, dealer=0)
    bids(deal, (1, "pass"), (2, "pass"), (3, "pass"))
    for moves, _ in MAGAZINE_TRICKS[:4]:
        play_trick(deal, *moves)
    data = deal.to_json()
    assert data["hands"][0] == []
    # the talon leads are not moves
    assert len(data["moves"]) == 3 + 12
    assert_same_state(deal, Deal.from_json(deal.settings, data))


def test_record_with_an_illegal_move_names_its_index() -> None:
    deal = _played_table_deal()
    data = deal.to_json()
    moves = data["moves"]
    index = next(i for i, m in enumerate(moves) if m.get("play") == "AH")
    bad = copy.deepcopy(data)
    bad["moves"][index] = {"seat": 2, "play": "9S"}  # seat 2 holds hearts
    with pytest.raises(MoveError) as info:
        Deal.from_json(deal.settings, bad)
    assert info.value.index == index
    assert "must follow" in str(info.value)
    assert isinstance(info.value.__cause__, IllegalAction)
    assert info.value.__cause__.reason is Reason.MUST_FOLLOW_SUIT

    out_of_turn = copy.deepcopy(data)
    out_of_turn["moves"][1] = {"seat": 0, "bid": "pass"}
    with pytest.raises(MoveError) as info:
        Deal.from_json(deal.settings, out_of_turn)
    assert info.value.index == 1

    garbled = copy.deepcopy(data)
    garbled["moves"][4] = {"seat": 1, "contract": "11S"}
    with pytest.raises(MoveError) as info:
        Deal.from_json(deal.settings, garbled)
    assert info.value.index == 4

    extra = copy.deepcopy(data)
    extra["moves"].append({"seat": 2, "play": "KH"})  # already played
    with pytest.raises(MoveError) as info:
        Deal.from_json(deal.settings, extra)
    assert info.value.index == len(moves)


def test_deal_new_is_reproducible_and_complete() -> None:
    settings = DealSettings(players=4)
    a = Deal.new(settings, S2, random.Random(42))
    b = Deal.new(settings, S2, random.Random(42))
    assert a.to_json() == b.to_json()
    assert a.hand(S2) == frozenset() and a.active == (S3, S0, S1)
    check_invariants(a)


def test_referee_agrees_on_the_magazine_deal() -> None:
    deal = make_deal(MAGAZINE, "JS KD", players=4, dealer=0)
    bids(deal, (1, "pass"), (2, "pass"), (3, "pass"))
    for moves, _ in MAGAZINE_TRICKS:
        play_trick(deal, *moves)
    ref = referee(deal)
    assert [w for _, w in ref["tricks_list"]] == [w for _, w in MAGAZINE_TRICKS]
    assert snapshot(deal) == snapshot(deal.replay())


# ============================================================ malformed input


# No player can name a contract off the ladder (Кодекс 3.3.7): one was built by the caller,
# who gets a ValueError rather than an IllegalAction.


def test_malformed_misere_contract_is_refused() -> None:
    deal = table()
    bad = Bid(S1, Contract(6, Suit.SPADES, misere=True))
    assert_caller_error(deal, bad, ValueError, "not a contract of the bidding ladder")


@pytest.mark.parametrize("level", [5, 11])
def test_off_ladder_contract_is_refused(level: int) -> None:
    deal = table()
    bad_bid = Bid(S1, Contract(level, Suit.SPADES))
    assert_caller_error(deal, bad_bid, ValueError, "not a contract of the bidding ladder")
    win_auction(deal, 1)
    deal.apply(lowest_discard(deal))
    bad_contract = Declare(S1, Contract(level, None))
    assert_caller_error(deal, bad_contract, ValueError, "not a contract of the bidding ladder")


# ============================================================ points settled in docs/rules.md


@pytest.mark.parametrize("level", [7, 8, 9, 10])
def test_misere_is_a_valid_first_call_whatever_raspasy_exit_says(level: int) -> None:
    # docs/rules.md, "All-pass": misère stays a valid first call however high the exit.
    deal = table(min_level=level)
    floor = c(f"{level}S")
    calls = [floor, MISERE] if level < 9 else [MISERE, floor]  # misère sits below 9♠
    assert deal.legal_actions() == [Bid(S1, x) for x in calls] + [Bid(S1, None)]
    assert_rejected(deal, Bid(S1, c(f"{level - 1}NT")), Reason.BID_BELOW_MINIMUM)
    bid(deal, 1, "misere")
    # after the misère only trick bids at the exit level and at 9 or higher remain
    lowest = max(level, 9)
    legal = deal.legal_actions()
    assert all(isinstance(b, Bid) for b in legal)
    assert [b.contract for b in legal if isinstance(b, Bid)] == [c(f"{lowest}S"), None]
    bids(deal, (2, "pass"), (0, "pass"))
    assert deal.declarer == S1 and deal.kind is DealKind.MISERE


def test_four_player_dealer_never_whists_half_whists_or_returns() -> None:
    # docs/rules.md, "Whisting": the sitting-out dealer (seat 0) is never asked; after
    # "пас — полвиста" only the first defender may return the whist (Кодекс 3.8.8 would
    # let the dealer do it too; the project does not).
    for second_answer, last in ((HALF, P), (HALF, W), (P, None)):
        deal = make_deal(MAGAZINE, "JS KD", players=4, dealer=0)
        win_auction(deal, 1, "6S")
        deal.apply(lowest_discard(deal))
        deal.apply(Declare(S1, c("6S")))
        assert deal.defenders == (S2, S3)
        answers = [(2, P), (3, second_answer)] + ([(2, last)] if last is not None else [])
        for seat, answer in answers:
            for dealer_answer in (W, P, HALF):
                assert_rejected(deal, Whist(S0, dealer_answer), Reason.NOT_YOUR_TURN)
            whist(deal, seat, answer)
            assert deal.to_act != S0
        out = deal.outcome() if deal.is_over else None
        if last is W:
            assert deal.phase is Phase.DEFENCE and deal.whisters == (S2,)
        else:
            assert out is not None and S0 not in out.whists and out.tricks is None
