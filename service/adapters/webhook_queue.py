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
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson
from sqlalchemy import Connection, Engine, and_, bindparam, case, func, literal_column, select, update
from sqlalchemy.dialects import postgresql, sqlite

from .models import ChainHead, ChainRecord, LedgerLine, Round, Webhook, WebhookAttempt, WebhookDelivery
from .translate import translated
from .webhooks import DELIVERED, FAILED, PENDING, Claimed

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
    """A claimed delivery's new state after an attempt."""

    claimed: Claimed
    state: str
    next_attempt_at: datetime
    delivered_at: datetime | None
    last_status: int | None
    last_error: str | None


@dataclass(frozen=True, slots=True)
class AttemptRow:
    claimed: Claimed
    outcome: str
    status_code: int | None
    latency_ms: int
    error: str | None


# -- statements, built once ---------------------------------------------------------------------

_FINGERPRINT = select(
    select(func.coalesce(func.sum(ChainHead.sequence), 0)).scalar_subquery(),
    select(func.count()).where(w.enabled.is_(True)).scalar_subquery(),
    select(func.coalesce(func.sum(w.cursor), 0)).where(w.enabled.is_(True)).scalar_subquery(),
)

_LOCK_DUE = (
    select(w.client_id, w.id, w.cursor, w.events)
    .join(ChainHead, ChainHead.client_id == w.client_id)
    .where(w.enabled.is_(True), w.cursor < ChainHead.sequence)
    .order_by(w.cursor)
    .limit(bindparam("limit"))
    .with_for_update(skip_locked=True, of=w)
)

_line0 = and_(
    LedgerLine.client_id == ChainRecord.client_id,
    LedgerLine.sequence == ChainRecord.sequence,
    LedgerLine.line_no == literal_column("0"),
)
_round = and_(
    Round.client_id == ChainRecord.client_id, Round.id == ChainRecord.round_id, ChainRecord.kind == literal_column("'round'")
)
_EVENT_KEYS = (
    select(ChainRecord.sequence, ChainRecord.kind, ChainRecord.round_id, Round.game, LedgerLine.created_at)
    .select_from(ChainRecord)
    .outerjoin(Round, _round)
    .outerjoin(LedgerLine, _line0)
    .where(ChainRecord.client_id == bindparam("client_id"), ChainRecord.sequence >= bindparam("from_sequence"))
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


def _greater(a: Any, b: Any) -> Any:
    return case((a > b, a), else_=b)


def _free(deep: Any, cap: Any, depth: Any, held: Any) -> Any:
    """A row's free slots under `cap`: a plain row's, the cap less the plain claims held; a
    deep row's, the most of that and the deep cap (`cap` x `depth`) less all claims held."""
    plain = cap - func.coalesce(held.c.plain, 0)
    return case((deep == 1, _greater(cap * depth - func.coalesce(held.c.n, 0), plain)), else_=plain)


def _claim_statement() -> Any:
    """Up to `limit` due deliveries of enabled endpoints, claimed until `lease_until` under
    `token`, in one statement that gives no endpoint more than its free slots (its cap less
    its deliveries held now by any dispatcher: claimed, their lease not ended) nor a client
    more than its own; each endpoint's oldest due first, the slots shared round-robin across
    a client's endpoints and across clients.

    An endpoint in `deep` (this dispatcher has seen it answer fast) has its cap, and its
    client's, times `depth`: those wait in the dispatcher's lane behind its attempts in
    flight, which stay at the plain caps. Deep claims are marked (`<token>:deep`) and plain
    ones meet the plain caps less the plain claims held, so one dispatcher's deep claims
    never keep another from its plain share of an endpoint (a fast one: each dispatcher
    then has the plain caps in flight at most; a failing one holds no deep claim for long,
    as its first failure sends the rest of its lane back)."""
    now: Any = bindparam("now")
    deep: Any = bindparam("deep", expanding=True)
    per_endpoint: Any = bindparam("per_endpoint")
    per_client: Any = bindparam("per_client")
    depth: Any = bindparam("depth")
    held = and_(d.state == PENDING, d.claim.is_not(None), d.next_attempt_at > now)
    plain_held = func.sum(case((d.claim.like("%" + DEEP_MARK), 0), else_=1))
    endpoint_held = (
        select(d.webhook_id.label("webhook_id"), func.count().label("n"), plain_held.label("plain"))
        .where(held).group_by(d.webhook_id).subquery("endpoint_held")
    )
    client_held = (
        select(d.client_id.label("client_id"), func.count().label("n"), plain_held.label("plain"))
        .where(held).group_by(d.client_id).subquery("client_held")
    )
    queued = (
        select(
            d.webhook_id, d.event_id, d.client_id, d.next_attempt_at,
            case((d.webhook_id.in_(deep), 1), else_=0).label("deep"),
            func.row_number()
            .over(partition_by=d.webhook_id, order_by=(d.next_attempt_at, d.sequence, d.event_id))
            .label("place"),
        )
        .join(w, and_(w.client_id == d.client_id, w.id == d.webhook_id))
        .where(d.state == PENDING, d.next_attempt_at <= now, w.enabled.is_(True))
        .subquery("queued")
    )
    endpoint_free = _free(queued.c.deep, per_endpoint, depth, endpoint_held)
    fits = (
        select(
            queued.c.webhook_id, queued.c.event_id, queued.c.client_id, queued.c.place, queued.c.next_attempt_at,
            queued.c.deep,
            func.row_number()
            .over(partition_by=queued.c.client_id, order_by=(queued.c.place, queued.c.next_attempt_at, queued.c.webhook_id))
            .label("turn"),
        )
        .outerjoin(endpoint_held, endpoint_held.c.webhook_id == queued.c.webhook_id)
        .where(queued.c.place <= endpoint_free)
        .subquery("fits")
    )
    client_free = _free(fits.c.deep, per_client, depth, client_held)
    chosen = (
        select(fits.c.client_id, fits.c.webhook_id, fits.c.event_id)
        .outerjoin(client_held, client_held.c.client_id == fits.c.client_id)
        .where(fits.c.turn <= client_free)
        .order_by(fits.c.turn, fits.c.place, fits.c.next_attempt_at)
        .limit(bindparam("limit"))
        .cte("chosen")
        .prefix_with("MATERIALIZED")
    )
    # Joined on the key, from the few chosen rows (never a scan of the queue per row, whatever
    # the planner believes of the table's size). Locked rows are skipped, and a row claimed
    # meanwhile by a dispatcher that has since committed is re-read (PostgreSQL re-checks the
    # row's own conditions): no longer due, it is left out, so two dispatchers never both fill
    # an endpoint's slots.
    locked = (
        select(d.client_id, d.webhook_id, d.event_id)
        .join(chosen, and_(
            d.client_id == chosen.c.client_id, d.webhook_id == chosen.c.webhook_id, d.event_id == chosen.c.event_id
        ))
        .where(d.state == PENDING, d.next_attempt_at <= now)
        .with_for_update(skip_locked=True, of=d)
        .cte("locked")
    )
    return (
        update(d)
        .where(
            d.client_id == locked.c.client_id, d.webhook_id == locked.c.webhook_id, d.event_id == locked.c.event_id,
            d.state == PENDING, d.next_attempt_at <= now,
        )
        .values(
            next_attempt_at=bindparam("lease_until"),
            claim=case((d.webhook_id.in_(deep), bindparam("deep_token")), else_=bindparam("token")),
        )
        .returning(d.webhook_id, d.event_id, d.client_id, d.sequence, d.event_type, d.attempts, d.claim)
    )


_CLAIM = _claim_statement()

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
    delivered_at=bindparam("_delivered"),
    last_status=bindparam("_status"),
    last_error=bindparam("_error"),
    claim=None,
)
# Claimed and never attempted (its endpoint turned slow, or the dispatcher stops): due again now.
_RELEASE = update(d).where(_mine).values(next_attempt_at=bindparam("_next"), claim=None)

_endpoint = and_(w.client_id == bindparam("_client"), w.id == bindparam("_webhook"))
_RECOVERED = update(w).where(_endpoint, w.failing_since.is_not(None)).values(failing_since=None)
_FAILING = update(w).where(_endpoint, w.failing_since.is_(None)).values(failing_since=bindparam("_now"))
_DISABLE = (
    update(w)
    .where(_endpoint, w.enabled.is_(True), w.failing_since <= bindparam("_since"))
    .values(enabled=False, disabled_reason="failing", updated_at=bindparam("_now"))
    .returning(w.id)
)


def _keys(c: Claimed) -> dict[str, Any]:
    return {"_client": c.client_id, "_webhook": c.webhook_id, "_event": c.event_id, "_claim": c.claim}


class Pass:
    """The statements of one dispatcher transaction, on its connection."""

    def __init__(self, conn: Connection, dialect: str) -> None:
        self.conn = conn
        self.dialect = dialect

    def fingerprint(self) -> tuple[int, int, int]:
        """(sum of every chain head's sequence, enabled endpoints, sum of their cursors): heads
        only move forward, so an unchanged fingerprint means no head moved and no endpoint was
        enabled, added or moved on since it was read."""
        row = self.conn.execute(_FINGERPRINT).one()
        return int(row[0]), int(row[1]), int(row[2])

    def lock_due(self, limit: int) -> list[FanoutTarget]:
        """Enabled endpoints behind their client's head, locked (SKIP LOCKED: another dispatcher
        queues the others), the furthest behind first."""
        rows = self.conn.execute(_LOCK_DUE, {"limit": limit})
        return [FanoutTarget(r[0], r[1], int(r[2]), tuple(r[3])) for r in rows]

    def event_keys(self, client_id: str, from_sequence: int, limit: int) -> list[EventKey]:
        """The client's records from `from_sequence` on, oldest first, as event keys: their
        bytes are not read (nor parsed) here, only where an event is rendered."""
        rows = self.conn.execute(_EVENT_KEYS, {"client_id": client_id, "from_sequence": from_sequence, "limit": limit})
        out = []
        for sequence, kind, round_id, game, at in rows:
            if at is None:
                canonical = self.conn.scalar(_CANONICAL, {"client_id": client_id, "sequence": sequence})
                at = datetime.fromisoformat(str(orjson.loads(canonical)["created_at"]).replace("Z", "+00:00"))
            out.append(EventKey(int(sequence), str(kind), str(round_id), game, at))
        return out

    def queue(self, rows: Sequence[dict[str, Any]]) -> None:
        """New deliveries; one queued meanwhile (a redelivery) is left as it is."""
        if not rows:
            return
        insert = (postgresql.insert if self.dialect == "postgresql" else sqlite.insert)(d)
        self.conn.execute(insert.on_conflict_do_nothing(), list(rows))

    def advance(self, cursors: Sequence[tuple[str, str, int]]) -> None:
        """Each (client, endpoint, cursor): the endpoint's deliveries are queued up to it."""
        if cursors:
            self.conn.execute(_ADVANCE, [{"_client": c, "_webhook": e, "_cursor": s} for c, e, s in cursors])

    def claim(
        self, now: datetime, lease_until: datetime, token: str, limit: int,
        per_endpoint: int, per_client: int, deep: Sequence[str] = (), depth: int = 1,
    ) -> list[Claimed]:
        rows = self.conn.execute(_CLAIM, {
            "now": now, "lease_until": lease_until, "token": token, "deep_token": token + DEEP_MARK, "limit": limit, "per_endpoint": per_endpoint,
            "per_client": per_client, "deep": list(deep), "depth": depth,
        }).all()
        rows = sorted(rows, key=lambda r: (r[2], int(r[3]), r[1]))
        return [Claimed(r[0], r[1], r[2], int(r[3]), r[4], int(r[5]), r[6]) for r in rows]

    def record(
        self, attempted_at: datetime, attempts: Sequence[AttemptRow], finishes: Sequence[Finish],
        released: Sequence[Claimed],
    ) -> None:
        """Each attempt, each delivery's new state (if its claim still holds it), and each
        claimed delivery never attempted, due again at `attempted_at`."""
        if attempts:
            self.conn.execute(WebhookAttempt.__table__.insert(), [  # type: ignore[attr-defined]
                {
                    "client_id": a.claimed.client_id, "webhook_id": a.claimed.webhook_id, "event_id": a.claimed.event_id,
                    "attempted_at": attempted_at, "outcome": a.outcome, "status_code": a.status_code,
                    "latency_ms": a.latency_ms, "error": a.error,
                }
                for a in attempts
            ])
        if finishes:
            self.conn.execute(_FINISH, [
                {
                    **_keys(f.claimed), "_state": f.state, "_attempts": f.claimed.attempts + 1, "_next": f.next_attempt_at,
                    "_delivered": f.delivered_at, "_status": f.last_status, "_error": f.last_error,
                }
                for f in finishes
            ])
        if released:
            self.conn.execute(_RELEASE, [{**_keys(c), "_next": attempted_at} for c in released])

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


class DeliveryQueue:
    """Write transactions for the dispatcher on `engine` (IMMEDIATE on SQLite)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine.execution_options(capsa_write=True)
        self.dialect = engine.dialect.name

    @contextlib.contextmanager
    def pass_(self) -> Iterator[Pass]:
        """One transaction: committed when the block ends, rolled back if it raises (driver
        errors leave as adapter errors)."""
        with translated(), self.engine.begin() as conn:
            yield Pass(conn, self.dialect)


__all__ = ["DELIVERED", "FAILED", "PENDING", "AttemptRow", "Claimed", "DeliveryQueue", "EventKey", "FanoutTarget",
           "Finish", "Pass"]
