"""Idempotency-Key records: claimed in the transaction they answer, read back for replays.

A claim is an insert in the request's own transaction. While that request runs, its row
is uncommitted: on PostgreSQL a second request with the key waits on the insert for the
first to end (`lock_timeout`, 2 s), then sees its answer; on SQLite writers are serialised,
so the second one starts after the first committed or rolled back. A request that dies
takes its uncommitted claim with it, so its key is free at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select, tuple_, update
from sqlalchemy.dialects import postgresql
from sqlalchemy.orm import Session

from .models import IdempotencyRecord


@dataclass(frozen=True, slots=True)
class KeyRecord:
    """What a used key answered: stored bytes, or the resource to render the answer from."""

    request_hash: str
    status_code: int
    resource: str | None
    content_type: str | None
    location: str | None
    response_body: bytes | None
    created_at: datetime


_COLUMNS = (
    IdempotencyRecord.request_hash,
    IdempotencyRecord.status_code,
    IdempotencyRecord.resource,
    IdempotencyRecord.content_type,
    IdempotencyRecord.location,
    IdempotencyRecord.response_body,
    IdempotencyRecord.created_at,
)


class IdempotencyRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    @property
    def dialect(self) -> str:
        return self.session.get_bind().dialect.name

    def find(self, client_id: str, method: str, path: str, key: str) -> KeyRecord | None:
        row = self.session.execute(select(*_COLUMNS).where(_same(client_id, method, path, key))).first()
        return None if row is None else KeyRecord(*row)

    def claim(
        self,
        client_id: str,
        method: str,
        path: str,
        key: str,
        request_hash: str,
        now: datetime,
        expired_before: datetime,
    ) -> bool:
        """Take the key in this transaction; False when a committed request holds it (and
        it is not older than `expired_before`)."""
        values = {
            "client_id": client_id,
            "method": method,
            "path": path,
            "key": key,
            "request_hash": request_hash,
            "status_code": 0,
            "created_at": now,
        }
        if self.dialect == "postgresql":
            stmt: Any = postgresql.insert(IdempotencyRecord).values(**values)
            stmt = stmt.on_conflict_do_update(
                constraint="pk_idempotency_records",
                set_={
                    "request_hash": stmt.excluded.request_hash,
                    "status_code": 0,
                    "resource": None,
                    "content_type": None,
                    "location": None,
                    "response_body": None,
                    "created_at": stmt.excluded.created_at,
                },
                where=IdempotencyRecord.created_at < expired_before,
            ).returning(IdempotencyRecord.created_at)
            return self.session.execute(stmt).first() is not None
        existing = self.find(client_id, method, path, key)
        if existing is not None:
            if existing.created_at >= expired_before:
                return False
            self.session.execute(delete(IdempotencyRecord).where(_same(client_id, method, path, key)))
        self.session.execute(IdempotencyRecord.__table__.insert().values(**values))  # type: ignore[attr-defined]
        return True

    def complete(
        self,
        client_id: str,
        method: str,
        path: str,
        key: str,
        status_code: int,
        *,
        resource: str | None = None,
        content_type: str | None = None,
        location: str | None = None,
        body: bytes | None = None,
    ) -> None:
        """Store the answer of a claimed key (in the same transaction as the claim)."""
        self.session.execute(
            update(IdempotencyRecord)
            .where(_same(client_id, method, path, key))
            .values(
                status_code=status_code,
                resource=resource,
                content_type=content_type,
                location=location,
                response_body=body,
            )
        )

    def purge(self, before: datetime, limit: int) -> int:
        """Delete up to `limit` records made before `before`, oldest first; how many went.

        The age is checked again on the row deleted, not only where the batch is chosen: a
        key used again past its 24 hours is taken over in place (`claim`), and a purge that
        chose the expired row waits for that claim, then finds the row's new answer, which it
        must leave (PostgreSQL re-checks the conditions on the row itself, not a subquery's)."""
        keys = (
            select(IdempotencyRecord.client_id, IdempotencyRecord.method, IdempotencyRecord.path, IdempotencyRecord.key)
            .where(IdempotencyRecord.created_at < before)
            .order_by(IdempotencyRecord.created_at)
            .limit(limit)
        )
        columns = tuple_(IdempotencyRecord.client_id, IdempotencyRecord.method, IdempotencyRecord.path, IdempotencyRecord.key)
        result = self.session.execute(
            delete(IdempotencyRecord).where(columns.in_(keys), IdempotencyRecord.created_at < before)
        )
        return int(result.rowcount or 0)  # type: ignore[attr-defined]


def _same(client_id: str, method: str, path: str, key: str) -> Any:
    return (
        (IdempotencyRecord.client_id == client_id)
        & (IdempotencyRecord.method == method)
        & (IdempotencyRecord.path == path)
        & (IdempotencyRecord.key == key)
    )
