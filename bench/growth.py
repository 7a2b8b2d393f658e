"""Growth benchmark: what the service costs as one client's chain grows to millions of rounds.

For each size in `--sizes` (default 0, 1,000,000 and 4,000,000 stored rounds), on one
PostgreSQL database of its own (`growth_<random>`, dropped at the end):

1. Loads the client's chain up to that many records in bulk (bench/chainload.py: real
   scored rounds, the write path's own record code, PostgreSQL's hash, signed receipts,
   balanced ledger lines, COPY), then VACUUM (ANALYZE)s the tables a round writes, as
   autovacuum would in production (the test server runs with autovacuum off: no figure
   here may depend on that accident), and folds the records into the ledger's all-time
   rollups as `capsa sweep` does every second in service (the loader writes none); then
   times the one-off cost of a zone's first all-time read by day (its days gathered from
   the quarter hours and kept from then on), for a zone not read before.
2. Times every ledger read through gunicorn (gunicorn.conf.py, one sync worker), each
   in `--cold` (3) fresh server processes: "cold" is the median of the read's first
   answers, each after one `GET /v1/audit/head` that opens the worker's connection and a
   second one timed as the moment's reference (the machine is shared; its reference and
   CPU are the median sample's); the OS and PostgreSQL caches are not dropped on this
   shared machine. "Warm" is the median of the `--warm` answers after the last one.
   All-time reads: the summary by player, by UTC day and by day in Asia/Jakarta (a zone
   whose days the client's rollups keep: the bench has them kept before it loads, as a
   client's first read there would), a player's ledger, a player's statement; windowed: a
   player's week and its statement; and the chain's tail:
   `GET /v1/audit/verify` and `GET /v1/audit/export` over the last 10,000 records, and
   the newest page of rounds (50), all of them and a player's. And a page of the rounds of
   a player whose only round is the chain's first (`EARLY`, loaded before everything else,
   dated before it: the size-0 figures have that one round), counted with the all-time
   reads: the history lies between that player's rounds and the present. Per answer: the
   worker's and the PostgreSQL backends' CPU (from /proc).
3. The write path as bench/http.py measures it (its machinery: gunicorn.conf.py, an
   Idempotency-Key on every request, receipts signed), after its reference (a bare Flask
   echo of the same body, saturated just before): saturation by 8 closed-loop senders,
   all on the grown client, so every round is chained onto the grown chain (req/s; per
   round the workers' and backends' CPU and the WAL), then a fixed `--rate` (200/s) over
   4 senders for `--fixed-seconds`: p50 / p99 from each request's scheduled send time.

Goals at the largest size: every all-time read < 50 ms cold and within 2x of the same read
at size 0; saturated writes >= 0.9 of their rate at size 0; p99 at 200/s < 20 ms. The load
average is printed beside each figure; the machine is shared, so compare ratios within one
run. Prints a table per size and, with `--json PATH`, writes every figure there after each
size (a run cut short keeps what it measured). Usage:

    TEST_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/test \\
        .venv/bin/python bench/growth.py [--sizes 0,1000000,4000000] [--json var/growth.json]
"""

from __future__ import annotations

import atexit
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# This folder holds http.py, which would shadow the standard library's http package.
sys.path[:] = [str(ROOT)] + [p for p in sys.path if not p.rstrip("/").endswith("bench")]

import argparse  # noqa: E402
import http.client  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from datetime import UTC, datetime, timedelta  # noqa: E402
from types import ModuleType  # noqa: E402
from typing import Any  # noqa: E402
from zoneinfo import ZoneInfo  # noqa: E402


def _bench_module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


httpbench = _bench_module("http")  # gunicorn, saturation, fixed rate, CPU counters
chainload = _bench_module("chainload")

ALL_TIME = "all-time"
EARLY = "early"  # a player whose only round is the chain's first
WINDOW = "window"
TAIL = "tail"
WEEK_FROM = timedelta(days=2)  # the week read: from this far after the first loaded round


def reads(head: int, week: tuple[str, str]) -> list[tuple[str, str, str]]:
    """(name, kind, path) of every read timed at a size."""
    since, until = week
    tail = max(1, head - 9_999)
    return [
        ("summary by player", ALL_TIME, "/v1/ledger/summary?currency=IDR&group_by=player"),
        ("summary by day", ALL_TIME, "/v1/ledger/summary?currency=IDR&group_by=day"),
        # a zone other than UTC: its days gathered from the rollups' quarter hours
        ("summary by day, Jakarta", ALL_TIME, "/v1/ledger/summary?currency=IDR&group_by=day&tz=Asia/Jakarta"),
        ("player's ledger", ALL_TIME, "/v1/ledger/players/p3?currency=IDR"),
        ("player's statement", ALL_TIME, "/v1/ledger/players/p3/statement?currency=IDR"),
        ("player's week", WINDOW, f"/v1/ledger/players/p3?currency=IDR&since={since}&until={until}"),
        ("player's week statement", WINDOW,
         f"/v1/ledger/players/p3/statement?currency=IDR&since={since}&until={until}"),
        # pages from the head: a page's cost, not the history's
        ("newest rounds, a page", TAIL, "/v1/rounds?limit=50"),
        ("a player's newest rounds", TAIL, "/v1/rounds?limit=50&player=p3"),
        ("an early player's rounds", ALL_TIME, f"/v1/rounds?limit=50&player={EARLY}"),
        ("verify, last 10,000", TAIL, f"/v1/audit/verify?from_sequence={tail}&limit=10000"),
        ("export, last 10,000", TAIL, f"/v1/audit/export?from_sequence={tail}&limit=10000"),
    ]


def get(port: int, path: str, headers: dict[str, str], statuses: list[int] | None = None) -> tuple[float, int]:
    """One GET on a new connection (sync workers close it): seconds to the last byte, bytes.
    A status other than 200 is appended to `statuses` (and printed), not fatal: a read
    that times out at this size is a result."""
    t0 = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        body = response.read()
    finally:
        conn.close()
    if response.status != 200:
        print(f"   GET {path}: {response.status} {body[:200]!r}", flush=True)
        if statuses is None:
            raise SystemExit(f"GET {path}: {response.status}")
        statuses.append(response.status)
    return time.perf_counter() - t0, len(body)


def time_read(env: dict[str, str], name: str, path: str, headers: dict[str, str], warm: int,
              database: str, cold: int = 3) -> dict[str, Any]:
    """The read's first answer in each of `cold` fresh one-worker servers (their median is
    "cold": one first answer on a shared machine moved by up to 2x between runs), then
    `warm` more in the last one."""
    samples: list[dict[str, Any]] = []
    for n in range(cold):
        port = httpbench.free_port()
        proc = httpbench.start_gunicorn("service.api.wsgi:app", port, {**env, "WEB_CONCURRENCY": "1"})
        try:
            get(port, "/v1/audit/head", headers)  # the worker's connection and key cache, not the read's
            reference = get(port, "/v1/audit/head", headers)[0]  # a trivial read, same process, same moment
            load = os.getloadavg()[0]
            w0, b0 = httpbench.workers_cpu(proc.pid), httpbench.backends_cpu(database)
            failed: list[int] = []
            first, size = get(port, path, headers, failed)
            w1, b1 = httpbench.workers_cpu(proc.pid), httpbench.backends_cpu(database)
            sample: dict[str, Any] = {
                "cold_ms": round(first * 1000, 2), "reference_ms": round(reference * 1000, 2), "load": round(load, 2),
                "cold_cpu_ms": {"worker": round((w1 - w0) * 1000, 1), "postgres": round((b1 - b0) * 1000, 1)},
                "bytes": size, "failed": failed,
            }
            if n == cold - 1:
                times = [get(port, path, headers, failed)[0] for _ in range(warm)]
                w2, b2 = httpbench.workers_cpu(proc.pid), httpbench.backends_cpu(database)
                sample["warm_ms"] = round(statistics.median(times) * 1000, 2)
                sample["warm_cpu_ms"] = {"worker": round((w2 - w1) * 1000 / warm, 1),
                                         "postgres": round((b2 - b1) * 1000 / warm, 1)}
            samples.append(sample)
        finally:
            proc.terminate()
            proc.wait(10)
    # The sample of the median cold time stands for the read (its reference, CPU and load).
    middle = sorted(samples, key=lambda x: x["cold_ms"])[(cold - 1) // 2]
    last = samples[-1]
    return {
        "read": name, "path": path, "bytes": last["bytes"], "load": middle["load"],
        "failed": [f for x in samples for f in x["failed"]],
        "reference_ms": middle["reference_ms"], "cold_ms": middle["cold_ms"], "cold_cpu_ms": middle["cold_cpu_ms"],
        "cold_samples_ms": [x["cold_ms"] for x in samples],
        "warm_ms": last["warm_ms"], "warm_cpu_ms": last["warm_cpu_ms"],
    }


def sizes_of(dsn: str, client_id: str) -> dict[str, Any]:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        out: dict[str, Any] = {"database_bytes": conn.execute("SELECT pg_database_size(current_database())")
                               .fetchone()[0]}  # type: ignore[index]
        for table in (*chainload.TABLES, "chain_heads"):
            rows, total, indexes = conn.execute(
                f"SELECT (SELECT count(*) FROM {table}), pg_total_relation_size('{table}'),"
                f" pg_indexes_size('{table}')"
            ).fetchone()  # type: ignore[misc]
            out[table] = {"rows": rows, "total_bytes": total, "index_bytes": indexes}
        head = conn.execute("SELECT sequence FROM chain_heads WHERE client_id = %s", (client_id,)).fetchone()
        out["head"] = int(head[0]) if head else 0
    return out


def writes(env: dict[str, str], headers: dict[str, str], args: argparse.Namespace, name: str, url: str) -> dict[str, Any]:
    # bench/http.py's reference, just before: a bare Flask echo of the same body, same config.
    port = httpbench.free_port()
    proc = httpbench.start_gunicorn("bare_flask:app", port, env, str(ROOT / "bench" / "reference"))
    try:
        echo = httpbench.saturation(port, [headers] * args.senders, False, args.seconds, httpbench.Server(proc.pid))
    finally:
        proc.terminate()
        proc.wait(10)
    port = httpbench.free_port()
    proc = httpbench.start_gunicorn("service.api.wsgi:app", port, env)
    try:
        phase = httpbench.saturation(port, [headers] * args.senders, True, args.seconds,
                                     httpbench.Server(proc.pid, name, url))
        time.sleep(1)
        load = os.getloadavg()[0]
        latencies, errors, achieved = httpbench.fixed_rate(port, [headers] * 4, args.rate, args.fixed_seconds)
    finally:
        proc.terminate()
        proc.wait(10)
    ms = [x * 1000 for x in latencies]
    return {
        "echo": {"req_s": round(echo.rate, 1), "load": round(echo.load, 2)},
        "saturated": {"req_s": round(phase.rate, 1), "of_echo": round(phase.rate / echo.rate, 4), "rounds": phase.rounds, "worker_ms": round(phase.worker_ms, 2),
                      "postgres_ms": round(phase.backend_ms or 0.0, 2), "wal_kib": round(phase.wal_kib or 0.0, 2),
                      "load": round(phase.load, 2)},
        "fixed": {"rate": args.rate, "achieved": round(achieved, 1), "errors": errors, "load": round(load, 2),
                  "p50_ms": round(statistics.median(ms), 2), "p99_ms": round(httpbench.percentile(ms, 0.99), 2),
                  "max_ms": round(ms[-1], 2)},
    }


def fold_rollups(url: str) -> tuple[int, float]:
    """Fold every record not yet in the rollups, as the sweeper's passes would: (records, seconds)."""
    from service.adapters.uow import Database
    from service.services.ledger import rollups

    db = Database(url)
    started, folded = time.monotonic(), 0
    try:
        while (n := rollups.sweep(db)) > 0:
            folded += n
    finally:
        db.dispose()
    return folded, time.monotonic() - started


# A zone never read before at each size (its first read keeps its days from then on).
FIRST_READ_ZONES = ("Asia/Kathmandu", "Asia/Kolkata", "Australia/Eucla", "Asia/Tokyo")


def keep_zone(url: str, client_id: str, zone: str) -> dict[str, Any]:
    """Time `keep_zone` for a zone not kept before: (zone, ms, days kept)."""
    from service.adapters.uow import Database
    from service.services.ledger import rollups

    db = Database(url)
    try:
        started = time.perf_counter()
        assert rollups.keep_zone(db, client_id, "IDR", ZoneInfo(zone))
        ms = (time.perf_counter() - started) * 1000
        with db.snapshot() as uow:
            days = uow.rollups.kept_days(client_id, "IDR", zone) or []
    finally:
        db.dispose()
    return {"zone": zone, "ms": round(ms, 1), "days": len(days), "load": round(os.getloadavg()[0], 2)}


def print_size(m: dict[str, Any]) -> None:
    s = m["sizes"]
    print(f"\n== {m['size']:,} rounds (head {s['head']:,}; database {s['database_bytes'] / 2**30:.2f} GiB; "
          f"ledger lines {s['ledger_lines']['rows']:,}) ==", flush=True)
    if m.get("load_seconds"):
        print(f"   loaded {m['loaded']:,} rounds in {m['load_seconds']:.0f} s, VACUUM (ANALYZE) "
              f"{m['vacuum_seconds']:.0f} s")
    print(f"   rollups caught up as the sweeper keeps them: {m['fold_records']:,} records folded in "
          f"{m['fold_seconds']:.1f} s")
    k = m["keep_zone"]
    print(f"   a zone's first all-time read by day ({k['zone']}) keeps its days once: {k['ms']:.1f} ms, "
          f"{k['days']:,} days (load {k['load']:.2f})")
    print(f"   {'read':<26}{'ref ms':>8}{'cold ms':>9}{'warm ms':>9}  {'cold CPU w/pg ms':>17}  {'warm CPU w/pg':>14}"
          f"{'bytes':>11}  load")
    for r in m["reads"]:
        print(f"   {r['read']:<26}{r['reference_ms']:>8.1f}{r['cold_ms']:>9.1f}{r['warm_ms']:>9.1f}  "
              f"{r['cold_cpu_ms']['worker']:>8.0f}/{r['cold_cpu_ms']['postgres']:<8.0f}  "
              f"{r['warm_cpu_ms']['worker']:>6.0f}/{r['warm_cpu_ms']['postgres']:<7.0f}{r['bytes']:>11,}  {r['load']:.2f}"
              + (f"  cold {min(r['cold_samples_ms']):.1f}-{max(r['cold_samples_ms']):.1f}"
                 if len(r.get("cold_samples_ms", [])) > 1 else "")
              + (f"  FAILED: {r['failed']}" if r["failed"] else ""))
    w = m["writes"]
    sat, fx = w["saturated"], w["fixed"]
    print(f"   bare Flask echo (the reference, just before): {w['echo']['req_s']:.1f} req/s; load {w['echo']['load']:.2f}")
    print(f"   writes saturated (8 senders, keyed, receipts): {sat['req_s']:.1f} req/s, x{sat['of_echo']:.3f} of the echo;"
          f" per round workers "
          f"{sat['worker_ms']:.2f} ms, PostgreSQL {sat['postgres_ms']:.2f} ms, WAL {sat['wal_kib']:.1f} KiB; "
          f"load {sat['load']:.2f}")
    print(f"   writes at {fx['rate']:.0f}/s: achieved {fx['achieved']:.1f}/s, p50 {fx['p50_ms']:.1f} ms, "
          f"p99 {fx['p99_ms']:.1f} ms, max {fx['max_ms']:.1f} ms, {fx['errors']} errors; load {fx['load']:.2f}")


def verdicts(results: list[dict[str, Any]]) -> list[str]:
    """The goals, at the largest size against size 0 of the same run."""
    if len(results) < 2 or results[0]["size"] != 0:
        return []
    base, top = results[0], results[-1]
    out = []
    for r0, r in zip(base["reads"], top["reads"]):
        if r["read"] in {n for n, kind, _ in reads(1, ("", "")) if kind == ALL_TIME}:
            ratio = r["cold_ms"] / r0["cold_ms"]
            ok = r["cold_ms"] < 50 and ratio <= 2 and not r["failed"]
            out.append(f"{r['read']} cold at {top['size']:,}: {r['cold_ms']:.1f} ms (goal < 50), x{ratio:.2f} of "
                       f"{r0['cold_ms']:.1f} ms at 0 (goal <= 2): {'met' if ok else 'MISSED'}"
                       + (f" (answers {r['failed']})" if r["failed"] else ""))
    sat = top["writes"]["saturated"]["req_s"] / base["writes"]["saturated"]["req_s"]
    echoed = top["writes"]["saturated"]["of_echo"] / base["writes"]["saturated"]["of_echo"]
    out.append(f"saturated writes at {top['size']:,}: x{sat:.3f} of size 0 (goal >= 0.9): "
               f"{'met' if sat >= 0.9 else 'MISSED'}; as ratios to each size's echo: x{echoed:.3f}")
    p99 = top["writes"]["fixed"]["p99_ms"]
    out.append(f"p99 at {top['writes']['fixed']['rate']:.0f}/s at {top['size']:,}: {p99:.1f} ms (goal < 20): "
               f"{'met' if p99 < 20 else 'MISSED'}")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="0,1000000,4000000", help="chain sizes to measure at, ascending")
    parser.add_argument("--templates", type=int, default=2_000, help="distinct scored deals the loader re-uses")
    # 15 s: 4M rounds span 694 days, and the week read holds ~40,000 rounds at every size
    # (at 500 ms, the first runs' value, it held most of a 1M chain: not a windowed read).
    parser.add_argument("--spacing-ms", type=int, default=15_000, help="time between two loaded rounds")
    parser.add_argument("--warm", type=int, default=5, help="answers timed after the cold one")
    parser.add_argument("--cold", type=int, default=3, help="fresh servers per read: cold is their first answers' median")
    parser.add_argument("--seconds", type=float, default=10.0, help="the saturation window")
    parser.add_argument("--senders", type=int, default=8)
    parser.add_argument("--rate", type=float, default=200.0)
    parser.add_argument("--fixed-seconds", type=float, default=20.0)
    parser.add_argument("--json", type=Path, help="write every figure here after each size")
    parser.add_argument("--keep", action="store_true", help="do not drop the database")
    args = parser.parse_args()
    # Started in the background, SIGINT is ignored: SIGTERM stops the run and still drops the
    # database and stops the servers (the `finally` blocks run).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sizes = [int(s) for s in args.sizes.split(",")]
    if sizes != sorted(sizes):
        raise SystemExit("--sizes must be ascending")
    admin = os.environ.get("BENCH_DATABASE_URL") or os.environ.get("TEST_DATABASE_URL")
    if not admin:
        raise SystemExit("set BENCH_DATABASE_URL or TEST_DATABASE_URL to a PostgreSQL server")

    from service.adapters import keyfile
    from service.adapters.db import create_database, drop_database, normalise_url
    from service.adapters.migrate import upgrade
    from service.adapters.uow import Database
    from service.domain.signing import Keyring
    from service.services import clients

    admin = normalise_url(admin)
    url, name = create_database(admin, "growth")
    dsn = url.replace("postgresql+psycopg://", "postgresql://")
    spacing = timedelta(milliseconds=args.spacing_ms)
    # Loaded rounds are dated in the past, the k-th loaded one at first + k * spacing, so the
    # rounds the write phases store (now) come after every loaded one.
    first = (datetime.now(UTC) - spacing * max(sizes) - timedelta(days=1)).replace(microsecond=0)
    week_start = (first + WEEK_FROM).date()
    week = (week_start.isoformat(), (week_start + timedelta(days=7)).isoformat())
    results: list[dict[str, Any]] = []
    try:
        upgrade(url)
        db = Database(url)
        client_id, key = clients.create_client(db, "growth")
        read_key = clients.add_key(db, "growth", clients.Scope.READ)
        # The client reads its days in Jakarta: its rollups keep that zone's days from the
        # first such read on, and every fold adds to them (in service, since that first read).
        from service.services.ledger import rollups as ledger_rollups

        assert ledger_rollups.keep_zone(db, client_id, "IDR", ZoneInfo("Asia/Jakarta"))
        db.dispose()
        keyring = Keyring().rotated(first - timedelta(hours=1))[0]
        keys_dir = tempfile.mkdtemp(prefix="capsa-growth-keys-")
        atexit.register(shutil.rmtree, keys_dir, True)  # a private signing key: not left behind
        key_file = Path(keys_dir) / "signing-keys.json"
        keyfile.save(key_file, keyring)
        env = {**os.environ, "DATABASE_URL": url, "LOG_LEVEL": "WARNING", "RATE_LIMIT": "off",
               "METRICS_BIND": "off", "SIGNING_KEY_FILE": str(key_file)}
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        writer = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
        reader = {"Authorization": f"Bearer {read_key}"}
        print(f"database {name}; {os.cpu_count()} cores; load {open('/proc/loadavg').read().strip()}; "
              f"scoring {args.templates:,} template deals ...", flush=True)
        deals = chainload.templates(args.templates)
        # The chain's first round: EARLY and another player, dated before every loaded one.
        chainload.load(dsn, client_id, 1, start=first - timedelta(minutes=30), spacing=spacing, keyring=keyring,
                       deals=chainload.templates(1, players=[EARLY, chainload.PLAYERS[0]]))
        loaded_total = 0
        for size in sizes:
            measured: dict[str, Any] = {"size": size, "loaded": 0}
            head = sizes_of(dsn, client_id)["head"]
            if size > head:
                def progress(done: int, lines: int, seconds: float, wanted: int = size - head) -> None:
                    if done % 200_000 < 20_000 or done == wanted:
                        print(f"   loaded {done:,} of {wanted:,} rounds ({lines:,} lines) in {seconds:.0f} s, "
                              f"load {os.getloadavg()[0]:.2f}", flush=True)

                result = chainload.load(dsn, client_id, size - head, start=first + spacing * loaded_total,
                                        spacing=spacing, keyring=keyring, deals=deals, seed=size, progress=progress)
                loaded_total += size - head
                measured.update(loaded=size - head, load_seconds=round(result.seconds, 1))
            measured["vacuum_seconds"] = round(chainload.analyze(dsn), 1)
            # What `capsa sweep` does every second in service (fold the records stored since into
            # the all-time rollups), caught up at once here: the loader writes no rollups.
            measured["fold_records"], measured["fold_seconds"] = fold_rollups(url)
            # What a zone's first all-time read costs once: its days gathered from the quarters.
            measured["keep_zone"] = keep_zone(url, client_id, FIRST_READ_ZONES[sizes.index(size) % len(FIRST_READ_ZONES)])
            measured["sizes"] = sizes_of(dsn, client_id)
            measured["reads"] = [time_read(env, n, p, reader, args.warm, name, args.cold)
                                 for n, _kind, p in reads(measured["sizes"]["head"], week)]
            measured["writes"] = writes(env, writer, args, name, url)
            measured["when"] = datetime.now(UTC).isoformat(timespec="seconds")
            results.append(measured)
            print_size(measured)
            if args.json:
                args.json.write_text(json.dumps({"database": name, "week": week, "results": results,
                                                 "goals": verdicts(results)}, indent=1) + "\n")
        print("\ngoals:")
        for line in verdicts(results):
            print(f"   {line}")
        return 0
    finally:
        if not args.keep:
            drop_database(admin, name)


if __name__ == "__main__":
    sys.exit(main())
