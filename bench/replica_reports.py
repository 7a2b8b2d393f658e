"""The replica's reports: does report load on the standby cost the primary anything per round?

A private primary and a streaming standby (initdb, `pg_basebackup -R`, owned by `postgres`
when run as root, on free ports; never the machine's shared server), gunicorn with
gunicorn.conf.py on the primary and READ_DATABASE_URL on the standby. Phases, alternated
`--repeat` times:

(a) POST /v1/rounds at `--rate` (150/s) over 4 API clients, keyed, alone;
(b) the same with `--readers` processes asking, in a closed loop, for a ledger summary
    over a period (`since`, so every answer aggregates the lines again) and the newest
    entries of the same clients.

For each: the rounds stored, per round the CPU of the primary's PostgreSQL processes and of
the standby's (utime + stime of the postmaster and its children, from /proc), and of the
gunicorn workers (which serve the reports too); the reports answered per second and which
database answered them (`as_of.source`); the load average beside each row. The figure to
read is (b)/(a) of the primary's CPU per round. Usage:

    .venv/bin/python bench/replica_reports.py [--seconds 20] [--rate 150] [--readers 4] [--repeat 2]
"""

from __future__ import annotations

import sys

# bench/http.py shadows the standard library's http package: drop this folder from the path.
sys.path[:] = [p for p in sys.path if not p.rstrip("/").endswith("bench")]

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import multiprocessing as mp  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import urllib.request  # noqa: E402
from collections import Counter  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("bench_http", ROOT / "bench/http.py")
assert _spec is not None and _spec.loader is not None
bench_http: Any = importlib.util.module_from_spec(_spec)
sys.modules["bench_http"] = bench_http  # its dataclasses look their module up
_spec.loader.exec_module(bench_http)


class Node:
    def __init__(self, root: Path, name: str) -> None:
        self.dir = root / name
        self.dir.mkdir()
        self.data = self.dir / "data"
        self.port = bench_http.free_port()
        self.as_root = os.geteuid() == 0
        if self.as_root:
            shutil.chown(self.dir, "postgres")

    def run(self, *argv: str) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if self.as_root else []
        subprocess.run(prefix + list(argv), check=True, capture_output=True, timeout=300)

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c max_connections=100 -c wal_level=replica -c max_wal_senders=4 -c hot_standby=on"
        )
        self.run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.dir / "log"), "-w", "start")

    def stop(self) -> None:
        try:
            self.run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        except subprocess.CalledProcessError:
            pass

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def cpu(self) -> float:
        """CPU seconds used so far by this server's postmaster and its live children."""
        master = int((self.data / "postmaster.pid").read_text().split()[0])
        total = 0.0
        for entry in os.listdir("/proc"):
            if entry.isdigit() and (fields := bench_http._stat(entry)):
                if int(entry) == master or int(fields[1]) == master:
                    total += (int(fields[11]) + int(fields[12])) / bench_http.TICK
        return total


def _reader(port: int, headers: dict[str, str], until: float, out: mp.Queue) -> None:
    paths = ["/v1/ledger/summary?currency=IDR&since=2020-01-01", "/v1/ledger/entries?currency=IDR&limit=50"]
    sources: Counter[str] = Counter()
    n = 0
    while time.monotonic() < until:
        request = urllib.request.Request(f"http://127.0.0.1:{port}{paths[n % 2]}", headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                sources[json.loads(response.read())["as_of"]["source"]] += 1
        except Exception as exc:  # counted, never hidden
            sources[f"error {type(exc).__name__}"] += 1
        n += 1
    out.put(dict(sources))


def phase(label: str, args: argparse.Namespace, port: int, tenants: list[dict[str, str]], master: int,
          primary: Node, standby: Node, readers: int) -> dict[str, float]:
    out: mp.Queue = mp.Queue()
    until = time.monotonic() + args.seconds + 1.0
    procs = [
        mp.Process(target=_reader, args=(port, tenants[i % len(tenants)], until, out)) for i in range(readers)
    ]
    for p in procs:
        p.start()
    cpu0 = primary.cpu(), standby.cpu(), bench_http.workers_cpu(master)
    started = time.monotonic()
    latencies, errors, rate = bench_http.fixed_rate(port, tenants, args.rate, args.seconds)
    elapsed = time.monotonic() - started
    cpu1 = primary.cpu(), standby.cpu(), bench_http.workers_cpu(master)
    sources: Counter[str] = Counter()
    for _ in procs:
        sources.update(out.get())
    for p in procs:
        p.join()
    stored = len(latencies) - errors
    per = [(b - a) / max(stored, 1) * 1000 for a, b in zip(cpu0, cpu1)]
    load = Path("/proc/loadavg").read_text().split()[0]
    reports = sum(v for k, v in sources.items() if not k.startswith("error"))
    print(
        f"{label:<24} rounds {stored:5d} ({rate:5.1f}/s, {errors} errors)  per round: primary "
        f"{per[0]:.3f} ms, standby {per[1]:.3f} ms, gunicorn {per[2]:.3f} ms  reports "
        f"{reports / elapsed:6.1f}/s {dict(sources)}  load {load}",
        flush=True,
    )
    return {"primary": per[0], "standby": per[1], "gunicorn": per[2]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--rate", type=float, default=150.0)
    parser.add_argument("--readers", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    for tool in ("initdb", "pg_ctl", "pg_basebackup"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is not on PATH")

    from service.adapters.migrate import upgrade
    from service.adapters.uow import Database
    from service.services import clients

    root = Path(tempfile.mkdtemp(prefix="capsa-bench-replica-"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
    primary, standby = Node(root, "primary"), Node(root, "standby")
    gunicorn = None
    try:
        primary.run("initdb", "-D", str(primary.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        with open(primary.data / "pg_hba.conf", "a") as hba:
            hba.write("host replication postgres 127.0.0.1/32 trust\n")
        primary.start()
        primary.run("psql", "-h", "127.0.0.1", "-p", str(primary.port), "-U", "postgres", "-c", "CREATE DATABASE capsa")
        upgrade(primary.url("capsa"))
        db = Database(primary.url("capsa"))
        keys = [clients.create_client(db, f"bench-{i}")[1] for i in range(4)]
        db.dispose()
        primary.run(
            "pg_basebackup", "-h", "127.0.0.1", "-p", str(primary.port), "-U", "postgres", "-D",
            str(standby.data), "-R", "-X", "stream", "--no-sync",
        )
        standby.start()
        tenants = [{"Authorization": f"Bearer {k}", "Content-Type": "application/json"} for k in keys]
        env = {**os.environ, "DATABASE_URL": primary.url("capsa"), "READ_DATABASE_URL": standby.url("capsa"),
               "LOG_LEVEL": "WARNING", "RATE_LIMIT": "off", "METRICS_BIND": "off"}
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        port = bench_http.free_port()
        gunicorn = bench_http.start_gunicorn("service.api.wsgi:app", port, env)
        bench_http.fixed_rate(port, tenants, args.rate, 3.0)  # warm up: pools, caches, some history
        ratios = []
        for n in range(args.repeat):
            alone = phase(f"(a) writes alone #{n + 1}", args, port, tenants, gunicorn.pid, primary, standby, 0)
            loaded = phase(
                f"(b) + {args.readers} readers #{n + 1}", args, port, tenants, gunicorn.pid, primary, standby,
                args.readers,
            )
            ratios.append(loaded["primary"] / alone["primary"])
        print("primary CPU per round, (b)/(a): " + ", ".join(f"x{r:.2f}" for r in ratios))
        return 0
    finally:
        if gunicorn is not None:
            gunicorn.terminate()
            gunicorn.wait(timeout=30)
        standby.stop()
        primary.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
