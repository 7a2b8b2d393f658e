"""Migration 0028 (a chain head says whether its writer signs), on both engines: a client
with a receipt starts as signing, one without as not, as the dispatcher judged them before;
the column goes on 0027 and comes back on 0028."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text
from test_db_migrate_0005 import prepared_database

from service.adapters.db import normalise_url
from service.adapters.migrate import downgrade, upgrade

HEADS = "INSERT INTO chain_heads (client_id, sequence, hash, previous_hash) VALUES (:c, 1, 'h', 'p')"


def _heads_at_0027(url: str) -> None:
    upgrade(url, "0027")
    engine = create_engine(normalise_url(url))
    try:
        with engine.begin() as conn:
            for client in ("signed", "unsigned"):
                conn.execute(text("INSERT INTO clients (id, name, created_at) VALUES (:c, :c, '2026-12-07 00:00:00')"),
                             {"c": client})
                conn.execute(text(HEADS), {"c": client})
            conn.execute(text("INSERT INTO chain_signatures (client_id, sequence, kid, signature) "
                              "VALUES ('signed', 1, 'k', :s)"), {"s": b"\x00" * 64})
    finally:
        engine.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_at_0027(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from prepared_database(request.param, tmp_path, _heads_at_0027)


def _signing(url: str) -> dict[str, bool] | None:
    engine = create_engine(normalise_url(url))
    try:
        if "signing" not in {c["name"] for c in inspect(engine).get_columns("chain_heads")}:
            return None
        with engine.connect() as conn:
            return {c: bool(s) for c, s in conn.execute(text("SELECT client_id, signing FROM chain_heads"))}
    finally:
        engine.dispose()


def test_a_head_starts_as_signing_where_its_client_has_a_receipt_and_goes_down_and_up(db_at_0027):
    upgrade(db_at_0027, "0028")
    assert _signing(db_at_0027) == {"signed": True, "unsigned": False}
    downgrade(db_at_0027, "0027")
    assert _signing(db_at_0027) is None
    upgrade(db_at_0027, "0028")
    assert _signing(db_at_0027) == {"signed": True, "unsigned": False}
