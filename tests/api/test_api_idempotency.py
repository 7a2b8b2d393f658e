"""Idempotency-Key on POST /v1/rounds: replay byte for byte, 422 for another body, 409 in flight."""

from __future__ import annotations

import threading
from typing import Any

import pytest
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
    assert fields_of(answer) == {"header.Idempotency-Key"}
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


def test_a_key_still_in_flight_is_409_with_retry_after(http, tenant, monkeypatch):
    from service.services import rounds

    entered, release = threading.Event(), threading.Event()
    real = rounds.score_round_request

    def slow(body: Any) -> Any:
        entered.set()
        release.wait(10)
        return real(body)

    monkeypatch.setattr(rounds, "score_round_request", slow)
    body = two_player_round()
    results: list[Any] = []
    worker = threading.Thread(target=lambda: results.append(post(http, tenant, body, "slow")))
    worker.start()
    try:
        assert entered.wait(10)
        monkeypatch.setattr(rounds, "score_round_request", real)
        answer = post(http, tenant, body, "slow")
        problem(answer, 409, "idempotency-in-flight")
        assert int(answer.headers["Retry-After"]) >= 1
    finally:
        release.set()
        worker.join(10)
    assert results[0].status_code == 201
    assert post(http, tenant, body, "slow").headers["Idempotent-Replayed"] == "true"


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


def _orphan_marker(app: Any, tenant: Any, body: dict[str, Any], key: str, age_s: float) -> int:
    """An in-flight marker as a request leaves it when its worker dies mid-way."""
    from datetime import timedelta

    from service.adapters.models import IdempotencyRecord
    from service.services.idempotency import IN_FLIGHT
    from service.services.ids import utcnow_ms
    from service.services.jsondoc import body_hash

    db = app.extensions["capsa"].db
    with db.unit_of_work(write=True) as uow:
        record = IdempotencyRecord(
            client_id=tenant.id, method="POST", path="/v1/rounds", key=key,
            request_hash=body_hash(body), state=IN_FLIGHT,
            created_at=utcnow_ms() - timedelta(seconds=age_s))
        uow.idempotency.add(record)
        uow.commit()
        return record.id


@pytest.mark.postgres
def test_a_marker_whose_owner_died_is_taken_over_without_waiting_a_minute(app, http, tenant, db_url):
    if not db_url.startswith("postgresql"):
        pytest.skip("SQLite serialises writers; the owner's lock exists on PostgreSQL")
    body = two_player_round()
    _orphan_marker(app, tenant, body, "orphan", age_s=10)  # no transaction holds its lock
    answer = post(http, tenant, body, "orphan")
    assert answer.status_code == 201, answer.get_json()
    assert count(http, tenant) == 1


@pytest.mark.postgres
def test_a_marker_whose_owner_still_holds_it_stays_in_flight(app, http, tenant, db_url):
    if not db_url.startswith("postgresql"):
        pytest.skip("SQLite serialises writers; the owner's lock exists on PostgreSQL")
    body = two_player_round()
    record_id = _orphan_marker(app, tenant, body, "alive", age_s=10)
    db = app.extensions["capsa"].db
    with db.unit_of_work(write=True) as owner:  # a slow request still running
        owner.idempotency.hold(record_id)
        problem(post(http, tenant, body, "alive"), 409, "idempotency-in-flight")
    assert count(http, tenant) == 0
