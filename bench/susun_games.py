"""Server-run Capsa Susun games on PostgreSQL under gunicorn.conf.py: submission latency and
the sweeper's real lag.

Measured in one run, against a reference measured in the same run:

(ref) POST /v1/arrangements/evaluate with the same rows and hand as each submission (the
      evaluation a submission answers with, without storage): p50 / p99;
(a)   PUT /v1/susun/games/{id}/arrangements/{player} of the first three players of 4-player
      games (evaluate + the locked game row written back under its version): p50 / p99 and
      the ratio of the p50s to (ref);
(b)   the fourth player's PUT, which settles the game (the round scored and stored with its
      chain record and ledger lines in the same transaction): p50 / p99;
      for (a) and (b): the gunicorn workers' and PostgreSQL backends' CPU per request
      (utime + stime from /proc over the phase);
(c)   the sweeper's real lag: `capsa sweep` (SWEEP_INTERVAL_S, default 1 s) runs beside the
      server; games with `arrange_seconds` 1 are started over a few seconds, nobody submits,
      and the lag is each game's settled_at minus its deadline (both from the service's
      clock): p50 / p99 / max, and as a ratio of the interval.

Senders are closed loops (one request at a time each). The machine is shared with other
work: the load average is printed beside each figure; compare ratios between runs, not
absolute times. Creates its own database `capsa_bench_<random>` on the server of
$BENCH_DATABASE_URL (or $TEST_DATABASE_URL) and drops it at the end. Usage:

    TEST_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/test \\
        .venv/bin/python bench/susun_games.py [--games 100] [--senders 4] [--lag-games 20]
"""

from __future__ import annotations

import sys

# bench/http.py would shadow the standard library's http package: drop this folder first.
sys.path[:] = [p for p in sys.path if not p.rstrip("/").endswith("bench")]

import argparse  # noqa: E402
import http.client  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import multiprocessing as mp  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from datetime import UTC, datetime  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _bench_http() -> Any:
    """bench/http.py's gunicorn and /proc helpers (its name shadows the standard library's
    http package, so it is loaded by path under another name)."""
    spec = importlib.util.spec_from_file_location("bench_http", ROOT / "bench" / "http.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_http"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


_HTTP = _bench_http()
free_port, workers_cpu, backends_cpu = _HTTP.free_port, _HTTP.workers_cpu, _HTTP.backends_cpu


def start_gunicorn(port: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return _HTTP.start_gunicorn("service.api.wsgi:app", port, env)  # type: ignore[no-any-return]


def call(port: int, method: str, path: str, headers: dict[str, str], body: Any = None) -> tuple[int, Any, float]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    payload = None if body is None else json.dumps(body).encode()
    try:
        start = time.perf_counter()
        conn.request(method, path, body=payload, headers=headers)
        response = conn.getresponse()
        data = response.read()
        took = time.perf_counter() - start
        return response.status, json.loads(data) if data else None, took
    finally:
        conn.close()


def _prepare(port: int, headers: dict[str, str], games: int) -> list[tuple[str, list[tuple[str, dict[str, Any], list[str]]]]]:
    """Games of 4 players, each player's hand and the rows it will send (the suggestion)."""
    from service.domain.cards import parse_cards
    from service.domain.rules import resolve_rules
    from service.domain.susun.suggest.search import suggest

    rules = resolve_rules("capsa-susun-id", "susun")
    out = []
    for _ in range(games):
        status, game, _ = call(port, "POST", "/v1/susun/games", headers, {
            "players": ["a", "b", "c", "d"], "currency": "IDR", "stake": "1000", "arrange_seconds": 3600})
        assert status == 201, game
        seats = []
        for p in "abcd":
            status, hand, _ = call(port, "GET", f"/v1/susun/games/{game['id']}/hands/{p}", headers)
            assert status == 200, hand
            rows = suggest(parse_cards(hand["hand"], "hand"), rules, limit=1).suggestions[0].arrangement.to_json()
            seats.append((p, rows, hand["hand"]))
        out.append((game["id"], seats))
    return out


def _send(port: int, headers: dict[str, str], work: list[tuple[str, str, dict[str, Any], list[str]]],
          what: str, out: Any) -> None:
    times, errors = [], 0
    for game_id, player, rows, hand in work:
        if what == "evaluate":
            status, _, took = call(port, "POST", "/v1/arrangements/evaluate", headers,
                                   {"rules": "capsa-susun-id", "arrangement": rows, "hand": hand})
        else:
            status, _, took = call(port, "PUT", f"/v1/susun/games/{game_id}/arrangements/{player}", headers,
                                   {"arrangement": rows})
        times.append(took)
        errors += status != 200
    out.put((times, errors))


def phase(port: int, senders: list[dict[str, str]], work: list[list[Any]], what: str, master: int,
          database: str) -> tuple[list[float], int, float, float, float, float]:
    """Run `work[i]` on sender i at once: latencies, errors, seconds, load, CPU per request
    of the workers and of the backends (ms)."""
    out: Any = mp.Queue()
    load = os.getloadavg()[0]
    w0, b0 = workers_cpu(master), backends_cpu(database)
    start = time.perf_counter()
    procs = [mp.Process(target=_send, args=(port, senders[i], work[i], what, out)) for i in range(len(work))]
    for p in procs:
        p.start()
    results = [out.get() for _ in procs]
    for p in procs:
        p.join()
    seconds = time.perf_counter() - start
    w1, b1 = workers_cpu(master), backends_cpu(database)
    times = sorted(t for r in results for t in r[0])
    errors = sum(r[1] for r in results)
    n = max(1, len(times))
    return times, errors, seconds, load, (w1 - w0) * 1000 / n, (b1 - b0) * 1000 / n


def pct(values: list[float], q: float) -> float:
    return values[min(len(values) - 1, int(q * len(values)))]


def lag(url: str, port: int, headers: dict[str, str], env: dict[str, str], games: int,
        spread: float) -> tuple[list[float], list[float], float, float, list[tuple[int, float]]]:
    """Start `games` 1-second games over `spread` seconds with `capsa sweep` running, while
    a poller reads their rows every 20 ms. Per game (s): settled_at - deadline (when the
    sweeper's pass took it up) and first seen settled - deadline (its round committed);
    the interval, the load, and the sweeper's passes (games settled, ms)."""
    from sqlalchemy import select

    from service.adapters.models import SusunGame
    from service.adapters.uow import Database

    interval = float(env.get("SWEEP_INTERVAL_S") or 1.0)
    sweeper = subprocess.Popen([str(Path(sys.executable).with_name("capsa")), "sweep"], cwd=ROOT,
                               env={**env, "DATABASE_URL": url}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True)
    db = Database(url)
    ids: list[str] = []
    seen: dict[str, float] = {}  # game -> when the poller first saw it settled
    rows: dict[str, tuple[float, float]] = {}  # game -> (deadline, settled_at)
    stop = threading.Event()

    def poll() -> None:
        while not stop.is_set():
            wanted = [g for g in list(ids) if g not in seen]
            if wanted:
                with db.unit_of_work() as uow:
                    found = list(uow.session.execute(
                        select(SusunGame.id, SusunGame.deadline, SusunGame.settled_at)
                        .where(SusunGame.id.in_(wanted), SusunGame.settled_at.is_not(None))))
                now = datetime.now(UTC).timestamp()
                for gid, deadline, settled in found:
                    assert settled is not None  # the query asked for settled games only
                    seen[gid], rows[gid] = now, (deadline.timestamp(), settled.timestamp())
            stop.wait(0.02)

    poller = threading.Thread(target=poll)
    try:
        # Warm up: one game that the sweeper must settle before the measured ones start,
        # so the lag does not include the sweeper's own start (imports, first connection).
        status, warm, _ = call(port, "POST", "/v1/susun/games", headers, {
            "players": ["a", "b"], "currency": "IDR", "stake": "1000", "arrange_seconds": 1})
        assert status == 201, warm
        until = time.monotonic() + 60
        while time.monotonic() < until:  # read the row itself: a GET would settle the game
            with db.unit_of_work() as uow:
                if uow.session.scalar(select(SusunGame.status).where(SusunGame.id == warm["id"])) == "settled":
                    break
            time.sleep(0.1)
        else:
            raise SystemExit("the sweeper did not settle the warm-up game within 60 s")
        poller.start()
        load = os.getloadavg()[0]
        for _ in range(games):
            status, game, _ = call(port, "POST", "/v1/susun/games", headers, {
                "players": ["a", "b", "c", "d"], "currency": "IDR", "stake": "1000", "arrange_seconds": 1})
            assert status == 201, game
            ids.append(game["id"])
            time.sleep(spread / games)
        until = time.monotonic() + 30
        while time.monotonic() < until and len(seen) < games:
            time.sleep(0.1)
    finally:
        stop.set()
        if poller.is_alive():
            poller.join()
        db.dispose()
        sweeper.terminate()
        _out, err = sweeper.communicate(timeout=10)
    if len(seen) != games:
        raise SystemExit(f"only {len(seen)} of {games} games settled within 30 s")
    # "settled 3 games, played 0 overdue turns in 412 ms": how long each pass that settled
    # something took (the sweeper's own pattern for its summary line)
    from service.commands.sweep import SUMMARY

    passes = [(int(m[1]), float(m[3])) for m in SUMMARY.finditer(err) if int(m[1])]
    noticed = sorted(rows[g][1] - rows[g][0] for g in seen)
    committed = sorted(seen[g] - rows[g][0] for g in seen)
    return noticed, committed, interval, load, passes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="4-player games for the submission phases")
    parser.add_argument("--senders", type=int, default=4)
    parser.add_argument("--lag-games", type=int, default=20)
    parser.add_argument("--lag-spread", type=float, default=5.0, help="seconds over which those games start")
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
    proc = None
    try:
        upgrade(url)
        db = Database(url)
        keys = [clients.create_client(db, f"bench-{i}")[1] for i in range(args.senders)]
        db.dispose()
        senders = [{"Authorization": f"Bearer {k}", "Content-Type": "application/json"} for k in keys]
        env = {**os.environ, "DATABASE_URL": url, "LOG_LEVEL": "WARNING", "RATE_LIMIT": "off",
               "METRICS_BIND": "off"}
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        port = free_port()
        proc = start_gunicorn(port, env)
        per_sender = max(1, args.games // args.senders)
        games = [_prepare(port, h, per_sender) for h in senders]
        first3 = [[(g, p, rows, hand) for g, seats in mine for p, rows, hand in seats[:3]] for mine in games]
        last = [[(g, p, rows, hand) for g, seats in mine for p, rows, hand in seats[3:]] for mine in games]

        ref = phase(port, senders, first3, "evaluate", proc.pid, name)
        subs = phase(port, senders, first3, "submit", proc.pid, name)
        settles = phase(port, senders, last, "submit", proc.pid, name)
        noticed, lags, interval, lag_load, passes = lag(url, port, senders[0], env, args.lag_games, args.lag_spread)

        print(f"machine: {os.cpu_count()} cores, shared with other work; gunicorn.conf.py; PostgreSQL database "
              f"{name} (dropped after); {args.senders} closed-loop senders, one API client each")
        print(f"{'phase':<44} {'n':>5} {'p50 ms':>8} {'p99 ms':>8} {'x ref p50':>9} {'errors':>6} "
              f"{'worker CPU ms':>13} {'PG CPU ms':>9} {'load':>5}")
        ref_p50 = statistics.median(ref[0])
        for label, (times, errors, _s, load, wcpu, bcpu) in (
            ("(ref) POST /v1/arrangements/evaluate", ref),
            ("(a) PUT arrangements, players 1-3", subs),
            ("(b) PUT arrangements, player 4 (settles)", settles),
        ):
            p50 = statistics.median(times)
            print(f"{label:<44} {len(times):>5} {p50 * 1000:>8.2f} {pct(times, 0.99) * 1000:>8.2f} "
                  f"{p50 / ref_p50:>9.2f} {errors:>6} {wcpu:>13.2f} {bcpu:>9.2f} {load:>5.2f}")
        print(f"(c) sweeper lag, {len(lags)} games started over {args.lag_spread:.0f} s, SWEEP_INTERVAL_S "
              f"{interval:g}, load {lag_load:.2f}:")
        for label, values in (("pass noticed it (settled_at - deadline)", noticed),
                              ("round committed (seen by a 20 ms poll - deadline)", lags)):
            print(f"    {label:<52} p50 {statistics.median(values) * 1000:>6.0f} ms  p99 "
                  f"{pct(values, 0.99) * 1000:>6.0f} ms  max {values[-1] * 1000:>6.0f} ms  "
                  f"(max / interval {values[-1] / interval:.2f})")
        print(f"    sweeper passes that settled games (games, ms; the warm-up first): {passes}")
        failed = subs[1] + settles[1] + ref[1]
        return 1 if failed else 0
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)
        drop_database(admin, name)


if __name__ == "__main__":
    sys.exit(main())
