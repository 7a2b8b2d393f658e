"""The idempotency use case itself, on both engines: what a key holds, for how long, and what a
replay answers, field by field (the HTTP suite sees these only through POST /v1/rounds).

The clock stands in 2001 here, so the records these tests make are the only ones a purge
can find past 24 hours, whatever else the session's database holds; each test starts by
purging what the tests before it left in 2001.
"""

from __future__ import annotations

import json
import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from conftest import idempotency_rows as rows
from conftest import lock_waiters, make_tenant

from service.api.headers import parse_if_match, parse_key
from service.domain.errors import FieldError
from service.services import idempotency
from service.services.errors import IdempotencyInFlight, IdempotencyKeyReused, InvalidInput
from service.services.idempotency import (
    KEEP,
    Purger,
    StoredResponse,
    purge_expired,
    replay,
    run_once,
)
from service.services.jsondoc import body_hash

T0 = datetime(2001, 1, 1, 12, 0, tzinfo=UTC)
KEY_FIELD = "header.Idempotency-Key"


@pytest.fixture
def db(app: Any) -> Any:
    return app.extensions["capsa"].db


@pytest.fixture
def client_id(app: Any, db: Any, clock: Any) -> str:
    """A new client, the clock at T0, and no record of 2001 left from an earlier test."""
    tenant = make_tenant(app)
    clock.set(T0 + 100 * KEEP)
    purge_expired(db)  # what this file made before: the rest of the suite lives in 2026
    clock.set(T0)
    return tenant.id


class Action:
    """An action that counts its runs and answers `response`."""

    def __init__(self, response: StoredResponse) -> None:
        self.response = response
        self.runs = 0

    def __call__(self, uow: Any) -> StoredResponse:
        self.runs += 1
        return self.response


CREATED = StoredResponse(201, b'{"id":"rnd_1"}', "application/json", "/v1/rounds/rnd_1")
BODY = {"stake": "1000", "players": ["a", "b"]}




# -- the header --------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "header, key",
    [
        (None, None),
        ("k", "k"),
        ("~ !", "~ !"),  # the printable ends, 0x20 and 0x7e
        ('"k1"', "k1"),  # a Structured Field string is its content
        ('"k1,k2"', "k1,k2"),  # a comma inside quotes is part of one key
        ('"', '"'),  # one quote is not a quoted string
        ("x" * 255, "x" * 255),
        ('"' + "x" * 255 + '"', "x" * 255),
    ],
)
def test_a_key_is_read_from_its_header(header, key):
    assert parse_key(header) == key


@pytest.mark.parametrize("header", ["k1,k2", "k1, k2", ",", '"a"b"', '"a\\b"'])
def test_two_keys_in_one_header_are_refused_naming_the_header(header):
    with pytest.raises(InvalidInput) as caught:
        parse_key(header)
    assert caught.value.message == (
        "Idempotency-Key was sent more than once (or holds a comma outside quotes); send one key")
    assert caught.value.errors == [FieldError(KEY_FIELD, f"one key expected, got {json.dumps(header)}")]


@pytest.mark.parametrize("header", ["", '""', "x" * 256, '"' + "x" * 256 + '"', "tab\there", "\x7f", "caf\u00e9"])
def test_a_key_outside_1_to_255_printable_ascii_is_refused(header):
    with pytest.raises(InvalidInput) as caught:
        parse_key(header)
    shown = json.dumps(header, ensure_ascii=False).replace("\x7f", "\\u007f")  # DEL quoted as its escape
    shown = shown if len(shown) <= 100 else shown[:99] + "\u2026"
    assert caught.value.message == f"Idempotency-Key must be 1-255 printable ASCII characters, got {shown}"
    assert caught.value.errors == [FieldError(KEY_FIELD, f"must be 1-255 printable ASCII characters, got {shown}")]


@pytest.mark.parametrize("sent", ["caf\u00e9", "\u043a\u043b\u044e\u0447", "\U0001f0a1"])
def test_a_refused_utf8_key_is_quoted_as_the_client_wrote_it(sent):
    # WSGI servers hand header bytes over as Latin-1: "café" sent as UTF-8 arrives as "cafÃ©".
    with pytest.raises(InvalidInput) as caught:
        parse_key(sent.encode().decode("latin-1"))
    assert caught.value.message == f"Idempotency-Key must be 1-255 printable ASCII characters, got {json.dumps(sent, ensure_ascii=False)}"


def test_a_refused_if_match_is_quoted_as_the_client_wrote_it():
    with pytest.raises(InvalidInput) as caught:
        parse_if_match("v\u00e9rsion".encode().decode("latin-1"))
    assert caught.value.message == 'If-Match must be a game version, such as "7", got "v\u00e9rsion"'


def test_a_request_in_flight_is_asked_to_retry_after_a_second():
    error = idempotency.in_flight()
    assert (error.retry_after, error.message) == (
        1, "a request with this Idempotency-Key is still being processed; retry after Retry-After seconds")


# -- run once, replay ---------------------------------------------------------------------------

def test_without_a_key_the_action_runs_every_time_and_nothing_is_kept(db, client_id):
    action = Action(CREATED)
    assert run_once(db, client_id, "POST", "/v1/rounds", None, BODY, action) is CREATED
    assert run_once(db, client_id, "POST", "/v1/rounds", None, BODY, action) is CREATED
    assert action.runs == 2 and rows(db, client_id) == 0


def test_a_kept_answer_replays_every_field_and_the_action_runs_once(db, client_id):
    action = Action(CREATED)
    first = run_once(db, client_id, "POST", "/v1/rounds", "k", BODY, action)
    assert first == CREATED and not first.replayed
    again = run_once(db, client_id, "POST", "/v1/rounds", "k", dict(reversed(BODY.items())), action)
    assert again == StoredResponse(201, b'{"id":"rnd_1"}', "application/json", "/v1/rounds/rnd_1", replayed=True)
    assert action.runs == 1 and rows(db, client_id) == 1
    looked_up = replay(db, client_id, "POST", "/v1/rounds", "k", body_hash(BODY))
    assert looked_up == again


def test_a_key_is_its_clients_method_and_paths(db, app, client_id):
    action = Action(CREATED)
    run_once(db, client_id, "POST", "/v1/rounds", "k", BODY, action)
    other = make_tenant(app).id
    for who, method, path in ((other, "POST", "/v1/rounds"), (client_id, "PUT", "/v1/rounds"),
                              (client_id, "POST", "/v1/deals")):
        assert not run_once(db, who, method, path, "k", BODY, action).replayed
    assert action.runs == 4
    assert replay(db, client_id, "POST", "/v1/deals", "other", body_hash(BODY)) is None


def test_the_same_key_with_another_body_is_refused_and_runs_nothing(db, client_id):
    action = Action(CREATED)
    run_once(db, client_id, "POST", "/v1/rounds", "k", BODY, action)
    with pytest.raises(IdempotencyKeyReused) as caught:
        run_once(db, client_id, "POST", "/v1/rounds", "k", {**BODY, "stake": "2000"}, action)
    assert caught.value.message == "this Idempotency-Key was used with another request body"
    assert caught.value.errors == [FieldError(KEY_FIELD, "already used with another request body")]
    assert action.runs == 1


@pytest.mark.parametrize("status", [199, 300, 409, 422])
def test_an_answer_outside_2xx_is_not_kept_and_the_key_stays_free(db, client_id, status):
    refused = Action(StoredResponse(status, b'{"type":"x"}', "application/problem+json"))
    assert run_once(db, client_id, "POST", "/v1/rounds", "k", BODY, refused).status == status
    assert rows(db, client_id) == 0
    action = Action(CREATED)
    assert run_once(db, client_id, "POST", "/v1/rounds", "k", BODY, action) == CREATED
    assert action.runs == 1


@pytest.mark.parametrize("status", [200, 204, 299])
def test_every_2xx_answer_is_kept(db, client_id, status):
    action = Action(StoredResponse(status, b"{}"))
    run_once(db, client_id, "POST", "/v1/x", "k", BODY, action)
    assert run_once(db, client_id, "POST", "/v1/x", "k", BODY, action).replayed
    assert action.runs == 1


def test_a_replay_lasts_24_hours_to_the_millisecond_then_the_key_runs_again(db, client_id, clock):
    action = Action(CREATED)
    run_once(db, client_id, "POST", "/v1/rounds", "k", BODY, action)
    clock.set(T0 + KEEP)
    assert run_once(db, client_id, "POST", "/v1/rounds", "k", BODY, action).replayed
    assert replay(db, client_id, "POST", "/v1/rounds", "k", body_hash(BODY)) is not None
    clock.set(T0 + KEEP + timedelta(milliseconds=1))
    assert replay(db, client_id, "POST", "/v1/rounds", "k", body_hash(BODY)) is None
    # the expired record is taken over: the action runs again, and its answer is kept anew
    assert not run_once(db, client_id, "POST", "/v1/rounds", "k", {**BODY, "stake": "5"}, action).replayed
    assert action.runs == 2 and rows(db, client_id) == 1
    assert run_once(db, client_id, "POST", "/v1/rounds", "k", {**BODY, "stake": "5"}, action).replayed


def test_an_answer_kept_as_a_resource_is_rendered_again_on_replay(db, client_id):
    digest = body_hash(BODY)
    with db.unit_of_work(write=True) as uow:
        assert uow.idempotency.claim(client_id, "POST", "/v1/rounds", "r", digest, T0, T0 - KEEP)
        uow.idempotency.complete(client_id, "POST", "/v1/rounds", "r", 201, resource="rnd_9")
        uow.commit()
    seen = []

    def render(uow: Any, record: Any) -> StoredResponse:
        seen.append((record.resource, record.status_code, record.content_type, record.response_body))
        return StoredResponse(record.status_code, b"rendered", "application/json", "/v1/rounds/rnd_9")

    assert replay(db, client_id, "POST", "/v1/rounds", "r", digest, render) == StoredResponse(
        201, b"rendered", "application/json", "/v1/rounds/rnd_9", replayed=True)
    assert seen == [("rnd_9", 201, None, None)]
    assert replay(db, client_id, "POST", "/v1/rounds", "r", digest) is None  # nothing to render with
    # run_once has no renderer: a key held by such a record is in flight to it, not run again
    action = Action(CREATED)
    with pytest.raises(IdempotencyInFlight) as caught:
        run_once(db, client_id, "POST", "/v1/rounds", "r", BODY, action)
    assert caught.value.retry_after == 1 and action.runs == 0


def test_a_stored_answer_without_a_content_type_replays_as_json(db, client_id):
    digest = body_hash(BODY)
    with db.unit_of_work(write=True) as uow:
        uow.idempotency.claim(client_id, "POST", "/v1/x", "c", digest, T0, T0 - KEEP)
        uow.idempotency.complete(client_id, "POST", "/v1/x", "c", 200, body=b"{}")
        uow.commit()
    assert replay(db, client_id, "POST", "/v1/x", "c", digest) == StoredResponse(
        200, b"{}", "application/json", None, replayed=True)


# -- purging ----------------------------------------------------------------------------------

def _keep(db: Any, client_id: str, keys: list[str]) -> None:
    for key in keys:
        run_once(db, client_id, "POST", "/v1/rounds", key, BODY, Action(CREATED))


def test_a_purge_deletes_what_is_past_24_hours_in_batches_and_counts_it(db, client_id, clock):
    _keep(db, client_id, [f"old-{i}" for i in range(5)])
    clock.set(T0 + timedelta(hours=1))
    _keep(db, client_id, ["young"])
    clock.set(T0 + KEEP)  # exactly 24 h: nothing has expired yet
    assert purge_expired(db, batch=2) == 0
    clock.set(T0 + KEEP + timedelta(milliseconds=1))
    assert purge_expired(db, batch=2, batches=1) == 2  # one batch of two
    assert rows(db, client_id) == 4
    assert purge_expired(db, batch=2) == 3  # the other three, in two more batches
    assert rows(db, client_id) == 1
    assert replay(db, client_id, "POST", "/v1/rounds", "young", body_hash(BODY)) is not None
    assert purge_expired(db) == 0


def test_a_purge_stops_after_a_short_batch(db, client_id, clock, monkeypatch):
    from service.adapters.idempotency import IdempotencyRepository

    _keep(db, client_id, ["a", "b", "c"])
    clock.set(T0 + KEEP + timedelta(seconds=1))
    calls = []
    original = IdempotencyRepository.purge

    def counting(self: Any, before: datetime, limit: int) -> int:
        calls.append((before, limit))
        return original(self, before, limit)

    monkeypatch.setattr(IdempotencyRepository, "purge", counting)
    assert purge_expired(db, batch=2) == 3
    assert calls == [(T0 + timedelta(seconds=1), 2)] * 2  # 2, then 1 < 2: done
    calls.clear()
    assert purge_expired(db, batch=2, batches=5) == 0 and len(calls) == 1


def test_a_workers_purger_runs_at_once_then_at_most_every_minute(db, client_id, clock):
    purger = Purger(db)
    assert purger.every == timedelta(seconds=60) and purger.due()
    _keep(db, client_id, ["a", "b"])
    clock.set(T0 + timedelta(seconds=30))
    _keep(db, client_id, ["c"])
    ran = T0 + KEEP + timedelta(milliseconds=1)
    clock.set(ran)
    assert purger.run_if_due() == 2 and not purger.due()  # "c" is 30 s short of expiring
    clock.set(ran + timedelta(seconds=59, milliseconds=999))  # "c" has expired: not due yet
    assert not purger.due() and purger.run_if_due() == 0 and rows(db, client_id) == 1
    clock.set(ran + timedelta(seconds=60))
    assert purger.due() and purger.run_if_due() == 1 and rows(db, client_id) == 0


def test_a_purger_keeps_its_own_interval(db, client_id, clock):
    purger = Purger(db, every=timedelta(seconds=5))
    assert purger.run_if_due() == 0
    clock.set(T0 + timedelta(seconds=4))
    assert not purger.due()
    clock.set(T0 + timedelta(seconds=5))
    assert purger.due()


def test_a_purge_that_waits_for_a_key_taken_over_leaves_its_new_answer(db, client_id, clock):
    """A key used again past its 24 hours is taken over in place (PostgreSQL: the claim's
    upsert updates the expired row and holds it). A purge that chose the expired row
    meanwhile waits for that transaction; then it finds the row's new answer, which is not
    expired, and must leave it: a retry within the new 24 hours replays it."""
    if db.engine.dialect.name != "postgresql":
        pytest.skip("SQLite's writers take turns: a purge cannot wait on a claim's row")
    _keep(db, client_id, ["k"])
    later = T0 + KEEP + timedelta(hours=1)
    clock.set(later)
    digest = body_hash({**BODY, "stake": "5"})
    purged: list[int] = []
    purge = threading.Thread(target=lambda: purged.append(purge_expired(db)))

    with db.unit_of_work(write=True) as uow:
        assert uow.idempotency.claim(client_id, "POST", "/v1/rounds", "k", digest, later, later - KEEP)
        uow.idempotency.complete(client_id, "POST", "/v1/rounds", "k", 201, body=b'{"id":"rnd_2"}',
                                 content_type="application/json")
        purge.start()  # it reads the row as it was (T0: expired) and waits for this transaction
        deadline = time.monotonic() + 10
        while not lock_waiters(db.engine):
            assert time.monotonic() < deadline, "the purge never waited for the claim"
            time.sleep(0.01)
        uow.commit()
    purge.join(10)
    assert purged == [0]
    assert rows(db, client_id) == 1
    assert replay(db, client_id, "POST", "/v1/rounds", "k", digest) == StoredResponse(
        201, b'{"id":"rnd_2"}', "application/json", None, replayed=True)


def test_a_purge_runs_at_most_its_number_of_batches(db, client_id, clock):
    _keep(db, client_id, [f"k-{i}" for i in range(7)])
    clock.set(T0 + KEEP + timedelta(seconds=1))
    assert purge_expired(db, batch=2, batches=2) == 4  # two batches of two, three left
    assert rows(db, client_id) == 3
    assert purge_expired(db, batch=2, batches=2) == 3  # 2, then 1 < 2: done
    assert rows(db, client_id) == 0


def test_a_workers_purge_is_bounded_to_its_batches_a_minute(db, client_id, clock, monkeypatch):
    from sqlalchemy import insert

    from service.adapters.models import IdempotencyRecord

    with db.unit_of_work(write=True) as uow:  # one more than a batch (1,000), all expired
        uow.session.execute(insert(IdempotencyRecord), [
            {"client_id": client_id, "method": "POST", "path": "/v1/rounds", "key": f"bulk-{i}",
             "request_hash": "0" * 64, "status_code": 201, "response_body": b"{}", "created_at": T0}
            for i in range(idempotency.PURGE_BATCH + 1)])
        uow.commit()
    clock.set(T0 + KEEP + timedelta(seconds=1))
    monkeypatch.setattr(idempotency, "PURGE_BATCHES", 1)
    purger = Purger(db)
    assert purger.run_if_due() == idempotency.PURGE_BATCH  # one batch, not all of them
    assert rows(db, client_id) == 1


def test_a_kept_answer_replays_its_own_content_type(db, client_id):
    ndjson = Action(StoredResponse(200, b'{"a":1}\n', "application/x-ndjson"))
    run_once(db, client_id, "POST", "/v1/x", "nd", BODY, ndjson)
    assert run_once(db, client_id, "POST", "/v1/x", "nd", BODY, ndjson) == StoredResponse(
        200, b'{"a":1}\n', "application/x-ndjson", None, replayed=True)


def test_a_rendered_replay_keeps_the_renderers_content_type(db, client_id):
    digest = body_hash(BODY)
    with db.unit_of_work(write=True) as uow:
        uow.idempotency.claim(client_id, "POST", "/v1/x", "t", digest, T0, T0 - KEEP)
        uow.idempotency.complete(client_id, "POST", "/v1/x", "t", 200, resource="rnd_1")
        uow.commit()
    answer = replay(db, client_id, "POST", "/v1/x", "t", digest,
                    lambda uow, record: StoredResponse(200, b"x", "text/csv; charset=utf-8"))
    assert answer == StoredResponse(200, b"x", "text/csv; charset=utf-8", None, replayed=True)


def test_the_claim_and_the_answer_are_one_write_transaction_tried_twice_at_most(db, client_id, monkeypatch):
    from service.adapters.idempotency import IdempotencyRepository

    opened: list[bool] = []
    original_uow = type(db).unit_of_work

    def spy(self: Any, write: bool = False) -> Any:
        opened.append(write)
        return original_uow(self, write)

    monkeypatch.setattr(type(db), "unit_of_work", spy)
    run_once(db, client_id, "POST", "/v1/x", "w", BODY, Action(CREATED))
    assert opened == [True]  # SQLite: BEGIN IMMEDIATE, so the claim waits for other writers
    opened.clear()
    run_once(db, client_id, "POST", "/v1/x", None, BODY, Action(CREATED))
    assert opened == [True]  # without a key the action writes all the same
    opened.clear()
    purge_expired(db)
    assert opened == [True]  # and so does each batch of a purge
    # A key held by a record there is nothing to replay from (no renderer): one retry, then 409.
    digest = body_hash(BODY)
    with db.unit_of_work(write=True) as uow:
        uow.idempotency.claim(client_id, "POST", "/v1/x", "held", digest, T0, T0 - KEEP)
        uow.idempotency.complete(client_id, "POST", "/v1/x", "held", 201, resource="rnd_1")
        uow.commit()
    claims = []
    original_claim = IdempotencyRepository.claim

    def counting(self: Any, *args: Any) -> bool:
        claims.append(args[3])
        return original_claim(self, *args)

    monkeypatch.setattr(IdempotencyRepository, "claim", counting)
    with pytest.raises(IdempotencyInFlight):
        run_once(db, client_id, "POST", "/v1/x", "held", BODY, Action(CREATED))
    assert claims == ["held", "held"]
