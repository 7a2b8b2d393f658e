"""Shared fixtures for the HTTP and database suites.

`db_url` runs every test that uses it on SQLite and, when TEST_DATABASE_URL is set, again on
PostgreSQL. Other engineers and CI share that server: each session creates its own uniquely
named database, migrates it, and drops it at the end; nothing touches the `test` database.
With TEST_PGBOUNCER=1 the PostgreSQL half goes through a pgbouncer in transaction mode that
the session starts (tests/pgkit.py), as `DATABASE_POOLER=pgbouncer` deployments do: the
timeouts are the database's own (`ALTER DATABASE ... SET`, as a role's would be).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

PG_ENV = "TEST_DATABASE_URL"
PGBOUNCER_ENV = "TEST_PGBOUNCER"

# The test client leaves an answer open until it is collected (a server closes it once
# sent), so a heavy read's slot would outlive its request: the bound is off for the apps the
# tests make, and tested in test_api_heavy_reads.py on apps that close each answer.
os.environ.setdefault("HEAVY_READS_PER_CLIENT", "off")


# -- the longest files first: under pytest-xdist none of them starts last, with a worker idle --
#
# Each worker takes whole files (`--dist loadfile`), in the order given (`--no-loadscope-reorder`;
# pytest-xdist's own order is by the number of tests in a file, which put the fuzz, two tests
# and well over a minute, near the end). These files kept a worker busy 20 s or more in a run
# of `make test` with PostgreSQL (longest first); a file not named keeps its place after them.

LONGEST_FILES = (
    "tests/api/test_api_fuzz.py",
    "tests/api/test_api_ledger_rollups.py",
    "tests/unit/test_arranging.py",
    "tests/integration/test_db_gunicorn.py",
    "tests/api/test_api_webhooks.py",
    "tests/integration/test_packaging.py",
    "tests/integration/test_docs_examples.py",
    "tests/api/test_dispatcher_passes.py",
    "tests/integration/test_nginx_slow_clients.py",
    "tests/unit/test_bench_types.py",
    "tests/integration/test_db_migrations.py",
    "tests/api/test_webhooks_chaos.py",
    "tests/api/test_api_ledger.py",
    "tests/api/test_api_hostile.py",
    "tests/api/test_api_service.py",
    "tests/api/test_api_rounds.py",
    "tests/api/test_webhook_fairness.py",
    "tests/integration/test_clients.py",
    "tests/api/test_cli_audit_exits.py",
    "tests/api/test_api_ledger_tz.py",
    "tests/integration/test_two_nodes.py",
    "tests/api/test_api_receipts.py",
    "tests/api/test_api_access.py",
    "tests/api/test_api_view.py",
    "tests/reliability/test_retry_storm.py",
    "tests/api/test_api_statement_agreement.py",
    "tests/integration/test_round_page_browser.py",
    "tests/api/test_api_heavy_reads.py",
    "tests/unit/test_rollup_zone_days.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    rank = {name: n for n, name in enumerate(LONGEST_FILES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))  # stable


# -- every statement of the service on a client's table names client_id (tests/sqlscope.py) --


def pytest_configure(config: pytest.Config) -> None:
    import sqlscope

    config.stash[_SQL] = sqlscope.install()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _drop_heads()
    recorder = session.config.stash.get(_SQL, None)
    if recorder is None:
        return
    offences = [str(o) for o in recorder.offences()]
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # a pytest-xdist worker: its controller reports them
        workeroutput["sqlscope"] = offences
        return
    offences += session.config.stash.get(_WORKER_OFFENCES, [])
    session.config.stash[_OFFENCES] = list(dict.fromkeys(offences))
    if offences and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """pytest-xdist's controller: keep what a worker found (each worker's own session ends
    before the controller's, whose exit status and summary are the run's)."""
    found = getattr(node, "workeroutput", {}).get("sqlscope", [])
    node.config.stash.setdefault(_WORKER_OFFENCES, []).extend(found)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    offences = config.stash.get(_OFFENCES, [])
    if offences:
        terminalreporter.section("statements not filtered by client_id (tests/sqlscope.py)", red=True)
        for offence in offences:
            terminalreporter.write_line(offence)


_SQL = pytest.StashKey[Any]()
_OFFENCES = pytest.StashKey[list[str]]()
_WORKER_OFFENCES = pytest.StashKey[list[str]]()


def pg_admin_url() -> str | None:
    url = os.environ.get(PG_ENV)
    if not url:
        return None
    from service.adapters.db import normalise_url

    return normalise_url(url)


def lock_waiters(engine: Any) -> int:
    """How many backends of `engine`'s PostgreSQL database wait for a lock now: a test that
    holds a row sees the statement it started block on it."""
    from sqlalchemy import text

    with engine.connect() as conn:
        return int(conn.execute(text(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
            " AND datname = current_database()")).scalar())


def load_script(relative: str, name: str, *, register: bool = False) -> Any:
    """A file of the repository that no package holds (`bench/...`, `tools/...`), loaded by
    its path; `register`: also as `sys.modules[name]` (what its dataclasses need to pickle)."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().parents[1] / relative)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    if register:
        sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def wait_for(predicate: Any, timeout: float = 10) -> None:
    """Return once `predicate()` is true (polled every 10 ms); fail the test after `timeout` s."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def create_pg_database(admin_url: str) -> tuple[str, str]:
    """A fresh database `capsa_test_<random>` on the server of `admin_url`: (url, name)."""
    from service.adapters.db import create_database

    return create_database(admin_url, "capsa_test")


def drop_pg_database(admin_url: str, name: str) -> None:
    from service.adapters.db import drop_database

    drop_database(admin_url, name)


# -- databases of a test's own at the head revision: copies of one this process migrated --
#
# Running every migration takes 1-2 s a database, and over a hundred tests want a database of
# their own; a copy takes milliseconds (SQLite's backup) or a fraction of a second (PostgreSQL's
# CREATE DATABASE ... TEMPLATE). The tests of the migrations themselves still run them.

_HEADS: dict[str, str] = {}  # engine -> this process's migrated original (a path, or a name)


def migrated_sqlite(path: Any) -> str:
    """An SQLite database at `path` (not there yet) at the head revision: its URL."""
    import sqlite3
    import tempfile

    from service.adapters.migrate import upgrade

    if "sqlite" not in _HEADS:
        original = os.path.join(tempfile.mkdtemp(prefix="capsa-head-"), "head.db")
        upgrade(f"sqlite:///{original}")
        _HEADS["sqlite"] = original
    with contextlib.closing(sqlite3.connect(_HEADS["sqlite"])) as source, \
            contextlib.closing(sqlite3.connect(str(path))) as copy:
        source.backup(copy)
    return f"sqlite:///{path}"


def migrated_pg_database(admin_url: str) -> tuple[str, str]:
    """create_pg_database's database at the head revision: (url, name)."""
    from service.adapters.db import create_database
    from service.adapters.migrate import upgrade

    if "postgresql" not in _HEADS:
        url, name = create_database(admin_url, "capsa_head")
        _HEADS["postgresql"] = name
        upgrade(url)  # its engine is gone once done: nobody is connected to the original
    return create_database(admin_url, "capsa_test", template=_HEADS["postgresql"])


def _drop_heads() -> None:
    import shutil

    if "sqlite" in _HEADS:
        shutil.rmtree(os.path.dirname(_HEADS.pop("sqlite")), ignore_errors=True)
    admin = pg_admin_url()
    if "postgresql" in _HEADS and admin is not None:
        drop_pg_database(admin, _HEADS.pop("postgresql"))


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def own_db_url(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[str]:
    """A database at the head revision that only this test uses, on each engine."""
    if request.param == "sqlite":
        yield migrated_sqlite(tmp_path / "own.db")
        return
    admin = pg_admin_url()
    if admin is None:
        pytest.skip(f"{PG_ENV} is not set")
    url, name = migrated_pg_database(admin)
    try:
        yield url
    finally:
        drop_pg_database(admin, name)


@pytest.fixture
def clock() -> Iterator[Any]:
    """The service's clock, standing still at 2026-11-29 10:00 UTC until the test moves it."""
    from datetime import UTC, datetime

    from service.services.clock import FixedClock, use_clock

    fixed = FixedClock(datetime(2026, 11, 29, 10, 0, tzinfo=UTC))
    previous = use_clock(fixed)
    try:
        yield fixed
    finally:
        use_clock(previous)


@pytest.fixture(scope="session")
def sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return migrated_sqlite(tmp_path_factory.mktemp("db") / "capsa.db")


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    admin = pg_admin_url()
    if admin is None:
        pytest.skip(f"{PG_ENV} is not set")
    url, name = migrated_pg_database(admin)
    try:
        if os.environ.get(PGBOUNCER_ENV, "") not in ("", "0"):
            yield from _through_pgbouncer(admin, url, name)
        else:
            yield url
    finally:
        drop_pg_database(admin, name)


def _through_pgbouncer(admin: str, url: str, name: str) -> Iterator[str]:
    from pgkit import Pgbouncer
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    from service.adapters.db import LOCK_TIMEOUT_MS

    engine = create_engine(admin, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            # What `ALTER ROLE capsa SET ...` does in production, kept to this database here
            # (the shared server's role is everyone's).
            conn.execute(text(f'ALTER DATABASE "{name}" SET statement_timeout = 5000'))
            conn.execute(text(f'ALTER DATABASE "{name}" SET lock_timeout = {LOCK_TIMEOUT_MS}'))
    finally:
        engine.dispose()
    server = make_url(admin)
    bouncer = Pgbouncer(server.host or "127.0.0.1", server.port or 5432)
    previous = os.environ.get("DATABASE_POOLER")
    os.environ["DATABASE_POOLER"] = "pgbouncer"
    try:
        yield bouncer.route(url)
    finally:
        if previous is None:
            os.environ.pop("DATABASE_POOLER", None)
        else:
            os.environ["DATABASE_POOLER"] = previous
        bouncer.stop()


@pytest.fixture(
    scope="session",
    params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)],
)
def db_url(request: pytest.FixtureRequest) -> str:
    """A migrated database of each engine (PostgreSQL only with TEST_DATABASE_URL)."""
    if request.param == "postgresql":
        return str(request.getfixturevalue("postgres_url"))
    return str(request.getfixturevalue("sqlite_url"))


def idempotency_rows(db: Any, client_id: str) -> int:
    """How many Idempotency-Key records a client holds in `db` (a service Database)."""
    from sqlalchemy import func, select

    from service.adapters.models import IdempotencyRecord

    with db.unit_of_work() as uow:
        return int(uow.session.scalar(
            select(func.count()).select_from(IdempotencyRecord).where(IdempotencyRecord.client_id == client_id)
        ) or 0)


@contextlib.contextmanager
def explained(engine: Any, wanted: Callable[[str], bool], analyze: bool = True) -> Iterator[list[str]]:
    """The PostgreSQL plan of every statement `wanted` picks among those `engine` runs inside
    the block, one text each, in order. With `analyze` each such statement runs twice (its
    plan shows the rows each node read, `most_rows`)."""
    from sqlalchemy import event

    plans: list[str] = []
    explain_ = "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) " if analyze else "EXPLAIN "

    def explain(conn: Any, cursor: Any, statement: str, parameters: Any, *args: Any) -> None:
        if wanted(statement):
            cursor.execute(explain_ + statement, parameters)
            plans.append("\n".join(row[0] for row in cursor.fetchall()))

    event.listen(engine, "before_cursor_execute", explain)
    try:
        yield plans
    finally:
        event.remove(engine, "before_cursor_execute", explain)


def most_rows(plan: str) -> int:
    """The most rows any node of an EXPLAIN ANALYZE plan gave (a look-up's: per loop)."""
    return max(int(n) for n in re.findall(r"rows=(\d+)", plan))


def make_app(db_url: str, **config: Any) -> Any:
    from service.api.app import create_app

    options = {"pool_size": 12, "max_overflow": 4} if db_url.startswith("postgresql") else {}
    return create_app(
        {"DATABASE_URL": db_url, "LOG_LEVEL": "WARNING", "DATABASE_OPTIONS": options, **config}
    )


def serving(application: Any) -> Iterator[Any]:
    """A fixture's app: its rounds re-verified and its database closed at the end."""
    yield application
    try:
        reverify_every_round(application)
    finally:
        application.extensions["capsa"].db.dispose()


@pytest.fixture(scope="session")
def app(db_url: str) -> Iterator[Any]:
    yield from serving(make_app(db_url))


@pytest.fixture
def standing_in(app: Any, db_url: str) -> Iterator[Any]:
    """The session app's primary (a Database) with a 'standby' on the same database (lag 0)."""
    from service.adapters import replicas

    db = app.extensions["capsa"].db
    db.replica = replicas.Replica(db_url, keyring=db.keyring, max_lag_s=5.0)
    try:
        yield db
    finally:
        db.replica.db.dispose()
        db.replica = None


# Tenants whose rows a test edits on purpose; every other tenant's rounds must re-verify.
TAMPERED: set[str] = set()
_TENANTS: list[tuple[Any, str]] = []


def reverify_every_round(app: Any) -> None:
    """Every round the suite stored re-scores to its document, and every chain verifies."""
    from sqlalchemy import select

    from service.adapters.models import Round
    from service.services.audit import chains as audit

    db = app.extensions["capsa"].db
    bad = []
    for owner, client_id in _TENANTS:
        if owner is not app or client_id in TAMPERED:
            continue
        report = audit.verify_chain(db, client_id)
        if not report.ok:
            bad.append(f"chain of {client_id}: {report}")
        with db.unit_of_work() as uow:
            ids = uow.session.scalars(select(Round.id).where(Round.client_id == client_id)).all()
        for round_id in ids:
            verdict = audit.verify_round(db, client_id, round_id)
            if not verdict["ok"]:
                bad.append(f"round {round_id}: {verdict['differences'][:3]}")
    assert not bad, "stored rounds no longer verify:\n" + "\n".join(bad[:20])


@pytest.fixture
def http(app: Any) -> Any:
    return app.test_client()


@dataclass
class Tenant:
    """A client of the service with a write key and a read key; tests isolate by tenant."""

    id: str
    name: str
    key: str
    read_key: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}

    @property
    def read_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.read_key}"}


def make_tenant(app: Any) -> Tenant:
    from service.services import clients

    db = app.extensions["capsa"].db
    name = f"t-{secrets.token_hex(5)}"
    client_id, key = clients.create_client(db, name)
    read_key = clients.add_key(db, name, clients.Scope.READ)
    _TENANTS.append((app, client_id))
    return Tenant(client_id, name, key, read_key)


@pytest.fixture
def tenant(app: Any) -> Tenant:
    return make_tenant(app)


@pytest.fixture
def other_tenant(app: Any) -> Tenant:
    return make_tenant(app)
