"""``/start`` in the private chat during a game: a plain one brings the player's hand
message down to the bottom of the chat unless it is there already; the group's «🃏 Стол»
link answers with the Mini App's button and sends no hand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.core.model import TableSettings
from bot.render.i18n import t
from bot.telegram.bottom import ChatEnds
from tests.bot_helpers import Harness, open_and_start, running_bot

NO_TIMER = TableSettings(turn_time=0)  # the hand shows no time left: the same text each time


def _requests(h: Harness, since: int) -> list[tuple[str, Any, Any]]:
    """The Bot API requests made since call number ``since`` (polling aside), as (method,
    chat, message edited)."""
    return [
        (c.method, c.params.get("chat_id"), c.params.get("message_id"))
        for c in h.fake.calls[since:]
        if c.method != "getUpdates"
    ]


async def test_the_groups_table_link_answers_with_the_button_and_sends_no_hand(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path, webapp=True, defaults=NO_TIMER) as h:
        await open_and_start(h)
        table = h.table()
        anna = h.users[0]
        hand = h.hand(anna)
        since = len(h.fake.calls)
        await h.start_bot(anna, f"table_{table.id}")
        assert _requests(h, since) == [("sendMessage", anna.id, None)]
        answer = h.fake.last_bot_message(anna.id)
        assert answer is not None
        assert answer.content == "🃏 Your table in «Preferans club»: open it with the button below."
        assert h.hand(anna).message_id == hand.message_id  # his hand stays where it is


async def test_a_plain_start_brings_the_hand_down_unless_it_is_at_the_bottom(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path, defaults=NO_TIMER) as h:
        await open_and_start(h)
        anna = h.users[0]
        old = h.hand(anna)
        await h.say(anna, "/settings", chat=anna)  # its menu comes below the hand
        since = len(h.fake.calls)
        await h.start_bot(anna)
        new = h.hand(anna)  # sent anew at the bottom, and no greeting: his hand answers
        assert _requests(h, since) == [("sendMessage", anna.id, None)]
        assert new.message_id > old.message_id and new.content == old.content
        assert h.fake.last_bot_message(anna.id) == new
        # again: the hand is the last message, so it is not sent again, only edited as it
        # is (one request, no sound: "not modified") to find out whether he deleted it
        since = len(h.fake.calls)
        await h.start_bot(anna)
        assert _requests(h, since) == [("editMessageText", anna.id, new.message_id)]
        assert h.hand(anna).message_id == new.message_id
        assert h.fake.last_bot_message(anna.id) == new
        # what he writes buries it: sent anew
        h.fake.send_text(anna, anna.id, "where are my cards?")
        since = len(h.fake.calls)
        await h.start_bot(anna)
        assert _requests(h, since) == [("sendMessage", anna.id, None)]
        latest = h.hand(anna)
        assert latest.message_id > new.message_id
        # he deleted it (Telegram does not say): the edit finds it gone, it is sent anew
        h.fake.user_deletes(anna, latest.message_id)
        since = len(h.fake.calls)
        await h.start_bot(anna)
        assert _requests(h, since) == [
            ("editMessageText", anna.id, latest.message_id),
            ("sendMessage", anna.id, None),
        ]
        assert h.hand(anna).message_id > latest.message_id
        greeting = t("en", "start.private")  # only the first, before the game
        assert [m.content for m in h.fake.bot_messages(anna.id)].count(greeting) == 1


async def test_a_plain_start_with_no_game_in_play_greets(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        anna = h.users[0]
        since = len(h.fake.calls)
        await h.start_bot(anna)
        assert _requests(h, since) == [("sendMessage", anna.id, None)]
        greeting = h.fake.last_bot_message(anna.id)
        assert greeting is not None and greeting.content == t("en", "start.private")


def test_the_bottom_of_a_chat_is_what_the_bot_sent_last_and_nobody_wrote_under() -> None:
    ends = ChatEnds()
    for message_id in (10, 12, 15, 17):  # 15 and 17: two tables' hands
        ends.sent(7, message_id)
    assert ends.at_bottom(7, {15, 17}) == {15, 17}
    assert ends.at_bottom(7, {12, 17}) == {17}  # 15 lies between
    assert ends.at_bottom(8, {15, 17}) == set()  # another chat: nothing known
    ends.sent(7, 20)  # a turn notification under them...
    assert ends.at_bottom(7, {15, 17}) == set()
    ends.deleted(7, 20)  # ...deleted once somebody moved: it hides nothing
    assert ends.at_bottom(7, {15, 17}) == {15, 17}
    ends.heard(7, 16)  # he wrote between the two hands
    assert ends.at_bottom(7, {15, 17}) == {17}
    ends.sent(-5, 3)  # a group's messages only count as its newest
    assert (ends.newest(-5), ends.newest(7), ends.at_bottom(-5, {3})) == (3, 20, set())
