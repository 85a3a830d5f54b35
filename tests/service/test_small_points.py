"""Smaller points: stop votes belong to their deal, an automatic last card
is not shown in the next deal, a cut name cannot turn a line around, and a failed poll
during an outage is one WARNING line."""

from __future__ import annotations

from pathlib import Path

from bot.core import effects as fx
from bot.core.model import Status
from bot.render.sheet_text import short_name
from tests.fakes import ManualClock
from tests.service.helpers import PEOPLE, of, open_table, service_on, started


async def test_votes_and_auto_notes_do_not_outlive_their_deal() -> None:
    clock = ManualClock()
    async with service_on(clock=clock) as service:
        table = await started(service)
        await service.vote_stop(table.id, PEOPLE[0].user_id)
        assert table.stop_votes
        while table.deal_no == 1:  # every move of deal 1 times out, the last card too
            assert table.deadline is not None
            clock.now = table.deadline + 1
            effects = await service.timeout(table.id, table.move)
            assert of(effects, fx.AutoPlayed)
        assert table.deal_no == 2
        assert table.ui.auto_note is None  # deal 2's message does not show deal 1's card
        assert not table.stop_votes
        [vote] = of(await service.vote_stop(table.id, PEOPLE[1].user_id), fx.StopVoted)
        assert vote.votes == 1 and table.status is Status.PLAYING


def test_a_cut_name_holds_no_bidi_control() -> None:
    cut = short_name("\u202eАнна\u2067 Каренина-Вронская\u2069", 10)
    assert cut == "Анна Каре…"


async def test_a_deals_vote_is_one_message_that_is_told_when_it_lapses(tmp_path: Path) -> None:
    """Every vote of a deal edits one group message (stored, so a restart edits it too); when
    the deal ends without a majority the group is told, and the next vote is a new one."""
    clock = ManualClock()
    path = tmp_path / "bot.sqlite3"
    async with service_on(path, clock=clock) as service:
        table = await started(service, 4)  # three of four people stop the game
        await service.vote_stop(table.id, PEOPLE[0].user_id)
        [voted] = of(await service.vote_stop(table.id, PEOPLE[1].user_id), fx.StopVoted)
        assert (voted.votes, voted.need) == (2, 3)
    async with service_on(path, clock=clock) as service:
        await service.resumable.resume()
        table = open_table(service)
        assert table is not None
        assert table.stop_votes == {table.seat_of(p.user_id) for p in PEOPLE[:2]}
        lapsed = []
        while table.deal_no == 1:
            assert table.deadline is not None
            clock.now = table.deadline + 1
            lapsed += of(await service.timeout(table.id, table.move), fx.VoteLapsed)
        [gone] = lapsed
        assert (gone.voters, gone.need) == (("Анна", "Борис"), 3)
        assert gone.deal_no == 1 and not table.stop_votes  # its message says it lapsed
        [fresh] = of(await service.vote_stop(table.id, PEOPLE[2].user_id), fx.StopVoted)
        assert (fresh.votes, table.deal_no) == (1, 2)  # a new vote (and message) this deal
