"""The database a command uses, and one clear line when it cannot be used (no traceback)."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from service.adapters.default_url import DEFAULT_DATABASE_URL
from service.adapters.errors import DatabaseUnavailable, LockTimeout

if TYPE_CHECKING:
    from sqlalchemy.engine import URL

    from service.adapters.uow import Database

HOW_TO_SET = "set DATABASE_URL (or --database-url) to your database"


class DatabaseProblem(Exception):
    """The database cannot be used; the message says why and what to do."""


def database_url(explicit: str | None = None) -> str:
    """--database-url, else $DATABASE_URL, else the project's SQLite file (relative to here)."""
    return explicit or os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL


def statement_timeout_ms() -> int:
    """DATABASE_STATEMENT_TIMEOUT_MS (default 5000, 0: none), as the app reads it: for the
    processes that run beside it (`capsa sweep`, `capsa webhooks dispatch`), whose statements
    are as short; not for migrations and whole-chain checks, which run longer by design."""
    from service.domain import settings
    from service.domain.errors import SettingError

    try:
        return int(settings.number(os.environ, "DATABASE_STATEMENT_TIMEOUT_MS", 5000, whole=True, least=0,
                                   unit="milliseconds"))
    except SettingError as exc:
        raise DatabaseProblem(str(exc)) from exc


def with_schema(db: Database) -> Database:
    """`db`, once its schema is one this release runs on; else it is let go and
    DatabaseProblem says why (one line, exit 3), for the processes that would otherwise
    fail on a missing table or column at every pass (`capsa sweep`, the dispatcher)."""
    try:
        refusal = db.schema_refusal()
    except BaseException:
        db.dispose()
        raise
    if refusal is not None:
        db.dispose()
        raise DatabaseProblem(refusal)
    return db


def open_database(explicit: str | None = None, **options: Any) -> Database:
    """The command's database (connections are made on first use)."""
    from service.adapters.uow import Database

    url = database_url(explicit)
    refuse_a_missing_sqlite_file(url)
    with driver_needed(url):
        return Database(url, **options)


@contextmanager
def driver_needed(url: str) -> Iterator[None]:
    """Around the first use of `url`: a driver that is not installed is one clear line."""
    try:
        yield
    except ImportError as exc:  # the URL names a driver that is not installed
        raise DatabaseProblem(
            f"DATABASE_URL {_shown(url)!r} needs the Python module {exc.name!r}, which is not installed; "
            "capsa supports sqlite:///PATH and postgresql://USER:PASSWORD@HOST/DATABASE"
        ) from exc


def readable_url(url: str) -> URL:
    """`url` parsed; DatabaseProblem unless it is a database URL (a port that is no number)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url)
    except (ArgumentError, ValueError) as exc:
        raise DatabaseProblem(
            f"DATABASE_URL {_shown(url)!r} is not a database URL capsa can use ({_reason(exc)}); "
            "set it to sqlite:///PATH or postgresql://USER:PASSWORD@HOST/DATABASE"
        ) from exc


def refuse_a_missing_sqlite_file(url: str) -> None:
    """SQLite makes a missing file on first use: a mistyped path would leave an empty one
    behind. Only `capsa db upgrade` (which does not come here) makes a database."""
    parsed = readable_url(url)
    path = parsed.database if parsed.get_backend_name() == "sqlite" else None
    if path and path != ":memory:" and not path.startswith("file:") and not Path(path).exists():
        folder = Path(path).parent
        if not folder.is_dir():  # the default file, run outside the project
            raise DatabaseProblem(_no_folder(url, folder))
        raise DatabaseProblem(
            f"the database {_shown(url)} does not exist (no file {path}): check DATABASE_URL, or make it "
            "with `capsa db upgrade`"
        )


def _shown(url: str) -> str:
    from service.adapters.db import without_password  # SQLAlchemy: only once a database is used

    return without_password(url)


def _revision_at(url: str) -> str | None:
    """The database's migration, when it can be read (None: none, or it cannot be read)."""
    from service.adapters.migrate import revision_at

    try:
        return revision_at(url)
    except Exception:  # an error's message is being written: the first error is the one to say
        return None


def _reason(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0].strip() if text else type(exc).__name__


def _no_folder(url: str, folder: Path) -> str:
    return (
        f"cannot open the database {_shown(url)}: there is no folder {folder}/ in {Path.cwd()}; "
        f"run capsa from the project directory, or {HOW_TO_SET}"
    )


def _missing_folder(url: str) -> Path | None:
    """The folder a relative or absolute SQLite path needs and that does not exist."""
    if not url.startswith("sqlite:///") or url in ("sqlite://", "sqlite:///:memory:"):
        return None
    path = Path(url.removeprefix("sqlite:///").split("?")[0])
    if str(path).startswith("file:"):  # a URI (`file:PATH?mode=ro&uri=true`): SQLite reads it
        return None
    return None if path.parent.is_dir() else path.parent


def database_problem(exc: BaseException, explicit_url: str | None = None) -> str | None:
    """What to tell a person about `exc` when it is the database's fault, else None."""
    from sqlalchemy.exc import (
        ArgumentError,
        InterfaceError,
        NoSuchModuleError,
        OperationalError,
        ProgrammingError,
    )

    if isinstance(exc, DatabaseProblem):
        return str(exc)
    url = database_url(explicit_url)
    shown = _shown(url)
    if isinstance(exc, (ArgumentError, NoSuchModuleError)):
        return (
            f"DATABASE_URL {shown!r} is not a database URL capsa can use ({_reason(exc)}); "
            "set it to sqlite:///PATH or postgresql://USER:PASSWORD@HOST/DATABASE"
        )
    sqlstate = getattr(getattr(exc, "orig", None), "sqlstate", None)
    # a table, or a column a later migration adds, that the schema lacks
    undefined_table = isinstance(exc, ProgrammingError) and sqlstate in ("42P01", "42703")
    if sqlstate == "42501":  # insufficient_privilege
        return (f"cannot use the database {shown} ({_reason(exc)}): the role DATABASE_URL names lacks a "
                "privilege this command needs; run it as the service's owner role")
    if isinstance(exc, LockTimeout):
        return (f"the database {shown} is busy ({_reason(exc)}): another session holds a lock this command "
                "needs (a migration, a long transaction); try again once it ends")
    not_a_database = type(getattr(exc, "orig", None)) is sqlite3.DatabaseError  # "file is not a database"
    if not (undefined_table or not_a_database
            or isinstance(exc, (DatabaseUnavailable, OperationalError, InterfaceError))):
        return None
    reason = _reason(exc)
    if undefined_table or reason.startswith(("no such table", "no such column")) or " has no column named " in reason:
        from service.adapters.migrate import shipped_revisions

        at, shipped = _revision_at(url), shipped_revisions()
        if at in shipped[:-1]:  # a command without with_schema on an older schema
            return (f"the database {shown} is at migration {at}, older than this release needs: run "
                    "`capsa db upgrade` with the same DATABASE_URL first")
        if at is not None:
            return (f"the database {shown} is at migration {at}, yet a table or column is missing ({reason}): its "
                    "schema was changed outside capsa; restore it from a backup")
        return f"the database {shown} has no capsa tables yet: run `capsa db upgrade` with the same DATABASE_URL first"
    folder = _missing_folder(url)
    if folder is not None:
        return _no_folder(url, folder)
    if url.startswith("sqlite:"):  # a file, no server: its folder must let it be written
        return (f"cannot use the database {shown} ({reason}); {HOW_TO_SET} and check that the file and "
                "its folder can be read and written")
    return f"cannot use the database {shown} ({reason}); {HOW_TO_SET} and check that its server is running"
