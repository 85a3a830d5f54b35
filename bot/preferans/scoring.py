"""Scoring of one pulka (пулька): the sheet, deal by deal, the end and the settlement.

The sheet has three lines per player (rules book, "Порядок записи"): pulka (пуля),
gora (гора) and whists (висты); ``whists[i][j]`` are the whists seat ``i`` wrote on
seat ``j``. Which numbers go where is fixed by docs/rules.md ("Scoring",
"Closing the pulka and help", "Settlement"); the Кодекс fills in the rest.
Every number is an exact :class:`~fractions.Fraction`; only :meth:`Sheet.to_json`
rounds, and only for display.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .cards import Suit
from .contracts import Contract
from .conventions import Rules
from .outcome import DealKind, DealOutcome, Defence, WhistAnswer
from .seats import Seat

__all__ = [
    "ScoringError",
    "Sheet",
    "Pulka",
    "settle",
    "json_number",
    "HELP_WHISTS",
    "TRICKS",
]

TRICKS = 10
"""Tricks in a deal."""

HELP_WHISTS = 10
"""Whists written on a helped player per pulka point (rules book, "помощь")."""

_ZERO = Fraction(0)


class ScoringError(ValueError):
    """A deal outcome or a sheet that cannot happen under the rules being scored."""


def json_number(value: Fraction | int) -> int | float:
    """``value`` rounded half away from zero to two decimals; an ``int`` when whole."""
    cents = math.floor(abs(Fraction(value)) * 100 + Fraction(1, 2))
    if value < 0:
        cents = -cents
    if cents % 100 == 0:
        return cents // 100
    return cents / 100


def _number(value: Any, where: str) -> Fraction:
    """A sheet number from JSON or Python: int, finite float or Fraction (not bool)."""
    if isinstance(value, bool):
        raise ScoringError(f"{where}: expected a number, not {value!r}")
    if type(value) is Fraction:
        return value  # already exact and immutable: most sheets are built from fractions
    if isinstance(value, int | Fraction):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ScoringError(f"{where}: expected a finite number, not {value!r}")
        return Fraction(repr(value))  # 0.33 means 33/100, not the nearest binary float
    raise ScoringError(f"{where}: expected a number, not {value!r}")


@dataclass(frozen=True, slots=True)
class Sheet:
    """An immutable snapshot of the pulka sheet.

    ``pulka[i]``, ``gora[i]``: seat ``i``'s pulka and gora; ``whists[i][j]``: whists
    written by seat ``i`` on seat ``j`` (the diagonal stays zero).
    """

    pulka: tuple[Fraction, ...]
    gora: tuple[Fraction, ...]
    whists: tuple[tuple[Fraction, ...], ...]

    def __post_init__(self) -> None:
        n = len(self.pulka)
        if n not in (3, 4):
            raise ScoringError(f"a sheet has 3 or 4 players, not {n}")
        if len(self.gora) != n or len(self.whists) != n:
            raise ScoringError(f"sheet: pulka, gora and whists must all have {n} entries")
        if any(len(row) != n for row in self.whists):
            raise ScoringError(f"sheet: every whists row must have {n} entries")
        if not self._exact():  # a sheet as scoring builds it is kept as it is
            self._normalise()
        for i in range(n):
            if self.whists[i][i] != 0:
                raise ScoringError(f"sheet: seat {i} cannot write whists on itself")

    def _exact(self) -> bool:
        """Whether every line is a tuple of Fractions already."""
        lines = (self.pulka, self.gora, self.whists, *self.whists)
        return all(type(line) is tuple for line in lines) and all(
            type(v) is Fraction for line in (self.pulka, self.gora, *self.whists) for v in line
        )

    def _normalise(self) -> None:
        # Normalise ints (and floats) to exact fractions so callers may pass plain numbers.
        object.__setattr__(
            self, "pulka", tuple(_number(v, f"pulka[{i}]") for i, v in enumerate(self.pulka))
        )
        object.__setattr__(
            self, "gora", tuple(_number(v, f"gora[{i}]") for i, v in enumerate(self.gora))
        )
        object.__setattr__(
            self,
            "whists",
            tuple(
                tuple(_number(v, f"whists[{i}][{j}]") for j, v in enumerate(row))
                for i, row in enumerate(self.whists)
            ),
        )

    @property
    def players(self) -> int:
        """Number of seats on the sheet."""
        return len(self.pulka)

    @classmethod
    def empty(cls, players: int) -> Sheet:
        """A clean sheet for ``players`` (3 or 4) seats."""
        if players not in (3, 4):
            raise ScoringError(f"a sheet has 3 or 4 players, not {players!r}")
        zeros = tuple(_ZERO for _ in range(players))
        return cls(zeros, zeros, tuple(zeros for _ in range(players)))

    @classmethod
    def from_json(cls, data: Any, players: int | None = None) -> Sheet:
        """Parse ``{"pulka": [...], "gora": [...], "whists": [[...], ...]}``."""
        if not isinstance(data, Mapping):
            raise ScoringError("sheet must be an object with pulka, gora and whists")
        for key in ("pulka", "gora", "whists"):
            if key not in data:
                raise ScoringError(f"sheet: missing {key!r}")
            if not isinstance(data[key], list | tuple):
                raise ScoringError(f"sheet: {key!r} must be a list")
        rows = data["whists"]
        if not all(isinstance(row, list | tuple) for row in rows):
            raise ScoringError("sheet: 'whists' must be a list of lists")
        unknown = sorted(set(data) - {"pulka", "gora", "whists"})
        if unknown:
            raise ScoringError(f"sheet: unknown key {unknown[0]!r}")
        sheet = cls(tuple(data["pulka"]), tuple(data["gora"]), tuple(tuple(r) for r in rows))
        if players is not None and sheet.players != players:
            raise ScoringError(f"sheet has {sheet.players} players, the table has {players}")
        return sheet

    def to_json(self) -> dict[str, Any]:
        """The sheet as JSON numbers rounded to two decimals (ints when whole)."""
        return {
            "pulka": [json_number(v) for v in self.pulka],
            "gora": [json_number(v) for v in self.gora],
            "whists": [[json_number(v) for v in row] for row in self.whists],
        }


def settle(sheet: Sheet) -> tuple[Fraction, ...]:
    """Each seat's result in whists (exact; sums to zero).

    Rules book, "Первый способ расчета": gora amnesty (the smallest gora is taken from
    every gora), each remaining gora × 10 / players is written as whists by every other
    player on its owner, whists are netted pairwise and a player's result is the sum
    of his net whists.
    """
    n = sheet.players
    # Integers over a common denominator: the same exact numbers as with fractions, without
    # a new fraction for every sum (this runs for every deal shown).
    den = math.lcm(*(v.denominator for v in (*sheet.gora, *(x for r in sheet.whists for x in r))))
    gora = [v.numerator * (den // v.denominator) for v in sheet.gora]
    w = [[v.numerator * (den // v.denominator) for v in row] for row in sheet.whists]
    lowest = min(gora)
    # Every other seat writes share_k = (gora_k − lowest) × 10 / n on the owner k; netted,
    # seat i gets all the shares but its own and pays its own to n − 1 seats:
    # sum(shares) − n × share_i. Scaled by n to stay whole.
    all_shares = (sum(gora) - n * lowest) * 10
    return tuple(
        Fraction(
            n * (sum(w[i]) - sum(row[i] for row in w)) + all_shares - n * 10 * (gora[i] - lowest),
            n * den,
        )
        for i in range(n)
    )


class _Book:
    """Mutable working copy of a sheet while one deal is being scored."""

    def __init__(self, sheet: Sheet, size: int, helps: bool) -> None:
        self.n = sheet.players
        self.pulka = list(sheet.pulka)
        self.gora = list(sheet.gora)
        self.gora_before = sheet.gora
        """Gora before this deal's entries: it breaks ties between players to help."""
        self.whists = [list(row) for row in sheet.whists]
        self.size = size
        self.helps = helps

    def freeze(self) -> Sheet:
        return Sheet(tuple(self.pulka), tuple(self.gora), tuple(tuple(r) for r in self.whists))

    def write(self, by: int, on: int, amount: Fraction) -> None:
        """Seat ``by`` writes ``amount`` whists on seat ``on``."""
        if amount:
            self.whists[by][on] += amount

    def to_gora(self, seat: int, amount: Fraction) -> None:
        self.gora[seat] += amount

    def to_pulka(self, scorer: int, points: Fraction, barred: Iterable[int]) -> None:
        """Write ``points`` into ``scorer``'s pulka, closing and helping when the rules do.

        Sochi/Rostov (docs/rules.md, "Closing the pulka and help"; rules book,
        "Порядок записи"): the scorer's pulka is filled up to the size; the surplus goes
        to the player with the most in pulka who is not closed and not ``barred``
        (ties: less gora before this deal, then nearest to the scorer's left; an all-pass
        writes its tricks to gora before its pulka points), and the scorer writes
        10 whists per point on him; what is left when nobody can be helped is written
        off the scorer's gora (it may go negative). Leningrad: no limit, no help.
        """
        if points <= 0:
            return
        if not self.helps:
            self.pulka[scorer] += points
            return
        own = min(points, max(self.size - self.pulka[scorer], _ZERO))
        self.pulka[scorer] += own
        left = points - own
        barred_set = set(barred)
        while left > 0:
            candidates = [
                s
                for s in range(self.n)
                if s != scorer and s not in barred_set and self.pulka[s] < self.size
            ]
            if not candidates:
                self.gora[scorer] -= left  # nobody to help: written off the gora
                return
            target = min(
                candidates,
                key=lambda s: (-self.pulka[s], self.gora_before[s], (s - scorer) % self.n),
            )
            given = min(left, self.size - self.pulka[target])
            self.pulka[target] += given
            self.write(scorer, target, HELP_WHISTS * given)
            left -= given


class Pulka:
    """The running score of one whole game (пулька) under ``rules``."""

    def __init__(
        self,
        rules: Rules,
        players: int,
        start: Sheet | None = None,
        *,
        allpass_series: int = 0,
    ) -> None:
        if players not in (3, 4):
            raise ScoringError(f"a pulka has 3 or 4 players, not {players!r}")
        if start is None:
            start = Sheet.empty(players)
        if start.players != players:
            raise ScoringError(f"start sheet has {start.players} players, the table has {players}")
        if allpass_series < 0:
            raise ScoringError("allpass_series cannot be negative")
        self.rules = rules
        self.players = players
        self.allpass_series = allpass_series
        """Consecutive all-pass deals just played (0 after any played game)."""
        self._sheet = start

    @property
    def sheet(self) -> Sheet:
        """The sheet after the last scored deal (no end-of-game adjustments)."""
        return self._sheet

    @property
    def finished(self) -> bool:
        """Whether the convention's end condition is reached (docs/rules.md, "End of the game")."""
        size = self.rules.pulka
        pulka = self._sheet.pulka
        if self.rules.convention.end_rule == "sum":
            return sum(pulka, _ZERO) >= size * self.players
        return all(p >= size for p in pulka)

    def next_min_level(self) -> int:
        """Lowest level of the first bid of the next deal (option ``raspasy_exit``)."""
        return self.rules.min_first_level(self.allpass_series)

    def next_raspasy_price(self) -> int:
        """Trick price if the next deal is an all-pass (Кодекс 3.7.4)."""
        return self.rules.raspasy_price(self.allpass_series + 1)

    # ------------------------------------------------------------------ scoring

    def verify(self, outcome: DealOutcome) -> None:
        """Raise :class:`ScoringError` if ``outcome`` cannot be scored next."""
        if self.finished:
            raise ScoringError("the pulka is already finished: no more deals can be scored")
        self._check_outcome(outcome)

    def score(self, outcome: DealOutcome) -> Sheet:
        """Apply one finished deal and return the new sheet.

        Raises :class:`ScoringError` (and changes nothing) when the outcome cannot
        happen: wrong table size, tricks not summing to 10, whist answers that do
        not fit the contract, and so on.
        """
        self.verify(outcome)
        conv = self.rules.convention
        book = _Book(self._sheet, self.rules.pulka, conv.helps)
        if outcome.kind == DealKind.ALL_PASS:
            series = self.allpass_series + 1
            if conv.raspasy_scoring == "gora":
                self._score_allpass_gora(outcome, book, series)
            else:
                self._score_allpass_whists(outcome, book, series)
        else:
            series = 0  # any played game ends the all-pass series (docs/rules.md, "All-pass")
            if outcome.kind == DealKind.MISERE:
                self._score_misere(outcome, book)
            else:
                self._score_game(outcome, book)
        self._sheet = book.freeze()
        self.allpass_series = series
        return self._sheet

    def _sitting_out(self, outcome: DealOutcome) -> list[int]:
        """The dealer who sits out (four players), who is never helped, not even after he
        took all-pass talon tricks (rules book, "Порядок записи": «кроме сидящего на
        прикупе»). With three players the dealer holds cards and is helped like anybody."""
        return [int(outcome.dealer)] if self.players == 4 else []

    def _score_game(self, o: DealOutcome, book: _Book) -> None:
        assert o.contract is not None and o.declarer is not None
        contract = o.contract
        declarer = int(o.declarer)
        conv = self.rules.convention
        price = Fraction(contract.price)
        whist = price * conv.whist_factor  # whists per defender trick
        penalty = price * conv.declarer_factor  # declarer's gora per missing trick
        # Кодекс 3.8.11 (full) / 3.8.12 (half): the whister's gora per missing trick.
        whister_penalty = penalty if self.rules.whist_responsibility == "full" else penalty / 2
        # Кодекс 3.8.1.2, note 53: consolation per trick the declarer is short.
        if conv.consolation_flat is not None:
            consolation = Fraction(conv.consolation_flat)
        else:
            consolation = price * conv.consolation_factor
        barred = self._sitting_out(o)
        whisters = [int(s) for s in o.whisters]
        if not whisters:
            # Both passed, half-whist, or an unwhisted ten: no play, the game counts as made.
            half = [int(s) for s, a in o.whists.items() if a == WhistAnswer.HALF]
            if half:
                # Кодекс 3.8.7: the half-whister writes for half the obligation (6 → 2, 7 → 1).
                book.write(half[0], declarer, whist * (contract.obligation // 2))
            book.to_pulka(declarer, price, barred)
            return

        assert o.tricks is not None
        tricks = o.tricks
        taken = tricks[declarer]
        defence = TRICKS - taken  # a lone whister owns all defender tricks (Кодекс 3.8.5)
        short = _shortfalls(contract, whisters, tricks, defence)
        for seat, missing in short.items():
            book.to_gora(seat, missing * whister_penalty)  # Кодекс 3.8.1.3

        if taken >= contract.level:
            # Кодекс 3.8.1.1: whisters write their tricks; passers nothing.
            if len(whisters) == 2:
                for seat in whisters:
                    book.write(seat, declarer, whist * tricks[seat])
            else:
                book.write(whisters[0], declarer, whist * defence)
            book.to_pulka(declarer, price, barred + list(short))
            return

        under = contract.level - taken
        book.to_gora(declarer, penalty * under)
        bonus = consolation * under
        if len(whisters) == 2:
            # Кодекс 3.8.13/3.8.14: with two whisters each writes for himself.
            for seat in whisters:
                book.write(seat, declarer, whist * tricks[seat] + bonus)
        else:
            whister = whisters[0]
            passer = next(int(s) for s in o.defenders if int(s) != whister)
            own = whist * defence + bonus
            if self.rules.whist_type == "greedy" or o.returned_whist:
                # Кодекс 3.8.13: the whister writes the whists, the passer only consolation.
                # Кодекс 3.8.14: so does the former half-whister after a returned whist, in
                # any whist type (docs/rules.md, "Whisting").
                book.write(whister, declarer, own)
                book.write(passer, declarer, bonus)
            else:
                # Кодекс 3.8.14, rules book 6♣ example: the two sums are pooled and halved.
                pooled = (own + bonus) / 2
                book.write(whister, declarer, pooled)
                book.write(passer, declarer, pooled)
        if self.players == 4:
            # Кодекс 3.8.1.2: the dealer writes consolation too.
            book.write(int(o.dealer), declarer, bonus)

    def _score_misere(self, o: DealOutcome, book: _Book) -> None:
        assert o.declarer is not None and o.tricks is not None
        declarer = int(o.declarer)
        taken = o.tricks[declarer]
        if taken == 0:
            book.to_pulka(declarer, Fraction(10), self._sitting_out(o))
        else:
            # No whists, no consolation on misère (docs/rules.md, "Scoring").
            book.to_gora(declarer, Fraction(self.rules.convention.misere_penalty * taken))

    def _score_allpass_gora(self, o: DealOutcome, book: _Book, series: int) -> None:
        """Sochi/Leningrad all-pass (Кодекс 3.7.2.1, 3.7.3, 3.7.4)."""
        assert o.tricks is not None
        tricks = o.tricks
        price = Fraction(self.rules.raspasy_price(series))
        # Кодекс 3.7.3: amnesty by the fewest tricks of anybody, the 4-player dealer included.
        amnesty = min(tricks) if self.rules.raspasy_amnesty else 0
        for seat in range(self.players):
            book.to_gora(seat, price * (tricks[seat] - amnesty))
        zero = self.rules.convention.raspasy_zero_flat
        points = price if zero is None else Fraction(zero)
        # Several zero-trick players write in seat order from the first hand, each
        # helped player's room shrinking as it fills (docs/rules.md, "Help").
        for seat in _from_first_hand(o):
            if tricks[seat] == 0:
                book.to_pulka(seat, points, self._sitting_out(o))

    def _score_allpass_whists(self, o: DealOutcome, book: _Book, series: int) -> None:
        """Rostov all-pass on whists (Кодекс 3.7.2.2, 3.7.6.2; rules book, Ростовка)."""
        assert o.tricks is not None
        tricks = o.tricks
        price = Fraction(self.rules.raspasy_price(series))
        active = [int(s) for s in o.active]  # the 4-player dealer takes no part
        fewest = min(tricks[s] for s in active)
        low = [s for s in active if tricks[s] == fewest]
        others = [s for s in active if tricks[s] != fewest]
        for writer in low:
            for seat in others:
                # Two tied for fewest split what they write on the third in half.
                book.write(writer, seat, price * tricks[seat] / len(low))
        zero = self.rules.convention.raspasy_zero_flat
        points = price if zero is None else Fraction(zero)
        for seat in _from_first_hand(o):
            if tricks[seat] == 0:
                book.to_pulka(seat, points, self._sitting_out(o))

    # --------------------------------------------------------------- validation

    def _check_outcome(self, o: DealOutcome) -> None:
        n = self.players
        if o.players != n:
            raise ScoringError(f"the deal is for {o.players} players, the table has {n}")
        if not _is_seat(o.dealer, n):
            raise ScoringError(f"dealer must be a seat from 0 to {n - 1}, not {o.dealer!r}")
        if o.kind == DealKind.ALL_PASS:
            self._check_allpass(o)
            return
        if o.kind not in (DealKind.GAME, DealKind.MISERE):
            raise ScoringError(f"unknown deal kind {o.kind!r}")
        if o.declarer is None:
            raise ScoringError(f"a {o.kind} deal needs a declarer")
        if not _is_seat(o.declarer, n):
            raise ScoringError(f"declarer must be a seat from 0 to {n - 1}, not {o.declarer!r}")
        if n == 4 and o.declarer == o.dealer:
            raise ScoringError(f"the dealer (seat {int(o.dealer)}) sits out and cannot declare")
        if o.kind == DealKind.MISERE:
            if o.contract is not None and not o.contract.misere:
                raise ScoringError(f"a misère deal cannot have contract {o.contract}")
            if o.whists:
                raise ScoringError("misère is not whisted: whist answers must be empty")
            if o.defence is not None:
                raise ScoringError("misère has no whist defence (open/closed)")
            self._check_tricks(o, played=True)
            return
        self._check_game(o)

    def _check_allpass(self, o: DealOutcome) -> None:
        if o.declarer is not None:
            raise ScoringError("an all-pass deal has no declarer")
        if o.contract is not None:
            raise ScoringError("an all-pass deal has no contract")
        if o.whists:
            raise ScoringError("an all-pass deal has no whist answers")
        if o.defence is not None:
            raise ScoringError("an all-pass deal has no whist defence")
        self._check_tricks(o, played=True)

    def _check_game(self, o: DealOutcome) -> None:
        contract = o.contract
        if contract is None:
            raise ScoringError("a game deal needs a contract")
        if not isinstance(contract, Contract) or contract.misere:
            raise ScoringError(f"a game deal needs a trick contract, not {contract!r}")
        if contract.level not in (6, 7, 8, 9, 10):
            raise ScoringError(f"contract level must be 6 to 10, not {contract.level}")
        assert o.declarer is not None
        defenders = [int(s) for s in o.defenders]
        for seat, answer in o.whists.items():
            if seat not in defenders:
                names = " and ".join(str(s) for s in defenders)
                raise ScoringError(
                    f"seat {_show(seat)} is not a defender against {contract} by seat "
                    f"{int(o.declarer)} (defenders: {names})"
                )
            if answer not in (WhistAnswer.WHIST, WhistAnswer.PASS, WhistAnswer.HALF):
                raise ScoringError(f"seat {_show(seat)}: unknown whist answer {answer!r}")
        if contract.level == 10 and self.rules.ten_checked:
            # Option ten_checked: the ten is not whisted and counts as made.
            if o.whists:
                raise ScoringError(f"{contract} is not whisted (ten_checked): no whist answers")
            if o.defence is not None or o.tricks is not None:
                raise ScoringError(f"{contract} is not played out (ten_checked): no tricks")
            return
        for defender in defenders:
            if defender not in o.whists:
                raise ScoringError(f"defender seat {defender} has no whist answer to {contract}")
        answers = [o.whists[Seat(s)] for s in defenders]
        halves = [s for s, a in zip(defenders, answers, strict=True) if a == WhistAnswer.HALF]
        whisters = [s for s, a in zip(defenders, answers, strict=True) if a == WhistAnswer.WHIST]
        if self.rules.stalingrad and contract.level == 6 and contract.trump == Suit.SPADES:
            if len(whisters) != 2:
                raise ScoringError("6S must be whisted by both defenders (stalingrad)")
        if halves:
            if not self.rules.half_whist:
                raise ScoringError("half-whist is not played at this table (half_whist off)")
            if contract.level > 7:
                raise ScoringError(f"half-whist is only possible on 6 and 7, not on {contract}")
            # The first defender passed, or passed and then returned the whist (Кодекс 3.8.8).
            if len(halves) > 1 or halves[0] != defenders[1] or answers[0] == WhistAnswer.HALF:
                raise ScoringError(
                    "half-whist is only the second defender's answer after the first passed "
                    "(Кодекс 3.8.7)"
                )
        played = bool(whisters)
        if o.defence is not None:
            if not played:
                raise ScoringError(f"{contract} is not played: no whist defence")
            if o.defence not in (Defence.OPEN, Defence.CLOSED):
                raise ScoringError(f"unknown defence {o.defence!r}")
            if len(whisters) == 2 and o.defence == Defence.OPEN:
                raise ScoringError("two whisters always defend closed (Кодекс 3.8.4)")
        self._check_tricks(o, played=played)

    def _check_tricks(self, o: DealOutcome, *, played: bool) -> None:
        n = self.players
        tricks = o.tricks
        if not played:
            if tricks is not None:
                raise ScoringError("no cards were played in this deal: tricks must be omitted")
            return
        if tricks is None:
            raise ScoringError(f"a played {o.kind} deal needs tricks per seat")
        if not isinstance(tricks, tuple | list) or len(tricks) != n:
            count = len(tricks) if isinstance(tricks, Sequence) else "?"
            raise ScoringError(f"tricks must have {n} entries (one per seat), not {count}")
        for seat, t in enumerate(tricks):
            if isinstance(t, bool) or not isinstance(t, int) or not 0 <= t <= TRICKS:
                raise ScoringError(f"seat {seat}: tricks must be a whole number 0-10, not {t!r}")
        if sum(tricks) != TRICKS:
            raise ScoringError(f"tricks must sum to {TRICKS}, not {sum(tricks)}: {list(tricks)}")
        if n == 4:
            dealer = int(o.dealer)
            if o.kind != DealKind.ALL_PASS or self.rules.convention.raspasy_talon == "closed":
                if tricks[dealer] != 0:
                    raise ScoringError(
                        f"the dealer (seat {dealer}) sits out and takes no tricks, "
                        f"not {tricks[dealer]}"
                    )
            elif tricks[dealer] > 2:
                raise ScoringError(
                    f"the dealer (seat {dealer}) can take at most the 2 talon tricks, "
                    f"not {tricks[dealer]}"
                )

    # ------------------------------------------------------------------ the end

    def final_sheet(self, stopped: bool = False) -> Sheet:
        """The sheet after the end-of-game adjustments (docs/rules.md, "End of the game").

        Leningrad: twice (pulka − size) is taken off each gora (a negative difference
        adds). Sochi/Rostov stopped early: each unclosed pulka is closed and its
        shortfall goes to its owner's gora. Raises :class:`ScoringError` when the
        game is neither finished nor ``stopped``.
        """
        if not (stopped or self.finished):
            raise ScoringError("the pulka is not finished; settle it as stopped")
        size = self.rules.pulka
        sheet = self._sheet
        pulka = list(sheet.pulka)
        gora = list(sheet.gora)
        if self.rules.convention.end_rule == "sum":
            # Rules book, Ленинградка "окончание пульки": 2 × difference to/from gora.
            for seat in range(self.players):
                gora[seat] -= 2 * (pulka[seat] - size)
        else:
            # Stopping early: close each pulka, its shortfall goes to the gora.
            for seat in range(self.players):
                if pulka[seat] < size:
                    gora[seat] += size - pulka[seat]
                    pulka[seat] = Fraction(size)
        return Sheet(tuple(pulka), tuple(gora), sheet.whists)

    def settlement(self, stopped: bool = False) -> tuple[Fraction, ...]:
        """Each seat's result in whists after the end adjustments; sums to exactly 0."""
        return settle(self.final_sheet(stopped))


def _shortfalls(
    contract: Contract, whisters: list[int], tricks: Sequence[int], defence: int
) -> dict[int, int]:
    """Missing tricks per short whister (Кодекс 3.8.5, 3.8.6)."""
    obligation = contract.obligation
    if defence >= obligation:
        return {}
    if len(whisters) == 1:
        # A lone whister answers for the whole obligation.
        return {whisters[0]: obligation - defence}
    if contract.level <= 7:
        # Each answers for half; short only when the sum is short (Кодекс 3.8.6 examples).
        half = obligation // 2
        return {s: half - tricks[s] for s in whisters if tricks[s] < half}
    # On 8, 9, 10 the second whister in answering order answers (Кодекс 3.8.6, note 58).
    return {whisters[1]: obligation - defence}


def _from_first_hand(o: DealOutcome) -> list[int]:
    """All seats, starting with the first hand (left of the dealer); the dealer last."""
    return [(int(o.dealer) + k) % o.players for k in range(1, o.players + 1)]


def _show(seat: Any) -> str:
    """A seat for messages: ``2`` rather than ``<Seat.S2: 2>``."""
    return str(int(seat)) if isinstance(seat, int) else repr(seat)


def _is_seat(value: Any, players: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < players
