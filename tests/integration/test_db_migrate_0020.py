"""Migration 0020 (the void records and the Big Two rounds by sequence, each an index of
their own), on both engines.

The rows of `data/rows_at_0004.json` (old-a's chain holds two voids and two Big Two rounds
among ten records) are loaded at 0004 and migrated to 0019; then 0020 runs: each
index exists and holds its rows alone, and `GET /v1/events?type=round.voided` and
`?type=banting.game.finished` answer, page by page, exactly as before; it goes down to
0019 (the indexes gone, the same answers) and up again.
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
BIG_TWO = "ix_rounds_banting"
TYPES = ("round.voided", "banting.game.finished")


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_at_0019(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from prepared_database(request.param, tmp_path, loaded_at("0019"))


def _index(url: str, table: str = "chain_records", name: str = NAME) -> dict[str, Any] | None:
    engine = create_engine(normalise_url(url))
    try:
        found = [i for i in inspect(engine).get_indexes(table) if i["name"] == name]
        return found[0] if found else None
    finally:
        engine.dispose()


def _by_index(url: str, table: str, name: str, where: str) -> list[tuple[Any, ...]]:
    """The (client, sequence) of `table`'s rows `where` holds, read through the index `name`:
    SQLite is told to (INDEXED BY fails if it cannot), PostgreSQL's plan is checked."""
    engine = create_engine(normalise_url(url))
    sqlite = engine.dialect.name == "sqlite"
    hint = f"INDEXED BY {name} " if sqlite else ""
    statement = f"SELECT client_id, sequence FROM {table} {hint}WHERE {where} ORDER BY client_id, sequence"
    try:
        with engine.connect() as conn:
            if sqlite:
                plan = " ".join(str(r[-1]) for r in conn.execute(text("EXPLAIN QUERY PLAN " + statement)))
            else:
                conn.execute(text("SET LOCAL enable_seqscan = off"))
                conn.execute(text("SET LOCAL enable_bitmapscan = off"))
                plan = " ".join(str(r[0]) for r in conn.execute(text("EXPLAIN " + statement)))
            assert name in plan, plan
            return [tuple(r) for r in conn.execute(text(statement))]
    finally:
        engine.dispose()


def _typed_pages(url: str) -> dict[str, list[list[str]]]:
    """Each type's events one a page, followed by `after`, for old-a."""
    app = _app(url)
    http = app.test_client()
    try:
        out: dict[str, list[list[str]]] = {}
        for type_ in TYPES:
            pages: list[list[str]] = []
            after = ""
            while True:
                answer = http.get(f"/v1/events?type={type_}&limit=1{after}", headers=_headers("old-a"))
                assert answer.status_code == 200, answer.get_json()
                doc = answer.get_json()
                pages.append([e["id"] for e in doc["items"]])
                if not doc["has_more"]:
                    break
                after = f"&after={doc['items'][-1]['id']}"
            out[type_] = pages
        return out
    finally:
        app.extensions["capsa"].db.dispose()


def test_migration_0020_indexes_its_rows_alone_and_typed_events_answer_as_before(db_at_0019):
    before = _typed_pages(db_at_0019)
    assert [len(page) for page in before["round.voided"]] == [1, 1]
    assert [len(page) for page in before["banting.game.finished"]] == [1, 1]
    assert _index(db_at_0019) is None and _index(db_at_0019, "rounds", BIG_TWO) is None
    upgrade(db_at_0019, "0020")
    for table, name in (("chain_records", NAME), ("rounds", BIG_TWO)):
        index = _index(db_at_0019, table, name)
        assert index is not None and index["column_names"] == ["client_id", "sequence"] and not index["unique"]
    assert [sequence for _, sequence in _by_index(db_at_0019, "chain_records", NAME, "kind = 'void'")] == [6, 10]
    assert len(_by_index(db_at_0019, "rounds", BIG_TWO, "game = 'banting'")) == 2
    assert _typed_pages(db_at_0019) == before


def test_migration_0020_goes_down_to_0019_and_up_again(db_at_0019):
    upgrade(db_at_0019, "0020")
    pages = _typed_pages(db_at_0019)
    downgrade(db_at_0019, "0019")
    assert _index(db_at_0019) is None and _index(db_at_0019, "rounds", BIG_TWO) is None
    assert _typed_pages(db_at_0019) == pages
    upgrade(db_at_0019, "0020")
    assert _index(db_at_0019) is not None and _index(db_at_0019, "rounds", BIG_TWO) is not None
    assert _typed_pages(db_at_0019) == pages
