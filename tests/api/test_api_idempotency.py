"""Idempotency-Key on POST /v1/rounds: replay byte for byte, 422 for another body, 409 in flight."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from conftest import lock_waiters, migrated_sqlite, wait_for
from httpkit import fields_of, problem, two_player_round


def post(http: Any, tenant: Any, body: dict[str, Any], key: str | None) -> Any:
    headers = dict(tenant.headers)
    if key is not None:
        headers["Idempotency-Key"] = key
    return http.post("/v1/rounds", json=body, headers=headers)


def count(http: Any, tenant: Any) -> int:
    return len(http.get("/v1/rounds?limit=500", headers=tenant.headers).get_json()["items"])


def test_the_same_key_and_body_replays_byte_for_byte_and_creates_nothing(http, tenant):
    body = two_player_round()
    first = post(http, tenant, body, "key-1")
    again = post(http, tenant, dict(reversed(list(body.items()))), "key-1")
    assert first.status_code == again.status_code == 201
    assert again.data == first.data
    assert again.headers["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first.headers
    assert again.headers["Location"] == first.headers["Location"]
    assert count(http, tenant) == 1


def test_a_quoted_key_is_the_same_key(http, tenant):
    body = two_player_round()
    first = post(http, tenant, body, "abc")
    again = post(http, tenant, body, '"abc"')
    assert again.data == first.data and again.headers["Idempotent-Replayed"] == "true"


def test_the_same_key_with_another_body_is_422(http, tenant):
    body = two_player_round()
    assert post(http, tenant, body, "key-2").status_code == 201
    answer = problem(post(http, tenant, {**body, "stake": "2000"}, "key-2"), 422,
                     "idempotency-key-reused")
    assert answer["detail"] == "this Idempotency-Key was used with another request body"
    assert answer["errors"] == [{"field": "header.Idempotency-Key", "message": "already used with another request body"}]
    assert count(http, tenant) == 1


def test_keys_are_scoped_per_client(http, tenant, other_tenant):
    body = two_player_round()
    assert post(http, tenant, body, "shared").status_code == 201
    other = post(http, other_tenant, body, "shared")
    assert other.status_code == 201 and "Idempotent-Replayed" not in other.headers


def test_a_rejected_request_does_not_keep_its_key(http, tenant):
    body = two_player_round()
    bad = {**body, "currency": "XXQ"}
    assert post(http, tenant, bad, "key-3").status_code == 422
    good = post(http, tenant, body, "key-3")
    assert good.status_code == 201 and "Idempotent-Replayed" not in good.headers


@pytest.mark.parametrize("key", ["", "x" * 256, "caf\u00e9", "tab\there"])
def test_a_malformed_key_is_422_on_the_header(http, tenant, key):
    answer = http.post(
        "/v1/rounds",
        json=two_player_round(),
        headers={**tenant.headers, "Idempotency-Key": key.encode().decode("latin-1")},
    )
    body = problem(answer, 422, "validation")
    assert fields_of(body) == {"header.Idempotency-Key"}


def test_eight_concurrent_posts_with_one_key_store_one_round(app, tenant):
    body = two_player_round()
    barrier = threading.Barrier(8)
    answers: list[Any] = []
    lock = threading.Lock()

    def one() -> None:
        client = app.test_client()
        barrier.wait(10)
        response = post(client, tenant, body, "race")
        with lock:
            answers.append(response)

    threads = [threading.Thread(target=one) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    statuses = sorted(r.status_code for r in answers)
    assert len(answers) == 8
    assert set(statuses) <= {201, 409}, statuses
    fresh = [r for r in answers if r.status_code == 201 and "Idempotent-Replayed" not in r.headers]
    assert len(fresh) == 1
    for r in answers:
        if r.status_code == 409:
            assert r.get_json()["type"] == "/problems/idempotency-in-flight"
            assert int(r.headers["Retry-After"]) >= 1
        else:
            assert r.data == fresh[0].data
    assert count(app.test_client(), tenant) == 1


# -- a key whose first request has not committed yet ------------------------------------------

def _pg(db_url: str) -> None:
    if not db_url.startswith("postgresql"):
        pytest.skip("waiting on another transaction's uncommitted key is PostgreSQL's; SQLite serialises writers")


def _uncommitted_claim(app: Any, tenant: Any, body: dict[str, Any], key: str) -> Any:
    """A connection that has claimed `key` and not committed: a request still running."""
    from service.adapters.models import IdempotencyRecord
    from service.services.clock import utcnow_ms
    from service.services.jsondoc import body_hash

    conn = app.extensions["capsa"].db.engine.connect()
    conn.execute(IdempotencyRecord.__table__.insert().values(
        client_id=tenant.id, method="POST", path="/v1/rounds", key=key, request_hash=body_hash(body),
        status_code=201, resource="rnd_pending", created_at=utcnow_ms()))
    return conn


@pytest.mark.postgres
def test_a_key_whose_request_is_still_running_waits_at_most_two_seconds_then_is_409(app, http, tenant, db_url):
    _pg(db_url)
    body = two_player_round()
    holder = _uncommitted_claim(app, tenant, body, "running")
    try:
        started = time.monotonic()
        answer = post(http, tenant, body, "running")
        waited = time.monotonic() - started
    finally:
        holder.rollback()
        holder.close()
    problem(answer, 409, "idempotency-in-flight")
    assert int(answer.headers["Retry-After"]) >= 1
    assert 1.8 <= waited < 3.5, waited
    assert count(http, tenant) == 0
    # The first request ended without storing anything: the key is free at once.
    again = post(http, tenant, body, "running")
    assert again.status_code == 201 and "Idempotent-Replayed" not in again.headers


@pytest.mark.postgres
def test_a_busy_chain_is_said_to_be_busy_with_a_key_or_without(app, http, tenant, db_url):
    """Another transaction holding the client's chain head (a stuck writer) is not another
    request with this key: a fresh key is not told its request is still running."""
    from sqlalchemy import text

    _pg(db_url)
    post(http, tenant, two_player_round(), None)  # the chain head exists
    holder = app.extensions["capsa"].db.engine.connect()
    try:
        holder.execute(text("SELECT 1 FROM chain_heads WHERE client_id = :c FOR UPDATE"), {"c": tenant.id})
        keyed = post(http, tenant, two_player_round(), "never-used")
        plain = post(http, tenant, two_player_round(), None)
    finally:
        holder.rollback()
        holder.close()
    for answer in (keyed, plain):
        assert "chain is busy" in problem(answer, 503, "unavailable")["detail"]
        assert int(answer.headers["Retry-After"]) >= 1
    assert count(http, tenant) == 1
    again = post(http, tenant, two_player_round(), "never-used")  # the key was never taken
    assert again.status_code == 201 and "Idempotent-Replayed" not in again.headers


@pytest.mark.postgres
def test_a_key_whose_request_commits_while_the_retry_waits_is_replayed(app, tenant, db_url):
    _pg(db_url)
    from sqlalchemy import text

    body = two_player_round()
    engine = app.extensions["capsa"].db.engine
    blocker = engine.connect()  # holds the client's chain head: the first request stalls after its claim
    blocker.execute(text("SELECT 1 FROM chain_heads WHERE client_id = :c FOR UPDATE"), {"c": tenant.id})
    answers: dict[str, Any] = {}

    def first() -> None:
        answers["first"] = post(app.test_client(), tenant, body, "slow")

    def retry() -> None:
        answers["retry"] = post(app.test_client(), tenant, body, "slow")

    t1 = threading.Thread(target=first)
    t1.start()
    wait_for(lambda: lock_waiters(engine) == 1)  # the first request has claimed the key and waits for the head
    t2 = threading.Thread(target=retry)
    t2.start()
    wait_for(lambda: lock_waiters(engine) == 2)  # the retry waits for the first request's uncommitted claim
    blocker.rollback()
    blocker.close()
    t1.join(10)
    t2.join(10)
    assert answers["first"].status_code == 201 and "Idempotent-Replayed" not in answers["first"].headers
    assert answers["retry"].status_code == 201 and answers["retry"].headers["Idempotent-Replayed"] == "true"
    assert answers["retry"].data == answers["first"].data
    assert count(app.test_client(), tenant) == 1


@pytest.mark.postgres
def test_a_key_whose_owner_died_is_usable_at_once(app, http, tenant, db_url):
    _pg(db_url)
    from sqlalchemy import text

    body = two_player_round()
    holder = _uncommitted_claim(app, tenant, body, "orphan")
    pid = holder.execute(text("SELECT pg_backend_pid()")).scalar()
    engine = app.extensions["capsa"].db.engine
    with engine.connect() as admin:
        admin.execute(text("SELECT pg_terminate_backend(:p)"), {"p": pid})
        admin.commit()
    holder.invalidate()
    started = time.monotonic()
    answer = post(http, tenant, body, "orphan")
    assert answer.status_code == 201, answer.get_json()
    assert time.monotonic() - started < 1.5
    assert count(http, tenant) == 1


def test_on_sqlite_a_key_whose_owner_was_killed_is_usable_at_once(app, http, tenant, db_url, tmp_path):
    if not db_url.startswith("sqlite"):
        pytest.skip("the killed writer here holds SQLite's write lock")
    import os
    import signal
    import subprocess
    import sys

    from service.services.jsondoc import body_hash

    body = two_player_round()
    path = app.extensions["capsa"].db.engine.url.database
    script = (
        "import sqlite3, sys, time\n"
        f"c = sqlite3.connect({path!r}, isolation_level=None)\n"
        "c.execute('BEGIN IMMEDIATE')\n"
        "c.execute(\"INSERT INTO idempotency_records (client_id, method, path, key, request_hash, status_code,"
        " created_at) VALUES (?, 'POST', '/v1/rounds', 'killed', ?, 201, '2026-12-01 00:00:00')\","
        f" ({tenant.id!r}, {body_hash(body)!r}))\n"
        "print('claimed', flush=True)\n"
        "time.sleep(60)\n"
    )
    owner = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert owner.stdout is not None and owner.stdout.readline().strip() == "claimed"
        os.kill(owner.pid, signal.SIGKILL)
        owner.wait(10)
        answer = post(http, tenant, body, "killed")
        assert answer.status_code == 201, answer.get_json()
        assert "Idempotent-Replayed" not in answer.headers
        assert count(http, tenant) == 1
    finally:
        if owner.poll() is None:
            owner.kill()
            owner.wait(10)
        assert owner.stdout is not None
        owner.stdout.close()


# -- retention: 24 hours, then purged without operator action ----------------------------------


def idempotency_rows(app: Any, client_id: str) -> int:
    import conftest

    return conftest.idempotency_rows(app.extensions["capsa"].db, client_id)


def test_a_replay_is_kept_for_24_hours_and_not_a_millisecond_more(http, tenant, clock):
    body = two_player_round()
    first = post(http, tenant, body, "day-1")
    assert first.status_code == 201
    clock.advance(hours=24)  # exactly KEEP: still the first answer
    kept = post(http, tenant, body, "day-1")
    assert kept.headers.get("Idempotent-Replayed") == "true" and kept.data == first.data
    clock.advance(milliseconds=1)
    late = post(http, tenant, body, "day-1")  # the key is free: the same reference is refused now
    assert "Idempotent-Replayed" not in late.headers
    assert late.status_code == 409, late.get_data(as_text=True)
    assert count(http, tenant) == 1


def test_a_retry_as_its_key_expires_between_the_claim_and_the_replay_is_never_500(http, tenant):
    """A real clock moves between two reads: the store's claim, read first, still found
    the key live and the replay, read after, found it expired; the request was stored again
    with the stale claim and failed (500). Each millisecond around the 24 h answers the
    replay, or (once expired) the new request's 409 on the reference."""
    from datetime import UTC, datetime, timedelta

    from service.services.clock import Clock, use_clock

    class Ticking(Clock):
        def __init__(self, at: datetime) -> None:
            self.at = at

        def now(self) -> datetime:
            self.at += timedelta(milliseconds=1)
            return self.at

    start = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
    ticking = Ticking(start)
    previous = use_clock(ticking)
    try:
        body = two_player_round(reference="expiring-edge")
        first = post(http, tenant, body, "edge")
        assert first.status_code == 201
        created = ticking.at  # the key's time is at most this
        answers = set()
        for offset in range(-8, 4):
            ticking.at = created + timedelta(hours=24, milliseconds=offset)
            again = post(http, tenant, body, "edge")
            answers.add((again.status_code, again.headers.get("Idempotent-Replayed")))
        assert answers <= {(201, "true"), (409, None)} and (201, "true") in answers and (409, None) in answers
    finally:
        use_clock(previous)


def test_expired_records_are_purged_by_the_service_itself(tmp_path, clock):
    from conftest import make_app, make_tenant

    from service.services import idempotency

    url = migrated_sqlite(tmp_path / "purge.db")
    app = make_app(url)
    try:
        http = app.test_client()
        tenant = make_tenant(app)
        for i in range(3):
            assert post(http, tenant, two_player_round(), f"old-{i}").status_code == 201
        assert idempotency_rows(app, tenant.id) == 3
        clock.advance(seconds=30)
        http.get("/healthz").close()
        assert idempotency_rows(app, tenant.id) == 3  # younger than 24 h: kept
        clock.advance(hours=24)
        assert post(http, tenant, two_player_round(), "new-1").status_code == 201
        # the first purge ran at the first request; the next is due a minute later at most
        clock.advance(seconds=idempotency.PURGE_EVERY.total_seconds())
        http.get("/healthz").close()
        assert idempotency_rows(app, tenant.id) == 1  # only the one made this day
    finally:
        app.extensions["capsa"].db.dispose()


def test_capsa_idempotency_purge_deletes_what_is_past_24_hours_in_batches(tmp_path, clock, capsys):
    from conftest import make_app, make_tenant

    from service import cli

    url = migrated_sqlite(tmp_path / "cli.db")
    app = make_app(url, IDEMPOTENCY_PURGE=False)
    try:
        http = app.test_client()
        tenant = make_tenant(app)
        for i in range(5):
            assert post(http, tenant, two_player_round(), f"k-{i}").status_code == 201
        clock.advance(hours=23)
        assert post(http, tenant, two_player_round(), "recent").status_code == 201
        clock.advance(hours=1, milliseconds=1)
        assert cli.main(["idempotency", "purge", "--batch", "2", "--database-url", url]) == 0
        assert capsys.readouterr().out == "purged 5 idempotency records older than 24 h\n"
        assert idempotency_rows(app, tenant.id) == 1
        assert cli.main(["idempotency", "purge", "--database-url", url]) == 0
        assert capsys.readouterr().out == "purged 0 idempotency records older than 24 h\n"
    finally:
        app.extensions["capsa"].db.dispose()
