"""Issue 13's smaller points where the presenter shows them: a declaration made for the
declarer is noted for everybody; the time to move; the 4-player dealer's silent hand."""

from __future__ import annotations

from bot.preferans.actions import Bid, Discard
from bot.preferans.contracts import MISERE
from bot.preferans.deal import Phase
from tests.service.helpers import GROUP, actor, legal, press, service_on, started
from tests.telegram.test_presenter import _presenter


async def test_a_misere_is_declared_for_the_declarer_and_everybody_sees_it() -> None:
    async with service_on() as service:
        table = await started(service)
        presenter, outbox, _, _ = _presenter(service)
        declarer, player = actor(table)
        await press(service, table, lambda a: isinstance(a, Bid) and a.contract == MISERE)
        while not any(isinstance(a, Discard) for a in legal(table)):
            await press(service, table, lambda a: isinstance(a, Bid) and a.contract is None)
        [*_, two] = [a for a in legal(table) if isinstance(a, Discard)]
        for card in two.cards:
            await service.mark_discard(table.id, player.user_id, table.move, card, True)
        presenter.show(await service.confirm_discard(table.id, player.user_id, table.move, "k"))
        deal = table.game.current  # type: ignore[union-attr]
        assert deal is not None and deal.contract == MISERE and deal.phase is Phase.PLAY
        assert table.ui.forced is not None and table.ui.forced.seat == declarer
        texts = {slot.chat_id: text for slot, text, _ in outbox.shown}
        assert "объявлено автоматически" in texts[GROUP]
        assert "Объявлено за вас: мизер" in texts[player.user_id]
        for _, other in table.seated():
            if other != player:
                assert "объявлено автоматически" in texts[other.user_id]
        await press(service, table, lambda a: True)  # the next move: the note goes
        assert table.ui.forced is None
