"""Run the packaged Alembic migrations programmatically (`capsa db upgrade`, tests, bench)."""

from __future__ import annotations

import functools
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Engine, make_url

from .db import normalise_url

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    # ConfigParser interpolation: a literal % in a password must be doubled.
    cfg.set_main_option("sqlalchemy.url", normalise_url(url).replace("%", "%%"))
    return cfg


class UpgradeLockUnavailable(Exception):
    """The file lock that keeps two SQLite upgrades apart cannot be opened beside the
    database; the message says which and why."""


def upgrade(url: str, revision: str = "head") -> None:
    command.upgrade(alembic_config(url), revision)


def revision_at(url: str) -> str | None:
    """The migration the database at `url` is at (None: none, or a SQLite file that does not
    exist yet, which is left unmade)."""
    from .db import make_engine

    database = make_url(normalise_url(url))
    if database.get_backend_name() == "sqlite" and (
        not database.database or database.database == ":memory:" or not Path(database.database).exists()
    ):
        return None
    engine = make_engine(normalise_url(url))
    try:
        return current_revision(engine)
    finally:
        engine.dispose()


def downgrade(url: str, revision: str) -> None:
    command.downgrade(alembic_config(url), revision)


def head_revision() -> str | None:
    """The newest migration this release ships."""
    return ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()


@functools.cache
def shipped_revisions() -> tuple[str, ...]:
    """Every migration this release ships, oldest first (read once: the scripts are loaded)."""
    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    return tuple(reversed([r.revision for r in script.walk_revisions()]))


def schema_refusal(engine: Engine) -> str | None:
    """Why this release cannot serve the database's schema: no capsa tables, or a migration
    older than its newest; None when it can (at it, or at a newer one, which a release
    before it meets during a rolling upgrade: most migrations only add what old code
    ignores; docs/operations.md says of each one that does not, 0026 the first, what a
    server of the previous version does meanwhile)."""
    revision = current_revision(engine)
    shipped = shipped_revisions()
    if revision is None:
        return "the database has no capsa tables: run `capsa db upgrade`"
    if revision in shipped and revision != shipped[-1]:
        return f"the database is at migration {revision}, this release needs {shipped[-1]}: run `capsa db upgrade`"
    return None


def current_revision(engine: Engine) -> str | None:
    """The migration the database is at; None when it has no capsa tables (never migrated)."""
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()
