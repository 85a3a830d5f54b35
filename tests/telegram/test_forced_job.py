"""The forced card in Telegram: the setting in private /settings, and the
scheduler's job that fires after the pause and plays the card."""

from __future__ import annotations

from pathlib import Path

from bot.core.forced import forced_move
from bot.preferans.actions import Action, Bid, Play
from tests.bot_helpers import open_and_start, running_bot
from tests.service.helpers import pick


def _pass_or_card(action: Action) -> bool:
    """Everybody passes and the first card offered is played: an all-pass to its end."""
    return isinstance(action, Play) or (isinstance(action, Bid) and action.is_pass)


async def test_the_pause_job_plays_the_only_card(tmp_path: Path) -> None:
    async with running_bot(tmp_path, forced_pause=0.05) as h:
        # Anna switches it off and on again in her private /settings
        anna = h.users[0]
        await h.say(anna, "/settings", chat=anna)
        menu = h.fake.last_bot_message(anna)
        assert menu is not None and "The only card" in menu.content
        data = next(d for label, d in menu.buttons if d and label.endswith("press it myself"))
        assert (await h.press(anna, menu, data)).get("text") == "Saved."
        assert await h.service.registry.autoplay(anna.id) is False
        menu = h.fake.message(menu.chat_id, menu.message_id)
        assert "✅ I press it myself" in [label for label, _ in menu.buttons]
        assert "I press it myself" in menu.content
        data = next(d for label, d in menu.buttons if d and label.endswith("plays itself"))
        await h.press(anna, menu, data)
        assert await h.service.registry.autoplay(anna.id) is True
        await open_and_start(h)
        table = h.table()
        service = h.service
        # the moves are made through the service (no buttons: cheap); the presenter shows
        # them and re-arms the timers as after any press
        while forced_move(table) is None:
            user = h.actor()
            assert user is not None
            # everybody passes, then the lowest cards are played
            action = pick(table, _pass_or_card)
            h.rt.show(await service.act(table.id, user.id, table.move, "x", action))
        move = table.move
        # the job runs on the JobQueue after 0.05 s (the time-out only bounds a hang)
        await h.fake.wait_until(lambda: table.move != move, timeout=30, what="the forced card")
        assert table.move > move
        await h.idle()


async def test_a_settings_button_pressed_after_a_restart_ticks_the_stored_choices(
    tmp_path: Path,
) -> None:
    """After a restart (nothing of the player in memory) the settings message edited on a
    press ticks what is stored, the card ranks included."""
    async with running_bot(tmp_path) as h:
        anna = h.users[0]
        await h.say(anna, "/settings", chat=anna)
        menu = h.fake.last_bot_message(anna)
        assert menu is not None
        data = next(d for label, d in menu.buttons if d and "В Д К Т" in label)
        await h.press(anna, menu, data)
        fake, people, group = h.fake, h.users, h.group
    async with running_bot(tmp_path, fake=fake, people=people, group=group) as h:
        menu = h.fake.message(menu.chat_id, menu.message_id)
        data = next(d for label, d in menu.buttons if d and label.endswith("never"))
        await h.press(anna, menu, data)
        await h.idle()
        labels = [label for label, _ in h.fake.message(menu.chat_id, menu.message_id).buttons]
        assert "✅ never" in labels and "✅ В Д К Т (Russian)" in labels
