"""Helpers for the bot tests: run the real Application against the fake Telegram.

``running_bot`` starts the Application with polling, either in-process through
python-telegram-bot's request layer (:class:`FakeRequest`) or over HTTP against
:class:`FakeBotApiServer` on 127.0.0.1 (``http=True``), with a group and users.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import os
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.app import build_application
from bot.config import Config
from bot.core.model import Table, TableSettings
from bot.core.service import TableService
from bot.preferans.cards import Card, Suit, parse_card
from bot.preferans.deal import Deal
from bot.preferans.game import Game
from bot.preferans.seats import Seat
from bot.render.text import SUITS
from bot.telegram.running import start_polling
from bot.telegram.runtime import Runtime
from bot.telegram.shown import Slot, hand_of
from tests.fakes import (
    FakeBotApiServer,
    FakeChat,
    FakeRequest,
    FakeTelegram,
    FakeUser,
    FloodLimits,
    ManualClock,
    MessageView,
)

NO_FLOOD = FloodLimits(enabled=False)
WEBAPP_URL = "https://pref.example.com/app/"
"""The Mini App's public address in the tests (``running_bot(webapp=True)``)."""
_QUIET_LOOKS = 4
"""Turns of the event loop the bot must stay idle for :meth:`Harness.idle`."""

_SUIT_OF = {s: Suit(i) for i, s in enumerate(SUITS)}
_RANK = r"(10|[789JQKA])"
_SUIT = "(" + "|".join(re.escape(s) for s in SUITS) + ")"
_INLINE = re.compile(_RANK + _SUIT)
_LINE = re.compile(r"^\s*" + _SUIT + r"((?: " + _RANK + r")+)\s*$")


_TAG = re.compile(r"<[^>]+>")


def cards_in(text: str) -> set[Card]:
    """Every card a text shows: ``10♥️`` tokens and hand lines like ``♠️ A K 10``."""
    return set(_cards_in(text))


@functools.lru_cache(maxsize=4096)
def _cards_in(text: str) -> frozenset[Card]:
    """:func:`cards_in`, kept for texts seen before: the watchers read the same texts and
    button labels again and again (a card button, a table message edited in place)."""
    text = _TAG.sub("", text)  # HTML as sent (the fake shows parsed text anyway)
    found: set[Card] = set()
    for rank, suit in _INLINE.findall(text):
        found.add(parse_card(rank + "SCDH"[_SUIT_OF[suit]]))
    for line in text.splitlines():
        m = _LINE.match(line)
        if m:
            letter = "SCDH"[_SUIT_OF[m.group(1)]]
            for rank in m.group(2).split():
                found.add(parse_card(rank + letter))
    return frozenset(found)


def waits_after_429(fake: FakeTelegram) -> list[tuple[float, float]]:
    """``(retry_after, seconds until the same call to the same chat came again)`` for every
    429 the bot got: proof that flood control was waited out, not just survived."""
    calls = fake.calls
    out = []
    for i, call in enumerate(calls):
        if call.status != 429 or call.response is None:
            continue
        chat = call.params.get("chat_id")
        later = (c for c in calls[i + 1 :] if c.method == call.method)
        again = next((c for c in later if c.params.get("chat_id") == chat), None)
        assert again is not None, f"{call.method} to {chat} was not tried again after a 429"
        out.append((call.response["parameters"]["retry_after"], again.time - call.time))
    return out


def flood_waits(caplog: Any) -> int:
    """How many times the bot waited out flood control: the outbox logs each wait once (its
    logger at INFO: ``caplog.set_level(logging.INFO, "bot.telegram.pacing")``)."""
    return sum(
        1
        for r in caplog.records
        if r.name == "bot.telegram.pacing" and r.getMessage().startswith("flood control")
    )


def is_alert(answer: dict[str, Any]) -> bool:
    """Whether a callback answer was shown as an alert."""
    return answer.get("show_alert") is True


FakeClock = ManualClock
"""A settable clock for the service (turn deadlines)."""


@dataclass
class Harness:
    fake: FakeTelegram
    app: Any
    group: FakeChat
    users: list[FakeUser]
    server: FakeBotApiServer | None = None
    presses: list[str] = field(default_factory=list)

    @property
    def rt(self) -> Runtime:
        rt = self.app.bot_data.rt
        assert isinstance(rt, Runtime)
        return rt

    @property
    def service(self) -> TableService:
        return self.rt.service

    def table(self) -> Table:
        table = self.service.registry.open_table(self.group.id)
        if table is None:
            table = max(self.service.registry.tables.values(), key=lambda tb: tb.id)
        return table

    def game(self) -> Game:
        """The table's game (it has started)."""
        game = self.table().game
        assert game is not None, "no game at the table"
        return game

    def deal(self) -> Deal:
        """The deal being played."""
        deal = self.game().current
        assert deal is not None, "no deal in play"
        return deal

    # ------------------------------------------------------------------ acting

    async def say(self, user: FakeUser, text: str, chat: Any = None) -> None:
        self.fake.send_text(user, chat if chat is not None else self.group, text)
        await self.idle()

    async def start_bot(self, user: FakeUser, payload: str | None = None) -> None:
        self.fake.user_starts_bot(user, payload)
        await self.idle()

    async def press(
        self, user: FakeUser, msg: MessageView, data: str | None = None, *, text: str | None = None
    ) -> dict[str, Any]:
        """Press a button and wait until the bot is idle; returns the callback answer."""
        qid = self.fake.press(user, msg, data, button_text=text)
        self.presses.append(qid)
        await self.idle()
        return self.fake.callback_answer(qid)

    def busy(self) -> bool:
        """Whether an update is unhandled or a message unsent.

        There is no gap between these: an update stays pending in the fake until the bot's
        next getUpdates confirms it, which PTB sends after putting it in its update queue;
        the queue counts it unfinished until its handler returned (``task_done``); what the
        handler queued in the outbox is pending, then in flight in the chat's task. A timer
        that went off (a turn timer's job) is running until its job's future is done."""
        outbox = self.rt.outbox
        jobs = self.app.job_queue
        return (
            self.fake.pending_update_count() > 0
            or self.app.update_queue._unfinished_tasks > 0
            or self.app.update_processor.current_concurrent_updates > 0
            or outbox.pending() > 0
            or any(c.task is not None for c in outbox._chats.values())
            or (jobs is not None and bool(jobs._executor._pending_futures))
        )

    async def idle(self, timeout: float = 60.0) -> None:
        """Wait until every update is handled and every queued message is sent.

        :meth:`busy` sees no gap, so "quiet" is checked over a few turns of the event loop
        (no timed pause, which cost ~8 ms after every press: more than the press itself);
        while busy it looks again every millisecond. ``timeout`` only bounds a hang: 10 s
        was passed by a press at a deal's end on the 2-core machine at a load of ~11."""
        deadline = time.monotonic() + timeout
        quiet = 0
        while quiet < _QUIET_LOOKS:
            if self.busy():
                quiet = 0
                if time.monotonic() > deadline:
                    raise TimeoutError("the bot did not become idle")
                await asyncio.sleep(0.001)
            else:
                quiet += 1
                await asyncio.sleep(0)

    # ------------------------------------------------------------------ looking

    def group_texts(self) -> list[str]:
        return [m.content for m in self.fake.bot_messages(self.group)]

    def private(self, user: FakeUser) -> list[MessageView]:
        return self.fake.bot_messages(user.id)

    def hand_message(self, user: FakeUser) -> MessageView | None:
        """The user's hand message of the current deal (the newest one)."""
        slot = self.hand_slot(user.id)
        mid = slot.message_id if slot is not None else None
        return self.fake.message(user.id, mid) if mid is not None else None

    def hand(self, user: FakeUser | None) -> MessageView:
        """The user's hand message of the current deal (it has been sent)."""
        assert user is not None, "nobody is to act"
        msg = self.hand_message(user)
        assert msg is not None, f"{user.first_name} has no hand message"
        return msg

    def hand_slot(self, user_id: int) -> Slot | None:
        """The user's hand message of the current deal, as the Telegram side keeps it."""
        return hand_of(self.rt.store, self.table(), user_id)

    def hand_slots(self) -> dict[Seat, Slot]:
        """Each person's hand message of the current deal, by seat."""
        table = self.table()
        found = {s: hand_of(self.rt.store, table, p.user_id) for s, p in table.seated()}
        return {s: slot for s, slot in found.items() if slot is not None}

    def table_slot(self) -> Slot | None:
        """The group's message of the current deal (the lobby's before the game)."""
        table = self.table()
        return self.rt.store.get(table.id, "table", table.chat_id, table.deal_no)

    def table_message(self) -> MessageView | None:
        slot = self.table_slot()
        if slot is None or slot.message_id is None:
            return None
        return self.fake.message(self.group.id, slot.message_id)

    def user_of_seat(self, seat: int) -> FakeUser:
        player = self.table().seats[seat]
        assert player is not None
        return next(u for u in self.users if u.id == player.user_id)

    def actor(self) -> FakeUser | None:
        game = self.table().game
        if game is None or game.current is None or game.current.actor is None:
            return None
        return self.user_of_seat(int(game.current.actor))

    async def act(self, choose: Callable[[list[tuple[str, str | None]]], str | None]) -> str:
        """The player on turn presses the button ``choose`` picks from his hand message."""
        user = self.actor()
        assert user is not None, "nobody is to act"
        msg = self.hand_message(user)
        assert msg is not None and msg.buttons, f"{user.first_name} has no buttons"
        data = choose(msg.buttons)
        assert data is not None, f"no button for {user.first_name}"
        answer = await self.press(user, msg, data)
        assert not is_alert(answer), answer
        return data


@asynccontextmanager
async def running_bot(
    tmp_path: Path,
    *,
    http: bool = False,
    users: int = 3,
    lang: str = "en",
    langs: list[str] | None = None,
    started: bool = True,
    seed: int = 7,
    defaults: TableSettings | None = None,
    clock: Callable[[], float] = time.time,
    flood: FloodLimits | None = NO_FLOOD,
    private_interval: float = 0.0,
    outbox_options: dict[str, Any] | None = None,
    lobby_ttl: float = 1800,
    db_name: str = "bot.sqlite3",
    fake: FakeTelegram | None = None,
    people: list[FakeUser] | None = None,
    group: FakeChat | None = None,
    forced_pause: float | None = None,
    analysis: bool = False,
    overall_rate: float = 0.0,
    resume_hold: asyncio.Event | None = None,
    webapp: bool = False,
) -> AsyncIterator[Harness]:
    """Start the real Application with polling against a fake Telegram.

    Pass ``fake``, ``people`` and ``group`` of an earlier run to restart the bot on them.
    Forced cards do not play themselves and ended deals are not analysed unless asked
    (``forced_pause``, ``analysis``): the tests press every card and spend no CPU on it.
    ``overall_rate`` is ``OVERALL_RATE`` (requests a second to all chats together): off by
    default, as the fake has no such limit unless its flood limits are on; at the
    production 30 a second every test waited ~33 ms per request. The tables of an earlier
    run are resumed before the harness is handed out, unless ``resume_hold`` holds the
    background resuming (it waits for the event before each table). ``webapp``: the Mini
    App is on (:data:`WEBAPP_URL`), served on 127.0.0.1 at a free port
    (``app.bot_data.miniapp.port``).
    """
    fake = fake or FakeTelegram(flood=flood)
    names = ["Anna", "Boris", "Vera", "Gleb", "Dasha", "Egor"]
    fresh = people is None
    if people is None:
        people = [
            fake.add_user(
                names[i],
                language_code=(langs[i] if langs else lang),
                started=started,
                username=names[i].lower(),
            )
            for i in range(users)
        ]
    if group is None:
        group = fake.add_group("Preferans club", people)
    server = None
    config = Config(
        token=fake.token, database_path=str(tmp_path / db_name), overall_rate=overall_rate
    )
    if webapp:
        config = dataclasses.replace(
            config, webapp_url=WEBAPP_URL, webapp_listen="127.0.0.1", webapp_port=0
        )
    kwargs: dict[str, Any] = {}
    if http:
        server = await FakeBotApiServer(fake).start()
        config = dataclasses.replace(config, api_url=server.root_url)
    else:
        kwargs = {"request": FakeRequest(fake), "get_updates_request": FakeRequest(fake)}
    if resume_hold is not None:
        kwargs["resume_hold"] = resume_hold
    app = build_application(
        config,
        seed=seed,
        clock=clock,
        defaults=defaults,
        lobby_ttl=lobby_ttl,
        private_interval=private_interval,
        outbox_options=outbox_options
        if outbox_options is not None
        else {"group_limit": 100_000, "group_fast_interval": 0.0},
        forced_pause=forced_pause,
        analysis=analysis,
        **kwargs,
    )
    harness = Harness(fake, app, group, people, server)
    # run_polling() would call the post_* hooks; a test drives the lifecycle itself.
    await app.initialize()
    assert app.post_init is not None and app.post_stop is not None
    assert app.post_shutdown is not None
    await app.post_init(app)
    await app.start()
    assert app.updater is not None
    await start_polling(app, timeout=1)
    try:
        resumer = app.bot_data.resumer
        if resume_hold is None and resumer is not None:
            await resumer.done.wait()
        if started and fresh:
            for user in people:  # the bot learns it may write to them
                fake.user_starts_bot(user)
        await harness.idle()
        yield harness
    finally:
        if app.updater.running:
            await app.updater.stop()
        if app.running:
            await app.stop()
            await app.post_stop(app)
        await app.shutdown()
        await app.post_shutdown(app)
        if server is not None:
            await server.aclose()


Policy = Callable[["Harness", FakeUser, list[str]], str]
"""Picks a button code (the part after ``table:move:``) for the player on turn."""


def code_of(data: str | None) -> str:
    return (data or "").split(":", 2)[-1]


async def take_turn(h: Harness, policy: Policy) -> tuple[FakeUser, str]:
    """The player on turn presses what ``policy`` picks (a discard: two cards, then confirm)."""
    user = h.actor()
    assert user is not None, "nobody is to act"
    msg = h.hand_message(user)
    assert msg is not None, f"{user.first_name} has no hand message"
    datas = [d for _, d in msg.buttons if d]
    codes = [code_of(d) for d in datas]
    assert codes, f"{user.first_name} is on turn but has no buttons: {msg.content}"
    if codes[0].startswith("t"):
        chosen = policy(h, user, codes)
        picks = [chosen] if chosen.startswith("t") else []
        picks += [c for c in codes if c.startswith("t") and c not in picks][: 2 - len(picks)]
        for c in picks:
            msg = h.hand_message(user)
            assert msg is not None
            data = next(d for _, d in msg.buttons if d and code_of(d) == c)
            answer = await h.press(user, msg, data)
            assert not is_alert(answer), answer
        msg = h.hand_message(user)
        assert msg is not None
        data = next(d for _, d in msg.buttons if d and code_of(d) == "k")
        answer = await h.press(user, msg, data)
        assert not is_alert(answer), answer
        return user, "k"
    code = policy(h, user, codes)
    data = datas[codes.index(code)]
    answer = await h.press(user, msg, data)
    assert not is_alert(answer), answer
    return user, code


def simple_policy(bids: dict[int, list[str]] | None = None, **choices: str) -> Policy:
    """Bid per seat from a script (else pass); ``contract``/``whist``/``defence`` codes by
    preference; play the first legal card."""
    scripts = {k: list(v) for k, v in (bids or {}).items()}

    def choose(h: Harness, user: FakeUser, codes: list[str]) -> str:
        seat = h.table().seat_of(user.id)
        kind = codes[0][0]
        if kind == "b":
            script = scripts.get(seat or 0, [])
            while script:
                want = script.pop(0)
                if want in codes:
                    return want
            return "bP"
        if kind == "c":
            want = choices.get("contract", "")
            return want if want in codes else codes[0]
        if kind == "w":
            seq = choices.get(f"whist{seat}") or choices.get("whist") or "wP"
            for want in seq.split(","):
                if want in codes:
                    return want
            return codes[0]
        if kind == "d":
            want = choices.get("defence", "dC")
            return want if want in codes else codes[0]
        return codes[0]

    return choose


async def play_deal(h: Harness, policy: Policy, max_steps: int = 200) -> list[tuple[str, str]]:
    """Play the current deal to its end; returns ``(player, code)`` of every press."""
    table = h.table()
    deal_no = table.deal_no
    done: list[tuple[str, str]] = []
    for _ in range(max_steps):
        table = h.table()
        game = table.game
        if game is None or game.over or table.deal_no != deal_no:
            return done
        user, code = await take_turn(h, policy)
        done.append((user.first_name, code))
    raise AssertionError("the deal did not end")


async def open_and_start(
    h: Harness, *, owner: int = 0, settings_presses: Sequence[str] = ()
) -> None:
    """``/newgame``, optional settings presses by the owner, everyone sits down, start."""
    await h.say(h.users[owner], "/newgame")
    lobby = h.fake.last_bot_message(h.group)
    assert lobby is not None
    for code in settings_presses:
        lobby = h.fake.message(h.group.id, lobby.message_id)
        data = next(d for _, d in lobby.buttons if d and code_of(d) == code)
        await h.press(h.users[owner], lobby, data)
    for user in h.users[: h.table().settings.players]:
        lobby = h.fake.message(h.group.id, lobby.message_id)
        data = next(d for _, d in lobby.buttons if d and code_of(d) == "Ls")
        answer = await h.press(user, lobby, data)
        assert not is_alert(answer), answer
    lobby = h.fake.message(h.group.id, lobby.message_id)
    data = next(d for _, d in lobby.buttons if d and code_of(d) == "Lg")
    answer = await h.press(h.users[owner], lobby, data)
    assert not is_alert(answer), answer


def bot_env(
    fake: FakeTelegram, server: FakeBotApiServer, tmp_path: Path, **extra: str
) -> dict[str, str]:
    """The environment of ``python -m bot`` against ``server`` (a fresh database in tmp_path)."""
    env = dict(os.environ)
    env.update(
        BOT_TOKEN=fake.token,
        TELEGRAM_API_URL=server.root_url,
        DATABASE_PATH=str(tmp_path / "db.sqlite3"),
        PYTHONPATH=str(Path.cwd()),
    )
    env.update(extra)
    return env


def start_bot_process(env: dict[str, str], cwd: Path) -> subprocess.Popen[str]:
    """``python -m bot`` in the background, its output captured as text."""
    return subprocess.Popen(
        [sys.executable, "-m", "bot"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
    )
