"""Unit tests of the Telegram layer's pure parts: callback data, the timeout policy,
rendering, keyboards, storage migrations and the configuration."""

from __future__ import annotations

import asyncio
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.config import Config, ConfigError
from bot.core.model import Player, Table, TableSettings
from bot.preferans.actions import Action, Bid, ChooseDefence, Declare, Discard, Play, Whist
from bot.preferans.auto_moves import auto_action
from bot.preferans.cards import Card, Suit
from bot.preferans.contracts import LADDER, MISERE, Contract
from bot.preferans.conventions import Rules
from bot.preferans.deal import Deal
from bot.preferans.game import Game
from bot.preferans.outcome import Defence, WhistAnswer
from bot.preferans.seats import Seat
from bot.preferans.views import public_view, seat_view
from bot.render.callbacks import MAX_BYTES, action_code, decode, encode, from_base36, to_base36
from bot.render.keyboards import actions_keyboard, lobby_keyboard, settings_keyboard
from bot.render.lobby import lobby_text
from bot.render.table import hand_text, table_text
from bot.render.text import card, cards, hand_lines
from storage import SCHEMA_VERSION, Storage, StorageError
from tests.bot_helpers import cards_in

SIX_S = Contract(6, Suit.SPADES)


def test_base36_round_trip() -> None:
    for n in (0, 1, 35, 36, 10**9, 2**40):
        assert from_base36(to_base36(n)) == n
    with pytest.raises(ValueError):
        from_base36("")
    with pytest.raises(ValueError):
        from_base36("A!")


def test_callback_data_is_compact_and_decodes() -> None:
    data = encode(123456, 987654, "p10H")
    assert len(data.encode()) <= MAX_BYTES
    got = decode(data)
    assert got is not None and (got.table_id, got.move, got.code) == (123456, 987654, "p10H")
    assert decode(None) is None
    assert decode("garbage") is None
    assert decode("1:2:") is None
    assert decode("x" * 70) is None
    with pytest.raises(ValueError):
        encode(1, 1, "x" * 64)


def test_action_codes_are_unique_and_short() -> None:
    seat = Seat.S0
    actions: list[Action] = [Bid(seat, None), Bid(seat, MISERE)]
    actions += [Bid(seat, c) for c in LADDER if not c.misere]
    actions += [Declare(seat, c) for c in LADDER]
    actions += [Whist(seat, a) for a in WhistAnswer]
    actions += [ChooseDefence(seat, d) for d in Defence]
    actions += [Play(seat, c) for c in Card]
    codes = [action_code(a) for a in actions]
    assert len(set(codes)) == len(codes)
    # the longest button: a big table id and move counter still fit in 64 bytes
    assert all(len(encode(36**8, 36**6, c).encode()) <= MAX_BYTES for c in codes)
    assert action_code(Bid(seat, Contract(6, None))) == "b6NT"
    assert action_code(Play(seat, Card.H10)) == "p10H"


def _deal_in_phase(target: str, seed: int = 3) -> tuple[Game, Deal]:
    """A 3-player game whose current deal has reached ``target`` (driven by legal actions)."""
    game = Game(Rules.preset("sochi", 20), ["A", "B", "C"])
    deal = game.start_deal(random.Random(seed))
    first = deal.first_hand
    game.apply(Bid(first, SIX_S))  # 6♠ by the first hand, others pass
    while deal.phase.value == "auction":
        assert deal.to_act is not None
        game.apply(Bid(deal.to_act, None))
    if target == "discard":
        return game, deal
    game.apply(next(a for a in deal.legal_actions() if isinstance(a, Discard)))
    if target == "contract":
        return game, deal
    game.apply(Declare(first, SIX_S))
    return game, deal


def test_auto_action_policy() -> None:
    game, deal = _deal_in_phase("discard")
    assert deal.actor is not None
    view = seat_view(deal, deal.actor)
    action = auto_action(view)
    assert isinstance(action, Discard) and action in view.legal
    lowest = sorted(view.hand, key=lambda c: (c.rank, c.suit))[:2]
    assert sorted(action.cards) == sorted(lowest)
    game.apply(action)
    assert deal.actor is not None
    view = seat_view(deal, deal.actor)
    assert auto_action(view) == Declare(deal.actor, SIX_S)
    game.apply(auto_action(view))
    assert deal.actor is not None
    view = seat_view(deal, deal.actor)
    assert auto_action(view) == Whist(deal.actor, WhistAnswer.PASS)
    # an auction: pass
    game2 = Game(Rules.preset("sochi", 20), ["A", "B", "C"])
    d2 = game2.start_deal(random.Random(1))
    assert d2.actor is not None
    v2 = seat_view(d2, d2.actor)
    assert auto_action(v2) == Bid(d2.actor, None)
    # play: the lowest legal card
    for _ in range(3):
        assert d2.to_act is not None
        game2.apply(Bid(d2.to_act, None))
    assert d2.actor is not None
    v3 = seat_view(d2, d2.actor)
    chosen = auto_action(v3)
    assert isinstance(chosen, Play) and chosen in v3.legal
    assert chosen.card.rank == min(a.card.rank for a in v3.legal if isinstance(a, Play))


def _table(players: int = 3, lang: str = "en") -> Table:
    table = Table(
        id=5, chat_id=-100, owner_id=1, settings=TableSettings(players=players, lang=lang)
    )
    for i in range(players):
        table.seats[i] = Player(i + 1, f"<b>Player{i}</b> with a very very long name", lang)
    table.title = "Club"
    return table


def test_render_cards_and_hand_lines() -> None:
    assert card(Card.H10) == "10♥️"
    assert cards([Card.SA, Card.D7]) == "A♠️ 7♦️"
    lines = hand_lines([Card.S7, Card.SA, Card.H10, Card.HQ])
    assert lines == ["♠️ A 7", "♥️ Q 10"]
    assert cards_in("\n".join(lines) + "\nplayed 8♣️") == {
        Card.S7,
        Card.SA,
        Card.H10,
        Card.HQ,
        Card.C8,
    }


def test_group_text_never_shows_hands_and_escapes_names() -> None:
    table = _table()
    game = Game(table.settings.rules(), table.names())
    deal = game.start_deal(random.Random(11))
    table.game = game
    text = table_text(table, public_view(deal), 1)
    assert "<b>Player0" not in text and "&lt;b&gt;Player0" in text
    assert cards_in(text) == set()
    lobby = lobby_text(table)
    assert "&lt;b&gt;" in lobby and "<b>Player" not in lobby
    # each hand message shows exactly its own cards
    for seat in range(3):
        sv = seat_view(deal, Seat(seat))
        assert cards_in(hand_text(table, sv, 1, "en")) == set(deal.hand(Seat(seat)))


def test_keyboards_offer_exactly_the_legal_actions() -> None:
    table = _table()
    game, deal = _deal_in_phase("discard")
    table.game = game
    assert deal.actor is not None
    sv = seat_view(deal, deal.actor)
    kb = actions_keyboard(table, sv, "en")
    assert kb is not None
    codes = [decode(b.callback_data).code for row in kb.inline_keyboard for b in row]  # type: ignore
    assert sorted(codes) == sorted(f"t{c.code}" for c in sv.hand)
    other = next(s for s in range(3) if s != int(deal.actor))
    assert actions_keyboard(table, seat_view(deal, Seat(other)), "en") is None
    # the contract step: exactly the legal contracts
    game.apply(next(a for a in deal.legal_actions() if isinstance(a, Discard)))
    assert deal.actor is not None
    sv = seat_view(deal, deal.actor)
    kb = actions_keyboard(table, sv, "en")
    assert kb is not None
    codes = [decode(b.callback_data).code for row in kb.inline_keyboard for b in row]  # type: ignore
    assert sorted(codes) == sorted(action_code(a) for a in sv.legal)
    for markup in (lobby_keyboard(table), settings_keyboard(table)):
        for row in markup.inline_keyboard:
            assert len(row) <= 8
            for b in row:
                assert isinstance(b.callback_data, str) and len(b.callback_data.encode()) <= 64


async def test_storage_migrates_and_refuses_newer(tmp_path: Path) -> None:
    path = str(tmp_path / "db.sqlite3")
    store = await Storage.open(path)
    assert await store.schema_version() == SCHEMA_VERSION
    await store.close()
    store = await Storage.open(path)  # idempotent
    await store.close()
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    con.commit()
    con.close()
    with pytest.raises(StorageError, match="newer"):
        await Storage.open(path)


async def test_storage_one_open_table_per_chat_and_foreign_keys(tmp_path: Path) -> None:
    store = await Storage.open(str(tmp_path / "db.sqlite3"))
    try:
        tid = await store.create_table(-1, 1, {}, {})
        with pytest.raises(StorageError):
            await store.create_table(-1, 2, {}, {})
        with pytest.raises(sqlite3.IntegrityError):  # seat of an unknown user
            await store.save_table(
                tid,
                status="lobby",
                settings={},
                state={},
                record=None,
                move=0,
                deadline=None,
                seats=[99],
            )
        await store.save_user(99, "X", "en", True)
        await store.save_table(
            tid,
            status="over",
            settings={},
            state={},
            record=None,
            move=0,
            deadline=None,
            seats=[99],
        )
        assert await store.create_table(-1, 2, {}, {}) > tid  # the old one is over
    finally:
        await store.close()


def test_config_from_env() -> None:
    with pytest.raises(ConfigError, match="BOT_TOKEN"):
        Config.from_env({})
    cfg = Config.from_env({"BOT_TOKEN": "1:x", "TELEGRAM_API_URL": "http://127.0.0.1:8081/"})
    assert cfg.base_url == "http://127.0.0.1:8081/bot"
    assert cfg.base_file_url == "http://127.0.0.1:8081/file/bot"
    assert cfg.database_path == "preferans.sqlite3"
    assert Config.from_env({"BOT_TOKEN": "1:x"}).base_url is None
    assert cfg.overall_rate == 30
    assert Config.from_env({"BOT_TOKEN": "1:x", "OVERALL_RATE": "0"}).overall_rate == 0
    for bad in ("fast", "-1", "nan"):
        with pytest.raises(ConfigError, match="OVERALL_RATE"):
            Config.from_env({"BOT_TOKEN": "1:x", "OVERALL_RATE": bad})


def test_main_without_token_prints_one_line_and_fails(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(__import__("pathlib").Path.cwd())}
    proc = subprocess.run(
        [sys.executable, "-m", "bot"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert proc.returncode != 0
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "BOT_TOKEN" in lines[0]


async def test_the_overall_limit_spaces_requests_even_after_a_busy_loop() -> None:
    # One request every 1 / rate seconds to all chats together, never a burst: not even
    # when the event loop was held while requests waited for their turn.
    from bot.telegram.pacing import Pacing

    rate = 200.0
    pacing = Pacing(
        private_interval=0.0,
        group_limit=20,
        group_window=60.0,
        group_fast_interval=0.0,
        overall_rate=rate,
        retry_base=1.0,
    )
    loop = asyncio.get_running_loop()
    times: list[float] = []

    async def request() -> None:
        times.append(loop.time())

    tasks = [asyncio.create_task(pacing.request(request)) for _ in range(30)]
    await asyncio.sleep(0.02)
    time.sleep(0.1)  # the loop is held: the waiting requests must not go all at once
    await asyncio.gather(*tasks)
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert len(times) == 30 and min(gaps) >= 0.9 / rate, gaps
    off = Pacing(
        private_interval=0.0,
        group_limit=20,
        group_window=60.0,
        group_fast_interval=0.0,
        overall_rate=0.0,  # 0 switches the limit off
        retry_base=1.0,
    )
    assert off.overall_interval == 0.0
