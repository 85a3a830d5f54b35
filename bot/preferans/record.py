"""The pulka record ``preferans-record/1`` (docs/record-format.md): reading and writing.

Reading checks the format and every result-only deal; played deals are rebuilt move by
move by :class:`~bot.preferans.deal.Deal`. :meth:`Game.from_record
<bot.preferans.game.Game.from_record>` drives the reading deal by deal, so that this
module does not depend on :mod:`bot.preferans.game`. A problem raises
:class:`RecordError` whose message names the deal and the move, e.g.
``deal 3, move 12: seat 2 cannot play QH: must follow spades``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeGuard

from .contracts import parse_contract
from .conventions import Rules, RulesError
from .deal import Deal, DealSettings, MoveError
from .outcome import DealKind, DealOutcome, Defence, WhistAnswer
from .scoring import Sheet
from .seats import Seat

__all__ = [
    "FORMAT",
    "RecordError",
    "RecordHeader",
    "read_header",
    "read_deal",
    "record_document",
    "outcome_from_result",
    "outcome_to_result",
]

FORMAT = "preferans-record/1"

_DEAL_KEYS = {"dealer", "hands", "talon", "moves"}
_RESULT_KEYS = {"contract", "declarer", "whist", "tricks", "defence"}


class RecordError(ValueError):
    """A record that breaks the format or the rules; the message is one precise line."""


@dataclass(frozen=True, slots=True)
class RecordHeader:
    """Everything of a record but its deals' contents: rules, players, start, stopped."""

    rules: Rules
    names: tuple[str, ...]
    start: Sheet | None
    stopped: bool
    deals: tuple[Any, ...]
    """The raw deals, read one by one with :func:`read_deal` as the game goes on."""
    first_dealer: Seat


def record_document(
    rules: Rules,
    names: Sequence[str],
    start: Sheet | None,
    deals: list[dict[str, Any]],
    stopped: bool,
) -> dict[str, Any]:
    """A record document; ``start`` is left out when ``None``."""
    record: dict[str, Any] = {"format": FORMAT, "rules": rules.to_json(), "players": list(names)}
    if start is not None:
        data = start.to_json()
        record["start"] = {"pulka": data["pulka"], "gora": data["gora"], "whists": data["whists"]}
    record["deals"] = deals
    record["stopped"] = stopped
    return record


def outcome_to_result(outcome: DealOutcome) -> dict[str, Any]:
    """The result-only form of a deal outcome."""
    result: dict[str, Any] = {}
    if outcome.kind is DealKind.ALL_PASS:
        result["contract"] = "all-pass"
    else:
        assert outcome.contract is not None and outcome.declarer is not None
        result["contract"] = outcome.contract.code
        result["declarer"] = int(outcome.declarer)
        if outcome.whists:
            result["whist"] = {str(int(s)): a.value for s, a in sorted(outcome.whists.items())}
    if outcome.tricks is not None:
        result["tricks"] = list(outcome.tricks)
    if outcome.defence is not None and len(outcome.whisters) == 1:
        result["defence"] = outcome.defence.value
    return result


def read_header(data: Any) -> RecordHeader:
    """Check the document's format, rules, players, ``start`` and ``stopped``."""
    if not isinstance(data, dict):
        raise RecordError("record: the document must be a JSON object")
    if data.get("format") != FORMAT:
        raise RecordError(f"record: 'format' must be {FORMAT!r}, not {data.get('format')!r}")
    try:
        rules = Rules.from_json(data.get("rules"))
    except RulesError as exc:
        raise RecordError(f"rules: {exc}") from None
    names = data.get("players")
    if not isinstance(names, list) or len(names) not in (3, 4):
        raise RecordError("players: must be a list of 3 or 4 names")
    if not all(isinstance(n, str) and n.strip() for n in names):
        raise RecordError("players: every name must be a non-empty string")
    players = len(names)
    start = _read_start(data.get("start"), players) if "start" in data else None
    stopped = data.get("stopped", False)
    if not isinstance(stopped, bool):
        raise RecordError("stopped: must be true or false")
    deals = data.get("deals", [])
    if not isinstance(deals, list):
        raise RecordError("deals: must be a list")
    first_dealer = Seat.S0
    if deals and isinstance(deals[0], dict):
        d0 = deals[0].get("dealer")
        if _is_int(d0) and 0 <= d0 < players:
            first_dealer = Seat(d0)
    return RecordHeader(rules, tuple(names), start, stopped, tuple(deals), first_dealer)


def read_deal(
    raw: Any, index: int, rules: Rules, dealer: Seat, settings: DealSettings
) -> Deal | DealOutcome:
    """Deal number ``index`` (1-based): a played :class:`Deal` or a result-only outcome.

    ``dealer`` is the seat that must deal it (the deal passes clockwise) and ``settings``
    the rules of the next deal; the caller adds the deal to the game.
    """
    where = f"deal {index}"
    players = settings.players
    if not isinstance(raw, dict):
        raise RecordError(f"{where}: must be an object")
    seat = raw.get("dealer")
    if not _is_int(seat) or not 0 <= seat < players:
        raise RecordError(f"{where}: 'dealer' must be a seat from 0 to {players - 1}")
    if Seat(seat) != dealer:
        raise RecordError(
            f"{where}: the dealer must be seat {int(dealer)} "
            f"(the deal passes clockwise), not seat {seat}"
        )
    if "result" in raw:
        extra = set(raw) - {"dealer", "result"}
        if extra:
            raise RecordError(f"{where}: unknown key {sorted(extra)[0]!r}")
        try:
            return outcome_from_result(raw["result"], players, dealer, rules)
        except ValueError as exc:
            raise RecordError(f"{where}: {exc}") from None
    extra = set(raw) - _DEAL_KEYS
    if extra:
        raise RecordError(f"{where}: unknown key {sorted(extra)[0]!r}")
    try:
        return Deal.from_json(settings, raw)
    except MoveError as exc:
        raise RecordError(f"{where}, move {exc.index + 1}: {exc.message}") from None
    except ValueError as exc:
        raise RecordError(f"{where}: {exc}") from None


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _read_start(raw: Any, players: int) -> Sheet:
    if not isinstance(raw, dict):
        raise RecordError("start: must be an object with pulka, gora and whists")
    try:
        pulka = _numbers(raw.get("pulka"), players, "pulka")
        gora = _numbers(raw.get("gora"), players, "gora")
        rows = raw.get("whists")
        if not isinstance(rows, list) or len(rows) != players:
            raise ValueError(f"whists must be {players} rows of {players} numbers")
        whists = tuple(_numbers(row, players, "whists row") for row in rows)
    except ValueError as exc:
        raise RecordError(f"start: {exc}") from None
    for i in range(players):
        if whists[i][i] != 0:
            raise RecordError(f"start: seat {i} cannot write whists on himself")
    return Sheet(pulka=pulka, gora=gora, whists=whists)


START_LIMIT = 1_000_000_000
"""The largest size of a number in ``start``: far beyond any real sheet (a pulka is at most
1000), small enough to print, draw and add up without overflow."""


def _numbers(raw: Any, n: int, what: str) -> tuple[Fraction, ...]:
    if not isinstance(raw, list) or len(raw) != n:
        raise ValueError(f"{what} must be a list of {n} numbers")
    out = []
    for v in raw:
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise ValueError(f"{what} must hold numbers, not {v!r}")
        if isinstance(v, float) and not math.isfinite(v):
            raise ValueError(f"{what} must hold finite numbers, not {v!r}")
        if abs(v) > START_LIMIT:
            shown = repr(v) if abs(v) < 10**24 else "a number of more than 24 digits"
            raise ValueError(
                f"{what} must hold numbers from -{START_LIMIT} to {START_LIMIT} "
                f"(what a sheet can hold), not {shown}"
            )
        out.append(Fraction(v).limit_denominator(1000) if isinstance(v, float) else Fraction(v))
    return tuple(out)


def outcome_from_result(raw: Any, players: int, dealer: Seat, rules: Rules) -> DealOutcome:
    """Check a result-only deal and turn it into a :class:`DealOutcome`; raises ``ValueError``."""
    if not isinstance(raw, dict):
        raise ValueError("'result' must be an object")
    extra = set(raw) - _RESULT_KEYS
    if extra:
        raise ValueError(f"result: unknown key {sorted(extra)[0]!r}")
    contract_text = raw.get("contract")
    first = dealer.next(players)
    active = (first, first.next(players), first.next(players).next(players))
    tricks = _read_tricks(raw.get("tricks"), players) if "tricks" in raw else None
    if contract_text == "all-pass":
        for key in ("declarer", "whist", "defence"):
            if key in raw:
                raise ValueError(f"result: an all-pass has no {key!r}")
        if tricks is None:
            raise ValueError("result: an all-pass needs 'tricks'")
        if players == 4:
            talon_tricks = tricks[dealer]
            if rules.convention.raspasy_talon == "closed" and talon_tricks:
                raise ValueError(
                    f"impossible trick counts {list(tricks)}: the dealer takes no tricks "
                    "when the talon is not opened"
                )
            if talon_tricks > 2:
                raise ValueError(
                    f"impossible trick counts {list(tricks)}: the dealer can take at most "
                    "the two talon tricks"
                )
        return DealOutcome(players, dealer, DealKind.ALL_PASS, tricks=tricks)
    try:
        contract = parse_contract(str(contract_text) if contract_text is not None else "")
    except ValueError as exc:
        raise ValueError(f"result: {exc}") from None
    declarer_raw = raw.get("declarer")
    if isinstance(declarer_raw, bool) or not isinstance(declarer_raw, int):
        raise ValueError("result: 'declarer' must be a seat")
    if not 0 <= declarer_raw < players:
        raise ValueError(f"result: no seat {declarer_raw} at a table of {players}")
    declarer = Seat(declarer_raw)
    if declarer not in active:
        raise ValueError(f"result: seat {declarer_raw} is the dealer and sits out this deal")
    if tricks is not None and players == 4 and tricks[dealer]:
        raise ValueError(f"impossible trick counts {list(tricks)}: the dealer sits out")
    probe = DealOutcome(players, dealer, DealKind.GAME, declarer, contract)
    defenders = probe.defenders
    if contract.misere:
        for key in ("whist", "defence"):
            if key in raw:
                raise ValueError(f"result: a misère has no {key!r}")
        if tricks is None:
            raise ValueError("result: a misère needs 'tricks'")
        return DealOutcome(players, dealer, DealKind.MISERE, declarer, contract, tricks=tricks)
    whists = _read_whists(raw.get("whist"), defenders, contract, rules)
    whisters = [s for s in defenders if whists.get(s) is WhistAnswer.WHIST]
    defence: Defence | None = None
    if "defence" in raw:
        if len(whisters) != 1:
            raise ValueError("result: 'defence' is chosen only by a lone whister")
        try:
            defence = Defence(raw["defence"])
        except ValueError:
            raise ValueError(f"result: unknown defence {raw['defence']!r}") from None
    elif len(whisters) == 2:
        defence = Defence.CLOSED
    if whisters and tricks is None:
        raise ValueError("result: a whisted game needs 'tricks'")
    if not whisters and tricks is not None:
        raise ValueError("result: nothing was played (no whister), so no 'tricks'")
    return DealOutcome(players, dealer, DealKind.GAME, declarer, contract, whists, defence, tricks)


def _read_tricks(raw: Any, players: int) -> tuple[int, ...]:
    if not isinstance(raw, list) or len(raw) != players:
        raise ValueError(f"result: 'tricks' must list {players} numbers")
    for t in raw:
        if isinstance(t, bool) or not isinstance(t, int) or t < 0:
            raise ValueError(f"impossible trick counts {raw}")
    if sum(raw) != 10:
        raise ValueError(f"impossible trick counts {raw}: they must add up to 10")
    return tuple(raw)


def _read_whists(
    raw: Any, defenders: tuple[Seat, ...], contract: Any, rules: Rules
) -> dict[Seat, WhistAnswer]:
    if contract.level == 10 and rules.ten_checked:
        if raw:
            raise ValueError("result: the ten is not whisted at this table (ten_checked)")
        return {}
    if not isinstance(raw, dict):
        raise ValueError("result: 'whist' must map each defender's seat to its answer")
    answers: dict[Seat, WhistAnswer] = {}
    for key, value in raw.items():
        try:
            seat = Seat(int(key))
        except (ValueError, TypeError):
            raise ValueError(f"result: whist key {key!r} is not a seat") from None
        if seat not in defenders:
            raise ValueError(f"result: seat {key} is not a defender")
        try:
            answers[seat] = WhistAnswer(value)
        except ValueError:
            raise ValueError(f"result: unknown whist answer {value!r}") from None
    missing = [int(s) for s in defenders if s not in answers]
    if missing:
        raise ValueError(f"result: no whist answer for seat {missing[0]}")
    first, second = defenders
    a1, a2 = answers[first], answers[second]
    if a1 is WhistAnswer.HALF:
        raise ValueError(f"result: seat {int(first)} answers first and cannot half-whist")
    # The second's final answer "half" with the first's "pass" is a half-whist that stood;
    # with the first's "whist" the first returned the whist (Кодекс 3.8.8).
    if a2 is WhistAnswer.HALF:
        if not rules.half_whist:
            raise ValueError("result: half-whist is not played at this table")
        if contract.level not in (6, 7):
            raise ValueError(f"result: half-whist only on 6 and 7, not on {contract}")
    both = (WhistAnswer.WHIST, WhistAnswer.WHIST)
    if rules.stalingrad and contract.code == "6S" and (a1, a2) != both:
        raise ValueError("result: 6♠ must be whisted by both (stalingrad)")
    return answers
