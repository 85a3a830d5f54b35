"""Classic decisions with the answers a strong player gives (the computer player at its
full budget). Each deal is complete and legal; where it matters, the exact solver shows
on the deal itself what the right answer makes.

Dealer seat 0 in every deal: seat 1 is the first hand (bids and leads first), then seat
2, then seat 0.
"""

from __future__ import annotations

import random
from typing import cast

from bot.preferans.actions import Action, Bid, Declare, Discard
from bot.preferans.cards import Card, Suit
from bot.preferans.contracts import MISERE, Contract, parse_contract
from bot.preferans.deal import Deal, Phase
from bot.preferans.outcome import DealKind, WhistAnswer
from bot.preferans.robot import STRONG, choose
from bot.preferans.robot.evaluation import best_misere_discard
from bot.preferans.robot.knowledge import SINK, knowledge_of
from bot.preferans.robot.sampling import sample_layout
from bot.preferans.robot.simple_play import simple_card
from bot.preferans.seats import Seat
from bot.preferans.solver import Goal, Position, Solver
from bot.preferans.views import seat_view
from tests.engine_helpers import bids, cards, make_deal, play, whist

S0, S1, S2 = Seat.S0, Seat.S1, Seat.S2


def robot(deal: Deal, seed: int = 1) -> Action:
    """The computer player's action for the seat on turn (not applied)."""
    actor = deal.actor
    assert actor is not None
    return choose(seat_view(deal, actor), random.Random(seed), budget=STRONG)


def declare_by_robot(deal: Deal) -> Contract:
    """The declarer (a computer player) discards and names his contract."""
    discard = robot(deal)
    assert isinstance(discard, Discard)
    deal.apply(discard)
    declare = robot(deal)
    assert isinstance(declare, Declare)
    deal.apply(declare)
    return declare.contract


def declared_after_six_spades(hands: dict[int, str], talon: str) -> tuple[Deal, Contract]:
    """Seat 1 bids 6♠, the others pass, and the computer player discards and declares."""
    deal = make_deal(hands, talon)
    bids(deal, (1, "6S"), (2, "pass"), (0, "pass"))
    return deal, declare_by_robot(deal)


def declared_after(
    hands: dict[int, str], talon: str, dealer: int, *calls: tuple[int, str]
) -> tuple[Deal, Contract]:
    """The auction ``calls``, then the computer player discards and declares."""
    deal = make_deal(hands, talon, dealer=dealer)
    bids(deal, *calls)
    return deal, declare_by_robot(deal)


def best_play(deal: Deal, trump: Suit | None) -> int:
    """The declarer's tricks with best play, all cards open, after his discard."""
    declarer = deal.declarer
    assert declarer is not None
    pos = Position(
        hands={s: frozenset(deal.hand(s)) for s in deal.active},
        order=cast(tuple[Seat, Seat, Seat], deal.active),
        leader=deal.active[0],
        trick=(),
        trump=trump,
    )
    return Solver(Goal.TRICKS, declarer).solve(pos)


def test_a_cold_ten_is_named() -> None:
    """♠AKQJ109 ♣AK ♦A ♥A, talon ♦7 ♥7: ten tricks whatever the defenders hold."""
    deal, contract = declared_after_six_spades(
        {
            1: "AS KS QS JS 10S 9S AC KC AD AH",
            2: "8S 10C JC QC KD QD JD 10D 9D 8D",
            0: "7S 7C 8C 9C 8H 9H 10H JH QH KH",
        },
        "7D 7H",
    )
    assert contract == Contract(10, Suit.SPADES)
    assert best_play(deal, Suit.SPADES) == 10


def test_no_six_without_aces() -> None:
    """♠QJ109 ♣KQJ10 ♦8 ♥7 over 6♠: three tricks at best, so no 6♣."""
    deal = make_deal(
        {
            1: "AS KS 8S 7S AC 9C AD KD AH KH",
            2: "QS JS 10S 9S KC QC JC 10C 8D 7H",
            0: "8C 7C QD JD 10D 9D QH JH 10H 9H",
        },
        "7D 8H",
    )
    bids(deal, (1, "6S"))
    action = robot(deal)
    assert action == Bid(S2, None)
    # What 6♣ would have made: the talon's two low cards kept, all open, three tricks.
    kept = frozenset(cards("QS JS 10S 9S KC QC JC 10C 7H 8H"))
    pos = Position(
        hands={S1: frozenset(deal.hand(S1)), S2: kept, S0: frozenset(deal.hand(S0))},
        order=(S1, S2, S0),
        leader=S1,
        trick=(),
        trump=Suit.CLUBS,
    )
    assert Solver(Goal.TRICKS, S2).solve(pos) == 3


def test_no_no_trump_with_a_void_in_the_auction() -> None:
    """♠KJ98 ♣AKQJ ♦KQ and no heart: the hand plays in clubs; 7NT would make 2 tricks
    against ♥AKQJ109. Seat 2 keeps raising; the computer player never bids no trump."""
    deal = make_deal(
        {
            1: "KS JS 9S 8S AC KC QC JC KD QD",
            2: "AH KH QH JH 10H 9H 7S 10S 7C 8C",
            0: "8H 7H AS QS 9C 10C JD 10D 8D 7D",
        },
        "9D AD",
    )
    ladder = ["6C", "6D", "6H", "6NT", "7S", "7C", "7D", "7H"]
    while deal.phase is Phase.AUCTION:
        actor = deal.actor
        if actor == S1:
            action = robot(deal)
            assert isinstance(action, Bid)
            assert action.contract is None or action.contract.trump is not None, action
            deal.apply(action)
        elif actor == S2:
            high = deal.highest_bid
            step = next((c for c in ladder if high is None or parse_contract(c) > high), None)
            bids(deal, (2, step or "pass"))
        else:
            bids(deal, (0, "pass"))
    if deal.declarer == S1:
        contract = declare_by_robot(deal)
        assert contract.trump is not None
        assert best_play(deal, contract.trump) >= contract.level


def test_no_no_trump_with_two_voids() -> None:
    """♠Q1098 ♣KQJ1098, talon ♥7 ♠A: eight in either black suit, no trump 2.

    8♣ and 8♠ are worth about the same over the layouts the declarer cannot tell apart
    (within a trick in every one), so either is a strong player's answer; 7NT is not."""
    deal, contract = declared_after_six_spades(
        {
            1: "QS 10S 9S 8S KC QC JC 10C 9C 8C",
            2: "KS 7S AC AD KD QD JD 10D 9D 8D",
            0: "JS 7C 7D AH KH QH JH 10H 9H 8H",
        },
        "7H AS",
    )
    assert contract in (Contract(8, Suit.CLUBS), Contract(8, Suit.SPADES))
    assert best_play(deal, contract.trump) == 8
    assert best_play(deal, Suit.CLUBS) == 8
    assert best_play(deal, None) <= 3


def test_eight_spades_not_six_no_trump() -> None:
    """♠AKQJ8 ♣AK ♦KQ ♥8, talon ♥7 ♣7: 8♠ makes 8, 6NT only 7 (the hearts run)."""
    deal, contract = declared_after_six_spades(
        {
            1: "AS KS QS JS 8S AC KC KD QD 8H",
            2: "10S 9S 7S QC JC 10C 9C JD 10D 9D",
            0: "8C 8D 7D AD AH KH QH JH 10H 9H",
        },
        "7H 7C",
    )
    assert contract == Contract(8, Suit.SPADES)
    assert best_play(deal, Suit.SPADES) == 8


MISERE_HAND = "KC QC JC 9C 7C QD JD 8D 7D QH"


def test_no_misere_with_a_long_broken_suit() -> None:
    """♣KQJ97 ♦QJ87 ♥Q: no hole by the count, but five tricks with best defence here."""
    deal = make_deal(
        {
            1: MISERE_HAND,
            2: "7S JS 10C AC 9D AD 7H 9H 10H JH",
            0: "8S 9S 10S QS KS AS 8C 10D KD KH",
        },
        "AH 8H",
    )
    action = robot(deal)
    assert isinstance(action, Bid) and action.contract != MISERE
    hand12 = (*deal.hand(S1), *deal.talon)
    pair, _ = best_misere_discard(hand12)
    pos = Position(
        hands={
            S1: frozenset(c for c in hand12 if c not in pair),
            S2: frozenset(deal.hand(S2)),
            S0: frozenset(deal.hand(S0)),
        },
        order=(S1, S2, S0),
        leader=S1,
        trick=(),
        trump=None,
    )
    assert Solver(Goal.MISERE, S1).solve(pos) == 5


def _misere_deal() -> Deal:
    """Seat 2 plays misère; the talon's two aces go to his discard."""
    deal = make_deal(
        {
            2: "9S JS 7C 9C 7D 9D 7H 8H 9H JH",
            1: "7S 8S QS KS 8C 10C QC 8D 10D QD",
            0: "10S AS JC KC AC JD KD 10H QH KH",
        },
        "AD AH",
    )
    bids(deal, (1, "pass"), (2, "misere"), (0, "pass"))
    deal.apply(Discard(S2, (Card.DA, Card.HA)))
    deal.apply(Declare(S2, MISERE))
    while deal.phase is not Phase.PLAY:
        deal.apply(robot(deal))
    assert deal.kind is DealKind.MISERE
    return deal


def test_catcher_over_the_declarer_throws_his_highest() -> None:
    """Forced over the declarer's card, a catcher plays his highest one and keeps the low
    card that may force the declarer later (the rules of thumb behind the search)."""
    deal = _misere_deal()
    play(deal, 1, "8S")
    play(deal, 2, "9S")
    # Seat 0 holds ♠10 ♠A, both above the declarer's nine: the ace goes, the ten stays
    # under his jack.
    assert simple_card(seat_view(deal, S0)) == Card.SA


def test_catchers_know_the_misere_talon_aces_are_discarded() -> None:
    """A misère declarer throws the talon's aces: every sample a catcher deals puts them
    in the discard, never in the declarer's hand."""
    deal = _misere_deal()
    play(deal, 1, "8S")
    know = knowledge_of(seat_view(deal, S0))
    assert know.only[Card.DA] == frozenset({SINK})
    rng = random.Random(4)
    for _ in range(30):
        hands, sink = sample_layout(know, rng)
        assert set(sink) == {Card.DA, Card.HA}
        assert not (hands[S2] & {Card.DA, Card.HA})


def test_declarer_remembers_his_discard_after_the_first_lead() -> None:
    """Кодекс 3.4.9 forbids looking at the discard after the first lead, not knowing it:
    the declarer's samples never give his discarded cards to the defenders."""
    deal = make_deal(
        {
            1: "AS KS QS JS 10S AC KC QC AD AH",
            2: "9S 8S 7S JC 10C 9C KD QD JD 10D",
            0: "8C 7C 9D 8D 7D KH QH JH 10H 9H",
        },
        "8H 7H",
    )
    bids(deal, (1, "6S"), (2, "pass"), (0, "pass"))
    deal.apply(Discard(S1, (Card.HA, Card.CQ)))
    deal.apply(Declare(S1, Contract(6, Suit.SPADES)))
    whist(deal, 2, WhistAnswer.WHIST)
    whist(deal, 0, WhistAnswer.WHIST)
    play(deal, 1, "AS")  # the first lead: from now on the discard is out of sight
    know = knowledge_of(seat_view(deal, S1))
    assert know.sink == 0
    assert Card.HA not in know.unknown and Card.CQ not in know.unknown
    rng = random.Random(2)
    for _ in range(20):
        hands, sink = sample_layout(know, rng)
        assert sink == ()
        assert all(Card.HA not in hands[s] and Card.CQ not in hands[s] for s in (S2, S0))


def test_no_strain_chosen_over_one_the_layouts_could_not_solve() -> None:
    """♠KQJ9 ♦AKJ107 ♣7 + talon ♥7 ♥9 after 6♠: spades or diamonds make six, hearts (one
    heart left) none. The long diamonds are the dearest to solve, and when they went
    unsolved in budget the judging chose among the rest and named 6♥."""
    deal = make_deal(
        {
            0: "8S AC QC JC 10C QD 9D AH 10H 8H",
            1: "AS 10S 7S KC 9C 8C 8D KH QH JH",
            2: "KS QS JS 9S 7C AD KD JD 10D 7D",
        },
        "7H 9H",
    )
    bids(deal, (1, "pass"), (2, "6S"), (0, "pass"))
    contract = declare_by_robot(deal)
    assert contract.trump in (Suit.SPADES, Suit.DIAMONDS)
    assert best_play(deal, contract.trump) >= contract.level


def test_the_long_trump_suit_named_when_its_layouts_go_unsolved() -> None:
    """♣AK1097 ♦KQJ ♠A ♥10 after 6♠ (the talon ♦J ♦Q): clubs make eight, no trump three
    (the hearts run). Clubs are the dearest to solve and went unsolved in budget; the
    counts then named 6NT by its wider margin over a cheaper level."""
    deal = make_deal(
        {
            0: "KS 9S 8S QC JC 8C AD 10D 9D 7D",
            1: "AS 10S AC KC 10C 9C 7C KD 10H 9H",
            2: "QS JS 7S 8D AH KH QH JH 8H 7H",
        },
        "JD QD",
        dealer=2,
    )
    bids(deal, (0, "pass"), (1, "6S"), (2, "pass"))
    contract = declare_by_robot(deal)
    assert contract.trump is Suit.CLUBS
    assert best_play(deal, Suit.CLUBS) == 8
    assert best_play(deal, None) <= 3


def test_no_seven_on_a_lucky_few_layouts() -> None:
    """♥AQ108 ♦AK9 ♣A9 ♠Q kept after 6♠ (talon ♥10 ♣7): six hearts with best play. Seven
    made in most of the twelve layouts dealt, so its mean worth beat the six's; less
    its standard error it does not, and 6♥ is named."""
    deal = make_deal(
        {
            0: "QS AC 9C 8C AD KD 9D AH QH 8H",
            1: "KS JS 10S 9S KC QC 10C 10D 8D 7D",
            2: "AS 8S 7S JC QD JD KH JH 9H 7H",
        },
        "10H 7C",
    )
    bids(deal, (1, "pass"), (2, "pass"), (0, "6S"))
    # That ten kept (the discard may now keep another, ♠Q thrown, that makes seven).
    deal.apply(Discard(S0, (Card.C8, Card.C7)))
    declare = robot(deal)
    assert isinstance(declare, Declare)
    deal.apply(declare)
    assert declare.contract == Contract(6, Suit.HEARTS)
    assert best_play(deal, Suit.HEARTS) == 6


def test_the_clubs_kept_with_a_short_heart() -> None:
    """♣AK107 ♠AK9 ♦K9 ♥J98 after 6♠ (the talon ♦9 ♠9), six clubs named: throwing ♠9 ♥8
    (the count's first ten) makes five; throwing ♥9 ♥8, the ♥J left alone, makes six."""
    deal, contract = declared_after(
        {
            0: "8S 10S JS 9C 8D JD AD 7H QH KH",
            1: "7S QS 8C JC QC 7D 10D QD 10H AH",
            2: "KS AS 7C 10C KC AC KD 8H 9H JH",
        },
        "9D 9S",
        1,
        (2, "6S"),
        (0, "pass"),
        (1, "pass"),
    )
    assert contract == Contract(6, Suit.CLUBS)
    assert best_play(deal, Suit.CLUBS) == 6


def test_a_strain_half_solved_and_short_leaves_the_choice_to_the_layouts() -> None:
    """♠KJ98 ♣AQJ8 ♦A ♥A kept after 6♠ (a deal of a robot-only pulka): no trump, which the
    counts rank first, was solved in only three of seven layouts, taking 5, 5 and 6;
    spades took 7 in all six of theirs. The unsolved strain handed the choice back to
    the counts, which named 6NT (five tricks with best play); spades make seven."""
    deal, contract = declared_after(
        {
            0: "8S 9S JS KS 8C AC 10D AD 9H AH",
            1: "10S AS 7C 10C KC 8D KD 7H 8H KH",
            2: "7S QS 9C 7D 9D JD QD 10H JH QH",
        },
        "QC JC",
        2,
        (0, "6S"),
        (1, "pass"),
        (2, "pass"),
    )
    assert contract == Contract(7, Suit.SPADES)
    assert best_play(deal, Suit.SPADES) == 7
    assert best_play(deal, None) == 5
