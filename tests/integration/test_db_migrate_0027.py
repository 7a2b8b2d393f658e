"""Migration 0027 (a void's look-up of its match game, and the dispatchers' of deleted
endpoints, each by an index of its own), on both engines: the indexes exist with their
shapes, the service's own statements are planned through them, and the migration goes down
to 0026 and up again."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, inspect, text
from test_db_migrate_0005 import prepared_database

from service.adapters import webhook_queue
from service.adapters.banting import MatchRecord, MatchRepository
from service.adapters.db import normalise_url
from service.adapters.migrate import downgrade, upgrade
from service.domain.banting.game import GameStatus

INDEXES = {
    "ix_match_games_round": ("match_games", ["client_id", "round_id"], True),
    "ix_webhooks_deleted": ("webhooks", ["client_id", "id"], False),
}


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_at_0026(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from prepared_database(request.param, tmp_path, lambda url: upgrade(url, "0026"))


def _indexes(url: str) -> dict[str, tuple[str, list[str], bool]]:
    engine = create_engine(normalise_url(url))
    try:
        found = inspect(engine)
        return {
            i["name"]: (table, list(i["column_names"]), bool(i["unique"]))
            for table in ("match_games", "webhooks") for i in found.get_indexes(table) if i["name"] in INDEXES
        }
    finally:
        engine.dispose()


class _Caught:
    """A session that keeps the statement a repository runs, and finds nothing."""

    def __init__(self) -> None:
        self.statement: Any = None

    def execute(self, statement: Any, *args: Any) -> Any:
        self.statement = statement
        return self

    def mappings(self) -> Any:
        return self

    def first(self) -> None:
        return None


def _entry_of_round() -> Any:
    at = datetime(2026, 12, 6, tzinfo=UTC)
    match = MatchRecord(
        "mat_x", "cl_x", {}, "IDR", 100, None, ("a", "b", "c"), 10, 0, {}, None, 1, GameStatus.PLAYING, at, at
    )
    session = _Caught()
    assert MatchRepository(session).entry_of_round(match, "rnd_x") is None  # type: ignore[arg-type]
    return session.statement


def _plan(url: str, statement: Any) -> str:
    """The engine's plan of `statement` (PostgreSQL: with scans of the whole table ruled
    out, so that a plan that cannot use the index says so, however small the tables)."""
    engine = create_engine(normalise_url(url))
    sql = str(statement.compile(dialect=engine.dialect, compile_kwargs={"literal_binds": True}))
    try:
        with engine.begin() as conn:
            if engine.dialect.name == "sqlite":
                return " ".join(str(r[-1]) for r in conn.execute(text("EXPLAIN QUERY PLAN " + sql)))
            conn.execute(text("SET LOCAL enable_seqscan = off"))
            conn.execute(text("SET LOCAL enable_bitmapscan = off"))
            return " ".join(str(r[0]) for r in conn.execute(text("EXPLAIN " + sql)))
    finally:
        engine.dispose()


def test_migration_0027_adds_the_two_indexes_and_the_look_ups_read_them(db_at_0026):
    assert _indexes(db_at_0026) == {}
    upgrade(db_at_0026, "0027")
    assert _indexes(db_at_0026) == INDEXES
    assert "ix_match_games_round" in _plan(db_at_0026, _entry_of_round())
    assert "ix_webhooks_deleted" in _plan(db_at_0026, webhook_queue._DELETED_ENDPOINTS)
    # and as the service runs it: a bound value in place of the index's literal condition
    # leaves a generic plan (a prepared statement's, after five runs) unable to use it
    assert webhook_queue._DELETED_ENDPOINTS.compile().params == {}


def test_migration_0027_goes_down_to_0026_and_up_again(db_at_0026):
    upgrade(db_at_0026, "0027")
    downgrade(db_at_0026, "0026")
    assert _indexes(db_at_0026) == {}
    upgrade(db_at_0026, "0027")
    assert _indexes(db_at_0026) == INDEXES
