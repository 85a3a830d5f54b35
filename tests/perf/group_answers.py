"""Benchmark: how soon people in a group are answered while games run, through the fake Bot
API over HTTP at Telegram's real limits.

    python tests/perf/group_answers.py                    # 3 + 1 games, 2 lobbies, 180 s
    python tests/perf/group_answers.py --games 5 --lobbies 3 --seconds 300

The real bot (``bot.app.build_application``, long polling, SQLite, its production pacing:
30 requests a second overall, one a second per private chat, 20 a minute per group) runs in
this process against a ``FakeBotApiServer`` on 127.0.0.1 whose ``FakeTelegram`` enforces
Telegram's limits (``FloodLimits()``: 20 a minute per group, sliding; one a second per
private chat; 30 a second overall) and answers 429 beyond them.

- ``--games`` groups each play a pulka of one person and two computer players, and one more
  group a pulka of three people (``--people-tables``); the people press a random legal
  button of their hand message after thinking 1-3 s. Two more members of each game group
  type ``/rules``, ``/history``, ``/top`` or ``/stats`` at random moments (5-25 s after the
  previous one was answered).
- ``--lobbies`` groups each open a lobby, open its settings and press them as a person does:
  a few presses of one setting 0.4-1.5 s apart (each after its toast), a pause of 2-6 s,
  another setting; after 6-12 presses the lobby is cancelled and opened again 40-60 s later.

Measured at the fake (its clock): command sent -> its answer's ``sendMessage`` in the group;
settings press -> the first edit of the lobby that shows the press's value (or a later
press's: edits coalesce); the press's toast (its ``answerCallbackQuery`` text) is checked to
name the new value. Exits 1, loudly, when nothing was measured, a command or a press was never
answered or shown, or the fake answered any 429. Run by hand, not by CI.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import random
import re
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.telegram.scheduler import FORCED_PAUSE  # noqa: E402
from tests.bot_helpers import running_bot  # noqa: E402
from tests.fakes import FakeTelegram, FloodLimits  # noqa: E402

COMMANDS = ("/rules", "/history", "/top", "/stats")
GAME_CODE = re.compile(r"^[bcwdptukoaO]")
"""Codes of a hand message's buttons (bids, contract, whists, defence, play, discard, offers,
and opening the offers or going back from them)."""
SETTINGS = ("Lxu", "Lxt", "Lxc", "Lxj", "Lxv", "Lxp")
"""The settings the lobby presser changes (pulka, turn time, convention, jumps, sheet, players)."""


def code(data: str) -> str:
    return data.split(":", 2)[-1]


def buttons(markup: Any) -> list[tuple[str, str]]:
    """(label, callback data) of an inline keyboard as the bot sent it."""
    if isinstance(markup, str):
        markup = json.loads(markup)
    rows = (markup or {}).get("inline_keyboard", [])
    return [
        (b.get("text", ""), b["callback_data"]) for row in rows for b in row if "callback_data" in b
    ]


@dataclass
class Press:
    at: float
    mid: int
    setting: str
    label: str
    """The setting's button after this press (the toast's text)."""


@dataclass
class Lobby:
    group: Any
    owner: Any
    mid: int | None = None
    presses: list[Press] = field(default_factory=list)
    edits: list[tuple[float, int, frozenset[str]]] = field(default_factory=list)
    """(when, message id, button labels) of every edit of the lobby."""

    def shown(self, press: Press) -> float | None:
        """When the lobby first showed ``press``'s setting as the latest press of it left
        it: an edit showing it, or a later press that brought the setting back to what the
        lobby shows (the outbox sends only the latest state, and none if nothing changed)."""
        edits = [(at, labels) for at, mid, labels in self.edits if mid == press.mid]
        same = [p for p in self.presses if p.setting == press.setting and p.mid == press.mid]
        moments = sorted({at for at, _ in edits} | {p.at for p in same})
        for moment in (m for m in moments if m >= press.at):
            shows = [labels for at, labels in edits if at <= moment]
            latest = [p.label for p in same if p.at <= moment]
            if shows and latest and latest[-1] in shows[-1]:
                return moment
        return None


class BenchFake(FakeTelegram):
    """A FakeTelegram that reports every call to :meth:`Bench.on_call`."""

    bench: Bench | None = None

    def _record(self, method: str, params: Any, now: float, status: Any, body: Any) -> None:
        super()._record(method, params, now, status, body)
        if self.bench is not None and status == 200:
            self.bench.on_call(method, params, now, body)


class Bench:
    def __init__(self, fake: BenchFake, args: argparse.Namespace) -> None:
        self.fake, self.args = fake, args
        self.rng = random.Random(args.seed)
        self.running = True
        self.answer_texts: dict[int, set[str]] = defaultdict(set)
        """Group -> texts the bot queued as answers to commands there."""
        self.asked: dict[int, tuple[float, str]] = {}
        """Group -> the command waiting for its answer (sent at, command)."""
        self.commands: list[tuple[str, float]] = []
        self.unanswered: list[str] = []
        self.lobbies: dict[int, Lobby] = {}
        self.hands: dict[int, tuple[int, list[tuple[str, str]]]] = {}
        """Person -> his hand message (id, buttons) as last sent or edited."""
        self.turns: dict[int, asyncio.Event] = defaultdict(asyncio.Event)
        self.group_sends: dict[int, list[float]] = defaultdict(list)
        self.toasts_wrong: list[str] = []
        self.answered: dict[str, float] = {}
        """Callback query -> when the bot answered it."""
        self.toasts: list[float] = []
        """Settings press -> its toast, seconds."""
        self.started = 0
        self.broken: list[str] = []

    # ---------------------------------------------------------------- watching

    def on_call(self, method: str, params: Any, now: float, body: Any) -> None:
        chat = params.get("chat_id")
        if method == "answerCallbackQuery":
            self.answered[str(params.get("callback_query_id"))] = now
        if not isinstance(chat, int) or method == "getUpdates":
            return
        if chat < 0:
            self.group_sends[chat].append(now)
            asked = self.asked.get(chat)
            if method == "sendMessage" and asked and params.get("text") in self.answer_texts[chat]:
                del self.asked[chat]
                self.commands.append((asked[1], now - asked[0]))
            lobby = self.lobbies.get(chat)
            if lobby is not None and method == "editMessageText":
                labels = frozenset(label for label, _ in buttons(params.get("reply_markup")))
                lobby.edits.append((now, params["message_id"], labels))
            return
        if chat not in self.turns:
            return
        if method == "sendMessage":
            mid = json.loads(body)["result"]["message_id"]
        elif method in ("editMessageText", "editMessageReplyMarkup"):
            mid = params.get("message_id")
            if chat in self.hands and self.hands[chat][0] != mid:
                return  # another message (an older hand, a note)
        else:
            return
        game = [
            (label, d)
            for label, d in buttons(params.get("reply_markup"))
            if GAME_CODE.match(code(d))
        ]
        if game:
            self.hands[chat] = (mid, game)
            self.turns[chat].set()
        elif chat in self.hands and self.hands[chat][0] == mid:
            self.hands[chat] = (mid, [])

    # ---------------------------------------------------------------- acting

    async def press(self, user: Any, group: Any, mid: int, data: str) -> dict[str, Any]:
        """Press a button of a group's message and wait for the callback answer."""
        qid = self.fake.press(user, (group.id, mid), data)
        return await self.fake.wait_until(lambda: self.fake.callback_answer(qid), timeout=30)

    async def lobby_of(self, user: Any, group: Any) -> int:
        """``/newgame`` by ``user``; the lobby message's id."""
        self.fake.send_text(user, group, "/newgame")
        msg = await self.fake.wait_for_bot_message(
            group, lambda m: any(code(d or "") == "Ls" for _, d in m.buttons), timeout=60
        )
        return msg.message_id

    def buttons_of(self, group: Any, mid: int) -> dict[str, str]:
        """Code -> callback data of the message's buttons now."""
        return {code(d): d for _, d in self.fake.message(group.id, mid).buttons if d}

    async def button(self, group: Any, mid: int, wanted: str) -> str:
        """The callback data of the button ``wanted`` once the message shows it."""
        return await self.fake.wait_until(
            lambda: self.buttons_of(group, mid).get(wanted), timeout=60, what=wanted
        )

    async def start_game(self, group: Any, people: list[Any]) -> None:
        """The first person opens a lobby, everyone sits, computers fill it; start."""
        mid = await self.lobby_of(people[0], group)
        for user in people:
            await self.press(user, group, mid, await self.button(group, mid, "Ls"))
        for _ in range(3 - len(people)):
            await self.press(people[0], group, mid, await self.button(group, mid, "La"))
        answer = await self.press(people[0], group, mid, await self.button(group, mid, "Lg"))
        if answer.get("show_alert"):
            raise RuntimeError(f"{group.title}: the game did not start: {answer}")
        self.started += 1

    async def play(self, user: Any) -> None:
        """A person: on his turn, thinks 1-3 s and presses a random legal button."""
        event = self.turns[user.id]
        while self.running:
            await event.wait()
            event.clear()
            await asyncio.sleep(self.rng.uniform(1.0, 3.0))
            mid, game = self.hands.get(user.id, (0, []))
            if not game or not self.running:
                continue
            confirm = [d for _, d in game if code(d) == "k"]
            marks = [d for _, d in game if code(d).startswith("t")]
            data = confirm[0] if confirm else self.rng.choice(marks or [d for _, d in game])
            try:
                self.fake.press(user, (user.id, mid), data)
            except (ValueError, KeyError):
                event.set()  # the keyboard changed meanwhile: look again

    async def ask(self, group: Any, members: list[Any]) -> None:
        """Members type a command at random moments, each after the last was answered."""
        while self.running:
            await asyncio.sleep(self.rng.uniform(5.0, 25.0))
            if not self.running:
                return
            command = self.rng.choice(COMMANDS)
            self.asked[group.id] = (self.fake.clock(), command)
            self.fake.send_text(self.rng.choice(members), group, command)
            try:
                await self.fake.wait_until(lambda: group.id not in self.asked, timeout=120)
            except TimeoutError:
                self.unanswered.append(f"{command} in {group.title}")
                self.asked.pop(group.id, None)

    async def settle_lobby(self, lobby: Lobby) -> None:
        """Open a lobby, change settings as a person does, cancel; again."""
        group, owner = lobby.group, lobby.owner
        while self.running:
            lobby.mid = mid = await self.lobby_of(owner, group)
            await self.press(owner, group, mid, await self.button(group, mid, "Lo"))
            left = self.rng.randint(6, 12)
            while left > 0 and self.running:
                setting = self.rng.choice(SETTINGS)
                for _ in range(min(left, self.rng.randint(1, 4))):
                    left -= 1
                    data = await self.button(group, mid, setting)
                    at = self.fake.clock()
                    qid = self.fake.press(owner, (group.id, mid), data)
                    answer = await self.fake.wait_until(
                        functools.partial(self.fake.callback_answer, qid)
                    )
                    self.toasts.append(self.answered[qid] - at)
                    text = str(answer.get("text", ""))
                    if not text or answer.get("show_alert"):
                        self.toasts_wrong.append(f"{setting}: {answer}")
                    lobby.presses.append(Press(at, mid, setting, text))
                    await asyncio.sleep(self.rng.uniform(0.4, 1.5))
                await asyncio.sleep(self.rng.uniform(2.0, 6.0))

            def all_shown(m: int = mid) -> bool:
                return all(lobby.shown(p) for p in lobby.presses if p.mid == m)

            await self.fake.wait_until(all_shown, timeout=120)
            await self.press(owner, group, mid, await self.button(group, mid, "Lb"))
            await self.press(owner, group, mid, await self.button(group, mid, "Lc"))
            await asyncio.sleep(self.rng.uniform(40.0, 60.0))  # (another lobby, later)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def max_in_window(times: list[float], window: float = 60.0) -> int:
    ordered, best, start = sorted(times), 0, 0
    for end, t in enumerate(ordered):
        while ordered[start] <= t - window:
            start += 1
        best = max(best, end - start + 1)
    return best


def line(what: str, values: list[float]) -> str:
    if not values:
        return f"| {what} | 0 | – | – | – |"
    p50, p99 = pct(values, 0.5), pct(values, 0.99)
    return f"| {what} | {len(values)} | {p50:.2f} | {p99:.2f} | {max(values):.2f} |"


async def run(args: argparse.Namespace) -> int:
    fake = BenchFake(flood=FloodLimits())
    rng = random.Random(args.seed)
    names = iter(f"{a}{i}" for i in range(1000) for a in ("Anna", "Boris", "Vera"))

    def person() -> Any:
        return fake.add_user(next(names), language_code=rng.choice(("ru", "en")), started=False)

    tables: list[tuple[Any, list[Any], list[Any]]] = []  # group, players, askers
    for i in range(args.games + args.people_tables):
        players = [person() for _ in range(1 if i < args.games else 3)]
        askers = [person(), person()]
        tables.append((fake.add_group(f"Стол {i}", players + askers), players, askers))
    lobbies = []
    for i in range(args.lobbies):
        owner = person()
        lobbies.append(Lobby(fake.add_group(f"Лобби {i}", [owner, person()]), owner))
    everyone = [u for g, p, a in tables for u in p + a] + [lb.owner for lb in lobbies]
    bench = Bench(fake, args)
    fake.bench = bench
    with tempfile.TemporaryDirectory() as tmp:
        async with running_bot(
            Path(tmp),
            http=True,
            fake=fake,
            people=everyone,
            group=tables[0][0],
            private_interval=1.0,
            outbox_options={},  # the production pacing (bot.telegram.outbox.Outbox)
            overall_rate=30.0,
            forced_pause=FORCED_PAUSE,
            analysis=True,
        ) as h:
            outbox = h.rt.outbox
            queue_answer = outbox.answer_command

            def answer_command(chat_id: int, text: str, *, who: int | None = None) -> None:
                bench.answer_texts[chat_id].add(text)
                queue_answer(chat_id, text, who=who)

            outbox.answer_command = answer_command  # type: ignore[method-assign]
            for user in everyone:
                fake.user_starts_bot(user)
            await h.idle(120)
            tasks = []
            for group, players, askers in tables:
                for user in players:
                    bench.turns[user.id]  # noqa: B018  (a person whose hands are watched)
                await bench.start_game(group, players)
                tasks += [asyncio.create_task(bench.play(u)) for u in players]
                tasks.append(asyncio.create_task(bench.ask(group, askers)))
            for lobby in lobbies:
                bench.lobbies[lobby.group.id] = lobby
                tasks.append(asyncio.create_task(bench.settle_lobby(lobby)))
            began = time.monotonic()
            await asyncio.sleep(args.seconds)
            bench.running = False
            for task in tasks:
                task.cancel()
            for result in await asyncio.gather(*tasks, return_exceptions=True):
                if isinstance(result, Exception):  # a broken run measures nothing
                    bench.broken.append(repr(result))
            span = time.monotonic() - began
    return report(bench, fake, args, span)


def report(bench: Bench, fake: BenchFake, args: argparse.Namespace, span: float) -> int:
    commands = [s for _, s in bench.commands]
    presses = [(lb, p) for lb in bench.lobbies.values() for p in lb.presses]
    shown = [t - p.at for lb, p in presses if (t := lb.shown(p)) is not None]
    floods = fake.flood_errors
    print(
        f"{args.games} games of 1 person + 2 computer players, {args.people_tables} of 3 people, "
        f"{args.lobbies} lobbies; {span:.0f} s measured; games started: {bench.started}"
    )
    print("\n| what | n | p50, s | p99, s | max, s |\n|---|---:|---:|---:|---:|")
    print(line("command → answer (all)", commands))
    for name in COMMANDS:
        print(line(f"`{name}` → answer", [s for c, s in bench.commands if c == name]))
    print(line("settings press → its toast", bench.toasts))
    print(line("settings press → lobby shows it", shown))
    groups = {g: ts for g, ts in bench.group_sends.items() if g not in bench.lobbies}
    busiest = max((max_in_window(ts) for ts in groups.values()), default=0)
    lobby_busiest = max((max_in_window(bench.group_sends[g]) for g in bench.lobbies), default=0)
    rate = sum(len(ts) for ts in groups.values()) / max(1, len(groups)) / span * 60
    print(
        f"\ngame groups: {rate:.1f} requests a minute each; "
        f"most in any 60 s of one group: {busiest} (of a lobby group: {lobby_busiest})"
    )
    print(f"429 answered by the fake: {len(floods)}")
    problems = []
    if not commands or not shown or bench.started == 0:
        problems.append("nothing measured (no command answered, no press shown or no game started)")
    if bench.broken:
        problems.append(f"the simulated people failed: {bench.broken[:3]}")
    if bench.unanswered:
        problems.append(f"commands never answered: {bench.unanswered}")
    if len(shown) < len(presses):
        problems.append(f"{len(presses) - len(shown)} settings presses never shown")
    if bench.toasts_wrong:
        problems.append(f"presses without a toast: {bench.toasts_wrong[:5]}")
    if floods:
        problems.append(f"429s: {floods[:5]}")
    for problem in problems:
        print("FAILED:", problem, file=sys.stderr)
    return 1 if problems else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=3, help="groups of 1 person + 2 computers")
    parser.add_argument("--people-tables", type=int, default=1, help="groups of 3 people")
    parser.add_argument("--lobbies", type=int, default=2, help="groups changing lobby settings")
    parser.add_argument("--seconds", type=float, default=180.0)
    parser.add_argument("--seed", type=int, default=1)
    sys.exit(asyncio.run(run(parser.parse_args())))


if __name__ == "__main__":
    main()
