"""Turn notifications through the fake Bot API: who is pinged, when the ping goes away, the
per-player setting, and what it costs in requests per deal."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from bot.core.forced import forced_move
from bot.core.model import Player, TableSettings
from bot.core.modes import NotifyMode
from bot.render.text import title_of
from bot.telegram.personal import settings_text
from bot.telegram.scheduler import JobKind
from tests.bot_helpers import (
    Harness,
    open_and_start,
    running_bot,
    simple_policy,
    take_turn,
)
from tests.fakes import ManualClock

NO_TIMER = TableSettings(turn_time=0, pulka=10)
POLICY = simple_policy({1: ["b6S"]}, whist="wW")


def _pings(h: Harness) -> list[tuple[int, int, bool]]:
    """(chat, message id, deleted) of every turn notification sent."""
    out = []
    for call in h.fake.calls_to("sendMessage"):
        text = str(call.params.get("text", ""))
        if "Your turn" in text and call.response is not None:
            mid = int(call.response["result"]["message_id"])
            chat = int(call.params["chat_id"])
            out.append((chat, mid, h.fake.message(chat, mid).deleted))
    return out


async def _play_one_deal(h: Harness, clock: ManualClock, pause: float) -> Counter[str]:
    """Play the current deal with ``pause`` seconds of thought before every move; the Bot
    API requests it took, by method."""
    before = len(h.fake.calls)
    deal_no = h.table().deal_no
    for _ in range(200):
        table = h.table()
        if table.game is None or table.deal_no != deal_no:
            break
        clock.advance(pause)
        user, _ = await take_turn(h, POLICY)
        nxt = h.actor()
        if nxt is not None and nxt is not user and h.table().deal_no == deal_no:
            live = [(c, m) for c, m, deleted in _pings(h) if not deleted]
            assert all(c == nxt.id for c, _ in live), "a stale notification was left"
    await h.idle()
    return Counter(c.method for c in h.fake.calls[before:])


async def test_a_slow_turn_brings_one_notification_that_goes_once_he_moved(
    tmp_path: Path,
) -> None:
    clock = ManualClock()
    async with running_bot(tmp_path, clock=clock, defaults=NO_TIMER) as h:
        await open_and_start(h)
        await _play_one_deal(h, clock, pause=30)
        pings = _pings(h)
        assert len(pings) > 5  # every turn after a slow move of someone else
        # at most the current actor's notification is still there
        assert sum(not deleted for _, _, deleted in pings) <= 1


async def test_an_active_player_is_not_pinged_and_never_means_never(tmp_path: Path) -> None:
    clock = ManualClock()
    async with running_bot(tmp_path, clock=clock, defaults=NO_TIMER) as h:
        await open_and_start(h)
        # everyone has acted, or was dealt his ringing hand, within moments: no ping
        await _play_one_deal(h, clock, pause=2)
        assert _pings(h) == []
        # Boris chooses "never" in private
        boris = h.users[1]
        await h.say(boris, "/settings", chat=boris)
        menu = h.fake.last_bot_message(boris)
        assert menu is not None and "Turn notifications" in menu.content
        data = next(d for label, d in menu.buttons if d and label.endswith("never"))
        answer = await h.press(boris, menu, data)
        assert answer.get("text") == "Saved."
        menu = h.fake.message(menu.chat_id, menu.message_id)
        assert any(label == "✅ never" for label, _ in menu.buttons)
        assert await h.service.registry.notify_mode(boris.id) == "never"
        start = len(_pings(h))
        await _play_one_deal(h, clock, pause=30)
        chats = {c for c, _, _ in _pings(h)[start:]}
        assert chats and boris.id not in chats


@pytest.mark.slow
async def test_requests_per_deal_before_and_after(tmp_path: Path) -> None:
    """Prints the Bot API requests of one deal: without notifications (as before), with
    slow players (each pinged) and with players acting quickly (nobody pinged)."""
    figures = {}
    runs = (
        ("before", 30.0, NotifyMode.NEVER),
        ("slow", 30.0, NotifyMode.ALWAYS),
        ("fast", 2.0, NotifyMode.ALWAYS),
    )
    for label, pause, mode in runs:
        clock = ManualClock()
        (tmp_path / label).mkdir()
        async with running_bot(tmp_path / label, clock=clock, defaults=NO_TIMER) as h:
            await open_and_start(h)
            for user in h.users:
                await h.service.registry.set_notify_mode(
                    Player(user.id, user.first_name, "en"), mode
                )
            counts = await _play_one_deal(h, clock, pause)
            figures[label] = counts
    sent = {k: sum(n for m, n in v.items() if m != "getUpdates") for k, v in figures.items()}
    presses = {k: v["answerCallbackQuery"] for k, v in figures.items()}
    pings = {k: v["deleteMessage"] for k, v in figures.items()}
    print("\nrequests per deal:", {k: dict(v) for k, v in figures.items()})
    print("sent (no getUpdates):", sent, "presses:", presses)
    # a notification costs a sendMessage and, once he moved, a deleteMessage
    assert pings["before"] == 0 and figures["before"]["sendMessage"] <= 4
    assert 0 < pings["slow"] <= presses["slow"]
    assert figures["slow"]["sendMessage"] - pings["slow"] <= 4
    assert pings["fast"] == 0  # everyone acted, or was dealt his hand, moments ago


async def test_pulka_in_private_shows_the_players_running_table(tmp_path: Path) -> None:
    clock = ManualClock()
    async with running_bot(tmp_path, clock=clock, defaults=NO_TIMER) as h:
        anna = h.users[0]
        await h.say(anna, "/pulka", chat=anna)
        reply = h.fake.last_bot_message(anna)
        assert reply is not None and "no running or finished game" in reply.content
        await open_and_start(h)
        await _play_one_deal(h, clock, pause=2)
        await h.say(anna, "/pulka", chat=anna)
        reply = h.fake.last_bot_message(anna)
        assert reply is not None
        assert "Pulka" in reply.content and all(u.first_name in reply.content for u in h.users)
        assert "deals: 1" in reply.content


async def test_each_hand_message_reviews_the_finished_deal(tmp_path: Path) -> None:
    clock = ManualClock()
    async with running_bot(tmp_path, clock=clock, defaults=NO_TIMER) as h:
        await open_and_start(h)
        hands = {u.id: h.hand_message(u) for u in h.users}
        await _play_one_deal(h, clock, pause=2)
        for user in h.users:
            old = hands[user.id]
            assert old is not None
            done = h.fake.message(user, old.message_id)
            assert "The deal in full" in done.content and "Talon:" in done.content
            assert all(u.first_name in done.content for u in h.users) and not done.buttons


async def test_a_forced_card_that_plays_itself_brings_no_ping(tmp_path: Path) -> None:
    """The turn passes, after a slow move, to a player whose only card will play itself
    (his setting on): his phone does not ring for a move he need not make."""
    clock = ManualClock()
    async with running_bot(tmp_path, clock=clock, defaults=NO_TIMER, forced_pause=600) as h:
        await open_and_start(h)
        for _ in range(300):
            table = h.table()
            nxt = h.actor()
            if nxt is not None and forced_move(table) is not None:
                break
            clock.advance(30)
            await take_turn(h, POLICY)
            await h.idle()
        else:
            pytest.fail("no forced card came up")
        pinged = {chat for chat, _, _ in _pings(h)}
        assert len(pinged) >= 2  # slow turns do ring (the check below can fail)
        last = h.fake.calls_to("sendMessage")[-1]
        assert not (
            "Your turn" in str(last.params.get("text")) and last.params["chat_id"] == nxt.id
        )


async def test_a_player_away_hears_one_sound_a_turn(tmp_path: Path) -> None:
    """He is called to his turn; the reminder before his time runs out edits that message
    (an edit rings nothing) instead of sending a second one."""
    clock = ManualClock()
    async with running_bot(tmp_path, clock=clock, defaults=TableSettings(pulka=10)) as h:
        await open_and_start(h)
        table = h.table()
        clock.advance(30)
        await take_turn(h, POLICY)
        away = h.actor()
        assert away is not None

        def sounds() -> list[str]:
            return [
                str(c.params.get("text"))
                for c in h.fake.calls_to("sendMessage")
                if int(c.params["chat_id"]) == away.id and "our turn" in str(c.params.get("text"))
            ]

        assert sounds() == [f"🔔 Your turn · {title_of(table)}, deal 1"]
        [(_, mid, _)] = [p for p in _pings(h) if p[0] == away.id]
        assert table.deadline is not None
        clock.now = table.deadline - 15
        await h.rt.scheduler.on_timer(JobKind.REMIND, table.id, table.move)
        await h.idle()
        assert len(sounds()) == 1  # no second message: the first one says it now
        ping = h.fake.message(away.id, mid)
        assert ping.content == f"⏰ {away.first_name}, your turn: 15 s left."


async def test_settings_name_the_notifications_for_what_they_do(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        anna = h.users[0]
        await h.say(anna, "/settings", chat=anna)
        menu = h.fake.last_bot_message(anna)
        assert menu is not None
        assert menu.content.startswith(
            "🔔 Turn notifications: when I am away\nA message with sound, at most one a turn:\n"
            "• when I am away: the turn reaches you after 30 s without a press of yours (a new "
            "deal's cards come with a sound of their own), or your time is running out;\n"
        )
        assert [label for label, _ in menu.buttons][:3] == [
            "✅ when I am away",
            "only when I am slow",
            "never",
        ]
    assert settings_text("ru", NotifyMode.ALWAYS).startswith(
        "🔔 <b>Уведомления о ходе</b>: когда я не смотрю\n"
        "Сообщение со звуком — не больше одного за ход:\n"
        "• <i>когда я не смотрю</i> — ход за вами, а вы ничего не нажимали дольше 30 с "
        "(карты новой сдачи приходят со звуком сами), или время хода на исходе;\n"
    )


async def test_no_ping_soon_after_the_new_hand_rang_nor_within_30_s_of_his_press(
    tmp_path: Path,
) -> None:
    """The new deal's hand message rings: a turn within 30 s of it needs no notification,
    as a turn within 30 s of the player's own press does not (he waits for the others)."""
    clock = ManualClock()
    async with running_bot(tmp_path, clock=clock, defaults=NO_TIMER) as h:
        await open_and_start(h)
        dealt = clock()
        first = h.actor()
        clock.advance(25)
        await take_turn(h, POLICY)  # the second bidder was dealt 25 s ago, never pressed
        assert _pings(h) == []
        clock.advance(25)
        await take_turn(h, POLICY)  # the third: dealt 50 s ago
        third = h.actor()
        assert third is not None and third is not first
        assert [c for c, _, _ in _pings(h)] == [third.id]
        # the rest of the deal at 11 s a move: a turn comes back 22 s after a press
        pressed = {first.id: dealt + 25} if first is not None else {}
        pressed[h.users[0].id if h.users[0] not in (first, third) else h.users[1].id] = dealt
        back_soon = 0
        deal_no = h.table().deal_no
        while h.table().deal_no == deal_no:
            clock.advance(11)
            seen = len(_pings(h))
            user, _ = await take_turn(h, POLICY)
            pressed[user.id] = clock()
            nxt = h.actor()
            for chat, _, _ in _pings(h)[seen:]:  # a ping only after 30 s without a press
                assert clock() - pressed.get(chat, dealt) >= 30
            if nxt is not None and nxt is not user and h.table().deal_no == deal_no:
                idle = clock() - pressed.get(nxt.id, dealt)
                back_soon += 20 <= idle < 30  # pinged at the old 20 s
        assert back_soon > 0
