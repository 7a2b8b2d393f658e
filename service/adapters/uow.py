"""The unit of work: one session, one transaction per request, repositories over it."""

from __future__ import annotations

import base64
import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from typing import Any, Self

from sqlalchemy import and_, delete, exists, insert, or_, select, text
from sqlalchemy.exc import IntegrityError, InterfaceError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from .db import make_engine
from .errors import DatabaseUnavailable, UniqueViolation
from .games import DealRepository, GameRepository
from .models import ApiKey, Client, IdempotencyRecord, Round, RoundPair, RoundPlayer


def _constraint_of(exc: IntegrityError) -> str | None:
    diag = getattr(exc.orig, "diag", None)
    name = getattr(diag, "constraint_name", None)
    if name:
        return str(name)
    message = str(exc.orig)
    # SQLite: "UNIQUE constraint failed: rounds.client_id, rounds.reference"
    known = {
        "rounds.client_id, rounds.reference": "uq_rounds_client_reference",
        "idempotency_records.client_id": "uq_idempotency_client_method_path_key",
        "rounds.id": "pk_rounds",
    }
    for needle, constraint in known.items():
        if needle in message:
            return constraint
    return None


def translate(exc: BaseException) -> BaseException | None:
    """The adapter error for a SQLAlchemy error, or None when it is not one we translate."""
    if isinstance(exc, IntegrityError):
        return UniqueViolation(_constraint_of(exc), str(exc.orig))
    if isinstance(exc, (OperationalError, InterfaceError)):
        return DatabaseUnavailable(str(getattr(exc, "orig", exc)))
    return None


class Database:
    """An engine and its session factories (plain reads, IMMEDIATE writes on SQLite)."""

    def __init__(self, url: str, **options: Any) -> None:
        self.engine = make_engine(url, **options)
        read_engine = self.engine
        if self.engine.dialect.name == "postgresql":
            # Reads are single statements: autocommit saves the BEGIN and ROLLBACK round trips.
            read_engine = self.engine.execution_options(isolation_level="AUTOCOMMIT")
        self._read = sessionmaker(read_engine, expire_on_commit=False)
        self._write = sessionmaker(self.engine.execution_options(capsa_write=True), expire_on_commit=False)

    def unit_of_work(self, write: bool = False) -> UnitOfWork:
        return UnitOfWork(self._write() if write else self._read())

    def ping(self) -> None:
        """Raise DatabaseUnavailable unless the database answers."""
        try:
            with self.engine.connect() as conn:
                conn.execute(text("SELECT 1"))
        except (OperationalError, InterfaceError) as exc:
            raise DatabaseUnavailable(str(exc.orig)) from exc

    def dispose(self) -> None:
        self.engine.dispose()


class UnitOfWork:
    """`with db.unit_of_work(write=True) as uow: ...; uow.commit()`; anything else rolls back."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.clients = ClientRepository(session)
        self.rounds = RoundRepository(session)
        self.idempotency = IdempotencyRepository(session)
        self.deals = DealRepository(session)
        self.games = GameRepository(session)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        with contextlib.suppress(Exception):  # the original error matters more
            self.session.rollback()
        self.session.close()
        if exc is not None:
            translated = translate(exc)
            if translated is not None:
                raise translated from exc

    def commit(self) -> None:
        try:
            self.session.commit()
        except Exception as exc:
            translated = translate(exc)
            if translated is not None:
                raise translated from exc
            raise

    def flush(self) -> None:
        try:
            self.session.flush()
        except Exception as exc:
            translated = translate(exc)
            if translated is not None:
                raise translated from exc
            raise


class ClientRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def add(self, client: Client) -> None:
        self.session.add(client)

    def add_key(self, key: ApiKey) -> None:
        self.session.add(key)

    def by_name(self, name: str) -> Client | None:
        return self.session.scalar(select(Client).where(Client.name == name))

    def key_by_hash(self, key_hash: str) -> ApiKey | None:
        return self.session.scalar(select(ApiKey).where(ApiKey.key_hash == key_hash))

    def credentials(self, prefix: str) -> tuple[str, str, str, datetime | None] | None:
        """(key hash, client id, scope, revoked_at) of a key: columns only, no entity."""
        row = self.session.execute(
            select(ApiKey.key_hash, ApiKey.client_id, ApiKey.scope, ApiKey.revoked_at).where(
                ApiKey.prefix == prefix
            )
        ).first()
        return None if row is None else (row[0], row[1], row[2], row[3])

    def key_by_prefix(self, prefix: str) -> ApiKey | None:
        return self.session.scalar(select(ApiKey).where(ApiKey.prefix == prefix))

    def all(self) -> Sequence[Client]:
        return self.session.scalars(select(Client).order_by(Client.created_at, Client.name)).all()

    def keys_of(self, client_id: str) -> Sequence[ApiKey]:
        return self.session.scalars(
            select(ApiKey).where(ApiKey.client_id == client_id).order_by(ApiKey.id)
        ).all()


@dataclass(frozen=True)
class RoundFilter:
    table: str | None = None
    player: str | None = None
    reference: str | None = None
    since: datetime | None = None
    until: datetime | None = None


def encode_cursor(created_at: datetime, round_id: str) -> str:
    raw = json.dumps([created_at.isoformat(), round_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    """The position a cursor names; ValueError when it is not one of ours."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        stamp, round_id = json.loads(raw)
        when = datetime.fromisoformat(stamp)
    except Exception as exc:  # any garbage is the same client error
        raise ValueError("not a cursor from this service") from exc
    if not isinstance(round_id, str) or when.tzinfo is None:
        raise ValueError("not a cursor from this service")
    return when, round_id


_ROUND_INSERT = insert(Round)
_PLAYER_INSERT = insert(RoundPlayer)
_PAIR_INSERT = insert(RoundPair)


class RoundRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def add(self, round_: Round) -> None:
        self.session.add(round_)

    def insert(
        self,
        round_row: dict[str, Any],
        players: list[dict[str, Any]],
        pairs: list[dict[str, Any]],
    ) -> None:
        """Insert a round and its rows with Core INSERTs (no ORM bookkeeping on the hot path)."""
        conn = self.session.connection()
        try:
            conn.execute(_ROUND_INSERT, [round_row])
            conn.execute(_PLAYER_INSERT, players)
            conn.execute(_PAIR_INSERT, pairs)
        except IntegrityError as exc:
            raise UniqueViolation(_constraint_of(exc), str(exc.orig)) from exc

    def get(self, client_id: str, round_id: str) -> Round | None:
        return self.session.scalar(select(Round).where(Round.id == round_id, Round.client_id == client_id))

    def reference_used(self, client_id: str, reference: str) -> bool:
        return bool(
            self.session.scalar(
                select(exists().where(Round.client_id == client_id, Round.reference == reference))
            )
        )

    def list(
        self,
        client_id: str,
        where: RoundFilter,
        limit: int,
        after: tuple[datetime, str] | None,
    ) -> tuple[list[Round], tuple[datetime, str] | None]:
        """Newest first by (created_at, id); returns the page and the position after it."""
        q = select(Round).where(Round.client_id == client_id)
        if where.table is not None:
            q = q.where(Round.table_ref == where.table)
        if where.reference is not None:
            q = q.where(Round.reference == where.reference)
        if where.player is not None:
            q = q.where(
                exists().where(RoundPlayer.round_id == Round.id, RoundPlayer.player_id == where.player)
            )
        if where.since is not None:
            q = q.where(Round.created_at >= where.since)
        if where.until is not None:
            q = q.where(Round.created_at < where.until)
        if after is not None:
            when, round_id = after
            q = q.where(
                or_(
                    Round.created_at < when,
                    and_(Round.created_at == when, Round.id < round_id),
                )
            )
        q = q.order_by(Round.created_at.desc(), Round.id.desc()).limit(limit + 1)
        rows = list(self.session.scalars(q).all())
        if len(rows) > limit:
            last = rows[limit - 1]
            return rows[:limit], (last.created_at, last.id)
        return rows, None


class IdempotencyRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def get(self, client_id: str, method: str, path: str, key: str) -> IdempotencyRecord | None:
        return self.session.scalar(
            select(IdempotencyRecord).where(
                IdempotencyRecord.client_id == client_id,
                IdempotencyRecord.method == method,
                IdempotencyRecord.path == path,
                IdempotencyRecord.key == key,
            )
        )

    def add(self, record: IdempotencyRecord) -> None:
        self.session.add(record)

    def delete(self, record_id: int, state: str | None = None) -> None:
        q = delete(IdempotencyRecord).where(IdempotencyRecord.id == record_id)
        if state is not None:
            q = q.where(IdempotencyRecord.state == state)
        self.session.execute(q)

    def delete_older_than(self, cutoff: datetime) -> None:
        self.session.execute(delete(IdempotencyRecord).where(IdempotencyRecord.created_at < cutoff))

    def hold(self, record_id: int) -> None:
        """Lock an in-flight marker for the rest of the transaction (PostgreSQL).

        The lock lives exactly as long as its owner's transaction: a worker that dies or a
        database that restarts releases it, which is how `owner_alive` tells a request
        that is still running from one that will never finish. SQLite serialises writers
        instead, so this is a no-op there.
        """
        if self.session.bind is not None and self.session.bind.dialect.name == "postgresql":
            self.session.execute(
                select(IdempotencyRecord.id).where(IdempotencyRecord.id == record_id).with_for_update()
            )

    def owner_alive(self, record_id: int) -> bool:
        """True while another transaction holds the marker's lock (PostgreSQL only)."""
        if self.session.bind is None or self.session.bind.dialect.name != "postgresql":
            return True
        try:
            with self.session.begin_nested():
                self.session.execute(
                    select(IdempotencyRecord.id)
                    .where(IdempotencyRecord.id == record_id)
                    .with_for_update(nowait=True)
                )
        except OperationalError as exc:
            if getattr(exc.orig, "sqlstate", None) == "55P03":  # lock_not_available
                return True
            raise
        return False


__all__ = [
    "ApiKey",
    "Client",
    "Database",
    "IdempotencyRecord",
    "Round",
    "RoundFilter",
    "RoundPair",
    "RoundPlayer",
    "UnitOfWork",
    "decode_cursor",
    "encode_cursor",
]
