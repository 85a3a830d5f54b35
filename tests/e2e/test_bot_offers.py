"""Offers through the fake Bot API: a declarer with a cold hand offers "the
rest are mine" (the solver marks it guaranteed), the whisters see his cards and accept,
the deal is scored from the offer, and the exported record replays to the same sheet."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from bot.core.model import TableSettings
from bot.core.offers import SURE_LEADS_TRICKS
from bot.preferans.actions import Offer
from bot.preferans.deal import Deal, Phase
from bot.preferans.robot.card_play import layout_position
from bot.preferans.robot.knowledge import knowledge_of
from bot.preferans.robot.layouts import every_layout
from bot.preferans.seats import Seat
from bot.preferans.solver import Goal, Position, card_values, solve
from bot.preferans.views import seat_view
from bot.replay import load_game, replay_json
from tests.bot_helpers import (
    Harness,
    button,
    cards_in,
    code_of,
    is_alert,
    open_and_start,
    running_bot,
)
from tests.fakes import FakeUser, MessageView

SMALL = TableSettings(pulka=10, turn_time=0, lang="ru")
JUDGED_DEALS = 3


def _longest_suit_seat(deal: Deal) -> tuple[Seat, str]:
    """The seat with the longest suit (the most aces on a tie) and that suit's letter."""

    def strength(seat: Seat) -> tuple[int, int]:
        hand = deal.hand(seat)
        longest = max(sum(1 for c in hand if c.suit == s) for s in {c.suit for c in hand})
        return longest, sum(1 for c in hand if c.rank.label == "A")

    seat = max(deal.active, key=strength)
    hand = deal.hand(seat)
    suit = max({c.suit for c in hand}, key=lambda s: sum(1 for c in hand if c.suit == s))
    return seat, "SCDH"[int(suit)]


async def _press(h: Harness, user: FakeUser, code: str) -> None:
    msg = h.hand_message(user)
    assert msg is not None
    data = button(msg, code)
    answer = await h.press(user, msg, data)
    assert not is_alert(answer), answer


async def _open_offers(h: Harness, user: FakeUser) -> MessageView:
    """The player on lead opens his offers: his hand message then shows them (checked by
    the solver) and «назад» instead of his cards."""
    await _press(h, user, "Oo")
    msg = h.hand_message(user)
    assert msg is not None
    codes = [code_of(d) for _, d in msg.buttons]
    assert codes[-1] == "Ob" and not any(c.startswith("p") for c in codes), codes
    return msg


async def _to_play(h: Harness) -> tuple[Deal, Seat]:
    """The seat with the longest suit bids 6♠ (the others pass), discards his first two
    cards and names 6 of that suit; both defenders whist, closed."""
    deal = h.deal()
    declarer, trump = _longest_suit_seat(deal)
    while deal.declarer is None or deal.phase is Phase.AUCTION:
        user = h.actor()
        assert user is not None
        mine = h.table().seat_of(user.id) == declarer
        await _press(h, user, "b6S" if mine and deal.highest_bid is None else "bP")
    user = h.user_of_seat(declarer)
    msg = h.hand_message(user)
    assert msg is not None
    for code in [c for _, d in msg.buttons if (c := code_of(d))][:2]:
        await _press(h, user, code)
    await _press(h, user, "k")
    await _press(h, user, f"c6{trump}")
    while deal.phase is Phase.WHIST:
        whister = h.actor()
        assert whister is not None
        await _press(h, whister, "wW")
    return deal, declarer


async def test_a_cold_declarer_offers_the_rest_the_whisters_accept_and_it_replays(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path, lang="ru", defaults=SMALL) as h:
        await open_and_start(h)
        deal, declarer = await _to_play(h)
        # the play: the declarer plays his best card (every card known), the whisters their
        # first one, until his "the rest are mine" button is marked guaranteed
        offered = None
        while offered is None:
            assert not deal.is_over, "the declarer never had a cold ending"
            user = h.actor()
            assert user is not None
            msg = h.hand_message(user)
            assert msg is not None
            if deal.actor == declarer:
                if not deal.current_trick:  # her lead: she opens her offers to look
                    msg = await _open_offers(h, user)
                    mine = [d for label, d in msg.buttons if label == "✅ 🙌 Остальные мои"]
                    if mine:
                        offered = code_of(mine[0])
                        before = tuple(deal.tricks)
                        await _press(h, user, offered)
                        break
                    await _press(h, user, "Ob")  # back to her cards
                values = card_values(Position.from_deal(deal), Goal.TRICKS, declarer)
                best = max(values, key=lambda c: (values[c], -int(c)))
                await _press(h, user, f"p{best.code}")
            else:
                await _press(h, user, next(c for _, d in msg.buttons if (c := code_of(d))))
        left = 11 - deal.trick_number
        hand = set(deal.hand(declarer))
        shown_table = h.table_message()
        assert shown_table is not None and "предлагает закончить сдачу" in shown_table.content
        # each whister in turn sees the declarer's cards and accepts
        for _ in range(2):
            user = h.actor()
            assert user is not None and h.table().seat_of(user.id) != declarer
            msg = h.hand_message(user)
            assert msg is not None and "открывает карты" in msg.content
            assert hand <= cards_in(msg.content)
            assert [label for label, _ in msg.buttons][1] == "👎 Отказаться"
            await _press(h, user, "aY")
        game = h.table().game
        assert game is not None and len(game.finished_deals) == 1
        finished = game.finished_deals[0]
        assert finished.outcome.tricks is not None
        expected = list(before)
        expected[declarer] += left
        assert list(finished.outcome.tricks) == expected
        # the group and every player's own chat say how the deal ended
        who = h.table().seats[declarer]
        assert who is not None
        claim = f"🤝 {who.name}: «Остальные мои» — принято. Оставшиеся взятки: "
        shown = [*h.group_texts(), *(m.content for m in h.fake.bot_messages(h.group))]
        assert any(claim in text for text in shown)
        for person in h.users:
            assert any(claim in m.content for m in h.fake.bot_messages(person)), person.first_name
        # the exported record replays to the same sheet
        await h.say(h.users[0], "/export")
        doc = h.fake.last_bot_message(h.group)
        assert doc is not None and doc.media is not None
        data = doc.media.data
        text = data.decode() if isinstance(data, bytes) else data
        replayed = load_game(text)
        moves = json.loads(text)["deals"][0]["moves"]
        offer = [left if s == declarer else 0 for s in range(3)]
        assert {"seat": int(declarer), "offer": offer} in moves
        assert replayed.sheet == game.sheet
        assert replay_json(replayed)["deals"][0]["tricks"] == expected


def _best_card(deal: Deal, declarer: Seat) -> str:
    """The declarer's best card, every card known (the lowest of equals)."""
    values = card_values(Position.from_deal(deal), Goal.TRICKS, declarer)
    return f"p{max(values, key=lambda c: (values[c], -int(c))).code}"


def _judge(deal: Deal, declarer: Seat, buttons: list[tuple[str, str | None]]) -> int:
    """Check the marks on the declarer's offer buttons at her lead against every layout of
    the defenders' cards she cannot see; return how many offers the real layout alone
    would have marked and she was rightly not shown a mark on."""
    offers = [
        (label.startswith("✅"), Offer(declarer, tuple(int(n) for n in code[1:].split("-"))))
        for label, data in buttons
        if (code := code_of(data)).startswith("o")
    ]
    assert offers, "no offer buttons at the declarer's lead"
    left = 11 - deal.trick_number
    real = -1  # the real layout's value, where the bot checks her offers at all
    if left <= SURE_LEADS_TRICKS:
        real = solve(Position.from_deal(deal), Goal.TRICKS, declarer)
    withheld = 0
    for marked, offer in offers:
        mine = offer.tricks[declarer]
        if marked and mine < left:
            # what she knows: her hand, her discard (she put it aside), the cards played
            # and the voids they showed; every dealing of the rest is possible to her
            view = dataclasses.replace(seat_view(deal, declarer), discard=deal.discard)
            know = knowledge_of(view)
            for hands, sink in every_layout(know):
                pos = layout_position(view, know, hands, sink)
                assert solve(pos, Goal.TRICKS, declarer) <= mine, (offer, hands)
        if not marked and 0 <= real <= mine < left:
            withheld += 1
    return withheld


async def test_a_declarer_at_her_lead_never_sees_a_mark_the_hidden_cards_decide(
    tmp_path: Path,
) -> None:
    """The «✅» on her offers may not tell her where the defenders' cards lie: each one
    must hold in every layout of them; the deals include leads where the real layout
    alone would have marked «Без одной» or «Остальные ваши»."""
    async with running_bot(tmp_path, lang="ru", defaults=SMALL) as h:
        await open_and_start(h)
        judged = withheld = 0
        for _ in range(JUDGED_DEALS):
            deal, declarer = await _to_play(h)
            while not deal.is_over:
                user = h.actor()
                assert user is not None
                msg = h.hand_message(user)
                assert msg is not None
                if deal.actor == declarer:
                    if not deal.current_trick:  # her lead: she opens the offer buttons
                        msg = await _open_offers(h, user)
                        withheld += _judge(deal, declarer, msg.buttons)
                        judged += 1
                        await _press(h, user, "Ob")  # back to her cards
                    await _press(h, user, _best_card(deal, declarer))
                else:
                    await _press(h, user, next(c for _, d in msg.buttons if (c := code_of(d))))
        assert judged >= 5 and withheld >= 1, (judged, withheld)
