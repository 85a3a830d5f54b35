"""Shared helpers for the rules-engine tests (tests/test_engine_*.py).

Besides small builders (cards, deals, moves) this module holds an independent
referee: it re-derives from a deal's log alone who had to lead every trick, whether
every card followed suit, who took every trick and what the outcome must be, so the
tests do not merely compare the engine with itself.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from bot.preferans.actions import (
    Action,
    Bid,
    ChooseDefence,
    Declare,
    Discard,
    IllegalAction,
    Play,
    Reason,
    Whist,
)
from bot.preferans.cards import DECK, Card, Suit, parse_card
from bot.preferans.contracts import MISERE, parse_contract
from bot.preferans.deal import Deal, DealSettings, Phase
from bot.preferans.outcome import DealKind, Defence, WhistAnswer
from bot.preferans.seats import Seat
from bot.preferans.views import public_view, seat_view

W = WhistAnswer.WHIST
P = WhistAnswer.PASS
HALF = WhistAnswer.HALF
OPEN = Defence.OPEN
CLOSED = Defence.CLOSED
card, c = parse_card, parse_contract


# ---------------------------------------------------------------- builders


def cards(text: str) -> list[Card]:
    """``"AS 10H 7C"`` → cards."""
    return [parse_card(t) for t in text.split()]


def make_deal(
    hands: dict[int, str],
    talon: str,
    *,
    dealer: int = 0,
    players: int = 3,
    **options: Any,
) -> Deal:
    """A deal with hand-chosen cards; ``hands`` maps seat → card codes."""
    settings = DealSettings(players=players, **options)
    lists = [cards(hands.get(s, "")) for s in range(players)]
    return Deal(settings, Seat(dealer), lists, cards(talon))


def random_deal(seed: int = 1, *, dealer: int = 0, players: int = 3, **options: Any) -> Deal:
    return Deal.new(DealSettings(players=players, **options), Seat(dealer), random.Random(seed))


def bid(deal: Deal, seat: int, code: str) -> None:
    """Apply a bid (``pass``, ``6S`` … ``10NT``, ``misere``)."""
    deal.apply(Bid(Seat(seat), None if code == "pass" else c(code)))


def bids(deal: Deal, *moves: tuple[int, str]) -> None:
    for seat, code in moves:
        bid(deal, seat, code)


def whist(deal: Deal, seat: int, answer: WhistAnswer) -> None:
    deal.apply(Whist(Seat(seat), answer))


def play(deal: Deal, seat: int, code: str) -> None:
    deal.apply(Play(Seat(seat), card(code)))


def play_trick(deal: Deal, *moves: tuple[int, str]) -> Seat | None:
    """Play the given cards; return the winner of the trick they complete."""
    for seat, code in moves:
        play(deal, seat, code)
    last = deal.last_trick
    return None if last is None else last.winner


def win_auction(deal: Deal, declarer: int, contract: str = "6S") -> None:
    """Everyone else passes, ``declarer`` bids ``contract`` (jumps must allow it)."""
    while deal.phase is Phase.AUCTION and (seat := deal.to_act) is not None:
        bid(deal, seat, contract if seat == declarer else "pass")
    assert deal.phase is Phase.DISCARD and deal.declarer == declarer


def discard_and_declare(deal: Deal, discard: str, contract: str) -> None:
    seat = deal.declarer
    assert seat is not None
    a, b = cards(discard)
    deal.apply(Discard(seat, (a, b)))
    deal.apply(Declare(seat, c(contract)))


def lowest_discard(deal: Deal) -> Discard:
    seat = deal.declarer
    assert seat is not None
    held = sorted(deal.hand(seat))
    return Discard(seat, (held[0], held[1]))


def legal_cards(deal: Deal) -> set[Card]:
    """Cards the hand to move may play now."""
    return {a.card for a in deal.legal_actions() if isinstance(a, Play)}


def legal_codes(deal: Deal) -> list[str]:
    """Contracts of the legal bids / declarations, in ladder order (passes left out)."""
    legal = deal.legal_actions()
    return [a.contract.code for a in legal if isinstance(a, Bid | Declare) and a.contract]


# ---------------------------------------------------------------- snapshots


_PUBLIC, _SEATS = 4, 5
"""Where :func:`snapshot` keeps the public view and the seat views."""


def snapshot(deal: Deal) -> tuple[Any, ...]:
    """Everything observable about a deal: record, public view, every seat view."""
    return (
        deal.to_json(),
        deal.phase,
        deal.to_act,
        deal.actor,
        public_view(deal),
        tuple(seat_view(deal, Seat(s)) for s in range(deal.players)),
        tuple(deal.legal_actions()),
    )


def assert_rejected(
    deal: Deal, action: Action, reason: Reason | None = None, *fragments: str
) -> IllegalAction:
    """``action`` is illegal (with ``reason``), and trying it changes nothing at all."""
    before = snapshot(deal)
    assert not deal.can(action), f"{action} unexpectedly legal"
    assert action not in deal.legal_actions()
    with pytest.raises(IllegalAction) as verify_info:
        deal.verify(action)
    with pytest.raises(IllegalAction) as apply_info:
        deal.apply(action)
    assert snapshot(deal) == before, f"rejected {action} changed the deal"
    exc = apply_info.value
    assert exc.reason == verify_info.value.reason
    if reason is not None:
        assert exc.reason == reason, f"{action}: {exc.reason} ({exc}) instead of {reason}"
    message = str(exc)
    assert message == exc.message and message
    for fragment in fragments:
        assert fragment.lower() in message.lower(), f"{fragment!r} not in {message!r}"
    return exc


def assert_caller_error(
    deal: Deal, action: object, error: type[Exception], *fragments: str
) -> Exception:
    """``action`` is malformed, the caller's bug rather than a move a player can make:
    ``verify``, ``can`` and ``apply`` raise exactly ``error`` (no :class:`IllegalAction`)
    naming it, and the deal is unchanged."""
    before = snapshot(deal)
    raised = []
    for call in (deal.verify, deal.can, deal.apply):
        with pytest.raises(error) as info:
            call(action)  # type: ignore[arg-type]
        assert type(info.value) is error, f"{call.__name__}: {info.value!r}"
        raised.append(info.value)
    assert snapshot(deal) == before, f"malformed {action!r} changed the deal"
    message = str(raised[-1])
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    return raised[-1]


def assert_same_state(a: Deal, b: Deal) -> None:
    assert snapshot(a) == snapshot(b)
    if a.is_over:
        assert a.outcome() == b.outcome()


# ---------------------------------------------------------------- random play


def play_randomly(deal: Deal, rng: random.Random) -> None:
    while not deal.is_over:
        deal.apply(rng.choice(deal.legal_actions()))


# ---------------------------------------------------------------- the referee


def talon_leads(deal: Deal) -> bool:
    return deal.kind is DealKind.ALL_PASS and deal.settings.raspasy_talon == "lead"


def talon_cards_led(deal: Deal) -> tuple[Card, ...]:
    """Talon cards turned into all-pass tricks so far, derived from the trick count."""
    if not talon_leads(deal):
        return ()
    return deal.talon if deal.is_over else deal.talon[: min(2, deal.trick_number)]


def played_cards(deal: Deal) -> list[Card]:
    return [a.card for a in deal.log if isinstance(a, Play)]


def card_locations(deal: Deal) -> list[Card]:
    """Every card of the deal, each from where it is now (a multiset)."""
    led = talon_cards_led(deal)
    untaken = [t for t in deal.talon if t not in led] if deal.declarer is None else []
    held = [cd for s in range(deal.players) for cd in deal.hand(Seat(s))]
    return [*held, *deal.discard, *played_cards(deal), *led, *untaken]


Trick = list[tuple[Seat | None, Card]]


def trick_winner(trick: Trick, trump: Suit | None) -> Seat:
    """Highest trump, else highest card of the suit led; ``None`` seats never win."""
    lead = trick[0][1].suit

    def key(played: tuple[Seat | None, Card]) -> tuple[int, int]:
        suit = played[1].suit
        return (2 if suit is trump else 1 if suit is lead else 0, played[1].rank)

    seat, best = max(((s, cd) for s, cd in trick if s is not None), key=key)
    assert seat is not None and key((seat, best))[0] > 0, f"nobody won {trick}"
    return seat


def referee(deal: Deal) -> dict[str, Any]:
    """Re-derive the deal from its cards and log; assert every play was legal.

    Returns ``kind``, ``declarer``, ``contract``, ``whists``, ``defence``, ``tricks``
    (``None`` when no card was played), the completed ``tricks_list``, ``to_play`` (the hand
    that must play next) and ``hands`` (each active seat's cards now, talon and discard
    accounted for).
    """
    players, dealer, log = deal.players, deal.dealer, list(deal.log)
    active = [Seat((dealer + 1 + i) % players) for i in range(3)]
    after = {s: active[(i + 1) % 3] for i, s in enumerate(active)}
    hands = {s: set(deal.initial_hand(s)) for s in active}
    # the auction: every bidder in turn, skipping those who passed
    passed: set[Seat] = set()
    high: Bid | None = None
    turn = active[0]
    for b in (a for a in log if isinstance(a, Bid)):
        while turn in passed:
            turn = after[turn]
        assert b.seat == turn, f"{b} out of turn"
        turn = after[turn]
        if b.contract is None:
            passed.add(b.seat)
        else:
            high = b
    declarer = high.seat if high is not None and len(passed) == 2 else None
    kind = DealKind.ALL_PASS if len(passed) == 3 else None
    if high is not None and declarer is not None:
        kind = DealKind.MISERE if high.contract == MISERE else DealKind.GAME
    contract = next((a.contract for a in log if isinstance(a, Declare)), None)
    discards = [a.cards for a in log if isinstance(a, Discard)]
    if declarer is not None and discards:
        hands[declarer] = (hands[declarer] | set(deal.talon)) - set(discards[0])
    wrong = [a for a in log if isinstance(a, Discard | Declare) and a.seat != declarer]
    assert not wrong, f"{wrong} but the declarer is {declarer}"
    whists = [a for a in log if isinstance(a, Whist)]
    if whists:
        assert declarer is not None
        first, second = after[declarer], after[after[declarer]]
        order = [first, second, first][: len(whists)]
        assert [a.seat for a in whists] == order, "whist answers out of order"
        if len(whists) == 3:
            assert (whists[0].answer, whists[1].answer) == (P, HALF)
    answers: dict[Seat, WhistAnswer] = {}
    for a in whists:  # a second answer returns the whist, or lets the half stand
        if a.seat not in answers or a.answer is W:
            answers[a.seat] = a.answer
    whisters = [s for s, a in answers.items() if a is W]
    choices = [a for a in log if isinstance(a, ChooseDefence)]
    assert all(whisters == [a.seat] for a in choices), f"{choices}: the whisters are {whisters}"
    defence = next((a.defence for a in choices), None)
    if kind is DealKind.GAME and len(whisters) == 2:
        defence = CLOSED
    trump = contract.trump if kind is DealKind.GAME and contract is not None else None
    # the play: who leads, following suit, trumping, who takes each trick
    talon_lead = talon_leads(deal)
    plays = [a for a in log if isinstance(a, Play)]
    tricks_list: list[tuple[Trick, Seat]] = []
    trick: Trick = []
    to_play = active[0]
    for p in plays:
        done = len(tricks_list)
        if not trick and talon_lead and done < 2:  # the talon's card leads
            trick.append((dealer if players == 4 else None, deal.talon[done]))
        where = f"trick {done + 1}: {p}"
        assert p.seat == to_play, f"{where} but seat {int(to_play)} was to play"
        hand, lead = hands[p.seat], trick[0][1].suit if trick else p.card.suit
        assert p.card in hand, f"{where}: not in hand"
        if p.card.suit is not lead:
            assert all(x.suit is not lead for x in hand), f"{where}: revoke"
            if trump is not None and p.card.suit is not trump:
                assert all(x.suit is not trump for x in hand), f"{where}: did not trump"
        hand.remove(p.card)
        trick.append((p.seat, p.card))
        to_play = after[p.seat]
        if len(trick) == (4 if talon_lead and done < 2 else 3):
            winner = trick_winner(trick, trump)
            tricks_list.append((trick, winner))
            trick = []
            to_play = active[0] if talon_lead and done < 2 else winner
    won = [w for _, w in tricks_list]
    return {
        "kind": kind,
        "declarer": declarer,
        "contract": contract,
        "whists": answers,
        "defence": defence,
        "tricks": tuple(won.count(Seat(s)) for s in range(players)) if plays else None,
        "tricks_list": tricks_list,
        "to_play": to_play,
        "hands": hands,
    }


def check_outcome(deal: Deal) -> None:
    """The finished deal's outcome agrees with the referee's reading of the log."""
    assert deal.is_over
    ref, out = referee(deal), deal.outcome()
    assert (out.players, out.dealer) == (deal.players, deal.dealer)
    for key in ("kind", "declarer", "contract", "tricks"):
        assert getattr(out, key) == ref[key], key
    game = out.kind is DealKind.GAME
    assert out.whists == (ref["whists"] if game else {})
    assert out.defence == (ref["defence"] if game else None)
    if out.tricks is not None:
        assert sum(out.tricks) == 10 and len(ref["tricks_list"]) == 10
        dealer_talon = out.kind is DealKind.ALL_PASS and deal.settings.raspasy_talon == "lead"
        if deal.players == 4 and not dealer_talon:
            assert out.tricks[deal.dealer] == 0
    else:  # no play: both passed, half-whist, or an unchecked ten
        assert game and not played_cards(deal) and out.contract is not None
        if out.contract.level == 10 and deal.settings.ten_checked:
            assert out.whists == {}
        else:
            assert sorted(out.whists.values()) in ([P, P], [HALF, P]), out.whists
            assert set(out.whists) == set(deal.defenders)


# ---------------------------------------------------------------- invariants


def expected_open(deal: Deal) -> frozenset[Seat]:
    """Hands that must lie face up now, derived from the rules."""
    if deal.declarer is None or deal.contract is None:
        return frozenset()
    if deal.phase not in (Phase.PLAY, Phase.DONE):
        return frozenset()
    if deal.kind is DealKind.MISERE:
        opened = deal.declarer != deal.first_hand or bool(played_cards(deal))
    else:
        opened = deal.defence is OPEN
    return frozenset(deal.defenders) if opened else frozenset()


def check_invariants(deal: Deal, seen: tuple[Any, ...] | None = None) -> None:
    """State checks that hold after every action of every deal.

    ``seen``: the deal's :func:`snapshot` taken now, whose views are then checked instead
    of building them again."""
    seats = [Seat(s) for s in range(deal.players)]
    # 32 cards, each in exactly one place
    assert sorted(card_locations(deal)) == list(DECK), "cards lost or duplicated"
    assert all(not deal.hand(s) & deal.hand(t) for s, t in itertools.combinations(seats, 2))
    if deal.players == 4:
        assert not deal.hand(deal.dealer)
    # legal actions
    legal, actor = deal.legal_actions(), deal.actor
    if deal.is_over:
        assert legal == [] and deal.to_act is None and actor is None
    else:
        assert legal, f"no legal action in phase {deal.phase}"
        assert len(set(legal)) == len(legal)
        for a in legal:
            assert a.seat == deal.to_act and deal.can(a), f"{a} listed as legal"
        assert actor is not None
        assert [deal.legal_actions_for(s) for s in seats] == [
            legal if s == actor else [] for s in seats
        ]
        if deal.phase is Phase.PLAY and deal.defence is OPEN and deal.to_act == deal.open_passer:
            assert actor == deal.whisters[0] and actor != deal.to_act
        else:
            assert actor == deal.to_act
    # the referee agrees on who must play next, on the tricks and on the hands
    ref = referee(deal)
    if deal.phase is Phase.PLAY:
        assert deal.to_act == ref["to_play"]
        assert deal.trick_number == len(ref["tricks_list"]) + 1
        won = [w for _, w in ref["tricks_list"]]
        assert tuple(deal.tricks) == tuple(won.count(s) for s in seats)
    if deal.kind is not None:
        assert deal.kind == ref["kind"]
    if deal.phase is not Phase.DISCARD:
        assert {s: deal.hand(s) for s in ref["hands"]} == ref["hands"], "wrong cards held"
    check_privacy(deal, seen)


def check_privacy(deal: Deal, seen: tuple[Any, ...] | None = None) -> None:
    """What each view shows; ``seen``: a :func:`snapshot` of the deal now, for its views."""
    pub = public_view(deal) if seen is None else seen[_PUBLIC]
    expected = expected_open(deal)
    assert frozenset(pub.open_hands) == expected, (pub.open_hands.keys(), expected)
    assert all(frozenset(hand) == deal.hand(s) for s, hand in pub.open_hands.items())
    assert deal.declarer is None or deal.declarer not in pub.open_hands
    # talon: nothing before the auction ends; all of it once a declarer took it;
    # on all-pass only what was turned (never with the Rostov closed talon)
    assert pub.talon == (deal.talon if deal.declarer is not None else talon_cards_led(deal))
    known_talon: set[Card] = set(pub.talon)
    hidden_discard = set(deal.discard) - known_talon
    assert not pub.visible_cards() & hidden_discard, "the discard leaked into the public view"
    passer = deal.open_passer if deal.phase is Phase.PLAY else None
    for s in range(deal.players):
        seat = Seat(s)
        view = seat_view(deal, seat) if seen is None else seen[_SEATS][s]
        assert view.public == pub and frozenset(view.hand) == deal.hand(seat)
        assert view.legal == tuple(deal.legal_actions_for(seat))
        visible = view.visible_cards()
        for other in map(Seat, range(deal.players)):
            if other == seat or other in pub.open_hands:
                continue
            if other == passer and seat in deal.whisters:
                continue
            leak = (visible & deal.hand(other)) - known_talon
            assert not leak, f"seat {s} sees {sorted(leak)} of seat {other}'s closed hand"
        if seat == deal.declarer:
            if view.discard:
                assert view.discard == deal.discard and not played_cards(deal)
        else:
            assert not visible & hidden_discard, f"seat {s} sees the discard"
            assert view.discard == ()
        if view.controlled:
            assert deal.defence is OPEN and seat in deal.whisters
            assert set(view.controlled) == {deal.open_passer}
