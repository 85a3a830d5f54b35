"""Helpers for the service tests: a core service on SQLite and a manual clock, no Telegram."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TypeVar

from bot.core.effects import AutoPlayed, Effect, Effects
from bot.core.model import Player, Table, TableSettings
from bot.core.service import Shown, TableService
from bot.preferans.actions import Action, Bid, Discard
from bot.preferans.contracts import parse_contract
from bot.preferans.seats import Seat
from bot.preferans.views import public_view, seat_view
from bot.render.callbacks import action_of
from storage import Storage
from tests.fakes import ManualClock

GROUP = -100
PEOPLE = [Player(1, "Анна"), Player(2, "Борис"), Player(3, "Вера"), Player(4, "Глеб")]
STRANGER = Player(9, "Дина")
E = TypeVar("E", bound=Effect)


@asynccontextmanager
async def service_on(
    path: Path | str = ":memory:", *, clock: ManualClock | None = None, turn_time: int = 60
) -> AsyncIterator[TableService]:
    """A core service on a database (a temporary file survives a "restart")."""
    storage = await Storage.open(str(path))
    try:
        yield TableService(
            storage,
            seed=7,
            clock=clock or ManualClock(),
            defaults=TableSettings(pulka=10, turn_time=turn_time),
        )
    finally:
        await storage.close()


def kinds(effects: Effects) -> list[str]:
    return [type(e).__name__ for e in effects]


def of(effects: Effects, kind: type[E]) -> list[E]:
    return [e for e in effects if isinstance(e, kind)]


async def lobby_of(service: TableService, players: int = 3, *, chat_id: int = GROUP) -> Table:
    """An open lobby with ``players`` seated (each can be written to)."""
    await service.open_lobby(chat_id, PEOPLE[0], "Клуб")
    table = service.registry.open_table(chat_id)
    assert table is not None
    if players == 4:
        await service.change_setting(table.id, PEOPLE[0].user_id, "players")
    for p in PEOPLE[:players]:
        await service.registry.remember_user(p, private_ok=True)
        await service.sit(table.id, p)
    return table


def open_table(service: TableService, chat_id: int = GROUP) -> Table:
    """The chat's open table (it has one)."""
    table = service.registry.open_table(chat_id)
    assert table is not None, f"no open table in chat {chat_id}"
    return table


async def started(service: TableService, players: int = 3, *, chat_id: int = GROUP) -> Table:
    table = await lobby_of(service, players, chat_id=chat_id)
    await service.start(table.id, PEOPLE[0].user_id)
    await service.shown(table, Shown("lobby"))  # the adapter closed the lobby message
    return table


def actor(table: Table) -> tuple[Seat, Player]:
    assert table.game is not None and table.game.current is not None
    seat = table.game.current.actor
    assert seat is not None
    player = table.seats[seat]
    assert player is not None
    return seat, player


def legal(table: Table) -> tuple[Action, ...]:
    seat, _ = actor(table)
    assert table.game is not None and table.game.current is not None
    return seat_view(table.game.current, seat).legal


def pick(table: Table, pred: Callable[[Action], bool]) -> Action | None:
    """The first of the acting player's legal actions and offers ``pred`` accepts (a
    discard is marked card by card instead); ``None``: none, or nobody is to act."""
    deal = table.game.current if table.game is not None else None
    if deal is None or deal.actor is None:
        return None
    view = seat_view(deal, deal.actor)
    found = (a for a in (*view.legal, *view.offers) if not isinstance(a, Discard) and pred(a))
    return next(found, None)


def decoded(table: Table, code: str) -> Action | None:
    """The action a move button's ``code`` names now, as the adapter decodes a press."""
    deal = table.game.current if table.game is not None else None
    return action_of(code, public_view(deal)) if deal is not None else None


async def press(service: TableService, table: Table, pred: Callable[[Action], bool]) -> Effects:
    """The player to act presses the first legal action ``pred`` accepts."""
    _, player = actor(table)
    return await service.act(table.id, player.user_id, table.move, repr(pred), pick(table, pred))


async def to_discard(service: TableService, table: Table) -> Seat:
    """Bid 6♠ by the first hand, the others pass: the declarer is to discard."""
    six = parse_contract("6S")
    declarer, _ = actor(table)
    await press(service, table, lambda a: isinstance(a, Bid) and a.contract == six)
    while not any(isinstance(a, Discard) for a in legal(table)):
        await press(service, table, lambda a: isinstance(a, Bid) and a.contract is None)
    assert actor(table)[0] == declarer
    return declarer


async def all_pass(service: TableService, table: Table) -> Effects:
    """Everybody passes, then the all-pass deal is played to its end; its last effects."""
    deal_no = table.deal_no
    last: Effects = ()
    while table.deal_no == deal_no:
        actions = legal(table)
        target = next((a for a in actions if isinstance(a, Bid) and a.contract is None), actions[0])
        last = await press(service, table, target.__eq__)
    return last


async def time_out(
    service: TableService, table: Table, clock: ManualClock
) -> tuple[Player, int, AutoPlayed]:
    """The player to act runs out of time (the clock passes his deadline): he, the move
    the timer acted at, and what it made for him."""
    _, player = actor(table)
    move = table.move
    assert table.deadline is not None
    clock.advance(table.deadline - clock() + 1)
    [auto] = of(await service.timeout(table.id, move), AutoPlayed)
    return player, move, auto
