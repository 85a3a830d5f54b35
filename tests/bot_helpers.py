"""Helpers for the bot tests: run the real Application against the fake Telegram.

``running_bot`` starts the Application with polling, either in-process through
python-telegram-bot's request layer (:class:`FakeRequest`) or over HTTP against
:class:`FakeBotApiServer` on 127.0.0.1 (``http=True``), with a group and users.
"""

from __future__ import annotations

import asyncio
import functools
import os
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.app import build_application
from bot.config import Config
from bot.core.model import Table, TableSettings
from bot.core.service import TableService
from bot.preferans.cards import Card, parse_card
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
    MessageView,
)

NO_FLOOD = FloodLimits(enabled=False)
WEBAPP_URL = "https://pref.example.com/app/"
"""The Mini App's public address in the tests (``running_bot(webapp=True)``)."""
WEBAPP: dict[str, Any] = {"webapp_url": WEBAPP_URL, "webapp_listen": "127.0.0.1", "webapp_port": 0}
_QUIET_LOOKS = 4
"""Turns of the event loop the bot must stay idle for :meth:`Harness.idle`."""

_SUIT_OF = {s: "SCDH"[i] for i, s in enumerate(SUITS)}
_RANK = r"(10|[789JQKA])"
_SUIT = "(" + "|".join(re.escape(s) for s in SUITS) + ")"
_INLINE = re.compile(_RANK + _SUIT)
_LINE = re.compile(r"^[^\S\n]*" + _SUIT + r"((?: " + _RANK + r")+)[^\S\n]*$", re.MULTILINE)
_TAG = re.compile(r"<[^>]+>")


@functools.lru_cache(maxsize=4096)  # the watchers read the same texts again and again
def cards_in(text: str) -> frozenset[Card]:
    """Every card a text (plain, or HTML as sent) shows: ``10♥️`` tokens and hand lines
    like ``♠️ A K 10``."""
    text = _TAG.sub("", text)
    found = {parse_card(rank + _SUIT_OF[suit]) for rank, suit in _INLINE.findall(text)}
    for suit, ranks in (m.groups()[:2] for m in _LINE.finditer(text)):
        found.update(parse_card(rank + _SUIT_OF[suit]) for rank in ranks.split())
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
    logged = [(r.name, r.getMessage()) for r in caplog.records]
    return sum(n == "bot.telegram.pacing" and m.startswith("flood control") for n, m in logged)


def is_alert(answer: dict[str, Any]) -> bool:
    """Whether a callback answer was shown as an alert."""
    return answer.get("show_alert") is True


Policy = Callable[[Deal, list[str]], str]
"""Picks a button code (the part after ``table:move:``) for the player on turn."""


def code_of(data: str | None) -> str:
    return (data or "").split(":", 2)[-1]


def button(msg: MessageView, code: str) -> str:
    """The callback data of ``msg``'s button for ``code``."""
    found = [d for _, d in msg.buttons if d and code_of(d) == code]
    assert found, f"no {code} button on {msg.content!r}"
    return found[0]


@dataclass
class Harness:
    fake: FakeTelegram
    app: Any
    group: FakeChat
    users: list[FakeUser]

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
        self,
        user: FakeUser,
        msg: MessageView,
        data: str | None = None,
        *,
        text: str | None = None,
        force: bool = False,
    ) -> dict[str, Any]:
        """Press a button and wait until the bot is idle; returns the callback answer."""
        qid = self.fake.press(user, msg, data, button_text=text, force=force)
        await self.idle()
        return self.fake.callback_answer(qid)

    async def act(self, choose: Policy) -> str:
        """The player on turn presses the button ``choose(deal, codes)`` picks on his hand
        message; its code."""
        user = self.actor()
        assert user is not None, "nobody is to act"
        msg = self.hand(user)
        codes = [code_of(d) for _, d in msg.buttons if d]
        assert codes, f"{user.first_name} is on turn but has no buttons: {msg.content}"
        code = choose(self.deal(), codes)
        answer = await self.press(user, msg, button(msg, code))
        assert not is_alert(answer), answer
        return code

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

    def hand_message(self, user: FakeUser) -> MessageView | None:
        """The user's hand message of the current deal (the newest one)."""
        slot = hand_of(self.rt.store, self.table(), user.id)
        mid = slot.message_id if slot is not None else None
        return self.fake.message(user.id, mid) if mid is not None else None

    def hand(self, user: FakeUser | None) -> MessageView:
        """The user's hand message of the current deal (it has been sent)."""
        assert user is not None, "nobody is to act"
        msg = self.hand_message(user)
        assert msg is not None, f"{user.first_name} has no hand message"
        return msg

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
        return self.fake.user(player.user_id)

    def actor(self) -> FakeUser | None:
        game = self.table().game
        if game is None or game.current is None or game.current.actor is None:
            return None
        return self.user_of_seat(int(game.current.actor))


@asynccontextmanager
async def running_bot(
    tmp_path: Path,
    *,
    http: bool = False,
    users: int = 3,
    lang: str = "en",
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
    fresh = people is None
    if people is None:
        names = ["Anna", "Boris", "Vera", "Gleb", "Dasha", "Egor"][:users]
        people = [
            fake.add_user(n, language_code=lang, started=started, username=n.lower()) for n in names
        ]
    group = group or fake.add_group("Preferans club", people)
    server = await FakeBotApiServer(fake).start() if http else None
    request = None if server else FakeRequest(fake)
    app = build_application(
        Config(
            token=fake.token,
            database_path=str(tmp_path / db_name),
            api_url=server.root_url if server else None,
            overall_rate=overall_rate,
            **(WEBAPP if webapp else {}),
        ),
        seed=seed,
        clock=clock,
        defaults=defaults,
        lobby_ttl=lobby_ttl,
        private_interval=private_interval,
        # {} is the production pacing (tests/perf/group_answers.py), None the tests' unthrottled
        outbox_options=outbox_options
        if outbox_options is not None
        else {"group_limit": 100_000, "group_fast_interval": 0.0},
        request=request,
        get_updates_request=FakeRequest(fake) if request else None,
        forced_pause=forced_pause,
        analysis=analysis,
        resume_hold=resume_hold,
    )
    harness = Harness(fake, app, group, people)
    # run_polling() would call the post_* hooks; a test drives the lifecycle itself.
    await app.initialize()
    assert app.post_init and app.post_stop and app.post_shutdown and app.updater
    await app.post_init(app)
    await app.start()
    await start_polling(app, timeout=1)
    try:
        if resume_hold is None and app.bot_data.resumer is not None:
            await app.bot_data.resumer.done.wait()
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


async def take_turn(h: Harness, policy: Policy) -> tuple[FakeUser, str]:
    """The player on turn presses what ``policy`` picks (a discard: two cards, then confirm)."""
    user = h.actor()
    assert user is not None, "nobody is to act"
    code = await h.act(policy)
    if code.startswith("t"):  # a marked card shows as "u…"
        await h.act(lambda deal, codes: next(c for c in codes if c.startswith("t")))
        code = await h.act(lambda deal, codes: "k")
    return user, code


def simple_policy(bids: dict[int, list[str]] | None = None, **choices: str) -> Policy:
    """Bid per seat from a script (else pass); ``contract``/``whist``/``defence`` codes by
    preference (``whist<seat>`` for one seat; ``,`` between choices); else the first
    button (the first legal card)."""
    scripts = {k: list(v) for k, v in (bids or {}).items()}

    def choose(deal: Deal, codes: list[str]) -> str:
        seat = int(deal.actor) if deal.actor is not None else 0
        kind = codes[0][0]
        if kind == "b":
            script = scripts.get(seat, [])
            while script:
                if (want := script.pop(0)) in codes:
                    return want
            return "bP"
        wanted = {
            "c": choices.get("contract", ""),
            "w": choices.get(f"whist{seat}") or choices.get("whist") or "wP",
            "d": choices.get("defence", "dC"),
        }.get(kind, "")
        return next((want for want in wanted.split(",") if want in codes), codes[0])

    return choose


def quick_code(deal: Deal, codes: list[str]) -> str:
    """A short legal game: the first bidder bids a low contract, the others pass, the
    declarer names the lowest contract, defenders pass (closed), cards low to high; a
    discard marks two cards ("t"), then confirms ("k"); offers opened (by an earlier
    random press) are closed ("Ob") for the cards; the hint ("H") is never pressed."""
    moves = [c for c in codes if c[0] not in "HO"]
    if not moves:
        return "Ob" if "Ob" in codes else codes[0]
    kind = moves[0][0]
    if kind in "tu":
        return "k" if "k" in moves else next(c for c in moves if c.startswith("t"))
    if kind == "b":
        bids = [c for c in moves if c not in ("bP", "bM")]
        nobody_bid = all(b.contract is None for b in deal.auction)
        low = next((c for c in bids if c != "b6S"), bids[0]) if bids else None  # (6♠ may
        # be a stalingrad: whisted and played)
        return low if nobody_bid and low else ("bP" if "bP" in moves else moves[0])
    wanted = {"w": "wP", "d": "dC"}.get(kind, "")
    return wanted if wanted in moves else moves[0]


async def play_deal(h: Harness, policy: Policy, max_steps: int = 200) -> list[tuple[str, str]]:
    """Play the current deal to its end; returns ``(player, code)`` of every press."""
    deal_no = h.table().deal_no
    done: list[tuple[str, str]] = []
    for _ in range(max_steps):
        table = h.table()
        if table.game is None or table.game.over or table.deal_no != deal_no:
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

    async def tap(user: FakeUser, code: str) -> None:
        msg = h.fake.message(h.group.id, lobby.message_id)
        assert not is_alert(await h.press(user, msg, button(msg, code))), code

    for code in settings_presses:
        await tap(h.users[owner], code)
    for user in h.users[: h.table().settings.players]:
        await tap(user, "Ls")
    await tap(h.users[owner], "Lg")


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
