"""HTTP benchmark of the write path: POST /v1/rounds on PostgreSQL under gunicorn.conf.py.

Measured in one run, against a reference measured in the same run:

(ref) a bare Flask app under the same gunicorn config that parses the same body and
      answers a small JSON (bench/reference/bare_flask.py): its saturation req/s;
(a)   saturation of POST /v1/rounds (4 players, capsa-susun-id, stored), 8 closed-loop
      senders spread over 8 API clients, an Idempotency-Key on every request (how game
      servers call us): req/s as a ratio of (ref) (required >= 0.18, goal 0.25);
(b)   the same without keys, and (c) with keys from one API client (its rounds share one
      hash chain; goal >= 0.8 x (a));
      for each: per stored round, the gunicorn workers' CPU and the PostgreSQL backends'
      CPU (utime + stime from /proc, over the phase, divided by the rounds stored; goals
      <= 1.4 ms and <= 0.6 ms) and the WAL written (pg_current_wal_lsn() before and after;
      goal <= 8 KiB);
(d)   200 req/s spread over 4 API clients for 30 s, measured from each request's scheduled
      send time (so a stall is not hidden by the client waiting): p50 / p99 (goal < 50 ms),
      errors (goal 0).

With `--webhooks`: only (ref) and (a), then (a) again with a `*` webhook endpoint on each of
the 8 API clients, `capsa webhooks dispatch` and an instant receiver
(bench/reference/receiver.py) running: the ratio of the two req/s (goal >= 0.9: the write
path pays at most 10% for webhooks), and the events the receiver got during the phase.
`--receipts` (the default) serves with a signing key, so every stored round is signed and
its receipt stored; `--receipts-ab N` measures only that: the keyed 8-client saturation
without and with a key, N times in turn on one database, and prints the ratios.

`--pgbouncer N` measures only the pooler: the keyed 8-client saturation with direct
connections, then through pgbouncer 1.18 in transaction mode (tests/pgkit.py; the app with
DATABASE_POOLER=pgbouncer, the timeouts set on the database), N times in turn on one
database: req/s and, per stored round, the CPU of the workers, of the PostgreSQL backends
and of pgbouncer itself.

The machine is shared: the load average is printed beside each figure, and the ratios
are what to compare between runs. WAL is the server's (other databases' writes during a
phase count too: run it on a quiet server). Creates its own database
`capsa_bench_<random>` on the server of $BENCH_DATABASE_URL (or $TEST_DATABASE_URL), and
drops it at the end. Usage:

    TEST_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/test \\
        .venv/bin/python bench/http.py [--seconds 10] [--rate 200] [--fixed-seconds 30] [--webhooks]
        [--pgbouncer N]
"""

from __future__ import annotations

import atexit
import shutil
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
import tempfile  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BODY = json.loads((ROOT / "service/examples/round-4p-capsa-susun-id.json").read_text())
BODY.pop("reference", None)  # every request stores a new round
PAYLOAD = json.dumps(BODY).encode()
TICK = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_gunicorn(app: str, port: int, env: dict[str, str], pythonpath: str | None = None):
    argv = [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py"), "--bind", f"127.0.0.1:{port}"]
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


def _stat(pid: str) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _reaped(pid: int) -> float:
    """CPU seconds of the children `pid` has reaped: the kernel adds an exited child's
    counters to its parent's (cutime, cstime)."""
    fields = _stat(str(pid))
    return (int(fields[13]) + int(fields[14])) / TICK if fields else 0.0


def workers_cpu(master: int) -> float:
    """CPU seconds used so far by the workers of the gunicorn `master`: the live ones and
    those it has reaped (a worker recycled after `max_requests` during a phase, as 30 s
    phases do, would otherwise take its CPU with it: the phase read negative)."""
    total = _reaped(master)
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (fields := _stat(entry)) and int(fields[1]) == master:
            total += (int(fields[11]) + int(fields[12])) / TICK
    return total


def backends_cpu(database: str) -> float:
    """CPU seconds used so far by the PostgreSQL backends connected to `database`, plus the
    postmaster's reaped backends: a recycled worker's connections close, and their CPU would
    go with them. The postmaster reaps every database's backends: run on a quiet server."""
    total = 0.0
    postmasters: set[int] = set()
    needle = f" {database} ".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            title = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if title.startswith(b"postgres: ") and needle in title and (fields := _stat(entry)):
            total += (int(fields[11]) + int(fields[12])) / TICK
            postmasters.add(int(fields[1]))
    return total + sum(_reaped(pid) for pid in postmasters)


def one_request(port: int, headers: dict[str, str], keyed: bool) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    if keyed:
        headers = {**headers, "Idempotency-Key": uuid.uuid4().hex}
    try:
        conn.request("POST", "/v1/rounds", body=PAYLOAD, headers=headers)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def _saturate(port: int, headers: dict[str, str], keyed: bool, until: float, out: mp.Queue) -> None:
    done = errors = 0
    while time.monotonic() < until:
        status = one_request(port, headers, keyed)
        done += 1
        errors += status not in (200, 201)
    out.put((done, errors))


@dataclass
class Phase:
    rate: float
    rounds: int
    worker_ms: float
    backend_ms: float | None
    wal_kib: float | None
    load: float


class Server:
    """Where the per-round costs are read: the gunicorn master, the database, its WAL."""

    def __init__(self, master: int, database: str | None = None, url: str | None = None) -> None:
        self.master, self.database, self.url = master, database, url

    def snapshot(self) -> tuple[float, float, int | None]:
        backends = backends_cpu(self.database) if self.database else 0.0
        return workers_cpu(self.master), backends, self.wal()

    def wal(self) -> int | None:
        if self.url is None:
            return None
        import psycopg

        with psycopg.connect(self.url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as c:
            row = c.execute("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint").fetchone()
            return int(row[0]) if row else None


def saturation(port: int, senders: list[dict[str, str]], keyed: bool, seconds: float, server: Server) -> Phase:
    """Closed loop, one process per entry of `senders`, for `seconds` after a 2 s warm-up."""
    for phase, length in (("warm-up", 2.0), ("measure", seconds)):
        before = server.snapshot()
        load = os.getloadavg()[0]
        out: mp.Queue = mp.Queue()
        start = time.monotonic()
        procs = [mp.Process(target=_saturate, args=(port, h, keyed, start + length, out)) for h in senders]
        for p in procs:
            p.start()
        results = [out.get() for _ in procs]
        for p in procs:
            p.join()
        elapsed = time.monotonic() - start
        after = server.snapshot()
        done = sum(r[0] for r in results)
        errors = sum(r[1] for r in results)
        if errors:
            raise SystemExit(f"{errors} of {done} requests failed during {phase}")
    wal = None if before[2] is None or after[2] is None else (after[2] - before[2]) / done / 1024
    return Phase(
        done / elapsed,
        done,
        (after[0] - before[0]) * 1000 / done,
        (after[1] - before[1]) * 1000 / done if server.database else None,
        wal,
        load,
    )


def _fixed(port: int, headers: dict[str, str], rate: float, start: float, seconds: float, out: mp.Queue) -> None:
    latencies, errors, n = [], 0, 0
    while True:
        scheduled = start + n / rate
        if scheduled >= start + seconds:
            break
        delay = scheduled - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        status = one_request(port, headers, True)
        latencies.append(time.monotonic() - scheduled)
        errors += status != 201
        n += 1
    out.put((latencies, errors, time.monotonic()))


def fixed_rate(port: int, headers: list[dict[str, str]], rate: float, seconds: float) -> tuple[list[float], int, float]:
    """One sender per API client, each at rate / clients, keyed."""
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


def _row(label: str, phase: Phase, reference: float, versus: str = "the echo") -> str:
    parts = [f"    {label:<44} {phase.rate:8.1f} req/s  x{phase.rate / reference:5.3f} of {versus}"]
    parts.append(f"workers {phase.worker_ms:4.2f} ms")
    if phase.backend_ms is not None:
        parts.append(f"PostgreSQL {phase.backend_ms:4.2f} ms")
    if phase.wal_kib is not None:
        parts.append(f"WAL {phase.wal_kib:4.1f} KiB")
    parts.append(f"load {phase.load:.2f}")
    return "  ".join(parts)


def receipts_ab(
    args: argparse.Namespace, env: dict[str, str], tenants: list[dict[str, str]], name: str, url: str, key_file: Path
) -> int:
    """The keyed 8-client saturation without, then with, a signing key, N times in turn on
    one database: the same code, the same load moments; the ratio is the receipts' cost."""
    rows: dict[bool, list[Phase]] = {False: [], True: []}
    for _ in range(args.receipts_ab):
        for signed in (False, True):
            run_env = {**env, "SIGNING_KEY_FILE": str(key_file)} if signed else dict(env)
            if not signed:
                run_env.pop("SIGNING_KEY_FILE", None)
            port = free_port()
            proc = start_gunicorn("service.api.wsgi:app", port, run_env)
            try:
                rows[signed].append(saturation(port, tenants[: args.senders], True, args.seconds, Server(proc.pid, name, url)))
            finally:
                proc.terminate()
                proc.wait(10)
    print(f"receipts A/B: POST /v1/rounds, {args.senders} clients, Idempotency-Key, {args.seconds:.0f} s each, "
          f"{args.receipts_ab} alternations (the machine is shared: load beside each)")
    for signed in (False, True):
        for phase in rows[signed]:
            print(_row("with receipts" if signed else "without receipts", phase, rows[False][0].rate,
                       "the first without"))
    pairs = ", ".join(f"x{b.rate / a.rate:.3f}" for a, b in zip(rows[False], rows[True]))
    print(f"    with / without in each alternation (req/s): {pairs}")
    rate = {s: statistics.mean(p.rate for p in rows[s]) for s in rows}
    cpu = {s: statistics.mean(p.worker_ms for p in rows[s]) for s in rows}
    pg = {s: statistics.mean(p.backend_ms or 0.0 for p in rows[s]) for s in rows}
    wal = {s: statistics.mean(p.wal_kib or 0.0 for p in rows[s]) for s in rows}
    print(f"    with / without: req/s x{rate[True] / rate[False]:.3f}; workers CPU per round x{cpu[True] / cpu[False]:.3f} "
          f"({cpu[False]:.2f} -> {cpu[True]:.2f} ms); PostgreSQL CPU per round {pg[False]:.2f} -> {pg[True]:.2f} ms; "
          f"WAL per round {wal[False]:.1f} -> {wal[True]:.1f} KiB")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="each saturation window")
    parser.add_argument("--senders", type=int, default=8, help="saturation sender processes")
    parser.add_argument("--rate", type=float, default=200.0)
    parser.add_argument("--fixed-clients", type=int, default=4)
    parser.add_argument("--fixed-seconds", type=float, default=30.0)
    parser.add_argument("--webhooks", action="store_true",
                        help="keyed saturation without, then with webhooks delivered (and nothing else)")
    parser.add_argument("--receipts", action=argparse.BooleanOptionalAction, default=True,
                        help="serve with a signing key (SIGNING_KEY_FILE): every stored round gets its receipt")
    parser.add_argument("--receipts-ab", type=int, default=0, metavar="N",
                        help="only the cost of receipts: N alternations of the keyed 8-client saturation "
                        "without and with a signing key, on one database, ratio with/without")
    parser.add_argument("--pgbouncer", type=int, default=0, metavar="N",
                        help="only the pooler's cost: N alternations of the keyed 8-client saturation with "
                        "direct connections and through pgbouncer in transaction mode, on one database")
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
        keys = [clients.create_client(db, f"bench-{i}")[1] for i in range(max(args.senders, args.fixed_clients))]
        db.dispose()
        tenants = [{"Authorization": f"Bearer {k}", "Content-Type": "application/json"} for k in keys]
        # Every request is counted against its client's limit, as served, under a quota the
        # load never reaches: the default (1,200 a minute) would only cap it.
        env = {**os.environ, "DATABASE_URL": url, "LOG_LEVEL": "INFO", "RATE_LIMIT": "100000000/hour",
               "METRICS_BIND": "off"}  # two servers at once: one metrics bind would clash
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        workers = env.get("WEB_CONCURRENCY", str((os.cpu_count() or 1) * 2 + 1))

        keys_dir = tempfile.mkdtemp(prefix="capsa-bench-keys-")
        atexit.register(shutil.rmtree, keys_dir, True)  # a private signing key: not left behind
        key_file = Path(keys_dir) / "signing-keys.json"
        from service.adapters import keyfile
        from service.domain.signing import Keyring
        from service.services.clock import utcnow_ms

        keyfile.save(key_file, Keyring().rotated(utcnow_ms())[0])
        if args.receipts_ab:
            return receipts_ab(args, env, tenants, name, url, key_file)
        if args.pgbouncer:
            if args.receipts:
                env["SIGNING_KEY_FILE"] = str(key_file)
            return pgbouncer_ab(args, env, tenants, name, url, admin)
        if args.receipts:
            env["SIGNING_KEY_FILE"] = str(key_file)

        bare_port, svc_port = free_port(), free_port()
        procs.append(start_gunicorn("bare_flask:app", bare_port, env, str(ROOT / "bench" / "reference")))
        echo = saturation(bare_port, tenants[: args.senders], False, args.seconds, Server(procs[-1].pid))
        procs.pop().terminate()

        procs.append(start_gunicorn("service.api.wsgi:app", svc_port, env))
        server = Server(procs[-1].pid, name, url)
        spread = tenants[: args.senders]
        keyed = saturation(svc_port, spread, True, args.seconds, server)
        if args.webhooks:
            return with_webhooks(args, url, name, keys, env, svc_port, spread, server, echo, keyed, procs)
        unkeyed = saturation(svc_port, spread, False, args.seconds, server)
        one_client = saturation(svc_port, [tenants[0]] * args.senders, True, args.seconds, server)
        time.sleep(1)
        load = os.getloadavg()[0]
        latencies, errors, achieved = fixed_rate(svc_port, tenants[: args.fixed_clients], args.rate, args.fixed_seconds)
        ms = [x * 1000 for x in latencies]

        print(
            f"machine: {os.cpu_count()} cores; gunicorn.conf.py, {workers} sync workers; "
            f"PostgreSQL database {name} (dropped after)"
        )
        print(f"saturation, {args.senders} closed-loop senders, {args.seconds:.0f} s each (per stored round: "
              "CPU of the gunicorn workers and of the PostgreSQL backends, WAL):")
        print(f"    {'bare Flask echo (the reference)':<44} {echo.rate:8.1f} req/s  "
              f"workers {echo.worker_ms:4.2f} ms  load {echo.load:.2f}")
        print(_row(f"POST /v1/rounds, {args.senders} clients, Idempotency-Key", keyed, echo.rate))
        print(_row(f"POST /v1/rounds, {args.senders} clients, no key", unkeyed, echo.rate))
        print(_row("POST /v1/rounds, 1 client, Idempotency-Key", one_client, echo.rate))
        print(f"    one client / {args.senders} clients (keyed): {one_client.rate / keyed.rate:.3f} (goal >= 0.8); "
              "goals: ratio >= 0.18 (0.25), workers <= 1.4 ms, PostgreSQL <= 0.6 ms, WAL <= 8 KiB")
        print(
            f"fixed {args.rate:.0f} req/s over {args.fixed_clients} API clients for {args.fixed_seconds:.0f} s, "
            f"keyed: achieved {achieved:.1f} req/s, {errors} errors, load {load:.2f} at start"
        )
        print(
            f"    p50 {statistics.median(ms):6.1f} ms   p99 {percentile(ms, 0.99):6.1f} ms   "
            f"max {ms[-1]:6.1f} ms   (goal p99 < 50 ms, 0 errors)"
        )
        return 0
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
        drop_database(admin, name)


def with_webhooks(args, url, name, keys, env, port, spread, server, echo, keyed, procs) -> int:  # type: ignore[no-untyped-def]
    """(a) again with a `*` endpoint per API client, the dispatcher and a receiver running."""
    from service.adapters.uow import Database
    from service.services.webhooks import endpoints as webhooks

    receiver_port = free_port()
    procs.append(subprocess.Popen([sys.executable, str(ROOT / "bench/reference/receiver.py"), str(receiver_port)]))
    os.environ["WEBHOOK_ALLOW_PRIVATE"] = "1"
    for _ in range(100):
        try:
            _received(receiver_port)
            break
        except OSError:
            time.sleep(0.2)
    db = Database(url)
    with db.unit_of_work() as uow:
        ids = [c for i in range(len(keys)) if (c := uow.clients.id_by_name(f"bench-{i}")) is not None]
    for client in ids[: args.senders]:
        webhooks.create(db, client, {"url": f"http://127.0.0.1:{receiver_port}/hook", "events": ["*"]})
    db.dispose()
    denv = {**env, "WEBHOOK_ALLOW_PRIVATE": "1", "WEBHOOK_METRICS_BIND": "off", "LOG_LEVEL": "WARNING"}
    dispatcher = subprocess.Popen([str(Path(sys.executable).parent / "capsa"), "webhooks", "dispatch"], env=denv)
    procs.append(dispatcher)
    # Warm: one round through the whole path (the dispatcher may take a while to start).
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and one_request(port, spread[0], True) != 201:
        time.sleep(0.5)
    while time.monotonic() < deadline and _received(receiver_port) < 1:
        time.sleep(0.2)
    before = _received(receiver_port)
    if before < 1:
        raise SystemExit("the dispatcher delivered nothing in 120 s")
    receiver = procs[-2]
    cpu0, receiver0 = cpu_of(dispatcher.pid), cpu_of(receiver.pid)
    hooked = saturation(port, spread, True, args.seconds, server)
    delivered = _received(receiver_port) - before
    time.sleep(3)
    caught_up = _received(receiver_port) - before
    # Per event delivered over the same span (the saturation's warm-up, its phase, 3 s after).
    dispatcher_ms = (cpu_of(dispatcher.pid) - cpu0) / max(1, caught_up) * 1000
    receiver_ms = (cpu_of(receiver.pid) - receiver0) / max(1, caught_up) * 1000
    print(f"machine: {os.cpu_count()} cores, shared with other work; PostgreSQL database {name} (dropped after)")
    print(f"    {'bare Flask echo (the reference)':<44} {echo.rate:8.1f} req/s  load {echo.load:.2f}")
    print(_row(f"POST /v1/rounds, {args.senders} clients, Idempotency-Key", keyed, echo.rate))
    print(_row("  the same, webhooks on (dispatcher + receiver)", hooked, echo.rate))
    print(f"    with / without webhooks: {hooked.rate / keyed.rate:.3f} (goal >= 0.90); {delivered} events "
          f"delivered during the phase and warm-up ({caught_up} 3 s after; {hooked.rounds} rounds in the phase); "
          f"dispatcher CPU {dispatcher_ms:.2f} ms, receiver {receiver_ms:.2f} ms per event delivered")
    # The arithmetic: saturated, the rate is the cores over the CPU one round costs. Without
    # webhooks a round costs the workers' and PostgreSQL's CPU (the senders' is the same in
    # both runs, left out); with them, also the dispatcher's and the receiver's per event,
    # and PostgreSQL's share of the deliveries inside its figure.
    without = keyed.worker_ms + (keyed.backend_ms or 0.0)
    with_ = hooked.worker_ms + (hooked.backend_ms or 0.0) + dispatcher_ms + receiver_ms
    print(f"    CPU per round: without {keyed.worker_ms:.2f} workers + {keyed.backend_ms or 0.0:.2f} PostgreSQL = "
          f"{without:.2f} ms; with {hooked.worker_ms:.2f} + {hooked.backend_ms or 0.0:.2f} + dispatcher "
          f"{dispatcher_ms:.2f} + receiver {receiver_ms:.2f} = {with_:.2f} ms: on {os.cpu_count()} saturated cores "
          f"the rate should move by about {without / with_:.3f} (measured {hooked.rate / keyed.rate:.3f})")
    return 0


def pgbouncer_ab(
    args: argparse.Namespace, env: dict[str, str], tenants: list[dict[str, str]], name: str, url: str, admin: str
) -> int:
    """The keyed saturation direct, then through pgbouncer (transaction mode), N times in
    turn on one database: the pooler's cost per round on each side of it."""
    sys.path.insert(0, str(ROOT / "tests"))
    import psycopg
    from pgkit import Pgbouncer
    from sqlalchemy.engine import make_url

    with psycopg.connect(admin.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as c:
        # What `ALTER ROLE capsa SET ...` does in production (pgbouncer refuses `options`).
        c.execute(f'ALTER DATABASE "{name}" SET statement_timeout = 5000')
        c.execute(f'ALTER DATABASE "{name}" SET lock_timeout = 2000')
    server = make_url(admin)
    bouncer = Pgbouncer(server.host or "127.0.0.1", server.port or 5432)
    rows: dict[bool, list[tuple[Phase, float]]] = {False: [], True: []}
    try:
        for _ in range(args.pgbouncer):
            for pooled in (False, True):
                run_env = {**env, "DATABASE_URL": bouncer.route(url) if pooled else url,
                           "DATABASE_POOLER": "pgbouncer" if pooled else "none"}
                port = free_port()
                proc = start_gunicorn("service.api.wsgi:app", port, run_env)
                try:
                    before = pgbouncer_cpu(bouncer.dir)
                    phase = saturation(port, tenants[: args.senders], True, args.seconds, Server(proc.pid, name, url))
                    # pgbouncer's CPU over warm-up and measure, per round of the measure: an upper bound
                    rows[pooled].append((phase, (pgbouncer_cpu(bouncer.dir) - before) * 1000 / phase.rounds))
                finally:
                    proc.terminate()
                    proc.wait(10)
    finally:
        bouncer.stop()
    print(f"pgbouncer A/B: POST /v1/rounds, {args.senders} clients, Idempotency-Key, {args.seconds:.0f} s each, "
          f"{args.pgbouncer} alternations (the machine is shared: load beside each)")
    for pooled in (False, True):
        for phase, bouncer_ms in rows[pooled]:
            label = "through pgbouncer (transaction mode)" if pooled else "direct connections"
            extra = f"  pgbouncer {bouncer_ms:4.2f} ms (upper bound)" if pooled else ""
            print(_row(label, phase, rows[False][0][0].rate) + extra)
    rate = {s: statistics.mean(p.rate for p, _ in rows[s]) for s in rows}
    cpu = {s: statistics.mean(p.worker_ms for p, _ in rows[s]) for s in rows}
    pg = {s: statistics.mean(p.backend_ms or 0.0 for p, _ in rows[s]) for s in rows}
    print(f"    pgbouncer / direct: req/s x{rate[True] / rate[False]:.3f}; workers CPU per round "
          f"x{cpu[True] / cpu[False]:.3f} ({cpu[False]:.2f} -> {cpu[True]:.2f} ms); PostgreSQL CPU per round "
          f"x{pg[True] / pg[False]:.3f} ({pg[False]:.2f} -> {pg[True]:.2f} ms)")
    return 0


def pgbouncer_cpu(directory: Path) -> float:
    """CPU seconds used so far by the pgbouncer whose config lives in `directory`."""
    needle = str(directory).encode()
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if cmdline.startswith(b"/usr/sbin/pgbouncer") and needle in cmdline and (fields := _stat(entry)):
            total += (int(fields[11]) + int(fields[12])) / TICK
    return total


def cpu_of(pid: int) -> float:
    fields = _stat(str(pid))
    return 0.0 if fields is None else (int(fields[11]) + int(fields[12])) / TICK


def _received(port: int) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/stats")
    count = int(json.loads(conn.getresponse().read())["count"])
    conn.close()
    return count


if __name__ == "__main__":
    sys.exit(main())
