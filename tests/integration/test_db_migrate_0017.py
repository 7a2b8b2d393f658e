"""Migrations 0017 (the client-wide time index holds line 0 only) and 0018 (a chain record's
canonical bytes stay in its row on PostgreSQL), on rows the service wrote before them, on
both engines.

The rows of `data/rows_at_0004.json` are loaded at 0004 and migrated to 0016; then 0017
and 0018 run: the old index is gone and the new one holds one entry per record, every
old row is there, the chain verifies and the ledger's client-wide windows answer exactly
as they did; a round stored after them keeps its bytes out of TOAST on PostgreSQL; then
they go down to 0016 and up again.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, inspect, text
from test_db_migrate_0005 import _app, _headers, loaded_at, prepared_database
from test_db_migrate_0016 import _counts

from service.adapters.db import normalise_url
from service.adapters.migrate import downgrade, upgrade

ROOT = Path(__file__).resolve().parents[2]
NEW, OLD = "ix_ledger_lines_record_time", "ix_ledger_lines_currency_time"
# Client-wide reads over a period (each with a `since` or `until`: they read by line 0) and
# over the whole chain.
WINDOWED = [
    "/v1/ledger/entries?currency=IDR&limit=500",
    "/v1/ledger/entries?currency=IDR&limit=500&since=2000-01-01T00:00:00Z",
    "/v1/ledger/entries?currency=IDR&limit=500&until=2100-01-01T00:00:00Z",
    "/v1/ledger/summary?currency=IDR&group_by=player&since=2000-01-01T00:00:00Z",
    "/v1/ledger/summary?currency=IDR&group_by=table&until=2100-01-01T00:00:00Z",
    "/v1/ledger/summary?currency=IDR&group_by=day&since=2000-01-01T00:00:00Z&until=2100-01-01T00:00:00Z",
    "/v1/ledger/summary?currency=IDR&group_by=day&tz=Asia/Jakarta&since=2000-01-01T00:00:00Z",
    "/v1/ledger/summary?currency=IDR&group_by=player",
]


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_at_0016(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from prepared_database(request.param, tmp_path, loaded_at("0016"))


def _indexes(url: str) -> set[str]:
    engine = create_engine(normalise_url(url))
    try:
        return {index["name"] for index in inspect(engine).get_indexes("ledger_lines") if index["name"]}
    finally:
        engine.dispose()


def _sql(url: str, statement: str) -> list[Any]:
    engine = create_engine(normalise_url(url))
    try:
        with engine.connect() as conn:
            return [tuple(row) for row in conn.execute(text(statement))]
    finally:
        engine.dispose()


def _answers(url: str) -> list[Any]:
    app = _app(url)
    http = app.test_client()
    try:
        out = []
        for path in WINDOWED:
            answer = http.get(path, headers=_headers("old-a"))
            assert answer.status_code == 200, (path, answer.get_json())
            out.append(answer.get_json())
        return out
    finally:
        app.extensions["capsa"].db.dispose()


# What this release's PostgreSQL write path of a round with a reference writes that a schema
# before it lacks: a column of `chain_heads` (0028) and a table (0029).
LENT = {
    "signing": (
        "ALTER TABLE chain_heads ADD COLUMN signing boolean NOT NULL DEFAULT false",
        "ALTER TABLE chain_heads DROP COLUMN signing",
    ),
    "client_references": (
        "CREATE TABLE client_references (client_id varchar(32), reference varchar(64),"
        " PRIMARY KEY (client_id, reference))",
        "DROP TABLE client_references",
    ),
}


def _store_four(url: str, key: str) -> str:
    """Store the four-player example round (5.4 KB of canonical bytes) as old-a; its id.

    This release's PostgreSQL write path sets `chain_heads.signing` (migration 0028) and
    takes the round's reference in `client_references` (0029): on a schema before them
    both are lent for the store alone, and dropped again, so the upgrade finds the schema
    as that release left it."""
    body = json.loads((ROOT / "service/examples/round-4p-capsa-susun-id.json").read_text())
    body["reference"] = key
    engine = create_engine(normalise_url(url))
    try:
        schema = inspect(engine)
        have = {c["name"] for c in schema.get_columns("chain_heads")} | set(schema.get_table_names())
        lent = [name for name in LENT if name not in have]
        with engine.begin() as conn:
            for name in lent:
                conn.execute(text(LENT[name][0]))
        app = _app(url)
        try:
            created = app.test_client().post(
                "/v1/rounds", json=body, headers={**_headers("old-a"), "Idempotency-Key": key})
            assert created.status_code == 201, created.get_json()
            return str(created.get_json()["id"])
        finally:
            app.extensions["capsa"].db.dispose()
            with engine.begin() as conn:
                for name in lent:
                    conn.execute(text(LENT[name][1]))
    finally:
        engine.dispose()


def _toast_rows(url: str) -> int | None:
    """Rows in chain_records' TOAST table (None on SQLite, which has none)."""
    if not url.startswith("postgresql"):
        return None
    toast = _sql(url, "SELECT reltoastrelid::regclass::text FROM pg_class WHERE relname = 'chain_records'")[0][0]
    return int(_sql(url, f"SELECT count(*) FROM {toast}")[0][0])


def _storage(url: str) -> dict[str, str]:
    return dict(_sql(url, "SELECT attname, attstorage FROM pg_attribute "
                          "WHERE attrelid = 'chain_records'::regclass AND attnum > 0 AND NOT attisdropped"))


def test_migrations_0017_0018_keep_every_row_and_every_windowed_answer(db_at_0016):
    toast = _toast_rows(db_at_0016)
    _store_four(db_at_0016, "before-0017")
    if toast is not None:  # before 0018 the four-player round's bytes went out of line
        assert _toast_rows(db_at_0016) == toast + 1
    before, answers = _counts(db_at_0016), _answers(db_at_0016)
    assert all(answer.get("items") or answer.get("rows") for answer in answers)  # rows are read
    assert OLD in _indexes(db_at_0016)
    upgrade(db_at_0016)
    indexes = _indexes(db_at_0016)
    assert NEW in indexes and OLD not in indexes
    assert _counts(db_at_0016) == before
    assert _answers(db_at_0016) == answers
    toast = _toast_rows(db_at_0016)
    round_id = _store_four(db_at_0016, "after-0018")
    assert _toast_rows(db_at_0016) == toast  # kept in its row, compressed (None == None on SQLite)
    app = _app(db_at_0016)
    http = app.test_client()
    owner = _headers("old-a")
    try:
        assert http.get("/v1/audit/verify", headers=owner).get_json()["ok"] is True
        assert http.get(f"/v1/rounds/{round_id}/verify", headers=owner).get_json() == {"ok": True, "differences": []}
        entries = http.get("/v1/ledger/entries?currency=IDR&limit=8&since=2000-01-01T00:00:00Z", headers=owner)
        assert [e["round"] for e in entries.get_json()["items"]] == [round_id] * 8
    finally:
        app.extensions["capsa"].db.dispose()
    if toast is not None:
        storage = _storage(db_at_0016)
        assert storage["canonical"] == "m"
        assert {storage[c] for c in ("client_id", "kind", "round_id", "previous_hash", "hash")} == {"p"}


def test_migrations_0017_0018_go_down_to_0016_and_up_again(db_at_0016):
    upgrade(db_at_0016)
    downgrade(db_at_0016, "0016")
    indexes = _indexes(db_at_0016)
    assert OLD in indexes and NEW not in indexes
    if db_at_0016.startswith("postgresql"):
        assert {_storage(db_at_0016)[c] for c in ("canonical", "client_id", "round_id", "hash")} == {"x"}
    upgrade(db_at_0016)
    assert NEW in _indexes(db_at_0016)
