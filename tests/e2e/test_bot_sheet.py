"""The pulka sheet in the group (bot/sheet_messages.py): one sheet message per table,
a picture by default, replaced after every deal, on /pulka and at the end."""

from __future__ import annotations

import html
import io
import logging
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from bot.core.codec import settings_from_json, settings_json
from bot.core.model import Table, TableSettings
from bot.core.modes import SheetMode
from bot.preferans.game import Game
from bot.render.keyboards import settings_keyboard
from bot.render.picture.layout import sheet_layout
from bot.render.results import result_text, sheet_before
from bot.telegram import sheet as sheet_messages
from bot.telegram.sheet import caption_length
from tests.bot_helpers import (
    NO_FLOOD,
    Harness,
    flood_waits,
    open_and_start,
    play_deal,
    running_bot,
    simple_policy,
    waits_after_429,
)
from tests.fakes import FakeTelegram, MessageView


def _plain(text_html: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", text_html))


async def quick_deal(h: Harness) -> None:
    """6♠ by the first hand, both defenders pass: the deal ends without play."""
    first = int(h.deal().first_hand)
    await play_deal(h, simple_policy({first: ["b6S"]}, contract="c6S"))


def photos(h: Harness) -> list[MessageView]:
    return [m for m in h.fake.bot_messages(h.group) if m.media is not None]


def sheet_texts(h: Harness) -> list[MessageView]:
    """Visible text sheets (the monospace pulka) in the group."""
    return [
        m
        for m in h.fake.bot_messages(h.group)
        if m.media is None and any(e["type"] == "pre" for e in m.entities)
    ]


def png_size(m: MessageView) -> tuple[int, int]:
    assert m.media is not None and m.media.kind == "photo"
    img = Image.open(io.BytesIO(m.media.data))
    img.load()
    assert img.format == "PNG"
    return img.size


def expected_size(table: Table) -> tuple[int, int]:
    assert table.game is not None
    layout = sheet_layout(table.game, table.settings.lang)
    return layout.width, layout.height


def last_result(table: Table) -> str:
    game = table.game
    assert game is not None
    n = len(game.finished_deals)
    finished = game.finished_deals[-1]
    before = sheet_before(game, finished)
    return _plain(result_text(table, finished, n, table.settings.lang, before))


def _table_message_id(h: Harness) -> int:
    """The id of the group's message of the current deal (it is sent)."""
    slot = h.table_slot()
    assert slot is not None and slot.message_id is not None
    return slot.message_id


async def test_after_each_deal_one_sheet_picture_replaces_the_previous(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        threads: list[str] = []
        draw = h.rt.sheets.render_picture

        def recording(game: Game, lang: str) -> bytes:  # drawn off the event loop
            threads.append(threading.current_thread().name)
            return draw(game, lang)

        h.rt.sheets.render_picture = recording
        await open_and_start(h)
        table = h.table()
        first_table_msg = _table_message_id(h)
        await quick_deal(h)
        [sheet] = photos(h)
        assert sheet.caption is not None and sheet.media is not None
        assert sheet.caption == last_result(table) and sheet.caption.startswith("Deal 1:")
        assert png_size(sheet) == expected_size(table)
        assert (sheet.media.width, sheet.media.height) == expected_size(table)
        # between the finished deal's table message and the new deal's one
        assert first_table_msg < sheet.message_id < _table_message_id(h)
        assert threads and threading.main_thread().name not in threads
        kept = h.rt.store.get(table.id, "sheet", h.group.id, 0)
        assert kept is not None and (kept.message_id, kept.note) == (sheet.message_id, "photo")
        rows = await h.service.storage.shown_rows(table.id)  # kept for a restart
        assert [r.message_id for r in rows if r.kind == "sheet"] == [sheet.message_id]
        # deal 2: a new picture at the bottom, the old one deleted
        await quick_deal(h)
        [second] = photos(h)
        assert second.caption is not None
        assert second.message_id > sheet.message_id and second.caption.startswith("Deal 2:")
        assert h.fake.message(h.group.id, sheet.message_id).deleted
        assert second.caption == last_result(table)
        assert png_size(second) == expected_size(table)
        assert not h.fake.calls_to("editMessageMedia")
        assert sheet_texts(h) == []  # picture mode: no monospace sheet


async def test_pulka_resends_the_sheet_or_edits_it_in_place(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        await open_and_start(h)
        table = h.table()
        await h.say(h.users[1], "/pulka")
        [sheet] = photos(h)
        assert sheet.caption is not None and "pulka to 20, deals: 0" in sheet.caption
        last = h.fake.last_bot_message(h.group)
        assert last is not None and last.message_id == sheet.message_id
        await h.say(h.users[2], "/pulka")  # the command is newer: a new sheet at the bottom
        [again] = photos(h)
        assert again.message_id > sheet.message_id
        assert h.fake.message(h.group.id, sheet.message_id).deleted
        # nothing newer than the sheet: it is edited in place
        h.rt.sheets.pulka(table, h.game())
        await h.idle()
        [same] = photos(h)
        assert same.message_id == again.message_id and same.edit_count == 1
        assert [c.ok for c in h.fake.calls_to("editMessageMedia")] == [True]
        assert png_size(same) == expected_size(table)


async def test_an_unchanged_sheet_is_not_drawn_again(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        drawn: list[int] = []
        draw = h.rt.sheets.render_picture

        def counting(game: Game, lang: str) -> bytes:
            drawn.append(len(game.finished_deals))
            return draw(game, lang)

        h.rt.sheets.render_picture = counting
        await open_and_start(h)
        table = h.table()
        for user in (1, 2, 0):
            await h.say(h.users[user], "/pulka")
        assert drawn == [0]  # three sheets sent, one picture drawn
        assert len(photos(h)) == 1 and png_size(photos(h)[0]) == expected_size(table)
        await quick_deal(h)  # the sheet changed: drawn anew
        assert drawn == [0, 1]


async def test_sheet_setting_text_and_both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async with running_bot(tmp_path) as h:
        await open_and_start(h, settings_presses=["Lo", "Lxv", "Lb"])
        table = h.table()
        assert table.settings.sheet == "text"
        assert settings_json(table.settings)["sheet"] == "text"
        await quick_deal(h)
        [text] = sheet_texts(h)
        assert text.content.startswith("Deal 1:") and "Player" in text.content
        await quick_deal(h)
        [text2] = sheet_texts(h)
        assert text2.content.startswith("Deal 2:")
        assert h.fake.message(h.group.id, text.message_id).deleted
        assert photos(h) == []
        await h.say(h.users[0], "/pulka")
        [text3] = sheet_texts(h)
        assert text3.message_id > text2.message_id and "Player" in text3.content
    async with running_bot(tmp_path, db_name="both.sqlite3") as h:
        await open_and_start(h, settings_presses=["Lo", "Lxv", "Lxv", "Lb"])
        table = h.table()
        assert table.settings.sheet == "both"
        await quick_deal(h)
        [sheet] = photos(h)
        assert sheet.caption is not None
        assert sheet.caption.startswith(last_result(table)) and "Player" in sheet.caption
        assert any(e["type"] == "pre" for e in sheet.caption_entities)
        assert sheet_texts(h) == []
        # a caption over Telegram's limit: the picture keeps the result line, the text follows
        monkeypatch.setattr(sheet_messages, "CAPTION_LIMIT", 20)
        counted: list[int] = []
        send = h.rt.sheets._send

        async def counting(job: Any) -> int:
            counted.append(await send(job))
            return counted[-1]

        monkeypatch.setattr(h.rt.sheets, "_send", counting)
        await quick_deal(h)
        assert counted == [2]  # the picture and the text: both count in the group's window
        [sheet2] = photos(h)
        assert sheet2.caption == last_result(table)
        [text] = sheet_texts(h)
        msgs = [m.message_id for m in h.fake.bot_messages(h.group)]
        assert msgs.index(text.message_id) == msgs.index(sheet2.message_id) + 1
        assert "Player" in text.content


async def test_end_of_game_sends_the_final_sheet(tmp_path: Path) -> None:
    async with running_bot(tmp_path, defaults=TableSettings(pulka=2)) as h:
        table = await _play_a_short_game(h)
        assert table.game is not None
        assert table.game.finished and table.status == "over"
        [sheet] = photos(h)
        texts = h.group_texts()
        assert "Game over" in texts[-1]
        assert h.fake.bot_messages(h.group)[-2].message_id == sheet.message_id
        assert sheet.caption == last_result(table)
        layout = sheet_layout(table.game, "en")
        assert layout.of_kind("settlement") and png_size(sheet) == (layout.width, layout.height)
        # /pulka after the end: the final sheet again, the settlement as its caption
        await h.say(h.users[0], "/pulka")
        [final] = photos(h)
        assert final.caption is not None
        assert final.message_id > sheet.message_id and "Game over" in final.caption


async def test_stop_sends_the_final_sheet_then_the_settlement(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        await open_and_start(h)
        table = h.table()
        await quick_deal(h)
        [before] = photos(h)
        for user in h.users[:2]:
            await h.say(user, "/stop")
        assert table.game is not None
        assert table.game.stopped and table.status == "over"
        [sheet] = photos(h)
        assert sheet.message_id > before.message_id
        assert sheet.caption == "The game was stopped early."
        msgs = h.fake.bot_messages(h.group)
        assert msgs[-2].message_id == sheet.message_id and "Game stopped" in msgs[-1].content
        layout = sheet_layout(table.game, "en")
        assert layout.of_kind("settlement") and png_size(sheet) == (layout.width, layout.height)


async def test_a_refused_photo_falls_back_to_the_text_sheet(tmp_path: Path) -> None:
    async with running_bot(tmp_path) as h:
        await open_and_start(h)
        table = h.table()
        h.fake.fail_next("sendPhoto", error=(400, "Bad Request: IMAGE_PROCESS_FAILED"))
        await quick_deal(h)
        assert photos(h) == []
        [text] = sheet_texts(h)
        assert text.content.startswith("Deal 1:") and "Player" in text.content
        kept = h.rt.store.get(table.id, "sheet", h.group.id, 0)
        assert kept is not None and (kept.message_id, kept.note) == (text.message_id, "text")
        # the next deal's picture goes through and replaces the text sheet
        await quick_deal(h)
        [sheet] = photos(h)
        assert sheet_texts(h) == [] and h.fake.message(h.group.id, text.message_id).deleted

        # a picture that cannot be drawn: the text sheet too
        def broken(game: Game, lang: str) -> bytes:
            raise RuntimeError("no picture today")

        h.rt.sheets.render_picture = broken
        await quick_deal(h)
        assert photos(h) == []
        [text] = sheet_texts(h)
        assert text.content.startswith("Deal 3:")


@pytest.mark.waits
async def test_flood_control_on_the_photo_is_waited_out(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "bot.telegram.pacing")
    async with running_bot(tmp_path) as h:
        await open_and_start(h)
        h.fake.fail_next("sendPhoto", error=(429, 0.2))  # (time scaled down)
        await quick_deal(h)
        [sheet] = photos(h)
        assert sheet.caption is not None and sheet.caption.startswith("Deal 1:")
        assert [e.method for e in h.fake.flood_errors] == ["sendPhoto"]
        [(wait, waited)] = waits_after_429(h.fake)
        assert waited >= wait
        assert flood_waits(caplog) == 1


async def test_a_restart_keeps_replacing_the_sheet(tmp_path: Path) -> None:
    fake = FakeTelegram(flood=NO_FLOOD)
    async with running_bot(tmp_path, fake=fake) as h:
        people, group = h.users, h.group
        await open_and_start(h)
        await quick_deal(h)
        [sheet] = photos(h)
    async with running_bot(tmp_path, fake=fake, people=people, group=group) as h2:
        kept = h2.rt.store.get(h2.table().id, "sheet", group.id, 0)
        assert kept is not None and kept.message_id == sheet.message_id
        await quick_deal(h2)
        [new] = photos(h2)
        assert new.message_id > sheet.message_id
        assert fake.message(group.id, sheet.message_id).deleted


def test_sheet_setting_is_stored_and_old_tables_load() -> None:
    assert TableSettings().sheet == "picture"
    assert settings_from_json({}).sheet == "picture"  # stored before the setting existed
    assert settings_from_json({"sheet": "nonsense"}).sheet == "picture"
    both = TableSettings(sheet=SheetMode.BOTH)
    assert settings_from_json(settings_json(both)).sheet == "both" and both.copy().sheet == "both"
    table = Table(id=1, chat_id=-1, owner_id=1, settings=TableSettings())
    assert caption_length("<b>a&amp;b</b> ♠️") == 6  # no tags, entities as one, UTF-16
    table.settings.lang = "en"
    labels = [b.text for row in settings_keyboard(table).inline_keyboard for b in row]
    assert "Sheet: picture" in labels
    table.settings.sheet = SheetMode.BOTH
    labels = [b.text for row in settings_keyboard(table).inline_keyboard for b in row]
    assert "Sheet: picture + text" in labels


async def test_pulka_of_a_finished_game_after_a_restart_replaces_its_last_sheet(
    tmp_path: Path,
) -> None:
    fake = FakeTelegram(flood=NO_FLOOD)
    small = TableSettings(pulka=2)
    async with running_bot(tmp_path, fake=fake, defaults=small) as h:
        people, group = h.users, h.group
        table = await _play_a_short_game(h)
        assert table.status == "over"
        [sheet] = photos(h)
    async with running_bot(tmp_path, fake=fake, people=people, group=group, defaults=small) as h2:
        await h2.say(h2.users[0], "/pulka")  # the game is not in memory: read from the archive
        [final] = photos(h2)
        assert final.caption is not None
        assert final.message_id > sheet.message_id and "Game over" in final.caption
        assert fake.message(group.id, sheet.message_id).deleted  # one sheet per table


async def _play_a_short_game(h: Harness) -> Table:
    """Open, start and play a game of a small pulka to its end."""
    await open_and_start(h)
    table = h.table()
    for _ in range(12):
        assert table.game is not None
        if table.game.over:
            break
        await quick_deal(h)
    return table
