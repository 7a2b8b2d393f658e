"""A database or Redis URL as messages and logs show it (`without_password`): every secret it
carries hidden, in its credentials or in any query parameter that names a password or a
secret (libpq's `sslpassword`, the key file's passphrase; Redis's `sentinel_password`)."""

from __future__ import annotations

import pytest

from service.adapters.db import without_password


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql+psycopg://u:PW1@db:5432/capsa", "postgresql+psycopg://u:***@db:5432/capsa"),
        ("postgresql+psycopg://u@db/capsa?password=PW1", "postgresql+psycopg://u@db/capsa?password=***"),
        (
            "postgresql+psycopg://u:PW1@db/capsa?sslmode=verify-full&sslpassword=PW2",
            "postgresql+psycopg://u:***@db/capsa?sslmode=verify-full&sslpassword=***",
        ),
        ("redis://h:6379/0?sentinel_password=PW3&db=1", "redis://h:6379/0?db=1&sentinel_password=***"),
        ("redis+unix:///run/r.sock?db=0&password=s3cret", "redis+unix:///run/r.sock?db=0&password=***"),
        ("postgresql+psycopg://u:PW1@db:port/capsa?client_secret=PW4", "postgresql+psycopg://u:***@db:port/capsa?client_secret=***"),
        ("sqlite:///var/capsa.db", "sqlite:///var/capsa.db"),
    ],
)
def test_every_secret_in_a_url_is_hidden(url, shown):
    assert without_password(url) == shown
    for secret in ("PW1", "PW2", "PW3", "PW4", "s3cret"):
        assert secret not in without_password(url)
