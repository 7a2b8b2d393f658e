"""Webhook delivery benchmark on PostgreSQL: events per second, and the lag at a fixed rate.

Measured in one run, against references measured in the same run:

(ref) the receiver's own rate: 16 threads POSTing a delivery-sized body to the same
      instant receiver (bench/reference/receiver.py, its own process) with no database,
      over fresh connections and over kept-alive ones (HTTP/1.1, one per thread, as the
      dispatcher keeps them): requests/s;
(a)   throughput: ROUNDS rounds stored while the endpoint is disabled, one
      `capsa webhooks dispatch` (16 deliveries in flight) started and left to finish its
      start-up (its CPU still), then the endpoint enabled: events delivered per second from
      the enabling to the last delivery, as a ratio of (ref) keep-alive; CPU per event from
      the processes' own counters (utime + stime in /proc) over the same span: the
      dispatcher's, PostgreSQL's (the backends of the benchmark's database) and the
      receiver's; the dispatcher's start-up CPU apart;
(b)   lag: rounds stored at RATE/s (8 threads, scheduled sends) for SECONDS with the
      dispatcher running: receipt time minus the event's `timestamp`, p50 / p99 / max; the
      backlog left when the stores end (events stored and not yet received); the write
      path's latency p50 / p99 (each `rounds.create`), and the dispatcher's CPU per event;
(c)   the same stores with no endpoint subscribed (a client of its own), the dispatcher
      still running, once before (b) and once after it: the write path's p99 over both,
      and (b)'s as a ratio of it (goal <= 1.1), and of each alone. A p99 of a few ms moves
      with whatever else the shared machine does: measured on both sides of (b), a drift
      of the machine's load over the run weighs on both conditions alike, and the two
      ratios apart show how far the figure moves within one run.

The last lines compare each figure with the goal of issue 25. The machine is shared (2
cores): the load average is printed beside each figure. Creates its own database on
$BENCH_DATABASE_URL or $TEST_DATABASE_URL and drops it.

    TEST_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/test \\
        .venv/bin/python bench/webhooks.py [--rounds 2000] [--seconds 60] [--rate 300]
"""

from __future__ import annotations

import sys

sys.path[:] = [p for p in sys.path if not p.rstrip("/").endswith("bench")]

import argparse  # noqa: E402
import http.client  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import socket  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BODY = json.loads((ROOT / "service/examples/round-4p-capsa-susun-id.json").read_text())
BODY.pop("reference", None)
TICK = os.sysconf("SC_CLK_TCK")
CAPSA = str(Path(sys.executable).parent / "capsa")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def backends_cpu(database: str) -> float:
    """CPU seconds used so far by the PostgreSQL backends connected to `database`."""
    total = 0.0
    needle = f" {database} ".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            title = Path(f"/proc/{entry}/cmdline").read_bytes()
            if title.startswith(b"postgres: ") and needle in title:
                total += cpu(int(entry))
        except (OSError, ValueError, IndexError):
            continue
    return total


def settled(pid: int, timeout: float = 60.0) -> float:
    """Wait until the process's CPU stops growing (its start-up done): its CPU then."""
    deadline = time.monotonic() + timeout
    last = cpu(pid)
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = cpu(pid)
        if now - last < 0.03:
            return now
        last = now
    return last


def stats(port: int, reset: bool = False) -> dict[str, object]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/reset" if reset else "/stats")
    out = json.loads(conn.getresponse().read())
    conn.close()
    return dict(out)


def wait_port(port: int) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise SystemExit("the receiver did not start")


def raw_rate(port: int, body: bytes, seconds: float, threads: int = 16, keep_alive: bool = False) -> float:
    counts = [0] * threads
    until = time.monotonic() + seconds

    def send(i: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        while time.monotonic() < until:
            try:
                conn.request("POST", "/hook", body=body, headers={"Content-Type": "application/json", "webhook-id": "ref"})
                conn.getresponse().read()
                counts[i] += 1
            except (OSError, http.client.HTTPException):
                conn.close()
            if not keep_alive:
                conn.close()
        conn.close()

    workers = [threading.Thread(target=send, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return sum(counts) / seconds


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rate", type=float, default=300.0)
    args = parser.parse_args()
    admin = os.environ.get("BENCH_DATABASE_URL") or os.environ.get("TEST_DATABASE_URL")
    if not admin:
        raise SystemExit("set BENCH_DATABASE_URL or TEST_DATABASE_URL to a PostgreSQL server")

    from service.adapters.db import create_database, drop_database, normalise_url
    from service.adapters.migrate import upgrade
    from service.adapters.uow import Database
    from service.services import clients
    from service.services.rounds import store as rounds
    from service.services.webhooks import endpoints as webhooks

    admin = normalise_url(admin)
    url, name = create_database(admin, "capsa_bench")
    port = free_port()
    procs: list[subprocess.Popen[bytes]] = []
    os.environ["WEBHOOK_ALLOW_PRIVATE"] = "1"
    try:
        upgrade(url)
        procs.append(subprocess.Popen([sys.executable, str(ROOT / "bench/reference/receiver.py"), str(port)]))
        wait_port(port)
        db = Database(url, pool_size=8)
        receiver = procs[0]
        client_id, _ = clients.create_client(db, "bench-hooks")
        hook = webhooks.create(db, client_id, {"url": f"http://127.0.0.1:{port}/hook", "events": ["*"]})
        sample = rounds.create(db, client_id, dict(BODY), None).response.body
        body = json.dumps({"type": "round.settled", "timestamp": "2026-12-01T00:00:00.000Z",
                           "data": json.loads(sample)}).encode()
        load_ref = os.getloadavg()[0]
        reference = raw_rate(port, body, 5.0)
        load_keep = os.getloadavg()[0]
        kept = raw_rate(port, body, 5.0, keep_alive=True)
        stats(port, reset=True)

        webhooks.update(db, client_id, hook["id"], {"enabled": False})
        for _ in range(args.rounds - 1):
            rounds.create(db, client_id, dict(BODY), None)
        env = {**os.environ, "DATABASE_URL": url, "WEBHOOK_METRICS_BIND": "off", "LOG_LEVEL": "WARNING",
               "WEBHOOK_POLL_S": "0.05",
               # one endpoint: give it all 16 slots (the defaults hold one endpoint to 4)
               "WEBHOOK_ENDPOINT_CONCURRENCY": "16", "WEBHOOK_CLIENT_CONCURRENCY": "16"}
        dispatcher = subprocess.Popen([CAPSA, "webhooks", "dispatch"], env=env)
        procs.append(dispatcher)
        startup = settled(dispatcher.pid)
        load_a = os.getloadavg()[0]
        cpu_d0, cpu_pg0, cpu_r0 = cpu(dispatcher.pid), backends_cpu(name), cpu(receiver.pid)
        started = time.monotonic()
        webhooks.update(db, client_id, hook["id"], {"enabled": True})  # its cursor is where it was: all of them
        # Polled 5 times a second: each /stats holds the receiver's lock while it serialises
        # every lag so far, which slows the receiver it measures (and so the dispatcher).
        while stats(port)["count"] < args.rounds and time.monotonic() - started < 600:  # type: ignore[operator]
            time.sleep(0.2)
        took = time.monotonic() - started
        per_event_ms = (cpu(dispatcher.pid) - cpu_d0) / args.rounds * 1000
        pg_a = (backends_cpu(name) - cpu_pg0) / args.rounds * 1000
        receiver_a = (cpu(receiver.pid) - cpu_r0) / args.rounds * 1000
        load_a_end = os.getloadavg()[0]
        got = stats(port, reset=True)
        rate = args.rounds / took

        quiet_client, _ = clients.create_client(db, "bench-quiet")

        def fixed_rate(client: str) -> tuple[float, list[float], int, float]:
            """Store at args.rate for args.seconds: achieved rate, latencies (ms), errors, end."""
            senders, total = 8, int(args.rate * args.seconds)
            t0 = time.monotonic() + 0.5
            errors = [0]
            took_ms: list[float] = []

            def store(k: int) -> None:
                for i in range(k, total, senders):
                    delay = t0 + i / args.rate - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)
                    began = time.perf_counter()
                    try:
                        rounds.create(db, client, dict(BODY), None)
                        took_ms.append((time.perf_counter() - began) * 1000)
                    except Exception:
                        errors[0] += 1

            threads = [threading.Thread(target=store, args=(k,)) for k in range(senders)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            return total / (time.monotonic() - t0), took_ms, errors[0], time.monotonic()

        load_c = os.getloadavg()[0]
        achieved_c, write_c1, errors_c, _ = fixed_rate(quiet_client)
        load_b = os.getloadavg()[0]
        cpu_before, pg_before = cpu(dispatcher.pid), backends_cpu(name)
        achieved, write_b, errors_b, ended = fixed_rate(client_id)
        load_b_end = os.getloadavg()[0]
        backlog = int(args.rate * args.seconds) - int(stats(port)["count"])  # type: ignore[call-overload]
        deadline = time.monotonic() + 60
        total = int(args.rate * args.seconds)
        while stats(port)["count"] < total and time.monotonic() < deadline:  # type: ignore[operator]
            time.sleep(0.05)
        drained = time.monotonic() - ended
        per_event_b = (cpu(dispatcher.pid) - cpu_before) / total * 1000
        pg_b = (backends_cpu(name) - pg_before) / total * 1000  # the stores' too
        lag = stats(port)
        lags: list[float] = lag["lags_ms"]  # type: ignore[assignment]
        load_c2 = os.getloadavg()[0]
        achieved_c2, write_c2, errors_c2, _ = fixed_rate(quiet_client)  # (c) again, after (b)
        load_c2_end = os.getloadavg()[0]
        db.dispose()

        write_c = write_c1 + write_c2
        p99_b, p99_c = percentile(write_b, 0.99), percentile(write_c, 0.99)
        p99_c1, p99_c2 = percentile(write_c1, 0.99), percentile(write_c2, 0.99)
        lag_p99 = percentile(lags, 0.99)
        print(f"machine: {os.cpu_count()} cores, shared with other work; PostgreSQL database {name} (dropped after)")
        print(f"(ref) receiver alone, 16 threads, fresh connections: {reference:8.1f} req/s   load {load_ref:.2f}")
        print(f"(ref) receiver alone, 16 threads, kept-alive connections: {kept:8.1f} req/s   load {load_keep:.2f}")
        print(f"(a)   {args.rounds} queued events, one dispatcher: {rate:8.1f} events/s in {took:.2f} s, ratio "
              f"{rate / kept:.3f} of (ref) keep-alive, {rate / reference:.3f} of fresh; {got['distinct']} distinct of "
              f"{got['count']} received   load {load_a:.2f} -> {load_a_end:.2f}")
        print(f"      CPU per event: dispatcher {per_event_ms:.3f} ms, PostgreSQL {pg_a:.3f} ms, receiver "
              f"{receiver_a:.3f} ms (sum {per_event_ms + pg_a + receiver_a:.3f} ms: {rate * (per_event_ms + pg_a + receiver_a) / 1000:.2f} "
              f"of the {os.cpu_count()} cores at that rate); the dispatcher's start-up {startup:.2f} s apart")
        print(f"(b)   {args.rate:.0f} rounds/s for {args.seconds:.0f} s (achieved {achieved:.1f}/s, {errors_b} errors), "
              f"endpoint subscribed: {lag['count']} delivered; lag p50 {statistics.median(lags):.0f} ms, "
              f"p99 {lag_p99:.0f} ms, max {max(lags):.0f} ms; backlog at the end {backlog} events "
              f"({backlog / args.rate:.2f} s of traffic, drained {drained:.2f} s later); write path p50 "
              f"{statistics.median(write_b):.1f} ms, p99 {p99_b:.1f} ms; dispatcher CPU {per_event_b:.3f} ms per event, "
              f"PostgreSQL {pg_b:.3f} ms per round (stores and deliveries)   load {load_b:.2f} -> {load_b_end:.2f}")
        print(f"(c)   the same with no endpoint subscribed, before and after (b) (achieved {achieved_c:.1f}/s and "
              f"{achieved_c2:.1f}/s, {errors_c + errors_c2} errors): write path p50 {statistics.median(write_c):.1f} ms, "
              f"p99 {p99_c:.1f} ms (before {p99_c1:.1f}, after {p99_c2:.1f}); (b)/(c) p99 {p99_b / p99_c:.2f}x "
              f"(against each alone {p99_b / p99_c1:.2f}x, {p99_b / p99_c2:.2f}x)"
              f"   load {load_c:.2f}, then {load_c2:.2f} -> {load_c2_end:.2f}")
        goals = [
            ("events/s to an instant receiver", f"{rate:.0f}", ">= 2000", rate >= 2000),
            ("ratio of the receiver's keep-alive rate", f"{rate / kept:.3f}", ">= 0.33", rate / kept >= 0.33),
            ("dispatcher CPU per event (a)", f"{per_event_ms:.3f} ms", "<= 0.4 ms", per_event_ms <= 0.4),
            (f"lag p99 at {args.rate:.0f}/s", f"{lag_p99:.0f} ms", "< 1000 ms", lag_p99 < 1000),
            ("backlog at the end", f"{backlog / args.rate:.2f} s", "< 1 s", backlog / args.rate < 1),
            ("write p99 with / without the endpoint", f"{p99_b / p99_c:.2f}x", "<= 1.1x", p99_b / p99_c <= 1.1),
        ]
        for what, value, goal, met in goals:
            print(f"goal  {what:<42} {value:>10}  {goal:<10} {'met' if met else 'MISSED'}")
        return 0
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
        drop_database(admin, name)


if __name__ == "__main__":
    sys.exit(main())
