"""The unit of work: one transaction per request, the repositories over it, error translation.

    with db.unit_of_work(write=True) as uow:
        appended = uow.chain.append(record, claim=claim)
        uow.commit()

Services reach storage only through the repositories a unit of work offers (`clients`,
`rounds`, `chain`, `signatures`, `ledger`, `rollups`, `idempotency`, `secrets`, `deals`, `games`,
`matches`, `susun_games`, `webhooks`); anything else rolls back. Every driver error leaves
here as an adapter error (`errors.py`).

This module is the top of the adapters: it imports the repositories, and they import
nothing of it (what they need of the unit of work, its session and deferred work, is a
`transactions.Transaction`); `replicas`, above it, makes a read-only `Database` of its own.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from functools import cached_property
from types import TracebackType
from typing import Any, Protocol, Self

import psycopg
from sqlalchemy import Engine, event, text
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from service.domain.signing import Keyring

from . import chain_scan
from .banting import GameRepository, MatchRepository
from .chain import ChainRepository, PostgresChain, SqliteChain
from .chain_scan import Statement
from .clients import ClientRepository
from .db import (
    LOCK_TIMEOUT_MS,
    READ_ONLY,
    READ_STATE,
    Notices,
    PostgresSettings,
    ReplicaState,
    ServerState,
    make_engine,
    notices_of,
    server_state,
)
from .deals import DealRepository
from .errors import CommitNotReplicated, DatabaseUnavailable
from .idempotency import IdempotencyRepository
from .ledger import LedgerRepository
from .pending_receipts import PendingReceipts, Receipt, flush_with
from .rollups import RollupRepository
from .rounds import RoundRepository
from .secrets import SecretRepository
from .signatures import SignatureRepository
from .signatures import store as store_signed
from .susun_games import SusunGameRepository
from .transactions import Deferred, Transaction
from .translate import translate, translated
from .webhooks import WebhookRepository


class Standby(Protocol):
    """The reports' standby a `Database` may have: `replicas.Replica`, which sits above this
    module (it makes a read-only `Database` of its own), so it is named here by what the
    database and its readers use of it."""

    @property
    def db(self) -> Database: ...

    @property
    def max_lag_s(self) -> float: ...

    def state(self, fresh: bool = False) -> ReplicaState: ...

    def mark_unavailable(self) -> None: ...


def _utc_now() -> datetime:
    return datetime.now(UTC)


class Database:
    """An engine and its session factories (plain reads, IMMEDIATE writes on SQLite).

    `read_only`: a standby serving reports (`replicas.Replica`); its units of work never
    write, so a missing receipt is remade in memory only. `replica`: where the reporting
    routes read when it is current enough (None: the primary serves them too)."""

    def __init__(
        self,
        url: str,
        keyring: Keyring | None = None,
        postgres: PostgresSettings | None = None,
        read_only: bool = False,
        clock: Callable[[], datetime] | None = None,
        **options: Any,
    ) -> None:
        self.engine: Engine = make_engine(url, postgres=postgres, **options)
        # What every connection's timeouts should be (/readyz compares, through a pooler too).
        self.timeouts_ms = (int(options.get("statement_timeout_ms") or 0), int(options.get("lock_timeout_ms", LOCK_TIMEOUT_MS) or 0))
        self.read_only = read_only
        # The service's clock (the app passes its own); only a missing receipt's remake reads it.
        self.clock: Callable[[], datetime] = clock or _utc_now
        self.replica: Standby | None = None
        # The receipts' signing keys (SIGNING_KEY_FILE); None: records are stored unsigned
        # and signed once a key exists.
        self.keyring = keyring
        self.dialect = self.engine.dialect.name
        if self.dialect == "postgresql" and self.timeouts_ms[0] > 0:
            _cut_off_statements(self.engine, statement_cut_off_s(self.timeouts_ms[0] / 1000))
        # Connection settings (pooler, write deadline); the environment's unless given.
        self.postgres = postgres or (PostgresSettings.from_env() if self.dialect == "postgresql" else PostgresSettings())
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
        # PostgreSQL: receipts signed after a write, waiting for this process's next write
        # statement to carry them (`pending_receipts`).
        self.receipts = PendingReceipts(self._store_receipts, self.postgres.receipt_flush_s)

    def _store_receipts(self, receipts: list[Receipt]) -> None:
        """Store waiting receipts in a short transaction of their own (no write came)."""
        fairy = self.engine.raw_connection()
        try:
            conn = fairy.driver_connection
            assert isinstance(conn, psycopg.Connection)
            with conn.cursor() as cursor:
                flush_with(cursor, receipts)
            conn.commit()
        finally:
            fairy.close()

    def sign_records(self, keyring: Keyring, records: list[tuple[str, int, bytes, str]]) -> int:
        """Sign each (client, sequence, canonical, hash) with the key of its time and store the
        receipts still missing, in a short transaction of its own: how many are stored."""
        return len(store_signed(self.engine, keyring, records))

    def unit_of_work(self, write: bool = False) -> UnitOfWork:
        if write and self.read_only:
            raise RuntimeError("a read-only database has no write units of work")
        return UnitOfWork(self, self._write if write else self._read)

    def snapshot(self) -> UnitOfWork:
        """A read-only unit of work whose queries all see one snapshot (for reports)."""
        return UnitOfWork(self, self._snapshot)

    def ping(self) -> None:
        """Raise DatabaseUnavailable unless the database answers."""
        try:
            with self.engine.connect() as conn:
                conn.execute(text("SELECT 1"))
        except (OperationalError, InterfaceError) as exc:
            raise DatabaseUnavailable(str(exc.orig)) from exc

    def server_state(self) -> ServerState | None:
        """The PostgreSQL server's timeouts and replication as this app's connections see
        them (None on SQLite); DatabaseUnavailable unless it answers."""
        if self.dialect != "postgresql":
            self.ping()
            return None
        try:
            with self.engine.connect() as conn:
                row = conn.exec_driver_sql(READ_STATE).one()
        except (OperationalError, InterfaceError) as exc:
            raise DatabaseUnavailable(str(exc.orig)) from exc
        return server_state(tuple(row))

    def schema_refusal(self) -> str | None:
        """Why this release cannot serve the database's schema (`migrate.schema_refusal`),
        or None; DatabaseUnavailable unless it answers."""
        from .migrate import schema_refusal

        try:
            return schema_refusal(self.engine)
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
            notices = notices_of(fairy.info)
            notices.clear()
            try:
                conn.autocommit = True
                with conn.cursor() as cursor, self.write_deadline(conn):
                    work(cursor)
            except psycopg.Error as exc:
                if conn.broken or conn.closed or exc.sqlstate == READ_ONLY:
                    # As SQLAlchemy does on a disconnect: every connection of the pool made
                    # before now is replaced (after a failover they all name the old primary).
                    self.engine.pool._invalidate(fairy, exc)
                raise
            finally:
                if not (conn.broken or conn.closed):
                    conn.autocommit = False
            replicated(notices)
        finally:
            fairy.close()

    def wait_replicated(self) -> None:
        """Return once all this node has committed is on its synchronous standby (at once
        when it has none); CommitNotReplicated when that wait runs past the write deadline.
        A commit of our own waits for the standby to acknowledge its place in the WAL, and
        the standby acknowledges in WAL order, so everything before it is there too."""
        if self.dialect != "postgresql":
            return
        with translated():
            self.run_alone(_commit_a_wal_record)

    def write_deadline(self, conn: psycopg.Connection[Any]) -> contextlib.AbstractContextManager[None]:
        """Cancel what `conn` runs (its commit's wait for the standby included) once the
        write deadline has passed: a cancelled statement fails (57014), a cancelled wait
        for the standby turns into the warning `replicated` refuses."""
        return _DEADLINES.armed(conn, self.postgres.write_deadline_s)

    def read_deadline(self, conn: psycopg.Connection[Any], seconds: float) -> contextlib.AbstractContextManager[None]:
        """Cut `conn` off once `seconds` have passed: what it waits for then fails as a lost
        connection. For a standby's reads, whose server may be frozen (a stopped process, a
        hung disk) while its host's kernel still acknowledges: no statement_timeout, cancel or
        TCP timeout reaches a reader waiting on it, and the primary can answer instead."""
        return _DEADLINES.armed(conn, seconds, sever=True)

    def dispose(self) -> None:
        self.receipts.close()
        self.engine.dispose()
        if self.replica is not None:
            self.replica.db.dispose()


class UnitOfWork:
    """`with db.unit_of_work(write=True) as uow: ...; uow.commit()`; anything else rolls back.

    The session and each repository are made on first use: the write of a round uses only
    `chain`, whose statement runs on a connection of its own at commit, so it never pays
    for a session it would not use."""

    def __init__(self, db: Database, sessions: Callable[[], Session]) -> None:
        self.db = db
        self.transaction = Transaction(db, sessions)

    @property
    def session(self) -> Session:
        return self.transaction.session

    def in_transaction(self) -> bool:
        """Whether this unit of work's session holds a transaction (it may have none yet)."""
        return self.transaction.in_transaction()

    def begin(self) -> None:
        """Open the transaction now, so a chain append runs at once inside it (taking the
        client's chain head then) rather than alone at commit: for a write that locks other
        rows after its record, in the order a Big Two game's last move takes them."""
        with translated():
            self.session.connection()

    @cached_property
    def clients(self) -> ClientRepository:
        return ClientRepository(self.session)

    @cached_property
    def signatures(self) -> SignatureRepository:
        return SignatureRepository(self.transaction)

    @cached_property
    def rounds(self) -> RoundRepository:
        return RoundRepository(self.session, self.signatures)

    @cached_property
    def chain(self) -> ChainRepository:
        return (PostgresChain if self.db.dialect == "postgresql" else SqliteChain)(self.transaction, self.signatures)

    @cached_property
    def ledger(self) -> LedgerRepository:
        return LedgerRepository(self.session)

    @cached_property
    def rollups(self) -> RollupRepository:
        return RollupRepository(self.session, self.ledger)

    @cached_property
    def idempotency(self) -> IdempotencyRepository:
        return IdempotencyRepository(self.session)

    @cached_property
    def secrets(self) -> SecretRepository:
        return SecretRepository(self.session)

    @cached_property
    def deals(self) -> DealRepository:
        return DealRepository(self.session)

    @cached_property
    def games(self) -> GameRepository:
        return GameRepository(self.session)

    @cached_property
    def matches(self) -> MatchRepository:
        return MatchRepository(self.session)

    @cached_property
    def susun_games(self) -> SusunGameRepository:
        return SusunGameRepository(self.session)

    @cached_property
    def webhooks(self) -> WebhookRepository:
        return WebhookRepository(self.session)

    def scan_chain(self, client_id: str, start: int, stop: int) -> Iterator[Statement]:
        """The verifier's scan of records [start, stop) in this unit of work's transaction
        (`chain_scan.scan`: one iterator per statement)."""
        return chain_scan.scan(self.session.connection(), client_id, start, stop)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.transaction.close()
        if exc is not None:
            found = translate(exc)
            if found is not None:
                raise found from exc

    def defer(self, work: Deferred) -> None:
        """Run `work(psycopg cursor)` at commit (the PostgreSQL chain append)."""
        self.transaction.defer(work)

    def commit(self) -> None:
        deferred = self.transaction.take_deferred()
        with translated():
            if deferred and len(deferred) == 1 and not self.in_transaction():
                # Nothing else was done in this unit of work: the statement is the transaction.
                self.db.run_alone(deferred[0])
                return
            if not self.transaction.opened and not deferred:
                return  # nothing was done
            if self.db.dialect != "postgresql" or not (deferred or self.in_transaction()):
                self.session.commit()
                return
            connection = self.session.connection()
            raw = connection.connection.driver_connection
            assert isinstance(raw, psycopg.Connection)
            notices = notices_of(connection.info)
            notices.clear()
            with self.db.write_deadline(raw):
                if deferred:
                    with raw.cursor() as cursor:
                        for work in deferred:
                            work(cursor)
                self.session.commit()
            replicated(notices)

    def flush(self) -> None:
        with translated():
            self.session.flush()

    @contextlib.contextmanager
    def savepoint(self) -> Iterator[None]:
        """A savepoint in this transaction: when the block raises, only what it did is
        rolled back, and the transaction goes on (to commit what came before it)."""
        with translated():
            nested = self.session.begin_nested()
        try:
            yield
        except BaseException:
            with translated():
                nested.rollback()
            raise
        with translated():
            nested.commit()


def _commit_a_wal_record(cursor: Any) -> None:
    # A commit waits for the standby only if its transaction wrote WAL (an xid alone does not):
    # a transactional logical message is WAL and nothing else (no row, any role may send it).
    cursor.execute("SELECT pg_logical_emit_message(true, 'capsa', '')")


def replicated(notices: Notices) -> None:
    """Raise CommitNotReplicated when the server said the last commit's wait for the
    synchronous standby was cancelled (it reports that commit as a success)."""
    warning = notices.sync_wait_cancelled
    if warning is not None:
        raise CommitNotReplicated(f"{warning}: committed on the primary only, not acknowledged")


# A write past its deadline is cancelled; a cancel the server does not take within CANCEL_S,
# or whose statement still runs SEVER_AFTER_CANCEL_S later, cuts the connection off: a server
# that accepts connections but answers nothing (stopped, a hung disk, its kernel still
# acknowledging) gets no cancel, and no statement or TCP timeout fires on it. The write then
# fails as on a lost connection (503), deadline + 3 + 2 s at worst, well within gunicorn's timeout.
CANCEL_S = 3.0
SEVER_AFTER_CANCEL_S = 2.0


def statement_cut_off_s(statement_s: float) -> float:
    """How long one statement may wait for a server with this statement timeout before its
    connection is cut off: twice the timeout, which a live server ends it within (a pooler's
    queue before it included)."""
    return 2 * statement_s


# conn.info key of a statement's armed cut-off
_CUT_OFF = "capsa_statement_cut_off"


def _cut_off_statements(engine: Engine, seconds: float) -> None:
    """Cut the connection of every statement run through `engine` (SQLAlchemy's; the write
    path's own statement has its deadline) off after `seconds`. The server's statement
    timeout ends a statement on a live server; one that accepts connections but answers
    nothing (stopped, a hung disk) ends none, and a read (or a statement of a larger write
    transaction) waited until gunicorn killed the worker (30 s), holding it meanwhile. It
    now fails as on a lost connection: 503, and the pool's next connection."""

    def arm(conn: Any, cursor: Any, *_: Any) -> None:
        driver = cursor.connection
        if isinstance(driver, psycopg.Connection):
            _disarm(conn)  # a statement that neither returned nor failed (none should)
            conn.info[_CUT_OFF] = _DEADLINES.arm(driver, seconds, sever=True)

    def _disarm(conn: Any) -> None:
        token = conn.info.pop(_CUT_OFF, None)
        if token is not None:
            _DEADLINES.disarm(token)

    def failed(context: Any) -> None:
        if context.connection is not None:
            _disarm(context.connection)

    event.listen(engine, "before_cursor_execute", arm)
    event.listen(engine, "after_cursor_execute", lambda conn, *_: _disarm(conn))
    event.listen(engine, "handle_error", failed)


class _Deadlines:
    """One watchdog thread per process that cancels the writes past their deadline (a
    thread per write would cost more than the write's statement)."""

    def __init__(self) -> None:
        self._pid = -1
        self._cond = threading.Condition()
        self._armed: dict[int, tuple[float, psycopg.Connection[Any], bool]] = {}
        self._next = 0
        # When the watchdog wakes next on its own (None: it sleeps until notified). A deadline
        # later than that needs no wake-up (writes', all of one length, come in time order),
        # so the watchdog, once asleep until the first, is woken about once per deadline
        # period rather than once per write (a thread switch each); an earlier one wakes it.
        self._wake: float | None = None

    @contextlib.contextmanager
    def armed(self, conn: psycopg.Connection[Any], seconds: float, sever: bool = False) -> Iterator[None]:
        """Past `seconds`, cancel what `conn` runs (the server stops it; a server that does
        not, CANCEL_S and SEVER_AFTER_CANCEL_S), or with `sever` shut its socket (for a
        server that may not answer a cancel)."""
        if seconds <= 0:
            yield
            return
        token = self.arm(conn, seconds, sever)
        try:
            yield
        finally:
            self.disarm(token)

    def disarm(self, token: int) -> None:
        # Under the watchdog's lock: a cancel already being sent finishes first, and none is
        # sent after this, when the connection may be running the next request's work.
        with self._cond:
            self._armed.pop(token, None)

    def arm(self, conn: psycopg.Connection[Any], seconds: float, sever: bool) -> int:
        """`armed` without its context: the caller disarms the token it returns."""
        if self._pid != os.getpid():  # first use in this (forked) process
            self._pid = os.getpid()
            self._cond = threading.Condition()
            self._armed = {}
            self._wake = None
            threading.Thread(target=self._watch, args=(self._cond,), name="capsa-write-deadlines", daemon=True).start()
        with self._cond:
            self._next += 1
            at = time.monotonic() + seconds
            self._armed[self._next] = (at, conn, sever)
            if self._wake is None or at < self._wake:
                self._wake = at  # what the watchdog will wait for: later arms need not wake it
                self._cond.notify()
            return self._next

    def _watch(self, cond: threading.Condition) -> None:
        with cond:
            while cond is self._cond:
                now = time.monotonic()
                for token in [t for t, (at, _, _) in self._armed.items() if at <= now]:
                    _, conn, sever = self._armed.pop(token)
                    if not sever:
                        try:
                            conn.cancel_safe(timeout=CANCEL_S)
                        except Exception:  # not sent, or not answered: the server may be frozen
                            pass
                        else:  # sent: the statement ends with its error, or is cut off after all
                            self._armed[token] = (time.monotonic() + SEVER_AFTER_CANCEL_S, conn, True)
                            continue
                    with contextlib.suppress(Exception):  # the statement's own error tells the story
                        _shut(conn)
                wake = min((at for at, _, _ in self._armed.values()), default=None)
                self._wake = wake
                cond.wait(None if wake is None else max(wake - now, 0.001))


def _shut(conn: psycopg.Connection[Any]) -> None:
    """Shut the connection's socket both ways (through a duplicate of its descriptor, which
    alone is closed here): a read waiting on it returns at once, as from a lost server."""
    descriptor = os.dup(conn.pgconn.socket)
    try:
        duplicate = socket.socket(fileno=descriptor)
    except OSError:
        os.close(descriptor)
        raise
    try:
        duplicate.shutdown(socket.SHUT_RDWR)
    finally:
        duplicate.close()


_DEADLINES = _Deadlines()


__all__ = ["Database", "Standby", "UnitOfWork", "replicated", "translate", "translated"]
