"""Migration 0016 (no foreign key from chain_records, rounds, idempotency_records to clients)
on rows the service wrote before it, on both engines.

The rows of `data/rows_at_0004.json` are loaded at 0004 and migrated to 0015; then 0016
runs: the three references are gone and every other one stays, every old row is there and
the chain still verifies, a keyed round is stored, replayed and verifies; then it goes down
to 0015 (the references back, validated on PostgreSQL) and up again.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, func, inspect, select, table, text
from test_db_migrate_0005 import _app, _headers, loaded_at, prepared_database

from service.adapters.db import normalise_url
from service.adapters.migrate import downgrade, upgrade

DROPPED = {
    "chain_records": "fk_chain_records_client_id_clients",
    "rounds": "fk_rounds_client_id_clients",
    "idempotency_records": "fk_idempotency_records_client_id_clients",
}
KEPT = {"chain_heads": "fk_chain_heads_client_id_clients", "api_keys": "fk_api_keys_client_id_clients"}
COUNTED = ("chain_records", "rounds", "idempotency_records", "ledger_lines", "chain_heads")
ROUND = {
    "rules": "capsa-susun-id",
    "currency": "IDR",
    "stake": "1000",
    "players": [
        {"id": "a", "arrangement": {"front": ["2c", "2d", "2h"], "middle": ["3s", "4d", "5c", "6h", "7d"],
                                    "back": ["8h", "Th", "Qh", "Kh", "4h"]}},
        {"id": "b", "arrangement": {"front": ["Ac", "Kd", "9s"], "middle": ["9h", "9d", "Jc", "Qc", "3c"],
                                    "back": ["Ts", "Td", "Js", "Jd", "5s"]}},
    ],
}


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_at_0015(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from prepared_database(request.param, tmp_path, loaded_at("0015"))


def _references(url: str) -> dict[str, set[str]]:
    engine = create_engine(normalise_url(url))
    try:
        found = inspect(engine)
        names = {t: {fk["name"] for fk in found.get_foreign_keys(t)} for t in (*DROPPED, *KEPT)}
        if engine.dialect.name == "postgresql":  # every constraint there is validated
            with engine.connect() as conn:
                assert conn.execute(text("SELECT count(*) FROM pg_constraint WHERE NOT convalidated")).scalar() == 0
        return names
    finally:
        engine.dispose()


def _triggers(url: str) -> set[str]:
    engine = create_engine(normalise_url(url))
    try:
        with engine.connect() as conn:
            if engine.dialect.name == "sqlite":
                rows = conn.execute(text("SELECT tbl_name || '.' || name FROM sqlite_master WHERE type = 'trigger'"))
            else:
                rows = conn.execute(text(
                    "SELECT tgrelid::regclass || '.' || tgname FROM pg_trigger WHERE NOT tgisinternal"))
            return {r[0] for r in rows}
    finally:
        engine.dispose()


def _counts(url: str) -> dict[str, int]:
    engine = create_engine(normalise_url(url))
    try:
        with engine.connect() as conn:
            return {t: int(conn.execute(select(func.count()).select_from(table(t))).scalar_one()) for t in COUNTED}
    finally:
        engine.dispose()


def test_migration_0016_drops_the_three_client_references_and_keeps_every_row_and_the_chain(db_at_0015):
    before, triggers = _counts(db_at_0015), _triggers(db_at_0015)
    assert triggers  # the balance checks: a rebuilt SQLite table would lose its own
    assert all(DROPPED[t] in names for t, names in _references(db_at_0015).items() if t in DROPPED)
    upgrade(db_at_0015)
    references = _references(db_at_0015)
    assert all(not names & set(DROPPED.values()) for names in references.values())
    assert all(KEPT[t] in references[t] for t in KEPT)
    assert _counts(db_at_0015) == before
    assert _triggers(db_at_0015) == triggers
    app = _app(db_at_0015)
    http = app.test_client()
    owner = {**_headers("old-a"), "Idempotency-Key": "after-0016"}
    try:
        assert http.get("/v1/audit/verify", headers=owner).get_json()["ok"] is True
        created = http.post("/v1/rounds", json=ROUND, headers=owner)
        assert created.status_code == 201, created.get_json()
        replayed = http.post("/v1/rounds", json=ROUND, headers=owner)
        assert replayed.status_code == 201 and replayed.headers["Idempotent-Replayed"] == "true"
        assert replayed.data == created.data
        round_id = created.get_json()["id"]
        assert http.get(f"/v1/rounds/{round_id}/verify", headers=owner).get_json() == {"ok": True, "differences": []}
        assert http.get("/v1/audit/verify", headers=owner).get_json()["ok"] is True
    finally:
        app.extensions["capsa"].db.dispose()
    after = _counts(db_at_0015)
    # one record, round and key; the lines: each player's result, the winner's fee, the house's
    assert {t: after[t] - before[t] for t in COUNTED} == {
        "chain_records": 1, "rounds": 1, "idempotency_records": 1, "ledger_lines": 4, "chain_heads": 0,
    }


def test_migration_0016_goes_down_to_0015_with_the_references_validated_and_up_again(db_at_0015):
    triggers = _triggers(db_at_0015)
    upgrade(db_at_0015)
    downgrade(db_at_0015, "0015")
    assert _triggers(db_at_0015) == triggers
    references = _references(db_at_0015)
    assert all(DROPPED[t] in references[t] for t in DROPPED)
    upgrade(db_at_0015)
    assert all(not names & set(DROPPED.values()) for names in _references(db_at_0015).values())
