"""A whole pulka: the players, the rules, every deal and the running score."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .actions import Action, IllegalAction, Reason
from .conventions import Rules
from .deal import Deal, DealSettings
from .outcome import DealKind, DealOutcome
from .record import RecordError, outcome_to_result, read_deal, read_header, record_document
from .scoring import Pulka, Sheet
from .seats import Seat

__all__ = ["Game", "FinishedDeal", "settings_for", "public_record"]


@dataclass(frozen=True, slots=True)
class FinishedDeal:
    """A scored deal: its outcome, the sheet after it, and the played deal if there was one."""

    outcome: DealOutcome
    sheet: Sheet
    deal: Deal | None = None
    """``None`` for a result-only deal (score keeping for games with real cards)."""


def settings_for(rules: Rules, players: int, min_level: int) -> DealSettings:
    """The engine settings of one deal under ``rules``."""
    return DealSettings(
        players=players,
        jumps=rules.jumps,
        ten_checked=rules.ten_checked,
        stalingrad=rules.stalingrad,
        half_whist=rules.half_whist,
        raspasy_talon=rules.convention.raspasy_talon,
        min_level=min_level,
    )


class Game:
    """A pulka from the first deal to settlement.

    Deals pass clockwise every deal (sliding deal); the current deal, if any, is
    :attr:`current`; finished deals are scored as soon as they end.
    """

    def __init__(
        self,
        rules: Rules,
        names: list[str],
        *,
        start: Sheet | None = None,
        first_dealer: Seat = Seat.S0,
    ) -> None:
        if len(names) not in (3, 4):
            raise ValueError(f"Preferans is played by 3 or 4, not {len(names)}")
        self.rules = rules
        self.names = list(names)
        self.players = len(names)
        self.score = Pulka(rules, self.players, start)
        self.start = self.score.sheet
        self.first_dealer = Seat(first_dealer)
        self.finished_deals: list[FinishedDeal] = []
        self.current: Deal | None = None
        self.abandoned: Deal | None = None
        self.stopped = False

    # ------------------------------------------------------------------ state

    @property
    def finished(self) -> bool:
        """The convention's end condition was reached."""
        return self.score.finished

    @property
    def over(self) -> bool:
        """No more deals: finished or stopped."""
        return self.finished or self.stopped

    @property
    def sheet(self) -> Sheet:
        """The sheet now (after end-of-game adjustments once the game is over)."""
        if self.over:
            return self.score.final_sheet(stopped=self.stopped and not self.finished)
        return self.score.sheet

    def settlement(self) -> tuple[Fraction, ...] | None:
        """Each seat's result in whists once the game is over, else ``None``."""
        if not self.over:
            return None
        return self.score.settlement(stopped=self.stopped and not self.finished)

    @property
    def deal_count(self) -> int:
        """Deals started so far (finished ones and the current one)."""
        return len(self.finished_deals) + (1 if self.current is not None else 0)

    def next_dealer(self) -> Seat:
        """The dealer of the next deal: left of the previous dealer."""
        if self.current is not None:
            return self.current.dealer.next(self.players)
        if self.finished_deals:
            return self.finished_deals[-1].outcome.dealer.next(self.players)
        return self.first_dealer

    def next_settings(self) -> DealSettings:
        return settings_for(self.rules, self.players, self.score.next_min_level())

    # ------------------------------------------------------------------ actions

    def start_deal(self, rng: random.Random) -> Deal:
        """Deal the next hand with ``rng``."""
        self._check_next_deal(self.next_dealer())
        deal = Deal.new(self.next_settings(), self.next_dealer(), rng)
        self.current = deal
        return deal

    def begin_deal(self, deal: Deal) -> None:
        """Continue with a deal built elsewhere (a record); it must be the next one."""
        self._check_next_deal(deal.dealer)
        self.current = deal
        if deal.is_over:
            self._close_deal()

    def apply(self, action: Action) -> None:
        """Apply ``action`` to the current deal and score the deal when it ends.

        Raises :class:`IllegalAction` as :meth:`Deal.apply` does; ``ValueError`` when no
        deal is in progress (the caller starts one first).
        """
        deal = self.current
        if deal is None:
            raise ValueError(f"{action}: no deal in progress")
        deal.apply(action)
        if deal.is_over:
            self._close_deal()

    def verify_result(self, outcome: DealOutcome) -> None:
        """Raise if a result-only deal cannot be the next deal.

        It obeys every rule that can be checked without the cards (docs/record-format.md):
        the deal order; the exit from all-pass (option ``raspasy_exit``: a trick contract is
        at least the lowest first bid of this deal; misère is always a valid first call);
        and what scoring checks (who may whist or half-whist, tricks, options).
        """
        self._check_next_deal(outcome.dealer)
        contract = outcome.contract
        level = self.score.next_min_level()
        if outcome.kind is DealKind.GAME and contract is not None and contract.level < level:
            series = self.score.allpass_series
            raise IllegalAction(
                Reason.BID_BELOW_MINIMUM,
                f"{contract} cannot be played: after {series} all-pass deal(s) the first bid "
                f"must be at least {level}S (raspasy_exit)",
            )
        self.score.verify(outcome)

    def can_add_result(self, outcome: DealOutcome) -> bool:
        """Whether :meth:`add_result` would accept ``outcome``."""
        try:
            self.verify_result(outcome)
        except ValueError:
            return False
        return True

    def add_result(self, outcome: DealOutcome) -> Sheet:
        """Score a result-only deal (cards played at a real table); a refused one changes
        nothing."""
        self.verify_result(outcome)
        sheet = self.score.score(outcome)
        self.finished_deals.append(FinishedDeal(outcome, sheet, None))
        return sheet

    def replace_player(self, seat: Seat, name: str) -> None:
        """A new player takes ``seat`` (Кодекс 3.1.2); the record names him from now on."""
        if not 0 <= int(seat) < self.players:
            raise ValueError(f"no seat {int(seat)} at a table of {self.players}")
        if not name.strip():
            raise ValueError("a player needs a name")
        self.names[int(seat)] = name

    def stop(self) -> None:
        """Stop the game early; an unfinished deal is kept for the record but not scored."""
        if self.current is not None:
            self.abandoned = self.current
        self.current = None
        self.stopped = True

    def _check_next_deal(self, dealer: Seat) -> None:
        """A new deal may start: the game goes on, no deal is open, the deal passes clockwise.

        Each is the caller's to know (a record is checked for them as it is read), so
        each raises ``ValueError``.
        """
        if self.over:
            raise ValueError("the game is over: no deal may start")
        if self.current is not None:
            raise ValueError("the current deal is not over: no other deal may start")
        if dealer != self.next_dealer():
            raise ValueError(
                f"the dealer must be seat {int(self.next_dealer())} (the deal passes clockwise), "
                f"not seat {int(dealer)}"
            )

    def _close_deal(self) -> None:
        deal = self.current
        assert deal is not None
        outcome = deal.outcome()
        sheet = self.score.score(outcome)
        self.finished_deals.append(FinishedDeal(outcome, sheet, deal))
        self.current = None

    # ------------------------------------------------------------------ record

    def to_record(self) -> dict[str, Any]:
        """The game as a ``preferans-record/1`` document (docs/record-format.md)."""
        unfinished = self.current if self.current is not None else self.abandoned
        last = unfinished.to_json() if unfinished is not None else None
        return self.earlier_record(len(self.finished_deals), last, self.names, self.stopped)

    def earlier_record(
        self,
        finished: int,
        unfinished: dict[str, Any] | None,
        names: Sequence[str],
        stopped: bool,
    ) -> dict[str, Any]:
        """The record of this game as it was earlier: its first ``finished`` deals over,
        then ``unfinished`` (a deal's record; ``None``: none), with those ``names`` and
        ``stopped``. A game only grows, so this is what it was after any earlier move."""
        deals: list[dict[str, Any]] = []
        for done in self.finished_deals[:finished]:
            if done.deal is not None:
                deals.append(done.deal.to_json())
            else:
                outcome = done.outcome
                deals.append({"dealer": int(outcome.dealer), "result": outcome_to_result(outcome)})
        if unfinished is not None:
            deals.append(unfinished)
        start = None if self.start == Sheet.empty(self.players) else self.start
        return record_document(self.rules, names, start, deals, stopped)

    @classmethod
    def from_record(cls, data: Any) -> Game:
        """Rebuild and check a ``preferans-record/1`` document; raises ``RecordError``."""
        header = read_header(data)
        try:
            game = cls(
                header.rules,
                list(header.names),
                start=header.start,
                first_dealer=header.first_dealer,
            )
        except ValueError as exc:
            raise RecordError(f"record: {exc}") from None
        for index, raw in enumerate(header.deals, start=1):
            where = f"deal {index}"
            if game.over:
                # docs/record-format.md: a deal after the end condition is refused.
                raise RecordError(f"{where}: the game was already over after deal {index - 1}")
            if game.current is not None:
                raise RecordError(
                    f"deal {index - 1}: unfinished, but only the last deal may be unfinished"
                )
            item = read_deal(raw, index, game.rules, game.next_dealer(), game.next_settings())
            try:
                if isinstance(item, Deal):
                    game.begin_deal(item)
                else:
                    game.add_result(item)
            except ValueError as exc:
                raise RecordError(f"{where}: {exc}") from None
        if header.stopped:
            game.stop()
        return game


def public_record(game: Game) -> dict[str, Any]:
    """The record of ``game`` anyone may see: a deal still being played is left out (its
    hands are secret until it ends)."""
    record: dict[str, Any] = game.to_record()
    if game.current is not None:
        record["deals"] = record["deals"][: len(game.finished_deals)]
    return record
