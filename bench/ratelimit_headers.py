"""What the per-client rate limit costs a request: counting it, and its RateLimit fields.

Run: .venv/bin/python bench/ratelimit_headers.py [--requests 3000] [--redis redis://127.0.0.1:6379/0]

In process (Flask's test client, one SQLite database, one client), `GET /v1/rules` with the
per-client limit on, per storage: with the header hook, the same app with the hook taken
out, and the reference, an app with the limit off (`RATE_LIMIT=off`), measured in the same
run, interleaved in rounds. CPU time is
this process's own (utime + stime from /proc/self/stat); with Redis, the round trips add
wall time that the CPU figure does not show, so wall time is printed too. The load average
is printed beside each figure: the machine is shared.

With Redis, the count alone too, without Flask around it (`Limiter.count`, as a request
makes it): one script that counts and returns the window's end, as served, against a count
and then the TTL, the two round trips it replaced (the same limiter without its script),
interleaved in rounds. A request's cost in process is 0.5-0.9 ms on these machines, so a
difference of 0.1 ms between two apps moves within the noise; the counts alone show it.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path[0] = str(Path(__file__).resolve().parents[1])  # not bench/: bench/http.py would shadow http

import redis  # noqa: E402
from limits import parse  # noqa: E402

from service.adapters.migrate import upgrade  # noqa: E402
from service.api import ratelimit  # noqa: E402
from service.api.app import create_app  # noqa: E402
from service.services import clients  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds() -> float:
    fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def load() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


WITH, WITHOUT_FIELDS, OFF = "with headers", "without", "limit off"


def make(url: str, storage: str, variant: str) -> tuple[Any, dict[str, str]]:
    app = create_app({
        "DATABASE_URL": url, "LOG_LEVEL": "WARNING",
        "RATE_LIMIT": "off" if variant == OFF else "100000000/hour",
        "RATELIMIT_STORAGE_URI": storage, "RATELIMIT_KEY_PREFIX": f"bench-{secrets.token_hex(4)}",
    })
    if variant == WITHOUT_FIELDS:
        app.after_request_funcs[None].remove(ratelimit._rate_limit_headers)
    _id, key = clients.create_client(app.extensions["capsa"].db, f"bench-{secrets.token_hex(4)}")
    return app, {"Authorization": f"Bearer {key}"}


def run(app: Any, headers: dict[str, str], n: int) -> tuple[float, float]:
    http = app.test_client()
    cpu, wall = cpu_seconds(), time.perf_counter()
    for _ in range(n):
        answer = http.get("/v1/rules", headers=headers)
        assert answer.status_code == 200
    return cpu_seconds() - cpu, time.perf_counter() - wall


def counts(storage: str, prefix: str, n: int, rounds: int) -> dict[str, list[float]]:
    """CPU and wall seconds of `n` x `rounds` counts of one counter, per way of counting."""
    one_script = ratelimit.Limiter(storage, {}, prefix)
    two_calls = ratelimit.Limiter(storage, {}, prefix)
    two_calls._incr_ttl = None  # the count, then the TTL: what each request did before
    policy = ratelimit.Policy("client", parse("100000000/hour"), "global")
    ways = {"one script": one_script, "count, then TTL": two_calls}
    totals = {way: [0.0, 0.0] for way in ways}
    for each in ways.values():
        for _ in range(200):
            each.count(policy, "bench-counts")  # warm up: the script loaded, connections made
    for _ in range(rounds):
        for way, each in ways.items():
            cpu, wall = cpu_seconds(), time.perf_counter()
            for _ in range(n):
                each.count(policy, "bench-counts")
            totals[way][0] += cpu_seconds() - cpu
            totals[way][1] += time.perf_counter() - wall
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--redis", default=os.environ.get("TEST_REDIS_URL"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        upgrade(url)
        for storage in ["memory://"] + ([args.redis] if args.redis else []):
            apps = {variant: make(url, storage, variant) for variant in (WITH, WITHOUT_FIELDS, OFF)}
            for app, headers in apps.values():
                run(app, headers, 200)  # warm up: imports, caches, the first window
            totals = {variant: [0.0, 0.0] for variant in apps}
            for _ in range(args.rounds):
                for variant, (app, headers) in apps.items():
                    cpu, wall = run(app, headers, args.requests)
                    totals[variant][0] += cpu
                    totals[variant][1] += wall
            n = args.requests * args.rounds
            us = {variant: [x / n * 1e6 for x in total] for variant, total in totals.items()}
            (with_cpu, with_wall), (bare_cpu, bare_wall), (off_cpu, off_wall) = us[WITH], us[WITHOUT_FIELDS], us[OFF]
            print(
                f"{storage.split('://')[0]:6} with headers {with_cpu:6.0f} us CPU {with_wall:6.0f} us wall per request; "
                f"without {bare_cpu:6.0f} / {bare_wall:6.0f} us: ratio CPU {with_cpu / bare_cpu:.3f}, "
                f"wall {with_wall / bare_wall:.3f}; the limit off {off_cpu:6.0f} / {off_wall:6.0f} us: "
                f"the whole limit costs {with_cpu - off_cpu:+.0f} us CPU, {with_wall - off_wall:+.0f} us wall "
                f"({n} requests each, load average {load()})"
            )
            if storage != "memory://":
                prefix = apps[WITH][0].config["RATELIMIT_KEY_PREFIX"]  # its counters go with the app's below
                per = {way: [x / n * 1e6 for x in total] for way, total in counts(storage, prefix, args.requests, args.rounds).items()}
                (one_cpu, one_wall), (two_cpu, two_wall) = per["one script"], per["count, then TTL"]
                print(
                    f"{storage.split('://')[0]:6} a count alone: one script {one_cpu:6.0f} us CPU {one_wall:6.0f} us wall; "
                    f"a count, then the TTL (before) {two_cpu:6.0f} / {two_wall:6.0f} us: "
                    f"{one_cpu - two_cpu:+.0f} us CPU, {one_wall - two_wall:+.0f} us wall a request "
                    f"({n} counts each, load average {load()})"
                )
            for app, _headers in apps.values():
                app.extensions["capsa"].db.dispose()
            if storage != "memory://":  # the run's counters, not left in a shared Redis for their hour
                client = redis.Redis.from_url(storage)
                for app, _headers in apps.values():
                    prefix = app.config["RATELIMIT_KEY_PREFIX"]
                    for key in client.scan_iter(match=f"LIMITS:LIMITER/{prefix}/*"):
                        client.delete(key)
                client.close()


if __name__ == "__main__":
    main()
