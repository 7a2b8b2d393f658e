"""Alembic environment: the URL comes from the config (set by `capsa db upgrade`) or DATABASE_URL."""

from __future__ import annotations

import os

from alembic import context

from service.adapters.db import DEFAULT_DATABASE_URL, is_sqlite, make_engine, normalise_url
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
                _run_sqlite(connection, url)
            else:
                _run(connection, url)
    finally:
        engine.dispose()


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
