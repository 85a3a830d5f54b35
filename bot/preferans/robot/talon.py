"""After the auction: which two cards to discard and which contract to name (Кодекс 3.4).

Every pair of the twelve cards is tried as the discard with every trump. With a judging
budget the best ten by the hand count for each trump are candidates, then the count's
next tens of the strain worth the most (another guard kept, a suit voided), and the
declarer keeps the ten, and names the contract, worth the most over sampled layouts of
the defenders' cards solved exactly (:func:`discard_by_play`, :func:`contract_by_play`:
a strain the talon spoiled is dropped for one that makes). Without one he keeps the ten
that count the most tricks and names the highest contract they count with a little to
spare. Never below his bid. A misère declarer discards the pair that leaves the fewest
holes.
"""

from __future__ import annotations

import math
from itertools import combinations

from ..actions import Declare, Discard
from ..cards import Card, Suit
from ..contracts import MISERE, Contract
from ..views import SeatView
from .evaluation import (
    TRUMP_CHOICES,
    best_misere_discard,
    hand_masks,
    masks_declarer_tricks,
    without,
)
from .judging import Candidate, Judgement, game_value, good_tens
from .knowledge import active_seats

__all__ = ["choose_discard", "choose_contract", "contract_tricks"]

_SAFETY = 0.3
"""Tricks to spare before naming a contract above the bid."""


def choose_discard(view: SeatView, judge: int = 0, samples: int = 12) -> Discard:
    """The discard for the declarer's twelve cards; always one of ``view.legal``.

    ``judge`` > 0: the ten kept are chosen with the contract by sampled layouts solved
    exactly (:func:`discard_by_play`), the hand counts deciding only when too few were
    solved.
    """
    legal = [a for a in view.legal if isinstance(a, Discard)]
    hand = tuple(view.hand)
    bid = view.public.bid
    if bid is not None and bid.misere:
        pair, _ = best_misere_discard(hand)
        want = Discard(view.seat, pair)
    else:
        pair = _best_trick_discard(hand, bid)
        kept = discard_by_play(view, bid, judge, samples) if judge > 0 else None
        if kept is not None:
            thrown = [c for c in hand if c not in kept]
            pair = (thrown[0], thrown[1])
        want = Discard(view.seat, pair)
    return want if want in legal else legal[0]


def _best_trick_discard(hand: tuple[Card, ...], bid: Contract | None) -> tuple[Card, Card]:
    masks = hand_masks(hand)
    # The cheapest level per trump does not depend on the pair: worked out once.
    lowest = [(trump, _lowest_level(trump, bid)) for trump in TRUMP_CHOICES]
    best: tuple[float, tuple[Card, Card]] | None = None
    for pair in combinations(hand, 2):
        rest = without(masks, pair)
        # Tricks over the cheapest contract in each trump this bid allows; the best.
        value = max(masks_declarer_tricks(rest, trump) - low for trump, low in lowest)
        # Ties: keep high cards (they win tricks), throw the low ones.
        key = value - 0.001 * (int(pair[0].rank) + int(pair[1].rank))
        if best is None or key > best[0]:
            best = (key, (pair[0], pair[1]))
    assert best is not None
    return best[1]


def _lowest_level(trump: Suit | None, bid: Contract | None) -> int:
    for level in range(6, 11):
        if bid is None or Contract(level, trump).step >= bid.step:
            return level
    return 11


def contract_tricks(
    cards: tuple[Card, ...],
    bid: Contract | None,
    trumps: tuple[Suit | None, ...] = TRUMP_CHOICES,
) -> tuple[Contract, float]:
    """The contract to name for these ten cards (in one of ``trumps``) and the tricks
    they are expected to take."""
    best: tuple[float, Contract, float] | None = None
    masks = hand_masks(cards)
    for trump in trumps:
        low = _lowest_level(trump, bid)
        if low > 10:
            continue
        tricks = masks_declarer_tricks(masks, trump)
        level = low
        while level < 10 and tricks >= level + 1 + _SAFETY:
            level += 1
        contract = Contract(level, trump)
        # Prefer the contract most likely made, then the dearer one.
        key = (tricks - level) + 0.01 * level
        if best is None or key > best[0]:
            best = (key, contract, tricks)
    assert best is not None
    return best[1], best[2]


def choose_contract(view: SeatView, judge: int = 0, samples: int = 12) -> Declare:
    """The contract to name after the discard; always one of ``view.legal``.

    ``judge`` > 0: named by its value over sampled layouts solved exactly
    (:func:`contract_by_play`), the hand counts deciding only when too few were solved.
    """
    legal = [a for a in view.legal if isinstance(a, Declare)]
    bid = view.public.bid
    if bid is not None and bid.misere:
        want = Declare(view.seat, MISERE)
    else:
        contract, _ = contract_tricks(tuple(view.hand), bid)
        if judge > 0:
            by_play = contract_by_play(view, bid, judge, samples)
            # Unjudged in budget: the strain the counts rank first, not the one with
            # the widest margin (a margin a cheaper strain wins by lowering its level).
            first = _strains(frozenset(view.hand), bid)[:1]
            if by_play is None and first:
                by_play, _ = contract_tricks(tuple(view.hand), bid, (first[0],))
            contract = by_play or contract
        want = Declare(view.seat, contract)
    return want if want in legal else min(legal, key=lambda a: a.contract.step)


_MIN_LAYOUTS = 4
_TRUMP_LENGTH = 1.0
"""Whists a trump in hand adds to a strain's worth when choosing between strains."""
_HOPELESS = 3.0
"""Tricks short of a strain's cheapest contract, by the hand count, not worth solving."""
_STRAINS = 4
"""Strains (each with its best discard) judged by play, the hand count's first ones."""
_TENS = 4
_TENS_MARGIN = 1.0
"""Tens judged by play per strain: the hand count's best ones, no more than this many
tricks below its first (the count misjudges which guard or void matters: over twenty
robot-only pulkas nine contracts were lost that another ten of the same twelve made)."""
_TENS_STRAINS = 1
"""Strains whose other tens are judged: the one worth the most with its first ten."""
_OTHER_TENS = 0.5
"""Solver positions for those other tens, as a share of ``judge``: the discard then
costs about what a card decision does (the card play's 180,000 positions)."""
_CAUTION = 1.0
"""Standard errors taken off a contract's mean worth over the layouts. Twelve layouts
are few: a seven is named over a six when it makes in about 11 of them, and one lucky
set names it. Over the 89 games of ten robot-only pulkas, 2 failed sevens became made
sixes and 5 made contracts went one level cheaper: ~112 whists saved against ~43."""


def contract_by_play(
    view: SeatView, bid: Contract | None, judge: int, samples: int
) -> Contract | None:
    """The contract worth the most on average over sampled layouts of the defenders'
    cards (:func:`.judging.game_value`) for the ten cards kept; ``None`` when too few
    layouts were solved in budget."""
    hand = frozenset(view.hand)
    plan = _plan_by_play(view, bid, [(t, hand) for t in _strains(hand, bid)], judge, samples)
    return None if plan is None else plan[1]


def discard_by_play(
    view: SeatView, bid: Contract | None, judge: int, samples: int
) -> frozenset[Card] | None:
    """The ten of the twelve cards to keep: for each strain the best ten by the hand
    count, the ten and contract worth the most over sampled layouts; then the next tens
    by the count (:data:`_TENS`) of the strains worth the most, in the same layouts, and
    the best of all. ``None`` when too few layouts were solved in budget. The layouts
    are those :func:`contract_by_play` deals after the discard."""
    hand = tuple(view.hand)
    tens = {t: good_tens(hand, t, _TENS, _TENS_MARGIN) for t in TRUMP_CHOICES}
    top = _strains_ranked([(t, tens[t][0]) for t in TRUMP_CHOICES], bid)
    judgement = _judged(view, top, judge, samples)
    plan, strains = _plan(judgement, bid)
    if plan is None:
        return None
    ranked = sorted(strains, key=lambda t: -strains[t])[:_TENS_STRAINS]
    others: list[Candidate] = [(t, kept) for t in ranked for kept in tens[t][1:]]
    if others:
        judgement.add(others, int(judge * _OTHER_TENS))
        # Positions left (the layouts were easy): more layouts for all, fewer lucky ones.
        judgement.more(samples, 0)
        plan = _plan(judgement, bid, len(top))[0]
    return None if plan is None else plan[0]


def _strains(hand: frozenset[Card], bid: Contract | None) -> list[Suit | None]:
    return [t for t, _ in _strains_ranked([(t, hand) for t in TRUMP_CHOICES], bid)]


def _strains_ranked(candidates: list[Candidate], bid: Contract | None) -> list[Candidate]:
    """The candidates the hand count puts within reach of their cheapest contract, the
    most promising :data:`_STRAINS` of them."""
    scored: list[tuple[float, Candidate]] = []
    for trump, kept in candidates:
        assert kept is not None
        low = _lowest_level(trump, bid)
        over = masks_declarer_tricks(hand_masks(kept), trump) - low
        if low <= 10 and over > -_HOPELESS:
            scored.append((over, (trump, kept)))
    scored.sort(key=lambda x: -x[0])
    return [c for _, c in scored[:_STRAINS]]


def _plan_by_play(
    view: SeatView,
    bid: Contract | None,
    candidates: list[Candidate],
    judge: int,
    samples: int,
) -> tuple[frozenset[Card], Contract] | None:
    """The kept ten and contract worth the most over sampled layouts; ties go to the
    cheaper step."""
    return _plan(_judged(view, candidates, judge, samples), bid)[0]


def _judged(view: SeatView, candidates: list[Candidate], judge: int, samples: int) -> Judgement:
    judgement = Judgement(
        view.seat, active_seats(view), view.hand, view.discard, candidates, talon=False
    )
    judgement.more(samples, judge)
    return judgement


def _plan(
    judgement: Judgement, bid: Contract | None, firm: int | None = None
) -> tuple[tuple[frozenset[Card], Contract] | None, dict[Suit | None, float]]:
    """The kept ten and contract worth the most (ties to the cheaper step), and each
    strain's best worth. Only the first ``firm`` candidates (default all) stop the
    judging when unsolved; a later one unsolved is left out."""
    best: tuple[float, frozenset[Card], Contract] | None = None
    strains: dict[Suit | None, float] = {}
    unsolved: list[float] = []
    """What each candidate ranked higher that went unsolved may be worth."""
    candidates = judgement.candidates
    firm = len(candidates) if firm is None else firm
    for index, ((trump, kept), values) in enumerate(zip(candidates, judgement.tricks, strict=True)):
        assert kept is not None
        # Between strains worth about the same, the longer trump suit: it keeps control
        # when the cards lie worse than in the layouts dealt (no trump has none).
        control = _TRUMP_LENGTH * (0 if trump is None else _length(hand_masks(kept)[int(trump)]))
        if len(values) < _MIN_LAYOUTS:
            if index < firm:
                unsolved.append(_partial_worth(values, trump, bid) + control)
            continue
        for level in range(_lowest_level(trump, bid), 11):
            contract = Contract(level, trump)
            worth = _cautious_mean([game_value(level, t) for t in values]) + control
            strains[trump] = max(strains.get(trump, worth), worth)
            if (
                best is None
                or worth > best[0] + 1e-9
                or (worth > best[0] - 1e-9 and contract.step < best[2].step)
            ):
                # Not over a candidate the counts rank higher that went unsolved in
                # budget (long trump suits are the dearest to solve) unless the
                # layouts it was solved in show it worth less: the counts decide.
                if any(other > worth - 1e-9 for other in unsolved):
                    return None, strains
                best = (worth, kept, contract)
    return (None if best is None else (best[1], best[2])), strains


def _partial_worth(values: list[int], trump: Suit | None, bid: Contract | None) -> float:
    """The most a candidate solved in fewer than :data:`_MIN_LAYOUTS` layouts may be
    worth: its best contract's plain mean over them, no caution (they are few, and it
    must not be passed over lightly); unbounded when none was solved. A strain whose
    few layouts already fall short is no reason to hand the choice back to the counts
    (no trump is the dearest to solve with the aces spread, and the counts rank it
    first)."""
    if not values:
        return math.inf
    return max(
        (
            sum(game_value(level, t) for t in values) / len(values)
            for level in range(_lowest_level(trump, bid), 11)
        ),
        default=-math.inf,
    )


def _cautious_mean(values: list[float]) -> float:
    """The mean less :data:`_CAUTION` standard errors: a dearer contract whose worth
    rests on a lucky few layouts is not preferred to a steady cheaper one."""
    n = len(values)
    mean = sum(values) / n
    spread = sum((v - mean) ** 2 for v in values) / max(1, n - 1)
    return mean - _CAUTION * math.sqrt(spread / n)


def _length(mask: int) -> int:
    return bin(mask).count("1")
