"""Which database a setting names, and what is said about it (no password ever)."""

from __future__ import annotations

import pytest

from bot.__main__ import main as bot_main
from bot.config import Config, ConfigError
from storage import describe, is_postgres
from storage.connection import migrations


def test_database_url_wins_and_must_be_postgres() -> None:
    env = {"BOT_TOKEN": "123:abc", "DATABASE_PATH": "/data/bot.sqlite3"}
    assert Config.from_env(env).database == "/data/bot.sqlite3"
    url = "postgres://bot:pw@db.example.org:5432/preferans"
    assert Config.from_env({**env, "DATABASE_URL": url}).database == url
    with pytest.raises(ConfigError, match="DATABASE_URL must be a PostgreSQL URL"):
        Config.from_env({**env, "DATABASE_URL": "mysql://db/x"})


def test_a_password_is_never_shown() -> None:
    assert is_postgres("postgresql://x@h/db") and not is_postgres("postgres.sqlite3")
    assert describe("postgres://bot:s3cret@db.example.org:5432/p") == (
        "postgres://bot:***@db.example.org:5432/p"
    )
    assert describe("postgresql://bot@h/p") == "postgresql://bot@h/p"
    assert describe("/data/bot.sqlite3") == "/data/bot.sqlite3"


def test_both_dialects_have_every_migration() -> None:
    sqlite, postgres = migrations("sqlite"), migrations("postgres")
    assert [n for n, _, _ in sqlite] == [n for n, _, _ in postgres] == list(range(1, 9))
    shared = [
        name for (_, name, _), (_, other, _) in zip(sqlite, postgres, strict=True) if name == other
    ]
    assert shared == [
        "003_turn_notify.sql",
        "004_card_ranks.sql",
        "005_autoplay.sql",
        "007_shown.sql",
    ]


def test_an_unreachable_database_url_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BOT_TOKEN", "123:abc")
    monkeypatch.setenv("DATABASE_URL", "postgresql://bot:s3cret@127.0.0.1:1/preferans")
    assert bot_main() == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1, err
    assert err.startswith("error: cannot connect to the database postgresql://bot:***@127.0.0.1:1/")
    assert "s3cret" not in err
