"""A person playing through the Mini App's socket, and a watch over what the bot lets
each seat see (for the privacy tests)."""

from __future__ import annotations

from typing import Any

from bot.core.model import Table
from bot.core.viewcache import seat_view
from bot.preferans.cards import Card, parse_card
from bot.preferans.seats import Seat
from tests.bot_helpers import Harness, cards_in, code_of

from .helpers import Frame, Socket

Key = tuple[int, int]
"""A table's ``(deal_no, move)``: one state of its deal."""


class Watch:
    """What each seat may see at every state of the table, noted under the table's lock
    as each change is applied (every change goes through ``TableService._locked``)."""

    def __init__(self, h: Harness) -> None:
        self.seen: dict[Seat, dict[Key, tuple[frozenset[Card], tuple[Card, ...]]]] = {}
        self.checked = 0
        service = h.service
        locked = service._locked

        async def watched(table: Table, change: Any, save: bool | None) -> Any:
            def noted(tb: Table) -> Any:
                effects = change(tb)
                self.note(tb)
                return effects

            return await locked(table, noted, save)

        service._locked = watched  # type: ignore[method-assign]

    def note(self, table: Table) -> None:
        deal = table.game.current if table.game is not None else None
        if deal is None:
            return
        for seat in map(Seat, range(deal.players)):
            sv = seat_view(deal, seat)
            views = self.seen.setdefault(seat, {})
            views[(table.deal_no, table.move)] = (sv.visible_cards(), sv.hand)

    def check(self, frame: Frame) -> None:
        """Every card of a state of the current deal is one its seat may see at that state,
        and its hand is exactly the seat's hand."""
        if frame["t"] != "state" or frame["phase"] is None:
            assert not any(frame[k] for k in ("hand", "trick", "tricks", "talon", "open"))
            return
        seat = Seat(frame["me"])
        allowed, hand = self.seen[seat][(frame["deal"], frame["move"])]
        assert [c["card"] for c in frame["hand"]] == [c.code for c in hand]
        shown = set(cards_of(frame))
        assert shown <= allowed, f"seat {seat} shown {sorted(shown - allowed)}"
        self.checked += 1


def cards_of(frame: Frame) -> list[Card]:
    """Every card a state shows of the current deal: its fields and its texts."""
    codes = [c["card"] for c in frame["hand"]]
    codes += [c["card"] for cards in frame["controlled"].values() for c in cards]
    codes += [c for cards in frame["open"].values() for c in cards]
    codes += [tc["card"] for tc in frame["trick"]]
    codes += [tc["card"] for trick in frame["tricks"] for tc in trick["cards"]]
    codes += frame["talon"] + frame["discard"] + frame["offer_hand"]
    found = [parse_card(c) for c in codes]
    for text in [*frame["status"], *(b["text"] for row in frame["buttons"] for b in row)]:
        found += cards_in(text)
    return found


def choice(frame: Frame) -> str | None:
    """The press a simple player makes in this state (``None``: not his turn): a discard
    of his first two cards, the lowest bid once then passes, no whist, the first card."""
    on_cards = [c for c in frame["hand"] if c["data"]]
    on_cards += [c for cards in frame["controlled"].values() for c in cards if c["data"]]
    buttons = [b["data"] for row in frame["buttons"] for b in row]
    codes = [code_of(d) for d in buttons]
    if on_cards and code_of(on_cards[0]["data"])[0] in "tu":  # the discard
        if sum(c["marked"] for c in frame["hand"]) < 2:
            return str(next(c["data"] for c in on_cards if not c["marked"]))
        return str(buttons[codes.index("k")])
    if on_cards:
        return str(on_cards[0]["data"])
    for wanted in ("b6S", "bP", "wP", "dC", "aN"):
        if wanted in codes:
            return str(buttons[codes.index(wanted)])
    moves = [d for d, c in zip(buttons, codes, strict=True) if c not in ("H", "Oo", "Ob")]
    return str(moves[0]) if moves else None


async def play_deal(h: Harness, socket: Socket, first: Frame | None = None) -> Frame:
    """The socket's player plays the table's current deal to its end, reading states and
    making his moves as :func:`choice` picks them; returns the first state after it."""
    table = h.table()
    deal_no = table.deal_no
    frame = first or await socket.state()
    while frame["deal"] == deal_no and not frame["over"]:
        pressed = choice(frame)
        if pressed is not None and frame["move"] == table.move:
            await socket.press(pressed)
            # the press changed the table (a mark for the discard keeps the move number)
            frame = await socket.until(lambda f: f["t"] in ("state", "toast"))
            assert frame["t"] == "state", frame
        else:
            frame = await socket.state()
    return frame
