"""Two groups of the same title: a player at both tables can tell his
hand messages apart, and ``/export`` in private gives him the record of each game."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from bot.render.text import title_of
from bot.telegram.history import export_command
from bot.telegram.runtime import BotData
from tests.service.helpers import GROUP, PEOPLE, service_on, started
from tests.telegram.test_presenter import _presenter

OTHER_GROUP = GROUP - 1


async def test_hand_headers_of_two_tables_of_one_title_differ() -> None:
    async with service_on() as service:
        first = await started(service)
        presenter, outbox, _, _ = _presenter(service)
        anna = PEOPLE[0]
        # One table: the group's title alone.
        assert title_of(first, service.registry.tables_of(anna.user_id)) == "Клуб"
        presenter.show_hand(first, first.seat_of(anna.user_id))  # type: ignore[arg-type]
        (_, alone, _) = outbox.shown[-1]
        assert "Клуб" in alone and "#" not in alone.splitlines()[0]
        second = await started(service, chat_id=OTHER_GROUP)  # the same people, same title
        assert first.title == second.title == "Клуб"
        headers = []
        for table in (first, second):
            presenter.show_hand(table, table.seat_of(anna.user_id))  # type: ignore[arg-type]
            (slot, text, _) = outbox.shown[-1]
            assert slot.chat_id == anna.user_id
            headers.append(text.splitlines()[0])
        assert headers[0] != headers[1]
        assert f"Клуб #{first.id}" in headers[0] and f"Клуб #{second.id}" in headers[1]


@dataclass
class _Outbox:
    runs: list[Any] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)

    def call(self, chat_id: int, run: Any) -> None:
        self.runs.append(run)

    def answer_command(self, chat_id: int, text: str, *, who: int | None = None) -> None:
        self.answers.append(text)

    async def retry(self, send: Any) -> Any:
        return await send()


@dataclass
class _Bot:
    documents: list[tuple[int, str, str, bytes]] = field(default_factory=list)

    async def send_document(self, chat_id: int, document: Any, **kw: Any) -> None:
        self.documents.append(
            (chat_id, document.filename, kw["caption"], document.input_file_content)
        )


async def _export(
    service: Any, user_id: int
) -> tuple[list[tuple[int, str, str, bytes]], list[str]]:
    outbox, bot = _Outbox(), _Bot()
    rt = SimpleNamespace(service=service, outbox=outbox)
    context = SimpleNamespace(bot_data=BotData(rt), bot=bot)  # type: ignore[arg-type]
    update = SimpleNamespace(
        effective_chat=SimpleNamespace(id=user_id, type="private"),
        effective_user=SimpleNamespace(id=user_id, language_code="ru"),
    )
    await export_command(update, context)  # type: ignore[arg-type]
    for run in outbox.runs:
        await run()
    return bot.documents, outbox.answers


async def test_export_in_private_sends_every_running_game_of_the_player() -> None:
    async with service_on() as service:
        anna = PEOPLE[0]
        docs, answers = await _export(service, anna.user_id)
        assert docs == [] and answers == ["Нет игры, которую можно выгрузить."]
        first = await started(service)
        docs, _ = await _export(service, anna.user_id)
        assert [caption.split("\n")[0] for _, _, caption, _ in docs] == ["<b>Клуб</b>"]
        second = await started(service, chat_id=OTHER_GROUP)
        docs, _ = await _export(service, anna.user_id)
        assert [name for _, name, _, _ in docs] == [
            f"pulka-{first.id}.json",
            f"pulka-{second.id}.json",
        ]
        for (chat, _, caption, data), table in zip(docs, (first, second), strict=True):
            assert chat == anna.user_id
            assert caption.startswith(f"<b>Клуб #{table.id}</b>\n")
            assert json.loads(data) == service.registry.live_record(table)
        # Someone at no table is told there is nothing to export.
        docs, answers = await _export(service, 99)
        assert docs == [] and answers
