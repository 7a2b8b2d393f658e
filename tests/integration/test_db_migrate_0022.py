"""Migration 0022 (an endpoint enabled again resumes what it missed), on both engines: the
endpoints gain `resume_before` (null: nothing to resume); a server of this version still
makes, lists and reads endpoints at 0021 (the column is read by the dispatcher only); it
goes down to 0021 and up again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect
from test_db_migrate_0005 import prepared_database

from service.adapters.db import normalise_url
from service.adapters.migrate import downgrade, upgrade
from service.adapters.uow import Database


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_at_0021(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from prepared_database(request.param, tmp_path, lambda url: upgrade(url, "0021"))


def _columns(url: str) -> set[str]:
    engine = create_engine(normalise_url(url))
    try:
        return {c["name"] for c in inspect(engine).get_columns("webhooks")}
    finally:
        engine.dispose()


def test_migration_0022_adds_the_resume_mark_and_goes_down_and_up(db_at_0021):
    from service.services import clients
    from service.services.webhooks import endpoints

    assert "resume_before" not in _columns(db_at_0021)
    db = Database(normalise_url(db_at_0021))
    try:  # this version's endpoints at 0021: made, listed and read without the new column
        client_id, _ = clients.create_client(db, "old")
        made = endpoints.create(db, client_id, {"url": "https://wallet.example.com/hook", "events": ["*"]})
        assert [w["id"] for w in endpoints.list_(db, client_id)["items"]] == [made["id"]]
    finally:
        db.dispose()
    upgrade(db_at_0021, "0022")
    assert "resume_before" in _columns(db_at_0021)
    downgrade(db_at_0021, "0021")
    assert "resume_before" not in _columns(db_at_0021)
    upgrade(db_at_0021, "head")
    assert "resume_before" in _columns(db_at_0021)
