"""Idempotency-Key (IETF draft): the key is claimed in the same transaction as the answer.

- The same key with the same body (equal as parsed JSON) answers what the first request
  answered, byte for byte, marked `Idempotent-Replayed: true`; with another body: 422.
- A key is claimed by inserting its record in the request's own transaction. A second
  request with a key whose first request is still running meets that request's uncommitted
  row: on PostgreSQL it waits for it (at most `lock_timeout`, 2 s) and then replays, or
  answers 409 with Retry-After when the wait runs out; SQLite serialises writers, so the
  second request starts once the first has committed and replays. It never stores twice.
- A request that fails or dies takes its uncommitted claim with it: the key is free at once.
- Only 2xx answers are stored (a rejected request may be retried with the same key), and
  records are kept `KEEP` (24 hours) after their request, then purged: each worker deletes
  the expired ones at most every PURGE_EVERY after answering a request (`Purger`), in
  batches, so the table holds about a day of keyed requests without operator action;
  `capsa idempotency purge` does the same at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, TypeVar

from service.adapters.errors import KeyTaken, LockTimeout
from service.adapters.records import Claim
from service.domain.errors import FieldError
from service.services.clock import utcnow_ms
from service.services.errors import IdempotencyInFlight, IdempotencyKeyReused
from service.services.jsondoc import body_hash

if TYPE_CHECKING:  # named in annotations only: `capsa idempotency --help` loads no SQLAlchemy
    from service.adapters.idempotency import KeyRecord
    from service.adapters.uow import Database, UnitOfWork

KEEP = timedelta(hours=24)
RETRY_AFTER = 1
PURGE_EVERY = timedelta(seconds=60)
PURGE_BATCH = 1000
PURGE_BATCHES = 20  # per automatic purge: 20,000 records a minute per worker at most
T = TypeVar("T")


@dataclass(frozen=True)
class StoredResponse:
    """A response as bytes, so a replay is byte for byte the first answer."""

    status: int
    body: bytes
    content_type: str = "application/json"
    location: str | None = None
    replayed: bool = False


def _field_error(message: str) -> FieldError:
    return FieldError("header.Idempotency-Key", message)


def in_flight() -> IdempotencyInFlight:
    return IdempotencyInFlight(
        "a request with this Idempotency-Key is still being processed; retry after Retry-After seconds",
        retry_after=RETRY_AFTER,
    )


def claim(method: str, path: str, key: str, body: Any, resource: str, status: int, now: datetime) -> Claim:
    """The claim of a request whose answer is rendered again from `resource` on a replay."""
    return Claim(method, path, key, body_hash(body), status, resource, now - KEEP)


Renderer = Callable[["UnitOfWork", "KeyRecord"], StoredResponse]


def replay(
    db: Database,
    client_id: str,
    method: str,
    path: str,
    key: str,
    digest: str,
    render: Renderer | None = None,
) -> StoredResponse | None:
    """What the key answered, marked replayed; None when it holds nothing (any more)."""
    with db.unit_of_work() as uow:
        found = uow.idempotency.find(client_id, method, path, key)
        if found is None or found.created_at < utcnow_ms() - KEEP:
            return None
        if found.request_hash != digest:
            raise IdempotencyKeyReused(
                "this Idempotency-Key was used with another request body",
                errors=[_field_error("already used with another request body")],
            )
        if found.response_body is not None:
            response = StoredResponse(
                found.status_code,
                found.response_body,
                found.content_type or "application/json",
                found.location,
                replayed=True,
            )
        elif render is None:
            return None
        else:
            answer = render(uow, found)
            response = StoredResponse(answer.status, answer.body, answer.content_type, answer.location, replayed=True)
    # The first request may have had its 503 because its commit reached the primary only (the
    # wait for the standby was cancelled): its answer is given once the standby has it.
    db.wait_replicated()
    return response


def run_once(
    db: Database,
    client_id: str,
    method: str,
    path: str,
    key: str | None,
    body: Any,
    action: Callable[[UnitOfWork], StoredResponse],
) -> StoredResponse:
    """Run `action` in one write transaction, at most once per (client, method, path, key);
    the key's claim and the stored answer are part of that transaction."""
    if key is None:
        with db.unit_of_work(write=True) as uow:
            response = action(uow)
            uow.commit()
        return response
    digest = body_hash(body)
    for _ in range(2):
        now = utcnow_ms()
        try:
            with db.unit_of_work(write=True) as uow:
                if not uow.idempotency.claim(client_id, method, path, key, digest, now, now - KEEP):
                    # Caught below with its argument unread: a mutant of it is equivalent.
                    raise KeyTaken(key)  # pragma: no mutate
                response = action(uow)
                if 200 <= response.status < 300:
                    uow.idempotency.complete(
                        client_id,
                        method,
                        path,
                        key,
                        response.status,
                        content_type=response.content_type,
                        location=response.location,
                        body=response.body,
                    )
                    uow.commit()
                return response  # anything else rolls back, claim included
        except KeyTaken:
            stored = replay(db, client_id, method, path, key, digest)
            if stored is not None:
                return stored
        except LockTimeout as exc:
            if not exc.on_key:
                raise  # a row the action needs, not the key: 503, the request changed nothing
            raise in_flight() from exc
    raise in_flight()


class _NotStored(Exception):
    """An answer other than 2xx: the savepoint of `run_once_after` rolls back, it is not stored."""

    def __init__(self, response: StoredResponse) -> None:
        super().__init__(response.status)  # pragma: no mutate (caught below, its argument never read)
        self.response = response


def run_once_after(
    db: Database,
    client_id: str,
    method: str,
    path: str,
    body: Any,
    first: Callable[[UnitOfWork], tuple[T, str | None]],
    action: Callable[[UnitOfWork, T], StoredResponse],
) -> StoredResponse:
    """`run_once` for a request whose first part stands whatever follows, in ONE write
    transaction: `first(uow)` runs before any key is claimed and returns what the action
    needs and the request's Idempotency-Key (so what it refuses, a 404 or a 403, comes before
    the key is read or replayed); then the claim and `action(uow, what first returned)` run
    in a savepoint. When the action is refused (it raises, or answers other than 2xx) or the
    key has answered already (then replayed), only the savepoint rolls back, and what `first`
    wrote is committed."""
    digest = body_hash(body)
    for _ in range(2):
        key: str | None = None
        try:
            with db.unit_of_work(write=True) as uow:
                prepared, key = first(uow)
                now = utcnow_ms()
                try:
                    with uow.savepoint():
                        if key is not None and not uow.idempotency.claim(
                            client_id, method, path, key, digest, now, now - KEEP
                        ):
                            # Caught below with its argument unread: a mutant of it is equivalent.
                            raise KeyTaken(key)  # pragma: no mutate
                        response = action(uow, prepared)
                        if not 200 <= response.status < 300:
                            raise _NotStored(response)
                        if key is not None:
                            uow.idempotency.complete(
                                client_id,
                                method,
                                path,
                                key,
                                response.status,
                                content_type=response.content_type,
                                location=response.location,
                                body=response.body,
                            )
                except _NotStored as refused:
                    uow.commit()
                    return refused.response
                except BaseException:
                    uow.commit()  # what `first` wrote stands
                    raise
                uow.commit()
                return response
        except KeyTaken:
            assert key is not None  # pragma: no mutate (for mypy: only a claimed key is taken)
            stored = replay(db, client_id, method, path, key, digest)
            if stored is not None:
                return stored
        except LockTimeout as exc:
            if key is None or not exc.on_key:
                raise
            raise in_flight() from exc
    raise in_flight()


def purge_expired(db: Database, batch: int = PURGE_BATCH, batches: int | None = None) -> int:
    """Delete the records older than KEEP, `batch` per transaction (short locks), at most
    `batches` transactions (None: until none is left); how many were deleted."""
    deleted = 0
    done = 0
    while batches is None or done < batches:
        with db.unit_of_work(write=True) as uow:
            gone = uow.idempotency.purge(utcnow_ms() - KEEP, batch)
            uow.commit()
        deleted += gone
        done += 1
        if gone < batch:
            break
    return deleted


class Purger:
    """Runs `purge_expired` at most every PURGE_EVERY (one per worker process)."""

    def __init__(self, db: Database, every: timedelta = PURGE_EVERY) -> None:
        self.db = db
        self.every = every
        self.next_at: datetime | None = None

    def due(self) -> bool:
        return self.next_at is None or utcnow_ms() >= self.next_at

    def run_if_due(self) -> int:
        if not self.due():
            return 0
        self.next_at = utcnow_ms() + self.every
        return purge_expired(self.db, batches=PURGE_BATCHES)
