"""The app through pgbouncer 1.18 in transaction mode (tests/pgkit.py) in front of the test
server: no `options` startup parameter (pgbouncer refuses it), no prepared statement, the
timeouts from the database's settings (a role's, in production), checked by /readyz."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import drop_pg_database, migrated_pg_database, pg_admin_url
from pgkit import Pgbouncer

from service.api.problems import RETRY_AFTER_UNAVAILABLE

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = json.loads((ROOT / "service/examples/round-4p-capsa-susun-id.json").read_text())


@pytest.fixture(scope="module")
def bounced() -> Iterator[tuple[Pgbouncer, str, str]]:
    """(pgbouncer, the database through it, the database's name)."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    admin = pg_admin_url()
    if admin is None:
        pytest.skip("TEST_DATABASE_URL is not set")
    url, name = migrated_pg_database(admin)
    bouncer: Pgbouncer | None = None
    try:
        engine = create_engine(admin, isolation_level="AUTOCOMMIT")
        with engine.connect() as conn:
            conn.execute(text(f'ALTER DATABASE "{name}" SET statement_timeout = 5000'))
            conn.execute(text(f'ALTER DATABASE "{name}" SET lock_timeout = 2000'))
        engine.dispose()
        server = make_url(admin)
        bouncer = Pgbouncer(server.host or "127.0.0.1", server.port or 5432)
        yield bouncer, bouncer.route(url), name
    finally:
        if bouncer is not None:
            bouncer.stop()
        drop_pg_database(admin, name)


def app_on(url: str, pooler: str, **config: Any) -> Any:
    from service.adapters.db import Pooler, PostgresSettings
    from service.api.app import create_app

    return create_app({
        "DATABASE_URL": url, "LOG_LEVEL": "ERROR", "IDEMPOTENCY_PURGE": False,
        "RATE_LIMIT": "off", "RATE_LIMIT_ANONYMOUS": "off",
        "DATABASE_OPTIONS": {"postgres": PostgresSettings(pooler=Pooler(pooler)),
                             "pool_size": 1, "max_overflow": 0},  # one client connection: it meets every server
        **config,
    })


def test_rounds_are_stored_and_replayed_through_pgbouncer_in_transaction_mode(bounced) -> None:
    import psycopg
    from sqlalchemy.engine import make_url

    from service.services import clients

    bouncer, url, name = bounced
    app = app_on(url, "pgbouncer", READY_CACHE_S=0)  # each /readyz checks: no answer a second old
    http = app.test_client()
    try:
        _, key = clients.create_client(app.extensions["capsa"].db, f"pgb-{secrets.token_hex(4)}")
        ready = http.get("/readyz")
        assert ready.status_code == 200, ready.get_data(as_text=True)
        headers = {"Authorization": f"Bearer {key}"}
        ids = []

        def write(n: int) -> None:
            answer = http.post("/v1/rounds", json=dict(EXAMPLE, reference=f"pgb-{n}"),
                               headers={**headers, "Idempotency-Key": f"k-{n}"})
            assert answer.status_code == 201, answer.get_data(as_text=True)
            ids.append(answer.get_json()["id"])

        write(0)
        # Another client's open transaction holds the server connection the first write used
        # (pgbouncer hands out the last one used): the next writes run on another, where a
        # statement prepared on the first does not exist. More of them than psycopg's
        # prepare threshold (5).
        with psycopg.connect(make_url(url).set(drivername="postgresql").render_as_string(False)) as other:
            other.execute("SELECT 1")
            for n in range(1, 8):
                write(n)
        again = http.post("/v1/rounds", json=dict(EXAMPLE, reference="pgb-0"), headers={**headers, "Idempotency-Key": "k-0"})
        assert again.status_code == 201 and again.get_json()["id"] == ids[0]
        assert again.headers["Idempotent-Replayed"] == "true"
        listed = http.get("/v1/rounds?limit=20", headers=headers).get_json()
        assert sorted(r["id"] for r in listed["items"]) == sorted(ids)
    finally:
        app.extensions["capsa"].db.dispose()
    assert f"db={name}" in bouncer.log()  # it did go through pgbouncer


def test_without_database_pooler_pgbouncer_refuses_the_timeouts_startup_parameter_and_the_app_answers_503(bounced) -> None:
    from service.services import clients

    bouncer, url, _ = bounced
    pooled = app_on(url, "pgbouncer")
    try:
        _, key = clients.create_client(pooled.extensions["capsa"].db, f"pgb-{secrets.token_hex(4)}")
    finally:
        pooled.extensions["capsa"].db.dispose()
    app = app_on(url, "none")  # timeouts as the `options` startup parameter
    http = app.test_client()
    try:
        ready = http.get("/readyz")
        write = http.post("/v1/rounds", json=dict(EXAMPLE, reference="pgb-none"),
                          headers={"Authorization": f"Bearer {key}"})
    finally:
        app.extensions["capsa"].db.dispose()
    assert ready.status_code == 503 and ready.headers["Retry-After"] == "5"
    assert write.status_code == 503 and write.headers["Retry-After"] == str(RETRY_AFTER_UNAVAILABLE)
    assert "unsupported startup parameter: options" in bouncer.log()


def test_a_paused_pgbouncer_is_a_503_within_its_query_wait_timeout_not_a_killed_worker(bounced) -> None:
    """With pgbouncer's PAUSE (a switchover, a maintenance) a query waits in pgbouncer, where
    no statement_timeout runs and a cancel does nothing: with its default query_wait_timeout
    (120 s) every request hung until gunicorn killed its worker (30 s). docs/operations.md
    sets 5 s: the app then answers 503, and serves again after RESUME."""
    import time

    from service.services import clients

    bouncer, url, name = bounced
    app = app_on(url, "pgbouncer", READY_CACHE_S=0)  # each /readyz checks: no answer a second old
    http = app.test_client()
    try:
        _, key = clients.create_client(app.extensions["capsa"].db, f"pgb-{secrets.token_hex(4)}")
        headers = {"Authorization": f"Bearer {key}"}
        assert http.get("/readyz").status_code == 200
        bouncer.console(f"PAUSE {name}")
        try:
            started = time.monotonic()
            ready = http.get("/readyz")
            write = http.post("/v1/rounds", json=dict(EXAMPLE, reference="pgb-paused"), headers=headers)
            waited = time.monotonic() - started
        finally:
            bouncer.console(f"RESUME {name}")
        assert (ready.status_code, write.status_code) == (503, 503)
        assert write.headers["Retry-After"] == str(RETRY_AFTER_UNAVAILABLE)
        assert waited < 15, waited  # two requests, each within about 5 s
        codes = [http.post("/v1/rounds", json=dict(EXAMPLE, reference="pgb-resumed"), headers=headers).status_code
                 for _ in range(2)]
        assert 201 in codes, codes  # a connection pgbouncer closed may cost the first one
    finally:
        app.extensions["capsa"].db.dispose()
