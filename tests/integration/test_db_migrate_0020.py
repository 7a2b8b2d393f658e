"""Migration 0020 (the void records by sequence, an index of their own), on both engines.

The rows of `data/rows_at_0004.json` (old-a's chain holds two voids among ten records) are
loaded at 0004 and migrated to 0019; then 0020 runs: the index exists, holds the voids
alone, and `GET /v1/events?type=round.voided` answers, page by page, exactly as before; it
goes down to 0019 (the index gone, the same answers) and up again.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, inspect, text
from test_db_migrate_0005 import _app, _headers, loaded_at, prepared_database

from service.adapters.db import normalise_url
from service.adapters.migrate import downgrade, upgrade

NAME = "ix_chain_records_voids"


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_at_0019(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from prepared_database(request.param, tmp_path, loaded_at("0019"))


def _index(url: str) -> dict[str, Any] | None:
    engine = create_engine(normalise_url(url))
    try:
        found = [i for i in inspect(engine).get_indexes("chain_records") if i["name"] == NAME]
        return found[0] if found else None
    finally:
        engine.dispose()


def _voids_by_index(url: str) -> list[tuple[Any, ...]]:
    """The (client, sequence) of every void, read through the index where the engine says so."""
    engine = create_engine(normalise_url(url))
    try:
        with engine.connect() as conn:
            if engine.dialect.name == "sqlite":
                plan = " ".join(str(r[-1]) for r in conn.execute(text(
                    f"EXPLAIN QUERY PLAN SELECT client_id, sequence FROM chain_records INDEXED BY {NAME}"
                    " WHERE kind = 'void' ORDER BY client_id, sequence")))
                assert NAME in plan, plan
                rows = conn.execute(text(
                    f"SELECT client_id, sequence FROM chain_records INDEXED BY {NAME}"
                    " WHERE kind = 'void' ORDER BY client_id, sequence"))
            else:
                conn.execute(text("SET LOCAL enable_seqscan = off"))
                conn.execute(text("SET LOCAL enable_bitmapscan = off"))
                plan = " ".join(str(r[0]) for r in conn.execute(text(
                    "EXPLAIN SELECT client_id, sequence FROM chain_records WHERE kind = 'void'"
                    " ORDER BY client_id, sequence")))
                assert NAME in plan, plan
                rows = conn.execute(text(
                    "SELECT client_id, sequence FROM chain_records WHERE kind = 'void' ORDER BY client_id, sequence"))
            return [tuple(r) for r in rows]
    finally:
        engine.dispose()


def _voided_pages(url: str) -> list[list[str]]:
    """`type=round.voided` one event a page, followed by `after`, for old-a."""
    app = _app(url)
    http = app.test_client()
    try:
        pages, after = [], ""
        while True:
            answer = http.get(f"/v1/events?type=round.voided&limit=1{after}", headers=_headers("old-a"))
            assert answer.status_code == 200, answer.get_json()
            doc = answer.get_json()
            pages.append([e["id"] for e in doc["items"]])
            if not doc["has_more"]:
                return pages
            after = f"&after={doc['items'][-1]['id']}"
    finally:
        app.extensions["capsa"].db.dispose()


def test_migration_0020_indexes_the_voids_alone_and_the_voided_events_answer_as_before(db_at_0019):
    before = _voided_pages(db_at_0019)
    assert len(before) == 2 and all(len(page) == 1 for page in before)
    assert _index(db_at_0019) is None
    upgrade(db_at_0019, "0020")
    index = _index(db_at_0019)
    assert index is not None and index["column_names"] == ["client_id", "sequence"] and not index["unique"]
    assert [sequence for _, sequence in _voids_by_index(db_at_0019)] == [6, 10]
    assert _voided_pages(db_at_0019) == before


def test_migration_0020_goes_down_to_0019_and_up_again(db_at_0019):
    upgrade(db_at_0019, "0020")
    pages = _voided_pages(db_at_0019)
    downgrade(db_at_0019, "0019")
    assert _index(db_at_0019) is None
    assert _voided_pages(db_at_0019) == pages
    upgrade(db_at_0019, "0020")
    assert _index(db_at_0019) is not None
    assert _voided_pages(db_at_0019) == pages
