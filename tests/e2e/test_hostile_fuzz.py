"""End-to-end fuzzing against the fake Bot API server (real HTTP on 127.0.0.1).

A seeded random driver sends thousands of updates to two groups and their players:
legal presses taken from the hand messages' keyboards, interleaved with stale, forged
(other tables, other seats), malformed and over-long callback data, presses by group
members who are not seated and by strangers in their private chat, double and triple
presses, presses on messages of games that ended, commands with odd arguments and deep
links, timer ticks, the bot removed from and re-added to a group and a group upgraded to
a supergroup. Updates go out in small batches, so several are handled concurrently.

After each run every table is driven to its end, and then:

- every game is over and its record replays through the engine to the same sheet (so no
  move the engine would reject was ever applied),
- only the player on turn ever acted (:class:`ActSpy`),
- no message ever showed a card the rules had not opened (:class:`PrivacyWatch`),
- nothing was logged at ERROR (no handler exception, no failed send),
- every button press was answered, and each press that must be refused was.
"""

from __future__ import annotations

import random
import string
from pathlib import Path
from typing import Any

import pytest

from bot.core.model import Status, Table, TableSettings
from bot.core.modes import SheetMode
from bot.preferans.robot import FAST
from bot.preferans.seats import Seat
from bot.render.callbacks import encode, to_base36
from bot.render.i18n import t
from bot.telegram.scheduler import JobKind
from bot.telegram.shown import Slot, hand_of
from tests.bot_helpers import NO_FLOOD, Harness, code_of, is_alert, quick_code, running_bot
from tests.fakes import FakeChat, FakeTelegram, FakeUser, ManualClock, MessageView
from tests.hostile_helpers import (
    ActSpy,
    ErrorLog,
    PrivacyWatch,
    assert_replays,
)

SEEDS = [101, 202, 303]
BATCHES = 200
"""Batches of 1-6 updates per run (about 700 updates, with the presses at the end)."""

NAMES = [
    ("<b>Anna</b>", "& Co"),
    ("Boris", "<script>alert(1)</script>"),
    ("Вера " + "Длинноимённая" * 6, None),
    ("Gleb&amp;", "</pre>"),
    ("Dasha", "<a href='x'>"),
    ("Egor", None),
    ("Жанна", '"quoted"'),
    ("Zoe", None),
]
SETTING_LETTERS = "pctjxshwelv"  # every setting but the pulka size (kept at 2: games end)
COMMANDS = [
    "/newgame",
    "/newgame@fake_test_bot",
    "/newgame now please <b>",
    "/newgame@other_bot",
    "/stop",
    "/stop@fake_test_bot really",
    "/pulka",
    "/pulka 999 <i>",
    "/rules &",
    "/help",
    "/start",
    "/start@fake_test_bot sZZ",
    "/export",
    "/export 1",
    "/history",
    "/history -1 x",
    "/stats",
    "/stats <b>me</b>",
    "/top",
    "/top 1000000000000000000000",
]


def _garbage(rng: random.Random) -> str:
    kind = rng.randrange(8)
    if kind == 0:
        return "".join(rng.choice(string.printable) for _ in range(rng.randint(1, 40)))
    if kind == 1:
        return "x" * rng.randint(65, 200)  # longer than Telegram allows
    if kind == 2:
        return "::" + rng.choice(["", "bP", "Ls", "k"])
    if kind == 3:
        return f"-1:0:{rng.choice(['bP', 'Ls', 'V'])}"
    if kind == 4:
        return "ё:ж:" + "🂠" * rng.randint(1, 10)
    if kind == 5:
        return f"{to_base36(rng.randrange(10**12))}:{to_base36(rng.randrange(99))}:p10H"
    if kind == 6:
        return "1:1:" + "Lx" + "q" * rng.randint(1, 58)
    return "zzzzzzzzzzzzz:0:Lg"


class Driver:
    """Random updates against two groups; knows who is where, never peeks into the bot
    except to find the current table, its actor and messages (as a player would see)."""

    def __init__(
        self, h: Harness, rng: random.Random, clock: ManualClock, people: dict[str, Any]
    ) -> None:
        self.h = h
        self.fake = h.fake
        self.rng = rng
        self.clock = clock
        self.groups: dict[str, FakeChat] = people["groups"]
        self.members: dict[str, list[FakeUser]] = people["members"]
        self.strangers: list[FakeUser] = people["strangers"]
        self.everyone: list[FakeUser] = people["everyone"]
        self.bot_in = {g: True for g in self.groups}
        self.upgraded = False
        self.must_refuse: list[tuple[str, str]] = []
        self.counts: dict[str, int] = {}
        self.updates = 0

    # ------------------------------------------------------------------ looking

    def table(self, g: str) -> Table | None:
        chat_id = self.groups[g].id
        tables = [tb for tb in self.h.service.registry.tables.values() if tb.chat_id == chat_id]
        for tb in tables:
            if tb.status in (Status.LOBBY, Status.PLAYING):
                return tb
        return max(tables, key=lambda tb: tb.id) if tables else None

    def user(self, user_id: int) -> FakeUser:
        return next(u for u in self.everyone if u.id == user_id)

    def hand_message(self, table: Table, seat: int) -> MessageView | None:
        player = table.player(Seat(seat)) if seat < len(table.seats) else None
        slot = hand_of(self.h.rt.store, table, player.user_id) if player is not None else None
        player = table.seats[seat] if seat < len(table.seats) else None
        if slot is None or slot.message_id is None or player is None:
            return None
        try:
            return self.fake.message(player.user_id, slot.message_id)
        except KeyError:
            return None

    def group_message(self, g: str, with_buttons: bool = True) -> MessageView | None:
        msgs = [
            m
            for m in self.fake.bot_messages(self.groups[g])
            if not m.deleted and (m.buttons or not with_buttons)
        ]
        return self.rng.choice(msgs[-8:]) if msgs else None

    def private_message(self, user: FakeUser) -> MessageView | None:
        try:
            msgs = [m for m in self.fake.bot_messages(user.id) if not m.deleted]
        except KeyError:
            return None
        return self.rng.choice(msgs[-6:]) if msgs else None

    # ------------------------------------------------------------------ sending

    def press(
        self, user: FakeUser, msg: MessageView, data: str | None, *, refuse: str = ""
    ) -> str | None:
        try:
            qid = self.fake.press(user, msg, data, force=True)
        except ValueError:
            return None  # e.g. the user is not in that group any more
        self.updates += 1
        if refuse:
            self.must_refuse.append((qid, refuse))
        return qid

    def say(self, user: FakeUser, chat: Any, text: str) -> None:
        try:
            self.fake.send_text(user, chat, text)
        except ValueError:
            return
        self.updates += 1

    # ------------------------------------------------------------------ operations

    def op_legal(self) -> None:
        """The player on turn presses one of his buttons (sometimes twice or thrice), or a
        group member works the lobby."""
        g = self.rng.choice(list(self.groups))
        table = self.table(g)
        if table is None or table.status not in (Status.LOBBY, Status.PLAYING):
            self.say(self.rng.choice(self.members[g]), self.groups[g], "/newgame")
            return
        if table.status == Status.LOBBY:
            self.op_lobby(g, table)
            return
        game = table.game
        deal = game.current if game is not None else None
        if deal is None or deal.actor is None:
            return
        msg = self.hand_message(table, int(deal.actor))
        if msg is None or not msg.buttons:
            return
        data = self.rng.choice([d for _, d in msg.buttons if d])
        code = code_of(data)
        if code.startswith("b") and code != "bP" and self.rng.random() < 0.8:
            data = next((d for _, d in msg.buttons if d and code_of(d) == "bP"), data)
        elif code.startswith("c") and self.rng.random() < 0.7:
            data = next(d for _, d in msg.buttons if d)  # the lowest contract: longer games
        elif code.startswith(("t", "u")) and self.rng.random() < 0.5:  # marked: mostly done
            data = next((d for _, d in msg.buttons if d and code_of(d) == "k"), data)
        user = self.user(table.seats[int(deal.actor)].user_id)  # type: ignore[union-attr]
        for _ in range(self.rng.choice([1, 1, 1, 1, 2, 3])):
            self.press(user, msg, data)

    def op_lobby(self, g: str, table: Table) -> None:
        lobby = None
        if (slot := _group_slot(self.h, table)) is not None and slot.message_id is not None:
            try:
                lobby = self.fake.message(table.chat_id, slot.message_id)
            except KeyError:
                lobby = None
        if lobby is None:
            return
        members = self.members[g]
        user = self.rng.choice(members)
        roll = self.rng.random()
        owner = self.user(table.owner_id)
        if roll < 0.45:
            code = "Ls"
        elif roll < 0.6:
            code = "Lg"
            seated = [p for p in table.seats if p is not None and not p.is_robot]
            if seated and self.rng.random() < 0.8:
                user = self.user(self.rng.choice(seated).user_id)
        elif roll < 0.67:
            code = "Lu"
        elif roll < 0.85:
            user = owner if self.rng.random() < 0.7 else user
            code = self.rng.choice(["Lo", "Lb"] + ["Lx" + c for c in SETTING_LETTERS])
        elif roll < 0.9:
            code = "Lxu"  # the pulka size, by somebody who is not the owner: refused
            user = self.rng.choice([u for u in members if u.id != owner.id])
        elif roll < 0.93:
            code = "Lc"
            user = self.rng.choice([u for u in members if u.id != owner.id])
        else:
            code = "Lc" if self.rng.random() < 0.3 else "Lg"
        self.press(user, lobby, encode(table.id, 0, code))

    def op_stale(self) -> None:
        """A button of an older version of a message (or of an ended game)."""
        user = self.rng.choice(self.everyone)
        chats: list[Any] = [user.id] + [
            self.groups[g] for g in self.groups if user in self.members[g]
        ]
        chat = self.rng.choice(chats)
        try:
            msgs = [m for m in self.fake.bot_messages(chat) if not m.deleted]
        except KeyError:
            return
        if not msgs:
            return
        msg = self.rng.choice(msgs)
        datas = [d for v in msg.history for row in v.get("reply_markup") or [] for _, d in row]
        datas += [d for _, d in msg.buttons]
        datas = [d for d in datas if d]
        if not datas:
            return
        data = self.rng.choice(datas)
        refuse = ""
        decoded = data.split(":")
        tables = self.h.service.registry.tables
        try:
            tid = int(decoded[0], 36)
        except ValueError:
            tid = -1
        if tid in tables and tables[tid].status not in (Status.LOBBY, Status.PLAYING):
            refuse = "a press on a table that is closed"
        self.press(user, msg, data, refuse=refuse)

    def op_forged(self) -> None:
        """Data forged for another table or another seat, pressed in one's own chat."""
        user = self.rng.choice(self.everyone)
        msg = self.private_message(user)
        if msg is None:
            return
        tables = [tb for tb in self.h.service.registry.tables.values()]
        if not tables:
            return
        table = self.rng.choice(tables)
        game = table.game
        deal = game.current if game is not None else None
        codes = ["bP", "b6S", "bM", "k", "t7S", "wW", "dO", "cM", "p7S", "V", "R0", "Lg", "Ls"]
        if deal is not None and deal.actor is not None:
            actor_msg = self.hand_message(table, int(deal.actor))
            if actor_msg is not None:
                codes += [code_of(d) for _, d in actor_msg.buttons if d]
        code = self.rng.choice(codes)
        move = table.move if self.rng.random() < 0.8 else self.rng.randrange(0, table.move + 2)
        refuse = ""
        if user in self.strangers:
            refuse = "a stranger"
        elif table.status not in (Status.LOBBY, Status.PLAYING):
            refuse = "a closed table"
        elif code[0] in "LR":
            refuse = "a lobby or seat button outside the group"
        self.press(user, msg, encode(table.id, move, code), refuse=refuse)

    def op_group_buttons(self) -> None:
        """A member (seated or not) presses a button of a group message, or a game code
        forged on it."""
        g = self.rng.choice(list(self.groups))
        msg = self.group_message(g, with_buttons=self.rng.random() < 0.7)
        if msg is None:
            return
        user = self.rng.choice(self.members[g])
        datas = [d for _, d in msg.buttons if d]
        table = self.table(g)
        if datas and self.rng.random() < 0.7:
            data = self.rng.choice(datas)
        elif table is not None:
            data = encode(table.id, table.move, self.rng.choice(["bP", "p7S", "k", "wP", "V"]))
        else:
            return
        self.press(user, msg, data)

    def op_malformed(self) -> None:
        user = self.rng.choice(self.everyone)
        if self.rng.random() < 0.5:
            g = self.rng.choice([g for g in self.groups if user in self.members[g]] or ["-"])
            msg = self.group_message(g, with_buttons=False) if g != "-" else None
        else:
            msg = self.private_message(user)
        if msg is None:
            return
        data = _garbage(self.rng) if self.rng.random() < 0.9 else None
        self.press(user, msg, data, refuse="malformed data")

    def op_command(self) -> None:
        user = self.rng.choice(self.everyone)
        text = self.rng.choice(COMMANDS)
        tables = list(self.h.service.registry.tables.values())
        if self.rng.random() < 0.3 and tables:
            table = self.rng.choice(tables)
            text = self.rng.choice(
                [
                    f"/start s{to_base36(table.id)}",
                    f"/start r{to_base36(table.id)}_{self.rng.randrange(-1, 5)}",
                    f"/start r{to_base36(table.id)}_x",
                    f"/start s{to_base36(table.id)}{'z' * 20}",
                ]
            )
        groups = [g for g in self.groups if user in self.members[g]]
        if groups and self.rng.random() < 0.6 and not text.startswith("/start s"):
            if text.startswith("/stop") and self.rng.random() < 0.7:
                return  # (a rarer /stop: games should also run long)
            self.say(user, self.groups[self.rng.choice(groups)], text)
        else:
            self.say(user, user.id, text)

    async def op_timer(self) -> None:
        """The turn clock runs out (or a stale timer fires)."""
        g = self.rng.choice(list(self.groups))
        table = self.table(g)
        if table is None:
            return
        kind = JobKind(self.rng.choice(["turn", "turn", "turn", "remind", "expire", "evict"]))
        if kind == "expire" and self.rng.random() < 0.7:
            return
        self.clock.advance(61 if kind != "expire" else 1801)
        move = table.move if self.rng.random() < 0.8 else max(0, table.move - 1)
        await self.h.rt.scheduler.on_timer(kind, table.id, move)

    def op_membership(self) -> None:
        """The bot is removed from a group or added back; once, a group is upgraded."""
        g = self.rng.choice(list(self.groups))
        group = self.groups[g]
        if not self.bot_in[g]:
            self.fake.add_bot(group)
            self.bot_in[g] = True
        elif not self.upgraded and group.type == "group" and self.rng.random() < 0.5:
            self.groups[g] = self.fake.upgrade_to_supergroup(group)
            self.upgraded = True
        else:
            self.fake.remove_bot(group)
            self.bot_in[g] = False
        self.updates += 1

    async def step(self) -> None:
        ops = [
            (self.op_legal, 40),
            (self.op_stale, 10),
            (self.op_forged, 10),
            (self.op_group_buttons, 8),
            (self.op_malformed, 6),
            (self.op_command, 10),
            (self.op_timer, 4),
            (self.op_membership, 1),
        ]
        for _ in range(self.rng.randint(1, 6)):
            op = self.rng.choices([o for o, _ in ops], [w for _, w in ops])[0]
            self.counts[op.__name__] = self.counts.get(op.__name__, 0) + 1
            result = op()
            if result is not None:
                await result
        await self.h.idle()

    # ------------------------------------------------------------------ the end

    async def finish(self) -> None:
        """Add the bot back everywhere, start the lobbies and play every game to its end."""
        for g in self.groups:
            if not self.bot_in[g]:
                self.fake.add_bot(self.groups[g])
                self.bot_in[g] = True
        await self.h.idle()
        for g in self.groups:
            table = self.table(g)
            if table is not None and table.status == Status.LOBBY:
                await self.start_lobby(g, table)
            table = self.table(g)
            if table is not None and table.status == Status.PLAYING:
                await self.play_out(table)

    async def start_lobby(self, g: str, table: Table) -> None:
        owner = self.user(table.owner_id)
        for _ in range(20):
            if table.status != Status.LOBBY:
                return
            assert (slot := _group_slot(self.h, table)) is not None and slot.message_id is not None
            lobby = self.fake.message(table.chat_id, slot.message_id)
            codes = [code_of(d) for _, d in lobby.buttons]
            if "Ls" not in codes:
                self.press(owner, lobby, encode(table.id, 0, "Lb"))
            elif table.full:
                seated = next(p for p in table.seats if p is not None)
                self.press(self.user(seated.user_id), lobby, encode(table.id, 0, "Lg"))
            else:
                free = [u for u in self.members[g] if table.seat_of(u.id) is None]
                user = free[0]
                qid = self.press(user, lobby, encode(table.id, 0, "Ls"))
                assert qid is not None
                await self.h.idle()
                url = self.fake.callback_answer(qid).get("url") or ""
                if "start=" in url:  # not started yet: the link opens the bot
                    self.fake.user_starts_bot(user, url.split("start=")[1])
            await self.h.idle()
        assert table.status != Status.LOBBY, "the lobby did not start"

    async def play_out(self, table: Table, max_presses: int = 1500) -> None:
        """Finish the game by legal presses: the first bidder bids low, the others pass,
        defenders pass; if the game is still not over, the players stop it by vote."""
        game = table.game
        assert game is not None
        for _ in range(max_presses):
            if game.over:
                return
            deal = game.current
            assert deal is not None and deal.actor is not None, "a deal without an actor"
            seat = int(deal.actor)
            robot = table.seats[seat]
            if robot is not None and robot.user_id < 0:  # a computer player (its timer's job)
                self.h.rt.show(await self.h.service.robots.robot_move(table.id, table.move))
                await self.h.idle()
                continue
            msg = self.hand_message(table, seat)
            assert msg is not None and msg.buttons, f"seat {seat} cannot act: {msg}"
            user = self.user(table.seats[seat].user_id)  # type: ignore[union-attr]
            datas = [d for _, d in msg.buttons if d]
            codes = [code_of(d) for d in datas]
            code = quick_code(deal, codes)
            qid = self.press(user, msg, datas[codes.index(code)])
            await self.h.idle()
            answer = self.fake.callback_answer(qid or "")
            assert not is_alert(answer), (code, answer)
        for player in table.seats[: len(table.seats) // 2 + 1]:
            assert player is not None
            self.say(self.user(player.user_id), self.groups_of(table), "/stop")
            await self.h.idle()
        assert game.over

    def groups_of(self, table: Table) -> FakeChat:
        return next(c for c in self.groups.values() if c.id == table.chat_id)


def _people(fake: FakeTelegram) -> dict[str, Any]:
    users = [
        fake.add_user(first, last, username=f"user{i}", language_code=("ru" if i % 3 else "en"))
        for i, (first, last) in enumerate(NAMES)
    ]
    strangers = [
        fake.add_user("Stranger<b>", "&lt;", username="stranger0"),
        fake.add_user("Чужой", None, username="stranger1", language_code="ru"),
    ]
    a_members = users[:5]
    b_members = users[3:]
    group_a = fake.add_group('<b>Club</b> & "Friends" <i>', a_members)
    group_b = fake.add_group("Second <table> & co " + "x" * 90, b_members)
    return {
        "groups": {"A": group_a, "B": group_b},
        "members": {"A": a_members, "B": b_members},
        "strangers": strangers,
        "everyone": users + strangers,
        "users": users,
    }


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
async def test_fuzz_end_to_end_over_http(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    clock = ManualClock()
    fake = FakeTelegram(flood=NO_FLOOD)
    people = _people(fake)
    defaults = TableSettings(pulka=2, turn_time=60, sheet=SheetMode.TEXT)
    with ErrorLog() as errors:
        async with running_bot(
            tmp_path,
            http=True,
            fake=fake,
            people=people["everyone"],
            group=people["groups"]["A"],
            clock=clock,
            seed=seed,
            defaults=defaults,
        ) as h:
            # Computer players who take a seat play at the quick budget: what is checked
            # here does not depend on how deep they think (each decision is legal at any
            # budget: tests/engine/test_robot.py); the full one cost ~10 % more CPU here.
            h.service.robots.budget = FAST
            watch = PrivacyWatch(h).install()
            spy = ActSpy(h).install()
            for user in people["everyone"][1:]:  # Anna never pressed Start
                fake.user_starts_bot(user)
            await h.idle()
            driver = Driver(h, rng, clock, people)
            for batch in range(BATCHES):
                await driver.step()
                if batch % 40 == 39:
                    for table in list(h.service.registry.tables.values()):
                        if table.game is not None:
                            assert_replays(table.game)
            await driver.finish()
            await h.idle()
            tables = list(h.service.registry.tables.values())
            assert tables
            for table in tables:
                assert table.status in (Status.OVER, "cancelled", "expired"), table.status
                if table.status == Status.OVER:
                    assert table.game is not None and table.game.over
                if table.game is not None:
                    assert_replays(table.game)
            assert spy.violations == []
            chats = [c.id for c in driver.groups.values()] + [u.id for u in driver.everyone]
            chats += [c.migrated_from for c in driver.groups.values() if c.migrated_from]
            watch.check_transport(chats)
            assert watch.violations == []
            assert fake.unanswered_callbacks() == []
            done = (t("en", "ok.already"), t("ru", "ok.already"))  # a repeat of one's own press
            answers = fake.callback_answers
            refused = [
                (qid, why, answer)
                for qid, why in driver.must_refuse
                if not is_alert(answer := answers.get(qid, {})) and answer.get("text") not in done
            ]
            assert refused == []
            assert driver.updates > 400
            assert spy.accepted > 50
    assert errors.lines() == []


def _group_slot(h: Harness, table: Table) -> Slot | None:
    """The group's message of the table's current deal (its lobby before the game)."""
    return h.rt.store.get(table.id, "table", table.chat_id, table.deal_no)
