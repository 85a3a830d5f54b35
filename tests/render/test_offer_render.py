"""Offers on screen: the leader's few offer buttons under his cards, the answer
buttons with the offerer's hand for those who answer only, the group told what happens."""

from __future__ import annotations

import random
from collections.abc import Callable

from telegram import InlineKeyboardMarkup

from bot.core.model import OfferNote, Player, Table, TableSettings
from bot.preferans.actions import Accept, ChooseDefence, Declare, Offer
from bot.preferans.auto_moves import auto_action
from bot.preferans.conventions import Rules
from bot.preferans.deal import Deal
from bot.preferans.game import Game
from bot.preferans.outcome import Defence
from bot.preferans.seats import Seat
from bot.preferans.views import public_view, seat_view
from bot.render.callbacks import action_code, decode
from bot.render.keyboards import actions_keyboard, offer_choices
from bot.render.offers import offer_end_line, offer_split
from bot.render.table import hand_text, table_text
from bot.render.text import action_text
from tests.bot_helpers import cards_in
from tests.engine.test_offers import play_to_trick
from tests.engine_helpers import P, W, bid, lowest_discard, whist
from tests.engine_helpers import c as contract

NAMES = ["Анна", "Борис", "Вера"]


def table_of(game: Game, lang: str = "ru") -> Table:
    table = Table(id=5, chat_id=-100, owner_id=1, settings=TableSettings(lang=lang))
    for i, name in enumerate(NAMES):
        table.seats[i] = Player(i + 1, name, lang)
    table.game = game
    return table


def game_in_play(kind: str, *, whisters: int = 2, seed: int = 3) -> tuple[Game, Deal]:
    """A game whose deal is in play: 6♠ by the first hand, or all-pass."""
    game = Game(Rules.preset("sochi", 20), NAMES)
    deal = game.start_deal(random.Random(seed))
    first = deal.first_hand
    if kind == "allpass":
        for _ in range(3):
            bid(deal, int(deal.to_act), "pass")  # type: ignore[arg-type]
        return game, deal
    bid(deal, int(first), "6S")
    while deal.to_act is not None and deal.phase.value == "auction":
        bid(deal, int(deal.to_act), "pass")
    deal.apply(lowest_discard(deal))
    deal.apply(Declare(first, contract("6S")))
    for i, seat in enumerate(deal.defenders):
        whist(deal, int(seat), W if i < whisters else P)
    if deal.phase.value == "defence":
        deal.apply(ChooseDefence(deal.actor, Defence.CLOSED))  # type: ignore[arg-type]
    return game, deal


def _codes(kb: InlineKeyboardMarkup | None) -> list[list[str]]:
    assert kb is not None
    return [[decode(b.callback_data).code for b in row] for row in kb.inline_keyboard]  # type: ignore[arg-type, union-attr]


def _to_declarer_lead(deal: Deal) -> None:
    for number in range(2, 9):
        play_to_trick(deal, number)
        if deal.actor == deal.declarer:
            return
    raise AssertionError("the declarer never led")


def test_a_declarer_gets_mine_one_down_and_yours_under_his_cards() -> None:
    game, deal = game_in_play("game")
    _to_declarer_lead(deal)
    declarer = deal.declarer
    assert declarer is not None
    sv = seat_view(deal, declarer)
    left = 11 - deal.trick_number
    choices = offer_choices(sv)
    keys = [k for k, _ in choices]
    assert keys[0] == "btn.offer_mine" and keys[-1] == "btn.offer_yours" and len(keys) <= 3
    mine = dict(choices)["btn.offer_mine"]
    assert mine.tricks[declarer] == left
    yours = dict(choices)["btn.offer_yours"]
    assert yours.tricks[declarer] == 0
    assert "btn.offer_one_down" in keys  # he needs more than one trick still
    needs = 6 - deal.tricks[declarer]
    assert dict(choices)["btn.offer_one_down"].tricks[declarer] == needs - 1
    table = table_of(game)
    rows = _codes(actions_keyboard(table, sv, "ru"))
    cards = [c for row in rows for c in row if c.startswith("p")]
    # under the cards one button opens the offers: nothing is checked before it
    assert len(cards) == len(sv.legal) and rows[-1] == ["Oo"]
    assert not any(c.startswith("o") for row in rows for c in row)
    # opened (the solver's check noted at this move, here nothing proved): the offers
    # instead of the cards, two to a row, and «назад» back to the cards
    table.ui.offer_sure = (table.move, {declarer: frozenset()})
    kb = actions_keyboard(table, sv, "ru")
    rows = _codes(kb)
    offers = [c for row in rows[:-1] for c in row]
    assert offers == [action_code(o) for _, o in choices] and rows[-1] == ["Ob"]
    assert all(len(row) <= 2 for row in rows[:-1])
    assert kb is not None and kb.inline_keyboard[-1][0].text == "↩️ Назад"
    assert "гарантировано" not in hand_text(table, sv, 1, "ru")
    # a mark the check proved: on its button, and the line under the hand
    table.ui.offer_sure = (table.move, {declarer: frozenset({mine})})
    kb = actions_keyboard(table, sv, "ru")
    assert kb is not None and kb.inline_keyboard[0][0].text == "✅ 🙌 Остальные мои"
    assert "гарантировано" in hand_text(table, sv, 1, "ru")
    table.move += 1  # opened at an older move: the cards again
    assert _codes(actions_keyboard(table, sv, "ru"))[-1] == ["Oo"]


def test_a_defender_offers_mine_or_yours_and_all_pass_only_mine() -> None:
    game, deal = game_in_play("game")
    play_to_trick(deal, 2)
    while deal.actor == deal.declarer:
        play_to_trick(deal, deal.trick_number + 1)
    defender = deal.actor
    assert defender is not None and deal.declarer is not None
    choices = dict(offer_choices(seat_view(deal, defender)))
    assert set(choices) == {"btn.offer_mine", "btn.offer_yours"}
    assert choices["btn.offer_yours"].tricks[deal.declarer] == 11 - deal.trick_number
    game, deal = game_in_play("allpass")
    play_to_trick(deal, 4)
    assert deal.actor is not None
    assert [k for k, _ in offer_choices(seat_view(deal, deal.actor))] == ["btn.offer_mine"]


def test_those_who_answer_see_the_offerers_hand_and_the_group_does_not() -> None:
    game, deal = game_in_play("game")
    play_to_trick(deal, 5)
    leader = deal.actor
    assert leader is not None
    table = table_of(game)
    offer = deal.offer_actions()[0]
    deal.apply(offer)
    hand = set(deal.hand(leader))
    group = table_text(table, public_view(deal), 1)
    assert "предлагает закончить сдачу" in group and not hand & cards_in(group)
    answerer = deal.actor
    assert answerer is not None
    sv = seat_view(deal, answerer)
    text = hand_text(table, sv, 1, "ru")
    assert "открывает карты" in text and hand <= cards_in(text)
    assert "принять предложение" in text
    assert _codes(actions_keyboard(table, sv, "ru")) == [["aY", "aN"]]
    # the guaranteed mark, when the solver proved it at this move
    table.ui.offer_sure = (table.move, {answerer: frozenset({offer})})
    kb = actions_keyboard(table, sv, "ru")
    assert kb is not None and kb.inline_keyboard[0][0].text.startswith("✅")
    assert "гарантировано" in hand_text(table, sv, 1, "ru")
    table.move += 1  # a mark of another move is not shown
    assert "гарантировано" not in hand_text(table, sv, 1, "ru")
    # the timer refuses for him, and says so
    assert auto_action(sv) == Accept(answerer, False)
    assert action_text(Accept(answerer, False), "ru") == "отказ от предложения"
    deal.apply(Accept(answerer, False))
    table.ui.offer_note = OfferNote(offer, answerer)
    group = table_text(table, public_view(deal), 1)
    assert "предложение снято" in group and f"{NAMES[answerer]} отвечает «нет»" in group
    other = next(s for s in deal.active if s not in (leader, answerer))
    assert not hand & cards_in(hand_text(table, seat_view(deal, Seat(other)), 1, "ru"))


def test_english_texts() -> None:
    game, deal = game_in_play("game")
    play_to_trick(deal, 5)
    deal.apply(deal.offer_actions()[0])
    table = table_of(game, "en")
    assert "offers to end the deal" in table_text(table, public_view(deal), 1)
    assert deal.actor is not None
    assert "shows the cards" in hand_text(table, seat_view(deal, deal.actor), 1, "en")
    assert isinstance(deal.open_offer.offer if deal.open_offer else None, Offer)


def _accepted(deal: Deal, offer: Offer) -> None:
    deal.apply(offer)
    while deal.open_offer is not None:
        deal.apply(Accept(deal.open_offer.waiting, True))
    assert deal.is_over


def test_the_end_by_an_accepted_offer_names_who_offered_what() -> None:
    made: dict[str, str] = {}
    for key in ("btn.offer_one_down", "btn.offer_yours", "exactly"):
        game, deal = game_in_play("game")
        _to_declarer_lead(deal)
        declarer = deal.declarer
        assert declarer is not None
        choices = dict(offer_choices(seat_view(deal, declarer)))
        if key == "exactly":  # the contract exactly: a legal offer with no button of its own
            needs = 6 - deal.tricks[declarer]
            offer = next(o for o in deal.offer_actions() if o.tricks[declarer] == needs)
        else:
            offer = choices[key]
        _accepted(deal, offer)
        table = table_of(game)
        split = offer_split(table, public_view(deal), offer)
        line = offer_end_line(table, deal, "ru")
        made[key] = f"{line}|{offer_end_line(table_of(game, 'en'), deal, 'en')}"
        assert line is not None and line.endswith(f"Оставшиеся взятки: {split}.")
    name = NAMES[game_in_play("game")[1].first_hand]
    assert made["btn.offer_one_down"].startswith(f"🤝 {name}: «Без одной» — принято.")
    assert f"|🤝 {name}: “One down” — accepted. The tricks left: " in made["btn.offer_one_down"]
    assert made["btn.offer_yours"].startswith(f"🤝 {name}: «Остальные ваши» — принято.")
    assert made["exactly"].startswith(f"🤝 {name}: предложение принято.")
    assert f"|🤝 {name}: the offer was accepted." in made["exactly"]
    # a deal that did not end by an offer has no such line
    game, deal = game_in_play("game")
    assert offer_end_line(table_of(game), deal, "ru") is None


def _to_lead_by(deal: Deal, wanted: Callable[[Seat], bool]) -> Seat:
    """Play tricks until a seat ``wanted`` accepts leads; that seat."""
    for number in range(2, 9):
        play_to_trick(deal, number)
        if deal.actor is not None and wanted(deal.actor):
            return deal.actor
    raise AssertionError("no such seat ever led")


def test_the_rest_given_to_the_other_defender_are_ours_not_yours() -> None:
    game, deal = game_in_play("game")
    defender = _to_lead_by(deal, lambda s: s != deal.declarer)
    partner = next(s for s in deal.defenders if s != defender)
    left = 11 - deal.trick_number
    offer = next(o for o in deal.offer_actions() if o.tricks[partner] == left)
    _accepted(deal, offer)
    who = NAMES[defender]
    assert offer_end_line(table_of(game), deal, "ru") == (
        f"🤝 {who}: «Остальные наши» — принято. Оставшиеся взятки: "
        f"{offer_split(table_of(game), public_view(deal), offer)}."
    )
    assert (offer_end_line(table_of(game, "en"), deal, "en") or "").startswith(
        f"🤝 {who}: “The rest are ours” — accepted."
    )


def test_an_all_pass_offer_of_the_rest_to_another_player_has_no_name() -> None:
    game, deal = game_in_play("allpass")
    play_to_trick(deal, 4)  # (the talon leads the first tricks)
    offerer = deal.actor
    assert offerer is not None
    left = 11 - deal.trick_number
    offer = next(o for o in deal.offer_actions() if o.tricks[offerer] == 0 and left in o.tricks)
    _accepted(deal, offer)
    line = offer_end_line(table_of(game), deal, "ru")
    assert line is not None and line.startswith(f"🤝 {NAMES[offerer]}: предложение принято.")
