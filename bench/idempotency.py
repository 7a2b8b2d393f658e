"""Idempotency-Key records stay bounded: two days of keyed traffic, with and without the purge.

Posts keyed rounds (`POST /v1/rounds` with an Idempotency-Key, no reference) through the
Flask app while the service's clock (services/clock.py) moves on by `--step` minutes after
each batch of `--per-step` requests, for `--hours` simulated hours, and samples the
`idempotency_records` row count every simulated hour. The reference, measured in the same
run, is the same traffic with the purge off (`IDEMPOTENCY_PURGE=off`): it keeps every
record. With the purge, the count must level off near 24 h of traffic (plus one purge
interval) instead of growing with the run. Also prints each phase's CPU time (this
process's own /proc counters, time.process_time) per request and the load average, since
the machine is shared.

SQLite in a temp directory by default; `--database postgresql` uses a scratch database on
the server of $TEST_DATABASE_URL. Usage:

    .venv/bin/python bench/idempotency.py [--hours 48] [--step 15] [--per-step 25]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# bench/http.py would shadow the standard library's http package: this folder leaves the path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "api"))


def rows(app: Any) -> int:
    from sqlalchemy import func, select

    from service.adapters.models import IdempotencyRecord

    with app.extensions["capsa"].db.unit_of_work() as uow:
        return int(uow.session.scalar(select(func.count()).select_from(IdempotencyRecord)) or 0)


def phase(url: str, purge: bool, args: argparse.Namespace) -> dict[str, Any]:
    from conftest import make_app, make_tenant
    from httpkit import two_player_round

    from service.services.clock import FixedClock, use_clock

    clock = FixedClock(datetime(2026, 12, 1, tzinfo=UTC))
    previous = use_clock(clock)
    app = make_app(url, IDEMPOTENCY_PURGE=purge, RATE_LIMIT="off")
    try:
        http = app.test_client()
        tenant = make_tenant(app)
        headers = dict(tenant.headers)
        samples: list[tuple[float, int]] = []
        sent = 0
        cpu = time.process_time()
        steps = int(args.hours * 60 / args.step)
        per_hour = max(1, int(60 / args.step))
        for step in range(steps):
            for _ in range(args.per_step):
                headers["Idempotency-Key"] = f"k-{sent}"
                response = http.post("/v1/rounds", json=two_player_round(reference=None), headers=headers)
                response.close()  # runs the purge the answer scheduled, as a server does
                assert response.status_code == 201, response.get_data(as_text=True)
                sent += 1
            clock.advance(minutes=args.step)
            if (step + 1) % per_hour == 0:
                samples.append(((step + 1) * args.step / 60, rows(app)))
        cpu = time.process_time() - cpu
        return {"samples": samples, "sent": sent, "cpu_ms": 1000 * cpu / sent, "load": os.getloadavg()}
    finally:
        app.extensions["capsa"].db.dispose()
        use_clock(previous)


def database(kind: str, tmp: str) -> tuple[str, Any]:
    from service.adapters.migrate import upgrade

    if kind == "sqlite":
        url = f"sqlite:///{tmp}/bench.db"
        upgrade(url)
        return url, lambda: None
    from conftest import create_pg_database, drop_pg_database, pg_admin_url

    admin = pg_admin_url()
    if admin is None:
        raise SystemExit("--database postgresql needs TEST_DATABASE_URL")
    url, name = create_pg_database(admin)
    upgrade(url)
    return url, lambda: drop_pg_database(admin, name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, default=48)
    parser.add_argument("--step", type=float, default=15, help="simulated minutes per batch")
    parser.add_argument("--per-step", type=int, default=25, help="keyed requests per batch")
    parser.add_argument("--database", choices=["sqlite", "postgresql"], default="sqlite")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for purge in (False, True):
            Path(f"{tmp}/{purge}").mkdir()
            url, drop = database(args.database, f"{tmp}/{purge}")  # a database per phase
            try:
                results[purge] = phase(url, purge, args)
            finally:
                drop()
    per_day = int(24 * 60 / args.step * args.per_step)
    print(f"{args.database}: {args.hours:g} simulated hours, {args.per_step} keyed rounds every "
          f"{args.step:g} min ({per_day} a day); idempotency_records by hour:")
    print("  hour  no purge (reference)  purge")
    for (hour, kept), (_, purged) in zip(results[False]["samples"], results[True]["samples"]):
        if hour % 6 == 0:
            print(f"  {hour:4g}  {kept:20d}  {purged:5d}")
    end_ref, end = results[False]["samples"][-1][1], results[True]["samples"][-1][1]
    peak = max(n for _, n in results[True]["samples"])
    print(f"at the end: {end} rows with the purge vs {end_ref} without (ratio {end / end_ref:.3f}); "
          f"peak {peak} rows = {peak / per_day:.2f} days of traffic (bound: 1 day + one purge interval)")
    for purge in (False, True):
        r = results[purge]
        print(f"  {'purge' if purge else 'no purge'}: {r['cpu_ms']:.2f} ms CPU per request (this process), "
              f"load average {r['load'][0]:.2f} {r['load'][1]:.2f} {r['load'][2]:.2f} (machine shared with "
              "other work)")


if __name__ == "__main__":
    main()
