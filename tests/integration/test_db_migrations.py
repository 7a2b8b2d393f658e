"""Alembic migrations on an empty database of each engine, down and up again, no drift."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from conftest import create_pg_database, drop_pg_database, pg_admin_url
from sqlalchemy import inspect

from service.adapters.db import make_engine, normalise_url
from service.adapters.migrate import MIGRATIONS, alembic_config, downgrade, upgrade

TABLES = {"clients", "api_keys", "rounds", "chain_records", "chain_heads", "ledger_lines", "deals", "games",
          "idempotency_records", "service_secrets", "alembic_version",
          "chain_signatures"}  # 0008: receipts
DROPPED = {"round_players", "round_pairs", "round_voids"}  # by 0005: the records hold them


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def empty_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.db'}"
        return
    admin = pg_admin_url()
    if admin is None:
        pytest.skip("TEST_DATABASE_URL is not set")
    url, name = create_pg_database(admin)
    try:
        yield url
    finally:
        drop_pg_database(admin, name)


def tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_migrations_build_an_empty_database_and_match_the_models(empty_db):
    upgrade(empty_db)
    assert tables(empty_db) == TABLES
    command.check(alembic_config(empty_db))  # raises when models and migrations differ


def test_migrations_go_down_to_nothing_and_up_again(empty_db):
    upgrade(empty_db)
    downgrade(empty_db, "0004")
    assert DROPPED <= tables(empty_db)
    downgrade(empty_db, "base")
    assert tables(empty_db) <= {"alembic_version"}
    upgrade(empty_db)
    assert tables(empty_db) == TABLES


def test_the_migrations_ship_inside_the_package():
    assert MIGRATIONS.parent.name == "service"
    assert any(MIGRATIONS.glob("versions/*.py"))


def test_postgres_urls_are_pinned_to_psycopg_3():
    assert normalise_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalise_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalise_url("sqlite:///x.db") == "sqlite:///x.db"


def test_sqlite_connections_use_wal_foreign_keys_and_a_busy_timeout(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'p.db'}")
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 5000
    finally:
        engine.dispose()


def test_the_ledger_balance_check_reads_only_what_each_statement_wrote_on_postgresql(empty_db):
    # 0004 summed a record's lines from the table once per line inserted (8 sums per round);
    # 0005 checks, once per statement, the lines the statement wrote (its transition table).
    if not empty_db.startswith("postgresql"):
        pytest.skip("the statement-level trigger is PostgreSQL's")
    from sqlalchemy import text

    upgrade(empty_db)
    engine = make_engine(empty_db)
    try:
        with engine.connect() as conn:
            source = conn.execute(
                text("SELECT prosrc FROM pg_proc WHERE proname = 'ledger_records_balanced'")
            ).scalar_one()
            old = conn.execute(text("SELECT count(*) FROM pg_proc WHERE proname = 'ledger_lines_balanced'")).scalar()
    finally:
        engine.dispose()
    assert "FROM new_lines" in source and "FROM ledger_lines" not in source
    assert old == 0
