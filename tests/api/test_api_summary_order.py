"""A summary's rows come in one order, whatever the database's collation and whether its
rows were summed by SQL (a period, or all time before the first fold) or from the rollups
(sorted here): NULL first, then the keys by code point. On a database whose default
collation is ICU's en-US (a cluster made with en_US.UTF-8 sorts alike), SQL's `ORDER BY
key` put 'a' before 'B', and an all-time summary read from the rollups 'B' before 'a'."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import pg_admin_url
from httpkit import four_player_round, two_player_round

from service.adapters.migrate import upgrade
from service.adapters.uow import Database
from service.services import clients
from service.services.ledger import reports, rollups
from service.services.rounds import store as rounds

pytestmark = pytest.mark.postgres


@pytest.fixture
def icu_db() -> Iterator[Database]:
    from sqlalchemy import create_engine, make_url, text

    from service.adapters.db import drop_database

    admin = pg_admin_url()
    if admin is None:
        pytest.skip("TEST_DATABASE_URL is not set")
    import secrets

    name = f"capsa_test_{secrets.token_hex(5)}"
    engine = create_engine(admin, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.execute(text(f"CREATE DATABASE \"{name}\" TEMPLATE template0 LOCALE_PROVIDER icu "
                              "ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'"))
    except Exception as exc:  # a server built without ICU, or before PostgreSQL 15
        pytest.skip(f"no database with an ICU collation here: {exc}")
    finally:
        engine.dispose()
    url = make_url(admin).set(database=name).render_as_string(hide_password=False)
    db = Database(url)
    try:
        upgrade(url)
        yield db
    finally:
        db.dispose()
        drop_database(admin, name)


def keys(db: Database, client_id: str, group_by: str, **period: Any) -> list[Any]:
    found = reports.summary(db, client_id, currency="IDR", tz="UTC", group_by=reports.Grouping(group_by), **period)
    return [row["key"] for row in found["rows"]]


def test_a_summarys_rows_come_in_code_point_order_summed_by_sql_or_from_the_rollups(icu_db):
    client_id, _ = clients.create_client(icu_db, "collation")
    body = four_player_round(table="Zeta")
    for player, name in zip(body["players"], ["b", "B", "a", "A"], strict=True):
        player["id"] = name
    rounds.create(icu_db, client_id, body, None)
    rounds.create(icu_db, client_id, two_player_round(table="alpha"), None)
    players = ["A", "B", "a", "b"]
    tables = ["Zeta", "alpha"]
    assert keys(icu_db, client_id, "player") == players  # all time, summed by SQL
    assert keys(icu_db, client_id, "table") == tables
    rollups.fold(icu_db, client_id)
    assert keys(icu_db, client_id, "player") == players  # all time, from the rollups
    assert keys(icu_db, client_id, "table") == tables
    from datetime import UTC, datetime

    since = datetime(2000, 1, 1, tzinfo=UTC)
    assert keys(icu_db, client_id, "player", since=since) == players  # a period, by SQL
    assert keys(icu_db, client_id, "table", since=since) == tables
