"""Where a stored round's worker CPU goes: cProfile over POST /v1/rounds in one process.

bench/http.py measures the write path's CPU per round from the gunicorn workers' own
counters; this script says what that CPU is spent on. It creates a scratch PostgreSQL
database (or uses SQLite with --sqlite), stores --rounds 4-player rounds through the
Flask test client (the WSGI app as gunicorn calls it, without sockets), each with an
Idempotency-Key, under cProfile, and prints:

- CPU per round (process time, which excludes waiting for PostgreSQL), on stderr (stdout
  carries the request log, as gunicorn's workers write it; send it to /dev/null);
- the share of that CPU by layer (this project's api/services/adapters/domain, Flask and
  Werkzeug, SQLAlchemy, psycopg, marshmallow, orjson, the rest), by own time;
- the top functions by own time;
- with PROFILE_CALLERS=<pattern> (e.g. `local.py:310`), who calls the matching functions.

cProfile's own cost per call inflates call-heavy code (a proxy read, an `isinstance`).
`--sample` profiles the same rounds statistically instead: SIGPROF after each few ms of the
process's CPU, each sample counting for every function on the stack then, and prints the
share of CPU by layer (by the function the sample landed in) and the functions with the
most CPU a round, inclusive of what they call and on their own.

The load average is printed beside the figures: the machine is shared. Usage:

    TEST_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/test \\
        .venv/bin/python bench/profile_rounds.py [--rounds 2000] [--top 25] > /dev/null
"""

from __future__ import annotations

import atexit
import shutil
import sys

# bench/http.py would shadow the standard library's http package: drop this folder.
sys.path[:] = [p for p in sys.path if not p.rstrip("/").endswith("bench")]

import argparse  # noqa: E402
import cProfile  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import pstats  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from collections import defaultdict  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BODY = json.loads((ROOT / "service/examples/round-4p-capsa-susun-id.json").read_text())
BODY.pop("reference", None)
PAYLOAD = json.dumps(BODY).encode()

LAYERS = (
    ("service/api/", "capsa api"),
    ("service/services/", "capsa services"),
    ("service/adapters/", "capsa adapters"),
    ("service/domain/", "capsa domain"),
    ("service/", "capsa other"),
    ("/flask/", "flask"),
    ("/werkzeug/", "werkzeug"),
    ("/sqlalchemy/", "sqlalchemy"),
    ("/psycopg", "psycopg"),
    ("/marshmallow/", "marshmallow"),
    ("orjson", "orjson"),
)


def layer(filename: str) -> str:
    for needle, name in LAYERS:
        if needle in filename:
            return name
    return "other (stdlib, builtins)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--sqlite", action="store_true", help="profile on a scratch SQLite file")
    parser.add_argument("--dump", metavar="FILE", help="also save the profile (pstats) to FILE, e.g. for snakeviz")
    parser.add_argument("--receipts", action=argparse.BooleanOptionalAction, default=True,
                        help="sign every round with a key (SIGNING_KEY_FILE), as served (the default)")
    parser.add_argument("--sort", default="tottime", help="the order of the top functions (pstats: tottime, cumulative)")
    parser.add_argument("--sample", action="store_true",
                        help="sample the stack on SIGPROF instead of cProfile (no per-call cost)")
    args = parser.parse_args()

    from service.adapters.db import create_database, drop_database, normalise_url
    from service.adapters.migrate import upgrade
    from service.adapters.uow import Database
    from service.api.app import create_app
    from service.services import clients

    dropper = None
    if args.sqlite:
        path = ROOT / "var" / f"profile-{uuid.uuid4().hex[:8]}.db"
        path.parent.mkdir(exist_ok=True)
        url = f"sqlite:///{path}"
    else:
        admin = os.environ.get("BENCH_DATABASE_URL") or os.environ.get("TEST_DATABASE_URL")
        if not admin:
            raise SystemExit("set TEST_DATABASE_URL to a PostgreSQL server, or pass --sqlite")
        admin = normalise_url(admin)
        url, name = create_database(admin, "capsa_profile")
        dropper = (admin, name)
    app = None
    try:
        upgrade(url)
        db = Database(url)
        key = clients.create_client(db, "profile")[1]
        db.dispose()
        # Each request counted against its client's limit, as served, under a quota never reached.
        config = {"DATABASE_URL": url, "RATE_LIMIT": "100000000/hour", "METRICS_BIND": "off"}
        if args.receipts:
            import tempfile

            from service.adapters import keyfile
            from service.domain.signing import Keyring
            from service.services.clock import utcnow_ms

            keys_dir = tempfile.mkdtemp(prefix="capsa-profile-keys-")
            atexit.register(shutil.rmtree, keys_dir, True)  # a private signing key: not left behind
            key_file = Path(keys_dir) / "signing-keys.json"
            keyfile.save(key_file, Keyring().rotated(utcnow_ms())[0])
            config["SIGNING_KEY_FILE"] = str(key_file)
        app = create_app(config)
        client = app.test_client()
        headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}

        def post() -> None:
            response = client.post(
                "/v1/rounds", data=PAYLOAD, headers={**headers, "Idempotency-Key": uuid.uuid4().hex}
            )
            if response.status_code != 201:
                raise SystemExit(f"POST /v1/rounds answered {response.status_code}: {response.data[:300]!r}")

        for _ in range(200):  # warm-up: caches, prepared statements, the key cache
            post()
        load = os.getloadavg()[0]
        cpu0, wall0 = time.process_time(), time.perf_counter()
        for _ in range(args.rounds):
            post()
        plain_cpu = (time.process_time() - cpu0) * 1000 / args.rounds
        plain_wall = (time.perf_counter() - wall0) * 1000 / args.rounds

        if args.sample:
            print(f"{args.rounds} rounds on {'SQLite' if args.sqlite else 'PostgreSQL'}, one process; "
                  f"load average {load:.2f}", file=sys.stderr)
            print(f"without the profiler: {plain_cpu:.2f} ms CPU and {plain_wall:.2f} ms wall per round",
                  file=sys.stderr)
            sampled(post, args.rounds, args.top)
            return 0
        profiler = cProfile.Profile(time.process_time)  # CPU, not waiting on PostgreSQL
        profiler.enable()
        for _ in range(args.rounds):
            post()
        profiler.disable()
        stats = pstats.Stats(profiler)
        total = sum(v[2] for v in stats.stats.values())  # type: ignore[attr-defined]
        by_layer: dict[str, float] = defaultdict(float)
        for (filename, _, _), v in stats.stats.items():  # type: ignore[attr-defined]
            by_layer[layer(filename)] += v[2]

        out = sys.stderr  # stdout carries the request log (LOG_LEVEL=INFO, as served)
        engine = "SQLite" if args.sqlite else "PostgreSQL"
        receipts = "a signed receipt" if args.receipts else "no receipt"
        print(f"{args.rounds} rounds on {engine}, one process, Idempotency-Key and {receipts} on each; "
              f"load average {load:.2f}", file=out)
        print(f"without the profiler: {plain_cpu:.2f} ms CPU and {plain_wall:.2f} ms wall per round", file=out)
        print("own CPU time by layer, under the profiler (its overhead inflates call-heavy code):", file=out)
        for name, seconds in sorted(by_layer.items(), key=lambda kv: -kv[1]):
            print(f"  {name:28s} {100 * seconds / total:5.1f}%  {seconds * 1000 / args.rounds:6.3f} ms/round", file=out)
        print(f"top {args.top} functions by {args.sort}:", file=out)
        stats.stream = out  # type: ignore[attr-defined]
        stats.sort_stats(args.sort).print_stats(args.top)
        if os.environ.get("PROFILE_CALLERS"):
            stats.print_callers(os.environ["PROFILE_CALLERS"])
        if args.dump:
            stats.dump_stats(args.dump)
    finally:
        if app is not None:
            # Its receipts stored and its timer stopped before the database goes: a flush
            # racing the drop would end the run with a traceback.
            app.extensions["capsa"].db.dispose()
        if dropper:
            drop_database(*dropper)
        elif args.sqlite:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
    return 0


def _where(code: Any) -> str:
    name = code.co_filename
    for marker in ("/site-packages/", str(ROOT) + "/"):
        name = name.split(marker, 1)[-1]
    return f"{name}:{code.co_firstlineno}({code.co_name})"


def sampled(post: Any, rounds: int, top: int) -> None:
    """`rounds` calls of `post` with the stack sampled on SIGPROF (every 1 ms of CPU asked;
    the kernel's tick may make it coarser): CPU a round by layer and by function."""
    import signal

    inclusive: dict[str, int] = defaultdict(int)
    own: dict[str, int] = defaultdict(int)
    layers: dict[str, int] = defaultdict(int)
    samples = 0

    def take(_signum: int, frame: Any) -> None:
        nonlocal samples
        samples += 1
        if frame is None:
            return
        own[_where(frame.f_code)] += 1
        layers[layer(frame.f_code.co_filename)] += 1
        seen = set()
        while frame is not None:
            where = _where(frame.f_code)
            if where not in seen:  # a recursive function counts once a sample
                seen.add(where)
                inclusive[where] += 1
            frame = frame.f_back

    previous = signal.signal(signal.SIGPROF, take)
    cpu0 = time.process_time()
    signal.setitimer(signal.ITIMER_PROF, 0.001, 0.001)
    try:
        for _ in range(rounds):
            post()
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        signal.signal(signal.SIGPROF, previous)
    cpu = (time.process_time() - cpu0) * 1000 / rounds
    out = sys.stderr
    if not samples:
        print("no samples taken", file=out)
        return
    per = cpu / samples
    print(f"sampled: {samples} samples, {cpu:.2f} ms CPU a round while sampling", file=out)
    print("CPU by layer, by the function each sample landed in:", file=out)
    for name, n in sorted(layers.items(), key=lambda kv: -kv[1]):
        print(f"  {name:28s} {100 * n / samples:5.1f}%  {n * per:6.3f} ms/round", file=out)
    for title, counts in (("inclusive (with what they call)", inclusive), ("on their own", own)):
        print(f"top {top} functions by CPU a round, {title}:", file=out)
        for where, n in sorted(counts.items(), key=lambda kv: -kv[1])[:top]:
            print(f"  {n * per:6.3f} ms  {100 * n / samples:5.1f}%  {where}", file=out)


if __name__ == "__main__":
    raise SystemExit(main())
