"""Mixed-traffic load test: the highest rate that keeps p99 < 50 ms, then 60 s at that rate.

Traffic (open loop, fixed rate, latency measured from each request's scheduled send time so
a stall is not hidden by the client waiting): 75% new rounds (POST /v1/rounds, 4 players,
with an Idempotency-Key), 5% replays of a round already stored (same key and body: a 201
with `Idempotent-Replayed: true`), 20% ledger reads (GET /v1/ledger/summary?currency=IDR
when the service has it, else GET /v1/rounds?limit=20).

Search: short probes (--probe-seconds) at rising rates until p99 >= 50 ms or an error, one
probe between the last good and the first bad rate, then the full run (--seconds, 60) at the
best rate found (stepping down 20%, up to three times, if the full run misses the goal). Any status other than
the expected one is an error; the goal is 0. Each sender process is its own API client
(an operator), as game servers of several operators would be.

On PostgreSQL under gunicorn.conf.py: a database `capsa_load_<random>` is created on the
server of $BENCH_DATABASE_URL (or $TEST_DATABASE_URL) and dropped at the end. The per-client
rate limit stays on (set far above the load) so its cost is measured. Usage:

    TEST_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/test \\
        .venv/bin/python bench/load.py [--seconds 60] [--start-rate 10]
"""

from __future__ import annotations

import sys

sys.path[:] = [p for p in sys.path if not p.rstrip("/").endswith("bench")]  # bench/http.py

import argparse  # noqa: E402
import http.client  # noqa: E402
import json  # noqa: E402
import multiprocessing as mp  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import secrets  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = json.loads((ROOT / "service/examples/round-4p-capsa-susun-id.json").read_text())
GOAL_P99_MS = 50.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def request(port: int, method: str, path: str, headers: dict[str, str], body: bytes | None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        response.read()
        return response.status, response.getheader("Idempotent-Replayed")
    finally:
        conn.close()


def _sender(port: int, key: str, read_path: str, rate: float, start: float, seconds: float,
            seed: int, out: mp.Queue) -> None:
    rng = random.Random(seed)
    auth = {"Authorization": f"Bearer {key}"}
    stored: list[tuple[str, bytes]] = []
    latencies: list[tuple[float, str]] = []
    kinds: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    n = 0
    while True:
        scheduled = start + n / rate
        if scheduled >= start + seconds:
            break
        n += 1
        delay = scheduled - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        roll = rng.random()
        try:
            if roll < 0.20:
                kind = "ledger read"
                status, _ = request(port, "GET", read_path, auth, None)
                ok = status == 200
            elif roll < 0.25 and stored:
                kind = "replay"
                idem, body = rng.choice(stored)
                status, replayed = request(port, "POST", "/v1/rounds",
                                           {**auth, "Content-Type": "application/json", "Idempotency-Key": idem},
                                           body)
                ok = status == 201 and replayed == "true"
            else:
                kind = "new round"
                idem = secrets.token_hex(12)
                body = json.dumps(dict(EXAMPLE, reference=f"load-{idem}")).encode()
                status, replayed = request(port, "POST", "/v1/rounds",
                                           {**auth, "Content-Type": "application/json", "Idempotency-Key": idem},
                                           body)
                ok = status == 201 and replayed is None
                if ok:
                    stored.append((idem, body))
        except OSError as exc:
            kind, ok, status = "connection", False, type(exc).__name__
        latencies.append((time.monotonic() - scheduled, kind))
        kinds[kind] += 1
        if not ok:
            errors[f"{kind}: {status}"] += 1
    out.put((latencies, kinds, errors, time.monotonic()))


def run_at(port: int, keys: list[str], read_path: str, rate: float, seconds: float, senders: int) -> dict:
    out: mp.Queue = mp.Queue()
    start = time.monotonic() + 0.5
    procs = [
        mp.Process(target=_sender, args=(port, keys[i % len(keys)], read_path, rate / senders, start + i / rate, seconds,
                                         i * 7919 + int(rate), out))
        for i in range(senders)
    ]
    for p in procs:
        p.start()
    results = [out.get() for _ in procs]
    for p in procs:
        p.join()
    ms = sorted(x * 1000 for r in results for x, _ in r[0])
    by_kind = {
        kind: percentile(sorted(x * 1000 for r in results for x, k in r[0] if k == kind), 0.99)
        for kind in {k for r in results for _, k in r[0]}
    }
    kinds: Counter[str] = sum((r[1] for r in results), Counter())
    errors: Counter[str] = sum((r[2] for r in results), Counter())
    finished = max(r[3] for r in results)
    return {
        "rate": rate,
        "seconds": seconds,
        "requests": len(ms),
        "achieved": len(ms) / (finished - start),
        "p50": percentile(ms, 0.50),
        "p99": percentile(ms, 0.99),
        "max": ms[-1] if ms else 0.0,
        "errors": sum(errors.values()),
        "error_kinds": dict(errors),
        "kinds": dict(kinds),
        "p99_by_kind": by_kind,
    }


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    index = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[index]


def good(result: dict) -> bool:
    return result["errors"] == 0 and result["p99"] < GOAL_P99_MS


def line(result: dict) -> str:
    return (f"{result['rate']:6.0f} req/s target: {result['achieved']:6.1f} req/s achieved, "
            f"p50 {result['p50']:5.1f} ms, p99 {result['p99']:6.1f} ms, max {result['max']:6.1f} ms, "
            f"{result['errors']} errors" + (f" {result['error_kinds']}" if result["errors"] else "")
            + " (p99 " + ", ".join(f"{k} {v:.0f}" for k, v in sorted(result["p99_by_kind"].items())) + " ms)")


def start_gunicorn(port: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py"), "--bind", f"127.0.0.1:{port}",
         "service.api.wsgi:app"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if request(port, "GET", "/healthz", {}, None)[0] == 200:
                time.sleep(1)  # every worker forked
                return proc
        except OSError:
            time.sleep(0.2)
    proc.terminate()
    raise SystemExit("gunicorn did not start")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="the full run")
    parser.add_argument("--probe-seconds", type=float, default=6.0)
    parser.add_argument("--start-rate", type=float, default=10.0)
    parser.add_argument("--step", type=float, default=1.4, help="rate factor between probes")
    parser.add_argument("--max-rate", type=float, default=2000.0)
    parser.add_argument("--senders", type=int, default=4, help="client processes")
    args = parser.parse_args()

    admin = os.environ.get("BENCH_DATABASE_URL") or os.environ.get("TEST_DATABASE_URL")
    if not admin:
        raise SystemExit("set BENCH_DATABASE_URL or TEST_DATABASE_URL to a PostgreSQL server")

    from service.adapters.db import create_database, drop_database, normalise_url
    from service.adapters.migrate import upgrade
    from service.adapters.uow import Database
    from service.services import clients

    admin = normalise_url(admin)
    url, name = create_database(admin, "capsa_load")
    proc = None
    try:
        upgrade(url)
        db = Database(url)
        # One operator per sender: each client's rounds share one hash chain and are written
        # one at a time, so one client for all the traffic would measure that queue alone.
        keys = [clients.create_client(db, f"load-{i}")[1] for i in range(args.senders)]
        db.dispose()
        env = {**os.environ, "DATABASE_URL": url, "LOG_LEVEL": "WARNING", "RATE_LIMIT": "1000000/minute",
               "PROMETHEUS_MULTIPROC_DIR": tempfile.mkdtemp(prefix="capsa-load-prom-"),
               "METRICS_BIND": "off"}
        workers = env.get("WEB_CONCURRENCY", str((os.cpu_count() or 1) * 2 + 1))
        port = free_port()
        proc = start_gunicorn(port, env)
        auth = {"Authorization": f"Bearer {keys[0]}"}
        read_path = "/v1/ledger/summary?currency=IDR"
        if request(port, "GET", read_path, auth, None)[0] != 200:
            read_path = "/v1/rounds?limit=20"
        print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; gunicorn.conf.py, "
              f"{workers} sync workers; PostgreSQL database {name} (dropped after)")
        print(f"mix: 75% POST /v1/rounds (new), 5% replays, 20% GET {read_path}; goal p99 < {GOAL_P99_MS:.0f} ms")

        # Warm-up long enough that every worker has opened its connections and compiled its
        # statements: a cold worker's first round is a one-off outlier, not the service's p99.
        run_at(port, keys, read_path, args.start_rate, 10.0, args.senders)
        best, bad, rate = None, None, args.start_rate
        while rate <= args.max_rate:
            result = run_at(port, keys, read_path, rate, args.probe_seconds, args.senders)
            print(f"  probe {line(result)}")
            if not good(result):
                bad = rate
                break
            best, rate = rate, rate * args.step
        if best is not None and bad is not None:
            middle = (best + bad) / 2
            result = run_at(port, keys, read_path, middle, args.probe_seconds, args.senders)
            print(f"  probe {line(result)}")
            if good(result):
                best = middle
        if best is None:
            print(f"no rate from {args.start_rate:.0f} req/s keeps p99 < {GOAL_P99_MS:.0f} ms")
            return 1
        # A 6 s probe can ride out a backlog that 60 s cannot: step down by a fifth each time.
        for _attempt in range(4):
            final = run_at(port, keys, read_path, best, args.seconds, args.senders)
            print(f"full run {args.seconds:.0f} s: {line(final)}")
            if good(final):
                break
            best *= 0.8
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(final["kinds"].items()))
        print(
            f"RESULT {final['achieved']:.1f} req/s for {args.seconds:.0f} s ({final['requests']} requests: {kinds}); "
            f"p50 {final['p50']:.1f} ms, p99 {final['p99']:.1f} ms; errors {final['errors']}"
        )
        return 0 if good(final) else 1
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(30)
        drop_database(admin, name)


if __name__ == "__main__":
    sys.exit(main())
