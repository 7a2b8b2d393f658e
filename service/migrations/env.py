"""Alembic environment: the URL comes from the config (set by `capsa db upgrade`) or DATABASE_URL."""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator

from alembic import context
from sqlalchemy.engine import make_url

from service.adapters.db import DEFAULT_DATABASE_URL, is_sqlite, make_engine, normalise_url
from service.adapters.migrate import UpgradeLockUnavailable
from service.adapters.models import Base

config = context.config
target_metadata = Base.metadata


def _url() -> str:
    url = config.get_main_option("sqlalchemy.url") or os.environ.get(
        "DATABASE_URL", DEFAULT_DATABASE_URL
    )
    return normalise_url(url)


def run_migrations_offline() -> None:
    url = _url()
    context.configure(
        url=url,
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=is_sqlite(url),
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    url = _url()
    connectable = config.attributes.get("connection")
    if connectable is not None:
        _run(connectable, url)
        return
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            if is_sqlite(url):
                with _sqlite_lock(url):
                    _run_sqlite(connection, url)
            else:
                _lock_postgres(connection)
                _run(connection, url)
    finally:
        engine.dispose()  # its connection's session lock goes with it


# One upgrade at a time (two nodes starting a release at once): the second waits for the
# first, then finds nothing left to do. Without it the two raced on alembic_version and on
# each other's DDL, and could both fail, leaving the schema between two migrations.
_UPGRADE_LOCK = 0x63617073615F6462  # "capsa_db": pg_advisory_lock's key


def _lock_postgres(connection: object) -> None:
    """A session lock, held across the migrations' own transactions until the connection
    closes. Tried, not waited for: a transaction waiting on it would be one that the first
    upgrade's `CREATE INDEX CONCURRENTLY` waits for in turn (a deadlock); between tries this
    connection holds no transaction."""
    conn = connection  # a SQLAlchemy Connection
    while True:
        taken = conn.exec_driver_sql(f"SELECT pg_try_advisory_lock({_UPGRADE_LOCK})").scalar()  # type: ignore[attr-defined]
        conn.commit()  # type: ignore[attr-defined]  # a session lock: it stays
        if taken:
            return
        time.sleep(0.5)


@contextlib.contextmanager
def _sqlite_lock(url: str) -> Iterator[None]:
    """The same on SQLite: a file lock beside the database (its own write lock is let go
    between migrations, and a waiting upgrade gave up after the busy timeout)."""
    database = make_url(url).database
    if not database or database == ":memory:":
        yield
        return
    path = f"{database}.upgrade-lock"
    try:
        lock = open(path, "a+b")  # noqa: SIM115  # closed by the with below
    except OSError as exc:
        raise UpgradeLockUnavailable(
            f"cannot open {path} ({exc.strerror or exc}), the lock that keeps two upgrades apart: "
            "the database's folder must be writable"
        ) from exc
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _run_sqlite(connection: object, url: str) -> None:
    """SQLite rebuilds a table to change it; foreign keys are off meanwhile (outside any
    transaction, as SQLite requires) and checked for the whole database afterwards."""
    raw = connection.connection.driver_connection  # type: ignore[attr-defined]
    raw.execute("PRAGMA foreign_keys=OFF")
    try:
        _run(connection, url)
        broken = raw.execute("PRAGMA foreign_key_check").fetchall()
        if broken:
            raise RuntimeError(f"foreign keys broken by the migration: {broken[:5]}")
    finally:
        raw.execute("PRAGMA foreign_keys=ON")


def _run(connection: object, url: str) -> None:
    context.configure(
        connection=connection,  # type: ignore[arg-type]
        target_metadata=target_metadata,
        render_as_batch=is_sqlite(url),
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
