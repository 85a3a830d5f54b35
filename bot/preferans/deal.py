"""One deal of Preferans: auction, talon, discard, contract, whisting and play.

The state exposes who must act (:attr:`Deal.to_act`, :attr:`Deal.actor`) and the
complete set of legal actions; every action is checked by :meth:`Deal.verify`
before anything changes, so a rejected action leaves the deal exactly as it was.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .actions import (
    Accept,
    Action,
    Bid,
    ChooseDefence,
    Declare,
    Discard,
    IllegalAction,
    Offer,
    Play,
    Reason,
    Whist,
    action_from_json,
)
from .cards import Card, Suit, parse_card, shuffled_deck, sort_hand
from .contracts import LADDER, MISERE, Contract
from .offers import (
    OpenOffer,
    accepted,
    after_offer,
    answer_order,
    check_offer_shape,
    offerer_for,
    sensible_offers,
    verify_answer,
    verify_offer,
)
from .outcome import DealKind, DealOutcome, Defence, WhistAnswer
from .seats import Seat

__all__ = ["Phase", "DealSettings", "Deal", "Trick", "TrickCard", "beats", "trick_winner"]

_SUIT_NAMES = ("spades", "clubs", "diamonds", "hearts")
_NUMBERED_STEPS = tuple((c.step, c) for c in LADDER if not c.misere)
"""The trick contracts with their ladder steps, looked up once (the auction's hot loop)."""


class Phase(StrEnum):
    """Where a deal stands."""

    AUCTION = "auction"
    DISCARD = "discard"
    CONTRACT = "contract"
    WHIST = "whist"
    DEFENCE = "defence"
    PLAY = "play"
    DONE = "done"


@dataclass(frozen=True, slots=True)
class DealSettings:
    """The rule options one deal needs (the rest of :class:`Rules` is scoring)."""

    players: int = 3
    jumps: bool = False
    ten_checked: bool = False
    stalingrad: bool = False
    half_whist: bool = True
    raspasy_talon: str = "lead"
    """``lead``: the talon names/leads tricks 1 and 2 on all-pass; ``closed``: Rostov."""
    min_level: int = 6
    """Lowest level of the first bid (``raspasy_exit`` after consecutive all-passes)."""

    def __post_init__(self) -> None:
        if self.players not in (3, 4):
            raise ValueError(f"Preferans is played by 3 or 4, not {self.players}")
        if not 6 <= self.min_level <= 10:
            raise ValueError(f"minimum first bid level must be 6..10, not {self.min_level}")
        if self.raspasy_talon not in ("lead", "closed"):
            raise ValueError(f"unknown all-pass talon mode {self.raspasy_talon!r}")


@dataclass(frozen=True, slots=True)
class TrickCard:
    """A card in a trick; ``seat`` is ``None`` for a 3-player all-pass talon card."""

    seat: Seat | None
    card: Card
    from_talon: bool = False


def beats(card: Card, best: Card, lead: Suit, trump: Suit | None) -> bool:
    """Whether ``card`` takes a trick led in ``lead`` from ``best``: any trump beats any
    other suit (Кодекс 3.5.2), else the higher card of the suit led (Кодекс 1.3.3)."""
    if trump is not None and card.suit is trump:
        return best.suit is not trump or card.rank > best.rank
    if best.suit is not lead and not (trump is not None and best.suit is trump):
        return card.suit is lead
    return card.suit is best.suit and card.rank > best.rank


def trick_winner(cards: Sequence[TrickCard], trump: Suit | None) -> TrickCard | None:
    """The card taking the trick so far; a 3-player all-pass talon card names the suit
    and takes nothing (Кодекс 3.7.6.3), the 4-player one is the dealer's card."""
    if not cards:
        return None
    lead = cards[0].card.suit
    best: TrickCard | None = None
    for tc in cards:
        if tc.seat is None:
            continue
        if best is None:
            if tc.card.suit is lead or (trump is not None and tc.card.suit is trump):
                best = tc
        elif beats(tc.card, best.card, lead, trump):
            best = tc
    return best


@dataclass(frozen=True, slots=True)
class Trick:
    """A trick in progress or finished; ``winner`` is set once it is complete."""

    number: int
    cards: tuple[TrickCard, ...]
    lead_suit: Suit | None
    winner: Seat | None = None


class Deal:
    """A single deal; build one with :meth:`new` (random) or :meth:`from_cards`."""

    __slots__ = (
        "settings",
        "players",
        "dealer",
        "active",
        "_hands",
        "_initial_hands",
        "talon",
        "_log",
        "phase",
        "_turn",
        "_auction",
        "_passed",
        "_called",
        "_misere_bidder",
        "_high",
        "_high_seat",
        "declarer",
        "bid",
        "_discard",
        "contract",
        "_answers",
        "_whist_history",
        "_whist_step",
        "defence",
        "_trick",
        "_trick_no",
        "_lead_suit",
        "_last_trick",
        "_played",
        "tricks",
        "_kind",
        "_hands_open",
        "_talon_shown",
        "_talon_led",
        "_offer",
        "_refused",
        "__weakref__",
    )

    def __init__(
        self,
        settings: DealSettings,
        dealer: Seat,
        hands: Sequence[Iterable[Card]],
        talon: Sequence[Card],
    ) -> None:
        players = settings.players
        if not 0 <= int(dealer) < players:
            raise ValueError(f"no seat {int(dealer)} at a table of {players}")
        self.settings = settings
        self.players = players
        self.dealer = Seat(dealer)
        first = self.dealer.next(players)
        self.active: tuple[Seat, ...] = (
            first,
            first.next(players),
            first.next(players).next(players),
        )
        if len(hands) != players:
            raise ValueError(f"expected {players} hands, got {len(hands)}")
        hand_sets = [frozenset(h) for h in hands]
        lists = [list(h) for h in hands]
        seen: set[Card] = set()
        for seat in range(players):
            cards = lists[seat]
            want = 10 if Seat(seat) in self.active else 0
            if len(cards) != want:
                raise ValueError(f"seat {seat} must hold {want} cards, not {len(cards)}")
            for card in cards:
                if card in seen:
                    raise ValueError(f"card {card.code} dealt twice")
                seen.add(card)
        if len(talon) != 2:
            raise ValueError(f"the talon must hold 2 cards, not {len(talon)}")
        for card in talon:
            if card in seen:
                raise ValueError(f"card {card.code} dealt twice")
            seen.add(card)
        self._initial_hands: tuple[frozenset[Card], ...] = tuple(hand_sets)
        self._hands: list[set[Card]] = [set(h) for h in hand_sets]
        self.talon: tuple[Card, ...] = tuple(talon)
        self._log: list[Action] = []
        self.phase = Phase.AUCTION
        self._turn: Seat = first
        self._auction: list[Bid] = []
        self._passed: set[Seat] = set()
        self._called: set[Seat] = set()
        self._misere_bidder: Seat | None = None
        self._high: Contract | None = None
        self._high_seat: Seat | None = None
        self.declarer: Seat | None = None
        self.bid: Contract | None = None
        self._discard: tuple[Card, ...] = ()
        self.contract: Contract | None = None
        self._answers: dict[Seat, WhistAnswer] = {}
        self._whist_history: list[Whist] = []
        self._whist_step = 0
        self.defence: Defence | None = None
        self._trick: list[TrickCard] = []
        self._trick_no = 0
        self._lead_suit: Suit | None = None
        self._last_trick: Trick | None = None
        self._played: list[Trick] = []
        self.tricks: list[int] = [0] * players
        self._kind: DealKind | None = None
        self._hands_open: set[Seat] = set()
        self._talon_shown = False
        self._talon_led = 0
        self._offer: OpenOffer | None = None
        self._refused: set[Offer] = set()
        """Offers refused before this trick's lead: not offered again in the same position."""

    # ------------------------------------------------------------------ building

    @classmethod
    def new(cls, settings: DealSettings, dealer: Seat, rng: random.Random) -> Deal:
        """Shuffle with ``rng`` and deal 10 cards to each active seat and 2 to the talon."""
        deck = shuffled_deck(rng)
        hands: list[list[Card]] = [[] for _ in range(settings.players)]
        first = Seat(dealer).next(settings.players)
        active = [
            first,
            first.next(settings.players),
            first.next(settings.players).next(settings.players),
        ]
        for i, seat in enumerate(active):
            hands[seat] = deck[i * 10 : i * 10 + 10]
        return cls(settings, dealer, hands, deck[30:32])

    @classmethod
    def from_json(cls, settings: DealSettings, data: Any) -> Deal:
        """Rebuild a deal from the record format (``dealer``, ``hands``, ``talon``, ``moves``).

        Raises ``ValueError`` naming the problem; move errors are :class:`IllegalAction`
        wrapped in :class:`MoveError` with the move's index.
        """
        if not isinstance(data, dict):
            raise ValueError("a deal must be an object")
        dealer = data.get("dealer")
        if isinstance(dealer, bool) or not isinstance(dealer, int):
            raise ValueError("a deal needs a whole-number 'dealer'")
        hands_raw = data.get("hands")
        if not isinstance(hands_raw, list):
            raise ValueError("a played deal needs 'hands'")
        hands = []
        for h in hands_raw:
            if not isinstance(h, list):
                raise ValueError("each hand must be a list of cards")
            hands.append([parse_card(c) for c in h])
        talon_raw = data.get("talon")
        if not isinstance(talon_raw, list):
            raise ValueError("a played deal needs 'talon'")
        talon = [parse_card(c) for c in talon_raw]
        deal = cls(settings, Seat(dealer) if 0 <= dealer < 4 else Seat(0), hands, talon)
        if not 0 <= dealer < settings.players:
            raise ValueError(f"no seat {dealer} at a table of {settings.players}")
        moves = data.get("moves", [])
        if not isinstance(moves, list):
            raise ValueError("'moves' must be a list")
        for index, move in enumerate(moves):
            try:
                action = action_from_json(move, settings.players)
                deal.apply(action)
            except (ValueError, IllegalAction) as exc:
                raise MoveError(index, str(exc)) from exc
        return deal

    def to_json(self) -> dict[str, Any]:
        """The record format of this deal: dealer, hands, talon and the moves so far."""
        return {
            "dealer": int(self.dealer),
            "hands": [[c.code for c in sort_hand(h)] for h in self._initial_hands],
            "talon": [c.code for c in self.talon],
            "moves": [a.to_json() for a in self._log],
        }

    def replay(self) -> Deal:
        """A fresh deal with the same cards and every logged action applied again."""
        copy = Deal(self.settings, self.dealer, self._initial_hands, self.talon)
        for action in self._log:
            copy.apply(action)
        return copy

    # ------------------------------------------------------------------ queries

    @property
    def log(self) -> tuple[Action, ...]:
        return tuple(self._log)

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.DONE

    @property
    def first_hand(self) -> Seat:
        return self.active[0]

    @property
    def to_act(self) -> Seat | None:
        """The hand that must act now (in open defence a passer's hand is moved by the whister)."""
        return None if self.phase is Phase.DONE else self._turn

    @property
    def actor(self) -> Seat | None:
        """The seat whose player decides now."""
        if self.phase is Phase.DONE:
            return None
        if self.phase is Phase.PLAY and self.defence is Defence.OPEN:
            passer = self._open_passer()
            if self._turn == passer:
                return self._lone_whister()
        return self._turn

    def hand(self, seat: Seat) -> frozenset[Card]:
        """Cards ``seat`` holds now (for the engine and for that seat's own view)."""
        return frozenset(self._hands[seat])

    def initial_hand(self, seat: Seat) -> frozenset[Card]:
        return self._initial_hands[seat]

    @property
    def discard(self) -> tuple[Card, ...]:
        return self._discard

    @property
    def auction(self) -> tuple[Bid, ...]:
        return tuple(self._auction)

    @property
    def highest_bid(self) -> Contract | None:
        return self._high

    @property
    def highest_bidder(self) -> Seat | None:
        return self._high_seat

    @property
    def passed(self) -> frozenset[Seat]:
        return frozenset(self._passed)

    @property
    def whist_answers(self) -> tuple[Whist, ...]:
        return tuple(self._whist_history)

    @property
    def kind(self) -> DealKind | None:
        """Game, misère or all-pass, once the auction is over."""
        return self._kind

    @property
    def talon_shown(self) -> tuple[Card, ...]:
        """Talon cards everyone has seen so far."""
        if self._talon_shown:
            return self.talon
        return self.talon[: self._talon_led]

    @property
    def open_hands(self) -> frozenset[Seat]:
        """Seats whose hands lie face up now (open defence, misère defenders)."""
        return frozenset(self._hands_open)

    @property
    def current_trick(self) -> tuple[TrickCard, ...]:
        return tuple(self._trick)

    @property
    def trick_number(self) -> int:
        """1-based number of the trick in progress (0 before play)."""
        return self._trick_no

    @property
    def lead_suit(self) -> Suit | None:
        return self._lead_suit

    @property
    def last_trick(self) -> Trick | None:
        return self._last_trick

    @property
    def played_tricks(self) -> tuple[Trick, ...]:
        """Every finished trick of this deal, in order (all of them were played face up)."""
        return tuple(self._played)

    @property
    def trump(self) -> Suit | None:
        if self._kind is DealKind.GAME and self.contract is not None:
            return self.contract.trump
        return None

    @property
    def defenders(self) -> tuple[Seat, ...]:
        """The declarer's opponents in answering order (left of the declarer first)."""
        if self.declarer is None:
            return ()
        i = self.active.index(self.declarer)
        return (self.active[(i + 1) % 3], self.active[(i + 2) % 3])

    def outcome(self) -> DealOutcome:
        """The finished deal's result for scoring; ``ValueError`` if the deal is not over."""
        if self.phase is not Phase.DONE or self._kind is None:
            raise ValueError("the deal is not over yet: it has no outcome")
        played = self._trick_no > 0
        return DealOutcome(
            players=self.players,
            dealer=self.dealer,
            kind=self._kind,
            declarer=self.declarer,
            contract=self.contract,
            whists=self._final_answers(),
            defence=self.defence,
            tricks=tuple(self.tricks) if played else None,
        )

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self) -> list[Action]:
        """Every action legal now, all for the hand :attr:`to_act`."""
        phase = self.phase
        seat = self._turn
        if self._offer is not None:
            return [Accept(seat, True), Accept(seat, False)]
        if phase is Phase.PLAY:
            return [Play(seat, c) for c in sort_hand(self._playable(seat))]
        if phase is Phase.AUCTION:
            return [Bid(seat, c) for c in self._legal_bids(seat)]
        if phase is Phase.DISCARD:
            cards = sort_hand(self._hands[seat])
            return [Discard(seat, (a, b)) for i, a in enumerate(cards) for b in cards[i + 1 :]]
        if phase is Phase.CONTRACT:
            return [Declare(seat, c) for c in self._legal_contracts()]
        if phase is Phase.WHIST:
            return [Whist(seat, a) for a in self._legal_answers(seat)]
        if phase is Phase.DEFENCE:
            return [ChooseDefence(seat, Defence.OPEN), ChooseDefence(seat, Defence.CLOSED)]
        return []

    def legal_actions_for(self, seat: Seat) -> list[Action]:
        """Legal actions the player at ``seat`` may take now (none when not his decision)."""
        return self.legal_actions() if self.actor == seat else []

    def can(self, action: Action) -> bool:
        """Whether ``action`` is legal now (a malformed one raises, as in :meth:`verify`)."""
        try:
            self.verify(action)
        except IllegalAction:
            return False
        return True

    def verify(self, action: Action) -> None:
        """Raise :class:`IllegalAction` naming the action and the situation if the rules
        forbid it now.

        A malformed action is the caller's bug, not a move a player can make, and raises
        ``TypeError`` (not an action) or ``ValueError`` (a seat not at this table, a
        contract off the bidding ladder, an offer of the wrong shape).
        """
        kind = type(action)
        if kind not in _ACTION_TYPES:
            raise TypeError(f"{action!r} is not an action")
        if not 0 <= action.seat < self.players:
            raise ValueError(f"{action}: no seat {int(action.seat)} at a table of {self.players}")
        if kind is not Play:  # (most actions are cards: nothing more to check in them)
            if isinstance(action, Offer):
                check_offer_shape(action, self.players)
            elif isinstance(action, Bid | Declare) and action.contract is not None:
                _check_on_ladder(action, action.contract)
        if self.phase is Phase.DONE:
            raise IllegalAction(Reason.DEAL_OVER, f"{action}: the deal is over")
        if self._offer is not None or kind is Offer or kind is Accept:
            self._verify_offer_move(action)
            return
        expected = _PHASE_OF[kind]
        if expected is not self.phase:
            raise IllegalAction(
                Reason.WRONG_PHASE,
                f"{action}: not allowed during the {self.phase.value}, "
                f"seat {int(self._turn)} must {_PHASE_VERB[self.phase]}",
            )
        if action.seat != self._turn:
            raise IllegalAction(
                Reason.NOT_YOUR_TURN,
                f"{action}: it is seat {int(self._turn)}'s turn to {_PHASE_VERB[self.phase]}",
            )
        if isinstance(action, Play):
            self._verify_play(action)
        elif isinstance(action, Bid):
            self._verify_bid(action)
        elif isinstance(action, Discard):
            self._verify_discard(action)
        elif isinstance(action, Declare):
            self._verify_declare(action)
        elif isinstance(action, Whist):
            if action.answer not in self._legal_answers(action.seat):
                self._explain_whist(action)
        # ChooseDefence: phase and seat checks are all there is.

    def apply(self, action: Action) -> None:
        """Check ``action`` and carry it out; raises :class:`IllegalAction` changing nothing."""
        self.verify(action)
        self._log.append(action)
        if isinstance(action, Offer | Accept):
            self._do_offer_move(action)
        elif isinstance(action, Play):
            self._do_play(action)
        elif isinstance(action, Bid):
            self._do_bid(action)
        elif isinstance(action, Discard):
            self._do_discard(action)
        elif isinstance(action, Declare):
            self._do_declare(action)
        elif isinstance(action, Whist):
            self._do_whist(action)
        else:
            self._do_defence(action)

    # ------------------------------------------------------------------ auction

    def _order(self, seat: Seat) -> int:
        return self.active.index(seat)

    def _min_start(self) -> Contract:
        return Contract(self.settings.min_level, Suit.SPADES)

    def _legal_bids(self, seat: Seat) -> list[Contract | None]:
        out: list[Contract | None] = []
        high = self._high
        # Кодекс 3.3.9: the misère bidder cannot later bid a trick game.
        if seat != self._misere_bidder:
            floor = self._min_start().step
            if high is None:
                candidates = [c for step, c in _NUMBERED_STEPS if step >= floor]
            else:
                # "Здесь": repeat the highest bid when sitting earlier than its holder.
                if (
                    not high.misere
                    and self._high_seat is not None
                    and self._order(seat) < self._order(self._high_seat)
                ):
                    out.append(high)
                above = max(high.step + 1, floor)
                candidates = [c for step, c in _NUMBERED_STEPS if step >= above]
            if candidates:
                out.extend(candidates if self.settings.jumps else candidates[:1])
            if self._misere_allowed(seat):
                out.append(MISERE)
        out.sort(key=lambda c: c.step if c is not None else -1)
        out.append(None)
        return out

    def _misere_allowed(self, seat: Seat) -> bool:
        # Кодекс 3.3.9: misère only as a player's first call; conventions: outbid only by 9+.
        # It is a valid first call after all-pass whatever raspasy_exit asks of trick bids.
        if seat in self._called:
            return False
        return self._high is None or self._high.step < MISERE.step

    def _verify_bid(self, action: Bid) -> None:
        contract = action.contract
        if contract is None:
            return
        seat = action.seat
        high = self._high
        situation = (
            f"highest bid is {high} by seat {int(self._high_seat)}"
            if high is not None and self._high_seat is not None
            else "no bid yet"
        )
        if contract.misere:
            if seat in self._called:
                raise IllegalAction(
                    Reason.MISERE_AFTER_BID,
                    f"{action}: misère only as a player's first call, seat {int(seat)} already bid",
                )
            if not self._misere_allowed(seat):
                raise IllegalAction(
                    Reason.MISERE_TOO_LATE, f"{action}: misère cannot outbid {high} ({situation})"
                )
            return
        if seat == self._misere_bidder:
            raise IllegalAction(
                Reason.MISERE_BIDDER_TRICKS,
                f"{action}: seat {int(seat)} bid misère and may only pass now",
            )
        if contract in self._legal_bids(seat):
            return
        if high is not None and contract == high:
            raise IllegalAction(
                Reason.HERE_NOT_ALLOWED,
                f"{action}: 'здесь' only by a player sitting before seat "
                f"{int(self._high_seat or 0)} "
                f"in the bidding order ({situation})",
            )
        if high is not None and contract.step < high.step:
            raise IllegalAction(Reason.BID_TOO_LOW, f"{action}: too low, {situation}")
        if contract.step < self._min_start().step:
            raise IllegalAction(
                Reason.BID_BELOW_MINIMUM,
                f"{action}: the first bid must be at least {self._min_start()} this deal",
            )
        raise IllegalAction(
            Reason.BID_JUMP,
            f"{action}: no jumps, the next bid must be one step up the ladder ({situation})",
        )

    def _do_bid(self, action: Bid) -> None:
        seat = action.seat
        self._auction.append(action)
        if action.contract is None:
            self._passed.add(seat)
        else:
            self._called.add(seat)
            if action.contract.misere:
                self._misere_bidder = seat
            self._high = action.contract
            self._high_seat = seat
        if len(self._passed) == 3:
            self._start_all_pass()
            return
        if len(self._passed) == 2 and self._high_seat is not None:
            self._win_auction(self._high_seat)
            return
        nxt = self._next_active(seat)
        while nxt in self._passed:
            nxt = self._next_active(nxt)
        self._turn = nxt

    def _next_active(self, seat: Seat) -> Seat:
        return self.active[(self.active.index(seat) + 1) % 3]

    def _win_auction(self, seat: Seat) -> None:
        self.declarer = seat
        self.bid = self._high
        self._kind = (
            DealKind.MISERE if self._high is not None and self._high.misere else DealKind.GAME
        )
        # Кодекс 3.4.1: the talon is shown to everyone, then taken into the hand.
        self._talon_shown = True
        self._hands[seat].update(self.talon)
        self.phase = Phase.DISCARD
        self._turn = seat

    # ------------------------------------------------------------------ talon and contract

    def _verify_discard(self, action: Discard) -> None:
        cards = action.cards
        if len(cards) != 2 or cards[0] == cards[1]:
            raise IllegalAction(
                Reason.DISCARD_COUNT, f"{action}: discard exactly two different cards"
            )
        for card in cards:
            if card not in self._hands[action.seat]:
                raise IllegalAction(
                    Reason.CARD_NOT_HELD,
                    f"{action}: seat {int(action.seat)} does not hold {card.code}",
                )

    def _do_discard(self, action: Discard) -> None:
        self._hands[action.seat].difference_update(action.cards)
        self._discard = action.cards
        self.phase = Phase.CONTRACT

    def _legal_contracts(self) -> list[Contract]:
        bid = self.bid
        if bid is None:
            return []
        if bid.misere:
            return [MISERE]
        # Кодекс 3.4.3: not lower than the bid; misère only when won with misère.
        lowest = bid.step
        return [c for step, c in _NUMBERED_STEPS if step >= lowest]

    def _verify_declare(self, action: Declare) -> None:
        bid = self.bid
        contract = action.contract
        if bid is not None and bid.misere and not contract.misere:
            raise IllegalAction(
                Reason.MISERE_MISMATCH, f"{action}: the auction was won with misère, play misère"
            )
        if contract.misere and bid is not None and not bid.misere:
            raise IllegalAction(
                Reason.MISERE_MISMATCH,
                f"{action}: misère only when the auction was won with misère (bid {bid})",
            )
        if bid is not None and contract.step < bid.step:
            raise IllegalAction(
                Reason.CONTRACT_BELOW_BID, f"{action}: the contract cannot be below the bid {bid}"
            )

    def _do_declare(self, action: Declare) -> None:
        self.contract = action.contract
        declarer = action.seat
        if action.contract.misere:
            self._start_play()
            return
        if action.contract.level == 10 and self.settings.ten_checked:
            # Option ten_checked: the ten is not whisted and counts as made.
            self.phase = Phase.DONE
            return
        self.phase = Phase.WHIST
        self._whist_step = 0
        self._turn = self.defenders[0]
        del declarer

    # ------------------------------------------------------------------ whisting

    def _stalingrad(self) -> bool:
        return self.settings.stalingrad and self.contract == Contract(6, Suit.SPADES)

    def _legal_answers(self, seat: Seat) -> list[WhistAnswer]:
        contract = self.contract
        if self.phase is not Phase.WHIST or contract is None or seat != self._turn:
            return []
        if self._stalingrad():
            # Option stalingrad: 6♠ must be whisted by both defenders.
            return [WhistAnswer.WHIST]
        first, second = self.defenders
        step = self._whist_step
        if step == 0:
            return [WhistAnswer.WHIST, WhistAnswer.PASS]
        if step == 1:
            answers = [WhistAnswer.WHIST, WhistAnswer.PASS]
            # Кодекс 3.8.7: half-whist on 6 and 7, by the second after the first passed.
            if (
                self.settings.half_whist
                and contract.level in (6, 7)
                and self._answers.get(first) is WhistAnswer.PASS
            ):
                answers.append(WhistAnswer.HALF)
            return answers
        # step 2: the first defender may return the whist (Кодекс 3.8.8).
        return [WhistAnswer.WHIST, WhistAnswer.PASS]

    def _explain_whist(self, action: Whist) -> None:
        contract = self.contract
        if action.answer is WhistAnswer.HALF:
            if self._stalingrad():
                why = "6♠ must be whisted by both (stalingrad)"
            elif not self.settings.half_whist:
                why = "half-whist is not played at this table"
            elif contract is not None and contract.level not in (6, 7):
                why = f"half-whist only on 6 and 7, not on {contract}"
            elif self._whist_step == 0:
                why = "half-whist only by the second defender after the first passed"
            else:
                why = "half-whist only after the first defender passed"
            raise IllegalAction(Reason.HALF_WHIST_NOT_ALLOWED, f"{action}: {why}")
        raise IllegalAction(
            Reason.WHIST_NOT_ALLOWED, f"{action}: 6♠ must be whisted by both (stalingrad)"
        )

    def _do_whist(self, action: Whist) -> None:
        first, second = self.defenders
        self._whist_history.append(action)
        step = self._whist_step
        if step == 0:
            self._answers[first] = action.answer
            self._whist_step = 1
            self._turn = second
            return
        if step == 1:
            self._answers[second] = action.answer
            if action.answer is WhistAnswer.HALF:
                self._whist_step = 2
                self._turn = first
                return
            self._after_answers()
            return
        # step 2: the first defender returns the whist or lets the half-whist stand. The
        # half-whister keeps his answer: after a return he plays as a passer and writes no
        # whists (Кодекс 3.8.8.2, 3.8.14), which scoring tells by that answer.
        if action.answer is WhistAnswer.WHIST:
            self._answers[first] = WhistAnswer.WHIST
            self._after_answers()
        else:
            self.phase = Phase.DONE

    def _after_answers(self) -> None:
        whisters = [s for s in self.defenders if self._answers.get(s) is WhistAnswer.WHIST]
        if not whisters:
            # Both pass: no play, the contract counts as made.
            self.phase = Phase.DONE
        elif len(whisters) == 2:
            # Кодекс 3.8.4: two whisters play closed.
            self.defence = Defence.CLOSED
            self._start_play()
        else:
            self.phase = Phase.DEFENCE
            self._turn = whisters[0]

    def _final_answers(self) -> dict[Seat, WhistAnswer]:
        return dict(self._answers)

    @property
    def whisters(self) -> tuple[Seat, ...]:
        """Defenders whose answer stands at whist, in answering order."""
        return tuple(s for s in self.defenders if self._answers.get(s) is WhistAnswer.WHIST)

    @property
    def open_passer(self) -> Seat | None:
        """In open defence, the passer whose cards the whister moves."""
        return self._open_passer()

    def _lone_whister(self) -> Seat | None:
        whisters = [s for s in self.defenders if self._answers.get(s) is WhistAnswer.WHIST]
        return whisters[0] if len(whisters) == 1 else None

    def _open_passer(self) -> Seat | None:
        if self.defence is not Defence.OPEN:
            return None
        for s in self.defenders:
            if self._answers.get(s) is not WhistAnswer.WHIST:
                return s
        return None

    def _do_defence(self, action: ChooseDefence) -> None:
        self.defence = action.defence
        if action.defence is Defence.OPEN:
            # Кодекс 3.8.5: open hands are laid before the first lead, whoever leads.
            self._hands_open.update(self.defenders)
        self._start_play()

    # ------------------------------------------------------------------ offers (offers.py)

    @property
    def open_offer(self) -> OpenOffer | None:
        """The offer waiting for answers, if any (record format, "Offers")."""
        return self._offer

    def _offerer(self) -> Seat:
        return offerer_for(self._turn, self._open_passer(), self._lone_whister())

    def _tricks_left(self) -> int:
        return 10 - (self._trick_no - 1)

    def offer_actions(self) -> list[Offer]:
        """The usual offers legal now (only before a trick's first card); any other offer
        that fits is legal too (:meth:`verify`)."""
        if self.phase is not Phase.PLAY or self._offer is not None or self._trick:
            return []
        game = self._kind is DealKind.GAME and self.contract is not None
        declarer = self.declarer if game else None
        needs = None
        if declarer is not None and self.contract is not None:
            needs = self.contract.level - self.tricks[declarer]
        passer = self._open_passer()
        offers = sensible_offers(
            self._offerer(),
            players=self.players,
            playing=[s for s in self.active if s != passer],
            tricks_left=self._tricks_left(),
            declarer=declarer,
            declarer_needs=needs,
        )
        # A refusal leaves the position as it was: the same offer would only be refused
        # again (a computer player, or a timer refusing for an absent player, would go round
        # for ever). The Кодекс knows a claim only as cards shown (3.9.14.4) and says
        # nothing of making one again; a refused offer stays legal (a record may repeat
        # it), it is only no longer among the usual ones.
        return [o for o in offers if o not in self._refused]

    def offer_actions_for(self, seat: Seat) -> list[Offer]:
        """:meth:`offer_actions` when the player at ``seat`` decides now, else none."""
        return self.offer_actions() if self.actor == seat else []

    def _verify_offer_move(self, action: Action) -> None:
        open_offer = self._offer
        if open_offer is not None and not isinstance(action, Accept):
            raise IllegalAction(
                Reason.OFFER_OPEN,
                f"{action}: seat {int(open_offer.waiting)} must first answer the offer "
                f"{list(open_offer.offer.tricks)}",
            )
        if isinstance(action, Accept):
            verify_answer(action, open_offer)
        elif isinstance(action, Offer):
            if self.phase is not Phase.PLAY:
                raise IllegalAction(
                    Reason.WRONG_PHASE,
                    f"{action}: offers only during the play, "
                    f"seat {int(self._turn)} must {_PHASE_VERB[self.phase]}",
                )
            verify_offer(
                action,
                players=self.players,
                playing=self.active,
                may_offer=self._offerer(),
                trick_started=bool(self._trick),
                tricks_left=self._tricks_left(),
            )

    def _do_offer_move(self, action: Offer | Accept) -> None:
        if isinstance(action, Offer):
            answerers = answer_order(action.seat, self.active, self._open_passer())
            self._offer = OpenOffer(action, self._turn, answerers)
            self._turn = self._offer.waiting
            return
        assert self._offer is not None
        leader = self._offer.leader
        offer = after_offer(self._offer, action)
        if offer is None:
            # A refusal withdraws the offer; the offerer still leads.
            self._refused.add(self._offer.offer)
            self._offer = None
            self._turn = leader
        elif not accepted(offer):
            self._offer = offer
            self._turn = offer.waiting
        else:
            # All accepted: the deal ends with the tricks taken so far plus the offer.
            self._offer = None
            for seat, n in enumerate(offer.offer.tricks):
                self.tricks[seat] += n
            self.phase = Phase.DONE

    # ------------------------------------------------------------------ play

    def _start_all_pass(self) -> None:
        self._kind = DealKind.ALL_PASS
        self._start_play()

    def _start_play(self) -> None:
        self.phase = Phase.PLAY
        self._trick_no = 1
        if self._kind is DealKind.MISERE and self.declarer != self.first_hand:
            # Misère: a defender leads, so the defenders lie down before the first lead.
            self._hands_open.update(self.defenders)
        self._begin_trick(self.first_hand)

    def _talon_leads(self) -> bool:
        return (
            self._kind is DealKind.ALL_PASS
            and self.settings.raspasy_talon == "lead"
            and self._trick_no <= 2
        )

    def _begin_trick(self, leader: Seat) -> None:
        self._trick = []
        self._refused = set()  # a new position: every offer may be made again
        self._lead_suit = None
        if self._talon_leads():
            # Кодекс 3.7.6: the talon card is turned and names (3 players) or leads
            # (4 players, as the dealer's card) tricks 1 and 2.
            card = self.talon[self._trick_no - 1]
            self._talon_led = self._trick_no
            owner = self.dealer if self.players == 4 else None
            self._trick.append(TrickCard(owner, card, from_talon=True))
            self._lead_suit = card.suit
            self._turn = self.first_hand
        else:
            self._turn = leader

    def _playable(self, seat: Seat) -> list[Card]:
        hand = self._hands[seat]
        suit = self._lead_suit
        if suit is None:
            return list(hand)
        follow = [c for c in hand if c.suit is suit]
        if follow:
            return follow
        trump = self.trump
        if trump is not None:
            trumps = [c for c in hand if c.suit is trump]
            if trumps:
                return trumps
        return list(hand)

    def _verify_play(self, action: Play) -> None:
        seat, card = action.seat, action.card
        hand = self._hands[seat]
        if card not in hand:
            raise IllegalAction(
                Reason.CARD_NOT_HELD, f"seat {int(seat)} cannot play {card.code}: not in hand"
            )
        suit = self._lead_suit
        if suit is None or card.suit is suit:
            return
        if any(c.suit is suit for c in hand):
            raise IllegalAction(
                Reason.MUST_FOLLOW_SUIT,
                f"seat {int(seat)} cannot play {card.code}: must follow {_SUIT_NAMES[suit]}",
            )
        trump = self.trump
        if trump is not None and card.suit is not trump and any(c.suit is trump for c in hand):
            raise IllegalAction(
                Reason.MUST_TRUMP,
                f"seat {int(seat)} cannot play {card.code}: no {_SUIT_NAMES[suit]}, "
                f"must trump with {_SUIT_NAMES[trump]}",
            )

    def _do_play(self, action: Play) -> None:
        seat, card = action.seat, action.card
        self._hands[seat].discard(card)
        if self._lead_suit is None:
            self._lead_suit = card.suit
        self._trick.append(TrickCard(seat, card))
        if (
            self._kind is DealKind.MISERE
            and self._trick_no == 1
            and len(self._trick) == 1
            and self.declarer == self.first_hand
        ):
            # Misère: after the declarer's first lead the defenders lie down.
            self._hands_open.update(self.defenders)
        # A trick holds one card from each of the three hands (plus a talon card on
        # all-pass tricks 1 and 2); play goes clockwise from the lead.
        if sum(1 for tc in self._trick if not tc.from_talon) < 3:
            self._turn = self._next_active(seat)
            return
        self._finish_trick()

    def _trick_winner(self) -> Seat:
        best = trick_winner(self._trick, self.trump)
        assert best is not None and best.seat is not None  # someone always holds the suit
        return best.seat

    def _finish_trick(self) -> None:
        winner = self._trick_winner()
        self.tricks[winner] += 1
        self._last_trick = Trick(self._trick_no, tuple(self._trick), self._lead_suit, winner)
        self._played.append(self._last_trick)
        if self._trick_no == 10:
            self._trick = []
            self._lead_suit = None
            self.phase = Phase.DONE
            return
        self._trick_no += 1
        if (
            self._kind is DealKind.ALL_PASS
            and self.settings.raspasy_talon == "lead"
            and self._trick_no == 3
        ):
            # Кодекс 3.7.6.1: trick 3 is led by the first hand whoever took trick 2.
            self._begin_trick(self.first_hand)
        else:
            self._begin_trick(winner)


def _check_on_ladder(action: Action, contract: Contract) -> None:
    # Every contract a player can name is on the ladder (Кодекс 3.3.7); another one was
    # built by the caller.
    if contract not in _ON_LADDER:
        raise ValueError(f"{action!r}: not a contract of the bidding ladder")


_ON_LADDER = frozenset(LADDER)


class MoveError(ValueError):
    """A record move that cannot be applied; ``index`` is 0-based."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index
        self.message = message


_ACTION_TYPES = frozenset((Bid, Discard, Declare, Whist, ChooseDefence, Play, Offer, Accept))

_PHASE_OF: dict[type, Phase] = {
    Bid: Phase.AUCTION,
    Discard: Phase.DISCARD,
    Declare: Phase.CONTRACT,
    Whist: Phase.WHIST,
    ChooseDefence: Phase.DEFENCE,
    Play: Phase.PLAY,
}

_PHASE_VERB = {
    Phase.AUCTION: "bid",
    Phase.DISCARD: "discard two cards",
    Phase.CONTRACT: "name the contract",
    Phase.WHIST: "answer whist or pass",
    Phase.DEFENCE: "choose open or closed defence",
    Phase.PLAY: "play a card",
    Phase.DONE: "wait",
}
