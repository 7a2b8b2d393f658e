"""Retry storm on a real server: 200 rounds, each posted 8 times at once with one Idempotency-Key.

gunicorn (gunicorn.conf.py) on loopback, on a PostgreSQL database made for the test. Proven:
exactly 200 rounds (and, once the ledger exists, their balanced ledger lines); every replay is
byte for byte the first 201; a 409 only while the first request was still in flight, with
Retry-After; every round zero-sum; a key reused with another body is 422 and writes nothing.
Runs in `make test` (CI) in about 20 s; skipped without TEST_DATABASE_URL.
"""

from __future__ import annotations

import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from conftest import pg_admin_url
from serverkit import Gunicorn, Reply, call, client_key, database, round_body

ROUNDS = 200
COPIES = 8
PARALLEL_ROUNDS = 2  # two storms at a time: 16 concurrent requests on 5 workers

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def service() -> Any:
    admin = pg_admin_url()
    if admin is None:
        pytest.skip("TEST_DATABASE_URL is not set")
    with database(admin) as url:
        client_id, key = client_key(url)
        with Gunicorn(url) as server:
            yield server, url, client_id, key


def storm(port: int, headers: dict[str, str], body: bytes) -> list[Reply]:
    """COPIES identical requests released together by a barrier."""
    barrier = threading.Barrier(COPIES)

    def one(_: int) -> Reply:
        barrier.wait()
        return call(port, "POST", "/v1/rounds", headers, body)

    with ThreadPoolExecutor(COPIES) as pool:
        return list(pool.map(one, range(COPIES)))


def sql(url: str, query: str, **params: Any) -> list[Any]:
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return list(conn.execute(text(query), params).all())
    finally:
        engine.dispose()


def test_retry_storm(service):
    server, url, client_id, key = service
    port = server.port
    started = time.monotonic()
    keys = [f"storm-{i}-{secrets.token_hex(4)}" for i in range(ROUNDS)]
    bodies = [round_body(f"storm-{i}", stake=str(1000 * (1 + i % 7))) for i in range(ROUNDS)]

    def headers(i: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {key}", "Content-Type": "application/json",
                "Idempotency-Key": keys[i]}

    with ThreadPoolExecutor(PARALLEL_ROUNDS) as pool:
        results = list(pool.map(lambda i: storm(port, headers(i), bodies[i]), range(ROUNDS)))
    storm_seconds = time.monotonic() - started

    problems: list[str] = []
    firsts: list[Reply] = []
    counts = {"first": 0, "replayed": 0, "in-flight": 0}
    for i, replies in enumerate(results):
        fresh = [r for r in replies if r.status == 201 and "idempotent-replayed" not in r.headers]
        if len(fresh) != 1:
            problems.append(f"round {i}: {len(fresh)} first answers, statuses {[r.status for r in replies]}")
            continue
        first = fresh[0]
        firsts.append(first)
        counts["first"] += 1
        for reply in replies:
            if reply is first:
                continue
            if reply.status == 201:
                counts["replayed"] += 1
                if reply.headers.get("idempotent-replayed") != "true" or reply.body != first.body:
                    problems.append(f"round {i}: a replay differs from the first 201")
                if reply.headers.get("location") != first.headers.get("location"):
                    problems.append(f"round {i}: a replay has another Location")
            elif reply.status == 409:
                counts["in-flight"] += 1
                problem = reply.json()
                if problem["type"] != "/problems/idempotency-in-flight" or not reply.headers.get("retry-after"):
                    problems.append(f"round {i}: a 409 {problem['type']} without Retry-After")
                # In flight: sent before the first answer had come back.
                if reply.sent >= first.received:
                    problems.append(f"round {i}: 409 for a request sent after the first was answered")
            else:
                problems.append(f"round {i}: status {reply.status} {reply.body[:200]!r}")
    assert not problems, "\n".join(problems[:30])

    # Afterwards nothing is in flight: every key replays, byte for byte.
    for i in range(0, ROUNDS, 10):
        again = call(port, "POST", "/v1/rounds", headers(i), bodies[i])
        assert again.status == 201 and again.headers["idempotent-replayed"] == "true"
        assert again.body == firsts[i].body

    # Exactly one round per key, each with its 4 players, zero-sum.
    ids = [f.json()["id"] for f in firsts]
    assert len(set(ids)) == ROUNDS
    stored = sql(url, "SELECT id FROM rounds WHERE client_id = :c", c=client_id)
    assert sorted(r[0] for r in stored) == sorted(ids)
    # Each round's settlement lines: 4 players, results summing to zero.
    sums = sql(url, """SELECT c.round_id, count(*), sum(l.amount) FROM ledger_lines l
                       JOIN chain_records c ON c.client_id = l.client_id AND c.sequence = l.sequence
                       WHERE l.client_id = :c AND l.kind = 'settlement' GROUP BY c.round_id""", c=client_id)
    assert len(sums) == ROUNDS
    assert all(n == 4 and result == 0 for _, n, result in sums), sums[:5]
    for first in firsts:
        doc = first.json()
        assert sum(int(p["result"]) for p in doc["players"]) == 0
        assert sum(int(p["net"]) for p in doc["players"]) + int(doc["house_fee"]) == 0

    # Every round has its lines, and they balance; one chain record each.
    lines = sql(url, """SELECT c.round_id, count(*), sum(l.amount) FROM ledger_lines l
                       JOIN chain_records c ON c.client_id = l.client_id AND c.sequence = l.sequence
                        WHERE l.client_id = :c GROUP BY c.round_id""", c=client_id)
    assert sorted(r[0] for r in lines) == sorted(ids)
    assert all(n >= 4 and total == 0 for _, n, total in lines), lines[:5]
    records = sql(url, "SELECT count(*), count(DISTINCT round_id) FROM chain_records WHERE client_id = :c",
                  c=client_id)
    assert records == [(ROUNDS, ROUNDS)]

    # A key reused with another body: 422, and nothing is written.
    counts_sql = ("SELECT (SELECT count(*) FROM rounds), (SELECT count(*) FROM ledger_lines),"
                  " (SELECT count(*) FROM chain_records), (SELECT count(*) FROM idempotency_records)")
    before = sql(url, counts_sql)
    reused = call(port, "POST", "/v1/rounds", headers(0), round_body("storm-other", stake="9000"))
    assert reused.status == 422, reused.body
    assert reused.json()["type"] == "/problems/idempotency-key-reused"
    assert sql(url, counts_sql) == before

    assert "Traceback" not in server.log_text()
    print(f"\nretry storm: {ROUNDS} rounds x {COPIES} copies in {storm_seconds:.1f} s: "
          f"{counts['first']} first 201s, {counts['replayed']} byte-identical replays, "
          f"{counts['in-flight']} 409s in flight, 0 duplicates")
    assert storm_seconds < 90
