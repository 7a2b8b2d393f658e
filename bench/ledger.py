"""Ledger benchmark on PostgreSQL: reports over a large history (chain verification: bench/verify.py).

Bulk-loads N rounds (default 1,000,000) of one client with COPY, as the service stores them:
each round's chain record (its canonical JSON, hashed after the previous one), its query
columns and its ledger lines. Then it times, through the Flask app:

  GET /v1/ledger/summary?currency=IDR&group_by=player   (all time; goal < 1 s; the first read
                                                         sums every line, the next only what came since)
  GET /v1/ledger/players/p3?currency=IDR                (all time; goal < 1 s)

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
import statistics
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


def timed(http: Any, url: str, headers: dict[str, str], runs: int) -> tuple[list[float], Any]:
    times, body = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        response = http.get(url, headers=headers)
        times.append(time.perf_counter() - t0)
        assert response.status_code == 200, response.get_data(as_text=True)
        body = response.get_json()
    return times, body


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

    from service import create_app
    from service.adapters.db import create_database, drop_database, normalise_url
    from service.adapters.migrate import upgrade
    from service.adapters.uow import Database
    from service.services import clients

    admin = normalise_url(admin)
    url, name = create_database(admin, "capsa_bench")
    admin_engine = create_engine(admin, isolation_level="AUTOCOMMIT")
    try:
        upgrade(url)
        db = Database(url)
        client_id, _key = clients.create_client(db, "bench")
        read_key = clients.add_key(db, "bench", clients.READ)
        db.dispose()
        print(f"loading {args.rounds:,} rounds into {name} (os load {os.getloadavg()[0]:.2f}) ...", flush=True)
        lines, seconds = load(url, client_id, args.rounds)
        print(f"loaded {args.rounds:,} rounds, {lines:,} ledger lines, {args.rounds:,} chain records "
              f"in {seconds:.0f} s ({args.rounds / seconds:,.0f} rounds/s)")
        with admin_engine.connect() as conn:
            size = conn.execute(text(f"SELECT pg_size_pretty(pg_database_size('{name}'))")).scalar()
        print(f"database size {size}")

        app = create_app({"DATABASE_URL": url, "LOG_LEVEL": "WARNING"})
        http = app.test_client()
        h = {"Authorization": f"Bearer {read_key}"}
        print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; "
              f"best / median of {args.runs} runs through the Flask app:")
        for label, url_ in (
            ("GET /v1/ledger/summary?currency=IDR&group_by=player", "/v1/ledger/summary?currency=IDR&group_by=player"),
            ("GET /v1/ledger/players/p3?currency=IDR", "/v1/ledger/players/p3?currency=IDR"),
            ("GET /v1/ledger/summary?currency=IDR&group_by=day", "/v1/ledger/summary?currency=IDR&group_by=day"),
            ("GET /v1/ledger/players/p3 one week", "/v1/ledger/players/p3?currency=IDR"
             "&since=2026-01-10T00:00:00Z&until=2026-01-17T00:00:00Z"),
        ):
            times, body = timed(http, url_, h, args.runs)
            detail = (f"{len(body['rows'])} rows" if "rows" in body else f"{body['rounds']:,} rounds of p3")
            if "summary" in url_:
                # All history: the first read sums every line; the worker keeps the totals, and a
                # read after it sums only the records stored since (none here).
                print(f"  {label:60s} first {times[0] * 1000:7.1f} ms  then median "
                      f"{statistics.median(times[1:] or times) * 1000:7.1f} ms  ({detail}; goal < 1000 ms)")
                continue
            print(f"  {label:60s} best {min(times) * 1000:7.1f} ms  median {statistics.median(times) * 1000:7.1f} ms"
                  f"  ({detail}; goal < 1000 ms)")
        app.extensions["capsa"].db.dispose()
        return 0
    finally:
        if not args.keep:
            drop_database(admin, name)
        admin_engine.dispose()


if __name__ == "__main__":
    sys.exit(main())
