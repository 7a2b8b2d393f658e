"""Engines: URL normalisation, SQLite pragmas and `BEGIN IMMEDIATE` for write transactions."""

from __future__ import annotations

import json
import weakref
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

DEFAULT_DATABASE_URL = "sqlite:///var/capsa.db"

# Every engine made here, so gunicorn's post_fork can drop pools inherited from the master.
_ENGINES: weakref.WeakSet[Engine] = weakref.WeakSet()


def normalise_url(url: str) -> str:
    """Pin the PostgreSQL driver to psycopg 3 (plain `postgresql://` picks another by version)."""
    for prefix in ("postgresql://", "postgres://", "postgresql+psycopg2://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def json_text(value: Any) -> str:
    """JSON columns are stored as sorted, compact UTF-8 text: for our documents (ASCII keys,
    integers, strings) that is their RFC 8785 form, so the audit verifier compares the live
    column text with the hashed record without parsing it. Renderers restore display order."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def create_database(admin_url: str, prefix: str) -> tuple[str, str]:
    """A new, empty PostgreSQL database `<prefix>_<random>` on the server of `admin_url`.

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
            conn.execute(text(f'CREATE DATABASE "{name}"'))
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


def make_engine(
    url: str,
    statement_timeout_ms: int | None = None,
    lock_timeout_ms: int | None = LOCK_TIMEOUT_MS,
    **options: Any,
) -> Engine:
    """An engine for `url`; SQLite gets WAL, a busy timeout, foreign keys and IMMEDIATE writes.

    PostgreSQL only:
    - `statement_timeout_ms`: the server cancels any statement running longer, so a runaway
      query ends as an error (a 503) well before gunicorn's worker timeout kills the worker;
    - `lock_timeout_ms`: a wait for a row lock, or for another request's uncommitted
      Idempotency-Key, ends after this (2 s): the request answers 409 or 503 with Retry-After.
    """
    url = normalise_url(url)
    options.setdefault("json_serializer", json_text)
    if is_sqlite(url):
        engine = create_engine(url, **options)
        _configure_sqlite(engine)
    else:
        # No pre-ping: it costs a round trip per checkout. A connection that died is
        # invalidated on its first error (that request answers 503), then replaced.
        options.setdefault("pool_recycle", 1800)
        options.setdefault("pool_size", 5)
        options.setdefault("max_overflow", 10)
        options.setdefault("pool_timeout", 5)
        connect_args = dict(options.pop("connect_args", None) or {"connect_timeout": 3})
        settings = []
        if statement_timeout_ms:
            settings.append(f"-c statement_timeout={int(statement_timeout_ms)}")
        if lock_timeout_ms:
            settings.append(f"-c lock_timeout={int(lock_timeout_ms)}")
        if settings:
            connect_args["options"] = " ".join([connect_args.get("options", ""), *settings]).strip()
        options["connect_args"] = connect_args
        engine = create_engine(url, **options)
    _ENGINES.add(engine)
    return engine


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
