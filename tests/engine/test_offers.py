"""Offers ("остальные мои", record format "Offers"): made, accepted, refused, refused as illegal."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.preferans.actions import Accept, ChooseDefence, Offer, Play, Reason, action_from_json
from bot.preferans.conventions import Rules
from bot.preferans.deal import Deal, Phase
from bot.preferans.game import Game
from bot.preferans.outcome import DealKind, DealOutcome, Defence
from bot.preferans.record import RecordError
from bot.preferans.scoring import Pulka
from bot.preferans.seats import Seat
from bot.preferans.views import public_view, seat_view
from bot.replay import main as replay_main
from tests.engine_helpers import (
    P,
    W,
    assert_caller_error,
    assert_rejected,
    bid,
    check_invariants,
    lowest_discard,
    random_deal,
    whist,
    win_auction,
)
from tests.engine_helpers import c as contract
from tests.strategies import DealPlan, deals

S0, S1, S2, S3 = Seat(0), Seat(1), Seat(2), Seat(3)


# ---------------------------------------------------------------- building deals


def declare(deal: Deal, code: str) -> None:
    from bot.preferans.actions import Declare

    deal.apply(lowest_discard(deal))
    assert deal.declarer is not None
    deal.apply(Declare(deal.declarer, contract(code)))


def game_deal(seed: int = 3, *, players: int = 3, declarer: int = 1) -> Deal:
    """6♠ by ``declarer``, both defenders whist (closed play)."""
    deal = random_deal(seed, players=players)
    win_auction(deal, declarer, "6S")
    declare(deal, "6S")
    for seat in deal.defenders:
        whist(deal, seat, W)
    assert deal.phase is Phase.PLAY
    return deal


def open_deal(seed: int = 3) -> Deal:
    """6♠ by seat 2; seat 0 whists, seat 1 (the first hand) passes; open defence."""
    deal = random_deal(seed)
    win_auction(deal, 2, "6S")
    declare(deal, "6S")
    whist(deal, 0, W)
    whist(deal, 1, P)
    deal.apply(ChooseDefence(S0, Defence.OPEN))
    assert deal.open_passer == S1 and deal.to_act == S1 and deal.actor == S0
    return deal


def misere_deal(seed: int = 3, *, players: int = 3) -> Deal:
    deal = random_deal(seed, players=players)
    first = deal.first_hand
    win_auction(deal, int(first), "misere")
    declare(deal, "misere")
    assert deal.kind is DealKind.MISERE and deal.phase is Phase.PLAY
    return deal


def all_pass_deal(seed: int = 3, *, players: int = 3) -> Deal:
    deal = random_deal(seed, players=players)
    for _ in range(3):
        assert deal.to_act is not None
        bid(deal, int(deal.to_act), "pass")
    assert deal.kind is DealKind.ALL_PASS
    return deal


def play_to_trick(deal: Deal, number: int) -> None:
    """Play the first legal card until trick ``number`` waits for its lead."""
    while not (deal.trick_number == number and not deal.current_trick):
        action = deal.legal_actions()[0]
        assert isinstance(action, Play)
        deal.apply(action)


def all_to(deal: Deal, seat: Seat) -> Offer:
    """The offer giving every trick left to ``seat``, made by whoever may offer now."""
    left = 10 - (deal.trick_number - 1)
    tricks = tuple(left if s == int(seat) else 0 for s in range(deal.players))
    offerer = deal.actor
    assert offerer is not None
    return Offer(offerer, tricks)


# ---------------------------------------------------------------- accepted


def test_accepted_offer_ends_the_deal_with_tricks_taken_plus_offer() -> None:
    deal = game_deal()
    play_to_trick(deal, 4)
    leader = deal.to_act
    assert leader is not None
    before = tuple(deal.tricks)
    offer = all_to(deal, leader)
    assert offer in deal.offer_actions()
    deal.apply(offer)
    # the others answer in turn from the offerer's left
    first = leader.next(3)
    second = first.next(3)
    assert deal.open_offer is not None and deal.open_offer.answerers == (first, second)
    assert deal.to_act == first and deal.actor == first
    assert deal.legal_actions() == [Accept(first, True), Accept(first, False)]
    assert deal.offer_actions() == []
    deal.apply(Accept(first, True))
    assert deal.phase is Phase.PLAY and deal.to_act == second
    deal.apply(Accept(second, True))
    assert deal.is_over and deal.open_offer is None
    expected = tuple(b + o for b, o in zip(before, offer.tricks, strict=True))
    assert deal.outcome().tricks == expected
    assert sum(expected) == 10 and expected[leader] == before[leader] + 7
    assert deal.legal_actions() == []


def test_offer_at_the_first_lead_and_at_the_last_trick() -> None:
    deal = game_deal(seed=5)
    leader = deal.to_act
    assert leader is not None and deal.trick_number == 1
    deal.apply(Offer(leader, tuple(10 if s == leader else 0 for s in range(3))))
    deal.apply(Accept(leader.next(3), True))
    deal.apply(Accept(leader.next(3).next(3), True))
    assert deal.outcome().tricks == tuple(10 if s == leader else 0 for s in range(3))

    deal = game_deal(seed=5)
    play_to_trick(deal, 10)
    left = deal.to_act
    assert left is not None
    assert_rejected(deal, Offer(left, (1, 1, 0)), Reason.OFFER_BAD_TRICKS, "sum to the 1")
    deal.apply(all_to(deal, left.next(3)))


def test_an_accepted_offer_is_scored_from_its_tricks() -> None:
    """The sheet after an accepted offer is the sheet of the same tricks given as a result."""
    rules = Rules.from_json({"convention": "sochi", "pulka": 10})
    game = Game(rules, ["Анна", "Борис", "Вера"])
    rng = random.Random(11)
    deal = game.start_deal(rng)
    win_auction(deal, 1, "6S")
    game.apply(lowest_discard(deal))
    from bot.preferans.actions import Declare, Whist

    game.apply(Declare(S1, contract("7S")))
    game.apply(Whist(S2, W))
    game.apply(Whist(S0, W))
    for _ in range(6):  # two tricks
        game.apply(deal.legal_actions()[0])
    leader = deal.to_act
    assert leader is not None
    # the declarer, or a defender, offers: the declarer gets 7 overall, one defender the rest
    need = 7 - deal.tricks[S1]
    tricks = [0, 0, 0]
    tricks[1] = need
    tricks[2] = 8 - need
    offerer = deal.actor
    assert offerer is not None
    game.apply(Offer(offerer, tuple(tricks)))
    for seat in deal.open_offer.answerers if deal.open_offer else ():
        game.apply(Accept(seat, True))
    assert game.current is None and len(game.finished_deals) == 1
    outcome = game.finished_deals[0].outcome
    assert outcome.tricks is not None and outcome.tricks[1] == 7
    ref = Pulka(rules, 3)
    same = DealOutcome(
        players=3,
        dealer=outcome.dealer,
        kind=DealKind.GAME,
        declarer=S1,
        contract=contract("7S"),
        whists=dict(outcome.whists),
        defence=outcome.defence,
        tricks=outcome.tricks,
    )
    assert game.finished_deals[0].sheet == ref.score(same)


# ---------------------------------------------------------------- refused


def test_one_refusal_withdraws_the_offer_and_the_offerer_still_leads() -> None:
    deal = game_deal()
    play_to_trick(deal, 3)
    leader = deal.to_act
    assert leader is not None
    before_tricks = tuple(deal.tricks)
    deal.apply(all_to(deal, leader))
    first = deal.to_act
    assert first is not None
    deal.apply(Accept(first, True))
    second = deal.to_act
    assert second is not None and second != first
    deal.apply(Accept(second, False))
    assert deal.open_offer is None and deal.phase is Phase.PLAY
    assert deal.to_act == leader and deal.actor == leader
    assert tuple(deal.tricks) == before_tricks
    assert all(isinstance(a, Play) for a in deal.legal_actions())
    check_invariants_without_offers(deal)
    # the offerer leads, and may offer again at a later lead
    deal.apply(deal.legal_actions()[0])
    assert len(deal.current_trick) == 1
    assert_rejected(deal, Offer(leader, (3, 3, 2)), Reason.OFFER_MID_TRICK)


def test_refusal_by_the_first_answerer_withdraws_at_once() -> None:
    deal = all_pass_deal(seed=8)
    play_to_trick(deal, 5)
    leader = deal.to_act
    assert leader is not None
    deal.apply(all_to(deal, leader.next(3)))
    deal.apply(Accept(leader.next(3), False))
    assert deal.open_offer is None and deal.to_act == leader
    # the records of the moves are kept for the replay
    kinds = [list(m)[1] for m in deal.to_json()["moves"][-2:]]
    assert kinds == ["offer", "accept"]
    copy = Deal.from_json(deal.settings, deal.to_json())
    assert public_view(copy) == public_view(deal)


def check_invariants_without_offers(deal: Deal) -> None:
    """The shared invariants hold again once no offer is open."""
    assert deal.open_offer is None
    check_invariants(deal)


# ---------------------------------------------------------------- illegal offers and answers


def test_offer_by_a_seat_that_does_not_lead_is_refused() -> None:
    deal = game_deal()
    play_to_trick(deal, 2)
    leader = deal.to_act
    assert leader is not None
    other = leader.next(3)
    assert_rejected(
        deal, Offer(other, (3, 3, 3)), Reason.OFFER_NOT_LEADER, f"only seat {int(leader)}"
    )


def test_offer_after_the_lead_card_is_refused() -> None:
    deal = game_deal()
    play_to_trick(deal, 2)
    leader = deal.to_act
    assert leader is not None
    deal.apply(deal.legal_actions()[0])
    # neither the leader nor the seat to play second may offer once a card is down
    assert_rejected(deal, Offer(leader, (3, 3, 3)), Reason.OFFER_MID_TRICK)
    nxt = deal.to_act
    assert nxt is not None
    assert_rejected(deal, Offer(nxt, (3, 3, 3)), Reason.OFFER_MID_TRICK, "already played")
    assert deal.offer_actions() == []


@pytest.mark.parametrize(
    ("tricks", "fragment"),
    [
        ((3, 3, 2), "sum to the 9"),
        ((3, 3, 4), "sum to the 9"),
    ],
)
def test_offer_with_bad_numbers_is_refused(tricks: tuple[int, ...], fragment: str) -> None:
    deal = game_deal()
    play_to_trick(deal, 2)
    leader = deal.to_act
    assert leader is not None
    assert_rejected(deal, Offer(leader, tricks), Reason.OFFER_BAD_TRICKS, fragment)


def test_offer_outside_the_play_is_refused() -> None:
    deal = random_deal(4)
    assert_rejected(deal, Offer(S1, (0, 10, 0)), Reason.WRONG_PHASE, "only during the play")
    assert_rejected(deal, Accept(S1, True), Reason.NO_OFFER)


def test_answers_out_of_turn_without_an_offer_and_by_the_offerer() -> None:
    deal = game_deal()
    play_to_trick(deal, 2)
    leader = deal.to_act
    assert leader is not None
    assert_rejected(deal, Accept(leader.next(3), True), Reason.NO_OFFER)
    deal.apply(all_to(deal, leader))
    first, second = leader.next(3), leader.next(3).next(3)
    assert_rejected(deal, Accept(second, True), Reason.NOT_YOUR_TURN, f"seat {int(first)}")
    assert_rejected(deal, Accept(leader, True), Reason.NOT_ANSWERING)
    # nothing but the answer while the offer is open: no card, no second offer
    card = next(iter(deal.hand(leader)))
    assert_rejected(deal, Play(leader, card), Reason.OFFER_OPEN, "answer the offer")
    assert_rejected(deal, all_to(deal, first), Reason.OFFER_OPEN)


def test_misere_offer_and_answers() -> None:
    deal = misere_deal()
    declarer = deal.declarer
    assert declarer is not None
    play_to_trick(deal, 3)
    leader = deal.to_act
    assert leader is not None
    # the misère player is offered no more tricks: he keeps those taken so far
    taken = tuple(deal.tricks)
    tricks = [0, 0, 0]
    receiver = next(s for s in deal.active if s != declarer)
    tricks[receiver] = 8
    deal.apply(Offer(leader, tuple(tricks)))
    for seat in deal.open_offer.answerers if deal.open_offer else ():
        assert seat != leader
        deal.apply(Accept(seat, True))
    assert deal.is_over
    result = deal.outcome().tricks
    assert result is not None and result[declarer] == taken[declarer]


def test_all_pass_talon_tricks_cannot_be_offered_on() -> None:
    """On all-pass tricks 1 and 2 the talon card is already in the trick (Кодекс 3.7.6)."""
    deal = all_pass_deal(seed=6)
    first = deal.first_hand
    assert deal.current_trick and deal.current_trick[0].from_talon
    assert_rejected(deal, Offer(first, (0, 10, 0)), Reason.OFFER_MID_TRICK)
    play_to_trick(deal, 3)
    leader = deal.to_act
    assert leader == first  # Кодекс 3.7.6.1: trick 3 is led by the first hand
    offer = all_to(deal, S2)
    deal.apply(offer)
    assert deal.open_offer is not None and len(deal.open_offer.answerers) == 2
    for seat in deal.open_offer.answerers:
        deal.apply(Accept(seat, True))
    assert deal.is_over and sum(deal.outcome().tricks or ()) == 10


# ---------------------------------------------------------------- open defence


def test_open_defence_the_whister_offers_for_the_passer_lead() -> None:
    deal = open_deal()
    # the passer's hand leads trick 1; the whister offers, the passer may not
    assert_rejected(deal, Offer(S1, (0, 0, 10)), Reason.OFFER_NOT_LEADER, "only seat 0")
    offer = Offer(S0, (4, 0, 6))
    # any split that fits may be offered; offer_actions() lists only the usual ones
    assert deal.can(offer) and offer not in deal.offer_actions()
    assert deal.offer_actions_for(S1) == [] and deal.offer_actions_for(S0)
    deal.apply(offer)
    # only the declarer answers; the passer does not
    assert deal.open_offer is not None and deal.open_offer.answerers == (S2,)
    assert_rejected(deal, Accept(S1, True), Reason.NOT_ANSWERING)
    deal.apply(Accept(S2, True))
    assert deal.outcome().tricks == (4, 0, 6)


def test_open_defence_declarer_offer_is_answered_by_the_whister_alone() -> None:
    deal = next(d for d in (open_deal(seed) for seed in range(40)) if plays_until_leads(d, S2))
    offer = all_to(deal, S2)
    assert offer.seat == S2
    deal.apply(offer)
    assert deal.open_offer is not None and deal.open_offer.answerers == (S0,)
    assert deal.to_act == S0 and deal.actor == S0
    assert_rejected(deal, Accept(S1, False), Reason.NOT_ANSWERING)
    # the whister sees the declarer's hand; the passer (not answering) does not
    whister_view = seat_view(deal, S0)
    assert frozenset(whister_view.offer_hand) == deal.hand(S2)
    assert seat_view(deal, S1).offer_hand == ()
    deal.apply(Accept(S0, False))
    assert deal.to_act == S2 and deal.open_offer is None


def plays_until_leads(deal: Deal, seat: Seat) -> bool:
    """Play the first legal card until ``seat``'s hand leads a trick; false if it never does."""
    while not deal.is_over:
        if deal.to_act == seat and not deal.current_trick:
            return True
        deal.apply(deal.legal_actions()[0])
    return False


# ---------------------------------------------------------------- four players


def test_four_players_the_dealer_neither_takes_nor_answers() -> None:
    deal = game_deal(seed=9, players=4, declarer=2)
    assert deal.dealer == S0 and not deal.hand(S0)
    play_to_trick(deal, 2)
    leader = deal.to_act
    assert leader is not None and leader != S0
    left = 9
    bad = tuple(1 if s == 0 else (left - 1 if s == int(leader) else 0) for s in range(4))
    assert_rejected(deal, Offer(leader, bad), Reason.OFFER_BAD_TRICKS, "does not play")
    # three numbers at a table of four: the caller's bug (test_caller_errors.py)
    assert_caller_error(deal, Offer(leader, (0, 9, 0)), ValueError, "one number per player (4)")
    offer = all_to(deal, leader)
    assert all(o.tricks[0] == 0 for o in deal.offer_actions())
    deal.apply(offer)
    open_offer = deal.open_offer
    assert open_offer is not None and S0 not in open_offer.answerers
    assert len(open_offer.answerers) == 2
    assert_rejected(deal, Accept(S0, True), Reason.NOT_ANSWERING)
    # the sitting-out dealer is told about the offer but does not see the offerer's hand
    assert seat_view(deal, S0).offer_hand == ()
    assert public_view(deal).offer == offer
    for seat in open_offer.answerers:
        assert frozenset(seat_view(deal, seat).offer_hand) == deal.hand(leader)
        deal.apply(Accept(seat, True))
    tricks = deal.outcome().tricks
    assert tricks is not None and tricks[0] == 0 and sum(tricks) == 10


def test_four_players_all_pass_and_misere() -> None:
    deal = all_pass_deal(seed=12, players=4)
    assert_rejected(deal, Offer(deal.first_hand, (0, 10, 0, 0)), Reason.OFFER_MID_TRICK)
    play_to_trick(deal, 3)
    leader = deal.to_act
    assert leader is not None
    deal.apply(all_to(deal, leader))
    for seat in deal.open_offer.answerers if deal.open_offer else ():
        deal.apply(Accept(seat, True))
    assert deal.is_over

    deal = misere_deal(seed=12, players=4)
    leader = deal.to_act
    assert leader is not None
    offer = all_to(deal, deal.active[1])
    deal.apply(offer)
    assert deal.open_offer is not None
    deal.apply(Accept(deal.open_offer.answerers[0], False))
    assert deal.to_act == leader


# ---------------------------------------------------------------- views


def test_views_show_the_open_offer_and_the_offerer_hand_to_those_who_answer() -> None:
    deal = game_deal()
    play_to_trick(deal, 3)
    leader = deal.to_act
    assert leader is not None
    view = seat_view(deal, leader)
    assert view.offers == tuple(deal.offer_actions()) and view.offers
    assert all(not isinstance(a, Offer) for a in view.legal)
    assert seat_view(deal, leader.next(3)).offers == ()
    offer = all_to(deal, leader)
    deal.apply(offer)
    pub = public_view(deal)
    assert pub.offer == offer and pub.offer_accepted == ()
    assert not (pub.visible_cards() & deal.hand(leader))
    first = leader.next(3)
    for seat in (first, first.next(3)):
        sv = seat_view(deal, seat)
        assert frozenset(sv.offer_hand) == deal.hand(leader)
        assert deal.hand(leader) <= sv.visible_cards()
    assert seat_view(deal, leader).offer_hand == ()
    deal.apply(Accept(first, True))
    assert public_view(deal).offer_accepted == (first,)
    deal.apply(Accept(first.next(3), False))
    assert public_view(deal).offer is None
    assert seat_view(deal, first).offer_hand == ()


def test_sensible_offers_include_the_contract_exactly_for_the_declarer() -> None:
    deal = game_deal()
    declarer = deal.declarer
    assert declarer is not None
    assert plays_until_leads(deal, declarer)
    offers = deal.offer_actions()
    left = 10 - (deal.trick_number - 1)
    need = 6 - deal.tricks[declarer]
    for offer in offers:
        assert deal.can(offer) and sum(offer.tricks) == left
    assert Offer(declarer, tuple(left if s == declarer else 0 for s in range(3))) in offers
    if 0 < need < left:
        assert any(o.tricks[declarer] == need for o in offers)


# ---------------------------------------------------------------- random play with offers


def _random_offer(deal: Deal, rng: random.Random) -> Offer:
    left = 10 - (deal.trick_number - 1)
    seats = list(deal.active)
    tricks = [0] * deal.players
    for _ in range(left):
        tricks[rng.choice(seats)] += 1
    offerer = deal.actor
    assert offerer is not None
    return Offer(offerer, tuple(tricks))


@settings(max_examples=30, deadline=None, database=None)
@given(plan=deals(), play_seed=st.integers(0, 2**32 - 1))
def test_random_play_with_offers_keeps_the_deal_whole(plan: DealPlan, play_seed: int) -> None:
    rng = random.Random(play_seed)  # the choices (drawn through hypothesis, they cost more)
    deal = plan.deal()
    played = False
    while not deal.is_over:
        if deal.open_offer is None and deal.offer_actions() and rng.random() < 0.3:
            action: object = _random_offer(deal, rng)
        else:
            action = rng.choice(deal.legal_actions())
        if deal.phase is Phase.PLAY:
            played = True
            assert isinstance(action, Offer | Accept | Play)
        assert deal.can(action)  # type: ignore[arg-type]
        deal.apply(action)  # type: ignore[arg-type]
        if deal.open_offer is None:
            check_invariants_or_offer_end(deal)
    tricks = deal.outcome().tricks
    if played:  # by cards or by an accepted offer, every trick is somebody's
        assert tricks is not None and sum(tricks) == 10
    else:  # nobody whisted, a half-whist stood or a ten went unchecked: no tricks at all
        assert tricks is None
    copy = Deal.from_json(deal.settings, json.loads(json.dumps(deal.to_json())))
    assert copy.to_json() == deal.to_json() and copy.outcome() == deal.outcome()


def check_invariants_or_offer_end(deal: Deal) -> None:
    # the shared referee replays plays only; a deal ended by an offer is checked above
    if not (deal.is_over and any(isinstance(a, Offer) for a in deal.log)):
        check_invariants(deal)


def test_moves_parse_and_print_in_the_record_form() -> None:
    assert action_from_json({"seat": 1, "offer": [0, 4, 1]}, 3) == Offer(S1, (0, 4, 1))
    assert action_from_json({"seat": 2, "accept": False}, 3) == Accept(S2, False)
    assert Offer(S1, (0, 4, 1)).to_json() == {"seat": 1, "offer": [0, 4, 1]}
    assert Accept(S2, True).to_json() == {"seat": 2, "accept": True}
    for bad in (
        {"seat": 1, "offer": "all"},
        {"seat": 1, "offer": [1, True, 2]},
        {"seat": 1, "offer": [1.5, 2, 2]},
        {"seat": 1, "accept": 1},
        {"seat": 1, "accept": True, "offer": [1, 1, 1]},
    ):
        with pytest.raises(ValueError):
            action_from_json(bad, 3)


# ---------------------------------------------------------------- records


def _record_with_offer(accept_all: bool) -> tuple[dict[str, object], Deal]:
    rules = Rules.from_json({"convention": "sochi", "pulka": 10})
    game = Game(rules, ["Анна", "Борис", "Вера"])
    deal = game.start_deal(random.Random(21))
    win_auction(deal, 1, "6S")
    game.apply(lowest_discard(deal))
    from bot.preferans.actions import Declare, Whist

    game.apply(Declare(S1, contract("6S")))
    game.apply(Whist(S2, W))
    game.apply(Whist(S0, P))
    game.apply(ChooseDefence(S2, Defence.CLOSED))
    for _ in range(9):
        game.apply(deal.legal_actions()[0])
    leader = deal.actor
    assert leader is not None
    game.apply(all_to(deal, leader))
    open_offer = deal.open_offer
    assert open_offer is not None
    for seat in open_offer.answerers[:-1]:
        game.apply(Accept(seat, True))
    game.apply(Accept(open_offer.answerers[-1], accept_all))
    while game.current is not None:
        game.apply(game.current.legal_actions()[0])
    return game.to_record(), deal


@pytest.mark.parametrize("accept_all", [True, False])
def test_records_with_offers_replay_to_the_same_sheet(
    accept_all: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record, deal = _record_with_offer(accept_all)
    moves = record["deals"][0]["moves"]  # type: ignore[index]
    assert any("offer" in m for m in moves) and any("accept" in m for m in moves)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    assert replay_main([str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    tricks = deal.outcome().tricks
    assert out["deals"][0]["tricks"] == list(tricks or ())
    game = Game.from_record(record)
    assert out["pulka"] == game.sheet.to_json()["pulka"]
    assert game.finished_deals[0].outcome == deal.outcome()
    # the sheet is that of the same tricks given as a result-only deal
    result = json.loads(json.dumps(record))
    result["deals"][0] = {
        "dealer": 0,
        "result": {
            "contract": "6S",
            "declarer": 1,
            "whist": {"2": "whist", "0": "pass"},
            "tricks": list(tricks or ()),
            "defence": "closed",
        },
    }
    assert Game.from_record(result).sheet == game.sheet


@pytest.mark.parametrize(
    ("move", "fragment"),
    [
        ({"seat": 0, "offer": [0, 0, 10]}, "only seat"),
        ({"seat": 1, "offer": [1, 1, 1]}, "sum to the"),
        ({"seat": 2, "accept": True}, "no offer"),
    ],
)
def test_a_record_with_an_illegal_offer_is_refused_naming_deal_and_move(
    move: dict[str, object], fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record, _ = _record_with_offer(True)
    moves = record["deals"][0]["moves"]  # type: ignore[index]
    first_play = next(i for i, m in enumerate(moves) if "play" in m)
    leader = moves[first_play]["seat"]
    if "offer" in move and fragment == "sum to the":
        move = {"seat": leader, "offer": [1, 1, 1]}
    moves[first_play:] = [move]
    with pytest.raises(RecordError) as info:
        Game.from_record(record)
    assert str(info.value).startswith(f"deal 1, move {first_play + 1}: ")
    assert fragment in str(info.value)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    assert replay_main([str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert captured.err.startswith(f"deal 1, move {first_play + 1}: ")
