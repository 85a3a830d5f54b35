"""The «✅» on offers: true for every layout of the cards the player cannot see, never
read off the real layout alone (which would give the hidden cards away)."""

from __future__ import annotations

import dataclasses

import pytest

from bot.preferans import offer_marks
from bot.preferans.actions import Accept, Offer
from bot.preferans.cards import Card
from bot.preferans.deal import Deal
from bot.preferans.offer_marks import MAX_LAYOUTS, OfferCheck, offer_buttons, offer_check
from bot.preferans.offer_value import counted_seat, gives_best, goal_for, offer_position
from bot.preferans.robot.card_play import layout_position
from bot.preferans.robot.knowledge import Knowledge, knowledge_of
from bot.preferans.robot.layouts import every_layout, layout_count
from bot.preferans.seats import Seat
from bot.preferans.solver import Position, solve
from bot.preferans.views import SeatView
from tests.engine.test_offers import all_pass_deal, game_deal, misere_deal, play_to_trick
from tests.engine_helpers import W, discard_and_declare, make_deal, play_trick, whist, win_auction

S0, S1, S2 = Seat(0), Seat(1), Seat(2)


def _real_marks(deal: Deal, seat: Seat, offers: tuple[Offer, ...]) -> frozenset[Offer]:
    """What the marks were when read off the real layout (every card known)."""
    assert deal.kind is not None
    counted = counted_seat(deal.kind, deal.declarer, seat)
    value = solve(offer_position(deal), goal_for(deal.kind), counted)
    return frozenset(o for o in offers if gives_best(o, seat, deal.kind, deal.declarer, value))


def _marks(deal: Deal) -> tuple[Seat, tuple[Offer, ...], frozenset[Offer]]:
    seat = deal.actor
    assert seat is not None
    check = offer_check(deal, [seat])
    assert check is not None
    [wanted] = check.wanted
    return seat, wanted.offers, check.run().get(seat, frozenset())


def _values(check: OfferCheck, seat: Seat) -> list[int]:
    """The counted seat's best-play tricks in each layout ``seat`` cannot tell apart."""
    [wanted] = [w for w in check.wanted if w.seat == seat]
    know = knowledge_of(wanted.view)
    counted = counted_seat(check.kind, check.declarer, seat)
    out = []
    for hands, sink in every_layout(know):
        pos = layout_position(wanted.view, know, hands, sink)
        if check.leader is not None and not pos.trick:
            pos = dataclasses.replace(pos, leader=check.leader)
        out.append(solve(pos, goal_for(check.kind), counted))
    return out


# 6♠ by seat 1 (the first hand), both defenders whist. Tricks 1-7 are the same in both
# deals: the declarer takes 1, 2 and 7 and leads the eighth with three tricks still
# needed; seat 0 shows a void in spades at trick 7, nobody shows a club void.
_TRICKS = (
    ((1, "AS"), (2, "8S"), (0, "7S")),
    ((1, "KS"), (2, "9S"), (0, "JS")),
    ((1, "8D"), (2, "AD"), (0, "9D")),
    ((2, "AH"), (0, "9H"), (1, "10H")),
    ((2, "KH"), (0, "JH"), (1, "QH")),
    ((2, "KD"), (0, "10D"), (1, "JD")),
)


def _eighth_trick(hands: dict[int, str], talon: str, seat0_discard: str) -> Deal:
    deal = make_deal(hands, talon)
    win_auction(deal, 1, "6S")
    discard_and_declare(deal, talon, "6S")  # the talon goes back as the discard
    whist(deal, 2, W)
    whist(deal, 0, W)
    for moves in _TRICKS:
        play_trick(deal, *moves)
    play_trick(deal, (2, "10S"), (0, seat0_discard), (1, "QS"))
    assert deal.trick_number == 8 and deal.actor == S1 and deal.tricks[S1] == 3
    return deal


def _clubs_three_nil() -> Deal:
    """The declarer keeps ♣A K 7; seat 2 holds ♣Q J 10 (a 3-0 split, so she takes 2)."""
    return _eighth_trick(
        {
            1: "AS KS QS 8D JD 10H QH AC KC 7C",
            2: "8S 9S 10S AD KD AH KH QC JC 10C",
            0: "7S JS 9D 10D QD 7D 9H JH 7H 8H",
        },
        "8C 9C",
        "QD",
    )


def test_the_declarer_at_her_lead_is_not_told_the_clubs_split_badly() -> None:
    deal = _clubs_three_nil()
    seat, offers, marks = _marks(deal)
    one_down = {o for o in offers if o.tricks[S1] == 2}
    assert one_down == {Offer(S1, (0, 2, 1))}  # her «Без одной» button: 1 to the whister
    # read off the real layout (clubs 3-0: she takes 2) «Без одной» was marked: a leak
    assert _real_marks(deal, seat, offers) == one_down | {Offer(S1, (0, 3, 0))}
    # she cannot see the clubs: split 2-1 they give her all three, so no mark
    check = offer_check(deal, [seat])
    assert check is not None
    values = _values(check, seat)
    assert len(values) == layout_count(knowledge_of(check.wanted[0].view)) == 20
    assert sorted(set(values)) == [2, 3]
    # only «Остальные мои» keeps its mark: no layout gives her more than all three
    assert marks == {Offer(S1, (0, 3, 0))}


def test_a_mark_that_holds_in_every_layout_stays() -> None:
    # ♣A K ♦7 for the declarer: the ♦Q is out against her whoever holds it
    deal = _eighth_trick(
        {
            1: "AS KS QS 8D JD 10H QH AC KC 7D",
            2: "8S 9S 10S AD KD AH KH QC JC QD",
            0: "7S JS 9D 10D 8C 10C 9H JH 7H 8H",
        },
        "7C 9C",
        "8C",
    )
    seat, offers, marks = _marks(deal)
    check = offer_check(deal, [seat])
    assert check is not None
    assert set(_values(check, seat)) == {2}  # 20 layouts, 2 tricks in each
    assert marks == {o for o in offers if o.tricks[S1] >= 2}
    assert marks == {Offer(S1, (0, 3, 0)), Offer(S1, (0, 2, 1))}  # «мои», «без одной»


def test_only_the_offers_with_a_button_are_checked() -> None:
    deal = _clubs_three_nil()
    check = offer_check(deal, [S1])
    assert check is not None
    [wanted] = check.wanted
    # five offers she may make, three buttons (mine, one down, yours): two never shown
    assert len(deal.offer_actions_for(S1)) == 5
    assert wanted.offers == (Offer(S1, (0, 3, 0)), Offer(S1, (0, 2, 1)), Offer(S1, (0, 0, 3)))
    assert [o for _, o in offer_buttons(wanted.view)] == list(wanted.offers)


def test_a_defender_answering_is_not_told_where_his_partners_trumps_are() -> None:
    deal = game_deal(6)
    play_to_trick(deal, 6)
    # the declarer (seat 1, five tricks, no trumps left) offers one trick to herself
    offer = Offer(S1, (0, 1, 4))
    deal.apply(offer)
    assert deal.actor == S2
    # seat 0 holds ♠7 ♥K ♥7 ♦Q ♦9 (she takes 2): read off it, the offer was marked
    assert _real_marks(deal, S2, (offer,)) == {offer}
    # seat 2 cannot see seat 0's cards nor the discard: with ♠7 9 10 ♦Q 9 seat 0
    # trumps everything and she takes none, so nothing is guaranteed
    check = offer_check(deal, [S2])
    assert check is not None
    assert min(_values(check, S2)) == 0
    assert check.run() == {}


@pytest.mark.parametrize("make", [game_deal, misere_deal, all_pass_deal])
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_every_mark_holds_in_every_layout_the_player_cannot_tell_apart(
    make: object, seed: int
) -> None:
    deal = make(seed)  # type: ignore[operator]
    play_to_trick(deal, 6)
    for answering in (False, True):
        if answering:
            deal.apply(deal.offer_actions()[1])
        seat, offers, marks = _marks(deal)
        check = offer_check(deal, [seat])
        assert check is not None and deal.kind is not None
        know = knowledge_of(check.wanted[0].view)
        if layout_count(know) > MAX_LAYOUTS:
            continue
        values = _values(check, seat)
        assert len(values) == layout_count(know)
        expected = {
            o
            for o in offers
            if all(gives_best(o, seat, deal.kind, deal.declarer, v) for v in values)
        }
        assert marks == expected
        assert marks <= _real_marks(deal, seat, offers)


def test_the_real_layout_is_among_those_dealt_out() -> None:
    for seed in range(1, 6):
        deal = game_deal(seed)
        play_to_trick(deal, 7)
        seat = deal.actor
        assert seat is not None
        check = offer_check(deal, [seat])
        assert check is not None
        know = knowledge_of(check.wanted[0].view)
        real = Position.from_deal(deal).hands
        layouts = [hands for hands, _ in every_layout(know)]
        assert real in layouts
        assert len(layouts) == len({tuple(sorted(h.items())) for h in layouts})


def test_nothing_but_the_unbeatable_is_claimed_past_the_budget() -> None:
    deal = _clubs_three_nil()
    check = offer_check(deal, [S1])
    assert check is not None
    assert check.run(budget=1) == {S1: frozenset({Offer(S1, (0, 3, 0))})}


def test_out_of_turn_or_with_no_offer_open_there_is_nothing_to_check() -> None:
    deal = game_deal(5)
    play_to_trick(deal, 8)
    actor = deal.actor
    assert actor is not None
    assert offer_check(deal, [s for s in deal.active if s != actor]) is None
    offer = deal.offer_actions()[0]
    deal.apply(offer)
    answerer = deal.actor
    assert answerer is not None
    deal.apply(Accept(answerer, False))
    assert offer_check(deal, [answerer]) is None


def test_a_misere_declarer_who_kept_a_talon_ace_is_among_the_layouts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A strong player reads a misère declarer as having thrown the talon's aces, but he
    may keep one: a «✅» mark must hold in that layout too, so the marks deal it out."""
    deal = make_deal(
        {
            2: "9S JS 7C 9C 7D 9D 7H 8H 9H JH",
            1: "7S 8S QS KS 8C 10C QC 8D 10D QD",
            0: "10S AS JC KC AC JD KD 10H QH KH",
        },
        "AD AH",
    )
    win_auction(deal, 2, "misere")
    discard_and_declare(deal, "JH 9H", "misere")
    play_to_trick(deal, 3)
    seat = deal.actor
    assert seat is not None and seat != S2
    check = offer_check(deal, [seat])
    assert check is not None
    asked: list[bool] = []
    real_knowledge_of = offer_marks.knowledge_of

    def spy(view: SeatView, *, certain: bool = False) -> Knowledge:
        asked.append(certain)
        return real_knowledge_of(view, certain=certain)

    monkeypatch.setattr(offer_marks, "knowledge_of", spy)
    check.run()
    assert asked == [True]
    know = knowledge_of(check.wanted[0].view, certain=True)
    real = Position.from_deal(deal).hands
    assert Card.DA in real[S2]
    assert real in [hands for hands, _ in every_layout(know)]
