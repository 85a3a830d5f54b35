"""A person playing through the Mini App's socket."""

from __future__ import annotations

from tests.bot_helpers import Harness, code_of

from .helpers import Frame, Socket


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
