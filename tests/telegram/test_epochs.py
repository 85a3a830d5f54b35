"""A slot's queued state: rendered only when it is sent, replaced by a newer state of the
same epoch, kept (and sent first) when a state of another epoch comes (a trick's end)."""

from __future__ import annotations

from collections.abc import Callable

from bot.telegram.outbox import Outbox
from bot.telegram.queue import ChatQueue, Content, Show
from bot.telegram.shown import Slot


def _render(name: str, calls: list[str]) -> Callable[[], Content]:
    def render() -> Content:
        calls.append(name)
        return name, None

    return render


def _send(chat: ChatQueue) -> list[Content | None]:
    """Take every queued item as the outbox does, in order: what each sends."""
    out = []
    while chat.queue:
        item = chat.queue.popleft()
        assert isinstance(item, Show)
        out.append(chat.take(item))
    return out


def test_a_state_replaced_while_it_waits_is_never_rendered() -> None:
    chat, calls = ChatQueue(-100), list[str]()
    slot = Slot(0, "table", -100, 0)
    chat.show(slot, _render("card 1", calls), None, ("play", 3))
    chat.show(slot, _render("card 2", calls), None, ("play", 3))
    assert _send(chat) == [("card 2", None)]
    assert calls == ["card 2"]


def test_an_epochs_last_state_is_sent_before_the_next_epochs() -> None:
    chat, calls = ChatQueue(-100), list[str]()
    slot = Slot(0, "table", -100, 0)
    chat.show(slot, _render("trick 3 card 2", calls), None, ("play", 2))
    chat.show(slot, _render("trick 3 done", calls), None, ("play", 3))
    chat.show(slot, _render("trick 4 card 1", calls), None, ("play", 3))
    chat.show(slot, _render("trick 4 done", calls), None, ("play", 4))
    assert chat.unshown(slot)
    assert _send(chat) == [
        ("trick 3 card 2", None),
        ("trick 4 card 1", None),
        ("trick 4 done", None),
    ]
    assert calls == ["trick 3 card 2", "trick 4 card 1", "trick 4 done"]
    assert not chat.unshown(slot)


def test_an_epochs_last_state_that_failed_goes_again_as_it_was() -> None:
    chat, calls = ChatQueue(-100), list[str]()
    slot = Slot(0, "table", -100, 0)
    chat.show(slot, _render("trick 1 done", calls), None, ("play", 1))
    chat.show(slot, _render("trick 2 card 1", calls), None, ("play", 2))
    item = chat.queue.popleft()
    assert isinstance(item, Show)
    item.content = chat.take(item)  # sent, and Telegram did not take it
    chat.keep(item)
    assert _send(chat) == [("trick 1 done", None), ("trick 2 card 1", None)]
    assert calls == ["trick 1 done", "trick 2 card 1"]  # not rendered twice


async def test_a_dropped_slot_sends_nothing_not_even_an_epochs_kept_state() -> None:
    outbox, calls = Outbox(object()), list[str]()
    outbox._closed = True  # no worker: the queue is looked at, nothing is sent
    slot = Slot(0, "table", -100, 0)
    outbox.show_lazy(slot, _render("trick 3 done", calls), epoch=("play", 3))
    outbox.show_lazy(slot, _render("trick 4 card 1", calls), epoch=("play", 4))
    assert outbox.drop(slot)  # never sent: it never will be
    assert _send(outbox._chats[-100]) == [None, None]  # both queued items send nothing
    assert calls == []
    assert not outbox.unshown(slot)
