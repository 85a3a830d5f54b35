"""Offer and answer buttons: their codes fit the callback data and the route."""

from __future__ import annotations

import re

from bot.preferans.actions import Accept, Offer
from bot.preferans.seats import Seat
from bot.render.callbacks import action_code, encode
from bot.telegram.buttons import PATTERNS


def test_offer_and_answer_codes_fit_the_button_data_and_its_route() -> None:
    actions = [
        Offer(Seat(3), (10, 0, 0, 0)),
        Offer(Seat(0), (0, 4, 6)),
        Offer(Seat(0), (0, 6, 4)),
        Accept(Seat(1), True),
        Accept(Seat(1), False),
    ]
    codes = [action_code(a) for a in actions]
    assert codes == ["o10-0-0-0", "o0-4-6", "o0-6-4", "aY", "aN"]
    for code in codes:
        assert re.match(PATTERNS["move"], encode(36**6, 36**6, code))
