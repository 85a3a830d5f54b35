"""Chats Telegram refuses to write to: a player who blocked the bot gets nothing more until
he writes to it again, and a group that withdrew the bot's rights keeps its results and
sheets due, with one WARNING and no traceback."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.core.model import TableSettings
from bot.preferans.seats import Seat
from tests.bot_helpers import (
    Harness,
    open_and_start,
    play_deal,
    running_bot,
    simple_policy,
    take_turn,
)
from tests.hostile_helpers import ErrorLog

PRIVATE = ("sendMessage", "editMessageText", "editMessageReplyMarkup", "sendPhoto")


async def test_a_player_who_blocked_the_bot_gets_nothing_until_he_writes_again(
    tmp_path: Path,
) -> None:
    """Four players: the dealer sits the deal out, so the other three play it through while
    his chat refuses every message (the bot learns it only from the refusals)."""
    async with running_bot(tmp_path, users=4, defaults=TableSettings(players=4)) as h:
        await open_and_start(h)
        await h.idle()
        table = h.table()
        assert table.game is not None and table.game.current is not None
        dealer = h.user_of_seat(int(table.game.current.dealer))

        def to_dealer() -> list[str]:
            return [
                c.method
                for c in h.fake.calls
                if c.method in PRIVATE and c.params.get("chat_id") == dealer.id
            ]

        before = len(to_dealer())
        blocked = (403, "Forbidden: bot was blocked by the user")
        h.fake.fail_when(lambda method, params: params.get("chat_id") == dealer.id, blocked)
        with ErrorLog() as errors:
            await play_deal(h, simple_policy())
            await h.idle()
        tried = to_dealer()[before:]
        assert len(tried) == 1, tried  # the first refusal, then nothing more
        told = [t for t in h.group_texts() if dealer.first_name in t and "blocked" in t]
        assert len(told) == 1  # the group is told once
        assert not errors.lines(), errors.lines()
        h.fake.clear_failures()
        await h.start_bot(dealer)  # he writes to the bot again
        await h.idle()
        assert len(to_dealer()) > before + 1
        assert h.hand_message(dealer) is not None


def _last_card(h: Harness) -> bool:
    """Whether the next press plays the deal's last card."""
    game = h.table().game
    deal = game.current if game is not None else None
    if deal is None:
        return False
    return sum(len(deal.hand(Seat(s))) for s in range(deal.players)) == 1


@pytest.mark.parametrize(
    ("refusal", "told"),
    [
        (
            "Bad Request: not enough rights to send text messages to the chat",
            "Not enough rights to send text messages to the chat",
        ),
        ("Bad Request: CHAT_WRITE_FORBIDDEN", "Chat_write_forbidden"),
    ],
)
async def test_a_group_without_rights_keeps_its_results_until_it_may_write(
    tmp_path: Path, refusal: str, told: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The rights are withdrawn before the deal's last card: the result and the sheet are
    refused, kept, and written once the group lets the bot write again."""
    scaled = {"group_limit": 100_000, "group_fast_interval": 0.0, "retry_base": 0.01}
    async with running_bot(tmp_path, outbox_options={**scaled, "retry_cap": 0.05}) as h:
        await open_and_start(h)
        await h.idle()
        policy = simple_policy()
        while not _last_card(h):
            await take_turn(h, policy)
        group = h.group.id
        h.fake.fail_when(lambda method, params: params.get("chat_id") == group, (400, refusal))
        caplog.set_level(logging.INFO)
        caplog.clear()
        texts = len(h.group_texts())
        user = h.actor()
        assert user is not None
        hand = h.hand_message(user)
        assert hand is not None
        h.fake.press(user, hand, next(d for _, d in hand.buttons if d))

        def refused() -> int:
            return sum(1 for c in h.fake.calls if c.params.get("chat_id") == group and not c.ok)

        await h.fake.wait_until(lambda: refused() >= 6, timeout=30, what="refusals")
        assert len(h.group_texts()) == texts  # nothing could be written
        h.fake.clear_failures()
        await h.idle()
        shown = h.group_texts()[texts:]
        kept = h.rt.store.get(h.table().id, "sheet", group, 0)
        sheet = kept.message_id if kept is not None else None
        assert sheet is not None and h.fake.message(group, sheet) is not None, shown
        loud = [(r.levelname, r.getMessage(), r.exc_info) for r in caplog.records]
        assert [entry for entry in loud if entry[0] not in ("INFO", "DEBUG")] == [
            (
                "WARNING",
                f"chat {group}: the bot may not write there ({told}); "
                "its messages wait until it may",
                None,
            )
        ]
