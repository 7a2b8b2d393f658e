"""WAL per stored round, by relation, with the full-page-image share: pg_walinspect over our
database's records only.

bench/http.py reads WAL as the server's LSN advance, which on a shared server counts every
other database's writes too. This script stores --rounds 4-player rounds (Idempotency-Key
on each, receipts on, spread over --clients API clients) through the WSGI app in one
process on a scratch PostgreSQL database, then reads the WAL of that window with
pg_walinspect (PostgreSQL 15+) and keeps the records that touch this database's relations,
and the commit records of their transactions. It prints per round: bytes, of which
full-page images (`wal_fpi`), and the same by relation (table or index), so it says which
indexes each round writes and what each costs.

`--preload N` first grows one client's chain to N rounds in bulk, as bench/growth.py does,
and stores the measured rounds on that client: the figure "at N rounds in the chain".

`--references` gives each round a reference of its own, which it takes in
`client_references` (without it the rounds have none, as in bench/http.py).

`--checkpoint` runs CHECKPOINT just before the window: every page's first change after it is
a full-page image, the worst case a round meets after each checkpoint. Without it the share
depends on where the server's own checkpoints fall. The load average is printed beside the
figures: the machine is shared. Usage:

    TEST_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/test \\
        .venv/bin/python bench/wal_per_round.py [--rounds 1000] [--clients 8] [--checkpoint] [--references]
        [--preload 1000000] > /dev/null
"""

from __future__ import annotations

import atexit
import shutil
import sys

# bench/http.py would shadow the standard library's http package: drop this folder.
sys.path[:] = [p for p in sys.path if not p.rstrip("/").endswith("bench")]

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from datetime import timedelta  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BODY = json.loads((ROOT / "service/examples/round-4p-capsa-susun-id.json").read_text())
BODY.pop("reference", None)
PAYLOAD = json.dumps(BODY).encode()

OURS = """
WITH w AS (SELECT * FROM pg_get_wal_records_info(%(start)s, %(stop)s)),
mine AS (SELECT * FROM w WHERE block_ref LIKE %(needle)s),
xids AS (SELECT DISTINCT xid FROM mine WHERE xid <> '0')
SELECT coalesce(substring(block_ref FROM %(pattern)s), resource_manager) AS what,
       count(*), sum(record_length), sum(fpi_length)
  FROM w
 WHERE block_ref LIKE %(needle)s
    OR (resource_manager = 'Transaction' AND xid IN (SELECT xid FROM xids))
 GROUP BY 1
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--checkpoint", action="store_true", help="CHECKPOINT just before the window")
    parser.add_argument("--references", action="store_true",
                        help="each round with a reference of its own (taken in client_references)")
    parser.add_argument("--preload", type=int, default=0, metavar="N",
                        help="first load one client's chain to N rounds in bulk (bench/chainload.py, then "
                        "VACUUM ANALYZE), and store the measured rounds on that client only")
    args = parser.parse_args()

    import psycopg

    from service.adapters import keyfile
    from service.adapters.db import create_database, drop_database, normalise_url
    from service.adapters.migrate import upgrade
    from service.adapters.uow import Database
    from service.api.app import create_app
    from service.domain.signing import Keyring
    from service.services import clients
    from service.services.clock import utcnow_ms

    admin = os.environ.get("BENCH_DATABASE_URL") or os.environ.get("TEST_DATABASE_URL")
    if not admin:
        raise SystemExit("set TEST_DATABASE_URL to a PostgreSQL server (15 or later: pg_walinspect)")
    admin = normalise_url(admin)
    url, name = create_database(admin, "capsa_wal")
    plain = url.replace("postgresql+psycopg://", "postgresql://")
    try:
        upgrade(url)
        with psycopg.connect(plain, autocommit=True) as c:
            c.execute("CREATE EXTENSION IF NOT EXISTS pg_walinspect")
        db = Database(url)
        created = [clients.create_client(db, f"wal-{i}") for i in range(1 if args.preload else args.clients)]
        keys = [key for _, key in created]
        db.dispose()
        keys_dir = tempfile.mkdtemp(prefix="capsa-wal-keys-")
        atexit.register(shutil.rmtree, keys_dir, True)  # a private signing key: not left behind
        key_file = Path(keys_dir) / "signing-keys.json"
        # Valid from before the first preloaded round (15 s apart, ending an hour ago).
        keyring = Keyring().rotated(utcnow_ms() - timedelta(seconds=15 * args.preload, hours=2))[0]
        keyfile.save(key_file, keyring)
        if args.preload:
            preload(plain, created[0][0], args.preload, keyring)
        app = create_app({"DATABASE_URL": url, "RATE_LIMIT": "off", "METRICS_BIND": "off",
                          "SIGNING_KEY_FILE": str(key_file)})
        http = app.test_client()
        headers = [{"Authorization": f"Bearer {k}", "Content-Type": "application/json"} for k in keys]

        def post(i: int) -> None:
            payload = PAYLOAD if not args.references else json.dumps({**BODY, "reference": uuid.uuid4().hex}).encode()
            response = http.post("/v1/rounds", data=payload,
                                 headers={**headers[i % len(headers)], "Idempotency-Key": uuid.uuid4().hex})
            if response.status_code != 201:
                raise SystemExit(f"POST /v1/rounds answered {response.status_code}: {response.data[:300]!r}")

        for i in range(200):  # warm-up: every relation has its first pages
            post(i)
        app.extensions["capsa"].db.receipts.drain()
        with psycopg.connect(plain, autocommit=True) as c:
            if args.checkpoint:
                c.execute("CHECKPOINT")
            start = c.execute("SELECT pg_current_wal_insert_lsn()").fetchone()[0]  # type: ignore[index]
        load = os.getloadavg()[0]
        for i in range(args.rounds):
            post(i)
        app.extensions["capsa"].db.receipts.drain()
        app.extensions["capsa"].db.dispose()
        with psycopg.connect(plain, autocommit=True) as c:
            stop = c.execute("SELECT pg_current_wal_insert_lsn()").fetchone()[0]  # type: ignore[index]
            # pg_walinspect reads only flushed WAL: a commit that did not wait for the flush
            # (the receipts' timer) may leave the window's end in memory for a moment.
            for _ in range(100):
                if c.execute("SELECT pg_current_wal_flush_lsn() >= %s::pg_lsn", (stop,)).fetchone()[0]:  # type: ignore[index]
                    break
                time.sleep(0.05)
            oid = c.execute("SELECT oid FROM pg_database WHERE datname = current_database()").fetchone()[0]  # type: ignore[index]
            names: dict[str, str] = dict(c.execute(
                "SELECT pg_relation_filenode(oid)::text, relname FROM pg_class WHERE pg_relation_filenode(oid) IS NOT NULL"
            ).fetchall())
            rows = c.execute(OURS, {"start": start, "stop": stop, "needle": f"%/{oid}/%",
                                    "pattern": f"rel \\d+/{oid}/(\\d+)"}).fetchall()
        total = sum(r[2] for r in rows)
        fpi = sum(r[3] for r in rows)
        n = args.rounds
        grown = f", on a chain grown to {args.preload:,} rounds" if args.preload else ""
        print(f"{n} rounds on PostgreSQL ({len(keys)} API clients{grown}, Idempotency-Key, receipts on), "
              f"{'after a CHECKPOINT' if args.checkpoint else 'no CHECKPOINT forced'}; load average {load:.2f}",
              file=sys.stderr)
        print(f"WAL of this database: {total / n / 1024:.2f} KiB per round, of which full-page images "
              f"{fpi / n / 1024:.2f} KiB ({100 * fpi / max(total, 1):.0f}% wal_fpi)", file=sys.stderr)
        print(f"  {'relation':<40} {'records/round':>13} {'bytes/round':>11} {'fpi bytes/round':>15}", file=sys.stderr)
        for what, count, size, images in sorted(rows, key=lambda r: -r[2]):
            label = names.get(what, what)
            print(f"  {label:<40} {count / n:13.2f} {size / n:11.0f} {images / n:15.0f}", file=sys.stderr)
        return 0
    finally:
        drop_database(admin, name)


def preload(dsn: str, client_id: str, rounds: int, keyring: object) -> None:
    """Grow the client's chain to `rounds` records as bench/growth.py does, dated before now."""
    import importlib.util
    from datetime import UTC, datetime

    spec = importlib.util.spec_from_file_location("bench_chainload", ROOT / "bench" / "chainload.py")
    assert spec is not None and spec.loader is not None
    chainload = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = chainload
    spec.loader.exec_module(chainload)
    spacing = timedelta(milliseconds=15_000)
    start = (datetime.now(UTC) - spacing * rounds - timedelta(hours=1)).replace(microsecond=0)
    loaded = chainload.load(dsn, client_id, rounds, start=start, spacing=spacing, keyring=keyring,
                            deals=chainload.templates(500))
    seconds = chainload.analyze(dsn)
    print(f"loaded {loaded.rounds:,} rounds ({loaded.lines:,} lines) in {loaded.seconds:.0f} s, "
          f"VACUUM ANALYZE {seconds:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
