"""Russian wording: names stay in the nominative by the construction of the sentence, the
half-whist answered again reads as a move and is asked as the buttons offer it, help on
the sheet is named, and the English catalogue says the same."""

from __future__ import annotations

import random
import re
from fractions import Fraction

import pytest

from bot.core.model import Player, Table, TableSettings
from bot.preferans.actions import Declare
from bot.preferans.cards import Suit
from bot.preferans.contracts import Contract
from bot.preferans.conventions import Rules
from bot.preferans.deal import Deal
from bot.preferans.game import Game
from bot.preferans.outcome import DealKind, DealOutcome, WhistAnswer
from bot.preferans.scoring import Pulka, Sheet
from bot.preferans.seats import Seat
from bot.preferans.views import public_view, seat_view
from bot.render.i18n import catalogue, t
from bot.render.keyboards import actions_keyboard
from bot.render.results import sheet_entries
from bot.render.rules import rules_text
from bot.render.table import hand_text, table_text
from tests.engine_helpers import HALF, P, bid, lowest_discard, whist
from tests.engine_helpers import c as contract

NAMES = ["Анна", "Борис", "Вера"]


def _table(game: Game | None = None, lang: str = "ru", convention: str = "sochi") -> Table:
    settings = TableSettings(lang=lang, convention=convention, pulka=10)
    table = Table(id=5, chat_id=-100, owner_id=1, settings=settings)
    for i, name in enumerate(NAMES):
        table.seats[i] = Player(i + 1, name, lang)
    table.game = game
    return table


def _declared() -> tuple[Game, Deal]:
    """6♠ declared by the first hand: the defenders are to whist."""
    game = Game(Rules.preset("sochi", 10), NAMES)
    deal = game.start_deal(random.Random(3))
    first = deal.first_hand
    bid(deal, int(first), "6S")
    while deal.to_act is not None and deal.phase.value == "auction":
        bid(deal, int(deal.to_act), "pass")
    deal.apply(lowest_discard(deal))
    deal.apply(Declare(first, contract("6S")))
    return game, deal


def _half_whisted() -> tuple[Game, Deal, Seat]:
    """The first defender passed and the second said half-whist: the first is to answer
    again. Returns the game, the deal and that first defender."""
    game, deal = _declared()
    passer, half = deal.defenders
    whist(deal, int(passer), P)
    whist(deal, int(half), HALF)
    assert deal.to_act == passer
    return game, deal, passer


@pytest.mark.parametrize(
    ("lang", "prompt", "buttons", "actor"),
    [
        (
            "ru",
            "👉 <b>Вернуть вист или оставить полвиста?</b>",
            ["Вернуть вист", "Оставить полвиста"],
            "{name}: вернуть вист или оставить полвиста",
        ),
        (
            "en",
            "👉 <b>Return the whist or let the half-whist stand?</b>",
            ["Return the whist", "Let it stand"],
            "{name}: return the whist or let the half-whist stand",
        ),
    ],
    ids=["ru", "en"],
)
def test_the_half_whist_is_asked_as_its_buttons_offer_it(
    lang: str, prompt: str, buttons: list[str], actor: str
) -> None:
    game, deal, passer = _half_whisted()
    table = _table(game, lang)
    sv = seat_view(deal, passer)
    text = hand_text(table, sv, 1, lang)
    assert prompt in text
    assert t(lang, "hand.whist_prompt") not in text
    kb = actions_keyboard(table, sv, lang)
    assert kb is not None
    assert [b.text for row in kb.inline_keyboard for b in row] == buttons
    name = NAMES[int(passer)]
    assert actor.format(name=name) in table_text(table, public_view(deal), 1)
    # the first answer is still asked as "whist or pass", with those buttons
    game, deal = _declared()
    first = seat_view(deal, deal.defenders[0])
    assert t(lang, "hand.whist_prompt") in hand_text(_table(game, lang), first, 1, lang)
    kb = actions_keyboard(_table(game, lang), first, lang)
    assert kb is not None
    assert [b.text for row in kb.inline_keyboard for b in row][0] == t(lang, "btn.whist")


def test_the_half_whist_answered_again_reads_as_a_move() -> None:
    game, deal, passer = _half_whisted()
    table = _table(game)
    half = next(s for s in deal.defenders if s != passer)
    whist(deal, int(passer), WhistAnswer.WHIST)
    text = table_text(table, public_view(deal), 1)
    p, h = NAMES[int(passer)], NAMES[int(half)]
    assert f"Висты: {p} пас · {h} полвиста · {p} возвращает вист" in text
    _, deal, passer = _half_whisted()
    whist(deal, int(passer), P)
    text = table_text(table, public_view(deal), 1)
    assert f"Висты: {p} пас · {h} полвиста · {p} оставляет полвиста" in text
    english = table_text(_table(game, "en"), public_view(deal), 1)
    assert f"{p} pass · {h} half-whist · {p} lets the half-whist stand" in english


@pytest.mark.parametrize(
    ("key", "values", "ru", "en"),
    [
        (
            "robot.replaced",
            {"old": "Вера", "new": "🤖 Пётр"},
            "🤖 Вместо игрока Вера теперь играет компьютер — 🤖 Пётр.",
            "🤖 The computer, 🤖 Пётр, now plays instead of Вера.",
        ),
        (
            "replaced",
            {"old": "🤖 Пётр", "new": "Вера"},
            "🪑 Место игрока 🤖 Пётр занимает Вера.",
            "🪑 Вера takes 🤖 Пётр's seat.",
        ),
        (
            "start.seated",
            {"title": "Клуб", "seat": 2},
            "Вы сели за стол в группе «Клуб», место 2.",
            "You sat down at the table in the group «Клуб», seat 2.",
        ),
        (
            "start.took",
            {"title": "Клуб", "seat": 2},
            "Вы заняли место 2 за столом в группе «Клуб».",
            "You took seat 2 at the table in the group «Клуб».",
        ),
        (
            "end.lobby_closed",
            {"title": "Клуб"},
            "✖️ Стол в группе «Клуб» закрыт, игра не начиналась.",
            "✖️ The table in the group “Клуб” is closed; the game never started.",
        ),
    ],
    ids=["robot.replaced", "replaced", "start.seated", "start.took", "end.lobby_closed"],
)
def test_names_and_titles_stay_in_the_nominative(
    key: str, values: dict[str, object], ru: str, en: str
) -> None:
    assert t("ru", key, **values).startswith(ru)
    assert t("en", key, **values).startswith(en)
    assert t("ru", "paused.private", title="Клуб").startswith("⏸ Бота удалили из группы «Клуб»")


def test_no_russian_text_puts_a_name_after_a_preposition_or_in_an_oblique_case() -> None:
    """A name or a group title never follows a preposition or a noun bare (it would have
    to be declined): "вместо {old}", "место {old}", "в «{title}»", "на {name}"."""
    bare = re.compile(
        r"\b(вместо|место|на|у|для|от|из|в|за|с|к|о)\s+«?\{(name|old|new|who|other|title)\}",
        re.IGNORECASE,
    )
    for key, entry in catalogue("ru").entries.items():
        for form in entry.forms:
            assert not bare.search(form), f"{key}: {form!r}"


def _outcome() -> DealOutcome:
    """7♥ by seat 0, made: seat 1 whists alone, seat 2 deals."""
    return DealOutcome(
        players=3,
        dealer=Seat(2),
        kind=DealKind.GAME,
        declarer=Seat(0),
        contract=Contract(7, Suit.HEARTS),
        whists={Seat(1): WhistAnswer.WHIST, Seat(2): WhistAnswer.PASS},
        tricks=(7, 2, 1),
    )


def test_help_is_named_in_what_the_deal_wrote() -> None:
    zero = ((0, 0, 0), (0, 0, 0), (0, 0, 0))
    before = Sheet((8, 4, 0), (0, 0, 0), zero)  # type: ignore[arg-type]  # ints: Sheet makes them Fractions
    pulka = Pulka(Rules.preset("sochi", 10), 3, before)
    after = pulka.score(_outcome())
    # Анна closes with 4 over 8: 2 in her pulka, 2 to Борис (most pulka, not dealing)
    assert after.pulka == (10, 6, 0) and after.whists[0][1] == 20
    assert (
        sheet_entries(_table(), before, after, "ru")
        == "Анна — пуля +2, помощь → Борис: пуля +2, висты +20; Борис — висты → Анна +12"
    )
    assert (
        sheet_entries(_table(lang="en"), before, after, "en")
        == "Анна — pulka +2, help → Борис: pulka +2, whists +20; Борис — whists → Анна +12"
    )
    # Leningrad has no help: whists and pulka as they are
    plain = Sheet((2, 0, 0), (0, 0, 0), ((0, 0, 0), (Fraction(12), 0, 0), (0, 0, 0)))  # type: ignore[arg-type]  # ints: Sheet makes them Fractions
    assert (
        sheet_entries(_table(convention="leningrad"), Sheet.empty(3), plain, "ru")
        == "Анна — пуля +2; Борис — висты → Анна +12"
    )


def test_rules_explain_help() -> None:
    sochi = rules_text(TableSettings(convention="sochi"), "ru")
    assert (
        "Игра до закрытия всех пуль, с помощью: очки сверх закрытой пули идут в пулю другому "
        "игроку, и закрывший пишет на него 10 вистов за очко." in sochi
    )
    assert "10 whists on that player per point" in rules_text(TableSettings(), "en")
    assert "помощ" not in rules_text(TableSettings(convention="leningrad"), "ru")


def test_help_names_every_private_setting() -> None:
    ru, en = t("ru", "help"), t("en", "help")
    assert (
        "/settings (в личке бота) — уведомления о ходе; карты буквами J Q K A или В Д К Т; "
        "играть ли единственную возможную карту без нажатия." in ru
    )
    assert (
        "/settings (in the bot's chat) — turn notifications; cards as J Q K A or В Д К Т; "
        "whether your only legal card plays without a press." in en
    )
    assert "/history — последние игры (в личке — ваши)" in ru
    assert "/history — last games (in private, yours)" in en


def test_settings_command_names_every_private_setting() -> None:
    # The command menu shows this line next to /settings: it names all three settings.
    assert (
        t("ru", "cmd.settings")
        == "уведомления о ходе, В Д К Т или J Q K A, ход единственной картой"
    )
    assert t("en", "cmd.settings") == "turn alerts, J Q K A or В Д К Т, playing your only card"
