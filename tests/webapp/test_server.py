"""The Mini App's server against the real bot: hello, refusals, presses, every socket told."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import aiohttp
from aiohttp.test_utils import TestClient, TestServer

from bot.core.viewcache import seat_view
from bot.render.callbacks import encode
from bot.render.i18n import t
from bot.webapp.server import CLOSE_AUTH, CLOSE_NO_TABLE, CLOSE_REPLACED, build_app
from tests.bot_helpers import code_of, open_and_start, play_deal, running_bot, simple_policy

from .helpers import Socket, base_url, init_data, opened, two_sockets


async def test_hello_gets_the_users_own_state(tmp_path: Path) -> None:
    async with running_bot(tmp_path, webapp=True) as h:
        await open_and_start(h)
        table = h.table()
        for user in h.users:
            async with opened(h, user, table.id) as socket:
                state = await socket.state()
            seat = table.seat_of(user.id)
            assert seat is not None
            sv = seat_view(h.deal(), seat)
            assert state["table"] == table.id and state["me"] == int(seat)
            assert state["deal"] == 1 and state["move"] == table.move
            assert [c["card"] for c in state["hand"]] == [c.code for c in sv.hand]
            assert [s["name"] for s in state["seats"]] == ["Anna", "Boris", "Vera"]
            assert state["lang"] == "en" and state["strings"]["sheet"] == "Score sheet"
            assert state["strings"]["seconds"] == "{n} s"
            to_act = sv.public.actor == seat
            assert bool(state["buttons"]) is to_act  # the bids of the one to act only
            if to_act:
                labels = [b["text"] for row in state["buttons"] for b in row]
                assert "Pass" in labels
                assert all(b["data"].count(":") == 2 for r in state["buttons"] for b in r)


async def _refused(socket: Socket) -> tuple[dict[str, object], int | None]:
    frame = await socket.receive()
    assert frame is not None
    closing = await socket.receive()
    assert closing is None
    return frame, socket.ws.close_code


async def test_forged_stale_and_foreign_init_data_get_no_table(tmp_path: Path) -> None:
    async with running_bot(tmp_path, users=4, webapp=True) as h:
        await open_and_start(h)  # three seated: the fourth is a stranger
        table = h.table()
        anna, stranger = h.users[0], h.users[3]
        cases = [
            (anna, init_data(h, anna, token="123:forged"), "auth", CLOSE_AUTH),
            (anna, init_data(h, anna, age=86_401), "stale_auth", CLOSE_AUTH),
            (anna, init_data(h, anna, age=-120), "stale_auth", CLOSE_AUTH),
            (stranger, init_data(h, stranger), "not_at_table", CLOSE_NO_TABLE),
        ]
        for user, init, code, close in cases:
            async with opened(h, user, table.id, init=init) as socket:
                frame, closed = await _refused(socket)
            assert frame["t"] == "refused" and frame["code"] == code
            assert closed == close
            assert socket.frames == [frame]  # nothing of the table
        # a changed field: Anna's signature with Boris's id
        signed = init_data(h, anna).replace(str(anna.id), str(h.users[1].id))
        async with opened(h, anna, table.id, init=signed) as socket:
            frame, closed = await _refused(socket)
        assert (frame["code"], closed) == ("auth", CLOSE_AUTH)
        async with opened(h, anna, table.id + 100) as socket:
            frame, closed = await _refused(socket)
        assert (frame["code"], closed) == ("no_table", CLOSE_NO_TABLE)
        assert frame["text"] == t("en", "webapp.refused.no_table")


async def test_a_first_frame_other_than_hello_closes_the_socket(tmp_path: Path) -> None:
    async with running_bot(tmp_path, webapp=True) as h:
        await open_and_start(h)
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(base_url(h) + "/app/ws") as ws:
                await ws.send_str('{"t": "press", "data": "1:1:bP"}')
                message = await ws.receive(timeout=30)
        assert message.type == aiohttp.WSMsgType.CLOSE and ws.close_code == 4400


async def test_a_silent_socket_is_closed(tmp_path: Path) -> None:
    async with running_bot(tmp_path, webapp=True) as h:
        miniapp = h.app.bot_data.miniapp
        assert miniapp is not None
        wiring = dataclasses.replace(miniapp.wiring, hello_timeout=0.01)
        async with TestClient(TestServer(build_app(wiring))) as client:
            async with client.ws_connect("/app/ws") as ws:
                message = await ws.receive(timeout=30)
        assert message.type == aiohttp.WSMsgType.CLOSE and ws.close_code == 4408


async def test_a_press_changes_the_game_and_every_socket_gets_the_state(tmp_path: Path) -> None:
    async with running_bot(tmp_path, webapp=True) as h:
        await open_and_start(h)
        table = h.table()
        async with two_sockets(h) as (mine, theirs, first):
            move = first["move"]
            bid = next(b for row in first["buttons"] for b in row if code_of(b["data"]) == "bP")
            await mine.press(bid["data"])
            after = await mine.state(lambda f: f["move"] > move)
            seen = await theirs.state(lambda f: f["move"] > move)
        assert table.move == after["move"] == seen["move"]
        assert h.deal().auction[0].contract is None  # the pass was made
        assert after["buttons"] == []  # not his turn any more
        assert any("pass" in line for line in seen["status"])


async def test_a_stale_or_foreign_press_gets_a_toast_and_changes_nothing(tmp_path: Path) -> None:
    async with running_bot(tmp_path, webapp=True) as h:
        await open_and_start(h)
        table = h.table()
        async with two_sockets(h) as (mine, theirs, state):
            move = table.move
            bid = next(b for row in state["buttons"] for b in row if code_of(b["data"]) == "bP")
            # the button of the player to act, pressed by another: not his turn
            await theirs.press(bid["data"])
            toast = await theirs.until(lambda f: f["t"] == "toast")
            assert toast["text"] == t("en", "err.not_turn")
            # a button of an older move
            old = encode(table.id, move - 1, "bP")
            await mine.press(old)
            toast = await mine.until(lambda f: f["t"] == "toast")
            assert toast["text"] == t("en", "err.stale")
            await mine.press("garbage")
            toast = await mine.until(lambda f: f["t"] == "toast")
            assert toast["text"] == t("en", "err.stale")
        assert table.move == move and not h.deal().auction


async def test_a_finished_deal_is_replayed_and_the_one_in_play_is_not(tmp_path: Path) -> None:
    async with running_bot(tmp_path, webapp=True) as h:
        await open_and_start(h)
        await play_deal(h, simple_policy({0: ["b6S"]}, contract="c6S", whist="wW"))
        table = h.table()
        finished = h.game().finished_deals[0].deal
        assert finished is not None and table.deal_no == 2
        async with opened(h, h.users[1], table.id) as socket:
            state = await socket.state()
            await socket.send({"t": "replay", "deal": 1})
            replay = await socket.until(lambda f: f["t"] == "replay")
            await socket.send({"t": "replay", "deal": 2})
            refused = await socket.until(lambda f: f["t"] == "toast")
        record = finished.to_json()
        assert replay["deal"] == 1 and replay["dealer"] == record["dealer"]
        assert replay["hands"] == {str(s): hand for s, hand in enumerate(record["hands"])}
        assert replay["talon"] == record["talon"] and replay["moves"] == record["moves"]
        assert len(replay["tricks"]) == 10
        assert replay["result"].startswith("Deal 1")
        assert refused["text"] == t("en", "webapp.no_replay")
        assert state["review"] is not None and "Deal 1" in state["review"]
        assert "<" not in state["review"] and "&" not in state["review"]


async def test_the_page_its_files_and_health(tmp_path: Path) -> None:
    static = tmp_path / "static"
    static.mkdir()
    (static / "index.html").write_text("<!doctype html><title>t</title>", encoding="utf-8")
    (static / "app.js").write_text("export {};", encoding="utf-8")
    async with running_bot(tmp_path, webapp=True) as h:
        miniapp = h.app.bot_data.miniapp
        assert miniapp is not None
        async with aiohttp.ClientSession() as session:
            async with session.get(base_url(h) + "/healthz") as response:
                assert response.status == 200
                assert await response.json() == {"ok": True, "database": "ok", "telegram": "ok"}
        wiring = dataclasses.replace(miniapp.wiring, static=static)
        async with TestClient(TestServer(build_app(wiring))) as client:
            page = await client.get("/app/")
            assert page.status == 200 and await page.text() == "<!doctype html><title>t</title>"
            script = await client.get("/app/static/app.js")
            assert script.status == 200 and await script.text() == "export {};"
            outside = await client.get("/app/static/../../bot.sqlite3")
            assert outside.status == 404


async def test_the_bots_stop_closes_the_open_sockets(tmp_path: Path) -> None:
    async with aiohttp.ClientSession() as session:
        async with running_bot(tmp_path, webapp=True) as h:
            await open_and_start(h)
            ws = await session.ws_connect(base_url(h) + "/app/ws")
            socket = Socket(ws)
            await socket.send({"t": "hello", "init": init_data(h, h.users[0]), "table": 1})
            await socket.state()
            closed = asyncio.create_task(socket.receive())  # (a browser answers the close)
        assert await closed is None
        assert ws.close_code == aiohttp.WSCloseCode.GOING_AWAY


async def test_a_fourth_socket_of_one_user_closes_his_oldest(tmp_path: Path) -> None:
    async with running_bot(tmp_path, webapp=True) as h:
        await open_and_start(h)
        anna, table_id = h.users[0], h.table().id
        async with (
            opened(h, anna, table_id) as first,
            opened(h, anna, table_id) as second,
            opened(h, anna, table_id) as third,
        ):
            for socket in (first, second, third):
                await socket.state()
            async with opened(h, anna, table_id) as fourth:
                await fourth.state()
                assert await first.receive() is None
                assert first.ws.close_code == CLOSE_REPLACED
                miniapp = h.app.bot_data.miniapp
                assert miniapp is not None
                viewers = miniapp.wiring.hub.viewers[table_id]
                while len(viewers) > 3:  # the first one's reader ends after its close
                    await asyncio.sleep(0.001)
                assert {v.user_id for v in viewers} == {anna.id}
                assert all(v.frames >= 1 for v in viewers)
