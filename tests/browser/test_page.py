"""The Mini App's page against a scripted stand-in server: what it draws from a `state`,
what a tap sends, and how it shows a toast, a refusal and a dropped connection."""

import re
from typing import Any

import pytest
from playwright.async_api import expect

from tests.browser.conftest import ON_WORKERS_CHROMIUM
from tests.browser.fake_table import INIT, FakeTableServer, bid_state, open_page, play_state

pytestmark = [pytest.mark.browser, ON_WORKERS_CHROMIUM]


async def test_hello_carries_the_init_data_from_the_hash_and_the_table(
    browser: Any, server: FakeTableServer
) -> None:
    await open_page(browser, server)
    hello = await server.next_frame()
    assert hello == {"t": "hello", "init": INIT, "table": 12}


async def test_a_state_draws_seats_trick_hand_and_moves(
    browser: Any, server: FakeTableServer
) -> None:
    server.on_hello = [play_state()]
    page = await open_page(browser, server)
    await expect(page.locator(".seat")).to_have_count(3)
    me = page.locator(".seat.place-bottom")
    await expect(me.locator(".name")).to_have_text("Аня")
    await expect(me).to_have_class("seat place-bottom turn mine")
    await expect(me.locator(".timer")).to_have_text(re.compile(r"⏱ 1:[0-3]\d"))  # 95 s, ticking
    # Борис plays after Аня: on her left; Вера (the dealer) on her right
    await expect(page.locator(".seat.place-left .name")).to_have_text("🤖 Борис Петрович")
    await expect(page.locator(".seat.place-right .name")).to_have_text("🤖 Вера")
    await expect(page.locator(".seat.place-right .dealer")).to_have_text("сдаёт")
    await expect(page.locator(".seat.place-left .role")).to_have_text("играет")
    await expect(page.locator(".seat.place-left .backs .count")).to_have_text("7")
    await expect(page.locator(".seat.place-left .taken")).to_have_text("✋ 1")
    await expect(page.locator("#status div")).to_have_text(
        ["Сдача 2 · играет Борис Петрович: 7♥", "Аня — вист, Вера — пас"]
    )
    # the trick: Борис's queen of hearts in front of him, drawn red
    trick = page.locator(".centre .trick .card")
    await expect(trick).to_have_count(1)
    await expect(trick).to_have_attribute("data-card", "QH")
    await expect(trick).to_have_class("card red from-left")
    # the hand: eight cards, the two hearts legal
    cards = page.locator("#hand .card-btn")
    await expect(cards).to_have_count(8)
    await expect(page.locator("#hand .card-btn:enabled")).to_have_count(2)
    legal = page.locator("#hand .card-btn.legal")
    assert await legal.evaluate_all("bs => bs.map(b => b.dataset.card)") == ["AH", "10H"]
    await expect(page.locator("#hand .card-btn[data-card=KS]")).to_be_disabled()
    await expect(page.locator("#moves .move")).to_have_text(["🏳 Сдаюсь"])
    await expect(page.locator("#tabs .tab")).to_have_text(
        ["Взятки сдачи", "Пуля", "Прошлая сдача", "Повтор сдачи"]
    )
    assert await page.title() == "Стол"
    assert await page.locator("html").get_attribute("lang") == "ru"


async def test_tapping_a_legal_card_sends_its_press(browser: Any, server: FakeTableServer) -> None:
    server.on_hello = [play_state()]
    page = await open_page(browser, server)
    assert (await server.next_frame())["t"] == "hello"
    await page.locator("#hand .card-btn[data-card='10H']").click()
    assert await server.next_frame() == {"t": "press", "data": "c:h:10H"}
    # an illegal card cannot be tapped: the next frame is the bid's, not the king's
    await page.locator("#hand .card-btn[data-card=KS]").click(force=True)
    await server.send(play_state(move=18))
    await page.locator("#moves .move").click()
    assert await server.next_frame() == {"t": "press", "data": "c:h:give"}


async def test_bids_are_the_servers_buttons_and_a_tap_sends_one(
    browser: Any, server: FakeTableServer
) -> None:
    server.on_hello = [bid_state()]
    page = await open_page(browser, server)
    assert (await server.next_frame())["t"] == "hello"
    await expect(page.locator("#moves .row")).to_have_count(2)
    # the bot's emoji suits (♠️) drawn as coloured text symbols
    await expect(page.locator("#moves .move")).to_have_text(["6♠", "6♣", "6♦", "Мизер", "Пас"])
    await expect(page.locator("#moves .move .suit-sym")).to_have_class(
        ["suit-sym black", "suit-sym black", "suit-sym red"]
    )
    # no card is a move in the auction: none is tappable, none dimmed
    await expect(page.locator("#hand .cards")).to_have_class("cards waiting")
    await expect(page.locator("#hand .card-btn:enabled")).to_have_count(0)
    await page.get_by_role("button", name="Мизер").click()
    assert await server.next_frame() == {"t": "press", "data": "c:b:mis"}


async def test_a_toast_shows_its_text_and_frees_the_moves(
    browser: Any, server: FakeTableServer
) -> None:
    server.on_hello = [bid_state()]
    page = await open_page(browser, server)
    # the toast hides itself after a while: what it showed is recorded as it changes
    await page.evaluate("""() => {
        window.shown = [];
        const toast = document.getElementById("toast");
        new MutationObserver(() => shown.push([toast.textContent, toast.hidden]))
            .observe(toast, {attributes: true, childList: true});
    }""")
    await page.get_by_role("button", name="Пас").click()
    assert await server.next_frame() == {"t": "hello", "init": INIT, "table": 12}
    assert await server.next_frame() == {"t": "press", "data": "c:b:pass"}
    await server.send({"t": "toast", "text": "Сейчас не ваш ход"})
    await expect(page.locator("body")).not_to_have_class("pressed")
    await page.wait_for_function("() => shown.some(([text, hidden]) => !hidden)")
    assert ["Сейчас не ваш ход", False] in await page.evaluate("() => shown")


async def test_a_refusal_shows_its_text_and_no_table(browser: Any, server: FakeTableServer) -> None:
    text = "Не удалось проверить, кто вы: откройте стол кнопкой в чате с ботом."
    server.on_hello = [{"t": "refused", "code": "auth", "text": text}]
    page = await open_page(browser, server)
    await expect(page.locator("#refused")).to_have_text(text)
    await expect(page.locator("#refused")).to_be_visible()
    await expect(page.locator("#app")).to_be_hidden()
    await expect(page.locator("#loading")).to_be_hidden()
    await expect(page.locator(".card")).to_have_count(0)


async def test_server_texts_are_shown_as_text_never_as_markup(
    browser: Any, server: FakeTableServer
) -> None:
    state = play_state()
    state["seats"][1]["name"] = "<img src=x onerror=alert(1)>Боб"
    state["status"] = ["<b>жирно</b>"]
    state["buttons"] = [[{"text": "<i>Пас</i>", "data": "c:b:pass"}]]
    server.on_hello = [state]
    page = await open_page(browser, server)
    await expect(page.locator(".seat.place-left .name")).to_have_text(
        "🤖 <img src=x onerror=alert(1)>Боб"
    )
    await expect(page.locator("#status div")).to_have_text("<b>жирно</b>")
    await expect(page.locator("#moves .move")).to_have_text("<i>Пас</i>")
    assert await page.locator("img, b, i").count() == 0


async def test_the_page_connects_again_when_the_socket_drops(
    browser: Any, server: FakeTableServer
) -> None:
    server.on_hello = [play_state()]
    page = await open_page(browser, server)
    assert (await server.next_frame())["t"] == "hello"
    await expect(page.locator("#hand .card-btn")).to_have_count(8)
    server.on_hello = [play_state(move=18, hand=play_state()["hand"][:7])]
    await server.close()
    await expect(page.locator("#lost-text")).to_have_text("Связь потеряна, соединяемся снова…")
    assert await server.next_frame() == {"t": "hello", "init": INIT, "table": 12}
    await expect(page.locator("#hand .card-btn")).to_have_count(7)
    await expect(page.locator("#lost")).to_be_hidden()
    assert server.connects == 2


async def test_a_socket_replaced_by_a_newer_window_leaves_the_table_greyed(
    browser: Any, server: FakeTableServer
) -> None:
    server.on_hello = [play_state()]
    page = await open_page(browser, server)
    await expect(page.locator("#hand .card-btn")).to_have_count(8)
    await server.close(4409)  # a fourth window of the same player replaced this one
    await expect(page.locator("body")).to_have_class("closed")
    await expect(page.locator("#lost")).to_be_hidden()
    await expect(page.locator("#replaced")).to_have_text(
        "Стол открыт в другом окне: здесь он больше не обновляется."
    )
    await expect(page.locator("main")).to_have_css("pointer-events", "none")


async def test_tabs_show_the_tricks_the_sheet_and_the_review(
    browser: Any, server: FakeTableServer
) -> None:
    server.on_hello = [play_state()]
    page = await open_page(browser, server)
    await page.locator("[data-tab=tricks]").click()
    rows = page.locator(".trick-list .trick-row")
    await expect(rows).to_have_count(2)
    await expect(rows.nth(0).locator(".label")).to_have_text("Взятка 1")
    await expect(rows.nth(0).locator(".play.won figcaption")).to_have_text("🤖 Борис Петрович")
    await expect(rows.nth(1).locator(".play.won .card")).to_have_attribute("data-card", "AD")
    await page.locator("[data-tab=sheet]").click()
    await expect(page.locator("#panel pre")).to_contain_text("Аня           4     0")
    await page.locator("[data-tab=review]").click()
    await expect(page.locator("#panel pre")).to_have_text(
        "Сдача 1: Вера играла 6♠ и взяла 6 взяток."
    )
    await page.locator("[data-tab=review]").click()  # a second tap closes it
    await expect(page.locator("#panel")).to_be_hidden()


async def test_a_finished_deal_replays_card_by_card(browser: Any, server: FakeTableServer) -> None:
    server.on_hello = [play_state()]
    page = await open_page(browser, server)
    assert (await server.next_frame())["t"] == "hello"
    await page.locator("[data-tab=replay]").click()
    await expect(page.locator(".deal-btn")).to_have_text(["Сдача 1"])
    await page.locator(".deal-btn").click()
    assert await server.next_frame() == {"t": "replay", "deal": 1}
    await server.send(
        {
            "t": "replay",
            "deal": 1,
            "hands": {"0": ["AS", "7H"], "1": ["KS", "8H"], "2": ["QS", "9H"]},
            "talon": ["7C", "8C"],
            "tricks": [
                [{"seat": 0, "card": "AS"}, {"seat": 1, "card": "KS"}, {"seat": 2, "card": "QS"}],
                [{"seat": 0, "card": "7H"}, {"seat": 1, "card": "8H"}, {"seat": 2, "card": "9H"}],
            ],
            "result": "Сдача 1: распасы.",
        }
    )
    await expect(page.locator(".replay .counter")).to_have_text("0 / 6")
    await expect(page.locator(".replay-hand .card")).to_have_count(6)
    for _ in range(4):
        await page.locator("[data-step=next]").click()
    await expect(page.locator(".replay .counter")).to_have_text("4 / 6")
    # the second trick's first card lies on the table; the first trick is gone
    await expect(page.locator(".replay-trick .card")).to_have_count(1)
    await expect(page.locator(".replay-trick .card")).to_have_attribute("data-card", "7H")
    await expect(page.locator(".replay-hand .card")).to_have_count(2)
    await expect(page.locator(".replay .result")).to_have_count(0)
    await page.locator("[data-step=last]").click()
    await expect(page.locator(".replay .result")).to_have_text("Сдача 1: распасы.")


async def test_the_sheet_opens_by_itself_when_the_game_is_over(
    browser: Any, server: FakeTableServer
) -> None:
    server.on_hello = [play_state()]
    page = await open_page(browser, server)
    await expect(page.locator("#hand .card-btn")).to_have_count(8)
    await expect(page.locator("#panel")).to_be_hidden()
    await server.send(
        play_state(
            over=True, hand=[], buttons=[], trick=[], turn_left=None, status=["Игра окончена"]
        )
    )
    await expect(page.locator("[data-tab=sheet]")).to_have_attribute("aria-expanded", "true")
    await expect(page.locator("#panel pre")).to_contain_text("Аня           4     0")
    await expect(page.locator("#hand .card-btn")).to_have_count(0)
    await expect(page.locator(".timer")).to_have_count(0)


async def test_in_open_defence_the_passers_cards_are_tapped_below_his_name(
    browser: Any, server: FakeTableServer
) -> None:
    state = play_state()
    state["open"] = {"2": ["KC", "JC", "7H"]}
    state["controlled"] = {
        "2": [
            {"card": "KC", "data": None, "marked": False},
            {"card": "JC", "data": None, "marked": False},
            {"card": "7H", "data": "c:h:p7H", "marked": False},
        ]
    }
    server.on_hello = [state]
    page = await open_page(browser, server)
    assert (await server.next_frame())["t"] == "hello"
    passer = page.locator("#hand .controlled[data-seat='2']")
    await expect(passer.locator(".label")).to_have_text("🤖 Вера")
    await expect(passer.locator(".card-btn:enabled")).to_have_count(1)
    # his open hand also lies face up at his seat
    await expect(page.locator(".seat.place-right .open-hand .card")).to_have_count(3)
    await passer.locator(".card-btn[data-card='7H']").click()
    assert await server.next_frame() == {"t": "press", "data": "c:h:p7H"}


async def test_a_talon_card_led_in_all_pass_lies_in_the_middle(
    browser: Any, server: FakeTableServer
) -> None:
    server.on_hello = [play_state(trick=[{"seat": None, "card": "9S"}], talon=["9S"])]
    page = await open_page(browser, server)
    await expect(page.locator(".centre .trick .card")).to_have_class("card black from-talon")
    await expect(page.locator(".centre .talon .label")).to_have_text("Прикуп")


async def test_a_long_status_folds_behind_its_first_line(
    browser: Any, server: FakeTableServer
) -> None:
    lines = [
        "Торговля: Аня 6♠️ · 🤖 Борис пас",
        "Игра: 6♠️ — Аня",
        "Висты: 🤖 Вера вист",
        "Взятки: Аня 2 · 🤖 Борис 1",
        "👉 Ваш ход: выберите карту",
    ]
    server.on_hello = [play_state(status=lines)]
    page = await open_page(browser, server)
    lines = [line.replace("\ufe0f", "") for line in lines]  # suits drawn as text symbols
    await expect(page.locator("#status summary")).to_have_text(lines[0])
    await expect(page.locator("#status .line.last")).to_have_text(lines[-1])
    await expect(page.locator("#status .line.last")).to_be_visible()
    middle = page.locator("#status details > div.line")
    await expect(middle).to_have_text(lines[1:-1])
    await expect(middle.first).to_be_hidden()
    await page.locator("#status summary").click()
    await expect(middle.first).to_be_visible()
    # it stays open when the next state comes
    await server.send(play_state(status=lines, move=18))
    await expect(page.locator("#hand .card-btn")).to_have_count(8)
    await expect(page.locator("#status details")).to_have_attribute("open", "")


async def test_the_replay_gives_the_declarer_the_talon_less_his_discard(
    browser: Any, server: FakeTableServer
) -> None:
    server.on_hello = [play_state()]
    page = await open_page(browser, server)
    await page.locator("[data-tab=replay]").click()
    await page.locator(".deal-btn").click()
    await server.send(
        {
            "t": "replay",
            "deal": 1,
            "dealer": 2,
            "hands": {"0": ["AS", "KS", "7D"], "1": ["QS", "8H", "9H"], "2": ["JS", "10H", "JH"]},
            "talon": ["AH", "7C"],
            "moves": [{"seat": 0, "bid": "6S"}, {"seat": 0, "discard": ["7D", "7C"]}],
            "tricks": [
                {
                    "cards": [
                        {"seat": 0, "card": "AS"},
                        {"seat": 1, "card": "QS"},
                        {"seat": 2, "card": "JS"},
                    ],
                    "winner": 0,
                }
            ],
            "result": "Сдача 1.",
        }
    )
    declarer = page.locator(".replay-hand").nth(0)
    await expect(declarer.locator(".card")).to_have_count(3)
    assert await declarer.locator(".card").evaluate_all("cs => cs.map(c => c.dataset.card)") == [
        "AS",
        "KS",
        "AH",
    ]
