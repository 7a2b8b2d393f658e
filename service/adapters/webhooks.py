"""Webhook endpoints, the events they are sent (chain records), deliveries and attempts.

Events are read straight from `chain_records`: the record is the outbox row, written by
the round's one write. The dispatcher's state is per (endpoint, event): it queues
deliveries from an endpoint's `cursor` on, claims the due ones (FOR UPDATE SKIP LOCKED on
PostgreSQL, so dispatchers share the work; SQLite renders no lock clause, and its one
active dispatcher holds the lease in `dispatcher_leases`), and records each attempt.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, fields
from datetime import datetime
from typing import Any

from sqlalchemy import and_, delete, func, insert, literal_column, or_, select, tuple_, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.orm import Session

from service.domain.audit import RecordKind
from service.domain.banting.rules import BANTING
from service.domain.webhooks import DeliveryState, DisabledReason

from .chain import RECORD_COLUMNS, RECORD_COLUMNS_BY_KEY, stored_record, with_receipt
from .models import (
    ChainRecord,
    DispatcherLease,
    Round,
    Webhook,
    WebhookAttempt,
    WebhookDelivery,
    is_void,
)
from .records import StoredRecord

PENDING, DELIVERED, FAILED = DeliveryState.PENDING, DeliveryState.DELIVERED, DeliveryState.FAILED

_WEBHOOKS = Webhook.__table__
# What the API shows: an endpoint deleted whose backlog the dispatchers still delete is gone.
_NOT_DELETED = or_(_WEBHOOKS.c.disabled_reason.is_(None), _WEBHOOKS.c.disabled_reason != DisabledReason.DELETED.value)
# An endpoint as read: every column but `resume_before`, which only the dispatcher reads (so
# this version also reads a database not yet at migration 0022).
_WEBHOOK_COLUMNS = [c for c in _WEBHOOKS.c if c.name != "resume_before"]
_ATTEMPTS = WebhookAttempt.__table__


@dataclass(frozen=True, slots=True)
class WebhookRecord:
    """A stored endpoint (`webhooks` columns): where it sends, the event types it takes,
    its secrets, whether it is enabled, and the dispatcher's cursor and failure mark."""

    id: str
    client_id: str
    url: str
    events: tuple[str, ...]
    description: str | None
    enabled: bool
    disabled_reason: str | None
    secret: str
    previous_secret: str | None
    previous_secret_until: datetime | None
    cursor: int
    failing_since: datetime | None
    created_at: datetime
    updated_at: datetime

    def columns(self) -> dict[str, Any]:
        values = asdict(self)
        values["events"] = list(self.events)
        return values


_WEBHOOK_FIELDS = tuple(f.name for f in fields(WebhookRecord))


def _webhook(row: RowMapping) -> WebhookRecord:
    values = {name: row[name] for name in _WEBHOOK_FIELDS}
    values["events"] = tuple(row["events"])
    return WebhookRecord(**values)


@dataclass(frozen=True, slots=True)
class AttemptRecord:
    """One HTTP attempt of a delivery, as `GET /v1/webhooks/{id}/deliveries` lists it."""

    id: int
    event_id: str
    attempted_at: datetime
    outcome: str
    status_code: int | None
    latency_ms: int
    error: str | None


@dataclass(frozen=True, slots=True)
class EventRecord:
    """A chain record that announces events, with its round's game (rounds only)."""

    record: StoredRecord
    game: str | None


@dataclass(frozen=True, slots=True)
class Claimed:
    """A delivery a dispatcher holds until `lease_until`, under `claim`."""

    webhook_id: str
    event_id: str
    client_id: str
    sequence: int
    event_type: str
    attempts: int
    claim: str


@dataclass(frozen=True, slots=True)
class Target:
    id: str
    url: str
    enabled: bool
    secret: str
    previous_secret: str | None
    previous_secret_until: datetime | None
    failing_since: datetime | None
    events: tuple[str, ...]  # the event types it takes now (`*`: all)

    @classmethod
    def of_row(cls, row: Sequence[Any]) -> Target:
        """From a row of `target_columns()`, in their order (`events` is a JSON list)."""
        return cls(row[0], row[1], row[2], row[3], row[4], row[5], row[6], tuple(row[7]))


def target_columns() -> tuple[Any, ...]:
    """What a delivery needs of its endpoint, in `Target`'s order."""
    return (Webhook.id, Webhook.url, Webhook.enabled, Webhook.secret, Webhook.previous_secret,
            Webhook.previous_secret_until, Webhook.failing_since, Webhook.events)


def _round_of_record() -> Any:
    """A round record's round row (of the same client)."""
    return and_(Round.client_id == ChainRecord.client_id, Round.id == ChainRecord.round_id, ChainRecord.kind == RecordKind.ROUND)


# A record's round's game looked up by key, per record. With the receipt's columns
# (`RECORD_COLUMNS_BY_KEY`): a page of records read from a sequence on costs a look-up per
# record whatever the planner knows of the tables. Joined instead, a database never analysed
# (a new one, or tables below their analyze thresholds) read every round of the client and
# compared each with every record of the page: 360 ms for 100 events from record 19,000 of
# 20,000, growing with the chain.
GAME_BY_KEY = select(Round.game).where(_round_of_record()).correlate(ChainRecord).scalar_subquery()
RECORDS_BY_KEY = (*RECORD_COLUMNS_BY_KEY, GAME_BY_KEY)


class WebhookRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    # -- endpoints -------------------------------------------------------------------------

    def add(self, webhook: WebhookRecord) -> None:
        self.session.execute(insert(Webhook).values(webhook.columns()))

    def count(self, client_id: str) -> int:
        """The client's endpoints (not those deleted whose backlog is still being deleted)."""
        q = select(func.count()).where(Webhook.client_id == client_id, _NOT_DELETED)
        return int(self.session.scalar(q) or 0)

    def of_client(self, client_id: str) -> list[WebhookRecord]:
        q = select(*_WEBHOOK_COLUMNS).where(_WEBHOOKS.c.client_id == client_id, _NOT_DELETED)
        return [_webhook(r) for r in self.session.execute(q.order_by(_WEBHOOKS.c.created_at, _WEBHOOKS.c.id)).mappings()]

    def get(self, client_id: str, webhook_id: str, lock: bool = False) -> WebhookRecord | None:
        """The endpoint (None once deleted); with `lock`, its row is locked until the
        transaction ends (PostgreSQL)."""
        q = select(*_WEBHOOK_COLUMNS).where(
            _WEBHOOKS.c.id == webhook_id, _WEBHOOKS.c.client_id == client_id, _NOT_DELETED
        )
        if lock:
            q = q.with_for_update()
        row = self.session.execute(q).mappings().first()
        return None if row is None else _webhook(row)

    def replace(self, read: WebhookRecord, new: WebhookRecord) -> None:
        """Write the columns of `new` that differ from `read` (the caller holds the row's
        lock: `get(lock=True)`), so a column the dispatcher moves meanwhile, such as the
        cursor, is not written back."""
        if (new.client_id, new.id) != (read.client_id, read.id):
            raise ValueError("an endpoint is replaced by a later state of the same endpoint")
        before, after = read.columns(), new.columns()
        values = {k: v for k, v in after.items() if v != before[k]}
        if values:
            self.session.execute(
                update(Webhook).where(Webhook.client_id == read.client_id, Webhook.id == read.id).values(**values)
            )

    def resume(self, client_id: str, webhook_id: str, at: datetime) -> None:
        """Enabled again at `at`: the dispatcher makes its deliveries queued before then due
        at once, with a fresh retry schedule (`webhook_queue.Pass.resume`)."""
        self.session.execute(
            update(Webhook).where(Webhook.client_id == client_id, Webhook.id == webhook_id).values(resume_before=at)
        )

    def targets(self, webhooks: Iterable[tuple[str, str]]) -> dict[str, Target]:
        """Where and how to send deliveries now, by (client, endpoint); an endpoint deleted
        meanwhile is absent."""
        keys = sorted(set(webhooks))
        if not keys:
            return {}
        q = select(*target_columns()).where(tuple_(Webhook.client_id, Webhook.id).in_(keys))
        return {row[0]: Target.of_row(row) for row in self.session.execute(q)}

    def remove(self, client_id: str, webhook_id: str, batch: int, at: datetime) -> bool:
        """Delete the endpoint with its deliveries and attempts when it has at most `batch`
        of each: True. Otherwise mark it deleted (disabled, `DisabledReason.DELETED`: no
        read of the API finds it, nothing is queued for it or sent) and leave its rows to the
        dispatchers' batches (`webhook_queue.DeliveryQueue.purge_deleted`): False. Either
        way the request's work is bounded by `batch`, whatever the backlog (deleting a backlog
        of millions of rows in one statement ran past the statement timeout, every time)."""
        a, d = WebhookAttempt, WebhookDelivery
        mine_a = (a.client_id == client_id, a.webhook_id == webhook_id)
        mine_d = (d.client_id == client_id, d.webhook_id == webhook_id)
        held = [
            int(self.session.scalar(select(func.count()).select_from(select(1).where(*mine).limit(batch + 1).subquery()))
                or 0)
            for mine in (mine_a, mine_d)
        ]
        if max(held) > batch:
            self.session.execute(
                update(Webhook)
                .where(Webhook.client_id == client_id, Webhook.id == webhook_id)
                .values(enabled=False, disabled_reason=DisabledReason.DELETED.value, resume_before=None, updated_at=at)
            )
            return False
        self.session.execute(delete(a).where(*mine_a))
        self.session.execute(delete(d).where(*mine_d))
        self.session.execute(delete(Webhook).where(Webhook.client_id == client_id, Webhook.id == webhook_id))
        return True

    def subscribers(self, client_id: str) -> list[WebhookRecord]:
        """The client's enabled endpoints, oldest first."""
        q = select(*_WEBHOOK_COLUMNS).where(_WEBHOOKS.c.client_id == client_id, _WEBHOOKS.c.enabled.is_(True))
        rows = self.session.execute(q.order_by(_WEBHOOKS.c.created_at, _WEBHOOKS.c.id)).mappings()
        return [_webhook(r) for r in rows]

    # -- events (chain records) ------------------------------------------------------------

    def events(
        self, client_id: str, from_sequence: int, kind: str | None, game: str | None, limit: int
    ) -> list[EventRecord]:
        """Records from `from_sequence` on, oldest first, of `kind` (and a round's `game`)."""
        if game == BANTING:
            return self._big_two_events(client_id, from_sequence, limit)
        q = select(*RECORDS_BY_KEY).where(ChainRecord.client_id == client_id, ChainRecord.sequence >= from_sequence)
        if kind == RecordKind.VOID:
            q = q.where(is_void())  # by the voids' own index: a page of them reads a page
        elif kind is not None:
            q = q.where(ChainRecord.kind == kind)
        if game is not None:
            q = q.where(GAME_BY_KEY == game)
        q = q.order_by(ChainRecord.sequence).limit(limit)
        return [EventRecord(stored_record(row), row[8]) for row in self.session.execute(q)]

    def _big_two_events(self, client_id: str, from_sequence: int, limit: int) -> list[EventRecord]:
        """The records of the Big Two rounds from `from_sequence` on: the rounds by their own
        index, then their records by key (unordered there, so no plan walks the chain's key
        in order instead), in sequence order here. A client whose rounds are seldom Big
        Two's pays for a page of them, not for the chain between."""
        sequences = self.session.scalars(
            select(Round.sequence)
            .where(
                Round.client_id == client_id,
                Round.game == literal_column(f"'{BANTING}'"),
                Round.sequence >= from_sequence,
            )
            .order_by(Round.sequence)
            .limit(limit)
        ).all()
        if not sequences:
            return []
        q = select(*RECORDS_BY_KEY).where(
            ChainRecord.client_id == client_id,
            ChainRecord.sequence.in_(list(sequences)),
            ChainRecord.kind == RecordKind.ROUND,
            GAME_BY_KEY == BANTING,
        )
        found = [EventRecord(stored_record(row), row[8]) for row in self.session.execute(q)]
        return sorted(found, key=lambda event: event.record.sequence)

    def event_record(self, client_id: str, sequence: int) -> EventRecord | None:
        rows = self.events(client_id, sequence, None, None, 1)
        return rows[0] if rows and rows[0].record.sequence == sequence else None

    def round_sequence(self, client_id: str, round_id: str) -> tuple[int, str] | None:
        """(sequence, game) of a round."""
        row = self.session.execute(
            select(Round.sequence, Round.game).where(Round.id == round_id, Round.client_id == client_id)
        ).first()
        return None if row is None else (int(row[0]), str(row[1]))

    def void_sequence(self, client_id: str, round_id: str) -> int | None:
        return self.session.scalar(
            select(ChainRecord.sequence).where(
                ChainRecord.round_id == round_id, ChainRecord.kind == RecordKind.VOID, ChainRecord.client_id == client_id
            )
        )

    def round_records(self, client_id: str, round_ids: Iterable[str]) -> dict[str, StoredRecord]:
        """The round records of these rounds (the voided rounds of a page of events)."""
        ids = sorted(set(round_ids))
        if not ids:
            return {}
        q = (
            with_receipt(select(*RECORD_COLUMNS).select_from(ChainRecord))
            .join(Round, and_(Round.client_id == ChainRecord.client_id, Round.sequence == ChainRecord.sequence))
            .where(Round.id.in_(ids), Round.client_id == client_id, ChainRecord.kind == RecordKind.ROUND)
        )
        return {row[2]: stored_record(row) for row in self.session.execute(q)}

    # -- deliveries and attempts -----------------------------------------------------------

    def attempts(
        self, client_id: str, webhook_id: str, before: int | None, event_id: str | None, limit: int
    ) -> list[AttemptRecord]:
        """The endpoint's attempts, newest first, before the attempt `before`, of one event."""
        a = _ATTEMPTS.c
        q = select(a.id, a.event_id, a.attempted_at, a.outcome, a.status_code, a.latency_ms, a.error).where(
            a.client_id == client_id, a.webhook_id == webhook_id
        )
        if before is not None:
            q = q.where(a.id < before)
        if event_id is not None:
            q = q.where(a.event_id == event_id)
        return [AttemptRecord(**row) for row in self.session.execute(q.order_by(a.id.desc()).limit(limit)).mappings()]

    def queue(self, rows: Sequence[dict[str, Any]]) -> None:
        """New deliveries (the caller knows they do not exist: it holds the endpoint)."""
        if rows:
            self.session.execute(insert(WebhookDelivery), list(rows))

    def requeue(self, client_id: str, webhook_id: str, event_id: str, now: datetime) -> bool:
        """Make an existing delivery due now with a fresh schedule; False if there is none."""
        d = WebhookDelivery
        result = self.session.execute(
            update(d)
            .where(d.client_id == client_id, d.webhook_id == webhook_id, d.event_id == event_id)
            .values(state=PENDING, attempts=0, next_attempt_at=now, claim=None)
            .execution_options(synchronize_session=False)
        )
        return bool(result.rowcount)  # type: ignore[attr-defined]

    def waiting(self) -> tuple[int, datetime | None]:
        """Deliveries still to make for enabled endpoints, and the oldest one's event time."""
        d = WebhookDelivery
        row = self.session.execute(
            select(func.count(), func.min(d.event_at))
            .join(Webhook, Webhook.id == d.webhook_id)
            .where(d.state == PENDING, Webhook.enabled.is_(True))
        ).one()
        return int(row[0]), row[1]

    # -- the SQLite dispatcher's lease -----------------------------------------------------

    def take_lease(self, name: str, holder: str, now: datetime, until: datetime) -> bool:
        """Hold (or renew) the lease until `until`: True if `holder` has it now."""
        lease = DispatcherLease
        taken = self.session.execute(
            update(lease)
            .where(lease.name == name, or_(lease.holder == holder, lease.expires_at < now))
            .values(holder=holder, expires_at=until)
            .execution_options(synchronize_session=False)
        )
        if taken.rowcount:  # type: ignore[attr-defined]
            return True
        if self.session.get(lease, name) is not None:
            return False
        self.session.execute(insert(lease).values(name=name, holder=holder, expires_at=until))
        return True

    def release_lease(self, name: str, holder: str) -> None:
        self.session.execute(
            delete(DispatcherLease).where(DispatcherLease.name == name, DispatcherLease.holder == holder)
        )
