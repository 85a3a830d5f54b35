"""End-to-end: the real Application polls a fake Bot API HTTP server on 127.0.0.1 while
the test plays a group and its users; we check what each chat actually showed."""

from __future__ import annotations

import asyncio
import logging
import re
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bot.core.model import TableSettings
from bot.core.modes import SheetMode
from bot.preferans.actions import Declare, Discard, Play
from bot.preferans.cards import Card
from bot.preferans.deal import Deal
from bot.telegram.shown import Slot
from tests.bot_helpers import (
    Harness,
    bot_env,
    button,
    cards_in,
    flood_waits,
    open_and_start,
    play_deal,
    running_bot,
    simple_policy,
    start_bot_process,
    waits_after_429,
)
from tests.fakes import FakeBotApiServer, FakeTelegram, FloodLimits, MessageView

_DEAL = re.compile(r"(?:Deal|Сдача) (\d+)\b")


def _public_cards(deal: Deal) -> set[Card]:
    shown = {a.card for a in deal.log if isinstance(a, Play)}
    shown |= set(deal.talon_shown)
    for seat in deal.open_hands:
        shown |= set(deal.initial_hand(seat))
    return shown


def _deals(h: Harness) -> dict[int, Deal]:
    game = h.table().game
    assert game is not None
    out = {i + 1: fd.deal for i, fd in enumerate(game.finished_deals) if fd.deal is not None}
    extra = game.current or game.abandoned
    if extra is not None:
        out[len(game.finished_deals) + 1] = extra
    return out


def _versions(m: MessageView | None) -> list[tuple[str, list[Any]]]:
    assert m is not None
    out = [(v.get("text") or "", v.get("reply_markup") or []) for v in m.history]
    out.append((m.content, m.reply_markup or []))
    return out


def assert_no_leaks(h: Harness) -> None:
    """No card of a hand ever shown in the group or another player's chat unless the rules
    opened it (played cards, the shown talon, open hands)."""
    deals = _deals(h)
    table = h.table()
    for m in h.fake.bot_messages(h.group):
        for text, markup in _versions(m):
            found = _DEAL.search(text.splitlines()[0] if text else "")
            allowed = _public_cards(deals[int(found.group(1))]) if found else set()
            assert cards_in(text) <= allowed, f"group leak in {text!r}"
            assert not any(cards_in(b[0]) for row in markup for b in row), "cards in group buttons"
    for user in h.users:
        seat = table.seat_of(user.id)
        for m in h.fake.bot_messages(user):
            for text, markup in _versions(m):
                found = _DEAL.search(text.splitlines()[0] if text else "")
                if not found or seat is None:
                    assert cards_in(text) == set(), f"cards outside a deal: {text!r}"
                    continue
                deal = deals[int(found.group(1))]
                if "The deal in full" in text and deal.is_over:
                    continue  # privacy covers live deals: a finished one is shown in full
                allowed = _public_cards(deal) | set(deal.initial_hand(seat))
                if deal.declarer == seat:
                    allowed |= set(deal.talon)
                assert cards_in(text) <= allowed, f"{user.first_name} sees {text!r}"
                for row in markup:
                    for label, _ in row:
                        assert cards_in(label) <= allowed, (label, text, deal.to_json())


@pytest.mark.slow
async def test_three_player_game_to_the_final_settlement(tmp_path: Path) -> None:
    settings = TableSettings(pulka=2, turn_time=60, sheet=SheetMode.TEXT)  # the monospace sheet
    async with running_bot(tmp_path, http=True, defaults=settings) as h:
        await open_and_start(h)
        first = h.deal().first_hand
        # deal 1: all-pass, played to the last trick
        log = await play_deal(h, simple_policy())
        assert [c for _, c in log[:3]] == ["bP", "bP", "bP"] and len(log) == 33
        # the result, then the next deal's table (queued by the same press, in that order)
        *_, result, table_message = h.group_texts()
        assert result.startswith("Deal 1: all-pass, tricks: ")
        assert table_message.startswith("🃏 Deal 2 · ")
        # deal 2: 6♠, the first defender passes, the second half-whists, it stands
        first = h.deal().first_hand
        await play_deal(h, simple_policy({int(first): ["b6S"]}, contract="c6S", whist="wH,wP"))
        results = [t for t in h.group_texts() if t.startswith("Deal 2:")]
        assert results and "half-whist" in results[0]
        # then 6♠ by each first hand, both defenders pass, until every pulka is closed
        for _ in range(8):
            if h.game().over:
                break
            first = h.deal().first_hand
            await play_deal(h, simple_policy({int(first): ["b6S"]}, contract="c6S"))
        game = h.game()
        assert game.finished and h.table().status == "over"
        texts = h.group_texts()
        assert "Game over" in texts[-1]
        settlement = game.settlement()
        assert settlement is not None
        order = sorted(range(3), key=lambda i: (-settlement[i], i))
        lines = texts[-1].splitlines()[1:]
        assert [ln.split(" ", 1)[1].split(":")[0] for ln in lines] == [game.names[i] for i in order]
        assert "<pre>" not in texts[-2] and "Player" in texts[-2]  # the monospace pulka
        pulka_msg = h.fake.bot_messages(h.group)[-2]
        assert any(e["type"] == "pre" for e in pulka_msg.entities)
        assert_no_leaks(h)
        assert h.fake.unanswered_callbacks() == []
        # every private chat got every deal without opening the group
        for user in h.users:
            assert sum(
                1
                for m in h.fake.bot_messages(user)
                if _DEAL.match(m.content.split("\n")[0] or "") or "Deal" in m.content.split("\n")[0]
            ) == len(game.finished_deals)


@pytest.mark.slow
async def test_four_player_game_misere_open_defence_and_stop(tmp_path: Path) -> None:
    async with running_bot(tmp_path, http=True, users=4, lang="en") as h:
        await open_and_start(h, settings_presses=["Lo", "Lxp", "Lb"])
        assert h.game().players == 4
        # deal 1: all-pass with four: the dealer sits out, the talon leads tricks 1-2
        dealer_user = h.user_of_seat(int(h.deal().dealer))
        assert "sit this deal out" in h.hand(dealer_user).content
        await play_deal(h, simple_policy())
        assert "all-pass" in [t for t in h.group_texts() if t.startswith("Deal 1:")][0]
        # deal 2: misère by the first hand; the defenders' hands are opened to everybody
        first = int(h.deal().first_hand)
        misere_deal = h.deal()
        await play_deal(h, simple_policy({first: ["bM"]}))
        assert misere_deal.open_hands, "misère defenders lie open"
        assert any(t.startswith("Deal 2:") and "misère" in t for t in h.group_texts())
        # deal 3: 6♠, a lone whister plays open and moves the passer's cards
        deal = h.deal()
        first = int(deal.first_hand)
        second, third = (int(s) for s in deal.active[1:])
        presses = []
        policy = simple_policy(
            {first: ["b6S"]},
            contract="c6S",
            defence="dO",
            **{f"whist{second}": "wW", f"whist{third}": "wP"},
        )

        def recording(now: Deal, codes: list[str]) -> str:
            code = policy(now, codes)
            presses.append((now.actor, code, codes))
            return code

        await play_deal(h, recording)
        assert deal.defence is not None and deal.defence.value == "open"
        whister = deal.whisters[0]
        passer = deal.open_passer
        assert passer is not None
        # the whister played the passer's cards from his own chat
        passer_cards = set(deal.initial_hand(passer))
        assert any(
            s == int(whister)
            and code.startswith("p")
            and any(c.code == code[1:] for c in passer_cards)
            for s, code, _ in presses
        )
        tm_texts = [t for t in h.group_texts() if t.startswith("🃏 Deal 3")]
        assert tm_texts and "Defence: open" in tm_texts[0]
        # stop by vote: three of four
        for user in h.users[:3]:
            await h.say(user, "/stop")
        assert "Game stopped" in h.group_texts()[-1]
        assert h.table().status == "over"
        assert_no_leaks(h)
        assert h.fake.unanswered_callbacks() == []


@pytest.mark.waits
async def test_turn_timer_acts_for_a_slow_declarer(tmp_path: Path) -> None:
    # The bids have a minute: with 1 s a busy machine could let the first hand's timer
    # pass for him before his press came. The declarer's turns have 1 s (set before the
    # last pass: a deadline is set by the change that gives the turn).
    settings = TableSettings(turn_time=60)
    async with running_bot(tmp_path, http=True, defaults=settings) as h:
        await open_and_start(h)
        deal = h.deal()
        first = h.user_of_seat(int(deal.first_hand))
        msg = h.hand(first)
        await h.press(first, msg, button(msg, "b6S"))
        for i in range(2):
            user = h.actor()
            assert user is not None
            msg = h.hand(user)
            if i == 1:
                h.table().settings.turn_time = 1
            await h.press(user, msg, button(msg, "bP"))
        # the declarer does nothing: after ~1 s he discards his two lowest, then names 6♠
        # (the timeouts only bound a hang: the timer acts when the busy machine lets it)
        await h.fake.wait_until(lambda: deal.contract is not None, timeout=60, what="contract")
        discard = next(a for a in deal.log if isinstance(a, Discard))
        assert deal.declarer is not None
        hand12 = set(deal.initial_hand(deal.declarer)) | set(deal.talon)
        lowest = sorted(hand12, key=lambda c: (c.rank, c.suit))[:2]
        assert sorted(discard.cards) == sorted(lowest)
        assert next(a for a in deal.log if isinstance(a, Declare)).contract.code == "6S"
        await h.idle()

        await h.fake.wait_until(
            lambda: "Time is up" in h.hand(first).content, timeout=60, what="private note"
        )
        await h.fake.wait_until(
            lambda: (m := h.table_message()) is not None and "ran out of time" in m.content,
            timeout=60,
            what="group note",
        )
        # the group is told a discard happened, not which cards
        assert any("discard 🂠 🂠" in text for text, _ in _versions(h.table_message()))
        for user in h.users[:2]:
            await h.say(user, "/stop")
        assert "Game stopped" in h.group_texts()[-1]
        assert_no_leaks(h)


@pytest.mark.waits
async def test_group_edits_are_coalesced_within_telegram_limits(tmp_path: Path) -> None:
    """Telegram's limits (scaled: 20 per 6 s in a group instead of per minute, 1 per second in
    a private chat): 40 quick updates of one group message never hit flood control, the
    message ends on the latest text, "not modified" is harmless."""
    fake = FakeTelegram(flood=FloodLimits(group_window=6.0))
    async with running_bot(
        tmp_path,
        http=True,
        fake=fake,
        private_interval=1.0,
        outbox_options={"group_limit": 20, "group_window": 6.0, "group_fast_interval": 0.05},
        overall_rate=30,  # Telegram's limits on both sides, as in production
    ) as h:
        outbox = h.rt.outbox
        slot = Slot(0, "table", h.group.id, 0)
        for i in range(40):
            outbox.show(slot, f"state {i}")
            await asyncio.sleep(0.05)
        await outbox.drain(15)
        assert slot.message_id is not None
        msg = fake.message(h.group.id, slot.message_id)
        assert msg.content == "state 39"
        assert 3 <= msg.edit_count < 39  # coalesced
        assert fake.flood_errors == []
        outbox._shown.clear()  # forget what was shown: the edit gets "not modified"
        slot.shown = None
        outbox.show(slot, "state 39")
        await outbox.drain(15)
        assert any(
            not c.ok and "not modified" in str(c.response) for c in fake.calls_to("editMessageText")
        )
        user = h.users[0]
        for i in range(3):
            outbox.post(user.id, f"note {i}")
        await outbox.drain(15)
        times = [
            c.time
            for c in fake.calls_to("sendMessage")
            if str(c.params.get("chat_id")) == str(user.id)
        ][-3:]
        assert all(b - a >= 0.95 for a, b in zip(times, times[1:], strict=False))
        assert fake.flood_errors == []


async def test_retry_after_is_waited_out(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "bot.telegram.pacing")
    async with running_bot(tmp_path, http=True) as h:
        h.fake.fail_next("sendMessage", times=1, error=(429, 0.2))  # (time scaled down)
        await h.say(h.users[0], "/newgame")
        await h.fake.wait_until(lambda: "New pulka" in "".join(h.group_texts()), timeout=10)
        assert h.fake.flood_errors
        [(wait, waited)] = waits_after_429(h.fake)
        assert waited >= wait
        assert flood_waits(caplog) == 1


def test_python_m_bot_runs_against_a_bot_api_server(tmp_path: Path) -> None:
    """``python -m bot`` with TELEGRAM_API_URL: registers commands, answers /newgame, logs
    no token, stops cleanly on SIGINT."""
    fake = FakeTelegram()
    user = fake.add_user("Anna", started=True)
    group = fake.add_group("Club", [user])
    server = FakeBotApiServer(fake)
    server.start_in_thread()
    proc = start_bot_process(bot_env(fake, server, tmp_path), tmp_path)
    try:
        fake.wait_until_sync(lambda: fake.commands(language_code="ru"), timeout=30, what="commands")
        fake.send_text(user, group, "/newgame")
        fake.wait_until_sync(
            lambda: any("New pulka" in m.content for m in fake.bot_messages(group)),
            timeout=20,
            what="lobby",
        )
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        server.stop()
    assert proc.returncode == 0, err
    secret = fake.token.split(":")[1]
    assert secret not in err and secret not in out
    assert "resumed" in err
