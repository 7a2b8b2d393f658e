"""What a repository needs of the unit of work it runs in, below both so imports run one way:
`uow` (the unit of work, the top) imports the repositories, which import this module, never
`uow`.

A `Transaction` is one unit of work's session, made on first use, and the statements
deferred to its commit (the PostgreSQL chain append, run on a psycopg cursor); `Storage` is
what a repository reads of the database it belongs to: its engine, the receipts' keyring,
whether it is a read-only standby, its PostgreSQL settings, and the receipts waiting to
ride in this process's next write. `uow.Database` is one.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from service.domain.signing import Keyring

from .db import PostgresSettings
from .pending_receipts import PendingReceipts

Deferred = Callable[[Any], None]  # runs at commit with a psycopg cursor


class Storage(Protocol):
    """The database a repository's statements go to, as the repository reads it."""

    @property
    def engine(self) -> Engine: ...

    @property
    def keyring(self) -> Keyring | None: ...

    @property
    def read_only(self) -> bool: ...

    @property
    def clock(self) -> Callable[[], datetime]: ...

    @property
    def postgres(self) -> PostgresSettings: ...

    @property
    def receipts(self) -> PendingReceipts: ...


class Transaction:
    """A unit of work's session (made on first use: the write of a round needs none on
    PostgreSQL) and the work deferred to its commit."""

    def __init__(self, db: Storage, sessions: Callable[[], Session]) -> None:
        self.db = db
        self._sessions = sessions
        self._session: Session | None = None
        self._deferred: list[Deferred] = []

    @property
    def session(self) -> Session:
        if self._session is None:
            self._session = self._sessions()
        return self._session

    @property
    def opened(self) -> bool:
        """Whether a session was made (anything was read or written through it)."""
        return self._session is not None

    def in_transaction(self) -> bool:
        """Whether the session holds a transaction (it may have none yet)."""
        return self._session is not None and self._session.in_transaction()

    def defer(self, work: Deferred) -> None:
        """Run `work(psycopg cursor)` at commit (the PostgreSQL chain append)."""
        self._deferred.append(work)

    def take_deferred(self) -> list[Deferred]:
        """The deferred work, in order, handed over once (the commit runs it)."""
        deferred, self._deferred = self._deferred, []
        return deferred

    def close(self) -> None:
        """Drop the deferred work and end the session, rolling back what was not committed."""
        self._deferred.clear()
        if self._session is not None:
            with contextlib.suppress(Exception):  # the caller's error, if any, matters more
                self._session.rollback()
            self._session.close()


__all__ = ["Deferred", "Storage", "Transaction"]
