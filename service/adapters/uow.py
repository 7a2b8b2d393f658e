"""The unit of work: one transaction per request, the repositories over it, error translation.

    with db.unit_of_work(write=True) as uow:
        appended = uow.chain.append(record, claim=claim)
        uow.commit()

Services reach storage only through the repositories a unit of work offers (`clients`,
`rounds`, `chain`, `signatures`, `ledger`, `idempotency`, `secrets`, `deals`, `games`,
`matches`, `susun_games`, `webhooks`); anything else rolls back. Every driver error leaves
here as an adapter error (`errors.py`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

import psycopg
from sqlalchemy import Engine, text
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from service.domain.signing import Keyring

from .chain import ChainRepository, PostgresChain, SqliteChain
from .clients import ClientRepository
from .db import make_engine
from .errors import DatabaseUnavailable
from .games import DealRepository, GameRepository, MatchRepository
from .idempotency import IdempotencyRepository
from .ledger import LedgerRepository, SecretRepository
from .rounds import RoundRepository
from .signatures import SignatureRepository
from .susun_games import SusunGameRepository
from .translate import translate, translated
from .webhooks import WebhookRepository

if TYPE_CHECKING:
    from .replicas import Replica


class Database:
    """An engine and its session factories (plain reads, IMMEDIATE writes on SQLite).

    `read_only`: a standby serving reports (`replicas.Replica`); its units of work never
    write, so a missing receipt is remade in memory only. `replica`: where the reporting
    routes read when it is current enough (None: the primary serves them too)."""

    def __init__(self, url: str, keyring: Keyring | None = None, read_only: bool = False, **options: Any) -> None:
        self.engine: Engine = make_engine(url, **options)
        self.read_only = read_only
        self.replica: Replica | None = None
        # The receipts' signing keys (SIGNING_KEY_FILE); None: records are stored unsigned
        # and signed once a key exists.
        self.keyring = keyring
        self.dialect = self.engine.dialect.name
        read_engine = self.engine
        if self.dialect == "postgresql":
            # Reads are single statements: autocommit saves the BEGIN and ROLLBACK round trips.
            read_engine = self.engine.execution_options(isolation_level="AUTOCOMMIT")
        self._read = sessionmaker(read_engine, expire_on_commit=False)
        self._write = sessionmaker(self.engine.execution_options(capsa_write=True), expire_on_commit=False)
        snapshot_engine = self.engine
        if self.dialect == "postgresql":
            # One snapshot for every query of a report (its as_of and its rows agree). A
            # standby's sessions are read-only by their connection (Replica); psycopg would
            # say `BEGIN READ WRITE` there when it resets the option, which a standby refuses.
            read_only_option = {} if read_only else {"postgresql_readonly": True}
            snapshot_engine = self.engine.execution_options(isolation_level="REPEATABLE READ", **read_only_option)
        # SQLite: a deferred BEGIN reads one WAL snapshot from its first read on.
        self._snapshot = sessionmaker(snapshot_engine, expire_on_commit=False)

    def unit_of_work(self, write: bool = False) -> UnitOfWork:
        if write and self.read_only:
            raise RuntimeError("a read-only database has no write units of work")
        return UnitOfWork(self, self._write() if write else self._read())

    def snapshot(self) -> UnitOfWork:
        """A read-only unit of work whose queries all see one snapshot (for reports)."""
        return UnitOfWork(self, self._snapshot())

    def ping(self) -> None:
        """Raise DatabaseUnavailable unless the database answers."""
        try:
            with self.engine.connect() as conn:
                conn.execute(text("SELECT 1"))
        except (OperationalError, InterfaceError) as exc:
            raise DatabaseUnavailable(str(exc.orig)) from exc

    def run_alone(self, work: Callable[[Any], None]) -> None:
        """Run `work(cursor)` as a one-statement transaction on a pooled psycopg connection
        in autocommit: one round trip, no BEGIN or COMMIT (PostgreSQL only). Driver errors
        propagate as they are (the caller translates them)."""
        fairy = self.engine.raw_connection()
        try:
            conn = fairy.driver_connection
            assert isinstance(conn, psycopg.Connection)
            try:
                conn.autocommit = True
                with conn.cursor() as cursor:
                    work(cursor)
            except psycopg.Error as exc:
                if conn.broken or conn.closed:
                    fairy.invalidate(exc)
                raise
            finally:
                if not (conn.broken or conn.closed):
                    conn.autocommit = False
        finally:
            fairy.close()

    def dispose(self) -> None:
        self.engine.dispose()
        if self.replica is not None:
            self.replica.db.dispose()


class UnitOfWork:
    """`with db.unit_of_work(write=True) as uow: ...; uow.commit()`; anything else rolls back."""

    def __init__(self, db: Database, session: Session) -> None:
        self.db = db
        self.session = session
        self._deferred: list[Callable[[Any], None]] = []
        self.clients = ClientRepository(session)
        self.signatures = SignatureRepository(self)
        self.rounds = RoundRepository(session, self.signatures)
        self.chain: ChainRepository = (PostgresChain if db.dialect == "postgresql" else SqliteChain)(self)
        self.ledger = LedgerRepository(session)
        self.idempotency = IdempotencyRepository(session)
        self.secrets = SecretRepository(session)
        self.deals = DealRepository(session)
        self.games = GameRepository(session)
        self.matches = MatchRepository(session)
        self.susun_games = SusunGameRepository(session)
        self.webhooks = WebhookRepository(session)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._deferred.clear()
        with contextlib.suppress(Exception):  # the original error matters more
            self.session.rollback()
        self.session.close()
        if exc is not None:
            found = translate(exc)
            if found is not None:
                raise found from exc

    def defer(self, work: Callable[[Any], None]) -> None:
        """Run `work(psycopg cursor)` at commit (the PostgreSQL chain append)."""
        self._deferred.append(work)

    def commit(self) -> None:
        deferred, self._deferred = self._deferred, []
        with translated():
            if deferred and len(deferred) == 1 and not self.session.in_transaction():
                # Nothing else was done in this unit of work: the statement is the transaction.
                self.db.run_alone(deferred[0])
                return
            if deferred:
                raw = self.session.connection().connection.driver_connection
                assert isinstance(raw, psycopg.Connection)
                with raw.cursor() as cursor:
                    for work in deferred:
                        work(cursor)
            self.session.commit()

    def flush(self) -> None:
        with translated():
            self.session.flush()


__all__ = ["Database", "UnitOfWork", "translate", "translated"]
