"""Migration 0029 (a chain head's reference epoch), on both engines: every existing head
starts at epoch 0 with its chain untouched; the column goes on 0028 and comes back on 0029."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text
from test_db_migrate_0005 import prepared_database

from service.adapters.db import normalise_url
from service.adapters.migrate import downgrade, upgrade

HEADS = "INSERT INTO chain_heads (client_id, sequence, hash, previous_hash) VALUES (:c, :s, :h, 'p')"


def _heads_at_0028(url: str) -> None:
    upgrade(url, "0028")
    engine = create_engine(normalise_url(url))
    try:
        with engine.begin() as conn:
            for n, client in enumerate(("one", "two"), start=1):
                conn.execute(text("INSERT INTO clients (id, name, created_at) VALUES (:c, :c, '2026-12-07 00:00:00')"),
                             {"c": client})
                conn.execute(text(HEADS), {"c": client, "s": n, "h": f"h{n}"})
    finally:
        engine.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_at_0028(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from prepared_database(request.param, tmp_path, _heads_at_0028)


def _heads(url: str) -> dict[str, tuple[object, ...]]:
    engine = create_engine(normalise_url(url))
    try:
        columns = {c["name"] for c in inspect(engine).get_columns("chain_heads")}
        epoch = "reference_epoch" if "reference_epoch" in columns else "NULL"
        with engine.connect() as conn:
            rows = conn.execute(text(f"SELECT client_id, sequence, hash, {epoch} FROM chain_heads"))
            return {row[0]: tuple(row[1:]) for row in rows}
    finally:
        engine.dispose()


def test_every_head_starts_at_epoch_zero_and_the_column_goes_down_and_up(db_at_0028):
    upgrade(db_at_0028, "0029")
    at_zero = {"one": (1, "h1", 0), "two": (2, "h2", 0)}
    assert _heads(db_at_0028) == at_zero
    downgrade(db_at_0028, "0028")
    assert _heads(db_at_0028) == {"one": (1, "h1", None), "two": (2, "h2", None)}
    upgrade(db_at_0028, "0029")
    assert _heads(db_at_0028) == at_zero
