"""Webhook endpoints: create, list, change, delete, rotate the secret, their attempts,
and redelivering an event. The dispatcher (`dispatcher.py`) sends what is queued."""

from __future__ import annotations

import os
import secrets
import weakref
from dataclasses import replace
from datetime import timedelta
from typing import Any

from service.adapters.uow import Database, UnitOfWork
from service.adapters.webhooks import PENDING, Target, WebhookRecord
from service.domain import webhooks as hooks
from service.domain.audit import record_time
from service.domain.errors import FieldError, quoted
from service.services import service_secrets
from service.services.clock import new_id, rfc3339, utcnow_ms
from service.services.errors import Conflict, InvalidInput, NotFound
from service.services.idempotency import StoredResponse, run_once
from service.services.jsondoc import dump
from service.services.webhooks import events

PATH = "/v1/webhooks"
MAX_PER_CLIENT = 20
ROTATION_OVERLAP = timedelta(hours=24)  # the old secret keeps signing this long
ALLOW_PRIVATE_ENV = "WEBHOOK_ALLOW_PRIVATE"


def allow_private() -> bool:
    """WEBHOOK_ALLOW_PRIVATE: loopback, private and link-local targets are allowed (tests,
    on-premise receivers)."""
    return os.environ.get(ALLOW_PRIVATE_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def _check(url: str | None, events_: list[str] | None) -> None:
    if url is not None:
        try:
            hooks.check_url(url, allow_private())
        except hooks.InvalidWebhook as exc:
            raise InvalidInput(exc.message, errors=[FieldError("url", exc.message)]) from exc
    if events_ is not None:
        if not events_:
            raise InvalidInput("events is empty", errors=[FieldError("events", "name at least one event type or *")])
        repeated = next((t for i, t in enumerate(events_) if t in events_[:i]), None)
        if repeated is not None:
            times = {2: "twice", 3: "three times"}.get(events_.count(repeated), f"{events_.count(repeated)} times")
            message = f"each type once: {quoted(repeated)} is named {times}"
            raise InvalidInput(f"events: {message}", errors=[FieldError("events", message)])
        if hooks.ALL in events_ and len(events_) > 1:
            message = f"{quoted(hooks.ALL)} subscribes to every type: name it alone, not with {quoted(events_)}"
            raise InvalidInput(f"events: {message}", errors=[FieldError("events", message)])


def document(row: WebhookRecord, now: Any = None) -> dict[str, Any]:
    rotating = row.previous_secret is not None and row.previous_secret_until is not None and (
        now is None or row.previous_secret_until > now
    )
    return {
        "id": row.id,
        "url": row.url,
        "events": list(row.events),
        "description": row.description,
        "enabled": row.enabled,
        "disabled_reason": row.disabled_reason,
        "failing_since": None if row.failing_since is None else rfc3339(row.failing_since),
        "previous_secret_expires_at": rfc3339(row.previous_secret_until) if rotating and row.previous_secret_until else None,
        "created_at": rfc3339(row.created_at),
        "updated_at": rfc3339(row.updated_at),
    }


def create(db: Database, client_id: str, body: dict[str, Any]) -> dict[str, Any]:
    """`POST /v1/webhooks` without a key: the new endpoint, its secret included."""
    _check(body["url"], body["events"])
    with db.unit_of_work(write=True) as uow:
        created = _insert(uow, client_id, body)
        uow.commit()
    return created


def create_once(db: Database, client_id: str, body: dict[str, Any], idempotency_key: str | None) -> StoredResponse:
    """`POST /v1/webhooks`: the endpoint takes the events stored from now on. With an
    Idempotency-Key, a retry of the same body answers the first answer (the same endpoint
    and secret) instead of adding a second endpoint that would get every event again."""
    _check(body["url"], body["events"])

    def action(uow: UnitOfWork) -> StoredResponse:
        created = _insert(uow, client_id, body)
        return StoredResponse(201, dump(created), location=f"{PATH}/{created['id']}")

    return run_once(db, client_id, "POST", PATH, idempotency_key, body, action)


def _insert(uow: UnitOfWork, client_id: str, body: dict[str, Any]) -> dict[str, Any]:
    now = utcnow_ms()
    secret = hooks.new_secret(secrets.token_bytes(hooks.SECRET_BYTES))
    uow.clients.lock(client_id)  # the count and the insert, one create of the client at a time
    if uow.webhooks.count(client_id) >= MAX_PER_CLIENT:
        raise Conflict(
            f"a client has at most {MAX_PER_CLIENT} webhooks",
            errors=[FieldError("url", f"delete one first (at most {MAX_PER_CLIENT})")],
        )
    row = WebhookRecord(
        id=new_id("whk", now),
        client_id=client_id,
        url=body["url"],
        events=tuple(body["events"]),
        description=body.get("description"),
        enabled=True,
        disabled_reason=None,
        secret=secret,
        previous_secret=None,
        previous_secret_until=None,
        cursor=uow.chain.head(client_id).sequence,
        failing_since=None,
        created_at=now,
        updated_at=now,
    )
    uow.webhooks.add(row)
    return {**document(row, now), "secret": secret}


def list_(db: Database, client_id: str) -> dict[str, Any]:
    now = utcnow_ms()
    with db.unit_of_work() as uow:
        return {"items": [document(r, now) for r in uow.webhooks.of_client(client_id)]}


def _found(uow: UnitOfWork, client_id: str, webhook_id: str, lock: bool = False) -> WebhookRecord:
    row = uow.webhooks.get(client_id, webhook_id, lock=lock)
    if row is None:
        raise NotFound(f"no webhook {webhook_id!r}")
    return row


def get(db: Database, client_id: str, webhook_id: str) -> dict[str, Any]:
    with db.unit_of_work() as uow:
        return document(_found(uow, client_id, webhook_id), utcnow_ms())


def update(db: Database, client_id: str, webhook_id: str, body: dict[str, Any]) -> dict[str, Any]:
    """`PATCH`: url, events, description, enabled. Enabling a disabled endpoint clears its
    failure record and resumes everything it missed: the events stored while it was
    disabled, and its deliveries queued before (failed for good, or waiting for a late
    retry), which the dispatcher makes due at once with a fresh retry schedule."""
    _check(body.get("url"), body.get("events"))
    now = utcnow_ms()
    with db.unit_of_work(write=True) as uow:
        row = _found(uow, client_id, webhook_id, lock=True)
        new = replace(
            row,
            url=body.get("url", row.url),
            events=tuple(body["events"]) if "events" in body else row.events,
            description=body.get("description", row.description),
            updated_at=now,
        )
        if "enabled" in body:
            enabled = bool(body["enabled"])
            if enabled and not row.enabled:
                new = replace(new, enabled=True, failing_since=None, disabled_reason=None)
                uow.webhooks.resume(client_id, webhook_id, now)
            elif not enabled and row.enabled:
                new = replace(new, enabled=False, disabled_reason=hooks.DisabledReason.DISABLED.value)
        uow.webhooks.replace(row, new)
        doc = document(new, now)
        uow.commit()
    return doc


# What DELETE deletes in its own transaction: an endpoint with at most this many deliveries
# and attempts goes with them at once; one with more is marked deleted, and the dispatchers
# delete them in batches of as many (`dispatcher.PURGE_EVERY_S`).
REMOVE_BATCH = 1000


def delete(db: Database, client_id: str, webhook_id: str) -> None:
    """The endpoint is gone from the API at once, whatever its backlog; its deliveries and
    attempts too, or (past `REMOVE_BATCH`) in the dispatchers' batches after the answer."""
    with db.unit_of_work(write=True) as uow:
        _found(uow, client_id, webhook_id, lock=True)
        uow.webhooks.remove(client_id, webhook_id, REMOVE_BATCH, utcnow_ms())
        uow.commit()


def rotate_secret(db: Database, client_id: str, webhook_id: str) -> dict[str, Any]:
    """A new secret; the current one keeps signing beside it for 24 hours (deliveries carry
    both signatures), so receivers can switch without missing an event."""
    now = utcnow_ms()
    secret = hooks.new_secret(secrets.token_bytes(hooks.SECRET_BYTES))
    with db.unit_of_work(write=True) as uow:
        row = _found(uow, client_id, webhook_id, lock=True)
        new = replace(
            row, secret=secret, previous_secret=row.secret, previous_secret_until=now + ROTATION_OVERLAP, updated_at=now
        )
        uow.webhooks.replace(row, new)
        doc = document(new, now)
        uow.commit()
    return {**doc, "secret": secret}


def live_secrets(row: WebhookRecord | Target, now: Any) -> list[str]:
    """The secrets a delivery is signed with now: the current one, and the previous one
    during its 24 hours."""
    out = [row.secret]
    if row.previous_secret is not None and row.previous_secret_until is not None and row.previous_secret_until > now:
        out.append(row.previous_secret)
    return out


ATTEMPT_IDS_SECRET = "attempt-ids"
_attempt_ids: weakref.WeakKeyDictionary[Database, hooks.AttemptIds] = weakref.WeakKeyDictionary()


def attempt_ids(db: Database) -> hooks.AttemptIds:
    """How this service shows attempt ids (`hooks.AttemptIds`), with the key it keeps in the
    database (made by the first caller; every worker and host reads the same)."""
    found = _attempt_ids.get(db)
    if found is None:
        found = _attempt_ids[db] = hooks.AttemptIds(bytes.fromhex(service_secrets.stored(db, ATTEMPT_IDS_SECRET)))
    return found


def attempts(
    db: Database, client_id: str, webhook_id: str, *, event: str | None = None,
    cursor: int | None = None, limit: int = 50,
) -> dict[str, Any]:
    """`GET /v1/webhooks/{id}/deliveries`: attempts, newest first, in pages. Ids are shown
    through `attempt_ids` (they count every client's attempts as stored); a cursor is the
    shown id of the last attempt of a page."""
    ids = attempt_ids(db)
    after = None
    if cursor is not None:
        try:
            after = ids.stored(cursor)
        except ValueError:
            raise InvalidInput(
                f"cursor {cursor} is not a next_cursor of this list", errors=[FieldError("query.cursor", "not a next_cursor")]
            ) from None
    with db.unit_of_work() as uow:
        _found(uow, client_id, webhook_id)
        rows = uow.webhooks.attempts(client_id, webhook_id, after, event, limit + 1)
        items = [
            {
                "id": ids.shown(r.id),
                "event_id": r.event_id,
                "attempted_at": rfc3339(r.attempted_at),
                "outcome": r.outcome,
                "status_code": r.status_code,
                "latency_ms": r.latency_ms,
                "error": r.error,
            }
            for r in rows[:limit]
        ]
    more = len(rows) > limit
    return {"items": items, "next_cursor": items[-1]["id"] if more else None}


def redeliver(db: Database, client_id: str, event_id: str, webhook_id: str | None) -> dict[str, Any]:
    """`POST /v1/events/{id}/redeliver`: queue the event again, due now, with a fresh retry
    schedule, for every enabled endpoint subscribed to its type (or the one named, if it is
    enabled and subscribed to the type: 409 else)."""
    now = utcnow_ms()
    with db.unit_of_work(write=True) as uow:
        at = events.position(uow, client_id, event_id, "id")
        if webhook_id is not None:
            one = uow.webhooks.get(client_id, webhook_id, lock=True)
            if one is None:
                raise InvalidInput(
                    f"no webhook {webhook_id!r}",
                    errors=[FieldError("webhook", f"{webhook_id!r} is not a webhook of this client")],
                )
            if not one.enabled:
                raise Conflict(
                    f"webhook {webhook_id!r} is disabled",
                    errors=[FieldError("webhook", "enable it first (PATCH enabled: true)")],
                )
            if not hooks.subscribed(one.events, at.type):  # never a type the endpoint did not ask for
                raise Conflict(
                    f"webhook {webhook_id!r} is not subscribed to {at.type}",
                    errors=[FieldError("webhook", f"subscribed to {', '.join(one.events)}, not {at.type}: "
                                                  "add the type to its events first (PATCH events)")],
                )
            targets = [one]
        else:
            targets = [w for w in uow.webhooks.subscribers(client_id) if hooks.subscribed(w.events, at.type)]
        found = uow.webhooks.event_record(client_id, at.sequence)
        assert found is not None
        event_at = record_time(found.record.canonical)
        queued = []
        for w in targets:
            if not uow.webhooks.requeue(client_id, w.id, event_id, now):
                uow.webhooks.queue([_delivery(w.id, client_id, event_id, at.sequence, at.type, event_at, now)])
            queued.append(w.id)
        uow.commit()
    return {"event_id": event_id, "webhooks": queued}


def _delivery(
    webhook_id: str, client_id: str, event_id: str, sequence: int, type_: str, event_at: Any, now: Any
) -> dict[str, Any]:
    return {
        "webhook_id": webhook_id,
        "event_id": event_id,
        "client_id": client_id,
        "sequence": sequence,
        "event_type": type_,
        "event_at": event_at,
        "state": PENDING,
        "attempts": 0,
        "next_attempt_at": now,
        "claim": None,
        "created_at": now,
    }
