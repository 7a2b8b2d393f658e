"""Ledger benchmark on PostgreSQL: reports over a large history (chain verification: bench/verify.py).

Bulk-loads N rounds (default 1,000,000) of one client with COPY, as the service stores them:
each round's chain record (its canonical JSON, hashed after the previous one), its query
columns and its ledger lines; then folds them into the ledger's rollups as `capsa sweep`
would have while they were stored (timed), and ANALYZEs, as autovacuum would. Then it
reads, through the Flask app, each all-time report (summary by player, table, day in UTC,
Asia/Jakarta and Asia/Kathmandu; player p3's totals, newest page of lines and first
statement page) and one week of p3: cold (its first request in a fresh process) and warm
(the median of the next --runs), each beside the same read of a client whose chain is
empty, in the same database and run (goal at 4M rounds: cold < 50 ms and within 2x of
it), with the process's CPU time for the cold read and the load average; the plan
(EXPLAIN ANALYZE) of p3's newest page of lines.

The chain verifier over the same kind of history is measured by bench/verify.py, which
loads with `load` below and takes its reference from `hash_copied`.

Rounds are built from 64 scored templates (2-4 of 6 players, 3 tables): the engine scored
each once; every stored round carries its own id, time and chain record. The load runs with
`session_replication_role = replica`, which skips the balance trigger for the bulk rows (the
templates' lines sum to zero; the verifier re-checks every record it reads against its
lines). Creates its own database `capsa_bench_<random>` on the server of
$BENCH_DATABASE_URL (or $TEST_DATABASE_URL) and drops it at the end. Usage:

    TEST_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/test \\
        .venv/bin/python bench/ledger.py [--rounds 1000000]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# bench/http.py would shadow the standard library's http package: the repository root first.
sys.path[:] = [str(ROOT)] + [p for p in sys.path if not p.rstrip("/").endswith("bench")]

from service.domain import audit as chain  # noqa: E402
from service.domain.susun.round import score_round_request  # noqa: E402

PLAYERS = [f"p{i}" for i in range(1, 7)]
TABLES = ["t1", "t2", "t3"]
DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"]
START = datetime(2026, 1, 1, tzinfo=UTC)
CHUNK = 20_000


def templates(n: int) -> list[dict[str, Any]]:
    rng = random.Random(4)
    out = []
    for i in range(n):
        ids = rng.sample(PLAYERS, rng.choice([2, 2, 3, 4]))
        deck = DECK[:]
        rng.shuffle(deck)
        body = {
            "rules": "capsa-susun-id",
            "table": TABLES[i % 3],
            "currency": "IDR",
            "stake": "1000",
            "players": [
                {"id": p, "arrangement": {"front": deck[13 * k : 13 * k + 3],
                                          "middle": deck[13 * k + 3 : 13 * k + 8],
                                          "back": deck[13 * k + 8 : 13 * k + 13]}}
                for k, p in enumerate(ids)
            ],
        }
        s = score_round_request(body)
        lines = chain.round_lines([(p.id, p.result, p.fee) for p in s.players], s.house_fee)
        by_id = {p.id: p for p in s.players}
        booked = []
        for line in lines:
            p = by_id.get(line.player or "") if line.kind == chain.SETTLEMENT else None
            booked.append((line.player, line.kind, line.amount, p.points if p else 0, p.winnings if p else 0))
        out.append({"s": s, "lines": lines, "booked": booked})
    return out


def load(url: str, client_id: str, rounds: int) -> tuple[int, float]:
    import psycopg

    tpls = templates(64)
    dsn = url.replace("postgresql+psycopg://", "postgresql://")
    started = time.perf_counter()
    previous = chain.GENESIS_HASH
    lines_total = 0
    with psycopg.connect(dsn) as conn:
        conn.execute("SET session_replication_role = replica")
        for low in range(0, rounds, CHUNK):
            high = min(low + CHUNK, rounds)
            r_rows, l_rows, c_rows = [], [], []
            for i in range(low, high):
                t = tpls[i % len(tpls)]
                s = t["s"]
                seq = i + 1
                at = START + timedelta(seconds=2 * i, milliseconds=i % 1000)
                rid = f"rnd_B{i:025d}"
                r_rows.append((rid, client_id, "susun", s.preset, s.table, None, "IDR", at, seq))
                for n, (player, kind, amount, points, winnings) in enumerate(t["booked"]):
                    l_rows.append((client_id, seq, n, at, player, kind, kind, amount, "IDR", s.table,
                                   points, winnings))
                record = chain.record(sequence=seq, kind="round", round_id=rid, request=s.request, result=s.document,
                                      lines=t["lines"], currency="IDR", engine_version=s.document["engine_version"],
                                      created_at=at)
                canonical = chain.canonical_record(record)
                digest = hashlib.sha256(previous.encode() + canonical).hexdigest()
                c_rows.append((client_id, seq, "round", rid, previous, digest, canonical))
                previous = digest
            lines_total += len(l_rows)
            with conn.cursor() as cur:
                for table, columns, rows in (
                    ("rounds", "id, client_id, game, preset, table_ref, reference, currency, created_at, sequence", r_rows),
                    ("ledger_lines", "client_id, sequence, line_no, created_at, player_id, kind, basis,"
                     " amount, currency, table_ref, points, winnings", l_rows),
                    ("chain_records", "client_id, sequence, kind, round_id, previous_hash, hash, canonical", c_rows),
                ):
                    with cur.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                        for row in rows:
                            copy.write_row(row)
            conn.commit()
            if (high // CHUNK) % 10 == 0 or high == rounds:
                print(f"  loaded {high:,} rounds, {lines_total:,} lines ({time.perf_counter() - started:.0f} s)",
                      flush=True)
        last_at = START + timedelta(seconds=2 * (rounds - 1), milliseconds=(rounds - 1) % 1000)
        conn.execute(
            "UPDATE chain_heads SET sequence = %s, hash = %s, previous_hash = %s, created_at = %s"
            " WHERE client_id = %s",
            (rounds, previous, c_rows[-1][4], last_at, client_id),
        )
        conn.commit()
        conn.autocommit = True
        conn.execute("VACUUM ANALYZE")
    return lines_total, time.perf_counter() - started


def hash_copied(conn: Any, client_id: str, records: int) -> int:
    """The reference: the stored bytes (previous_hash, canonical) of records 1..N read with
    COPY in sequence order, each hashed with hashlib.sha256. Returns how many were read."""
    n = 0
    with conn.cursor().copy(
        "COPY (SELECT previous_hash, canonical FROM chain_records WHERE client_id = %s AND sequence <= %s"
        " ORDER BY sequence) TO STDOUT (FORMAT binary)",
        (client_id, records),
    ) as copy:
        copy.set_types(["text", "bytea"])
        for previous, body in copy.rows():
            hashlib.sha256(previous.encode() + body).digest()
            n += 1
    conn.rollback()
    return n


READS = (
    ("all-time summary by player", "/v1/ledger/summary?currency=IDR&group_by=player"),
    ("all-time summary by table", "/v1/ledger/summary?currency=IDR&group_by=table"),
    ("all-time summary by day (UTC)", "/v1/ledger/summary?currency=IDR&group_by=day"),
    ("all-time summary by day (Asia/Jakarta)", "/v1/ledger/summary?currency=IDR&group_by=day&tz=Asia/Jakarta"),
    ("all-time summary by day (Asia/Kathmandu)", "/v1/ledger/summary?currency=IDR&group_by=day&tz=Asia/Kathmandu"),
    ("player p3's all-time totals", "/v1/ledger/players/p3?currency=IDR"),
    ("player p3's all-time lines, newest page", "/v1/ledger/entries?currency=IDR&player=p3&limit=50"),
    ("player p3's all-time statement, first page", "/v1/ledger/players/p3/statement?currency=IDR&limit=100"),
    ("player p3's week", "/v1/ledger/players/p3?currency=IDR&since=2026-01-10T00:00:00Z&until=2026-01-17T00:00:00Z"),
)

# One fresh process per measurement: the app made, its first request timed (cold), then
# `runs` more (warm, the median); the process's own CPU time for the cold request too.
_PROBE = r"""
import json, os, statistics, sys, time
sys.path.insert(0, sys.argv[1])
from service.api.app import create_app
url, key, path, runs = sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
app = create_app({"DATABASE_URL": url, "LOG_LEVEL": "WARNING"})
http = app.test_client()
h = {"Authorization": f"Bearer {key}"}
# One unrelated request first (an empty period of another player: an index range that finds
# nothing), so "cold" is this read in a process that has no totals of it, not the process's
# own first-request set-up (connections, lazy imports), which every read would pay alike.
assert http.get("/v1/ledger/players/zz?currency=IDR&since=2000-01-01&until=2000-01-02", headers=h).status_code == 200
times = []
cpu0 = time.process_time()
for n in range(runs + 1):
    t0 = time.perf_counter()
    r = http.get(path, headers=h)
    times.append(time.perf_counter() - t0)
    if n == 0:
        cpu = time.process_time() - cpu0
    assert r.status_code == 200, r.get_data(as_text=True)
body = r.get_json()
rows = len(body["rows"]) if "rows" in body else len(body["items"]) if "items" in body else \
    len(body["lines"]) if "lines" in body else body["rounds"]
print(json.dumps({"cold": times[0] * 1000, "warm": statistics.median(times[1:]) * 1000, "cpu": cpu * 1000,
                  "rows": rows}))
"""


def cold_and_warm(url: str, key: str, path: str, runs: int) -> dict[str, Any]:
    import json
    import subprocess

    out = subprocess.run([sys.executable, "-c", _PROBE, str(ROOT), url, key, path, str(runs)],
                         check=True, capture_output=True, text=True).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def _empty_client(url: str) -> str:
    from service.adapters.uow import Database
    from service.services import clients

    db = Database(url)
    clients.create_client(db, "empty")
    key = clients.add_key(db, "empty", clients.Scope.READ)
    db.dispose()
    return key


def fold_rollups(url: str, client_id: str) -> None:
    """What `capsa sweep` does as rounds are stored: fold the loaded records into the
    ledger's rollups (the service before rollups has none: nothing to do)."""
    try:
        from service.services.ledger import rollups
    except ImportError:
        print("no ledger rollups in this service: nothing folded")
        return
    from service.adapters.uow import Database

    db = Database(url)
    started, cpu0 = time.perf_counter(), time.process_time()
    folded = 0
    while True:
        n = rollups.fold(db, client_id, limit=rollups.SWEEP_BATCH)
        folded += n
        if n == 0:
            break
    took = time.perf_counter() - started
    print(f"folded {folded:,} records into the rollups in {took:.1f} s ({folded / max(took, 1e-9):,.0f} records/s, "
          f"{(time.process_time() - cpu0) * 1000 / max(folded, 1):.3f} ms of Python CPU a record; "
          f"load {os.getloadavg()[0]:.2f})", flush=True)
    db.dispose()


def analyze(url: str) -> None:
    import psycopg

    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as conn:
        conn.execute("ANALYZE")


def explain_player_page(url: str, client_id: str) -> None:
    """The plan of a player's all-time page of lines: an index read in order, no scan of the history."""
    import psycopg

    dsn = url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(dsn) as conn:
        plan = conn.execute(
            "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT r.round_id, l.sequence, l.line_no, l.created_at, l.amount"
            " FROM ledger_lines l JOIN chain_records r ON r.client_id = l.client_id AND r.sequence = l.sequence"
            " WHERE l.client_id = %s AND l.player_id = 'p3' AND l.currency = 'IDR'"
            " AND l.sequence <= (SELECT sequence FROM chain_heads WHERE client_id = %s)"
            " ORDER BY l.created_at DESC, l.sequence DESC, l.line_no DESC LIMIT 51", (client_id, client_id)).fetchall()
    print("  plan of a player's newest page of lines:")
    for (row,) in plan:
        print("    " + row)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="do not drop the database")
    args = parser.parse_args()
    admin = os.environ.get("BENCH_DATABASE_URL") or os.environ.get("TEST_DATABASE_URL")
    if not admin:
        raise SystemExit("set BENCH_DATABASE_URL or TEST_DATABASE_URL to a PostgreSQL server")
    from sqlalchemy import create_engine, text

    from service.adapters.db import create_database, drop_database, normalise_url
    from service.adapters.migrate import upgrade
    from service.adapters.uow import Database
    from service.api.app import create_app
    from service.services import clients

    admin = normalise_url(admin)
    url, name = create_database(admin, "capsa_bench")
    admin_engine = create_engine(admin, isolation_level="AUTOCOMMIT")
    try:
        upgrade(url)
        db = Database(url)
        client_id, _key = clients.create_client(db, "bench")
        read_key = clients.add_key(db, "bench", clients.Scope.READ)
        db.dispose()
        print(f"loading {args.rounds:,} rounds into {name} (os load {os.getloadavg()[0]:.2f}) ...", flush=True)
        lines, seconds = load(url, client_id, args.rounds)
        print(f"loaded {args.rounds:,} rounds, {lines:,} ledger lines, {args.rounds:,} chain records "
              f"in {seconds:.0f} s ({args.rounds / seconds:,.0f} rounds/s)")
        with admin_engine.connect() as conn:
            size = conn.execute(text(f"SELECT pg_size_pretty(pg_database_size('{name}'))")).scalar()
        print(f"database size {size}")

        fold_rollups(url, client_id)
        analyze(url)
        empty_key = _empty_client(url)
        print(f"machine: {os.cpu_count()} cores; each read: cold = its first request in a fresh process (after one "
              f"unrelated request; the OS and PostgreSQL caches are not dropped), warm = median of the {args.runs} "
              f"after it, CPU = the process's own for the cold request; "
              f"'0 rounds' = the same read for a client with an empty chain, same database, same run:")
        for label, path in READS:
            big = cold_and_warm(url, read_key, path, args.runs)
            empty = cold_and_warm(url, empty_key, path, args.runs)
            print(f"  {label:44s} {big['rows']:>10}  cold {big['cold']:7.1f} ms (0 rounds {empty['cold']:6.1f}, "
                  f"x{big['cold'] / empty['cold']:4.2f})  warm {big['warm']:7.1f} ms (0 rounds {empty['warm']:6.1f}, "
                  f"x{big['warm'] / empty['warm']:4.2f})  cold CPU {big['cpu']:5.1f} ms (0 rounds {empty['cpu']:5.1f})  "
                  f"load {os.getloadavg()[0]:.2f}  (goal: cold < 50 ms, <= x2)",
                  flush=True)
        explain_player_page(url, client_id)
        app = create_app({"DATABASE_URL": url, "LOG_LEVEL": "WARNING"})
        app.extensions["capsa"].db.dispose()
        return 0
    finally:
        if not args.keep:
            drop_database(admin, name)
        admin_engine.dispose()


if __name__ == "__main__":
    sys.exit(main())
