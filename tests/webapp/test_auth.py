"""initData as Telegram signs it: the documented algorithm, its age, the user it names."""

from __future__ import annotations

import hashlib
import hmac
import json
from urllib.parse import parse_qsl, urlencode

import pytest

from bot.webapp.auth import AuthError, StaleAuth, WebAppUser, check_init_data, sign

TOKEN = "123456:ABCdef_ghi-JKL"
NOW = 1_800_000_000
USER = {"id": 500000001, "first_name": "Анна", "last_name": "К", "language_code": "ru"}


def fields(**extra: str) -> dict[str, str]:
    base = {
        "query_id": "AAHdF6IQAAAAAN0XohDhrOrc",
        "user": json.dumps(USER, ensure_ascii=False),
        "auth_date": str(NOW - 10),
    }
    return {**base, **extra}


def test_a_valid_signature_names_the_user() -> None:
    user = check_init_data(sign(fields(), TOKEN), TOKEN, now=NOW)
    assert user == WebAppUser(500000001, "Анна", "К", "", "ru")
    assert user.full_name == "Анна К"


def test_the_documented_algorithm_by_hand() -> None:
    """Computed step by step as Telegram's page says, independent of ``sign``."""
    data = fields()
    check = "\n".join(f"{k}={data[k]}" for k in sorted(data))
    secret = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
    digest = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    init = urlencode({**data, "hash": digest})
    assert check_init_data(init, TOKEN, now=NOW).id == 500000001


def test_a_forged_hash_is_refused() -> None:
    init = urlencode({**fields(), "hash": "0" * 64})
    with pytest.raises(AuthError, match="wrong hash") as err:
        check_init_data(init, TOKEN, now=NOW)
    assert not isinstance(err.value, StaleAuth)


def test_another_bots_signature_is_refused() -> None:
    with pytest.raises(AuthError, match="wrong hash"):
        check_init_data(sign(fields(), "999:other"), TOKEN, now=NOW)


def test_a_changed_field_breaks_the_signature() -> None:
    signed = dict(parse_qsl(sign(fields(), TOKEN)))
    signed["user"] = json.dumps({**USER, "id": 500000002})
    with pytest.raises(AuthError, match="wrong hash"):
        check_init_data(urlencode(signed), TOKEN, now=NOW)


def test_an_added_field_breaks_the_signature() -> None:
    init = sign(fields(), TOKEN) + "&start_param=x"
    with pytest.raises(AuthError, match="wrong hash"):
        check_init_data(init, TOKEN, now=NOW)


def test_stale_and_future_dates_are_refused() -> None:
    old = sign(fields(auth_date=str(NOW - 86_401)), TOKEN)
    with pytest.raises(StaleAuth, match="ago"):
        check_init_data(old, TOKEN, now=NOW)
    assert check_init_data(old, TOKEN, now=NOW, max_age=90_000).id == 500000001
    ahead = sign(fields(auth_date=str(NOW + 61)), TOKEN)
    with pytest.raises(StaleAuth, match="ahead"):
        check_init_data(ahead, TOKEN, now=NOW)
    assert check_init_data(sign(fields(auth_date=str(NOW + 60)), TOKEN), TOKEN, now=NOW)


def test_missing_parts_are_refused() -> None:
    no_user = fields()
    del no_user["user"]
    with pytest.raises(AuthError, match="no user"):
        check_init_data(sign(no_user, TOKEN), TOKEN, now=NOW)
    no_date = fields()
    del no_date["auth_date"]
    with pytest.raises(AuthError, match="no auth_date"):
        check_init_data(sign(no_date, TOKEN), TOKEN, now=NOW)
    with pytest.raises(AuthError, match="no hash"):
        check_init_data(urlencode(fields()), TOKEN, now=NOW)
    with pytest.raises(AuthError, match="no initData"):
        check_init_data("", TOKEN, now=NOW)


@pytest.mark.parametrize(
    ("user", "why"),
    [
        ("not json", "user is not JSON"),
        ("[1, 2]", "user is not an object"),
        ('{"first_name": "A"}', "user has no id"),
        ('{"id": "5"}', "user has no id"),
        ('{"id": -5}', "user has no id"),
    ],
)
def test_a_malformed_user_is_refused(user: str, why: str) -> None:
    with pytest.raises(AuthError, match=why):
        check_init_data(sign(fields(user=user), TOKEN), TOKEN, now=NOW)


@pytest.mark.parametrize(
    "init",
    ["a", "hash", "=&=", "x" * 5000, "hash=1&hash=2&user=%7B%7D&auth_date=1"],
)
def test_malformed_init_data_is_refused(init: str) -> None:
    with pytest.raises(AuthError):
        check_init_data(init, TOKEN, now=NOW)


def test_a_repeated_field_is_refused_even_if_signed() -> None:
    init = sign(fields(), TOKEN) + "&auth_date=1"
    with pytest.raises(AuthError, match="repeats"):
        check_init_data(init, TOKEN, now=NOW)
