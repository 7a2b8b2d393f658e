"""HTTP benchmark of issue 3 ("Must measure"), on PostgreSQL under gunicorn.conf.py.

(a) saturation requests/s of POST /v1/rounds (4 players, capsa-susun-id, stored) against a
    bare Flask app under the same gunicorn config that parses the same body and answers a
    small JSON: printed as a ratio (goal >= 0.25);
(b) p50/p99 latency of POST /v1/rounds at a fixed 200 requests/s spread over 4 clients for
    30 s (goal p99 < 50 ms), measured from each request's scheduled send time, so a stall
    is not hidden by the client waiting (coordinated omission).

Creates its own database `capsa_bench_<random>` on the server of $BENCH_DATABASE_URL (or
$TEST_DATABASE_URL), and drops it at the end. Usage:

    TEST_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/test \\
        .venv/bin/python bench/http.py [--seconds 10] [--rate 200] [--fixed-seconds 30]
"""

from __future__ import annotations

import sys

# This file is named http.py: drop its folder from the path before anything imports the
# standard library's http package.
sys.path[:] = [p for p in sys.path if not p.rstrip("/").endswith("bench")]

import argparse  # noqa: E402
import http.client  # noqa: E402
import json  # noqa: E402
import multiprocessing as mp  # noqa: E402
import os  # noqa: E402
import socket  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BODY = json.loads((ROOT / "service/examples/round-4p-capsa-susun-id.json").read_text())
BODY.pop("reference", None)  # every request stores a new round
PAYLOAD = json.dumps(BODY).encode()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_gunicorn(app: str, port: int, env: dict[str, str], pythonpath: str | None = None):
    argv = [
        sys.executable,
        "-m",
        "gunicorn",
        "-c",
        str(ROOT / "gunicorn.conf.py"),
        "--bind",
        f"127.0.0.1:{port}",
    ]
    if pythonpath:
        argv += ["--pythonpath", pythonpath]
    argv.append(app)
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc
        except OSError:
            time.sleep(0.2)
    proc.terminate()
    raise SystemExit(f"gunicorn for {app} did not start")


def workers_cpu(master: int) -> float:
    """CPU seconds used so far by the gunicorn workers of `master` (children in /proc)."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == master:
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def one_request(port: int, headers: dict[str, str]) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("POST", "/v1/rounds", body=PAYLOAD, headers=headers)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def _saturate(port: int, headers: dict[str, str], until: float, out: mp.Queue) -> None:
    done = errors = 0
    while time.monotonic() < until:
        status = one_request(port, headers)
        done += 1
        errors += status != 201
    out.put((done, errors))


def saturation(
    port: int, headers: dict[str, str], seconds: float, clients: int, master: int
) -> tuple[float, float]:
    """Closed loop with `clients` processes for `seconds` (after a 2 s warm-up).

    Returns requests/s and the workers' CPU milliseconds per request; the second does not
    depend on what else runs on the machine.
    """
    for phase, length in (("warm-up", 2.0), ("measure", seconds)):
        cpu_before = workers_cpu(master)
        out: mp.Queue = mp.Queue()
        start = time.monotonic()
        procs = [
            mp.Process(target=_saturate, args=(port, headers, start + length, out)) for _ in range(clients)
        ]
        for p in procs:
            p.start()
        results = [out.get() for _ in procs]
        for p in procs:
            p.join()
        elapsed = time.monotonic() - start
        done = sum(r[0] for r in results)
        errors = sum(r[1] for r in results)
        if errors:
            raise SystemExit(f"{errors} of {done} requests failed during {phase}")
    return done / elapsed, (workers_cpu(master) - cpu_before) * 1000 / done


def _fixed(
    port: int, headers: dict[str, str], rate: float, start: float, seconds: float, out: mp.Queue
) -> None:
    latencies, errors, n = [], 0, 0
    while True:
        scheduled = start + n / rate
        if scheduled >= start + seconds:
            break
        delay = scheduled - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        status = one_request(port, headers)
        latencies.append(time.monotonic() - scheduled)
        errors += status != 201
        n += 1
    out.put((latencies, errors, time.monotonic()))


def fixed_rate(
    port: int, headers: list[dict[str, str]], rate: float, seconds: float
) -> tuple[list[float], int, float]:
    """One sender per API client (each client's rounds are chained, so serialised)."""
    out: mp.Queue = mp.Queue()
    start = time.monotonic() + 0.5
    per_client = rate / len(headers)
    procs = [
        mp.Process(target=_fixed, args=(port, h, per_client, start + i / rate, seconds, out))
        for i, h in enumerate(headers)
    ]
    for p in procs:
        p.start()
    results = [out.get() for _ in procs]
    for p in procs:
        p.join()
    latencies = sorted(x for r in results for x in r[0])
    finished = max(r[2] for r in results)
    return latencies, sum(r[1] for r in results), len(latencies) / (finished - start)


def percentile(sorted_values: list[float], q: float) -> float:
    index = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[index]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="saturation window")
    parser.add_argument("--clients", type=int, default=8, help="saturation client processes")
    parser.add_argument("--rate", type=float, default=200.0)
    parser.add_argument("--fixed-clients", type=int, default=4)
    parser.add_argument("--fixed-seconds", type=float, default=30.0)
    args = parser.parse_args()

    admin = os.environ.get("BENCH_DATABASE_URL") or os.environ.get("TEST_DATABASE_URL")
    if not admin:
        raise SystemExit("set BENCH_DATABASE_URL or TEST_DATABASE_URL to a PostgreSQL server")

    from service.adapters.db import create_database, drop_database, normalise_url
    from service.adapters.migrate import upgrade
    from service.adapters.uow import Database
    from service.services import clients

    admin = normalise_url(admin)
    url, name = create_database(admin, "capsa_bench")
    procs: list[subprocess.Popen[bytes]] = []
    try:
        upgrade(url)
        db = Database(url)
        keys = [clients.create_client(db, f"bench-{i}")[1] for i in range(args.fixed_clients)]
        db.dispose()
        tenants = [{"Authorization": f"Bearer {k}", "Content-Type": "application/json"} for k in keys]
        headers = tenants[0]
        # The rate limiter is measured by its own tests; here it would only cap the load.
        env = {**os.environ, "DATABASE_URL": url, "LOG_LEVEL": "INFO", "RATE_LIMIT": "off",
               "METRICS_BIND": "off"}  # two servers at once: one metrics bind would clash
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        workers = env.get("WEB_CONCURRENCY", str((os.cpu_count() or 1) * 2 + 1))

        bare_port, svc_port = free_port(), free_port()
        procs.append(start_gunicorn("bare_flask:app", bare_port, env, str(ROOT / "bench" / "reference")))
        load = os.getloadavg()[0]
        bare, bare_cpu = saturation(bare_port, headers, args.seconds, args.clients, procs[-1].pid)
        procs.pop().terminate()

        procs.append(start_gunicorn("service.api.wsgi:app", svc_port, env))
        service, service_cpu = saturation(svc_port, headers, args.seconds, args.clients, procs[-1].pid)
        time.sleep(1)
        latencies, errors, achieved = fixed_rate(svc_port, tenants, args.rate, args.fixed_seconds)
        ms = [x * 1000 for x in latencies]

        print(
            f"machine: {os.cpu_count()} cores; gunicorn.conf.py, {workers} sync workers; "
            f"PostgreSQL database {name} (dropped after); load average {load:.2f} at start"
        )
        print(
            f"(a) saturation, {args.clients} closed-loop senders, {args.seconds:.0f} s each, "
            "one API client (its rounds share one hash chain, so they are written one at a time):"
        )
        print(f"    bare Flask parsing the body      {bare:8.1f} req/s   workers' CPU {bare_cpu:5.2f} ms/req")
        print(
            f"    POST /v1/rounds (4p, stored)     {service:8.1f} req/s   "
            f"workers' CPU {service_cpu:5.2f} ms/req"
        )
        print(
            f"    ratio service / bare             {service / bare:8.3f}   (goal >= 0.25); "
            f"CPU ratio bare / service {bare_cpu / service_cpu:.3f}"
        )
        print(
            f"(b) fixed {args.rate:.0f} req/s over {args.fixed_clients} API clients for "
            f"{args.fixed_seconds:.0f} s: achieved {achieved:.1f} req/s, {errors} errors"
        )
        print(
            f"    p50 {statistics.median(ms):6.1f} ms   p99 {percentile(ms, 0.99):6.1f} ms   "
            f"max {ms[-1]:6.1f} ms   (goal p99 < 50 ms)"
        )
        return 0
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
        drop_database(admin, name)


if __name__ == "__main__":
    sys.exit(main())
