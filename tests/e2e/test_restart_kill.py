"""Nothing is lost: ``python -m bot`` killed with SIGKILL at random points of a scripted game
and restarted ends the game with the same record and sheet as an uninterrupted run.

The bot runs as a subprocess (``python -m bot``: bot_process.py)
against :class:`FakeBotApiServer` (HTTP, in a thread of the test) with a fixed
``PREFERANS_SEED`` (the same deals in both runs) and a small pulka; the uninterrupted run's
bot, the same Application with the same settings, runs in a thread of the test and talks
to its own fake in-process (:class:`CalmBot`). The test plays three
Telegram users who look only at what Telegram shows them: the player whose hand message
has buttons presses one the script picks from the deal number and the buttons alone, so
both runs make the same decisions. A press that got no reaction is pressed again (after a
restart at once), as a person would. Each has turned off "the only card plays itself"
(:func:`_press_it_myself`): every move is a press of his.

Against the bot as it was before (one RNG per process, a repeated press answered "out of
date", nothing shown again after a restart) this test fails: the deals after a restart
differ, the press repeated after a kill between its commit and its answer is refused, a
deal's result is never shown. ``KILL_SEED=n`` picks other kill points (the log of every
press and its answer is left in the test's tmp directory, ``presses.txt``).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import signal
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from bot.core.codec import settings_from_json
from bot.preferans.game import Game
from bot.render.callbacks import CallbackData, decode
from bot.telegram.scheduler import FORCED_PAUSE
from tests.bot_helpers import is_alert, running_bot
from tests.e2e.bot_process import alive, gone, send, start
from tests.fakes import FakeBotApiServer, FakeTelegram, FakeUser, FloodLimits, MessageView
from tests.pg_helpers import fresh_database_sync, query

GAME_CODES = "btukcwdp"
SEED = 20261121
"""``PREFERANS_SEED``: the same deals in both runs."""
REPRESS_AFTER = 2.5
"""Seconds without any reaction after which a player presses the same button again."""
GAMES = {
    "sochi3": {"players": 3, "convention": "sochi", "pulka": 2},
    "leningrad4": {"players": 4, "convention": "leningrad", "pulka": 2},
}
"""The scripted games: small pulkas, no turn timer, the text sheet."""
NAMES = ("Anna", "Boris", "Vera", "Gleb")
_DEAL = re.compile(r"(?:Deal|Сдача) (\d+)")


class CalmBot:
    """The uninterrupted run's bot: the same Application with the same seed and settings as
    ``python -m bot`` gets from its environment below, run in a thread of this process and
    talking to the fake in-process (``running_bot``). It is never killed: only the record,
    statistics and decisions of its game are compared, and without a process of its own and
    the HTTP between them it costs about half the CPU."""

    def __init__(
        self,
        fake: FakeTelegram,
        users: list[FakeUser],
        group: Any,
        db: Path,
        seed: int,
        table: dict[str, Any],
    ) -> None:
        self.fake, self.users, self.group, self.db = fake, users, group, db
        self.seed = seed
        self.defaults = settings_from_json({**table, "turn_time": 0, "sheet": "text"})
        self.log = "the log captured by pytest"
        self.starts = 1
        self.kills = 0
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=asyncio.run, args=(self._run(),), name="calm")
        self._failed: BaseException | None = None

    async def _run(self) -> None:
        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        try:
            async with running_bot(
                self.db.parent,
                fake=self.fake,
                people=self.users,
                group=self.group,
                db_name=self.db.name,
                seed=self.seed,
                defaults=self.defaults,
                forced_pause=FORCED_PAUSE,  # as python -m bot: forced cards play themselves
            ):
                self._ready.set()
                await self._stop.wait()
        except BaseException as exc:
            self._failed = exc
            raise

    def start(self) -> None:
        self._thread.start()

    def ready(self) -> bool:
        if self._failed is not None or not (self._thread.is_alive() or self._ready.is_set()):
            raise AssertionError(f"the calm bot failed: {self._failed!r}")
        return self._ready.is_set()

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(20)
        assert not self._thread.is_alive(), "the calm bot did not stop"


class BotProcess:
    """``python -m bot`` against the fake server; ``kill()`` is SIGKILL."""

    def __init__(
        self,
        fake: FakeTelegram,
        url: str,
        db: Path,
        log: Path,
        seed: int,
        table: dict[str, Any],
        database_url: str | None = None,
    ) -> None:
        self.fake = fake
        self.pid = 0
        self.env = dict(os.environ)
        if database_url is not None:  # PostgreSQL instead of the file
            self.env["DATABASE_URL"] = database_url
        self.env.update(
            BOT_TOKEN=fake.token,
            TELEGRAM_API_URL=url,
            DATABASE_PATH=str(db),
            PREFERANS_SEED=str(seed),
            PREFERANS_DEFAULTS=json.dumps({**table, "turn_time": 0, "sheet": "text"}),
            PREFERANS_PACING="off",
            # No analysis of ended deals (what is checked here does not show it): each bot
            # that ended or showed again a deal started a fresh interpreter for it, ~0.5 s
            # of CPU, mostly in processes the SIGKILL left to end by themselves.
            PREFERANS_ANALYSIS="off",
            PYTHONPATH=str(Path.cwd()),
        )
        self.db = db
        self.log = log
        self.started_at = 0.0
        self.starts = 0
        self.ready_start = 0
        """The start it was last seen ready after."""
        self.looked = 0
        """The calls to the fake looked at for the start-up's deleteWebhook."""
        self.kills = 0

    def start(self) -> None:
        self.started_at = time.monotonic()  # the fake's clock is time.monotonic
        self.starts += 1
        self.pid = start(self.env, self.db.parent, self.log)

    def running(self) -> bool:
        return alive(self.pid)

    def _wait(self, timeout: float) -> bool:
        return gone(self.pid, timeout)

    def ready(self) -> bool:
        """About to poll since the last start: PTB deletes the webhook after ``post_init``
        (where the bot resumes its tables), right before it polls."""
        if not self.running():
            raise AssertionError(f"the bot exited; see {self.log}")
        if self.ready_start == self.starts:  # it stays so until the next start
            return True
        calls = self.fake.calls
        new, self.looked = calls[self.looked :], len(calls)  # each call is looked at once
        if any(c.method == "deleteWebhook" and c.time > self.started_at for c in new):
            self.ready_start = self.starts
        return self.ready_start == self.starts

    def kill(self) -> None:
        send(self.pid, signal.SIGKILL)
        assert self._wait(10), "SIGKILL did not end the bot"
        self.kills += 1

    def stop(self) -> None:
        if not self.pid or not self.running():
            return
        send(self.pid, signal.SIGINT)
        if not self._wait(20):
            send(self.pid, signal.SIGKILL)
            self._wait(10)


@dataclass
class Press:
    qid: str
    user: FakeUser
    msg: MessageView
    data: str
    code: str
    move: int
    generation: int
    """Which start of the bot it was made against."""


@dataclass
class Run:
    presses: list[Press] = field(default_factory=list)
    decisions: list[tuple[str, int, str]] = field(default_factory=list)
    """``(player, move, code)`` of each distinct game decision, in order."""
    lost_after_commit: int = 0
    """Presses killed for sure between their commit and their answer."""


@cache
def _decode(data: str | None) -> CallbackData | None:
    """The bot's own decoding, once per button: the players look at every button of every
    hand after each call of the bot."""
    return decode(data)


def _code(data: str | None) -> str:
    parsed = _decode(data)
    return parsed.code if parsed is not None else ""


def choose(deal_no: int, codes: list[str]) -> str:
    """The script: deal 1 all-pass, deal 2 6♠ whisted by both, deal 3 a misère, then 6♠
    passed by both. Discard the first two cards shown; play the first card shown."""
    kind = codes[0][0]
    if kind in "tuk":
        cards = [c[1:] for c in codes if c[0] in "tu"][:2]
        for c in cards:
            if "t" + c in codes:
                return "t" + c
        return "k"
    if kind == "b":
        if deal_no == 1:
            return "bP"
        if deal_no == 3:
            return "bM" if "bM" in codes else "bP"
        return "b6S" if "b6S" in codes else "bP"
    if kind == "c":
        return next((c for c in ("c6S", "cM") if c in codes), codes[0])
    if kind == "w":
        want = "wW" if deal_no == 2 else "wP"
        return want if want in codes else codes[0]
    if kind == "d":
        return "dC"
    return codes[0]


class Screens:
    """What the bot shows in each chat, read from the fake again only for the chats the
    bot has called Telegram about since (a message changes only so): the players look
    after every call of the bot, and reading every chat anew each time cost more CPU
    than the rest of the test's own work."""

    def __init__(self, fake: FakeTelegram) -> None:
        self.fake = fake
        self.seen = 0
        self.shown: dict[str, list[MessageView]] = {}
        self.hands: dict[str, list[tuple[tuple[int, int], MessageView]]] = {}

    def look(self) -> int:
        """Forget the chats the bot's calls since the last look touched; the number of
        calls so far."""
        calls = self.fake.calls
        for call in calls[self.seen :]:
            chat = call.params.get("chat_id")
            if chat is not None:
                self.shown.pop(str(chat), None)
                self.hands.pop(str(chat), None)
            elif "message" in call.method.lower():  # e.g. an inline message: forget all
                self.shown.clear()
                self.hands.clear()
        self.seen = len(calls)
        return self.seen

    def bot_messages(self, chat: Any) -> list[MessageView]:
        key = str(chat if isinstance(chat, int) else chat.id)
        if key not in self.shown:
            self.shown[key] = self.fake.bot_messages(chat)
        return self.shown[key]

    def game_buttons(self, chat: Any) -> list[tuple[tuple[int, int], MessageView]]:
        """The messages in ``chat`` with game buttons, each with ``(its move, its id)``."""
        key = str(chat if isinstance(chat, int) else chat.id)
        if key not in self.hands:
            found = []
            for m in self.bot_messages(chat):
                decoded = [_decode(d) for _, d in m.buttons if d]
                moves = [p for p in decoded if p is not None and p.code[0] in GAME_CODES]
                if moves:
                    found.append(((moves[0].move, m.message_id), m))
            self.hands[key] = found
        return self.hands[key]


def _turn(screens: Screens, users: list[FakeUser]) -> tuple[FakeUser, MessageView, int] | None:
    """The hand message with game buttons of the newest move (the player on turn)."""
    best = None
    for user in users:
        for key, m in screens.game_buttons(user.id):
            if best is None or key > best[0]:
                best = (key, user, m)
    if best is None:
        return None
    return best[1], best[2], best[0][0]


def _lobby_press(
    screens: Screens, users: list[FakeUser], group: Any
) -> tuple[FakeUser, MessageView, str] | None:
    lobby = next((m for m in screens.bot_messages(group) if "New pulka" in m.content), None)
    if lobby is None or not lobby.buttons:
        return None
    seats = lobby.content.split("Seats:")[-1]
    for user in users:
        if user.first_name not in seats:
            return user, lobby, next(d for _, d in lobby.buttons if d and _code(d) == "Ls")
    return users[0], lobby, next(d for _, d in lobby.buttons if d and _code(d) == "Lg")


def _over(screens: Screens, group: Any) -> bool:
    return any("Game over" in m.content for m in screens.bot_messages(group))


def play(
    fake: FakeTelegram,
    bot: BotProcess | CalmBot,
    users: list[FakeUser],
    group: Any,
    *,
    kill_rng: random.Random | None,
    kill_rate: float = 0.0,
    max_kills: int = 16,
    limit: float = 300.0,
) -> Run:
    """Play the scripted game to its settlement, killing the bot at random points.

    Besides the random kills, at a few presses the bot is killed for sure after it
    committed the press and before its answer reached Telegram: the fake holds the
    answer (an injected timeout) and the kill comes once the bot tried to send it.
    ``limit`` (seconds for the whole game) and the waits' timeouts only bound a hang.
    """
    run = Run()
    commit_kills = sorted(kill_rng.sample(range(10, 110), 3)) if kill_rng is not None else []
    deal_end_kill = kill_rng is not None
    """Also once at the press that ends a deal (the second defender's pass), so the group
    has not been shown its result when the bot dies."""
    end = time.monotonic() + limit
    last_key: tuple[Any, ...] | None = None
    last_time = 0.0
    seen_moves: set[tuple[int, str]] = set()
    newest = 0
    """The newest move seen on a button: older buttons (a hand message sent just before a
    kill keeps its buttons) are not pressed, as a player would not."""

    def restart() -> None:
        assert isinstance(bot, BotProcess)
        bot.kill()
        if kill_rng is not None and kill_rng.random() < 0.3:
            time.sleep(kill_rng.uniform(0.0, 0.5))  # presses may come in while it is down
        bot.start()
        if kill_rng is not None and kill_rng.random() < 0.2:  # killed again while resuming
            time.sleep(kill_rng.uniform(0.2, 1.0))
            bot.kill()
            bot.start()

    def press(user: FakeUser, msg: MessageView, data: str, move: int) -> None:
        nonlocal last_time
        qid = fake.press(user, msg, data, force=True)
        run.presses.append(Press(qid, user, msg, data, _code(data), move, bot.starts))
        last_time = time.monotonic()

    def settle(seen: int, most: float = 0.25) -> None:
        """Wait until the bot calls Telegram again (what the players see changes only so;
        the start-up's deleteWebhook too), at most ``most`` seconds, rather than look at
        every chat again every few milliseconds."""
        try:
            fake.wait_until_sync(lambda: len(fake.calls) != seen, timeout=most)
        except TimeoutError:
            pass

    def answered() -> None:
        """Wait for the answer to the last press made against the running bot. It comes
        after the screens the press changed: without this wait the next player pressed
        before it came, a kill then took it, and only the last press is pressed again
        after a restart (seen on a loaded machine: that press stayed unanswered)."""
        if run.presses and run.presses[-1].generation == bot.starts:
            qid = run.presses[-1].qid
            fake.wait_until_sync(
                lambda: qid in fake.callback_answers, timeout=60, what=f"an answer; {bot.log}"
            )

    screens = Screens(fake)
    while True:
        answered()
        seen = screens.look()
        if _over(screens, group):
            break
        assert time.monotonic() < end, f"the game did not end; see {bot.log}"
        if not bot.ready():
            settle(seen)
            continue
        # after a restart, a press whose answer never came is pressed again at once
        if run.presses and run.presses[-1].generation != bot.starts:
            last = run.presses[-1]
            if last.qid in fake.unanswered_callbacks():
                press(last.user, last.msg, last.data, last.move)
                time.sleep(0.05)
                continue
        turn = _turn(screens, users)
        if turn is not None and turn[2] < newest:
            settle(seen)  # between two edits: only older buttons show for a moment
            continue
        if turn is not None:
            user, msg, move = turn
            newest = move
            data_of = {_code(d): d for _, d in msg.buttons if d}
            codes = [_code(d) for _, d in msg.buttons if d]
            found = _DEAL.search(msg.content.splitlines()[0])
            deal_no = int(found.group(1)) if found else 0
            code = choose(deal_no, codes)
            data = data_of[code]
        else:
            lobby = _lobby_press(screens, users, group)
            if lobby is None:
                settle(seen)
                continue
            user, msg, data = lobby
            move, code, deal_no = 0, _code(data), 0
        key = (user.id, msg.message_id, msg.content, tuple(d for _, d in msg.buttons))
        if key == last_key and time.monotonic() - last_time < REPRESS_AFTER:
            settle(seen, min(0.25, last_time + REPRESS_AFTER - time.monotonic()))
            continue
        if code[0] in GAME_CODES and code[0] not in "tu" and (move, code) not in seen_moves:
            seen_moves.add((move, code))
            run.decisions.append((user.first_name, move, code))
        ends_deal = deal_no >= 4 and code == "wP" and "Whists:" in msg.content
        sure = (
            commit_kills
            and len(run.presses) >= commit_kills[0]
            and code[0] in GAME_CODES
            and code[0] not in "tu"
        ) or (deal_end_kill and ends_deal)
        if sure:
            if deal_end_kill and ends_deal:
                deal_end_kill = False
            else:
                commit_kills.pop(0)
            answers = len(fake.calls)
            fake.fail_next("answerCallbackQuery", error="timeout")
        press(user, msg, data, move)
        last_key = key
        if sure:
            fake.wait_until_sync(
                lambda n=answers: any(  # type: ignore[misc]
                    c.method == "answerCallbackQuery" and c.status == "timeout"
                    for c in fake.calls[n:]
                ),
                timeout=60,
                what="the answer after the commit",
            )
            run.lost_after_commit += 1
            restart()
        elif kill_rng is not None and kill_rng.random() < kill_rate and bot.kills < max_kills:
            time.sleep(kill_rng.uniform(0.0, 0.06))
            restart()
    return run


_PLAYERS = (
    "SELECT user_id, seat, deals, contracts_made, contracts_failed, miseres_made, "
    "miseres_failed, net_whists, whists_written FROM game_players ORDER BY seat"
)


def _archived(db: Path, url: str | None = None) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    if url is not None:
        games, rows = query(url, "SELECT record FROM games"), query(url, _PLAYERS)
    else:
        con = sqlite3.connect(db)
        try:
            games = con.execute("SELECT record FROM games").fetchall()
            rows = con.execute(_PLAYERS).fetchall()
        finally:
            con.close()
    assert len(games) == 1, games
    return json.loads(games[0][0]), rows


def _game(
    tmp: Path,
    name: str,
    table: dict[str, Any],
    *,
    kill_seed: int | None,
    kill_rate: float,
    killed: bool,
    max_kills: int = 16,
    url: str | None = None,
) -> tuple[Any, ...]:
    """Play the game with a bot process killed at random points (on the PostgreSQL
    database ``url`` if given), or (not ``killed``) with the uninterrupted
    in-process bot."""
    fake = FakeTelegram(flood=FloodLimits(enabled=False))
    users = [
        fake.add_user(n, language_code="en", started=True, username=n.lower())
        for n in NAMES[: table["players"]]
    ]
    group = fake.add_group("Preferans club", users)
    db = tmp / f"{name}.sqlite3"
    server = None
    bot: BotProcess | CalmBot
    if not killed:
        bot = CalmBot(fake, users, group, db, SEED, table)
    else:
        server = FakeBotApiServer(fake)
        server.start_in_thread()
        log = tmp / f"{name}.log"
        bot = BotProcess(fake, server.root_url, db, log, SEED, table, url)
    bot.start()
    try:
        fake.wait_until_sync(bot.ready, timeout=60, what="the bot polls")
        for user in users:
            fake.user_starts_bot(user)
        fake.wait_until_sync(
            lambda: all(fake.bot_messages(u.id) for u in users), timeout=60, what="/start"
        )
        for user in users:
            _press_it_myself(fake, user)
        fake.send_text(users[0], group, "/newgame")
        fake.wait_until_sync(
            lambda: any("New pulka" in m.content for m in fake.bot_messages(group)),
            timeout=60,
            what="the lobby",
        )
        kill_rng = random.Random(kill_seed) if kill_seed is not None else None
        run = play(
            fake, bot, users, group, kill_rng=kill_rng, kill_rate=kill_rate, max_kills=max_kills
        )
        fake.wait_until_sync(
            lambda: not fake.pending_updates(), timeout=60, what="every update handled"
        )
    finally:
        bot.stop()
        if server is not None:
            server.stop()
    record, rows = _archived(db, url)
    return fake, users, group, bot, run, record, rows


def _press_it_myself(fake: FakeTelegram, user: FakeUser) -> None:
    """``user`` turns off "the only card plays itself" in his private /settings: each card
    is a decision he presses (the script presses every card). Left on, a lone card played
    itself after its 1 s pause and raced his press of it: on a busy machine the press came
    second (also pressed again after a restart) and was answered "out of date"."""
    sent = len(fake.bot_messages(user.id))
    fake.send_text(user, user, "/settings")
    fake.wait_until_sync(
        lambda: len(fake.bot_messages(user.id)) > sent, timeout=30, what="/settings"
    )
    menu = fake.bot_messages(user.id)[-1]
    data = next(d for label, d in menu.buttons if d and label.endswith("press it myself"))
    qid = fake.press(user, menu, data)
    fake.wait_until_sync(lambda: qid in fake.callback_answers, timeout=30, what="the setting saved")
    assert fake.callback_answers[qid].get("text") == "Saved."


def _moves(record: dict[str, Any]) -> list[tuple[str, str, Any]]:
    out = []
    for deal in record["deals"]:
        for m in deal.get("moves", []):
            kind = next(k for k in m if k != "seat")
            out.append((record["players"][m["seat"]], kind, m[kind]))
    return out


_KIND = {"b": "bid", "k": "discard", "c": "contract", "w": "whist", "d": "defence", "p": "play"}
_WHIST = {"W": "whist", "P": "pass", "H": "half"}


def _as_move(code: str) -> tuple[str, Any]:
    kind = _KIND[code[0]]
    rest = code[1:]
    if kind in ("bid", "contract"):
        value: Any = {"P": "pass", "M": "misere"}.get(rest, rest)
    elif kind == "whist":
        value = _WHIST[rest]
    elif kind == "defence":
        value = "open" if rest == "O" else "closed"
    elif kind == "discard":
        value = None
    else:
        value = rest
    return kind, value


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game", "kill_seed", "max_kills", "database"),
    [("sochi3", 5, 16, "sqlite"), ("leningrad4", 3, 12, "sqlite"), ("sochi3", 7, 8, "postgres")],
)
def test_sigkill_at_random_points_loses_nothing_and_applies_nothing_twice(
    tmp_path: Path, game: str, kill_seed: int, max_kills: int, database: str
) -> None:
    """The killed bot runs on a SQLite file or on PostgreSQL (``DATABASE_URL``); the
    uninterrupted one on SQLite."""
    with ExitStack() as stack:
        url = stack.enter_context(fresh_database_sync()) if database == "postgres" else None
        _sigkill_run(tmp_path, game, kill_seed, max_kills, url)


def _sigkill_run(
    tmp_path: Path, game: str, kill_seed: int, max_kills: int, url: str | None
) -> None:
    table = GAMES[game]
    # The uninterrupted run alongside the killed one (each has its own fake Telegram and
    # database): the test takes as long as the killed run alone. The killed run starts the
    # bot ~15 times; the uninterrupted bot runs in this process (CalmBot).
    with ThreadPoolExecutor(1) as pool:
        undisturbed = pool.submit(
            _game, tmp_path, "calm", table, kill_seed=None, kill_rate=0, killed=False
        )
        fake, users, group, bot, run, killed_record, killed_rows = _game(
            tmp_path,
            "killed",
            table,
            kill_seed=int(os.environ.get("KILL_SEED", kill_seed)),
            kill_rate=0.09,
            killed=True,
            max_kills=max_kills,
            url=url,
        )
        _, _, _, _, calm, record, rows = undisturbed.result()
    with open(tmp_path / "presses.txt", "w") as out:
        for p in run.presses:
            answer = fake.callback_answers.get(p.qid, "(not answered)")
            print(p.generation, p.user.first_name, p.move, p.code, answer, file=out)
    assert bot.kills >= 5, f"only {bot.kills} kills"
    assert run.lost_after_commit == 4

    # the same game: the same deals, every move once, the same sheet and settlement
    assert killed_record == record
    calm_game, killed_game = Game.from_record(record), Game.from_record(killed_record)
    assert killed_game.finished and killed_game.sheet == calm_game.sheet
    assert killed_game.settlement() == calm_game.settlement()
    assert killed_rows == rows  # the statistics too

    # the group was shown every deal's result and the settlement, also across kills
    shown = "\n".join(m.content for m in fake.bot_messages(group))
    for n in range(1, len(killed_game.finished_deals) + 1):
        assert f"Deal {n}:" in shown, f"the result of deal {n} was never shown"
    assert "Game over" in shown

    # the record holds exactly the decisions the players made, each once, in order (and the
    # misère the engine declared for the declarer: he had no choice, nobody pressed it)
    for r in (calm, run):
        moves = [m for m in _moves(killed_record) if m[1:] != ("contract", "misere")]
        assert len(moves) == len(r.decisions)
        for (player, kind, value), (who, _, code) in zip(moves, r.decisions, strict=True):
            want_kind, want_value = _as_move(code)
            assert (player, kind) == (who, want_kind)
            if want_value is not None:
                assert value == want_value
    assert [(w, c) for w, _, c in run.decisions] == [(w, c) for w, _, c in calm.decisions]

    # a press whose answer was lost was pressed again and answered; none was refused
    answers = fake.callback_answers
    unanswered = set(fake.unanswered_callbacks())
    repeated = 0
    for i, p in enumerate(run.presses):
        if p.qid in unanswered:
            later = [q for q in run.presses[i + 1 :] if q.data == p.data and q.qid in answers]
            assert later, f"press {p.code} at move {p.move} was never answered"
            continue
        answer = answers[p.qid]
        if p.code[0] in GAME_CODES:
            assert not is_alert(answer), answer
        if "Already done" in (answer.get("text") or ""):
            repeated += 1
    # each press killed between its commit and its answer was pressed again after the
    # restart and answered "already done", not applied twice
    assert repeated >= run.lost_after_commit
    print(
        f"\n{bot.kills} kills, {len(run.presses)} presses, {len(unanswered)} lost answers, "
        f"{repeated} answered 'already done'"
    )
