"""Engines: URL normalisation, SQLite pragmas and `BEGIN IMMEDIATE` for write transactions;
PostgreSQL connection settings (pooler, keepalives) and the notices a commit is judged by."""

from __future__ import annotations

import json
import os
import re
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

from service.domain.errors import SettingError

from .default_url import (
    DEFAULT_DATABASE_URL as DEFAULT_DATABASE_URL,  # where it has always been imported from
)

# Every engine made here, so gunicorn's post_fork can drop pools inherited from the master.
_ENGINES: weakref.WeakSet[Engine] = weakref.WeakSet()


def normalise_url(url: str) -> str:
    """Pin the PostgreSQL driver to psycopg 3 (plain `postgresql://` picks another by version)."""
    for prefix in ("postgresql://", "postgres://", "postgresql+psycopg2://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


_SECRET_PARAMETER = re.compile(r"([?&][^=&#]*(?:password|secret)[^=&#]*=)[^&#]*", re.IGNORECASE)


def without_password(url: str) -> str:
    """`url` as it may be shown (messages, logs): its password, in its credentials or in any
    query parameter whose name holds `password` or `secret` (`sslpassword`, libpq's key file
    passphrase; `sentinel_password`), replaced by `***`; a text that is no URL as it is."""
    try:
        shown = make_url(url).render_as_string(hide_password=True)
    except Exception:  # not a URL SQLAlchemy reads (a port that is no number): hide what looks like one
        shown = re.sub(r"(://[^:/@]*:)[^/]*@", r"\1***@", url)
    return _SECRET_PARAMETER.sub(r"\1***", shown)


def json_text(value: Any) -> str:
    """JSON columns are stored as sorted, compact UTF-8 text: for our documents (ASCII keys,
    integers, strings) that is their RFC 8785 form, so the audit verifier compares the live
    column text with the hashed record without parsing it. Renderers restore display order."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def create_database(admin_url: str, prefix: str, template: str | None = None) -> tuple[str, str]:
    """A new PostgreSQL database `<prefix>_<random>` on the server of `admin_url`: empty, or a
    copy of the database named `template` (which nobody may be connected to meanwhile).

    Tests and benchmarks share the machine's server with each other and with CI, so each
    makes its own database and drops it (`drop_database`); returns `(url, name)`.
    """
    import secrets

    from sqlalchemy import text

    admin_url = normalise_url(admin_url)
    name = f"{prefix}_{secrets.token_hex(5)}"
    engine = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            copy = f' TEMPLATE "{template}"' if template else ""
            conn.execute(text(f'CREATE DATABASE "{name}"{copy}'))
    finally:
        engine.dispose()
    return make_url(admin_url).set(database=name).render_as_string(hide_password=False), name


def drop_database(admin_url: str, name: str) -> None:
    """Drop a database made by `create_database`, closing its connections first."""
    from sqlalchemy import text

    engine = create_engine(normalise_url(admin_url), isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        engine.dispose()


def is_sqlite(url: str) -> bool:
    return make_url(normalise_url(url)).get_backend_name() == "sqlite"


LOCK_TIMEOUT_MS = 2000


class Pooler(StrEnum):
    """What stands between the app and PostgreSQL (`DATABASE_POOLER`)."""

    NONE = "none"
    # pgbouncer in transaction mode: it refuses the `options` startup parameter and keeps
    # no server-side prepared statement from one transaction to the next.
    PGBOUNCER = "pgbouncer"


@dataclass(frozen=True)
class PostgresSettings:
    """How the app connects to PostgreSQL, from the environment (docs/operations.md).

    TCP keepalives and `tcp_user_timeout` are libpq connection parameters: a host that goes
    silent (a failed-over primary whose packets are dropped) ends its connections within
    about `tcp_user_timeout_ms` instead of the kernel's 15 minutes of retransmissions.
    """

    pooler: Pooler = Pooler.NONE
    # A commit not acknowledged by the synchronous standby within this is cancelled and
    # answered 503: statement_timeout does not bound the wait for the standby.
    write_deadline_s: float = 5.0
    keepalives_idle_s: int = 10
    keepalives_interval_s: int = 3
    keepalives_count: int = 3
    tcp_user_timeout_ms: int = 10_000
    # A receipt waits at most this long for the worker's next write to carry it before a
    # timer stores it alone (`pending_receipts`).
    receipt_flush_s: float = 0.5

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> PostgresSettings:
        env = os.environ if env is None else env
        raw = env.get("DATABASE_POOLER", Pooler.NONE).strip().lower() or Pooler.NONE
        try:
            pooler = Pooler(raw)
        except ValueError:
            choices = ", ".join(repr(p.value) for p in Pooler)
            raise SettingError(f"DATABASE_POOLER {raw!r} is not one of {choices}") from None
        return cls(
            pooler=pooler,
            write_deadline_s=_setting("DATABASE_WRITE_DEADLINE_S", env, float, 5.0),
            keepalives_idle_s=_setting("DATABASE_KEEPALIVES_IDLE_S", env, int, 10),
            keepalives_interval_s=_setting("DATABASE_KEEPALIVES_INTERVAL_S", env, int, 3),
            keepalives_count=_setting("DATABASE_KEEPALIVES_COUNT", env, int, 3),
            tcp_user_timeout_ms=_setting("DATABASE_TCP_USER_TIMEOUT_MS", env, int, 10_000),
            receipt_flush_s=_setting("RECEIPT_FLUSH_MS", env, int, 500) / 1000,
        )

    def connect_args(self) -> dict[str, Any]:
        """The libpq and psycopg connection parameters these settings add."""
        args: dict[str, Any] = {
            "keepalives": 1,
            "keepalives_idle": self.keepalives_idle_s,
            "keepalives_interval": self.keepalives_interval_s,
            "keepalives_count": self.keepalives_count,
            "tcp_user_timeout": self.tcp_user_timeout_ms,
        }
        if self.pooler is Pooler.PGBOUNCER:
            args["prepare_threshold"] = None  # psycopg never prepares: pgbouncer 1.18 cannot keep them
        return args

    @property
    def prepare(self) -> bool | None:
        """psycopg's `prepare=` for the hot statements: True direct, None (never) pooled."""
        return None if self.pooler is Pooler.PGBOUNCER else True


def _setting(name: str, env: Mapping[str, str], kind: type[Any], default: Any) -> Any:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise SettingError(f"{name} {raw!r} is not {'a whole number' if kind is int else 'a number'}") from None
    if value < 0:
        raise SettingError(f"{name} {raw!r} is negative")
    return value


SYNC_WAIT_CANCELLED = (
    # syncrep.c: a cancel (ours, at the write deadline) during the wait for the standby.
    "canceling wait for synchronous replication",
    # syncrep.c: the backend is being terminated during that wait.
    "canceling the wait for synchronous replication",
)


@dataclass
class Notices:
    """The server's notices on one connection since `clear()` (kept in the pool record's
    `info`): PostgreSQL reports a commit whose wait for the synchronous standby was
    cancelled as a success with a WARNING, the row committed on this node only."""

    messages: list[str] = field(default_factory=list)

    def __call__(self, diagnostic: Any) -> None:
        if diagnostic.severity_nonlocalized == "WARNING" and diagnostic.message_primary:
            self.messages.append(str(diagnostic.message_primary))

    def clear(self) -> None:
        self.messages.clear()

    @property
    def sync_wait_cancelled(self) -> str | None:
        """The warning that says the last commit may be on this node only, or None."""
        return next((m for m in self.messages if m.startswith(SYNC_WAIT_CANCELLED)), None)


NOTICES = "capsa_notices"


class Replication(StrEnum):
    """What a commit waits for on the primary, as /readyz and the metrics report it."""

    SYNCHRONOUS = "synchronous"  # a synchronous standby acknowledges every commit
    # synchronous_standby_names is set but no such standby streams: every commit waits,
    # and answers 503 at the write deadline (until the standby is back or the formation
    # turns synchronous replication off)
    WAITING = "waiting"
    # nothing to wait for: one node (pg_auto_failover's wait_primary), degraded
    ASYNCHRONOUS = "asynchronous"
    UNKNOWN = "unknown"  # the role may not read pg_stat_replication's sync_state (pg_monitor)


@dataclass(frozen=True)
class ServerState:
    """What /readyz reads from the server, in one statement."""

    statement_timeout_ms: int
    lock_timeout_ms: int
    in_recovery: bool
    replication: Replication
    standbys: int  # streaming standbys (any sync state)
    read_only: bool = False  # default_transaction_read_only: a primary fenced for writes


class ReplicaStatus(StrEnum):
    """The reports' standby as its probe finds it (`replicas.Replica.state`)."""

    OK = "ok"  # a standby within max_lag_s: it serves the reports
    LAGGING = "lagging"  # a standby beyond max_lag_s: the primary serves
    UNAVAILABLE = "unavailable"  # no answer: the primary serves
    PRIMARY = "primary"  # the URL found a server not in recovery: it serves, lag 0


@dataclass(frozen=True, slots=True)
class ReplicaState:
    status: ReplicaStatus
    lag_seconds: float | None  # None: unknown (unavailable, or nothing replayed yet)

    @property
    def serves(self) -> bool:
        return self.status in (ReplicaStatus.OK, ReplicaStatus.PRIMARY)


READ_STATE = """
SELECT (SELECT setting::int FROM pg_settings WHERE name = 'statement_timeout'),
       (SELECT setting::int FROM pg_settings WHERE name = 'lock_timeout'),
       pg_is_in_recovery(),
       current_setting('synchronous_standby_names'),
       count(*) FILTER (WHERE sync_state IN ('sync', 'quorum')),
       count(*) FILTER (WHERE sync_state IS NULL),
       count(*),
       current_setting('default_transaction_read_only')::bool
  FROM pg_stat_replication
"""


def server_state(row: tuple[Any, ...]) -> ServerState:
    statement, lock, in_recovery, names, sync, hidden, standbys, read_only = row
    if not str(names).strip():
        replication = Replication.ASYNCHRONOUS
    elif sync:
        replication = Replication.SYNCHRONOUS
    elif hidden:
        replication = Replication.UNKNOWN
    else:
        replication = Replication.WAITING
    return ServerState(int(statement), int(lock), bool(in_recovery), replication, int(standbys), bool(read_only))


def make_engine(
    url: str,
    statement_timeout_ms: int | None = None,
    lock_timeout_ms: int | None = LOCK_TIMEOUT_MS,
    postgres: PostgresSettings | None = None,
    **options: Any,
) -> Engine:
    """An engine for `url`; SQLite gets WAL, a busy timeout, foreign keys and IMMEDIATE writes.

    PostgreSQL only:
    - `statement_timeout_ms`: the server cancels any statement running longer, so a runaway
      query ends as an error (a 503) well before gunicorn's worker timeout kills the worker;
    - `lock_timeout_ms`: a wait for a row lock, or for another request's uncommitted
      Idempotency-Key, ends after this (2 s): the request answers 409 or 503 with Retry-After.
      Both go as the `options` startup parameter, except through pgbouncer, which refuses
      it: there they are the role's (`ALTER ROLE ... SET`), and /readyz checks them;
    - `postgres`: pooler, keepalives, write deadline (default: from the environment). The URL
      may name several hosts (`?host=A:5432&host=B:5432&target_session_attrs=read-write`):
      libpq tries them in turn on each new connection and keeps the first that accepts writes.
    """
    url = normalise_url(url)
    options.setdefault("json_serializer", json_text)
    # A failed statement's error (a traceback in the log) names the statement, never its
    # parameters: webhook and view-link secrets are written as parameters.
    options.setdefault("hide_parameters", True)
    if is_sqlite(url):
        engine = create_engine(url, **options)
        _configure_sqlite(engine)
    else:
        postgres = postgres or PostgresSettings.from_env()
        # No pre-ping: it costs a round trip per checkout. A connection that died is
        # invalidated on its first error (that request answers 503), then replaced.
        options.setdefault("pool_recycle", 1800)
        options.setdefault("pool_size", 5)
        options.setdefault("max_overflow", 10)
        options.setdefault("pool_timeout", 5)
        connect_args = {
            # a connect_timeout in the URL is the operator's (connect_args would override it)
            **({} if "connect_timeout" in make_url(url).query else {"connect_timeout": 3}),
            **postgres.connect_args(),
            **dict(options.pop("connect_args", None) or {}),
        }
        settings = []
        if statement_timeout_ms:
            settings.append(f"-c statement_timeout={int(statement_timeout_ms)}")
        if lock_timeout_ms:
            settings.append(f"-c lock_timeout={int(lock_timeout_ms)}")
        if settings and postgres.pooler is Pooler.NONE:
            connect_args["options"] = " ".join([connect_args.get("options", ""), *settings]).strip()
        options["connect_args"] = connect_args
        engine = create_engine(url, **options)
        _configure_postgres(engine)
    _ENGINES.add(engine)
    return engine


def _configure_postgres(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, record: Any) -> None:
        notices = Notices()
        dbapi_conn.add_notice_handler(notices)
        record.info[NOTICES] = notices

    @event.listens_for(engine, "handle_error")
    def _on_error(context: Any) -> None:
        # 25006: this node became a standby (or pgbouncer points at one). Like a dropped
        # connection, the pool's connections are replaced, so the next one finds the primary.
        if getattr(context.original_exception, "sqlstate", None) == READ_ONLY:
            context.is_disconnect = True


READ_ONLY = "25006"  # read_only_sql_transaction


def notices_of(info: Mapping[str, Any]) -> Notices:
    """The notices of a pooled connection (its record's `info`)."""
    found = info.get(NOTICES)
    return found if isinstance(found, Notices) else Notices()


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" event emit BEGIN itself (pysqlite's own is deferred only).
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=5000")
        if engine.url.database not in (None, "", ":memory:"):
            cur.execute("PRAGMA journal_mode=WAL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        # Writers take the lock up front, so two writers never deadlock on an upgrade.
        if conn.get_execution_options().get("capsa_write"):
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            conn.exec_driver_sql("BEGIN")


def dispose_all() -> None:
    """Drop inherited pool connections in a forked worker (gunicorn `post_fork`)."""
    for engine in list(_ENGINES):
        engine.dispose(close=False)
