"""What a player on the Mini App costs in Bot API requests against one in the chat."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bot_helpers import Harness, open_and_start, running_bot, simple_policy, take_turn
from tests.fakes import FakeUser

from .helpers import Frame, Socket, opened
from .play import choice

DEALS = 3


def requests_to(h: Harness, user: FakeUser, since: int) -> int:
    """Bot API requests since call ``since`` addressed to ``user``: his chat's messages
    (sent, edited, deleted) and the answers to his presses."""
    presses = {q.id for q in h.fake.callback_queries if q.user_id == user.id}
    count = 0
    for call in h.fake.calls[since:]:
        if call.method == "answerCallbackQuery":
            count += call.params.get("callback_query_id") in presses
        elif call.method != "getUpdates" and call.params.get("chat_id") == user.id:
            count += 1
    return count


async def _web_turn(h: Harness, socket: Socket, last: Frame) -> Frame:
    """The socket's player makes his move; the state after it."""
    table = h.table()
    while not (last["move"] == table.move and choice(last) is not None):
        last = await socket.state()
    pressed = choice(last)
    assert pressed is not None
    await socket.press(pressed)
    last = await socket.until(lambda f: f["t"] in ("state", "toast"))
    assert last["t"] == "state", last
    await h.idle()  # what the move changed in the chat went out
    return last


@pytest.mark.slow
async def test_a_mini_app_player_costs_a_third_of_a_chat_player(tmp_path: Path) -> None:
    async with running_bot(tmp_path, webapp=True, seed=5) as h:
        await open_and_start(h)
        anna, boris, vera = h.users
        table = h.table()
        policy = simple_policy({1: ["b6S", "b7S"], 2: ["b6C"]}, contract="c7S", whist="wW")
        async with opened(h, anna, table.id) as socket:
            last = await socket.state()
            await h.idle()
            since = len(h.fake.calls)
            while table.deal_no <= DEALS:
                actor = h.actor()
                assert actor is not None
                if actor is anna:
                    last = await _web_turn(h, socket, last)
                else:
                    await take_turn(h, policy)
            counts = {u.first_name: requests_to(h, u, since) for u in (anna, boris, vera)}
        per_deal = {name: n / DEALS for name, n in counts.items()}
        print(f"\nBot API requests per deal over {DEALS} deals: {per_deal}")
        chat = min(per_deal["Boris"], per_deal["Vera"])
        assert chat >= 10
        assert per_deal["Anna"] <= chat / 3
