"""Fewer requests a deal with nothing lost for a player: a move edits the hands of the
seat that moved and of the seat now to act; the third hand waits for its turn, the trick's
end or the phase's. The group's table message shows every complete trick however fast the
moves outrun its pacing, and a state replaced before it was sent is never rendered."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import bot.telegram.hands
import bot.telegram.presenter
from bot.core.modes import RankStyle
from bot.preferans.deal import Deal, Phase, Trick
from bot.preferans.seats import Seat
from bot.render.callbacks import decode
from bot.render.table import _trick_cards
from tests.bot_helpers import (
    Harness,
    Policy,
    code_of,
    is_alert,
    open_and_start,
    running_bot,
    simple_policy,
)
from tests.fakes.html import finish, parse_html


def _edits(h: Harness) -> dict[int, int]:
    """Chat id -> the bot's editMessageText requests there so far."""
    out: dict[int, int] = {}
    for call in h.fake.calls_to("editMessageText"):
        chat = int(call.params["chat_id"])
        out[chat] = out.get(chat, 0) + 1
    return out


_STAGE = {Phase.DISCARD: Phase.CONTRACT, Phase.DEFENCE: Phase.WHIST}
"""The players' stages of a deal: the discard and the contract are one, so are the whists
and the lone whister's choice of defence."""


def _stage(deal: Deal) -> tuple[object, int]:
    return _STAGE.get(deal.phase, deal.phase), len(deal.played_tricks)


def _trick_line(h: Harness, trick: Trick) -> str:
    """How a complete trick reads in the table and hand messages (English, latin ranks)."""
    return _trick_cards(h.table(), trick.cards, "en", RankStyle.LATIN) + " → "


def _versions(h: Harness, chat: int, message_id: int) -> list[str]:
    """Every text a message showed, the first first."""
    msg = h.fake.message(chat, message_id)
    return [str(v.get("text", "")) for v in msg.history] + [msg.content]


async def _play_checking_edits(h: Harness, policy: Policy) -> int:
    """Play the current deal press by press (``policy``; a discard: two cards, then the
    confirm) and check the hand messages each press edits; the number of hand edits that
    waited (the third seat's)."""
    deal_no = h.table().deal_no
    waited = 0
    while h.table().deal_no == deal_no:
        deal = h.deal()
        mover = deal.actor
        assert mover is not None
        before, stage = _edits(h), _stage(deal)
        user = h.user_of_seat(int(mover))
        msg = h.hand_message(user)
        assert msg is not None
        datas = [d for _, d in msg.buttons if d]
        codes = [code_of(d) for d in datas]
        if codes[0][0] in "tuk":  # the discard: mark two cards, then confirm
            code = "k" if "k" in codes else next(c for c in codes if c.startswith("t"))
        else:
            code = policy(deal, codes)
        assert not is_alert(await h.press(user, msg, datas[codes.index(code)]))
        if h.table().deal_no != deal_no:
            break
        deal, after = h.deal(), _edits(h)
        for seat in range(3):
            chat = h.user_of_seat(seat).id
            edited = after.get(chat, 0) - before.get(chat, 0)
            if _stage(deal) != stage:  # a trick complete, a new stage: every hand
                assert edited == 1, (seat, deal.phase)
            elif seat in (mover, deal.actor):
                assert edited == 1, (seat, deal.phase)
            else:  # the third seat: its hand waits
                assert edited == 0, (seat, deal.phase, len(deal.current_trick))
                waited += 1
        if len(deal.played_tricks) > stage[1]:  # every hand shows the whole trick
            line = _trick_line(h, deal.played_tricks[-1])
            for user in h.users:
                hand = h.hand_message(user)
                assert hand is not None and line in hand.content, (user.first_name, line)
    return waited


async def test_the_third_hand_waits_for_its_turn_or_the_tricks_end(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        await open_and_start(h)
        waited = await _play_checking_edits(h, simple_policy())  # all pass: a raspasy
        assert waited >= 20  # two of a trick's three cards, and the first two passes


async def test_the_defenders_hands_wait_through_the_discard_and_contract(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path) as h:
        await open_and_start(h)
        policy = simple_policy({0: ["b6S"], 1: ["b6S"], 2: ["b6S"]}, whist="wW")
        waited = await _play_checking_edits(h, policy)
        game = h.table().game
        assert game is not None
        deal = game.finished_deals[0].deal
        assert deal is not None and deal.discard  # a trick game: discarded, then played
        assert waited >= 20


async def _press_when_shown(h: Harness) -> bool:
    """The player on turn presses his first button as soon as his hand message shows the
    buttons of this move (a bid: pass), without waiting for the group's messages; ``False``
    once the deal is over."""
    while True:
        table = h.table()
        game = table.game
        if game is None or game.current is None or table.deal_no != 1:
            return False
        user = h.actor()
        msg = h.hand_message(user) if user is not None else None
        datas = [d for _, d in msg.buttons if d] if msg is not None else []
        found = decode(datas[0]) if datas else None
        if found is not None and found.move == table.move:
            break
        await asyncio.sleep(0.001)
    assert user is not None and msg is not None
    data = next((d for d in datas if code_of(d) == "bP"), datas[0])
    qid = h.fake.press(user, msg, data)
    while not h.fake.callback_answer(qid):
        await asyncio.sleep(0.001)
    assert not is_alert(h.fake.callback_answer(qid))
    return True


@pytest.mark.waits
async def test_every_trick_shows_in_the_group_and_no_state_is_rendered_unsent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rendered: dict[str, int] = {"table": 0, "hand": 0}
    hand_texts: list[tuple[Seat, str]] = []  # each hand text rendered, by its seat

    def counting(name: str, render: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            rendered[name] += 1
            text = render(*args, **kwargs)
            if name == "hand":
                hand_texts.append((args[1].seat, text))
            return text

        return wrapper

    monkeypatch.setattr(
        bot.telegram.presenter, "table_text", counting("table", bot.telegram.presenter.table_text)
    )
    monkeypatch.setattr(
        bot.telegram.hands, "hand_text", counting("hand", bot.telegram.hands.hand_text)
    )
    # the group's requests 0.6 s apart, a private chat's 0.1 s: the moves outrun both
    options = {"group_limit": 100_000, "group_fast_interval": 0.6}
    async with running_bot(tmp_path, outbox_options=options, private_interval=0.1) as h:
        await open_and_start(h)
        slot = h.table_slot()
        hands = dict(h.hand_slots())
        before = dict(rendered)
        first = len(hand_texts)
        while await _press_when_shown(h):
            pass
        await h.idle()
        game = h.table().game
        assert game is not None
        deal = game.finished_deals[0].deal
        assert deal is not None and slot is not None and slot.message_id is not None
        shown = _versions(h, h.group.id, slot.message_id)
        missing = [
            t.number for t in deal.played_tricks if not any(_trick_line(h, t) in s for s in shown)
        ]
        assert missing == []
        # every state rendered was sent: of deal 1's table message all but its start
        # (rendered before), the deal's end (rendered at once) included; deal 2's start
        now = h.table_slot()
        assert now is not None and now.message_id is not None
        nxt = _versions(h, h.group.id, now.message_id)
        assert rendered["table"] - before["table"] == len(shown) - 1 + len(nxt)
        # the hands: all but their start (rendered before), the reviews included; deal 2's
        sent = [
            len(_versions(h, s.chat_id, s.message_id)) - 1 for s in hands.values() if s.message_id
        ]
        sent += [
            len(_versions(h, s.chat_id, s.message_id))
            for s in h.hand_slots().values()
            if s.message_id
        ]
        assert len(sent) == 6
        # every hand text rendered was sent: a state replaced while it waited is never
        # rendered; a state rendered again and found the same is not sent twice (a render
        # may repeat when the same view is asked for again once the first was sent)
        assert rendered["hand"] - before["hand"] >= sum(sent)
        shown_to = {
            seat: {
                v
                for s in (hands[seat], h.hand_slots()[seat])
                if s.message_id
                for v in _versions(h, s.chat_id, s.message_id)
            }
            for seat in hands
        }
        unsent = [
            (seat, text)
            for seat, text in hand_texts[first:]
            if finish(*parse_html(text))[0] not in shown_to[seat]
        ]
        assert unsent == []
