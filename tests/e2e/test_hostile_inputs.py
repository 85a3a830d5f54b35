"""Input limits: names and group titles with markup characters are escaped everywhere, very
long names are shortened, only the table's opener changes the settings and only seated
players start, outsiders cannot sit down by forged presses or deep links, a vote counts
once, and a button pressed two or three times acts once."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.core.codec import settings_json
from bot.core.model import TableSettings
from bot.core.modes import SheetMode
from bot.render.callbacks import encode, to_base36
from bot.render.text import NAME_WIDTH
from bot.telegram.scheduler import JobKind
from tests.bot_helpers import button, code_of, is_alert, open_and_start, quick_code, running_bot
from tests.fakes import FakeTelegram, FloodLimits, ManualClock
from tests.hostile_helpers import ErrorLog, PrivacyWatch

QUICK = TableSettings(pulka=2, turn_time=60, sheet=SheetMode.TEXT)
LONG = "Бесконечно" + "-Длинное" * 30 + " Имя"
NAMES = [("<b>Anna</b>", "&amp; <i>"), (LONG, None), ('Vera "<script>"', "</pre>&"), ("Gleb", None)]
TITLE = '<Club> & "Friends" </b>'


async def test_names_and_titles_with_markup_are_escaped_everywhere(tmp_path: Path) -> None:
    """Strict HTML (a raw ``<`` or ``&`` is refused by the fake as by the Bot API docs):
    every message of a whole game, its timeouts, seat take-over, stop vote, pulka and
    rules goes through, and shows the names as typed (shortened when long)."""
    fake = FakeTelegram(flood=FloodLimits(enabled=False))
    people = [
        fake.add_user(first, last, username=f"u{i}", started=False)
        for i, (first, last) in enumerate(NAMES)
    ]
    group = fake.add_group(TITLE, people)
    clock = ManualClock()
    with ErrorLog() as errors:
        async with running_bot(
            tmp_path, fake=fake, people=people, group=group, clock=clock, defaults=QUICK
        ) as h:
            for user in people:
                await h.start_bot(user)
            watch = PrivacyWatch(h).install()
            await open_and_start(h)
            table = h.table()
            # two timeouts in a row: the group hears the name, and Gleb takes the seat
            slow = h.actor()
            for _ in range(2):
                while h.actor() is not slow:
                    await h.act(quick_code)
                clock.advance(61)
                await h.rt.scheduler.on_timer(JobKind.TURN, table.id, table.move)
                await h.idle()
            take = fake.last_bot_message(group)
            assert take is not None and slow is not None and table.game is not None
            seat = table.seat_of(slow.id)
            assert not is_alert(await h.press(people[3], take, button(take, f"R{seat}")))
            for text in ("/pulka", "/rules", "/help", "/history", "/stats", "/top", "/export"):
                await h.say(people[0], text)
            await h.say(people[1], "/stop")
            for _ in range(300):
                if table.game.over:
                    break
                await h.act(quick_code)
            assert table.game.over
            await h.say(people[0], "/pulka")
            await h.idle()
            group_texts = [m.content for m in fake.bot_messages(group)]
            everything = group_texts + [m.content for u in people for m in h.fake.bot_messages(u)]
            assert any("<b>Anna</b>" in t for t in group_texts)  # shown as typed
            assert any('Vera "<script>"' in t for t in group_texts)
            assert any(
                TITLE in t for u in people for t in (m.content for m in h.fake.bot_messages(u))
            )
            assert not any(LONG in t for t in everything)  # always shortened
            assert any(LONG[: NAME_WIDTH - 1] + "…" in t for t in group_texts)
            assert all(len(t) <= 4096 for t in everything)
            failed = [c for c in fake.calls if c.status == 400]
            assert failed == [], [c.response for c in failed]
            assert watch.violations == []
            assert fake.unanswered_callbacks() == []
    assert errors.lines() == []


async def test_only_the_opener_changes_settings_and_only_seated_players_start(
    tmp_path: Path,
) -> None:
    fake = FakeTelegram(flood=FloodLimits(enabled=False))
    with ErrorLog() as errors:
        async with running_bot(tmp_path, fake=fake, users=5, defaults=QUICK) as h:
            anna, boris, vera, gleb, dasha = h.users
            stranger = fake.add_user("Stranger", started=True)
            await h.start_bot(stranger)
            await h.say(anna, "/newgame")
            table = h.table()
            lobby = fake.last_bot_message(h.group)
            assert lobby is not None
            settings = settings_json(table.settings)
            # not the opener: no settings panel, no setting changes, no cancel
            for code in ("Lo", "Lxp", "Lxc", "Lxu", "Lc"):
                answer = await h.press(boris, lobby, encode(table.id, 0, code), force=True)
                assert is_alert(answer), code
            assert settings_json(table.settings) == settings and table.status == "lobby"
            # the opener may; the panel's buttons are his
            answer = await h.press(anna, lobby, button(lobby, "Lo"))
            assert not is_alert(answer)
            lobby = fake.message(h.group.id, lobby.message_id)
            answer = await h.press(vera, lobby, button(lobby, "Lxp"))
            assert is_alert(answer) and table.settings.players == 3
            assert not is_alert(await h.press(anna, lobby, button(lobby, "Lxp")))
            assert table.settings.players == 4
            await h.press(anna, lobby, button(lobby, "Lb"))
            lobby = fake.message(h.group.id, lobby.message_id)
            # a stranger forges lobby buttons in his own chat: nothing
            mine = h.fake.bot_messages(stranger)[-1]
            for code in ("Ls", "Lg", "Lxp", "Lo"):
                answer = await h.press(stranger, mine, encode(table.id, 0, code), force=True)
                assert is_alert(answer), code
            # nor can he sit down through a deep link: he is not in the group
            await h.start_bot(stranger, f"s{to_base36(table.id)}")
            assert table.seat_of(stranger.id) is None
            assert "members of the group" in h.fake.bot_messages(stranger)[-1].content
            # a seated player forging "Ls" from his private chat for another table: nothing
            for user in (boris, vera, gleb, dasha):
                assert not is_alert(await h.press(user, lobby, button(lobby, "Ls")))
            assert table.full and table.seat_of(anna.id) is None
            # the opener is not seated: he cannot start; a member who is not seated neither
            assert is_alert(await h.press(anna, lobby, button(lobby, "Lg")))
            await h.press(dasha, lobby, button(lobby, "Lu"))
            assert is_alert(await h.press(dasha, lobby, button(lobby, "Lg")))
            assert table.status == "lobby"
            # a member sits down through the deep link (the one-tap path)
            await h.start_bot(dasha, f"s{to_base36(table.id)}")
            assert table.seat_of(dasha.id) is not None
            assert not is_alert(await h.press(boris, lobby, button(lobby, "Lg")))
            assert table.status == "playing"
            # nobody outside takes a seat that is not free, in any way
            await h.start_bot(stranger, f"r{to_base36(table.id)}_0")
            assert table.seat_of(stranger.id) is None
            assert fake.unanswered_callbacks() == []
    assert errors.lines() == []


async def test_a_vote_counts_once(tmp_path: Path) -> None:
    with ErrorLog() as errors:
        async with running_bot(tmp_path, users=4, defaults=QUICK) as h:
            anna, boris, vera, gleb = h.users
            await open_and_start(h, settings_presses=["Lo", "Lxp", "Lb"])
            table = h.table()
            await h.say(anna, "/stop")
            assert "(1 of 3)" in h.group_texts()[-1]
            vote = h.fake.last_bot_message(h.group)
            assert vote is not None
            await h.say(anna, "/stop")
            assert "already voted" in h.group_texts()[-1]
            answer = await h.press(anna, vote, button(vote, "V"))
            assert is_alert(answer) and "already voted" in answer["text"]
            assert table.stop_votes == {table.seat_of(anna.id)}
            await h.press(boris, vote, button(vote, "V"))
            vote = h.fake.message(h.group.id, vote.message_id)  # the same message, edited
            assert "Anna, Boris (2 of 3)" in vote.content and table.status == "playing"
            answer = await h.press(boris, vote, button(vote, "V"))
            assert is_alert(answer) and table.status == "playing"
            await h.act(quick_code)  # the game goes on meanwhile
            await h.say(vera, "/stop")
            assert table.status == "over" and h.game().stopped
    assert errors.lines() == []


async def test_double_and_triple_presses_act_once(tmp_path: Path) -> None:
    with ErrorLog() as errors:
        async with running_bot(tmp_path, defaults=QUICK) as h:
            await open_and_start(h)
            table = h.table()
            for _ in range(12):
                actor = h.actor()
                assert actor is not None
                msg = h.hand(actor)
                data = next(d for _, d in msg.buttons if d and code_of(d)[0] in "btkcwdp")
                move, log, deal_no = table.move, len(h.deal().log), table.deal_no
                qids = [h.fake.press(actor, msg, data) for _ in range(3)]
                # and another seated player presses the same button in his own chat
                other = next(u for u in h.users if u is not actor)
                qids.append(h.fake.press(other, h.hand(other), data, force=True))
                await h.idle()
                await asyncio.sleep(0)
                if code_of(data)[0] not in "tu":
                    assert table.move == move + 1
                    # one move of the first deal (12 moves do not end it)
                    assert (table.deal_no, len(h.deal().log)) == (deal_no, log + 1)
                answers = [h.fake.callback_answers[q] for q in qids]
                assert is_alert(answers[-1])
                assert answers[-1]["text"] == "This message is out of date."
                # one of his three presses acted, the other two were told so (in any order)
                assert not any(is_alert(a) for a in answers[:3])
                texts = sorted(a.get("text") or "" for a in answers[:3])
                assert texts == ["", "✓ Already done.", "✓ Already done."]
            assert h.fake.unanswered_callbacks() == []
    assert errors.lines() == []
