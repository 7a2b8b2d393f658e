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

TABLES = {"clients", "api_keys", "rounds", "chain_records", "chain_heads", "ledger_lines", "deals", "games", "matches",
          "susun_games",  # 0009
          "idempotency_records", "service_secrets", "alembic_version"}
TABLES |= {"webhooks", "webhook_deliveries", "webhook_attempts", "dispatcher_leases"}  # 0007
TABLES |= {"chain_signatures"}  # 0008: receipts
TABLES |= {"ledger_rollups", "ledger_rollup_cursors"}  # 0014: all-time totals
TABLES |= {"deal_commitments"}  # 0024: server seeds committed before the client's seed
TABLES |= {"match_games"}  # 0026: a match's games, a row each
TABLES |= {"client_references"}  # 0029: references taken by rounds and games
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


def test_going_down_to_0004_gives_the_round_columns_back_their_compression(empty_db):
    """0005 moves the round's JSON into its record; its downgrade adds the columns back,
    compressed as 0002 made them (lz4 where the server has it), not with the default."""
    if not empty_db.startswith("postgresql"):
        pytest.skip("column compression is PostgreSQL's")

    def compression() -> dict[str, str]:
        engine = make_engine(empty_db)
        try:
            with engine.connect() as conn:
                rows = conn.exec_driver_sql(
                    "SELECT attname, attcompression FROM pg_attribute WHERE attrelid = 'rounds'::regclass"
                    " AND attname IN ('document', 'request_json')"
                )
                return {name: str(method) for name, method in rows}
        finally:
            engine.dispose()

    upgrade(empty_db, "0004")
    made = compression()
    assert set(made) == {"document", "request_json"}
    upgrade(empty_db)
    downgrade(empty_db, "0004")
    assert compression() == made


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


def test_0009_adds_the_susun_games_table_with_the_sweepers_index_and_takes_it_away(empty_db):
    upgrade(empty_db, "0005")
    assert "susun_games" not in tables(empty_db)
    upgrade(empty_db, "0009")
    engine = make_engine(empty_db)
    try:
        found = inspect(engine)
        indexes = {i["name"]: i["column_names"] for i in found.get_indexes("susun_games")}
        uniques = {u["name"]: u["column_names"] for u in found.get_unique_constraints("susun_games")}
    finally:
        engine.dispose()
    assert indexes["ix_susun_games_status_deadline"] == ["status", "deadline"]
    assert indexes["ix_susun_games_client_created"] == ["client_id", "created_at"]
    assert uniques["uq_susun_games_client_reference"] == ["client_id", "reference"]
    downgrade(empty_db, "0005")
    assert "susun_games" not in tables(empty_db)
def test_0006_starts_each_clients_deal_counter_after_its_highest_nonce(empty_db):
    from datetime import UTC, datetime

    from sqlalchemy import MetaData, insert, select

    from service.adapters.uow import Database
    from service.services import deals

    upgrade(empty_db, "0005")
    engine = make_engine(normalise_url(empty_db))
    meta = MetaData()
    meta.reflect(engine, only=["clients", "deals"])
    now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    try:
        with engine.begin() as conn:
            conn.execute(insert(meta.tables["clients"]), [
                {"id": "cl_dealer", "name": "dealer", "created_at": now},
                {"id": "cl_none", "name": "none", "created_at": now},
            ])
            conn.execute(insert(meta.tables["deals"]), [
                {"id": f"dl_{n}", "client_id": "cl_dealer", "nonce": n, "server_seed": b"s" * 32,
                 "commitment": "0" * 64, "client_seed": "x", "players": ["a", "b"], "hands": [[], []],
                 "created_at": now}
                for n in (0, 1, 2, 5)  # a gap: the counter goes past the highest, never reuses one
            ])
    finally:
        engine.dispose()
    upgrade(empty_db)
    db = Database(empty_db)
    try:
        with db.unit_of_work() as uow:
            from service.adapters.models import Client

            made = dict(uow.session.execute(select(Client.id, Client.deals_made)).all())
        assert made == {"cl_dealer": 6, "cl_none": 0}
        assert deals.create(db, "cl_dealer", {"players": ["a", "b"], "client_seed": "x"})["nonce"] == 6
        assert deals.create(db, "cl_none", {"players": ["a", "b"], "client_seed": "x"})["nonce"] == 0
    finally:
        db.dispose()
    downgrade(empty_db, "0005")
    engine = make_engine(normalise_url(empty_db))
    try:
        assert "deals_made" not in {c["name"] for c in inspect(engine).get_columns("clients")}
    finally:
        engine.dispose()


def test_two_upgrades_at_once_both_succeed_and_leave_the_newest_migration(empty_db):
    """Two `capsa db upgrade` at once (two nodes starting a release) raced on PostgreSQL:
    one failed on alembic_version or a deadlock, sometimes both, leaving the schema behind."""
    import os
    import subprocess
    import sys

    from service.adapters.migrate import current_revision, head_revision

    env = {**os.environ, "DATABASE_URL": empty_db}
    for _ in range(2):
        runs = [subprocess.Popen([sys.executable, "-m", "service.cli", "db", "upgrade"], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
        errors = [run.communicate(timeout=300)[1] for run in runs]
        outcomes = [(run.returncode, err) for run, err in zip(runs, errors, strict=True)]
        assert [code for code, _ in outcomes] == [0, 0], outcomes
        engine = make_engine(empty_db)
        try:
            assert current_revision(engine) == head_revision()
        finally:
            engine.dispose()
        downgrade(empty_db, "0014")  # and again from an older schema, with tables to change
