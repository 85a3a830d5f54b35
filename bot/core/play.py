"""The game at a table: starting, moves, discard marks, timeouts, stop votes.

Pure changes of a :class:`~bot.core.model.Table` (no I/O, no lock): each checks first
and raises :class:`Rejected` before it changes anything, then returns the effects.
:class:`~bot.core.service.TableService` runs them under the table's lock and saves.
Legal moves come only from the engine (``seat_view(...).legal``).
"""

from __future__ import annotations

import hashlib
import logging
import random
import secrets
from dataclasses import replace

from bot.preferans.actions import Action, Discard, IllegalAction
from bot.preferans.auto_moves import auto_action, forced_declaration
from bot.preferans.cards import Card
from bot.preferans.game import Game
from bot.preferans.seats import REPLACE_AFTER, Seat
from bot.preferans.views import SeatView

from .effects import (
    AutoPlayed,
    DealEnded,
    DealShown,
    Effect,
    GameOver,
    GameStopped,
    HandShown,
    LobbyClosed,
    SeatReplaceable,
    StopVoted,
    TimerChanged,
    TurnPassed,
    VoteLapsed,
)
from .errors import AlreadyDone, Rejected
from .model import AutoMove, Holder, Press, Status, Table, is_robot_id
from .viewcache import seat_view

__all__ = [
    "turn_of",
    "auto_action",
    "deal_rng",
    "new_seed",
    "start_game",
    "next_deal",
    "arm",
    "act",
    "confirm_discard",
    "mark_discard",
    "timeout",
    "apply_action",
    "vote_stop",
    "stop_need",
    "RECENT_PRESSES",
]

log = logging.getLogger(__name__)

RECENT_PRESSES = 12
"""People's accepted presses remembered per table to recognise a repeated one."""

# ---------------------------------------------------------------------- deals


def new_seed(base: int | None, table_id: int) -> str:
    """A table's deal seed: random, or derived from a fixed base seed (tests)."""
    if base is None:
        return secrets.token_hex(16)
    return hashlib.sha256(f"{base}:{table_id}".encode()).hexdigest()[:32]


def deal_rng(table: Table, deal_no: int) -> random.Random:
    """The shuffle of deal ``deal_no`` (from 1) of ``table``: the same after a restart."""
    return random.Random(f"{table.seed}:{deal_no}")


def arm(table: Table, now: float) -> None:
    """Set the turn deadline from now (none with the timer off or out of play)."""
    turn = table.settings.turn_time
    table.deadline = now + turn if turn and table.status == Status.PLAYING else None


def next_deal(table: Table, now: float, seed: int | None) -> list[Effect]:
    """Deal the next deal, or end the game if it is over."""
    game = table.game
    assert game is not None
    if game.over:
        return _game_over(table)
    if not table.seed:  # a table started before deal seeds were stored
        table.seed = new_seed(seed, table.id)
    ended_no = table.deal_no
    game.start_deal(deal_rng(table, game.deal_count + 1))
    table.deal_no = game.deal_count
    table.move += 1
    effects: list[Effect] = []
    if table.stop_votes:  # a vote to stop counts for the deal it was cast in: it lapses
        voters = tuple(table.names()[s] for s in sorted(table.stop_votes))
        effects.append(VoteLapsed(table, ended_no, voters, stop_need(table)))
    table.stop_votes = set()
    table.ui.discard_pick = {}
    table.ui.forced = None
    table.ui.dealt_at = now  # the new hand messages ring (a turn soon after needs no ping)
    arm(table, now)
    return [*effects, DealShown(table), TimerChanged(table)]


def _game_over(table: Table) -> list[Effect]:
    table.status = Status.OVER
    table.unshown.settlement = True
    table.deadline = None
    table.ui.auto_note = None
    return [GameOver(table), TimerChanged(table)]


def start_game(
    table: Table, user_id: int, now: float, wall: float, seed: int | None
) -> list[Effect]:
    """Deal the first deal: every seat taken, pressed by a seated player."""
    if table.seat_of(user_id) is None:
        raise Rejected("err.not_seated")
    if not table.full:
        raise Rejected("err.not_full")
    names = [p.name for p in table.seats if p is not None]
    if not table.seed:
        table.seed = new_seed(seed, table.id)
    first_dealer = Seat(random.Random(f"{table.seed}:dealer").randrange(len(names)))
    table.game = Game(table.settings.rules(), names, first_dealer=first_dealer)
    table.status = Status.PLAYING
    table.timeouts = {}
    table.stop_votes = set()
    table.started_at = wall
    table.waiting = []
    table.holders = [Holder(seat, 1, p.user_id, p.name) for seat, p in table.seated()]
    table.ui.settings_open = False
    table.ui.auto_note = None
    effects: list[Effect] = []
    table.unshown.lobby = True
    effects.append(LobbyClosed(table, Status.PLAYING))
    return effects + next_deal(table, now, seed)


# ---------------------------------------------------------------------- moves


def turn_of(table: Table, user_id: int, move: int) -> tuple[Seat, SeatView]:
    """``user_id``'s seat and view when a press of his at ``move`` may act; else refused
    (the deal moved on, he is not seated, or it is not his turn)."""
    if table.status != Status.PLAYING or table.game is None or table.game.current is None:
        raise Rejected("err.stale")
    seat = table.seat_of(user_id)
    if seat is None:
        raise Rejected("err.not_seated")
    if move != table.move:
        raise Rejected("err.stale")
    view = seat_view(table.game.current, seat)
    if not view.legal:
        raise Rejected("err.not_turn")
    return seat, view


def act(
    table: Table,
    user_id: int,
    move: int,
    press: str,
    action: Action | None,
    now: float,
    seed: int | None,
) -> list[Effect]:
    """Apply the ``action`` ``user_id`` pressed at ``move`` if it is among his legal ones or
    the offers he may make (record format, "Offers": kept apart from the legal moves by the
    engine); ``None``: the press names no action. ``press`` names the press, so that one
    repeated after a restart is :class:`AlreadyDone`."""
    if move != table.move and (
        Press(move, user_id, press) in table.recent
        or _was_made_for(table, move, user_id, action)  # made for him as he pressed it
    ):
        raise AlreadyDone()
    seat, view = turn_of(table, user_id, move)
    # the discard is marked card by card and confirmed apart (confirm_discard)
    if action is None or isinstance(action, Discard) or action not in (*view.legal, *view.offers):
        raise Rejected("err.illegal")
    return _accepted(table, seat, Press(move, user_id, press), action, now, seed)


def confirm_discard(
    table: Table, user_id: int, move: int, press: str, now: float, seed: int | None
) -> list[Effect]:
    """Discard the two cards the declarer marked."""
    if move != table.move and (
        Press(move, user_id, press) in table.recent
        # his time ran out with two cards marked: the timer discarded them (timeout)
        or any(isinstance(a, Discard) for a in _made_at(table, move, user_id))
    ):
        raise AlreadyDone()
    seat, view = turn_of(table, user_id, move)
    wanted = _marked_discard(table, seat)
    if wanted is None:
        raise Rejected("err.pick_two")
    if wanted not in view.legal:
        raise Rejected("err.illegal")
    return _accepted(table, seat, Press(move, user_id, press), wanted, now, seed)


def _accepted(
    table: Table, seat: Seat, press: Press, action: Action, now: float, seed: int | None
) -> list[Effect]:
    table.timeouts[seat] = 0
    if not is_robot_id(press.user_id):
        # only people press again after a restart; a computer player's moves (negative id,
        # bot.core.robots) would push their presses out of this short memory
        table.recent = [*table.recent, press][-RECENT_PRESSES:]
    table.ui.acted_at[seat] = now
    return apply_action(table, action, now, seed, auto=False)


def mark_discard(
    table: Table, user_id: int, move: int, card: Card | None, mark: bool
) -> list[Effect]:
    """Mark (or unmark) a card for the declarer's discard; no engine action yet. Marking a
    marked card changes nothing, so a press repeated after a restart is harmless. ``None``:
    a card that does not exist."""
    seat, view = turn_of(table, user_id, move)
    pickable: set[Card] = set()
    for a in view.legal:
        if isinstance(a, Discard):
            pickable.update(a.cards)
    if card is None or card not in pickable:
        raise Rejected("err.illegal")
    picked = list(table.ui.discard_pick.get(seat, ()))
    if mark is (card in picked):
        return []
    if card in picked:
        picked.remove(card)
    else:
        picked = [*picked, card][-2:]
    table.ui.discard_pick[seat] = tuple(picked)
    return [HandShown(table, seat)]


def timeout(
    table: Table, move: int, now: float, seed: int | None, *, unseen: bool = False
) -> list[Effect]:
    """The player to act ran out of time: play the safe action for him; but one whose
    buttons have not reached him yet (``unseen``: Telegram slow or down) gets a new turn."""
    if table.status != Status.PLAYING or table.move != move or table.game is None:
        return []
    deal = table.game.current
    if deal is None or deal.actor is None:
        return []
    if unseen:  # a move made for him would be a turn he never saw: it starts again
        arm(table, now)
        return [TimerChanged(table)]
    if table.deadline is None or now < table.deadline - 0.05:
        return [TimerChanged(table)]  # the clock says it is not due yet
    seat = deal.actor
    view = seat_view(deal, seat)
    marked = _marked_discard(table, seat)
    # a declarer who marked his two cards and ran out of time before confirming them
    # discards what he chose, not the two lowest
    action = marked if marked is not None and marked in view.legal else auto_action(view)
    table.timeouts[seat] = table.timeouts.get(seat, 0) + 1
    effects = apply_action(table, action, now, seed, auto=True)
    if table.timeouts[seat] == REPLACE_AFTER and table.status == Status.PLAYING:
        effects.append(SeatReplaceable(table, seat))
    return effects


def apply_action(
    table: Table, action: Action, now: float, seed: int | None, *, auto: bool, made: bool = False
) -> list[Effect]:
    """Apply an action already checked against the legal ones (``auto``: made for the
    player, noted as such; ``made``: made for him unnoted, his forced card) and what
    follows it: the next turn, the deal's end."""
    game = table.game
    assert game is not None and game.current is not None
    deal = game.current
    deal_no = table.deal_no
    actor = deal.actor
    open_offer = deal.open_offer
    try:
        game.apply(action)
    except IllegalAction as exc:  # the legal set said otherwise: an engine bug
        log.error("table %s: engine refused its own legal action %s: %s", table.id, action, exc)
        raise Rejected("err.illegal") from None
    effects: list[Effect] = []
    ui = table.ui
    if (auto or made) and actor is not None:
        _made_for(table, actor, action)
    table.move += 1
    ui.forced = None
    _declare_forced(table)
    ui.discard_pick.pop(action.seat, None)
    ui.after_move(deal, actor, action, open_offer)
    if auto and actor is not None:
        ui.auto_note = AutoMove(actor, action)
        ui.hand_auto[actor] = action
        effects.append(AutoPlayed(table, actor, action))
    else:
        ui.auto_note = None
        if actor is not None:
            ui.hand_auto.pop(actor, None)
    if game.current is None:
        finished = game.finished_deals[-1]
        table.unshown.ends.append(deal_no)
        auto_notes, ui.hand_auto = ui.hand_auto, {}
        effects.append(DealEnded(table, deal_no, finished, auto_notes))
        ui.auto_note = None  # the next deal's message must not show the last card
        effects += next_deal(table, now, seed)
        return effects
    arm(table, now)
    effects += [DealShown(table, actor), TimerChanged(table)]
    nxt = game.current.actor
    if nxt is not None and nxt != actor:
        since = max((t for t in (ui.acted_at.get(nxt), ui.dealt_at) if t is not None), default=None)
        effects.append(TurnPassed(table, nxt, None if since is None else now - since))
    return effects


def _made_for(table: Table, seat: Seat, action: Action) -> None:
    """Remember ``action`` made for the person at ``seat`` at this move (see ``made_for``)."""
    player = table.player(seat)
    if player is not None and not player.is_robot:
        made = (table.move, player.user_id, action)
        table.ui.made_for = [*table.ui.made_for, made][-RECENT_PRESSES:]


def _made_at(table: Table, move: int, user_id: int) -> list[Action]:
    """What the bot made for ``user_id`` at ``move`` (``made_for``)."""
    return [a for m, u, a in table.ui.made_for if m == move and u == user_id]


def _was_made_for(table: Table, move: int, user_id: int, action: Action | None) -> bool:
    """Whether the bot made ``action`` for ``user_id`` at ``move``. The seat is left out:
    a late press is read against the deal as it is now, when the turn has passed on (to
    the next hand, or the game is over), so it names another seat; the move and the
    person fix whose action it was."""
    if action is None:
        return False
    return any(
        type(a) is type(action) and replace(a, seat=action.seat) == action
        for a in _made_at(table, move, user_id)
    )


def _marked_discard(table: Table, seat: Seat) -> Discard | None:
    """The discard of the two cards ``seat`` marked (``None``: he has not marked two)."""
    picked = table.ui.discard_pick.get(seat, ())
    return Discard(seat, tuple(picked)) if len(picked) == 2 else None


def _declare_forced(table: Table) -> None:
    """Make the declaration the declarer has no choice in (after a misère bid), so he
    need not press a lone button; noted for everybody (``ui.forced``)."""
    game = table.game
    assert game is not None
    deal = game.current
    if deal is None or deal.actor is None:
        return
    seat = deal.actor
    forced = forced_declaration(seat_view(deal, seat))
    if forced is not None:
        game.apply(forced)
        table.ui.forced = AutoMove(seat, forced)


# ---------------------------------------------------------------------- the players


def vote_stop(table: Table, user_id: int) -> list[Effect]:
    """Vote to stop; stops when more than half of the seated players agree."""
    if table.status != Status.PLAYING or table.game is None:
        raise Rejected("stop.not_playing")
    seat = table.seat_of(user_id)
    if seat is None:
        raise Rejected("err.not_seated")
    if seat in table.stop_votes:
        raise Rejected("err.voted")  # a vote counts once
    table.stop_votes.add(seat)
    need = stop_need(table)
    votes = len(table.stop_votes)
    if votes < need:
        return [StopVoted(table, seat, votes, need)]
    table.game.stop()  # an unfinished deal is kept in the record, not scored
    table.move += 1
    log.info("table %s: stopped by vote", table.id)
    return [GameStopped(table), *_game_over(table)]


def stop_need(table: Table) -> int:
    """Votes that stop the game: more than half of the people seated."""
    return sum(1 for p in table.seats if p is not None and not p.is_robot) // 2 + 1
