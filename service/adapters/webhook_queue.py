"""The dispatcher's statements: queueing deliveries, claiming them in batches, recording outcomes.

The hot path of `capsa webhooks dispatch`, in SQLAlchemy Core on a connection (no ORM
session, no unit of work): each statement is built once, here, with bound parameters, so a
pass costs its round trips and nothing is compiled again. A pass is one write transaction
(`DeliveryQueue.pass_`) that records the outcomes of the last pass, claims the next batch
and reads the chains' fingerprint (`Pass.fingerprint`): fan-out (`Pass.lock_due`,
`Pass.event_keys`, `Pass.queue`, `Pass.advance`) runs only when the fingerprint moved.

PostgreSQL: the claim is one `UPDATE ... WHERE key IN (SELECT ... FOR UPDATE SKIP LOCKED)
RETURNING`, so dispatchers never claim the same delivery; SQLite renders no lock clause,
and its one active dispatcher holds the lease in `dispatcher_leases`.

Between passes, the attempts past their retention: `DeliveryQueue.expired_endpoints` finds
the endpoints that have some, `DeliveryQueue.prune_endpoint` deletes a batch of them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Connection,
    Engine,
    Executable,
    String,
    and_,
    any_,
    bindparam,
    case,
    cast,
    delete,
    exists,
    func,
    select,
    text,
    tuple_,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite

from service.domain.audit import record_time
from service.domain.webhooks import AttemptOutcome, DeliveryState, DisabledReason

from .chain import stored_record
from .models import (
    ChainHead,
    ChainRecord,
    LedgerLine,
    UTCDateTime,
    Webhook,
    WebhookAttempt,
    WebhookDelivery,
)
from .pg_literals import text_array
from .translate import translated
from .webhooks import (
    DELIVERED,
    FAILED,
    GAME_BY_KEY,
    PENDING,
    RECORDS_BY_KEY,
    Claimed,
    EventRecord,
    Target,
    target_columns,
)

d, w = WebhookDelivery, Webhook


@dataclass(frozen=True, slots=True)
class FanoutTarget:
    """An enabled endpoint whose client's chain is past its cursor, locked for queueing."""

    client_id: str
    webhook_id: str
    cursor: int
    events: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class EventKey:
    """What a record's deliveries are made of, without its bytes: its sequence, kind, round,
    the round's game (round records) and its time (its ledger line 0's)."""

    sequence: int
    kind: str
    round_id: str
    game: str | None
    at: datetime


@dataclass(frozen=True, slots=True)
class Finish:
    """A claimed delivery's new state after an attempt. A delivered one's row is deleted:
    its attempt (in `webhook_attempts`) is its history, the endpoint's cursor keeps its
    event from being queued again, and a redelivery queues a new row."""

    claimed: Claimed
    state: DeliveryState
    next_attempt_at: datetime
    last_status: int | None
    last_error: str | None


@dataclass(frozen=True, slots=True)
class AttemptRow:
    claimed: Claimed
    outcome: AttemptOutcome
    status_code: int | None
    latency_ms: int
    error: str | None
    started_at: datetime | None = None  # when its request went out (None: the pass's time)


# -- statements, built once ---------------------------------------------------------------------

_FINGERPRINT = select(
    # only the heads of clients with an enabled endpoint: another client's rounds queue nothing
    select(func.coalesce(func.sum(ChainHead.sequence), 0))
    .where(ChainHead.client_id.in_(select(w.client_id).where(w.enabled.is_(True))))
    .scalar_subquery(),
    select(func.count()).where(w.enabled.is_(True)).scalar_subquery(),
    select(func.coalesce(func.sum(w.cursor), 0)).where(w.enabled.is_(True)).scalar_subquery(),
    # and how many endpoints enabled again have deliveries to resume (`Pass.resume`)
    select(func.count()).where(w.enabled.is_(True), w.resume_before.is_not(None)).scalar_subquery(),
)

# An endpoint enabled again (migration 0022): its deliveries queued before then, failed for
# good or waiting for a later step of the schedule, made due now with a fresh schedule, a
# batch at a time. The waiting ones are a range of the endpoint's due index (due after now);
# the failed ones are picked from the endpoint's rows by key. A row made due leaves both
# sets, so each batch moves on.
# Locked first (a request holding one is left to the next pass), then their deliveries: the
# order in which deleting an endpoint takes them.
_RESUMING = (
    select(w.client_id, w.id, w.resume_before)
    .where(w.enabled.is_(True), w.resume_before.is_not(None))
    .with_for_update(skip_locked=True, key_share=True)
)
_ENDPOINT_ROWS = (
    d.client_id == bindparam("_client"), d.webhook_id == bindparam("_webhook"), d.created_at <= bindparam("_before"),
)
_TO_RESUME = {
    "failed": (d.state == FAILED,),
    "waiting": (d.state == PENDING, d.claim.is_(None), d.next_attempt_at > bindparam("_now")),
}


def _resume(which: str) -> Any:
    chosen = select(d.event_id).where(*_ENDPOINT_ROWS, *_TO_RESUME[which]).limit(bindparam("_n")).scalar_subquery()
    return (
        update(d)
        .where(*_ENDPOINT_ROWS, *_TO_RESUME[which], d.event_id.in_(chosen))
        .values(state=PENDING, attempts=0, next_attempt_at=bindparam("_now"), claim=None)
        .execution_options(synchronize_session=False)
    )


_RESUME = {which: _resume(which) for which in _TO_RESUME}
_RESUMED = (
    update(w)
    .where(w.client_id == bindparam("_client"), w.id == bindparam("_webhook"), w.resume_before == bindparam("_before"))
    .values(resume_before=None)
)

# Both this and `_RESUMING` lock FOR NO KEY UPDATE: they change no key, and a pass recording
# attempts holds its endpoints' rows FOR KEY SHARE (`Pass.record`), which FOR UPDATE would
# wait for or (SKIP LOCKED) pass over. A DELETE, a PATCH or another fan-out still waits.
# In random order: a cursor is a sequence of its own client's chain, so taken lowest first,
# the endpoints of young chains (while more of them than a fan-out takes were behind) went
# before an old chain's for ever. At random, each endpoint behind is taken by a pass with a
# chance of at least the pass's share of them.
_LOCK_DUE = (
    select(w.client_id, w.id, w.cursor, w.events)
    .join(ChainHead, ChainHead.client_id == w.client_id)
    .where(w.enabled.is_(True), w.cursor < ChainHead.sequence)
    .order_by(func.random())
    .limit(bindparam("limit"))
    .with_for_update(skip_locked=True, of=w, key_share=True)
)

# Whether the client's last write was made with a signing key (migration 0028).
_SIGNING = select(ChainHead.signing).where(ChainHead.client_id == bindparam("client_id"))

# How many enabled endpoints are behind their head, locked or not: more than `_LOCK_DUE`
# returned (short of its limit) means it skipped some that a request holds.
_BEHIND = (
    select(func.count())
    .select_from(w)
    .join(ChainHead, ChainHead.client_id == w.client_id)
    .where(w.enabled.is_(True), w.cursor < ChainHead.sequence)
)

# The round's game and the record's time looked up per record (scalar subqueries by key):
# joined instead, a never-analysed database's planner scanned every round of the client per
# record and every line 0 of its history per fan-out (624,250 rows filtered for 500 keys).
# The record's time from its first line (every line has it), by the primary key. Asked for
# `line_no = 0` instead, the planner may take line 0's partial index (client, currency,
# time, sequence), which has no bound on the sequence: never analysed, it read a client's
# every record from the first per record (0.74 ms each at 20,000 records, growing with them).
def _first(column: Any, order_by: Any, outer: Any, *where: Any) -> Any:
    """`column` of the first row `where` holds, by `order_by`, for each row of `outer`."""
    return select(column).where(*where).order_by(order_by).limit(1).correlate(outer).scalar_subquery()


_line0_at = _first(
    LedgerLine.created_at, LedgerLine.line_no, ChainRecord,
    LedgerLine.client_id == ChainRecord.client_id, LedgerLine.sequence == ChainRecord.sequence,
)
# A chain's sequences have no gaps: the range [from, until) is the `limit` records asked for,
# bounded whatever the plan (never analysed, a bitmap scan read all the records after the
# cursor and sorted them to keep the first 500).
_EVENT_KEYS = (
    select(ChainRecord.sequence, ChainRecord.kind, ChainRecord.round_id, GAME_BY_KEY, _line0_at)
    .where(
        ChainRecord.client_id == bindparam("client_id"),
        ChainRecord.sequence >= bindparam("from_sequence"),
        ChainRecord.sequence < bindparam("until"),
    )
    .order_by(ChainRecord.sequence)
    .limit(bindparam("limit"))
)
# A record without ledger lines (none is written so; a damaged chain): its time from its bytes.
_CANONICAL = select(ChainRecord.canonical).where(
    ChainRecord.client_id == bindparam("client_id"), ChainRecord.sequence == bindparam("sequence")
)

_ADVANCE = (
    update(w)
    .where(w.client_id == bindparam("_client"), w.id == bindparam("_webhook"))
    .values(cursor=bindparam("_cursor"))
)


DEEP_MARK = ":deep"  # the end of a deep claim's token

# The claims held now, by endpoint: all of them, and the plain ones (not deep). From the
# index of claimed rows only (ix_webhook_deliveries_claimed), whatever the backlog.
_HELD = (
    select(
        d.client_id, d.webhook_id, func.count(),
        func.sum(case((d.claim.like("%" + DEEP_MARK), 0), else_=1)),
    )
    .where(d.claim.is_not(None), d.state == PENDING, d.next_attempt_at > bindparam("now"))
    .group_by(d.client_id, d.webhook_id)
)

# PostgreSQL: each enabled endpoint's oldest due deliveries, at most its limit, by a range
# scan of ix_webhook_deliveries_endpoint_due per endpoint that stops there. The limit is the
# one given for the endpoint, else the least of the endpoint cap and its client's given
# limit (else the client cap).
_DUE_PG = text("""
SELECT w.client_id, w.id, q.event_id, q.next_attempt_at, q.sequence
  FROM webhooks AS w
  LEFT JOIN unnest(CAST(:e_id AS text[]), CAST(:e_limit AS int[])) AS e(id, n) ON e.id = w.id
  LEFT JOIN unnest(CAST(:c_id AS text[]), CAST(:c_limit AS int[])) AS c(id, n) ON c.id = w.client_id
 CROSS JOIN LATERAL (
       SELECT d.event_id, d.next_attempt_at, d.sequence
         FROM webhook_deliveries AS d
        WHERE d.client_id = w.client_id AND d.webhook_id = w.id
          AND d.state = 'pending' AND d.next_attempt_at <= :now
        ORDER BY d.next_attempt_at, d.sequence, d.event_id
        LIMIT GREATEST(0, COALESCE(e.n, LEAST(:per_endpoint, COALESCE(c.n, :per_client))))
       ) AS q
 WHERE w.enabled
""").bindparams(bindparam("now", type_=UTCDateTime())).columns(
    client_id=String, id=String, event_id=String, next_attempt_at=UTCDateTime(), sequence=BigInteger,
)

# SQLite (one dispatcher at a time, small): the endpoints, then each one's oldest due.
_ENABLED = select(w.client_id, w.id).where(w.enabled.is_(True))
_DUE_ONE = (
    select(d.event_id, d.next_attempt_at, d.sequence)
    .where(
        d.client_id == bindparam("client_id"), d.webhook_id == bindparam("webhook_id"),
        d.state == PENDING, d.next_attempt_at <= bindparam("now"),
    )
    .order_by(d.next_attempt_at, d.sequence, d.event_id)
    .limit(bindparam("n"))
)

_RETURNING = "d.webhook_id, d.event_id, d.client_id, d.sequence, d.event_type, d.attempts, d.claim"
# PostgreSQL: the chosen rows locked (SKIP LOCKED: another dispatcher's are left) and
# re-checked on the version the lock found: a row claimed meanwhile by a dispatcher that has
# since committed is no longer due, and left, so two dispatchers choosing the same oldest
# rows never both fill a slot. Each row is found by its primary key alone (a lookup per
# chosen row, LATERAL; OFFSET 0 keeps the due conditions from being pushed down beside the
# key) and updated by the tuple the lock found (its ctid): no plan here
# scans the queue, whatever the planner believes of the table's size. (Never analysed, it
# believed one row: it joined the whole queue against the chosen rows, 346 ms for 256 of
# 2,000, and with the due conditions beside the key it looked each row up by a range of
# the due index, 0.64 ms a row.)
_TAKE_PG = text(f"""
WITH locked AS MATERIALIZED (
  SELECT x.tid
    FROM unnest(CAST(:k_client AS text[]), CAST(:k_webhook AS text[]), CAST(:k_event AS text[]))
         AS k(client_id, webhook_id, event_id)
   CROSS JOIN LATERAL (
         SELECT d.ctid AS tid, d.state, d.next_attempt_at
           FROM webhook_deliveries AS d
          WHERE d.client_id = k.client_id AND d.webhook_id = k.webhook_id AND d.event_id = k.event_id
         OFFSET 0  -- the conditions below stay out here: judged on the version locked
            FOR UPDATE OF d SKIP LOCKED
         ) AS x
   WHERE x.state = 'pending' AND x.next_attempt_at <= :now
)
UPDATE webhook_deliveries AS d
   SET next_attempt_at = :lease_until,
       claim = CASE WHEN d.webhook_id = ANY(CAST(:deep AS text[])) THEN :deep_token ELSE :token END
 WHERE d.ctid = ANY(ARRAY(SELECT tid FROM locked))
RETURNING {_RETURNING}
""").bindparams(bindparam("now", type_=UTCDateTime()), bindparam("lease_until", type_=UTCDateTime()))
# SQLite: one claim per row (the lease keeps other dispatchers out).
_TAKE_ONE = (
    update(d)
    .where(
        d.client_id == bindparam("_client"), d.webhook_id == bindparam("_webhook"), d.event_id == bindparam("_event"),
        d.state == PENDING, d.next_attempt_at <= bindparam("_now"),
    )
    .values(next_attempt_at=bindparam("_lease"), claim=bindparam("_claim"))
    .returning(d.webhook_id, d.event_id, d.client_id, d.sequence, d.event_type, d.attempts, d.claim)
)


@dataclass(frozen=True, slots=True)
class _Due:
    client_id: str
    webhook_id: str
    event_id: str
    next_attempt_at: datetime
    sequence: int
    place: int  # 1 for the endpoint's oldest
    deep: bool


def _chosen(
    due: Sequence[_Due], limit: int, client_free: dict[tuple[str, bool], int]
) -> list[_Due]:
    """Within each client's free slots (a deep row's, or a plain row's), its endpoints' rows
    taken in turn (each endpoint's first, then each one's second...), and across clients
    the same: every client's first turn before anyone's second, up to `limit`."""
    by_client: dict[str, list[_Due]] = {}
    for row in due:
        by_client.setdefault(row.client_id, []).append(row)
    fits: list[tuple[int, int, datetime, _Due]] = []
    for client_id, rows in by_client.items():
        rows.sort(key=lambda r: (r.place, r.next_attempt_at, r.webhook_id))
        for turn, row in enumerate(rows, 1):
            if turn <= client_free[client_id, row.deep]:
                fits.append((turn, row.place, row.next_attempt_at, row))
    fits.sort(key=lambda f: f[:3])
    return [f[3] for f in fits[:limit]]


_mine = and_(
    d.client_id == bindparam("_client"),
    d.webhook_id == bindparam("_webhook"),
    d.event_id == bindparam("_event"),
    d.claim == bindparam("_claim"),
)
_FINISH = update(d).where(_mine).values(
    state=bindparam("_state"),
    attempts=bindparam("_attempts"),
    next_attempt_at=bindparam("_next"),
    last_status=bindparam("_status"),
    last_error=bindparam("_error"),
    claim=None,
)
# Delivered: the row goes (an UPDATE to 'delivered' wrote a new row version and its key's
# index entry for every event, and kept the row for ever).
_DELIVERED = delete(d).where(_mine)
# Claimed and never attempted (its endpoint turned slow, or the dispatcher stops): due again now.
_RELEASE = update(d).where(_mine).values(next_attempt_at=bindparam("_next"), claim=None)

# PostgreSQL: the deliveries of one endpoint and one claim, delivered, deleted by one
# statement (a pass's outcomes are mostly these), and a pass's attempts in one INSERT.
_DELIVERED_PG = text("""
DELETE FROM webhook_deliveries
 WHERE client_id = :client AND webhook_id = :webhook AND claim = :claim
   AND event_id = ANY(CAST(:events AS text[]))
""")
# PostgreSQL: a fan-out's new deliveries in one INSERT of arrays, not a statement a row (a
# backlog's fan-out queues thousands), each column in `_QUEUED`'s order; a delivery queued
# meanwhile (a redelivery) is left as it is.
_QUEUED = (
    ("webhook_id", "text"), ("event_id", "text"), ("client_id", "text"), ("sequence", "bigint"),
    ("event_type", "text"), ("event_at", "timestamptz"), ("state", "text"), ("attempts", "int"),
    ("next_attempt_at", "timestamptz"), ("claim", "text"), ("created_at", "timestamptz"),
)
_QUEUE_PG = text(
    f"INSERT INTO webhook_deliveries ({', '.join(c for c, _ in _QUEUED)})"
    f" SELECT * FROM unnest({', '.join(f'CAST(:{c} AS {t}[])' for c, t in _QUEUED)})"
    " ON CONFLICT DO NOTHING"
)
_ATTEMPTS_PG = text("""
INSERT INTO webhook_attempts (client_id, webhook_id, event_id, attempted_at, outcome, status_code, latency_ms, error)
SELECT a.client_id, a.webhook_id, a.event_id, COALESCE(a.started_at, :at), a.outcome, a.status_code,
       a.latency_ms, a.error
  FROM unnest(CAST(:clients AS text[]), CAST(:webhooks AS text[]), CAST(:events AS text[]),
              CAST(:starts AS timestamptz[]), CAST(:outcomes AS text[]), CAST(:codes AS int[]),
              CAST(:latencies AS int[]), CAST(:errors AS text[]))
    AS a(client_id, webhook_id, event_id, started_at, outcome, status_code, latency_ms, error)
""").bindparams(bindparam("at", type_=UTCDateTime()))

_endpoint = and_(w.client_id == bindparam("_client"), w.id == bindparam("_webhook"))
_RECOVERED = update(w).where(_endpoint, w.failing_since.is_not(None)).values(failing_since=None)
_FAILING = update(w).where(_endpoint, w.failing_since.is_(None)).values(failing_since=bindparam("_now"))
# Disabled when failing since `_since` or before: the endpoint an attempt just failed for,
# or (_DISABLE_OVERDUE) every one with no retry left to come; one with a delivery pending
# is disabled by that attempt's failure (or recovers by its success).
_DISABLE_FAILING = (
    update(w)
    .where(w.enabled.is_(True), w.failing_since <= bindparam("_since"))
    .values(enabled=False, disabled_reason=DisabledReason.FAILING.value, updated_at=bindparam("_now"))
    .returning(w.id)
)
_DISABLE = _DISABLE_FAILING.where(_endpoint)
_DISABLE_OVERDUE = _DISABLE_FAILING.where(
    ~exists().where(d.client_id == w.client_id, d.webhook_id == w.id, d.state == PENDING)
)


# Attempts past their retention (`WEBHOOK_ATTEMPTS_KEEP`). The endpoints whose oldest attempt
# is older (one probe of ix_webhook_attempts_webhook per endpoint; every attempt has its
# endpoint: a deleted endpoint's attempts go with it), then each one's oldest attempts by id,
# a batch at a time, by the same index. Ids follow the time an attempt was recorded, though
# not exactly across dispatchers: a batch deletes only those of its rows that are old, and
# an endpoint is done when a batch deleted fewer than it read.
_at = WebhookAttempt
_oldest_attempt = _first(_at.attempted_at, _at.id, w, _at.client_id == w.client_id, _at.webhook_id == w.id)
_EXPIRED = select(w.client_id, w.id).where(_oldest_attempt < bindparam("before")).order_by(w.client_id, w.id)
_PRUNE: dict[str, Executable] = {
    # PostgreSQL: the batch's tuples first (an InitPlan, naming the client), then each by its
    # tuple id (attempts are never updated). Joined to the batch, or asked for by `id =
    # ANY(...)` or with the client named again beside the tuple ids, the planner of a
    # never-analysed table read every attempt of the client and filtered them. Rows another
    # dispatcher's batch holds are skipped: it takes the next ones rather than wait for that
    # transaction (which its lock timeout ended in an error).
    "postgresql": text("""
DELETE FROM webhook_attempts
 WHERE ctid = ANY(ARRAY(SELECT a.ctid FROM webhook_attempts AS a
                         WHERE a.client_id = :client AND a.webhook_id = :webhook
                         ORDER BY a.id LIMIT :batch FOR UPDATE SKIP LOCKED))
   AND attempted_at < :before
RETURNING event_id
""").bindparams(bindparam("before", type_=UTCDateTime())),
    # SQLite: the batch's ids, each looked up as the rowid (with the client named again, the
    # client's every attempt was read and checked against the batch)
    "sqlite": delete(_at).where(
        _at.id.in_(
            select(_at.id)
            .where(_at.client_id == bindparam("client"), _at.webhook_id == bindparam("webhook"))
            .order_by(_at.id)
            .limit(bindparam("batch"))
        ),
        _at.attempted_at < bindparam("before"),
    ).returning(_at.event_id),
}
# A delivery failed for good goes with its last attempt: it was failed when that attempt
# was recorded (the same time), so it is past the retention with it; each by its key. One
# still pending (a disabled endpoint's) stays, whatever its attempts' age.
def _prune_failed(pg: bool) -> Any:
    events = (
        # an array literal (`pg_literals`): one parameter, not a statement rendered per count
        d.event_id == any_(cast(bindparam("events", type_=String), postgresql.ARRAY(String)))
        if pg else d.event_id.in_(bindparam("events", expanding=True))
    )
    return delete(d).where(
        d.client_id == bindparam("client"), d.webhook_id == bindparam("webhook"), events,
        d.state == FAILED, d.next_attempt_at < bindparam("before"),
    )


_PRUNE_FAILED = {"postgresql": _prune_failed(True), "sqlite": _prune_failed(False)}


# Endpoints deleted with a backlog (`WebhookRepository.remove`): every client's, few at a
# time. Each one's attempts, then its deliveries, a batch a transaction by its own index
# (PostgreSQL: by tuple id, skipping rows another dispatcher's batch holds, as `_PRUNE`),
# then its row once a batch found none of either.
# The condition as a literal, the partial index's own (ix_webhooks_deleted): a bound value
# cannot match it in a generic plan.
_DELETED_ENDPOINTS = select(w.client_id, w.id).where(text(f"disabled_reason = '{DisabledReason.DELETED.value}'"))
_PURGE: dict[str, tuple[Executable, Executable]] = {
    "postgresql": (
        text("""
DELETE FROM webhook_attempts
 WHERE ctid = ANY(ARRAY(SELECT a.ctid FROM webhook_attempts AS a
                         WHERE a.client_id = :client AND a.webhook_id = :webhook
                         LIMIT :batch FOR UPDATE SKIP LOCKED))
"""),
        text("""
DELETE FROM webhook_deliveries
 WHERE ctid = ANY(ARRAY(SELECT d.ctid FROM webhook_deliveries AS d
                         WHERE d.client_id = :client AND d.webhook_id = :webhook
                         LIMIT :batch FOR UPDATE SKIP LOCKED))
"""),
    ),
    "sqlite": (
        delete(_at).where(_at.id.in_(
            select(_at.id)
            .where(_at.client_id == bindparam("client"), _at.webhook_id == bindparam("webhook"))
            .limit(bindparam("batch"))
        )),
        delete(d).where(tuple_(d.client_id, d.webhook_id, d.event_id).in_(
            select(d.client_id, d.webhook_id, d.event_id)
            .where(d.client_id == bindparam("client"), d.webhook_id == bindparam("webhook"))
            .limit(bindparam("batch"))
        )),
    ),
}
# The row locked first, so the check below reads attempts a pass committed meanwhile: a
# pass keeps the row of an endpoint it records attempts for (`Pass.record`) until it commits.
_PURGING = select(w.id).where(_endpoint).with_for_update()
_PURGED = delete(w).where(
    _endpoint, w.disabled_reason == DisabledReason.DELETED.value,
    # none left, not even one another dispatcher's batch holds (that one deletes the row)
    ~exists().where(_at.client_id == w.client_id, _at.webhook_id == w.id),
    ~exists().where(d.client_id == w.client_id, d.webhook_id == w.id),
)


# What `prepare` reads for a claimed batch: the endpoints and the records, per client.
_TARGETS = select(*target_columns()).where(
    w.client_id == bindparam("client_id"), w.id.in_(bindparam("ids", expanding=True))
)


def _records(pg: bool) -> Any:
    """A claimed batch's records with their receipts and rounds' game, each looked up by key
    (`webhooks.RECORDS_BY_KEY`), in `stored_record`'s column order."""
    wanted = (
        ChainRecord.sequence == any_(bindparam("sequences", type_=postgresql.ARRAY(BigInteger)))
        if pg else ChainRecord.sequence.in_(bindparam("sequences", expanding=True))
    )
    return select(*RECORDS_BY_KEY).where(
        ChainRecord.client_id == bindparam("client_id"), wanted,
        # the range too: an index range of the batch, not of the client's whole chain
        ChainRecord.sequence >= bindparam("lo"), ChainRecord.sequence <= bindparam("hi"),
    )


_RECORDS = {"postgresql": _records(True), "sqlite": _records(False)}


def _said(error: str | None) -> str | None:
    """An attempt's error as stored: it may quote what a receiver sent (its reason phrase),
    NUL included, which PostgreSQL's text cannot hold (the pass recording it failed, and each
    after it). U+FFFD in its place, on every engine alike."""
    return error if error is None or "\x00" not in error else error.replace("\x00", "\ufffd")


def _keys(c: Claimed) -> dict[str, Any]:
    return {"_client": c.client_id, "_webhook": c.webhook_id, "_event": c.event_id, "_claim": c.claim}


class Pass:
    """The statements of one dispatcher transaction, on its connection."""

    def __init__(self, conn: Connection, dialect: str) -> None:
        self.conn = conn
        self.dialect = dialect
        self.resuming = 0  # endpoints enabled again with deliveries to resume (read with the fingerprint)

    def fingerprint(self) -> tuple[int, int, int]:
        """(sum of the chain heads' sequences of the clients with an enabled endpoint, enabled
        endpoints, sum of their cursors): heads only move forward, so an unchanged fingerprint
        means no such head moved and no endpoint was enabled, added or moved on since it was
        read. A client without one moves nothing: its rounds cost the dispatcher no fan-out."""
        row = self.conn.execute(_FINGERPRINT).one()
        self.resuming = int(row[3])
        return int(row[0]), int(row[1]), int(row[2])

    def resume(self, now: datetime, limit: int) -> int:
        """Of the endpoints enabled again, up to `limit` deliveries queued before that made
        due now with a fresh schedule; an endpoint with none left is done (its mark
        cleared, unless it was enabled again meanwhile). How many were made due."""
        made = 0
        for client_id, webhook_id, before in self.conn.execute(_RESUMING).all():
            keys = {"_client": client_id, "_webhook": webhook_id, "_before": before, "_now": now}
            for which in _TO_RESUME:
                if made < limit:
                    made += int(self.conn.execute(_RESUME[which], {**keys, "_n": limit - made}).rowcount)
            if made < limit:
                self.conn.execute(_RESUMED, keys)
        return made

    def lock_due(self, limit: int) -> list[FanoutTarget]:
        """Enabled endpoints behind their client's head, locked (SKIP LOCKED: another dispatcher
        queues the others), `limit` of them at random."""
        rows = self.conn.execute(_LOCK_DUE, {"limit": limit})
        return [FanoutTarget(r[0], r[1], int(r[2]), tuple(r[3])) for r in rows]

    def skipped(self, locked: int) -> bool:
        """Whether `lock_due`, which locked `locked` endpoints (short of its limit), skipped
        some that another transaction holds (PostgreSQL; SQLite never skips)."""
        if self.dialect != "postgresql":
            return False
        return int(self.conn.execute(_BEHIND).scalar_one()) > locked

    def event_keys(self, client_id: str, from_sequence: int, limit: int) -> list[EventKey]:
        """The client's records from `from_sequence` on, oldest first, as event keys: their
        bytes are not read (nor parsed) here, only where an event is rendered."""
        rows = self.conn.execute(
            _EVENT_KEYS,
            {"client_id": client_id, "from_sequence": from_sequence, "until": from_sequence + limit, "limit": limit},
        )
        out = []
        row: Any
        for row in rows:
            sequence, kind, round_id, game, at = int(row[0]), str(row[1]), str(row[2]), row[3], row[4]
            if at is None:
                canonical = self.conn.scalar(_CANONICAL, {"client_id": client_id, "sequence": sequence})
                at = record_time(bytes(canonical or b"{}"))
            out.append(EventKey(sequence, kind, round_id, game, at))
        return out

    def queue(self, rows: Sequence[dict[str, Any]]) -> None:
        """New deliveries; one queued meanwhile (a redelivery) is left as it is."""
        if not rows:
            return
        if self.dialect == "postgresql":
            self.conn.execute(_QUEUE_PG, {c: [r[c] for r in rows] for c, _ in _QUEUED})
            return
        self.conn.execute(sqlite.insert(d).on_conflict_do_nothing(), list(rows))

    def advance(self, cursors: Sequence[tuple[str, str, int]]) -> None:
        """Each (client, endpoint, cursor): the endpoint's deliveries are queued up to it."""
        if cursors:
            self.conn.execute(_ADVANCE, [{"_client": c, "_webhook": e, "_cursor": s} for c, e, s in cursors])

    def claim(
        self, now: datetime, lease_until: datetime, token: str, limit: int,
        per_endpoint: int, per_client: int, deep: Sequence[str] = (), depth: int = 1,
    ) -> list[Claimed]:
        """Up to `limit` due deliveries of enabled endpoints, claimed until `lease_until`
        under `token`, giving no endpoint more than its free slots (its cap less its
        deliveries held now by any dispatcher: claimed, their lease not ended) nor a client
        more than its own; each endpoint's oldest due first, the slots shared round-robin
        across a client's endpoints and across clients.

        An endpoint in `deep` (this dispatcher has seen it answer fast) has its cap, and its
        client's, times `depth`: those wait in the dispatcher's lane behind its attempts in
        flight, which stay at the plain caps. Deep claims are marked (`<token>:deep`) and
        plain ones meet the plain caps less the plain claims held, so one dispatcher's deep
        claims never keep another from its plain share of an endpoint.

        Three statements, none ranking the backlog: the claims held now (from the index of
        claimed rows), each endpoint's oldest due rows up to its free slots (a range scan per
        endpoint that stops there), then the chosen rows locked and claimed."""
        deep_set = set(deep)
        held: dict[tuple[str, str], tuple[int, int]] = {}
        client_held: dict[str, tuple[int, int]] = {}
        row: Any
        for row in self.conn.execute(_HELD, {"now": now}):
            client_id, webhook_id, n, plain = str(row[0]), str(row[1]), int(row[2]), int(row[3])
            held[client_id, webhook_id] = (n, plain)
            all_, plain_ = client_held.get(client_id, (0, 0))
            client_held[client_id] = (all_ + n, plain_ + plain)

        def free(cap: int, counts: tuple[int, int], is_deep: bool) -> int:
            n, plain = counts
            return max(cap * depth - n, cap - plain) if is_deep else cap - plain

        def client_free(client_id: str, is_deep: bool) -> int:
            return free(per_client, client_held.get(client_id, (0, 0)), is_deep)

        due: list[_Due] = []
        if self.dialect == "postgresql":
            # An endpoint held or deep has a limit of its own (its free slots, within its
            # client's when known); the others take the least of the caps left.
            limits: dict[str, int] = {}
            for (client_id, webhook_id), counts in held.items():
                is_deep = webhook_id in deep_set
                limits[webhook_id] = min(free(per_endpoint, counts, is_deep), client_free(client_id, is_deep))
            for webhook_id in deep_set - set(limits):
                limits[webhook_id] = free(per_endpoint, (0, 0), True)
            rows = self.conn.execute(_DUE_PG, {
                "now": now, "per_endpoint": per_endpoint, "per_client": per_client,
                "e_id": list(limits), "e_limit": list(limits.values()),
                "c_id": list(client_held), "c_limit": [client_free(c, False) for c in client_held],
            }).all()
            places: dict[tuple[str, str], int] = {}
            for row in rows:
                key = (str(row[0]), str(row[1]))
                places[key] = places.get(key, 0) + 1
                due.append(_Due(key[0], key[1], row[2], row[3], int(row[4]), places[key], key[1] in deep_set))
        else:
            for client_id, webhook_id in self.conn.execute(_ENABLED).all():
                is_deep = webhook_id in deep_set
                n = min(free(per_endpoint, held.get((client_id, webhook_id), (0, 0)), is_deep),
                        client_free(client_id, is_deep))
                if n <= 0:
                    continue
                found = self.conn.execute(
                    _DUE_ONE, {"client_id": client_id, "webhook_id": webhook_id, "now": now, "n": n}
                ).all()
                for place, (event_id, at, sequence) in enumerate(found, 1):
                    due.append(_Due(client_id, webhook_id, event_id, at, int(sequence), place, is_deep))
        if not due:
            return []
        frees = {(c, k): client_free(c, k) for c in {r.client_id for r in due} for k in (False, True)}
        chosen = _chosen(due, limit, frees)
        if not chosen:
            return []
        deep_token = token + DEEP_MARK
        if self.dialect == "postgresql":
            rows = self.conn.execute(_TAKE_PG, {
                "k_client": [r.client_id for r in chosen], "k_webhook": [r.webhook_id for r in chosen],
                "k_event": [r.event_id for r in chosen], "now": now, "lease_until": lease_until,
                "deep": sorted(deep_set), "token": token, "deep_token": deep_token,
            }).all()
            taken = [Claimed(r[0], r[1], r[2], int(r[3]), r[4], int(r[5]), r[6]) for r in rows]
        else:
            taken = []
            for r in chosen:
                row = self.conn.execute(_TAKE_ONE, {
                    "_client": r.client_id, "_webhook": r.webhook_id, "_event": r.event_id, "_now": now,
                    "_lease": lease_until, "_claim": deep_token if r.deep else token,
                }).first()
                if row is not None:
                    taken.append(Claimed(row[0], row[1], row[2], int(row[3]), row[4], int(row[5]), str(row[6])))
        return sorted(taken, key=lambda c: (c.client_id, c.sequence, c.event_id))

    def record(
        self, attempted_at: datetime, attempts: Sequence[AttemptRow], finishes: Sequence[Finish],
        released: Sequence[Claimed],
    ) -> None:
        """Each attempt (of an endpoint not deleted meanwhile: it took its attempts with it),
        each delivery's new state (if its claim still holds it), and each claimed delivery
        never attempted, due again at `attempted_at`."""
        # Of the endpoints still there (one deleted meanwhile took its attempts), their rows
        # kept (KEY SHARE) until this commits: a DELETE or purge of one waits, then finds and
        # deletes these attempts too. Unlocked, one committed between this read and the
        # INSERT, and the attempts outlived their endpoint (retention starts from endpoints).
        if attempts:
            endpoints = {(a.claimed.client_id, a.claimed.webhook_id) for a in attempts}
            alive = {(str(r[0]), str(r[1])) for r in self.conn.execute(select(w.client_id, w.id).where(
                w.client_id.in_(sorted({c for c, _ in endpoints})), w.id.in_(sorted({e for _, e in endpoints})),
            ).with_for_update(read=True, key_share=True))}
            attempts = [a for a in attempts if (a.claimed.client_id, a.claimed.webhook_id) in alive]
        if attempts and self.dialect == "postgresql":
            self.conn.execute(_ATTEMPTS_PG, {
                "at": attempted_at,
                "clients": [a.claimed.client_id for a in attempts], "webhooks": [a.claimed.webhook_id for a in attempts],
                "events": [a.claimed.event_id for a in attempts], "starts": [a.started_at for a in attempts],
                "outcomes": [a.outcome for a in attempts],
                "codes": [a.status_code for a in attempts], "latencies": [a.latency_ms for a in attempts],
                "errors": [_said(a.error) for a in attempts],
            })
        elif attempts:
            self.conn.execute(WebhookAttempt.__table__.insert(), [  # type: ignore[attr-defined]
                {
                    "client_id": a.claimed.client_id, "webhook_id": a.claimed.webhook_id, "event_id": a.claimed.event_id,
                    "attempted_at": a.started_at or attempted_at, "outcome": a.outcome, "status_code": a.status_code,
                    "latency_ms": a.latency_ms, "error": _said(a.error),
                }
                for a in attempts
            ])
        delivered = [f.claimed for f in finishes if f.state == DELIVERED]
        finishes = [f for f in finishes if f.state != DELIVERED]
        if delivered and self.dialect == "postgresql":
            groups: dict[tuple[str, str, str], list[str]] = {}
            for c in delivered:
                groups.setdefault((c.client_id, c.webhook_id, c.claim), []).append(c.event_id)
            for (client_id, webhook_id, claim), event_ids in groups.items():
                self.conn.execute(_DELIVERED_PG, {
                    "client": client_id, "webhook": webhook_id, "claim": claim, "events": event_ids,
                })
        elif delivered:
            self.conn.execute(_DELIVERED, [_keys(c) for c in delivered])
        if finishes:
            self.conn.execute(_FINISH, [
                {
                    **_keys(f.claimed), "_state": f.state, "_attempts": f.claimed.attempts + 1, "_next": f.next_attempt_at,
                    "_status": f.last_status, "_error": _said(f.last_error),
                }
                for f in finishes
            ])
        self.defer(released, attempted_at)

    def drop(self, claims: Sequence[Claimed]) -> None:
        """Claimed deliveries never to be attempted (their endpoint no longer takes their
        event's type): deleted, while their claims hold them."""
        if claims:
            self.conn.execute(_DELIVERED, [_keys(c) for c in claims])

    def defer(self, claims: Sequence[Claimed], until: datetime) -> None:
        """Claimed deliveries not attempted, due again at `until`."""
        if claims:
            self.conn.execute(_RELEASE, [{**_keys(c), "_next": until} for c in claims])

    def endpoints(
        self, now: datetime, since: datetime, recovered: Sequence[tuple[str, str]], failing: Sequence[tuple[str, str]]
    ) -> list[str]:
        """Endpoints that answered 2xx are failing no more; those that failed are failing from
        `now` unless already, and disabled if failing since `since` or before: their ids."""
        if recovered:
            self.conn.execute(_RECOVERED, [{"_client": c, "_webhook": e} for c, e in recovered])
        disabled: list[str] = []
        for client_id, webhook_id in sorted(failing):
            keys = {"_client": client_id, "_webhook": webhook_id}
            self.conn.execute(_FAILING, {**keys, "_now": now})
            disabled.extend(self.conn.scalars(_DISABLE, {**keys, "_now": now, "_since": since}))
        return disabled


class Reads:
    """The reads of a claimed batch, on a connection of their own (no ORM session)."""

    def __init__(self, conn: Connection, dialect: str) -> None:
        self.conn = conn
        self.dialect = dialect

    def targets(self, webhooks: Iterable[tuple[str, str]]) -> dict[str, Target]:
        """Where and how to send deliveries now, by endpoint; one deleted meanwhile is absent."""
        by_client: dict[str, set[str]] = {}
        for client_id, webhook_id in webhooks:
            by_client.setdefault(client_id, set()).add(webhook_id)
        out: dict[str, Target] = {}
        for client_id, ids in by_client.items():
            for row in self.conn.execute(_TARGETS, {"client_id": client_id, "ids": sorted(ids)}):
                out[row[0]] = Target.of_row(row)
        return out

    def signs(self, client_id: str) -> bool:
        """Whether the client's records are being signed: its chain's last write was made
        with a signing key (on PostgreSQL; SQLite stores a receipt with its record)."""
        return bool(self.conn.execute(_SIGNING, {"client_id": client_id}).scalar())

    def records_at(self, client_id: str, sequences: Iterable[int]) -> dict[int, EventRecord]:
        """The records at these sequences of the client's chain, with their rounds' game."""
        wanted = sorted(set(sequences))
        if not wanted:
            return {}
        rows = self.conn.execute(
            _RECORDS[self.dialect], {"client_id": client_id, "sequences": wanted, "lo": wanted[0], "hi": wanted[-1]}
        )
        return {int(row[0]): EventRecord(stored_record(row), row[8]) for row in rows}


class DeliveryQueue:
    """Write transactions for the dispatcher on `engine` (IMMEDIATE on SQLite)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine.execution_options(capsa_write=True)
        self.reader = engine
        self.dialect = engine.dialect.name

    @contextlib.contextmanager
    def reads(self) -> Iterator[Reads]:
        """A read-only transaction for what a claimed batch needs."""
        with translated(), self.reader.connect() as conn:
            yield Reads(conn, self.dialect)

    def expired_endpoints(self, before: datetime) -> list[tuple[str, str]]:
        """The endpoints (client, id) whose oldest attempt was recorded before `before`."""
        with translated(), self.reader.connect() as conn:
            return [(str(r[0]), str(r[1])) for r in conn.execute(_EXPIRED, {"before": before})]

    def prune_endpoint(self, client_id: str, webhook_id: str, before: datetime, batch: int) -> tuple[int, int]:
        """Delete, in one transaction, those of the endpoint's `batch` oldest attempts that
        were recorded before `before`, and the deliveries of their events that failed for
        good before it: how many of each. Fewer attempts than `batch`: none of its old ones
        is left before a newer one, but those another dispatcher's batch holds (PostgreSQL:
        skipped, not waited for; that dispatcher deletes them)."""
        keys = {"client": client_id, "webhook": webhook_id, "before": before}
        with translated(), self.engine.begin() as conn:
            events = [str(e) for e in conn.scalars(_PRUNE[self.dialect], {**keys, "batch": batch})]  # one an attempt
            wanted = sorted(set(events))
            failed = conn.execute(_PRUNE_FAILED[self.dialect], {
                **keys, "events": text_array(wanted) if self.dialect == "postgresql" else wanted,
            }).rowcount if events else 0
        return len(events), int(failed)

    def deleted_endpoints(self) -> list[tuple[str, str]]:
        """The endpoints (client, id) deleted whose backlog is still to delete."""
        with translated(), self.reader.connect() as conn:
            return [(str(r[0]), str(r[1])) for r in conn.execute(_DELETED_ENDPOINTS)]

    def purge_deleted(self, client_id: str, webhook_id: str, batch: int) -> tuple[int, bool]:
        """Delete, in one transaction, up to `batch` of a deleted endpoint's attempts and as
        many of its deliveries, and its row once none of either is left: how many rows went,
        and whether the endpoint is gone."""
        keys = {"client": client_id, "webhook": webhook_id, "batch": batch}
        attempts, deliveries = _PURGE[self.dialect]
        with translated(), self.engine.begin() as conn:
            gone = int(conn.execute(attempts, keys).rowcount) + int(conn.execute(deliveries, keys).rowcount)
            if gone:
                return gone, False
            conn.execute(_PURGING, {"_client": client_id, "_webhook": webhook_id})
            done = conn.execute(_PURGED, {"_client": client_id, "_webhook": webhook_id}).rowcount
        return gone, bool(done)

    def disable_overdue(self, now: datetime, since: datetime) -> list[str]:
        """Disable every endpoint failing since `since` or before: their ids."""
        with translated(), self.engine.begin() as conn:
            return [str(i) for i in conn.scalars(_DISABLE_OVERDUE, {"_now": now, "_since": since})]

    @contextlib.contextmanager
    def pass_(self) -> Iterator[Pass]:
        """One transaction: committed when the block ends, rolled back if it raises (driver
        errors leave as adapter errors)."""
        with translated(), self.engine.begin() as conn:
            yield Pass(conn, self.dialect)


__all__ = ["DELIVERED", "FAILED", "PENDING", "AttemptRow", "Claimed", "DeliveryQueue", "EventKey", "FanoutTarget",
           "Finish", "Pass", "Reads"]
