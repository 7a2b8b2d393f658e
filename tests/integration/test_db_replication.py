"""The app on a replicated PostgreSQL: an unacknowledged synchronous commit, a dropped
connection, a read-only node and a failover to the standby, each on private clusters
(pgkit; skipped where PostgreSQL's binaries are absent). A write is acknowledged (201) only
once the standby has it; anything else answers 503 with Retry-After, and its retry with the
same Idempotency-Key gives exactly one round, on whichever node is the primary then.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pgkit import Cluster

from service.api.problems import RETRY_AFTER_UNAVAILABLE

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = json.loads((ROOT / "service/examples/round-4p-capsa-susun-id.json").read_text())


def body(reference: str) -> dict[str, Any]:
    return dict(EXAMPLE, reference=reference)


def migrated(node: Cluster) -> str:
    from service.adapters.migrate import upgrade

    node.sql("CREATE DATABASE capsa")
    url = node.url("capsa")
    upgrade(url)
    return url


def app_on(url: str, **settings: Any) -> Any:
    from service.adapters.db import PostgresSettings
    from service.api.app import create_app

    return create_app({
        "DATABASE_URL": url,
        "LOG_LEVEL": "ERROR",
        "IDEMPOTENCY_PURGE": False,
        "RATE_LIMIT": "off",
        "RATE_LIMIT_ANONYMOUS": "off",
        "DATABASE_OPTIONS": {"postgres": PostgresSettings(**settings), "pool_size": 2},
    })


def key_for(app: Any) -> str:
    from service.services import clients

    _, key = clients.create_client(app.extensions["capsa"].db, f"ha-{secrets.token_hex(4)}")
    return key


def post(http: Any, key: str, reference: str, idempotency_key: str) -> Any:
    return http.post("/v1/rounds", json=body(reference),
                     headers={"Authorization": f"Bearer {key}", "Idempotency-Key": idempotency_key})


def rounds_named(node: Cluster, reference: str) -> list[str]:
    return [r[0] for r in node.sql("SELECT id FROM rounds WHERE reference = %s", reference, database="capsa")]


def metrics_text(app: Any) -> str:
    from prometheus_client import generate_latest

    return generate_latest(app.extensions["capsa"].metrics.registry).decode()


def assert_unavailable(answer: Any) -> None:
    assert answer.status_code == 503, answer.get_data(as_text=True)
    assert answer.headers["Retry-After"] == str(RETRY_AFTER_UNAVAILABLE)
    assert answer.content_type == "application/problem+json"
    assert answer.get_json()["type"].endswith("/problems/unavailable")


@pytest.fixture(scope="module")
def primary() -> Iterator[Cluster]:
    node = Cluster.primary()
    try:
        yield node
    finally:
        node.destroy()


@pytest.fixture(scope="module")
def url(primary: Cluster) -> str:
    return migrated(primary)


def test_a_commit_the_synchronous_standby_never_acknowledges_answers_503_and_its_retry_replays_the_one_round(
    primary: Cluster, url: str,
) -> None:
    app = app_on(url, write_deadline_s=0.5)
    http = app.test_client()
    key = key_for(app)
    try:
        primary.set("synchronous_standby_names", "ghost")  # a standby that never connects
        assert http.get("/readyz").get_json() == {
            "status": "ok", "database": "ok", "replication": "waiting", "standbys": 0,
        }
        assert 'capsa_database_replication{state="waiting"} 1.0' in metrics_text(app)
        started = time.monotonic()
        first = post(http, key, "sync-1", "k-sync-1")
        elapsed = time.monotonic() - started
        assert_unavailable(first)
        assert elapsed < 2.5  # the write deadline (0.5 s) ended the wait, not statement_timeout (5 s)
        # PostgreSQL committed it locally when the wait was cancelled: the round is there,
        # but was never acknowledged.
        assert len(rounds_named(primary, "sync-1")) == 1
        # While the standby is still missing, the replay is not acknowledged either.
        assert_unavailable(post(http, key, "sync-1", "k-sync-1"))
        primary.set("synchronous_standby_names", "")
        again = post(http, key, "sync-1", "k-sync-1")
        assert again.status_code == 201, again.get_data(as_text=True)
        assert again.headers["Idempotent-Replayed"] == "true"
        assert rounds_named(primary, "sync-1") == [again.get_json()["id"]]
    finally:
        primary.set("synchronous_standby_names", "")
        app.extensions["capsa"].db.dispose()


def test_a_write_without_an_idempotency_key_whose_sync_wait_is_cancelled_is_not_acknowledged_either(
    primary: Cluster, url: str,
) -> None:
    app = app_on(url, write_deadline_s=0.3)
    http = app.test_client()
    key = key_for(app)
    try:
        primary.set("synchronous_standby_names", "ghost")
        answer = http.post("/v1/rounds", json=body("sync-nokey"), headers={"Authorization": f"Bearer {key}"})
        assert_unavailable(answer)
    finally:
        primary.set("synchronous_standby_names", "")
        app.extensions["capsa"].db.dispose()


def test_a_dropped_connection_answers_503_with_retry_after_and_the_next_request_reconnects(
    primary: Cluster, url: str,
) -> None:
    app = app_on(url)
    http = app.test_client()
    key = key_for(app)
    try:
        assert post(http, key, "drop-0", "k-drop-0").status_code == 201
        # The pooled connections die between requests (a failover, a restarted pgbouncer).
        killed = primary.sql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = 'capsa' AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
        )
        assert killed
        assert_unavailable(post(http, key, "drop-1", "k-drop-1"))
        assert rounds_named(primary, "drop-1") == []
        retried = post(http, key, "drop-1", "k-drop-1")
        assert retried.status_code == 201, retried.get_data(as_text=True)
        assert rounds_named(primary, "drop-1") == [retried.get_json()["id"]]
    finally:
        app.extensions["capsa"].db.dispose()


def test_a_write_refused_as_read_only_answers_503_and_the_pool_moves_to_the_new_primary_without_a_restart() -> None:
    a = Cluster.primary()
    b: Cluster | None = None
    try:
        migrated(a)
        b = a.standby("b")
        a.set("synchronous_standby_names", "b")
        a.set("synchronous_commit", "remote_apply")  # an acknowledged round is readable on B
        # Both nodes, the primary first; libpq keeps the first that accepts writes.
        url = (f"postgresql+psycopg://postgres@/capsa?host={a.host}&host={b.host}"
               "&target_session_attrs=read-write")
        app = app_on(url)
        http = app.test_client()
        key = key_for(app)
        try:
            _wait_streaming(a, "b")
            assert http.get("/readyz").get_json() == {
                "status": "ok", "database": "ok", "replication": "synchronous", "standbys": 1,
            }
            assert post(http, key, "ha-0", "k-ha-0").status_code == 201
            assert len(rounds_named(b, "ha-0")) == 1  # acknowledged: the standby has it
            # Failover: the old primary stops taking writes (its pooled connections stay
            # open: only the first write on them finds out), the standby is promoted.
            a.set("default_transaction_read_only", "on")
            b.promote()
            refused = post(http, key, "ha-1", "k-ha-1")
            assert_unavailable(refused)
            # The pool was replaced: the retry connects anew, skips A (read-only) for B.
            retried = post(http, key, "ha-1", "k-ha-1")
            assert retried.status_code == 201, retried.get_data(as_text=True)
            assert rounds_named(b, "ha-1") == [retried.get_json()["id"]]
            assert rounds_named(a, "ha-1") == []
            # The old primary gone altogether: new connections skip it, still no restart.
            a.stop("immediate")
            app.extensions["capsa"].db.engine.dispose()  # as after its connections were dropped
            later = post(http, key, "ha-2", "k-ha-2")
            assert later.status_code == 201, later.get_data(as_text=True)
            assert len(rounds_named(b, "ha-2")) == 1
            assert [r[0] for r in b.sql("SELECT count(*) FROM rounds", database="capsa")] == [3]
        finally:
            app.extensions["capsa"].db.dispose()
    finally:
        if b is not None:
            b.destroy()
        a.destroy()


def _wait_streaming(primary: Cluster, name: str) -> None:
    deadline = time.monotonic() + 20
    query = "SELECT 1 FROM pg_stat_replication WHERE application_name = %s AND sync_state = 'sync'"
    while not primary.sql(query, name):
        assert time.monotonic() < deadline, f"{name} never streamed synchronously"
        time.sleep(0.05)
