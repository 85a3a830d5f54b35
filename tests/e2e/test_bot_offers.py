"""Done-when of issue 15 through the fake Bot API: a declarer with a cold hand offers "the
rest are mine" (the solver marks it guaranteed), the whisters see his cards and accept,
the deal is scored from the offer, and the exported record replays to the same sheet."""

from __future__ import annotations

import json
from pathlib import Path

from bot.core.model import TableSettings
from bot.preferans.cards import Seat
from bot.preferans.deal import Deal, Phase
from bot.preferans.solver import Goal, Position, card_values
from bot.replay import load_game, replay_json
from tests.bot_helpers import Harness, cards_in, code_of, is_alert, open_and_start, running_bot
from tests.fakes import FakeUser

SMALL = TableSettings(pulka=10, turn_time=0, lang="ru")


def _deal(h: Harness) -> Deal:
    game = h.table().game
    assert game is not None and game.current is not None
    return game.current


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
    data = next(d for _, d in msg.buttons if d and code_of(d) == code)
    answer = await h.press(user, msg, data)
    assert not is_alert(answer), answer


async def test_a_cold_declarer_offers_the_rest_the_whisters_accept_and_it_replays(
    tmp_path: Path,
) -> None:
    async with running_bot(tmp_path, lang="ru", defaults=SMALL) as h:
        await open_and_start(h)
        deal = _deal(h)
        declarer, trump = _longest_suit_seat(deal)
        # the auction: the chosen seat bids 6♠ and the others pass; he names 6 of his suit
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
            await _press(h, whister, "wW")  # both whist, closed
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
                mine = [d for label, d in msg.buttons if label == "✅ 🙌 Остальные мои"]
                if mine:
                    offered = code_of(mine[0])
                    before = tuple(deal.tricks)
                    await _press(h, user, offered)
                    break
                values = card_values(Position.from_deal(deal), Goal.TRICKS, declarer)
                best = max(values, key=lambda c: (values[c], -int(c)))
                await _press(h, user, f"p{best.code}")
            else:
                await _press(h, user, next(c for _, d in msg.buttons if (c := code_of(d))))
        left = 11 - deal.trick_number
        hand = set(deal.hand(declarer))
        assert "предлагает закончить сдачу" in h.table_message().content
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
        shown = [*h.group_texts(), *(m.content for m in h.fake.bot_messages(h.group))]
        assert any("Предложение принято" in text for text in shown)
        # the exported record replays to the same sheet
        await h.say(h.users[0], "/export")
        doc = h.fake.last_bot_message(h.group)
        assert doc is not None and doc.media is not None
        data = doc.media.data
        text = data.decode() if isinstance(data, bytes) else data
        replayed = load_game(text)
        moves = json.loads(text)["deals"][0]["moves"]
        claim = [left if s == declarer else 0 for s in range(3)]
        assert {"seat": int(declarer), "offer": claim} in moves
        assert replayed.sheet == game.sheet
        assert replay_json(replayed)["deals"][0]["tricks"] == expected
