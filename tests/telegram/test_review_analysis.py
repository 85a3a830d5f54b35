"""A deal's analysis on request: each player's review of an ended deal gets a «🔍» button;
only a press runs the analysis (in the worker process) and edits that player's review
with his line; a second press gets a toast, a failed analysis leaves the button to press
again, and a finished game's review still gets its analysis."""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path
from typing import Any

from bot.core import effects as fx
from bot.preferans.actions import Action, Bid, Play
from bot.preferans.analysis import analyse
from tests.bot_helpers import code_of, is_alert, open_and_start, running_bot
from tests.fakes import ManualClock
from tests.service.helpers import pick

LINE = "All-pass: playing their best, each takes at most this"


def _pass_or_card(action: Action) -> bool:
    """Everybody passes and the first card offered is played: an all-pass to its end."""
    return isinstance(action, Play) or (isinstance(action, Bid) and action.is_pass)


async def _all_pass_deal(h: Any) -> None:
    """Everybody passes and the lowest cards are played: deal 1, an all-pass, to its end."""
    table = h.table()
    while table.deal_no == 1:
        user = h.actor()
        assert user is not None
        action = pick(table, _pass_or_card)
        h.rt.show(await h.service.act(table.id, user.id, table.move, "x", action))
    await h.idle()


def _review(h: Any, user: Any) -> Any:
    """The user's deal 1 hand message, which shows the deal in full."""
    [msg] = [m for m in h.fake.bot_messages(user) if "The deal in full" in m.content]
    return msg


async def _ask(h: Any, user: Any, msg: Any, data: str) -> str:
    """Press «🔍» on ``msg`` (as a client still showing it would: ``force``); the toast,
    once the analyses asked for are done."""
    qid = h.fake.press(user, msg, data, force=True)
    await h.idle()
    answer = h.fake.callback_answer(qid)
    assert not is_alert(answer), answer
    await asyncio.gather(*h.rt.presenter.analyst.tasks)
    await h.idle()
    return str(answer.get("text", ""))


async def test_a_review_offers_its_analysis_and_only_a_press_runs_it(tmp_path: Path) -> None:
    async with running_bot(tmp_path, analysis=True) as h:
        # the analysis from trick 8 on: the same code, a fraction of the CPU
        h.rt.presenter.analyst.analyse = partial(analyse, from_trick=8)
        await open_and_start(h)
        await _all_pass_deal(h)
        assert not h.rt.presenter.analyst.tasks  # nothing analysed unasked
        table = h.table()
        reviews = {}
        for user in h.users:
            msg = _review(h, user)
            assert LINE not in msg.content
            [(label, data)] = msg.buttons
            seat = table.seat_of(user.id)
            assert label == "🔍 Analysis" and code_of(data) == f"A{seat}"
            reviews[user.id] = (msg, data)
        first, other = h.users[0], h.users[1]
        msg, data = reviews[first.id]
        toast = await _ask(h, first, msg, data)
        assert toast.startswith("🔍 Analysing the deal")
        game = table.game
        assert game is not None
        taken = game.finished_deals[0].outcome.tricks
        assert taken is not None
        review = _review(h, first)
        assert LINE in review.content and not review.buttons  # his line, the button gone
        for index, name in enumerate(game.names):
            assert f"{name} " in review.content and f"(took {taken[index]})" in review.content
        # the others' reviews are untouched, their button still there
        assert LINE not in _review(h, other).content and _review(h, other).buttons
        # the next deal's hand message is another message, untouched
        hand = h.hand_message(first)
        assert hand is not None and hand.message_id != review.message_id
        assert "playing their best" not in hand.content
        # the old button pressed again (a client that still shows it): a toast, no new work
        toast = await _ask(h, first, msg, data)
        assert toast == "🔍 The analysis is already in this message."
        assert not h.rt.presenter.analyst.tasks
        edits = len(_review(h, first).history)
        await h.idle()
        assert len(_review(h, first).history) == edits


def _no_analysis(deal: Any) -> Any:
    raise RuntimeError("the worker failed")


async def test_a_failed_analysis_leaves_the_button_to_press_again(tmp_path: Path) -> None:
    async with running_bot(tmp_path, analysis=True) as h:
        h.rt.presenter.analyst.analyse = _no_analysis
        await open_and_start(h)
        await _all_pass_deal(h)
        user = h.users[0]
        msg = _review(h, user)
        [(_, data)] = msg.buttons
        assert (await _ask(h, user, msg, data)).startswith("🔍 Analysing the deal")
        assert LINE not in _review(h, user).content and _review(h, user).buttons
        h.rt.presenter.analyst.analyse = partial(analyse, from_trick=8)
        assert (await _ask(h, user, msg, data)).startswith("🔍 Analysing the deal")
        assert LINE in _review(h, user).content


async def test_a_forgotten_tables_review_is_analysed_from_the_database(tmp_path: Path) -> None:
    async with running_bot(tmp_path, analysis=True) as h:
        h.rt.presenter.analyst.analyse = partial(analyse, from_trick=8)
        await open_and_start(h)
        await _all_pass_deal(h)
        table = h.table()
        user = h.users[2]
        msg = _review(h, user)
        [(_, data)] = msg.buttons
        del h.service.registry.tables[table.id]  # as a finished game's table is, once fully shown
        assert (await _ask(h, user, msg, data)).startswith("🔍 Analysing the deal")
        assert LINE in _review(h, user).content
        # a deal that never was: refused, nothing started
        bad = data.replace(":1:A", ":7:A")
        assert bad != data
        qid = h.fake.press(user, msg, bad, force=True)
        await h.idle()
        assert h.fake.callback_answer(qid)["text"] == "This message is out of date."
        assert not h.rt.presenter.analyst.tasks


async def test_the_analysis_keeps_the_note_of_a_move_made_by_the_timer(tmp_path: Path) -> None:
    """The last card of the deal played by the timer: its note stays in the review with the
    analysis added, as the review showed it before."""
    clock = ManualClock()
    async with running_bot(tmp_path, analysis=True, clock=clock) as h:
        h.rt.presenter.analyst.analyse = partial(analyse, from_trick=8)
        await open_and_start(h)
        table = h.table()
        while (deal := h.deal()).trick_number < 10 or len(deal.current_trick) < 2:
            user = h.actor()
            assert user is not None
            action = pick(table, _pass_or_card)
            h.rt.show(await h.service.act(table.id, user.id, table.move, "x", action))
        late = h.actor()
        assert late is not None
        clock.advance(61)
        effects = await h.service.timeout(table.id, table.move)
        h.rt.show(effects)
        await h.idle()
        [auto] = [e for e in effects if isinstance(e, fx.AutoPlayed)]
        assert isinstance(auto.action, Play) and table.deal_no == 2
        note = "⏰ Time is up, played for you: "
        msg = _review(h, late)
        shown = msg.content
        assert note in shown
        [(_, data)] = msg.buttons
        assert code_of(data) == f"A{auto.seat}p{auto.action.card.code}"  # the note goes with it
        qid = h.fake.press(late, msg, data[: -len(code_of(data)) + 2] + "zQ", force=True)
        await h.idle()
        assert h.fake.callback_answer(qid)["text"] == "This message is out of date."
        assert not h.rt.presenter.analyst.tasks  # a move no button carries: nothing asked
        assert (await _ask(h, late, msg, data)).startswith("🔍 Analysing the deal")
        review = _review(h, late)
        assert LINE in review.content and note in review.content
        # everything it showed, the analysis added before the result
        assert review.content.replace("\n\n🔍 " + _line_of(review.content), "") == shown


def _line_of(text: str) -> str:
    """The analysis paragraph of a review."""
    [line] = [p[len("🔍 ") :] for p in text.split("\n\n") if p.startswith("🔍 " + LINE)]
    return line
