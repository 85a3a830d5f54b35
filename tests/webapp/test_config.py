"""The Mini App's settings from the environment."""

from __future__ import annotations

import pytest

from bot.config import Config, ConfigError

TOKEN = {"BOT_TOKEN": "1:x"}


def test_off_without_the_url() -> None:
    config = Config.from_env(TOKEN)
    assert config.webapp_url is None
    assert (config.webapp_listen, config.webapp_port, config.webapp_max_age) == (
        "0.0.0.0",
        8080,
        86_400,
    )


def test_the_port_is_webapp_port_else_port_else_8080() -> None:
    url = {**TOKEN, "WEBAPP_URL": "https://pref.example.com/app/"}
    assert Config.from_env(url).webapp_port == 8080
    assert Config.from_env({**url, "PORT": "3000"}).webapp_port == 3000
    config = Config.from_env({**url, "PORT": "3000", "WEBAPP_PORT": "9000"})
    assert config.webapp_port == 9000 and config.webapp_url == "https://pref.example.com/app/"
    config = Config.from_env({**url, "WEBAPP_LISTEN": "127.0.0.1", "WEBAPP_MAX_AGE": "3600"})
    assert (config.webapp_listen, config.webapp_max_age) == ("127.0.0.1", 3600)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"WEBAPP_URL": "http://pref.example.com/app/"}, "WEBAPP_URL must be an https://"),
        ({"WEBAPP_URL": "https://x/", "WEBAPP_PORT": "80a"}, "WEBAPP_PORT must be a whole"),
        ({"WEBAPP_URL": "https://x/", "WEBAPP_MAX_AGE": "-1"}, "WEBAPP_MAX_AGE must be a whole"),
    ],
)
def test_bad_settings_are_refused(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Config.from_env({**TOKEN, **env})
