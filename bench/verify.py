"""Chain verification on PostgreSQL against the hashing rate, in the same run.

Bulk-loads N rounds of one client (bench/ledger.py's load: each round's chain record, hashed
after the previous one, its query columns and its ledger lines), then alternates, R times:

  reference   COPY of the same stored bytes (previous_hash, canonical) in sequence order,
              each hashed with hashlib.sha256 (bench/ledger.py's `hash_copied`)
  api         GET /v1/audit/verify?from_sequence=1&limit=N through the Flask app
  cli         what `capsa audit verify --client NAME` runs: the chain to its head, 10,000
              records a call, and the page past the head

Each verify must answer ok with every record checked, cross-checks of the round rows and
ledger lines included. Per run it prints records/s, the ratio to the reference measured just
before it (goal >= 0.5), the CPU per record of this process (utime + stime, /proc/self/stat)
and of the PostgreSQL backends it used (/proc/PID/stat of each backend this process
opened), and the load average beside each figure. Creates its own database
`capsa_bench_<random>` on the server of $BENCH_DATABASE_URL (or $TEST_DATABASE_URL) and drops
it at the end (--keep keeps it; --reuse NAME measures one kept before). Usage:

    TEST_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/test \\
        .venv/bin/python bench/verify.py [--rounds 50000] [--runs 3]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# bench/http.py would shadow the standard library's http package: the repository root first.
sys.path[:] = [str(ROOT)] + [p for p in sys.path if not p.rstrip("/").endswith("bench")]

TICK = os.sysconf("SC_CLK_TCK")
BACKENDS: set[int] = set()  # PostgreSQL backends this process opened


def _ledger_bench() -> Any:
    spec = importlib.util.spec_from_file_location("bench_ledger", ROOT / "bench" / "ledger.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _ticks(path: str) -> int:
    try:
        fields = Path(path).read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return 0
    return int(fields[11]) + int(fields[12])


def cpu() -> tuple[float, float]:
    """CPU seconds so far of this process and of the backends it opened that are still up."""
    return _ticks("/proc/self/stat") / TICK, sum(_ticks(f"/proc/{pid}/stat") for pid in BACKENDS) / TICK


def measure(fn: Callable[[], int]) -> tuple[float, float, float, float]:
    """(records/s, µs of this process and of its backends per record, load average before)."""
    load = os.getloadavg()[0]
    own0, pg0 = cpu()
    t0 = time.perf_counter()
    n = fn()
    elapsed = time.perf_counter() - t0
    own1, pg1 = cpu()
    return n / elapsed, (own1 - own0) / n * 1e6, (pg1 - pg0) / n * 1e6, load


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50_000, help="rounds loaded and verified (api: at most 100,000)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="do not drop the database")
    parser.add_argument("--reuse", metavar="NAME", help="a database kept by --keep (its rounds are measured)")
    args = parser.parse_args()
    admin = os.environ.get("BENCH_DATABASE_URL") or os.environ.get("TEST_DATABASE_URL")
    if not admin:
        raise SystemExit("set BENCH_DATABASE_URL or TEST_DATABASE_URL to a PostgreSQL server")
    import psycopg
    from sqlalchemy import Engine, event, make_url, text

    from service.adapters.db import create_database, drop_database, normalise_url
    from service.adapters.migrate import upgrade
    from service.adapters.uow import Database
    from service.api.app import create_app
    from service.commands import audit as audit_command
    from service.services import clients

    @event.listens_for(Engine, "connect")
    def _remember_backend(dbapi_connection: Any, _record: Any) -> None:
        if isinstance(dbapi_connection, psycopg.Connection):
            BACKENDS.add(dbapi_connection.info.backend_pid)

    ledger = _ledger_bench()
    admin = normalise_url(admin)
    if args.reuse:
        url, name = make_url(admin).set(database=args.reuse).render_as_string(hide_password=False), args.reuse
    else:
        url, name = create_database(admin, "capsa_bench")
    try:
        if not args.reuse:
            upgrade(url)
            db = Database(url)
            clients.create_client(db, "bench")
            clients.add_key(db, "bench", clients.Scope.READ)
            db.dispose()
        db = Database(url)
        with db.engine.connect() as conn:
            found = conn.execute(
                text("SELECT c.id, h.sequence FROM clients c JOIN chain_heads h ON h.client_id = c.id"
                     " WHERE c.name = 'bench'")
            ).one()
        client_id, head = str(found[0]), int(found[1])
        read_key = clients.add_key(db, "bench", clients.Scope.READ)
        db.dispose()
        if not args.reuse:
            print(f"loading {args.rounds:,} rounds into {name} (load {os.getloadavg()[0]:.2f}) ...", flush=True)
            lines, seconds = ledger.load(url, client_id, args.rounds)
            head = args.rounds
            print(f"loaded {args.rounds:,} rounds, {lines:,} ledger lines in {seconds:.0f} s", flush=True)
        records = min(args.rounds, head)
        app = create_app({"DATABASE_URL": url, "LOG_LEVEL": "WARNING"})
        http = app.test_client()
        headers = {"Authorization": f"Bearer {read_key}"}
        app_db = app.extensions["capsa"].db
        limit = min(records, 100_000)

        ref_conn = psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"))
        BACKENDS.add(ref_conn.info.backend_pid)

        def reference() -> int:
            n = ledger.hash_copied(ref_conn, client_id, limit)
            assert n == limit, (n, limit)
            return n

        def api() -> int:
            response = http.get(f"/v1/audit/verify?from_sequence=1&limit={limit}", headers=headers)
            body = response.get_json()
            assert response.status_code == 200 and body["ok"] and body["records_checked"] == limit, body
            return limit

        def cli() -> int:
            report, checked = audit_command._check_chain(app_db, client_id, 1, None, audit_command.Progress(False))
            assert report.ok and checked == head, (report, checked)
            return checked

        print(f"machine: {os.cpu_count()} cores; {records:,} records ({limit:,} through the API); "
              f"{args.runs} alternated runs, each ratio against the reference just before it:", flush=True)
        api()  # warm: connections, plans, the app's first request
        for run in range(1, args.runs + 1):
            ref = measure(reference)
            print(f"  run {run} reference COPY + sha256  {ref[0]:9,.0f} records/s  CPU {ref[1]:5.1f} µs here,"
                  f" {ref[2]:5.1f} µs PostgreSQL per record  (load {ref[3]:.2f})", flush=True)
            for label, fn in (("GET /v1/audit/verify", api), ("capsa audit verify", cli)):
                got = measure(fn)
                print(f"  run {run} {label:22s} {got[0]:9,.0f} records/s  CPU {got[1]:5.1f} µs here,"
                      f" {got[2]:5.1f} µs PostgreSQL per record  (load {got[3]:.2f}): ratio {got[0] / ref[0]:.2f}"
                      f" (goal >= 0.5)", flush=True)
        ref_conn.close()
        app_db.dispose()
        return 0
    finally:
        if not (args.keep or args.reuse):
            drop_database(admin, name)
        elif not args.reuse:
            print(f"kept {name} (--reuse {name})")


if __name__ == "__main__":
    sys.exit(main())
