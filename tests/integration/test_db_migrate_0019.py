"""Migration 0019 (a delivered webhook delivery's row is deleted), on both engines.

The rows of `data/rows_at_0004.json` are loaded at 0004 and migrated to 0018, plus an
endpoint of each client with a delivered, a pending and a failed delivery and the
delivered one's attempt. Then 0019 runs: the delivered rows are gone, the pending and
failed ones are there as they were, every attempt is kept and listed by the API, and
`delivered_at` is dropped; it goes down to 0018 (the column back, empty) and up again.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import MetaData, create_engine, insert, inspect, select
from test_db_migrate_0005 import DATA, _app, _headers, loaded_at, prepared_database

from service.adapters.db import make_engine, normalise_url
from service.adapters.migrate import downgrade, upgrade

A, B = (c["id"] for c in DATA["tables"]["clients"])
AT = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
STATES = ("delivered", "pending", "failed")


def _prepare(url: str) -> None:
    loaded_at("0018")(url)
    engine = make_engine(url)
    meta = MetaData()
    meta.reflect(engine)
    t = meta.tables
    with engine.begin() as conn:
        for client, n in ((A, 1), (B, 2)):
            conn.execute(insert(t["webhooks"]), [{
                "id": f"wh_{n}", "client_id": client, "url": f"https://example.com/{n}", "events": ["*"],
                "description": None, "enabled": True, "disabled_reason": None, "secret": f"whsec_{n}",
                "previous_secret": None, "previous_secret_until": None, "cursor": 3, "failing_since": None,
                "created_at": AT, "updated_at": AT,
            }])
            conn.execute(insert(t["webhook_deliveries"]), [{
                "webhook_id": f"wh_{n}", "event_id": f"evt_{n}_{state}", "client_id": client, "sequence": k,
                "event_type": "round.settled", "event_at": AT, "state": state, "attempts": 1 if state != "pending" else 0,
                "next_attempt_at": AT, "claim": None, "last_status": 204 if state == "delivered" else None,
                "last_error": None, "delivered_at": AT if state == "delivered" else None, "created_at": AT,
            } for k, state in enumerate(STATES, start=1)])
            conn.execute(insert(t["webhook_attempts"]), [{
                "client_id": client, "webhook_id": f"wh_{n}", "event_id": f"evt_{n}_delivered", "attempted_at": AT,
                "outcome": "delivered", "status_code": 204, "latency_ms": 3, "error": None,
            }])
    engine.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_at_0018(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from prepared_database(request.param, tmp_path, _prepare)


def _deliveries(url: str) -> list[tuple[Any, ...]]:
    engine = create_engine(normalise_url(url))
    try:
        meta = MetaData()
        meta.reflect(engine, only=["webhook_deliveries"])
        d = meta.tables["webhook_deliveries"]
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(
                select(d.c.client_id, d.c.webhook_id, d.c.event_id, d.c.state, d.c.attempts).order_by(d.c.event_id))]
    finally:
        engine.dispose()


def _columns(url: str) -> set[str]:
    engine = create_engine(normalise_url(url))
    try:
        return {c["name"] for c in inspect(engine).get_columns("webhook_deliveries")}
    finally:
        engine.dispose()


def _kept(client: str, n: int) -> list[tuple[Any, ...]]:
    return [(client, f"wh_{n}", f"evt_{n}_failed", "failed", 1), (client, f"wh_{n}", f"evt_{n}_pending", "pending", 0)]


def test_migration_0019_deletes_the_delivered_rows_keeps_the_rest_and_every_attempt(db_at_0018):
    assert len(_deliveries(db_at_0018)) == 6 and "delivered_at" in _columns(db_at_0018)
    upgrade(db_at_0018, "0019")
    assert _deliveries(db_at_0018) == _kept(A, 1) + _kept(B, 2)
    assert "delivered_at" not in _columns(db_at_0018)
    upgrade(db_at_0018, "head")
    app = _app(db_at_0018)
    try:
        answer = app.test_client().get("/v1/webhooks/wh_1/deliveries", headers=_headers("old-a"))
        assert answer.status_code == 200
        assert [(a["event_id"], a["outcome"], a["status_code"]) for a in answer.get_json()["items"]] == [
            ("evt_1_delivered", "delivered", 204)]
    finally:
        app.extensions["capsa"].db.dispose()


def test_migration_0019_goes_down_to_0018_and_up_again(db_at_0018):
    upgrade(db_at_0018, "0019")
    downgrade(db_at_0018, "0018")
    assert "delivered_at" in _columns(db_at_0018)
    assert _deliveries(db_at_0018) == _kept(A, 1) + _kept(B, 2)
    upgrade(db_at_0018, "0019")
    assert "delivered_at" not in _columns(db_at_0018)
    assert _deliveries(db_at_0018) == _kept(A, 1) + _kept(B, 2)
