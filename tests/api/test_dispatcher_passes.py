"""Single dispatcher passes against a real database: how much a pass claims (its free
threads, or a fast endpoint's deeper share, never a negative count), when it fans out (only
when a chain head or a cursor moved, each cursor moved to what it queued), what it records
(each outcome, each claim sent back, each endpoint's failure record) and counts, what it
keeps when its transaction fails, the gauges, the lease, and single attempts.

Each test has a database of its own (SQLite, and PostgreSQL with TEST_DATABASE_URL): the
fingerprint and the gauges are the whole database's, and no lease outlives its test.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import explained, most_rows
from prometheus_client import generate_latest
from sqlalchemy import event, insert, select
from test_webhook_fairness import client_with_hooks, store

from service.adapters import delivery, webhook_queue
from service.adapters.models import DispatcherLease, Webhook, WebhookAttempt, WebhookDelivery
from service.adapters.uow import Database
from service.adapters.webhook_queue import DeliveryQueue
from service.adapters.webhooks import Claimed
from service.domain import webhooks as hooks
from service.domain.webhooks import AttemptOutcome
from service.services.clock import utcnow_ms
from service.services.webhooks import dispatcher
from service.services.webhooks import endpoints as webhooks
from service.services.webhooks.dispatcher import QUEUE_S, Dispatcher, Metrics, Outcome, Prepared, Settings

PLAIN = Settings(
    schedule=(10.0, 1000.0), timeout_s=1.0, allow_private=True, concurrency=4,
    endpoint_concurrency=50, client_concurrency=50, claim_batch=256,
)


@pytest.fixture
def db(own_db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Database]:
    monkeypatch.setenv("WEBHOOK_ALLOW_PRIVATE", "1")
    database = Database(own_db_url)
    yield database
    database.dispose()


@pytest.fixture
def made(db: Database) -> Iterator[list[Dispatcher]]:
    """Dispatchers a test makes: each gives back the SQLite lease its passes took."""
    out: list[Dispatcher] = []
    yield out
    for d in out:
        if d.sqlite:
            d._release()


@pytest.fixture
def new(db: Database, made: list[Dispatcher]) -> Any:
    def make(settings: Settings = PLAIN, metrics: Metrics | None = None) -> Dispatcher:
        d = Dispatcher(db, settings, metrics, rng=random.Random(7))
        made.append(d)
        return d
    return make


class Held:
    """Lanes that keep what they are given (`pending` of them held) and hand over the
    outcomes and claims sent back that a test puts in."""

    def __init__(self, pending: int = 0, done: list[Outcome] | None = None, released: list[Claimed] | None = None):
        self.pending = pending
        self.reserve_waiting = 0
        self.submitted: list[Prepared] = []
        self.done = done or []
        self.released = released or []

    def collect(self) -> tuple[list[Outcome], list[Claimed]]:
        done, released, self.done, self.released = self.done, self.released, [], []
        return done, released

    def submit(self, prepared: list[Prepared]) -> None:
        self.submitted.extend(prepared)


def queued(db: Database, client_id: str) -> dict[str, list[int]]:
    """The client's deliveries by endpoint: their sequences, in order."""
    with db.unit_of_work() as uow:
        rows = uow.session.execute(
            select(WebhookDelivery.webhook_id, WebhookDelivery.sequence)
            .where(WebhookDelivery.client_id == client_id)
            .order_by(WebhookDelivery.webhook_id, WebhookDelivery.sequence)
        ).all()
    out: dict[str, list[int]] = {}
    for webhook_id, sequence in rows:
        out.setdefault(webhook_id, []).append(int(sequence))
    return out


def cursors(db: Database, client_id: str) -> dict[str, int]:
    with db.unit_of_work() as uow:
        rows = uow.session.execute(select(Webhook.id, Webhook.cursor).where(Webhook.client_id == client_id)).all()
    return {w: int(c) for w, c in rows}


def deliveries(db: Database, client_id: str) -> dict[str, Any]:
    """The client's delivery rows by event id."""
    d = WebhookDelivery
    columns = (d.state, d.attempts, d.next_attempt_at, d.claim, d.last_status, d.last_error)
    with db.unit_of_work() as uow:
        rows = uow.session.execute(select(d.event_id, *columns).where(d.client_id == client_id)).all()
    return {r[0]: SimpleNamespace(**{c.key: v for c, v in zip(columns, r[1:], strict=True)}) for r in rows}


def attempts(db: Database, client_id: str) -> list[tuple[str, str, int | None, int, str | None]]:
    a = WebhookAttempt
    with db.unit_of_work() as uow:
        rows = uow.session.execute(
            select(a.event_id, a.outcome, a.status_code, a.latency_ms, a.error)
            .where(a.client_id == client_id)
            .order_by(a.event_id)
        ).all()
    return [(str(e), str(o), s, int(ms), err) for e, o, s, ms, err in rows]


@contextlib.contextmanager
def statements(db: Database) -> Iterator[list[str]]:
    seen: list[str] = []

    def note(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        seen.append(statement)

    event.listen(db.engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        event.remove(db.engine, "before_cursor_execute", note)


def result(outcome: AttemptOutcome = AttemptOutcome.DELIVERED, status: int | None = 200, latency_ms: int = 5,
           error: str | None = None) -> delivery.Result:
    return delivery.Result(outcome, status, latency_ms, error)


# -- how much a pass claims ---------------------------------------------------------------------


def test_a_plain_pass_claims_its_free_threads_and_never_a_negative_count(db, new):
    """Plain claims (no endpoint known fast): `concurrency` less what the lanes hold. A full
    claim asks for the next pass at once; none is made with no free thread, nor with fewer
    than none (lanes holding deep claims), where a negative limit would claim all but the
    last rows."""
    client_id, (hook,) = client_with_hooks(db, "http://127.0.0.1:9/a")
    for _ in range(10):
        store(db, client_id)
    d = new()
    first = Held(pending=1)
    assert d.step(first) is True  # nothing was queued when it claimed: it queued 10
    assert first.submitted == [] and d.claims == []
    assert len(queued(db, client_id)[hook["id"]]) == 10

    lanes = Held(pending=1)
    before = time.monotonic()
    assert d.step(lanes) is True  # a full claim: 4 threads less the 1 held
    after = time.monotonic()
    assert [p.claimed.sequence for p in lanes.submitted] == [1, 2, 3] and d.claims == [3]
    for p in lanes.submitted:  # to start within QUEUE_S of the claim, and end by its deadline after that
        assert before + QUEUE_S <= p.start_by <= after + QUEUE_S
        assert p.end_by == p.start_by + d.settings.timeout_s
        assert p.target is not None and p.target.url == "http://127.0.0.1:9/a"
        assert p.event is not None and p.body == p.event.body()

    one = Held(pending=3)
    assert d.step(one) is True and [p.claimed.sequence for p in one.submitted] == [4]

    for pending in (4, 6):  # no free thread, or fewer than none: no claim, not even a query of the queue
        full = Held(pending=pending)
        with statements(db) as seen:
            assert d.step(full) is False
        assert full.submitted == [] and d.claims == [3, 1]
        assert not [s for s in seen if "webhook_deliveries" in s]

    rest = Held(pending=0)
    assert d.step(rest) is True and [p.claimed.sequence for p in rest.submitted] == [5, 6, 7, 8]
    last = Held(pending=0)
    assert d.step(last) is False  # 2 of its 4 free threads: nothing more is due
    assert [p.claimed.sequence for p in last.submitted] == [9, 10] and d.claims == [3, 1, 4, 2]


def fast_client(db: Database, d: Dispatcher, events: int) -> tuple[str, str]:
    client_id, (hook,) = client_with_hooks(db, "http://127.0.0.1:9/fast")
    for _ in range(events):
        store(db, client_id)
    assert d.fan_out() == events
    d._fast[hook["id"]] = True  # its last attempt here was a 2xx within FAST_S
    return client_id, hook["id"]


DEEP = replace(PLAIN, concurrency=2, claim_batch=5, endpoint_concurrency=1, client_concurrency=1, depth=8)


def test_a_fast_endpoint_is_claimed_within_the_held_bound_and_the_claim_batch(db, new):
    """With a fast endpoint a pass claims up to `claim_batch`, and no more than the lanes
    may hold (`most_held`: twice the claim batch) less what they hold; the endpoint's own
    deep cap (its cap times `depth`) bounds it too."""
    d = new(DEEP)
    assert d.settings.most_held == 10
    client_id, hook = fast_client(db, d, 20)
    held = Held(pending=7)
    assert d.step(held) is True and len(held.submitted) == 3  # 10 held at most, 7 are
    assert {p.claimed.claim.endswith(":deep") for p in held.submitted} == {True}
    batch = Held(pending=0)
    assert d.step(batch) is True and len(batch.submitted) == 5  # the claim batch
    rest = Held(pending=0)
    assert d.step(rest) is False  # its deep cap (1 x 8) is full: its plain slot is left
    assert len(rest.submitted) == 1
    assert d.claims == [3, 5, 1]


def test_depth_two_claims_deep(db, new):
    two = new(replace(DEEP, depth=2))
    fast_client(db, two, 6)
    lanes = Held()
    assert two.step(lanes) is False  # 2 of its 5 (the endpoint's cap 1 x 2): not a full claim
    assert [p.claimed.claim.endswith(":deep") for p in lanes.submitted] == [True, True]


def test_depth_one_claims_plain_only_whatever_answered_fast(db, new):
    one = new(replace(DEEP, depth=1, endpoint_concurrency=50, client_concurrency=50))
    fast_client(db, one, 6)
    plain = Held()
    assert one.step(plain) is True  # its free threads (2): a full plain claim
    assert [p.claimed.claim.endswith(":deep") for p in plain.submitted] == [False, False]


def test_the_claims_are_held_for_the_claim_time_under_a_fresh_token_and_their_sizes_kept(db, new, clock):
    client_id, (hook,) = client_with_hooks(db, "http://127.0.0.1:9/a")
    events = [store(db, client_id) for _ in range(3)]
    d = new()
    assert d.fan_out() == 3
    d.claims = list(range(1000))
    first = d.claim(2)
    second = d.claim(2)
    assert d.claims[-2:] == [2, 1] and len(d.claims) == 1000 and d.claims[0] == 2  # the last 1,000
    tokens = {c.claim for c in first} | {c.claim for c in second}
    assert len(tokens) == 2 and all(re.fullmatch("[0-9a-f]{16}", t) for t in tokens)
    rows = deliveries(db, client_id)
    until = clock.now() + timedelta(seconds=d.settings.claim_s)
    assert {e: rows[e].next_attempt_at for e in events} == dict.fromkeys(events, until)
    assert d.claim(2) == []  # claimed: not due again before the claim runs out
    clock.advance(seconds=d.settings.claim_s)
    assert [c.event_id for c in d.claim(5)] == events  # due again when it has


# -- fan-out: only when the fingerprint moved ---------------------------------------------------


def spy_fan_outs(d: Dispatcher, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many deliveries each fan-out of `d` queued, one entry a fan-out."""
    calls: list[int] = []
    real = d._fan_out

    def counted(fingerprint: Any) -> int:
        calls.append(real(fingerprint))
        return calls[-1]

    monkeypatch.setattr(d, "_fan_out", counted)
    return calls


def two_endpoints_two_records_apart(db: Any) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """A client with endpoint a before its four records and endpoint b after the first two."""
    client_id, (a,) = client_with_hooks(db, "http://127.0.0.1:9/a")
    store(db, client_id)
    store(db, client_id)
    b = webhooks.create(db, client_id, {"url": "http://127.0.0.1:9/b", "events": ["round.settled"]})
    store(db, client_id)
    store(db, client_id)
    return client_id, a, b


def test_fan_out_runs_only_when_a_head_or_a_cursor_moved_and_moves_each_cursor_to_its_last(db, new, monkeypatch):
    """Two endpoints of one client at different cursors: each gets the records after its own
    cursor; the fingerprint it leaves (heads, endpoints, cursors moved by what was queued) is
    remembered, so the next passes run no fan-out until a round is stored."""
    client_id, a, b = two_endpoints_two_records_apart(db)
    assert cursors(db, client_id) == {a["id"]: 0, b["id"]: 2}
    d = new()
    fan_outs = spy_fan_outs(d, monkeypatch)
    assert d.step(Held()) is True
    assert fan_outs == [6]
    assert queued(db, client_id) == {a["id"]: [1, 2, 3, 4], b["id"]: [3, 4]}
    assert cursors(db, client_id) == {a["id"]: 4, b["id"]: 4}
    with db.engine.begin() as conn:
        from service.adapters.webhook_queue import Pass
        assert d._quiet == Pass(conn, db.dialect).fingerprint()
    for _ in range(3):  # claims, then nothing: no fan-out query while nothing moved
        d.step(Held(pending=4))
    assert fan_outs == [6]
    store(db, client_id)
    d.step(Held(pending=4))
    assert fan_outs == [6, 2]
    assert queued(db, client_id) == {a["id"]: [1, 2, 3, 4, 5], b["id"]: [3, 4, 5]}
    d.step(Held(pending=4))
    assert fan_outs == [6, 2]


def test_rounds_of_a_client_without_an_enabled_endpoint_move_no_fingerprint_and_run_no_fan_out(db, new, monkeypatch):
    """Only the heads of clients with an enabled endpoint count: another client's rounds, or
    those of a client whose endpoint is disabled, leave the fingerprint where it was; enabling
    the endpoint moves it (its client's head now counts), and its fan-out queues them."""
    client_id, (hook,) = client_with_hooks(db, "http://127.0.0.1:9/a")
    other, _ = client_with_hooks(db)  # no endpoint
    d = new()
    fan_outs = spy_fan_outs(d, monkeypatch)
    d.step(Held(pending=4))
    quiet = d._quiet
    store(db, other)
    webhooks.update(db, client_id, hook["id"], {"enabled": False})
    moved_by_disabling = d.step(Held(pending=4))
    store(db, client_id)
    store(db, client_id)
    store(db, other)
    assert d.step(Held(pending=4)) is False
    with db.engine.begin() as conn:
        from service.adapters.webhook_queue import Pass
        fingerprint = Pass(conn, db.dialect).fingerprint()
    assert d._quiet == fingerprint and fingerprint != quiet  # set by the fan-out disabling caused
    assert fan_outs == [0, 0] and moved_by_disabling is False and queued(db, client_id) == {}
    webhooks.update(db, client_id, hook["id"], {"enabled": True})
    assert d.step(Held(pending=4)) is True
    assert fan_outs == [0, 0, 2] and queued(db, client_id) == {hook["id"]: [1, 2]}


def test_a_fan_out_that_skipped_an_endpoint_held_by_a_request_looks_again_at_the_next_pass(db, new, monkeypatch):
    """PostgreSQL: the fan-out locks the endpoints behind their head with SKIP LOCKED, and a
    request (PATCH, rotate-secret, redeliver) may hold one. That fan-out is not complete:
    its fingerprint must not be remembered as quiet, or no fan-out would run again until
    some other round moved a head, and the event would wait that long."""
    if db.dialect != "postgresql":
        pytest.skip("SQLite has no SKIP LOCKED: a request holding the row holds the database")
    client_id, (hook,) = client_with_hooks(db, "http://127.0.0.1:9/a")
    d = new()
    fan_outs = spy_fan_outs(d, monkeypatch)
    d.step(Held(pending=4))
    with db.unit_of_work(write=True) as uow:  # a request holding the endpoint's row
        uow.webhooks.get(client_id, hook["id"], lock=True)
        store(db, client_id)
        d.step(Held(pending=4))
        assert fan_outs == [0, 0] and queued(db, client_id) == {}  # skipped, not waited for
    d.step(Held(pending=4))
    assert fan_outs == [0, 0, 1] and queued(db, client_id) == {hook["id"]: [1]}
    assert cursors(db, client_id) == {hook["id"]: 1}


def test_a_fan_out_short_of_its_batch_leaves_the_rest_to_the_next_pass(db, new, monkeypatch):
    """`batch` records per read: an endpoint created after some records gets only the later
    ones. An endpoint more than a batch behind another of its client does not hold that one
    back (it waited while the first caught up, a batch a pass): the records are read again
    from the lowest cursor the first read did not reach, until all are queued."""
    client_id, a, b = two_endpoints_two_records_apart(db)
    d = new(replace(PLAIN, batch=2))
    fan_outs = spy_fan_outs(d, monkeypatch)
    assert d.step(Held(pending=4)) is True
    assert queued(db, client_id) == {a["id"]: [1, 2], b["id"]: [3, 4]}
    assert cursors(db, client_id) == {a["id"]: 2, b["id"]: 4}
    assert d.step(Held(pending=4)) is True
    assert queued(db, client_id) == {a["id"]: [1, 2, 3, 4], b["id"]: [3, 4]}
    assert cursors(db, client_id) == {a["id"]: 4, b["id"]: 4}
    assert d.step(Held(pending=4)) is False  # the batch was full: one more look, nothing left
    assert d.step(Held(pending=4)) is False
    assert fan_outs == [4, 2, 0]


@pytest.mark.postgres
def test_a_fan_out_reads_its_batch_of_records_by_key_on_a_never_analysed_database(db, new):
    """The fan-out's read of a client's records after a cursor reads that batch only, its
    round and its time each by primary key, whatever the planner knows (this database is
    never analysed, like a new one before autovacuum gets to it): before, it sorted every
    record after the cursor to keep the batch, and found each record's time in line 0's
    index from the client's first record on (a look-up that grew with the history)."""
    if db.dialect != "postgresql":
        pytest.skip("PostgreSQL's plans")
    client_id, (hook,) = client_with_hooks(db, "http://127.0.0.1:9/a")
    for _ in range(40):
        store(db, client_id)
    d = new(replace(PLAIN, batch=5))
    keys = "SELECT chain_records.sequence, chain_records.kind"
    with explained(db.engine, lambda statement: statement.lstrip().startswith(keys) and "LIMIT" in statement) as plans:
        assert d.fan_out() == 5
    assert queued(db, client_id) == {hook["id"]: [1, 2, 3, 4, 5]}
    (plan,) = plans
    assert "ix_ledger_lines_record_time" not in plan and "pk_ledger_lines" in plan and "pk_rounds" in plan, plan
    # no node reads more rows than the batch (each look-up's rows are per loop)
    assert most_rows(plan) == 5, plan


@pytest.mark.postgres
def test_a_page_of_events_reads_each_records_round_and_receipt_by_key_on_a_never_analysed_database(db):
    """`GET /v1/events` after an event deep in the chain, and `GET /v1/events/{id}`, read
    the page's records from there, each one's round and receipt by primary key, on a
    database never analysed: before, the planner read every round of the client and
    compared each with every record of the page (360 ms for 100 events from record 19,000
    of 20,000), whatever the page's size."""
    if db.dialect != "postgresql":
        pytest.skip("PostgreSQL's plans")
    from service.services.webhooks import events

    client_id, _ = client_with_hooks(db)
    ids = [store(db, client_id) for _ in range(40)]
    records = "SELECT chain_records.sequence"
    with explained(db.engine, lambda statement: statement.lstrip().startswith(records) and "LIMIT" in statement) as plans:
        page = events.list_events(db, client_id, ids[29], None, 3)
        one = events.get_event(db, client_id, ids[35])
    assert [e["id"] for e in page["items"]] == ids[30:33] and page["has_more"] is True
    assert one.id == ids[35]
    assert len(plans) == 2
    for plan in plans:
        assert "pk_rounds" in plan and "Hash" not in plan and "Bitmap" not in plan, plan
        # the page's records (the page and two more) or the one asked for, and a row per look-up
        assert most_rows(plan) <= 5, plan


def test_a_fan_out_leaves_an_event_redelivered_before_it_as_it_was_and_queues_the_rest(db, new, clock):
    """An event can be redelivered (`POST /v1/events/{id}/redeliver`) before any fan-out has
    reached its record: the fan-out then queues the others and leaves that delivery as the
    redelivery made it, rather than failing on it or writing over it."""
    client_id, (hook,) = client_with_hooks(db, "http://127.0.0.1:9/a")
    first = store(db, client_id)
    store(db, client_id)
    redelivered_at = clock.now()
    assert webhooks.redeliver(db, client_id, first, None) == {"event_id": first, "webhooks": [hook["id"]]}
    clock.advance(seconds=5)
    assert new().fan_out() == 2  # both counted as queued; the one already there is left
    assert queued(db, client_id) == {hook["id"]: [1, 2]}
    rows = deliveries(db, client_id)
    assert (rows[first].state, rows[first].attempts, rows[first].next_attempt_at) == ("pending", 0, redelivered_at)
    (second,) = set(rows) - {first}
    assert rows[second].next_attempt_at == redelivered_at + timedelta(seconds=5)


def test_a_linger_leaves_new_events_for_a_later_pass_and_the_loop_waits_only_until_then(db, new, monkeypatch):
    """With a linger, a pass that sees new events within it of the last fan-out leaves them
    (`_due`: when their fan-out is) and the loop waits no longer than until then; the first
    step after it queues them all before its pass, which claims them."""
    client_id, (hook,) = client_with_hooks(db, "http://127.0.0.1:9/a")
    store(db, client_id)
    d = new()
    fan_outs = spy_fan_outs(d, monkeypatch)
    assert d.step(Held(pending=4), linger=60.0) is True  # the first fan-out: none before it
    assert (fan_outs, d._due) == ([1], None)
    assert d._wait(0.2) == 0.2  # nothing deferred: the loop's own wait
    store(db, client_id)
    store(db, client_id)
    assert d.step(Held(pending=4), linger=60.0) is False
    assert (fan_outs, queued(db, client_id)) == ([1], {hook["id"]: [1]})
    assert d._due == d._fanned_at + 60.0
    assert d._wait(0.2) == 0.2 and 59.0 < d._wait(120.0) <= 60.0  # the shorter of the two
    d._due = time.monotonic() + 0.01
    assert 0.0 < d._wait(0.2) <= 0.01  # what is left of the linger
    d._fanned_at -= 60.0
    d._due = d._fanned_at + 60.0
    assert d._wait(0.2) == 0.0  # past it: not below nothing
    lanes = Held()
    assert d.step(lanes, linger=60.0) is False  # it queued them before its pass, which claimed them all
    assert (fan_outs, d._due, queued(db, client_id)) == ([1, 2], None, {hook["id"]: [1, 2, 3]})
    assert [p.claimed.sequence for p in lanes.submitted] == [1, 2, 3]
    assert d.step(Held(pending=4), linger=60.0) is False  # nothing new: no fan-out, nothing deferred
    assert (fan_outs, d._due) == ([1, 2], None)


def test_a_fan_out_that_left_records_to_queue_is_followed_at_once_despite_the_linger(db, new, monkeypatch):
    """A backlog is not held back: while a fan-out stops short of its batch, the next pass
    fans out again within the linger; the one after the backlog is queued lingers again."""
    client_id, (hook,) = client_with_hooks(db, "http://127.0.0.1:9/a")
    for _ in range(5):
        store(db, client_id)
    d = new(replace(PLAIN, batch=2))
    fan_outs = spy_fan_outs(d, monkeypatch)
    for _ in range(3):
        assert d.step(Held(pending=4), linger=60.0) is True
    assert (fan_outs, d._behind) == ([2, 2, 1], False)
    store(db, client_id)
    assert d.step(Held(pending=4), linger=60.0) is False
    assert (fan_outs, queued(db, client_id)) == ([2, 2, 1], {hook["id"]: [1, 2, 3, 4, 5]})
    assert d._due == d._fanned_at + 60.0


def test_a_linger_ends_exactly_at_its_time_and_the_next_counts_from_the_fan_out_it_left(db, new, monkeypatch):
    """On the dispatcher's clock: a pass exactly `linger` after the last fan-out fans out (the
    linger is over, not still running); a fan-out left to the linger runs exactly at its due
    time, before the pass, which claims what it queued; and the next new events linger from
    that fan-out, not from the one before it."""
    client_id, (hook,) = client_with_hooks(db, "http://127.0.0.1:9/a")
    store(db, client_id)
    d = new()
    fan_outs = spy_fan_outs(d, monkeypatch)
    ticks = Ticks(100.0)
    monkeypatch.setattr(dispatcher, "time", ticks)
    assert d.step(Held(pending=4), linger=0.5) is True
    assert (fan_outs, d._fanned_at, d._due) == ([1], 100.0, None)
    store(db, client_id)
    ticks.now = 100.5  # exactly the linger after it
    assert d.step(Held(pending=4), linger=0.5) is True
    assert (fan_outs, d._fanned_at, d._due) == ([1, 1], 100.5, None)
    store(db, client_id)
    ticks.now = 100.75
    assert d.step(Held(pending=4), linger=0.5) is False
    assert (fan_outs, d._fanned_at, d._due) == ([1, 1], 100.5, 101.0)
    ticks.now = 101.0  # exactly its due time
    lanes = Held()
    assert d.step(lanes, linger=0.5) is False
    assert (fan_outs, d._fanned_at, d._due) == ([1, 1, 1], 101.0, None)
    assert [p.claimed.sequence for p in lanes.submitted] == [1, 2, 3]
    store(db, client_id)
    ticks.now = 101.25
    assert d.step(Held(pending=4), linger=0.5) is False
    assert (fan_outs, d._fanned_at, d._due) == ([1, 1, 1], 101.0, 101.5)
    assert queued(db, client_id) == {hook["id"]: [1, 2, 3]}


def test_a_fan_out_that_failed_counts_for_the_linger_and_leaves_the_dispatcher_not_behind(db, new, monkeypatch):
    """The linger runs from when a fan-out started, even one that failed (its database had just
    gone away); a fan-out that never finished tells nothing of a backlog, so a dispatcher whose
    first one failed is not behind, and the next pass within the linger leaves the events to it."""
    client_id, (hook,) = client_with_hooks(db, "http://127.0.0.1:9/a")
    store(db, client_id)
    d = new()
    real = d._fan_out

    def failing(fingerprint: Any) -> int:
        raise Unreachable("the database went away")

    monkeypatch.setattr(d, "_fan_out", failing)
    with pytest.raises(Unreachable):
        d.step(Held(pending=4), linger=60.0)
    monkeypatch.setattr(d, "_fan_out", real)
    fan_outs = spy_fan_outs(d, monkeypatch)
    assert d.step(Held(pending=4), linger=60.0) is False
    assert (fan_outs, d._behind, d._due) == ([], False, d._fanned_at + 60.0)
    assert queued(db, client_id) == {}


def test_the_loop_lingers_by_its_setting_and_run_until_idle_does_not(db, new, monkeypatch):
    """`run` passes `linger_s` to each step; `run_until_idle` (tests, `--once`) none, so it
    returns only once every event is queued and sent."""
    lingers: list[float] = []
    d = new(replace(PLAIN, linger_s=0.5))
    real = d.step

    def step(lanes: Any, linger: float = 0.0) -> bool:
        lingers.append(linger)
        if len(lingers) == 2:
            d.stopping.set()
        return real(lanes, linger)

    monkeypatch.setattr(d, "step", step)
    d.run()
    assert lingers == [0.5, 0.5]
    lingers.clear()
    d.run_until_idle(timeout=5)
    assert lingers and set(lingers) == {0.0}


def test_a_fan_out_takes_so_many_endpoints_and_the_next_pass_the_others(db, new, monkeypatch):
    monkeypatch.setattr(dispatcher, "FANOUT_ENDPOINTS", 2)
    client_id, hooks_ = client_with_hooks(db, *(f"http://127.0.0.1:9/{n}" for n in "abc"))
    store(db, client_id)
    d = new()
    fan_outs = spy_fan_outs(d, monkeypatch)
    d.step(Held(pending=4))
    assert len(queued(db, client_id)) == 2  # two endpoints a transaction
    d.step(Held(pending=4))
    assert queued(db, client_id) == {h["id"]: [1] for h in hooks_}
    d.step(Held(pending=4))
    d.step(Held(pending=4))
    assert fan_outs == [2, 1]  # then all were queued: no fan-out until something moves


def test_a_client_with_a_long_chain_is_fanned_out_while_more_endpoints_than_a_pass_takes_are_behind(
    db, new, monkeypatch
):
    """Cursors are sequences of each client's own chain: taken lowest first, the endpoints of
    young chains, while more of them than a fan-out takes stay behind, would go before an
    old chain's for ever, and its events would never be queued."""
    monkeypatch.setattr(dispatcher, "FANOUT_ENDPOINTS", 2)
    old, (old_hook,) = client_with_hooks(db, "http://127.0.0.1:9/old")
    for _ in range(40):
        store(db, old)
    d = new()
    d.step(Held(pending=4))
    assert cursors(db, old) == {old_hook["id"]: 40}
    young = [client_with_hooks(db, f"http://127.0.0.1:9/{n}")[0] for n in "ab"]
    for _ in range(20):
        for client_id in (old, *young):
            store(db, client_id)  # every endpoint behind again: three, and a pass takes two
        d.step(Held(pending=4))
        if cursors(db, old)[old_hook["id"]] > 40:
            break
    assert cursors(db, old)[old_hook["id"]] > 40, "the old chain's endpoint was never fanned out"


def test_fan_out_queues_the_types_an_endpoint_takes_with_the_records_time(db, new, clock):
    client_id, (settled,) = client_with_hooks(db, "http://127.0.0.1:9/settled")
    every = webhooks.create(db, client_id, {"url": "http://127.0.0.1:9/all", "events": ["*"]})
    voids = webhooks.create(db, client_id, {"url": "http://127.0.0.1:9/voided", "events": ["round.voided"]})
    event_id = store(db, client_id)
    round_id = "rnd_" + event_id.removeprefix("evt_").removesuffix("_settled")
    clock.advance(minutes=5)
    from service.services.rounds import voids as voiding
    voiding.void(db, client_id, round_id, "dealer error")
    clock.advance(minutes=5)
    d = new()
    assert d.fan_out() == 4
    assert queued(db, client_id) == {settled["id"]: [1], every["id"]: [1, 2], voids["id"]: [2]}
    rows = deliveries(db, client_id)
    voided_id = hooks.event_id(round_id, hooks.VOIDED)
    assert set(rows) == {event_id, voided_id}
    with db.unit_of_work() as uow:
        got = uow.session.execute(
            select(WebhookDelivery.webhook_id, WebhookDelivery.event_id, WebhookDelivery.event_type,
                   WebhookDelivery.event_at, WebhookDelivery.next_attempt_at, WebhookDelivery.state,
                   WebhookDelivery.attempts)
            .where(WebhookDelivery.client_id == client_id)
        ).all()
    start = clock.now() - timedelta(minutes=10)
    expected = {
        (settled["id"], event_id, "round.settled", start),
        (every["id"], event_id, "round.settled", start),
        (every["id"], voided_id, "round.voided", start + timedelta(minutes=5)),
        (voids["id"], voided_id, "round.voided", start + timedelta(minutes=5)),
    }
    assert {(w, e, t, at) for w, e, t, at, *_ in got} == expected
    assert {(n, s, a) for *_, n, s, a in got} == {(clock.now(), "pending", 0)}  # due now


# -- what a pass records -------------------------------------------------------------------------


def claimed_four(db: Database, d: Dispatcher) -> tuple[str, str, list[Claimed]]:
    client_id, (hook,) = client_with_hooks(db, "http://127.0.0.1:9/a")
    for _ in range(4):
        store(db, client_id)
    assert d.fan_out() == 4
    taken = d.claim(4)
    assert len(taken) == 4
    return client_id, hook["id"], taken


def test_a_pass_records_each_outcome_and_each_claim_sent_back_and_counts_them(db, new, clock):
    metrics = Metrics()
    d = new(PLAIN, metrics)
    client_id, hook, (ok, retry, last, back) = claimed_four(db, d)
    last = replace(last, attempts=2)  # its third attempt: the schedule (two retries) is used up
    error = "HTTP 500: Internal Server Error"
    lanes = Held(pending=4, released=[back], done=[
        Outcome(ok, result(), False),
        Outcome(retry, result(AttemptOutcome.HTTP_ERROR, 500, 7, error), False),
        Outcome(last, result(AttemptOutcome.TIMEOUT, None, 1000, "no answer within 1 s"), False),
    ])
    clock.advance(seconds=3)
    now = clock.now()
    assert d.step(lanes) is False
    rows = deliveries(db, client_id)
    jitter = random.Random(7).uniform(1 - hooks.JITTER, 1 + hooks.JITTER)
    assert ok.event_id not in rows  # delivered: the row goes, its attempt stays (below)
    assert vars(rows[retry.event_id]) == {
        "state": "pending", "attempts": 1, "next_attempt_at": now + timedelta(seconds=10.0 * jitter),
        "claim": None, "last_status": 500, "last_error": error}
    assert vars(rows[last.event_id]) == {
        "state": "failed", "attempts": 3, "next_attempt_at": now, "claim": None,
        "last_status": None, "last_error": "no answer within 1 s"}
    assert vars(rows[back.event_id]) == {  # never attempted: due again now, its attempts as they were
        "state": "pending", "attempts": 0, "next_attempt_at": now, "claim": None,
        "last_status": None, "last_error": None}
    assert attempts(db, client_id) == sorted([
        (ok.event_id, "delivered", 200, 5, None), (retry.event_id, "http_error", 500, 7, error),
        (last.event_id, "timeout", None, 1000, "no answer within 1 s")])
    with db.unit_of_work() as uow:
        failing = uow.webhooks.get(client_id, hook)
    assert failing is not None and failing.failing_since == now and failing.enabled
    sample = metrics.registry.get_sample_value
    assert [sample("capsa_webhook_deliveries_total", {"outcome": o}) for o in ("delivered", "http_error", "timeout")] \
        == [1.0, 1.0, 1.0]
    assert sample("capsa_webhook_endpoints_disabled_total") == 0.0


def test_two_outcomes_of_a_kind_count_two_and_a_disabled_endpoint_is_logged(db, new, clock, caplog):
    metrics = Metrics()
    d = new(replace(PLAIN, disable_after_s=3600.0), metrics)
    client_id, hook, (a, b, c, _) = claimed_four(db, d)
    failed = result(AttemptOutcome.HTTP_ERROR, 500, 7, "HTTP 500")
    d.step(Held(pending=4, done=[Outcome(a, failed, False)]))
    clock.advance(seconds=3600)
    with caplog.at_level(logging.WARNING, logger="capsa.webhooks"):
        d.step(Held(pending=4, done=[Outcome(b, failed, True), Outcome(c, failed, True)]))
    assert [r.getMessage() for r in caplog.records] == [f"webhook {hook} disabled: failing for more than 3600.0 s"]
    assert metrics.registry.get_sample_value("capsa_webhook_deliveries_total", {"outcome": "http_error"}) == 3.0
    assert metrics.registry.get_sample_value("capsa_webhook_endpoints_disabled_total") == 1.0
    with db.unit_of_work() as uow:
        endpoint = uow.webhooks.get(client_id, hook)
    assert endpoint is not None and (endpoint.enabled, endpoint.disabled_reason) == (False, "failing")


def test_a_pass_takes_the_endpoints_rows_before_their_deliveries_and_drops_a_deleted_ones_attempts(db, new):
    """Deleting an endpoint locks its row, then deletes its deliveries; a pass recording a
    failure updated the deliveries, then the endpoint's row: the two deadlocked (14-15 times
    in 20 s of endpoint changes racing two dispatchers). The pass now takes the rows in the
    same order. And an attempt that was in flight when its endpoint was deleted is not
    recorded: the endpoint took its attempts with it."""
    from service.services.webhooks import endpoints

    d = new(PLAIN)
    client_id, hook, (a, b, c, _) = claimed_four(db, d)
    failed = result(AttemptOutcome.HTTP_ERROR, 500, 7, "HTTP 500")
    with statements(db) as seen:
        d.step(Held(pending=4, done=[Outcome(a, failed, False)]))
    writes = [s.split()[0:3] for s in seen if s.lstrip().upper().startswith(("UPDATE", "DELETE", "INSERT"))]
    touched = [" ".join(w) for w in writes if any(t in " ".join(w) for t in ("webhooks", "webhook_deliveries"))]
    first_endpoint = next(i for i, w in enumerate(touched) if w.startswith("UPDATE webhooks"))
    first_delivery = next(i for i, w in enumerate(touched) if "webhook_deliveries" in w)
    assert first_endpoint < first_delivery, touched
    assert [e for e, *_ in attempts(db, client_id)] == [a.event_id]
    endpoints.delete(db, client_id, hook)  # its attempts go with it; b and c were in flight
    assert attempts(db, client_id) == []
    d.step(Held(pending=2, done=[Outcome(b, result(), True), Outcome(c, failed, True)]))
    assert attempts(db, client_id) == []


class Unreachable(Exception):
    pass


def break_passes(d: Dispatcher, monkeypatch: pytest.MonkeyPatch) -> None:
    @contextlib.contextmanager
    def broken() -> Iterator[Any]:
        raise Unreachable("the database went away")
        yield

    monkeypatch.setattr(d.queue, "pass_", broken)


def test_outcomes_a_pass_could_not_record_are_logged_kept_and_recorded_by_the_next(db, new, clock, caplog, monkeypatch):
    metrics = Metrics()
    d = new(PLAIN, metrics)
    client_id, hook, (a, b, c, back) = claimed_four(db, d)
    first = [Outcome(a, result(), False), Outcome(b, result(), False)]
    idle = new(PLAIN)
    break_passes(d, monkeypatch)
    break_passes(idle, monkeypatch)
    with caplog.at_level(logging.ERROR, logger="capsa.webhooks"):
        with pytest.raises(Unreachable):
            idle.step(Held(pending=4))  # nothing to record: nothing to say
        idle._release()
        with pytest.raises(Unreachable):
            d.step(Held(pending=4, released=[back]))  # claims sent back alone are kept too
        with pytest.raises(Unreachable):
            d.step(Held(pending=4, done=first, released=[c]))
    assert [r.getMessage() for r in caplog.records] == [
        "could not record 0 attempts; trying again", "could not record 2 attempts; trying again"]
    assert all(r.exc_info is not None for r in caplog.records)
    assert d._unrecorded == (first, [back, c])
    monkeypatch.undo()
    assert d.step(Held(pending=4)) is False
    rows = deliveries(db, client_id)
    assert sorted(rows) == sorted([c.event_id, back.event_id])  # a and b delivered: their rows gone
    assert [rows[x.event_id].state for x in (c, back)] == ["pending", "pending"]
    assert sorted(x[:2] for x in attempts(db, client_id)) == sorted([(a.event_id, "delivered"), (b.event_id, "delivered")])
    assert [rows[x.event_id].claim for x in (c, back)] == [None, None]
    assert metrics.registry.get_sample_value("capsa_webhook_deliveries_total", {"outcome": "delivered"}) == 2.0
    assert d._unrecorded == ([], [])


def test_a_failing_pass_keeps_the_last_10000_of_each(db, new, monkeypatch):
    d = new()
    claimed = Claimed("whk_x", "evt_x", "cl_x", 1, "round.settled", 0, "c")
    done = [Outcome(replace(claimed, sequence=n), result(), False) for n in range(10_001)]
    released = [replace(claimed, sequence=n) for n in range(10_001)]
    break_passes(d, monkeypatch)
    with pytest.raises(Unreachable):
        d._pass(done, released, 0)
    assert d._unrecorded == (done[1:], released[1:])


def test_what_the_last_record_cannot_write_is_logged_and_dropped(db, new, caplog, monkeypatch):
    d = new()
    client_id, hook, (a, b, _, back) = claimed_four(db, d)
    break_passes(d, monkeypatch)
    with caplog.at_level(logging.ERROR, logger="capsa.webhooks"):
        d._record([Outcome(a, result(), False)], [back])
    assert [r.getMessage() for r in caplog.records] == ["could not record 1 attempts"]
    assert d._unrecorded == ([], [])
    monkeypatch.undo()
    d._record([], [b])  # a claim sent back alone is recorded
    assert deliveries(db, client_id)[b.event_id].claim is None
    assert deliveries(db, client_id)[a.event_id].claim is not None  # dropped: its claim runs out


# -- attempts past their retention ----------------------------------------------------------------

KEEP = timedelta(days=30)


def attempted(db: Database, client_id: str, webhook_id: str, times: list[Any]) -> None:
    """Attempts of the endpoint recorded at these times, in this order (ids rising)."""
    with db.unit_of_work(write=True) as uow:
        for i, at in enumerate(times):
            uow.session.add(WebhookAttempt(
                client_id=client_id, webhook_id=webhook_id, event_id=f"evt_{i}", attempted_at=at,
                outcome="delivered", status_code=200, latency_ms=i, error=None,
            ))
            uow.session.flush()  # one at a time: ids in this order
        uow.commit()


def kept(db: Database, client_id: str, webhook_id: str) -> list[int]:
    """The endpoint's attempts left, oldest first, by their latency (the test's own numbering)."""
    with db.unit_of_work() as uow:
        return sorted(a.latency_ms for a in uow.webhooks.attempts(client_id, webhook_id, None, None, 10_000))


def test_the_endpoints_with_old_attempts_are_found_and_each_batch_deletes_its_old_ones(db, clock):
    first, (a, b) = client_with_hooks(db, "http://127.0.0.1:9/a", "http://127.0.0.1:9/b")
    second, (c,) = client_with_hooks(db, "http://127.0.0.1:9/c")
    now = clock.now()
    old, new_ = now - KEEP - timedelta(days=1), now - timedelta(days=1)
    attempted(db, first, a["id"], [old] * 5 + [new_] * 2)
    attempted(db, first, b["id"], [new_] * 3)
    attempted(db, second, c["id"], [old])
    queue = DeliveryQueue(db.engine)
    assert queue.expired_endpoints(now - KEEP) == sorted([(first, a["id"]), (second, c["id"])])
    assert [queue.prune_endpoint(first, a["id"], now - KEEP, 2) for _ in range(4)] == [(2, 0), (2, 0), (1, 0), (0, 0)]
    assert (kept(db, first, a["id"]), kept(db, first, b["id"])) == ([5, 6], [0, 1, 2])
    assert queue.expired_endpoints(now - KEEP) == [(second, c["id"])]


def test_a_batch_deletes_only_its_old_rows_and_the_boundary_is_kept(db, clock):
    """Ids follow the time an attempt was recorded, but not exactly across dispatchers: an
    attempt recorded later by one may have a lower id than an older one of another."""
    client_id, (a,) = client_with_hooks(db, "http://127.0.0.1:9/a")
    before = clock.now() - KEEP
    just = timedelta(milliseconds=1)
    attempted(db, client_id, a["id"], [before - just, before + just, before - 2 * just, before, before - just])
    queue = DeliveryQueue(db.engine)
    assert queue.prune_endpoint(client_id, a["id"], before, 3) == (2, 0)  # the newer one between them stays
    assert kept(db, client_id, a["id"]) == [1, 3, 4]
    assert queue.expired_endpoints(before) == []  # its oldest now is the newer one: the old one behind waits
    clock.advance(seconds=2)
    assert queue.expired_endpoints(clock.now() - KEEP) == [(client_id, a["id"])]
    assert queue.prune_endpoint(client_id, a["id"], clock.now() - KEEP, 3) == (3, 0)
    assert kept(db, client_id, a["id"]) == []


def test_two_dispatchers_deleting_one_endpoints_old_attempts_take_different_batches(db, clock):
    """With several dispatchers each may work through the same endpoint: one whose batch
    another holds takes the attempts after it, and neither waits for the other's
    transaction (it used to wait, then find that batch gone and leave the endpoint)."""
    if db.dialect != "postgresql":
        pytest.skip("SQLite's dispatchers take turns by their lease")
    client_id, (a,) = client_with_hooks(db, "http://127.0.0.1:9/a")
    before = clock.now() - KEEP
    attempted(db, client_id, a["id"], [before - timedelta(days=1)] * 5)
    queue = DeliveryQueue(db.engine)
    done: list[tuple[int, int]] = []
    with db.engine.connect() as other:  # another dispatcher, its first batch deleted, not committed
        other.execute(webhook_queue._PRUNE["postgresql"], {"client": client_id, "webhook": a["id"], "before": before, "batch": 2})
        worker = threading.Thread(target=lambda: done.append(queue.prune_endpoint(client_id, a["id"], before, 2)))
        worker.start()
        worker.join(10)
        finished_while_held = not worker.is_alive()
        other.rollback()
        worker.join(10)
    assert finished_while_held and done == [(2, 0)]
    assert kept(db, client_id, a["id"]) == [0, 1, 4]
    assert [queue.prune_endpoint(client_id, a["id"], before, 2) for _ in range(2)] == [(2, 0), (1, 0)]
    assert kept(db, client_id, a["id"]) == []


def test_a_delivery_failed_for_good_goes_with_its_last_attempt_and_a_pending_one_stays(db, clock):
    client_id, (a,) = client_with_hooks(db, "http://127.0.0.1:9/a")
    before = clock.now() - KEEP
    old, recent = before - timedelta(seconds=1), before + timedelta(seconds=1)
    attempts_ = [("e1", old - timedelta(days=1)), ("e1", old), ("e3", old), ("e2", recent)]
    deliveries_ = [("e1", "failed", old), ("e2", "failed", recent), ("e3", "pending", old), ("e4", "failed", old)]
    with db.unit_of_work(write=True) as uow:
        for i, (event, at) in enumerate(attempts_):
            uow.session.add(WebhookAttempt(
                client_id=client_id, webhook_id=a["id"], event_id=event, attempted_at=at, outcome="http_error",
                status_code=500, latency_ms=i, error=None,
            ))
            uow.session.flush()
        for n, (event, state, at) in enumerate(deliveries_):
            uow.session.add(WebhookDelivery(
                webhook_id=a["id"], event_id=event, client_id=client_id, sequence=n + 1, event_type="round.settled",
                event_at=old, state=state, attempts=2, next_attempt_at=at, claim=None, created_at=old,
            ))
        uow.commit()
    # e1's two attempts and e3's go, and e1's failed delivery with its last; e2 failed after
    # the retention's start, e3 is still pending (its endpoint disabled, say), and e4 has no
    # attempt in this batch: they stay
    assert DeliveryQueue(db.engine).prune_endpoint(client_id, a["id"], before, 10) == (3, 1)
    assert kept(db, client_id, a["id"]) == [3]
    assert sorted(deliveries(db, client_id)) == ["e2", "e3", "e4"]


def test_the_loop_looks_for_old_attempts_every_ten_minutes_and_deletes_them_between_passes(
    db, new, clock, monkeypatch
):
    client_id, (a,) = client_with_hooks(db, "http://127.0.0.1:9/a")
    old, recent = clock.now() - KEEP - timedelta(seconds=1), clock.now() - KEEP + timedelta(seconds=1)
    attempted(db, client_id, a["id"], [old] * 3 + [recent])
    ticks = Monotonic(1000.0)
    monkeypatch.setattr(dispatcher, "time", ticks)
    monkeypatch.setattr(dispatcher, "PRUNE_BATCH", 2)
    monkeypatch.setattr(dispatcher, "PRUNE_BATCHES", 1)
    off = new(replace(PLAIN, attempts_keep_s=None))
    off._leased = True
    off._prune()
    assert kept(db, client_id, a["id"]) == [0, 1, 2, 3]  # kept for ever
    metrics = Metrics()
    d = new(replace(PLAIN, attempts_keep_s=KEEP.total_seconds()), metrics)
    if d.sqlite:
        d._prune()  # SQLite: only the holder of the lease writes
        assert kept(db, client_id, a["id"]) == [0, 1, 2, 3]
        assert d._hold_lease()
    d._prune()  # found, and one batch between two passes
    assert kept(db, client_id, a["id"]) == [2, 3] and d._pruner.left == [(client_id, a["id"])]
    assert d._pruner.at == 1000.0 + dispatcher.PRUNE_EVERY_S
    d._prune()  # the next pass goes on with it; the recent one stays, and the endpoint is done
    assert kept(db, client_id, a["id"]) == [3] and d._pruner.left == []
    attempted(db, client_id, a["id"], [old])  # numbered 0 again, behind the recent one
    clock.advance(seconds=dispatcher.PRUNE_EVERY_S)
    ticks.now += dispatcher.PRUNE_EVERY_S - 0.001
    d._prune()
    assert kept(db, client_id, a["id"]) == [0, 3]  # not yet
    ticks.now += 0.001
    d._prune()  # ten minutes on, the recent one is past the retention too
    assert kept(db, client_id, a["id"]) == []
    assert metrics.registry.get_sample_value("capsa_webhook_attempts_deleted_total") == 5.0


def test_the_endpoints_found_are_worked_through_in_order_a_batch_between_two_passes(db, new, clock, monkeypatch):
    client_id, hooks_ = client_with_hooks(db, *(f"http://127.0.0.1:9/{n}" for n in "abc"))
    for hook in hooks_:
        attempted(db, client_id, hook["id"], [clock.now() - KEEP - timedelta(seconds=1)] * 2)
    monkeypatch.setattr(dispatcher, "time", Monotonic(1000.0))
    monkeypatch.setattr(dispatcher, "PRUNE_BATCH", 2)
    monkeypatch.setattr(dispatcher, "PRUNE_BATCHES", 2)
    d = new(replace(PLAIN, attempts_keep_s=KEEP.total_seconds()))
    d._leased = True
    order = sorted(h["id"] for h in hooks_)
    left = []
    for _ in range(3):
        d._prune()
        left.append([h for h in order if kept(db, client_id, h)])
    # two transactions a pass: the first endpoint's two, then a second read of it (none: done)
    # and the second's two, then the same for the third
    assert left == [order[1:], order[2:], []]


def test_a_turn_that_fails_is_logged_and_looks_again_ten_minutes_later(db, new, clock, monkeypatch, caplog):
    client_id, (a,) = client_with_hooks(db, "http://127.0.0.1:9/a")
    attempted(db, client_id, a["id"], [clock.now() - KEEP - timedelta(seconds=1)] * 2)
    d = new(replace(PLAIN, attempts_keep_s=KEEP.total_seconds()))
    d._leased = True
    ticks = Monotonic(1000.0)
    monkeypatch.setattr(dispatcher, "time", ticks)

    def broken(*args: Any) -> Any:
        raise Unreachable("the database went away")

    monkeypatch.setattr(d.queue, "prune_endpoint", broken)
    with caplog.at_level(logging.ERROR, logger="capsa.webhooks"):
        d._prune()
    assert [r.getMessage() for r in caplog.records] == ["could not delete the attempts past their retention"]
    assert d._pruner.left == [] and d._pruner.at == 1000.0 + dispatcher.PRUNE_EVERY_S
    assert kept(db, client_id, a["id"]) == [0, 1]


@pytest.mark.postgres
def test_finding_and_deleting_old_attempts_reads_each_endpoints_oldest_only(db, clock):
    """On a database never analysed: one probe of each endpoint's index for its oldest
    attempt, and each batch read from that end of it, whatever the table holds."""
    if db.dialect != "postgresql":
        pytest.skip("PostgreSQL's plans")
    client_id, (a, b) = client_with_hooks(db, "http://127.0.0.1:9/a", "http://127.0.0.1:9/b")
    now = clock.now()
    attempted(db, client_id, a["id"], [now - KEEP - timedelta(days=1)] * 3)
    with db.unit_of_work(write=True) as uow:  # a table of some pages: a scan of it is no bargain
        uow.session.execute(insert(WebhookAttempt), [
            {"client_id": client_id, "webhook_id": hook, "event_id": f"evt_{i}", "attempted_at": now,
             "outcome": "delivered", "status_code": 200, "latency_ms": 1, "error": None}
            for hook in (a["id"], b["id"]) for i in range(2000)
        ])
        uow.session.execute(insert(WebhookDelivery), [
            {"webhook_id": hook, "event_id": f"evt_{i}", "client_id": client_id, "sequence": i + 1,
             "event_type": "round.settled", "event_at": now, "state": state, "attempts": 1,
             "next_attempt_at": now - KEEP - timedelta(days=1), "claim": None, "created_at": now}
            for hook, state, n in ((a["id"], "failed", 3), (b["id"], "pending", 4000)) for i in range(n)
        ])
        uow.commit()
    queue = DeliveryQueue(db.engine)
    with explained(db.engine, lambda statement: "webhook_attempts" in statement) as plans:
        assert queue.expired_endpoints(now - KEEP) == [(client_id, a["id"])]
        with explained(db.engine, lambda statement: statement.startswith("DELETE FROM webhook_deliveries")) as failed:
            queue.prune_endpoint(client_id, a["id"], now - KEEP, 2)
    # EXPLAIN ANALYZE runs what it explains: the batch's plan deleted two, the batch the third
    assert len(plans) == 2
    assert (len(kept(db, client_id, a["id"])), len(kept(db, client_id, b["id"]))) == (2000, 2000)
    for plan in plans:
        assert "ix_webhook_attempts_webhook" in plan and "Seq Scan on webhook_attempts" not in plan, plan
        assert most_rows(plan) <= 2, plan
    assert "Tid Scan" in plans[1] and "Rows Removed" not in plans[1], plans[1]  # the batch's rows, no others
    (plan,) = failed  # the failed deliveries of the batch's events, each by its key
    assert "Index Scan using pk_webhook_deliveries" in plan and "Seq Scan" not in plan and most_rows(plan) <= 1, plan


def test_sqlite_deletes_a_batch_of_old_attempts_by_rowid_and_finds_them_by_the_endpoints_index(db):
    if db.dialect != "sqlite":
        pytest.skip("SQLite's plans")
    from sqlalchemy.dialects import sqlite

    from service.adapters import webhook_queue

    def plan(statement: Any, params: tuple[Any, ...]) -> str:
        with db.engine.connect() as conn:
            sql = str(statement.compile(dialect=sqlite.dialect()))
            return "\n".join(str(r[3]) for r in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + sql, params))

    found = plan(webhook_queue._EXPIRED, (1, 0, "2026-01-01"))
    assert "SEARCH webhook_attempts USING INDEX ix_webhook_attempts_webhook (client_id=? AND webhook_id=?)" in found
    deleted = plan(webhook_queue._PRUNE["sqlite"], ("c", "w", 5, 0, "2026-01-01"))
    assert deleted.splitlines()[0] == "SEARCH webhook_attempts USING INTEGER PRIMARY KEY (rowid=?)", deleted


# -- the gauges -----------------------------------------------------------------------------------


class Monotonic:
    def __init__(self, now: float) -> None:
        self.now = now

    def monotonic(self) -> float:
        return self.now


def gauges(metrics: Metrics) -> tuple[float | None, float | None]:
    sample = metrics.registry.get_sample_value
    return sample("capsa_webhook_events_waiting"), sample("capsa_webhook_oldest_waiting_seconds")


def test_the_gauges_count_the_waiting_deliveries_and_the_oldest_age_at_most_once_a_second(db, new, clock, monkeypatch):
    metrics = Metrics()
    d = new(PLAIN, metrics)
    ticks = Monotonic(1000.0)
    monkeypatch.setattr(dispatcher, "time", ticks)
    d._gauges()
    assert gauges(metrics) == (0.0, 0.0) and d._last_gauges == 1000.0  # none waiting: 0
    client_id, _ = client_with_hooks(db, "http://127.0.0.1:9/a")
    store(db, client_id)
    d.fan_out()
    ticks.now = 1000.5
    d._gauges()
    assert gauges(metrics) == (0.0, 0.0)  # within the second: not read again
    ticks.now = 1001.0
    d._gauges()
    assert gauges(metrics) == (1.0, 0.0)  # stored just now: no age yet
    clock.advance(minutes=10)
    store(db, client_id)
    d.fan_out()
    ticks.now = 1002.0
    d._gauges()
    assert gauges(metrics) == (2.0, 600.0)
    clock.advance(minutes=-20)  # the clock stepped back past the event: no negative age
    ticks.now = 1003.0
    d._gauges()
    assert gauges(metrics) == (2.0, 0.0)


def test_the_metrics_are_exposed_under_their_names_and_help(db):
    metrics = Metrics()
    metrics.deliveries.labels("delivered").inc()
    text = generate_latest(metrics.registry).decode()
    assert [line for line in text.splitlines() if line.startswith("# HELP") and "_created " not in line] == [
        "# HELP capsa_webhook_deliveries_total Webhook delivery attempts by outcome.",
        "# HELP capsa_webhook_endpoints_disabled_total Endpoints disabled after failing for the disable period.",
        "# HELP capsa_webhook_attempts_deleted_total Delivery attempts deleted past their retention "
        "(WEBHOOK_ATTEMPTS_KEEP).",
        "# HELP capsa_webhook_deleted_rows_total Deliveries and attempts of deleted endpoints deleted after the DELETE.",
        "# HELP capsa_webhook_events_waiting Deliveries queued and not yet made (enabled endpoints).",
        "# HELP capsa_webhook_oldest_waiting_seconds Age of the oldest event not yet delivered (0: none).",
    ]
    assert 'capsa_webhook_deliveries_total{outcome="delivered"} 1.0' in text.splitlines()
    assert Metrics().registry is not metrics.registry  # each its own registry


# -- the SQLite lease --------------------------------------------------------------------------


def sqlite_only(db: Database) -> None:
    if db.dialect != "sqlite":
        pytest.skip("PostgreSQL's dispatchers share the work by row locks, not a lease")


def lease(db: Database) -> tuple[str, Any] | None:
    with db.unit_of_work() as uow:
        row = uow.session.execute(select(DispatcherLease.holder, DispatcherLease.expires_at)).first()
    return None if row is None else (str(row[0]), row[1])


def test_without_the_lease_a_pass_only_records_what_finished_and_the_lease_runs_for_its_time(db, new, clock):
    sqlite_only(db)
    first, second = new(replace(PLAIN, lease_s=10.0)), new(replace(PLAIN, lease_s=10.0))
    client_id, hook, (a, *_) = claimed_four(db, first)
    assert first.step(Held(pending=4)) is False
    assert lease(db) == (first.holder, clock.now() + timedelta(seconds=10))
    lanes = Held(done=[Outcome(a, result(), False)])
    clock.advance(seconds=10)  # the lease ends after, not at, its time
    with statements(db) as seen:
        assert second.step(lanes) is False
    assert lanes.submitted == [] and second.claims == []
    # What it sent while it held the lease: recorded (the delivered row goes, the attempt stays).
    assert a.event_id not in deliveries(db, client_id) and len(deliveries(db, client_id)) == 3
    assert [x[:2] for x in attempts(db, client_id)] == [(a.event_id, "delivered")]
    assert not [s for s in seen if "SELECT" in s and "webhook_deliveries" in s]
    clock.advance(milliseconds=1)
    taken = Held()
    assert second.step(taken) is False  # the lease taken over: claims what is due (nothing)
    assert lease(db) == (second.holder, clock.now() + timedelta(seconds=10))
    second._release()
    assert lease(db) is None
    first._release()
    with statements(db) as seen:  # write transactions: the lock taken up front
        first._hold_lease()
        first._release()
    assert [s for s in seen if s.startswith("BEGIN")] == ["BEGIN IMMEDIATE", "BEGIN IMMEDIATE"]


def test_run_until_idle_gives_the_lease_back_and_abandons_nothing(db, new):
    sqlite_only(db)
    d = new()
    d.run_until_idle(timeout=5)
    assert lease(db) is None and d.abandoned == 0


def test_a_dispatcher_is_dialect_aware_and_its_pool_keeps_what_it_can_have_in_flight(db, new):
    # an origin's idle connections: the dispatcher's concurrency, not one endpoint's cap
    # (endpoints share an origin: test_dispatcher_batches)
    d = new(replace(PLAIN, endpoint_concurrency=3, concurrency=7))
    assert d.sqlite is (db.dialect == "sqlite")
    assert (d.pool.allow_private, d.pool.per_origin) == (True, 7)
    assert not d.stopping.is_set() and d.claims == [] and d.abandoned == 0 and d._fast == {}


# -- single attempts ---------------------------------------------------------------------------------


class Posts:
    """The pool's place: what each attempt posted; answers `answer`, or raises it."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.posted: list[tuple[str, bytes, dict[str, str], float]] = []

    async def post(self, url: str, body: bytes, headers: dict[str, str], timeout: float) -> delivery.Result:
        self.posted.append((url, body, headers, timeout))
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer  # type: ignore[no-any-return]

    def close(self) -> None:
        pass


class Ticks:
    def __init__(self, now: float) -> None:
        self.now = now

    def monotonic(self) -> float:
        return self.now

    def time(self) -> float:
        return 1_800_000_000.0


def one_prepared(db: Database, d: Dispatcher, end_by: float) -> tuple[str, Prepared]:
    client_id, (hook,) = client_with_hooks(db, "http://127.0.0.1:9/a")
    store(db, client_id)
    d.fan_out()
    (p,) = d.prepare(d.claim(1), end_by=end_by)
    return hook["secret"], p


def test_an_attempt_posts_the_signed_event_within_what_is_left_of_its_claim(db, new, clock, monkeypatch):
    d = new()
    secret, p = one_prepared(db, d, end_by=10.5)
    monkeypatch.setattr(dispatcher, "time", Ticks(10.0))
    posts = Posts(result(latency_ms=10))
    monkeypatch.setattr(d, "pool", posts)
    outcome = asyncio.run(d.deliver(p))
    assert outcome == Outcome(p.claimed, result(latency_ms=10), False, utcnow_ms())  # started now (the clock's)
    ((url, body, headers, timeout),) = posts.posted
    assert (url, body, timeout) == ("http://127.0.0.1:9/a", p.body, 0.5)  # the claim's 0.5 s left, not 1 s
    assert p.event is not None
    assert list(headers) == ["Content-Type", "User-Agent", "webhook-id", "webhook-timestamp", "webhook-signature"]
    assert headers["Content-Type"] == "application/json" and headers["User-Agent"] == "capsa-webhooks/1"
    assert (headers["webhook-id"], headers["webhook-timestamp"]) == (p.event.id, "1800000000")
    expected = hooks.signature_header([secret], p.event.id, 1_800_000_000, p.body)
    assert headers["webhook-signature"] == expected
    assert d._fast == {p.claimed.webhook_id: True}  # a fast 2xx: its next claims are deep
    posts.answer = result(latency_ms=100)
    monkeypatch.setattr(dispatcher, "time", Ticks(0.0))
    asyncio.run(d.deliver(p))
    assert posts.posted[-1][3] == 1.0 and d._fast == {p.claimed.webhook_id: False}  # its timeout, all of it


def test_an_attempt_left_less_than_its_minimum_is_sent_back_unmade(db, new, monkeypatch, caplog):
    d = new()
    _, p = one_prepared(db, d, end_by=0.1)
    posts = Posts(result())
    monkeypatch.setattr(d, "pool", posts)
    monkeypatch.setattr(dispatcher, "time", Ticks(0.0))
    assert asyncio.run(d.deliver(p)) is not None  # 0.1 s left: just enough
    monkeypatch.setattr(dispatcher, "time", Ticks(0.001))
    with caplog.at_level(logging.WARNING, logger="capsa.webhooks"):
        assert asyncio.run(d.deliver(p)) is None
    assert len(posts.posted) == 1
    assert [r.getMessage() for r in caplog.records] == [
        f"delivery of {p.claimed.event_id} to {p.claimed.webhook_id} started too late for its claim: sent back"]


def test_an_attempt_that_raises_is_logged_and_sent_back(db, new, monkeypatch, caplog):
    d = new()
    _, p = one_prepared(db, d, end_by=float("inf"))
    monkeypatch.setattr(d, "pool", Posts(RuntimeError("boom")))
    with caplog.at_level(logging.ERROR, logger="capsa.webhooks"):
        assert asyncio.run(d.deliver(p)) is None
    assert [r.getMessage() for r in caplog.records] == [f"delivery of {p.claimed.event_id} to {p.claimed.webhook_id} failed"]
    assert caplog.records[0].exc_info is not None


def test_a_claim_whose_record_or_endpoint_is_gone_is_prepared_without_it(db, new, clock, monkeypatch):
    d = new()
    client_id, (hook,) = client_with_hooks(db, "http://127.0.0.1:9/a")
    store(db, client_id)
    d.fan_out()
    (claimed,) = d.claim(1)
    missing = replace(claimed, sequence=99, event_id="evt_01M90N81TA4BZ35QZENKKC5J99_settled")
    kept, lost = d.prepare([claimed, missing])
    assert (kept.start_by, kept.end_by) == (float("inf"), float("inf"))
    assert kept.event is not None and kept.body == kept.event.body() and kept.target is not None
    assert (lost.claimed, lost.target, lost.event, lost.body) == (missing, kept.target, None, b"")
    posts = Posts(result())
    monkeypatch.setattr(d, "pool", posts)
    outcome = asyncio.run(d.deliver(lost))  # an attempt that fails without a request, recorded
    assert outcome == Outcome(missing, delivery.Result(
        AttemptOutcome.CONNECTION_ERROR, None, 0, "the event's record is missing"), False, utcnow_ms())
    assert posts.posted == []
    webhooks.delete(db, client_id, hook["id"])
    (gone,) = d.prepare([claimed])
    assert gone.target is None and gone.event is not None
    assert asyncio.run(d.deliver(gone)) is None and posts.posted == []  # its deliveries went with it


def test_a_claim_whose_endpoint_was_disabled_or_deleted_with_a_backlog_meanwhile_is_sent_back_unmade(
    db, new, monkeypatch
):
    """Prepared after a PATCH {"enabled": false}, or a DELETE that left a backlog to the
    dispatchers (the endpoint's row stays, disabled, until they have deleted it), the
    delivery was sent all the same: to an endpoint its client had switched off or deleted."""
    monkeypatch.setattr(webhooks, "REMOVE_BATCH", 0)  # any backlog: the row stays, marked deleted
    d = new()
    posts = Posts(result())
    monkeypatch.setattr(d, "pool", posts)
    for change in ("disable", "delete"):
        client_id, (hook,) = client_with_hooks(db, "http://127.0.0.1:9/a")
        store(db, client_id)
        d.fan_out()
        (claimed,) = d.claim(1)
        if change == "disable":
            webhooks.update(db, client_id, hook["id"], {"enabled": False})
        else:
            webhooks.delete(db, client_id, hook["id"])
        (p,) = d.prepare([claimed])
        assert p.target is not None and not p.target.enabled, change
        assert asyncio.run(d.deliver(p)) is None, change
    assert posts.posted == []


# -- the loops ---------------------------------------------------------------------------------------


class Stop(threading.Event):
    """A stop event that notes each wait of the loop on it (its timeout), and whatever
    `note` returns then."""

    def __init__(self, note: Any = None) -> None:
        super().__init__()
        self.note = note
        self.waits: list[Any] = []

    def wait(self, timeout: float | None = None) -> bool:
        self.waits.append((timeout, self.note()) if self.note else timeout)
        return super().wait(timeout)


def test_the_loop_waits_for_half_a_claim_batch_or_a_tick_and_closes_within_the_deadline_and_half_a_second(
        db, new, monkeypatch):
    """`run` without a stop of its own stops on `stopping`; while attempts are in flight it
    waits for half a claim batch of them to finish, or a tick, before its next pass; at the
    stop its lanes get the attempt deadline and 0.5 s, and the pool's idle connections go."""
    client_id, _ = client_with_hooks(db, "http://127.0.0.1:9/a")
    store(db, client_id)
    d = new(replace(PLAIN, claim_batch=11, timeout_s=0.2, poll_s=0.01))
    waits: list[tuple[int, float]] = []
    closes: list[tuple[float, Any]] = []
    real_wait, real_close = dispatcher.Lanes.wait, dispatcher.Lanes.close

    def wait(lanes: Any, enough: int, timeout: float) -> None:
        waits.append((enough, timeout))
        real_wait(lanes, enough, timeout)

    def close(lanes: Any, grace: float, then: Any = None) -> int:
        closes.append((grace, then))
        return real_close(lanes, grace, then)

    async def never(p: Prepared) -> Outcome | None:
        await asyncio.sleep(3600)
        return None

    monkeypatch.setattr(dispatcher.Lanes, "wait", wait)
    monkeypatch.setattr(dispatcher.Lanes, "close", close)
    monkeypatch.setattr(d, "deliver", never)
    d.stopping = stopping = Stop()
    loop = threading.Thread(target=d.run, daemon=True)
    loop.start()
    deadline = time.monotonic() + 10
    while not waits and time.monotonic() < deadline:
        time.sleep(0.01)
    d.stopping.set()
    loop.join(5)
    assert not loop.is_alive()
    assert waits and set(waits) == {(5, dispatcher.TICK_S)}  # 11 // 2
    assert stopping.waits == []  # its attempt in flight: never a poll's wait as well
    assert closes == [(0.7, d.pool.close)] and d.abandoned == 1


def test_the_loop_records_what_finished_at_once_and_only_then_waits_its_poll(db, new, monkeypatch):
    """Nothing in flight and outcomes to record, no fan-out left to a linger: the next pass
    follows at once and records them; the loop waits its poll only with nothing to record."""
    client_id, _ = client_with_hooks(db, "http://127.0.0.1:9/a")
    store(db, client_id)
    d = new(replace(PLAIN, poll_s=5.0, linger_s=0.0))
    monkeypatch.setattr(d, "pool", Posts(result()))
    d.stopping = stopping = Stop(lambda: [x[1] for x in attempts(db, client_id)])
    loop = threading.Thread(target=d.run, daemon=True)
    loop.start()
    deadline = time.monotonic() + 10
    while not stopping.waits and time.monotonic() < deadline:
        time.sleep(0.01)
    d.stopping.set()
    loop.join(5)
    assert not loop.is_alive()
    assert stopping.waits[:1] == [(5.0, ["delivered"])]


def test_run_until_idle_waits_for_all_within_its_time(db, new, monkeypatch):
    client_id, _ = client_with_hooks(db, "http://127.0.0.1:9/a")
    store(db, client_id)
    d = new(replace(PLAIN, timeout_s=0.2))
    waits: list[tuple[int, float]] = []
    real_wait = dispatcher.Lanes.wait

    def wait(lanes: Any, enough: int, timeout: float) -> None:
        waits.append((enough, timeout))
        real_wait(lanes, enough, timeout)

    monkeypatch.setattr(dispatcher.Lanes, "wait", wait)
    monkeypatch.setattr(d, "pool", Posts(result()))
    started = time.monotonic()
    d.run_until_idle(timeout=5.0)
    assert time.monotonic() - started < 5.0
    assert waits and all(enough >= d.settings.most_held and 0.0 < timeout <= 5.0 for enough, timeout in waits)
    assert [x[1] for x in attempts(db, client_id)] == ["delivered"] and deliveries(db, client_id) == {}

    async def never(p: Prepared) -> Outcome | None:
        await asyncio.sleep(3600)
        return None

    store(db, client_id)
    waits.clear()
    monkeypatch.setattr(d, "deliver", never)
    d.run_until_idle(timeout=0.5)  # an attempt that never ends: it waits no longer than its time
    assert waits and all(0.0 <= timeout <= 0.5 for _, timeout in waits)


def test_run_until_idle_makes_a_retry_due_at_once_in_the_same_run(db, new):
    from webhookkit import Receiver

    receiver = Receiver().start()
    try:
        client_id, (hook,) = client_with_hooks(db, receiver.url)
        receiver.secrets = [hook["secret"]]
        answers = iter(["fail"])
        receiver.fate = lambda _id: next(answers, "ok")
        event_id = store(db, client_id)
        d = new(replace(PLAIN, schedule=(0.0,)))
        d.run_until_idle(timeout=10)
    finally:
        receiver.stop()
    assert [(r.id, r.fate) for r in receiver.requests] == [(event_id, "fail"), (event_id, "ok")]
    assert deliveries(db, client_id) == {}  # delivered: its row is gone
    assert [x[:2] for x in attempts(db, client_id)] == [(event_id, "http_error"), (event_id, "delivered")]


def test_a_lease_that_cannot_be_given_back_is_logged(db, new, caplog, monkeypatch):
    d = new()

    def gone(write: bool = False) -> Any:
        raise Unreachable("the database went away")

    monkeypatch.setattr(d.db, "unit_of_work", gone)
    with caplog.at_level(logging.ERROR, logger="capsa.webhooks"):
        d._release()
    assert [r.getMessage() for r in caplog.records] == ["could not release the dispatcher lease"]


def test_the_last_record_writes_what_earlier_passes_could_not(db, new, monkeypatch):
    metrics = Metrics()
    d = new(PLAIN, metrics)
    client_id, hook, (a, b, _, back) = claimed_four(db, d)
    break_passes(d, monkeypatch)
    with pytest.raises(Unreachable):
        d.step(Held(pending=4, done=[Outcome(a, result(), False)], released=[back]))
    monkeypatch.undo()
    d._record([Outcome(b, result(), False)], [])
    rows = deliveries(db, client_id)
    assert a.event_id not in rows and b.event_id not in rows  # delivered: their rows are gone
    assert sorted(x[:2] for x in attempts(db, client_id)) == sorted([(a.event_id, "delivered"), (b.event_id, "delivered")])
    assert (rows[back.event_id].state, rows[back.event_id].claim) == ("pending", None)
    assert metrics.registry.get_sample_value("capsa_webhook_deliveries_total", {"outcome": "delivered"}) == 2.0
    assert d._unrecorded == ([], [])


# -- endpoints deleted with a backlog -------------------------------------------------------------


def backlog(db: Database, client_id: str, webhook_id: str, count: int) -> None:
    """`count` pending deliveries of the endpoint and `count` attempts, written directly."""
    now = utcnow_ms()
    with db.unit_of_work(write=True) as uow:
        uow.session.execute(insert(WebhookDelivery), [{
            "client_id": client_id, "webhook_id": webhook_id, "event_id": f"evt_{i}", "sequence": i,
            "event_type": "round.settled", "event_at": now, "state": "pending", "attempts": 1, "next_attempt_at": now,
            "claim": None, "last_status": None, "last_error": None, "created_at": now,
        } for i in range(count)])
        uow.session.execute(insert(WebhookAttempt), [{
            "client_id": client_id, "webhook_id": webhook_id, "event_id": f"evt_{i}", "attempted_at": now,
            "outcome": "http_error", "status_code": 500, "latency_ms": i, "error": None,
        } for i in range(count)])
        uow.commit()


def held_rows(db: Database, client_id: str, webhook_id: str) -> tuple[int, int, bool]:
    """The endpoint's deliveries and attempts left, and whether its row is."""
    from sqlalchemy import func

    with db.unit_of_work() as uow:
        count = [
            int(uow.session.scalar(select(func.count()).where(t.client_id == client_id, t.webhook_id == webhook_id)) or 0)
            for t in (WebhookDelivery, WebhookAttempt)
        ]
        row = uow.session.scalar(select(Webhook.id).where(Webhook.client_id == client_id, Webhook.id == webhook_id))
    return count[0], count[1], row is not None


def test_a_deleted_endpoint_with_more_than_a_batch_is_gone_from_the_api_at_once_and_its_rows_go_in_batches(
    db, new, monkeypatch
):
    """DELETE deleted the endpoint's backlog in its own transaction, every row of it: an
    endpoint failing for the three days before it is disabled can hold millions, past the
    statement timeout every time it is tried. Past a batch, it is now marked deleted and
    the dispatchers delete the rest a batch at a time."""
    from service.services.errors import NotFound

    monkeypatch.setattr(webhooks, "REMOVE_BATCH", 3)
    client_id, (a, b, c) = client_with_hooks(db, *(f"http://127.0.0.1:9/{n}" for n in "abc"))
    backlog(db, client_id, a["id"], 7)
    backlog(db, client_id, b["id"], 3)
    webhooks.delete(db, client_id, b["id"])  # a batch or less of each: gone at once, as before
    assert held_rows(db, client_id, b["id"]) == (0, 0, False)
    webhooks.delete(db, client_id, a["id"])
    assert held_rows(db, client_id, a["id"]) == (7, 7, True)  # the request deleted none of them
    with pytest.raises(NotFound):
        webhooks.get(db, client_id, a["id"])
    with pytest.raises(NotFound):
        webhooks.delete(db, client_id, a["id"])
    with pytest.raises(NotFound):
        webhooks.update(db, client_id, a["id"], {"enabled": True})
    assert [w["id"] for w in webhooks.list_(db, client_id)["items"]] == [c["id"]]
    with db.unit_of_work() as uow:
        assert uow.webhooks.count(client_id) == 1  # the endpoint limit counts c alone
    assert DeliveryQueue(db.engine).deleted_endpoints() == [(client_id, a["id"])]

    ticks = Monotonic(1000.0)
    monkeypatch.setattr(dispatcher, "time", ticks)
    monkeypatch.setattr(dispatcher, "PRUNE_BATCH", 3)
    monkeypatch.setattr(dispatcher, "PRUNE_BATCHES", 2)
    metrics = Metrics()
    d = new(PLAIN, metrics)
    if d.sqlite:
        d._purge()  # SQLite: only the holder of the lease writes
        assert held_rows(db, client_id, a["id"]) == (7, 7, True)
        assert d._hold_lease()
    d._purge()  # two batches of three of each between two passes
    assert held_rows(db, client_id, a["id"]) == (1, 1, True) and d._purger.at == 1000.0 + dispatcher.PURGE_EVERY_S
    d._purge()  # the last of each, then the row
    assert held_rows(db, client_id, a["id"]) == (0, 0, False) and d._purger.left == []
    assert held_rows(db, client_id, c["id"]) == (0, 0, True)
    assert metrics.registry.get_sample_value("capsa_webhook_deleted_rows_total") == 14.0
    assert DeliveryQueue(db.engine).deleted_endpoints() == []


def test_the_delete_of_an_endpoint_with_a_backlog_reads_a_batch_of_it_at_most_and_writes_none_of_it(db):
    """Its one transaction deleted every delivery and attempt: 1 s for 200,000 and 600,000
    here, and an endpoint failing for the three days before it is disabled can hold
    millions, past the statement timeout on every try. Now the request counts up to a batch
    and past it deletes nothing but marks the endpoint."""
    client_id, (a,) = client_with_hooks(db, "http://127.0.0.1:9/a")
    backlog(db, client_id, a["id"], webhooks.REMOVE_BATCH + 1)
    with statements(db) as seen:
        webhooks.delete(db, client_id, a["id"])
    on_backlog = [" ".join(s.split()) for s in seen if re.search(r"webhook_(deliveries|attempts)", s)]
    assert len(on_backlog) == 2 and all(s.startswith("SELECT count(*)") and "LIMIT" in s for s in on_backlog), on_backlog
    assert held_rows(db, client_id, a["id"]) == (1001, 1001, True)


def test_attempts_recorded_while_their_deleted_endpoint_goes_go_with_it_in_either_order(db, monkeypatch):
    """A pass checked, unlocked, that an endpoint was still there, then inserted its
    attempts. A purge's last delete of the row (or a DELETE) committed between the two left
    the attempts without their endpoint, where retention, which starts from the endpoints,
    never finds them. The pass now keeps the rows it checked until it commits: a purge
    waits, then finds the attempts and keeps the row; a purge already under way makes the
    pass wait, then drop them. SQLite has one writer at a time, so no such race."""
    from service.adapters.webhook_queue import AttemptRow

    if db.engine.dialect.name == "sqlite":
        pytest.skip("SQLite serialises write transactions")
    from service.services.clock import utcnow_ms

    monkeypatch.setattr(webhooks, "REMOVE_BATCH", 0)  # any backlog: the row stays, marked deleted
    client_id, (a, b) = client_with_hooks(db, "http://127.0.0.1:9/a", "http://127.0.0.1:9/b")
    queue = DeliveryQueue(db.engine)
    for hook in (a, b):
        backlog(db, client_id, hook["id"], 1)
        webhooks.delete(db, client_id, hook["id"])
        assert queue.purge_deleted(client_id, hook["id"], 10) == (2, False)  # the row is left
    failed = [
        AttemptRow(Claimed(h["id"], "evt_late", client_id, 1, "round.settled", 0, "c"), "http_error", 500, 3, "HTTP 500")
        for h in (a, b)
    ]

    # The pass first: the purge waits for it, then keeps the row beside the attempt.
    purged: list[tuple[int, bool]] = []
    with queue.pass_() as tx:
        tx.record(utcnow_ms(), failed[:1], [], [])
        purge = threading.Thread(target=lambda: purged.append(queue.purge_deleted(client_id, a["id"], 10)))
        purge.start()
        purge.join(0.5)
        assert purge.is_alive()  # waiting for the pass's lock on the row
    purge.join(10)
    assert purged == [(0, False)] and held_rows(db, client_id, a["id"]) == (0, 1, True)
    assert queue.purge_deleted(client_id, a["id"], 10) == (1, False)
    assert queue.purge_deleted(client_id, a["id"], 10) == (0, True)
    assert held_rows(db, client_id, a["id"]) == (0, 0, False)

    # The purge first: the pass waits for it, then finds no endpoint and drops the attempt.
    with db.engine.begin() as purge_tx:
        purge_tx.execute(webhook_queue._PURGING, {"_client": client_id, "_webhook": b["id"]})
        assert purge_tx.execute(webhook_queue._PURGED, {"_client": client_id, "_webhook": b["id"]}).rowcount == 1

        def record() -> None:
            with queue.pass_() as tx:
                tx.record(utcnow_ms(), failed[1:], [], [])

        late = threading.Thread(target=record)
        late.start()
        late.join(0.5)
        assert late.is_alive()  # waiting for the purge's lock on the row
    late.join(10)
    assert not late.is_alive() and held_rows(db, client_id, b["id"]) == (0, 0, False)


def test_a_fan_out_and_a_resume_take_endpoints_whose_attempts_another_pass_is_recording(db):
    """A pass holds the rows of the endpoints it records attempts for (FOR KEY SHARE, the
    test above). Fan-out and resume locked their endpoints FOR UPDATE SKIP LOCKED, which
    that lock turns away: another dispatcher's fan-out passed over every endpoint a pass
    was recording, and counted it as skipped. They lock FOR NO KEY UPDATE now (they change
    no key), which a pass's lock lets through."""
    from sqlalchemy import update

    from service.adapters.webhook_queue import AttemptRow
    from service.services.clock import utcnow_ms

    if db.engine.dialect.name == "sqlite":
        pytest.skip("row locks are PostgreSQL's")
    client_id, (a,) = client_with_hooks(db, "http://127.0.0.1:9/a")
    store(db, client_id)  # the endpoint is behind its client's head
    with db.unit_of_work(write=True) as uow:
        uow.session.execute(
            update(Webhook).where(Webhook.client_id == client_id, Webhook.id == a["id"]).values(resume_before=utcnow_ms())
        )
        uow.commit()
    queue = DeliveryQueue(db.engine)
    attempt = AttemptRow(Claimed(a["id"], "evt_x", client_id, 1, "round.settled", 0, "c"), "http_error", 500, 3, None)
    with queue.pass_() as recording:
        recording.record(utcnow_ms(), [attempt], [], [])
        with queue.pass_() as other:
            assert [t.webhook_id for t in other.lock_due(10) if t.client_id == client_id] == [a["id"]]
            assert not other.skipped(1)
            assert (client_id, a["id"]) in {(str(r[0]), str(r[1])) for r in other.conn.execute(webhook_queue._RESUMING)}


def test_an_endpoint_deleted_while_a_pass_records_its_attempts_takes_them_with_it(db):
    """The DELETE of an endpoint (a batch or less of backlog: everything goes at once)
    against a pass recording an attempt of it: the DELETE waits for the pass's lock on the
    endpoint's row, then deletes the attempt the pass committed. Unlocked, the attempt
    outlived its endpoint."""
    from service.adapters.webhook_queue import AttemptRow
    from service.services.clock import utcnow_ms

    if db.engine.dialect.name == "sqlite":
        pytest.skip("SQLite serialises write transactions")
    client_id, (a,) = client_with_hooks(db, "http://127.0.0.1:9/a")
    queue = DeliveryQueue(db.engine)
    attempt = AttemptRow(Claimed(a["id"], "evt_x", client_id, 1, "round.settled", 0, "c"), "http_error", 500, 3, None)
    with queue.pass_() as tx:
        tx.record(utcnow_ms(), [attempt], [], [])
        deleting = threading.Thread(target=lambda: webhooks.delete(db, client_id, a["id"]))
        deleting.start()
        deleting.join(0.5)
        assert deleting.is_alive()  # waiting for the pass's lock on the row
    deleting.join(10)
    assert not deleting.is_alive() and held_rows(db, client_id, a["id"]) == (0, 0, False)
