"""The processes that run beside the app (`capsa sweep`, `capsa webhooks dispatch`) run with
its statement timeout, DATABASE_STATEMENT_TIMEOUT_MS: the docs said every connection, and
they ran with none, so a stuck lock or a runaway statement held them for ever."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import pg_admin_url

from service.commands import database, webhooks
from service.services.webhooks.dispatcher import Settings


def test_the_dispatchers_database_takes_the_apps_statement_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    from sqlalchemy import text

    url = pg_admin_url()
    if url is None:
        pytest.skip("TEST_DATABASE_URL is not set: the timeout is PostgreSQL's")
    monkeypatch.setenv("DATABASE_STATEMENT_TIMEOUT_MS", "1234")
    db = webhooks.dispatcher_database(url, Settings())
    try:
        with db.engine.connect() as conn:
            assert conn.execute(text("SHOW statement_timeout")).scalar_one() == "1234ms"
    finally:
        db.dispose()


@pytest.mark.parametrize(("value", "expected"), [("", 5000), ("0", 0), ("250", 250), (" 250 ", 250)])
def test_the_setting_reads_as_the_app_reads_it(monkeypatch: pytest.MonkeyPatch, value: str, expected: int) -> None:
    monkeypatch.setenv("DATABASE_STATEMENT_TIMEOUT_MS", value)
    assert database.statement_timeout_ms() == expected


@pytest.mark.parametrize("value", ["5s", "-1", "1.5"])
def test_a_bad_value_is_one_line_naming_the_setting(monkeypatch: pytest.MonkeyPatch, value: Any) -> None:
    monkeypatch.setenv("DATABASE_STATEMENT_TIMEOUT_MS", value)
    with pytest.raises(database.DatabaseProblem, match=f"DATABASE_STATEMENT_TIMEOUT_MS must be .*not {value!r}"):
        database.statement_timeout_ms()
