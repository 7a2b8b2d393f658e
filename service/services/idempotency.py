"""Idempotency-Key (IETF draft): claim the key, run once, store the 2xx answer, replay it."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import structlog

from service.adapters.errors import UniqueViolation
from service.adapters.models import IdempotencyRecord
from service.adapters.uow import Database, UnitOfWork
from service.domain.errors import FieldError

from .errors import IdempotencyInFlight, IdempotencyKeyReused, InvalidInput
from .ids import utcnow_ms
from .jsondoc import body_hash

log = structlog.get_logger(__name__)

IN_FLIGHT = "in-flight"
DONE = "done"
KEEP = timedelta(hours=24)
# An in-flight marker older than this belongs to a worker that died: it may be taken over.
STALE = timedelta(seconds=60)
# On PostgreSQL the owner locks its marker as the first statement of its transaction; a
# marker older than this whose lock is free has lost its owner (a killed worker, a database
# restart) and is taken over at once instead of after STALE.
OWNER_GRACE = timedelta(seconds=5)
RETRY_AFTER = 1
_KEY = re.compile(r"^[\x20-\x7e]{1,255}$")


@dataclass(frozen=True)
class StoredResponse:
    """A response as bytes, so a replay is byte for byte the first answer."""

    status: int
    body: bytes
    content_type: str = "application/json"
    location: str | None = None
    replayed: bool = False


def parse_key(header: str | None) -> str | None:
    """The key of an `Idempotency-Key` header (a quoted string is accepted), or None."""
    if header is None:
        return None
    key = header
    if len(key) >= 2 and key[0] == key[-1] == '"':
        key = key[1:-1]  # a Structured Field string
    if not _KEY.match(key):
        raise InvalidInput(
            "Idempotency-Key must be 1-255 printable ASCII characters",
            errors=[_field_error("must be 1-255 printable ASCII characters")],
        )
    return key


def _field_error(message: str) -> FieldError:
    return FieldError("header.Idempotency-Key", message)


def run_once(
    db: Database,
    client_id: str,
    method: str,
    path: str,
    key: str | None,
    body: Any,
    action: Callable[[UnitOfWork], StoredResponse],
) -> StoredResponse:
    """Run `action` in one write transaction, at most once per (client, method, path, key)."""
    if key is None:
        with db.unit_of_work(write=True) as uow:
            response = action(uow)
            uow.commit()
        return response
    digest = body_hash(body)
    claimed = _claim(db, client_id, method, path, key, digest)
    if isinstance(claimed, StoredResponse):
        return claimed
    try:
        with db.unit_of_work(write=True) as uow:
            uow.idempotency.hold(claimed)
            response = action(uow)
            record = uow.session.get(IdempotencyRecord, claimed)
            if record is None or record.state != IN_FLIGHT:
                # Someone judged us dead and took the key over: do not store twice.
                raise IdempotencyInFlight(
                    "this Idempotency-Key was taken over by another request",
                    retry_after=RETRY_AFTER,
                )
            if 200 <= response.status < 300:
                record.state = DONE
                record.status_code = response.status
                record.content_type = response.content_type
                record.location = response.location
                record.response_body = response.body
            else:
                uow.session.delete(record)
            uow.commit()
        return response
    except BaseException:
        _release(db, claimed)
        raise


def _claim(
    db: Database, client_id: str, method: str, path: str, key: str, digest: str
) -> int | StoredResponse:
    """Insert the in-flight marker in its own committed transaction; its id, or the replay."""
    for _ in range(3):
        now = utcnow_ms()
        with db.unit_of_work(write=True) as uow:
            existing = uow.idempotency.get(client_id, method, path, key)
            if existing is not None:
                age = now - existing.created_at
                expired = (existing.state == DONE and age > KEEP) or (
                    existing.state == IN_FLIGHT
                    and (
                        age > STALE
                        or (age > OWNER_GRACE and not uow.idempotency.owner_alive(existing.id))
                    )
                )
                if expired:
                    uow.idempotency.delete(existing.id)
                    uow.commit()
                    continue
                if existing.request_hash != digest:
                    raise IdempotencyKeyReused(
                        "this Idempotency-Key was used with another request body",
                        errors=[_field_error("already used with another request body")],
                    )
                if existing.state == IN_FLIGHT:
                    raise IdempotencyInFlight(
                        "a request with this Idempotency-Key is still being processed",
                        retry_after=RETRY_AFTER,
                    )
                assert existing.status_code is not None and existing.response_body is not None
                return StoredResponse(
                    existing.status_code,
                    existing.response_body,
                    existing.content_type or "application/json",
                    existing.location,
                    replayed=True,
                )
            record = IdempotencyRecord(
                client_id=client_id,
                method=method,
                path=path,
                key=key,
                request_hash=digest,
                state=IN_FLIGHT,
                created_at=now,
            )
            uow.idempotency.add(record)
            try:
                uow.commit()
            except UniqueViolation:
                continue  # a concurrent request claimed it first: read what it stored
            return record.id
    raise IdempotencyInFlight(
        "a request with this Idempotency-Key is still being processed", retry_after=RETRY_AFTER
    )


def _release(db: Database, record_id: int) -> None:
    """A failed request frees its key, so the client may retry (only 2xx are stored)."""
    try:
        with db.unit_of_work(write=True) as uow:
            uow.idempotency.delete(record_id, state=IN_FLIGHT)
            uow.commit()
    except Exception:  # the marker goes stale and is taken over later
        log.warning("idempotency_release_failed", record_id=record_id, exc_info=True)
