"""WAL per stored round before and after migration 0012 (client_id in every key), one run.

Two databases on one PostgreSQL server, one migrated to 0011 and one to head; the same
service stores rounds (POST /v1/rounds, 4 players, an Idempotency-Key each, in process)
into each in turn, in chunks, alternating, so checkpoints fall on both alike. The WAL of
each chunk is read with pg_walinspect and only the records of that database's relations
count, so other databases' writes on a shared server do not. Prints KiB per round for each
schema, the share of full-page images, and the ratio after / before. Usage:

    TEST_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/test \\
        .venv/bin/python bench/client_keys_wal.py [--rounds 600] [--chunk 100]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # not bench/: its http.py would stand in for the standard library's

import json  # noqa: E402
import os  # noqa: E402
import uuid  # noqa: E402
from typing import Any  # noqa: E402

import psycopg  # noqa: E402

from service.adapters.db import create_database, drop_database, normalise_url  # noqa: E402
from service.adapters.migrate import upgrade  # noqa: E402
from service.api.app import create_app  # noqa: E402
from service.services import clients  # noqa: E402

BODY = json.loads((ROOT / "service/examples/round-4p-capsa-susun-id.json").read_text())
BODY.pop("reference", None)


def _driver(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://")


class Side:
    def __init__(self, admin: str, revision: str) -> None:
        self.url, self.name = create_database(admin, "capsa_bench")
        upgrade(self.url, revision)
        self.revision = revision
        self.app = create_app({"DATABASE_URL": self.url, "LOG_LEVEL": "WARNING", "RATE_LIMIT": "off"})
        _, key = clients.create_client(self.app.extensions["capsa"].db, f"wal-{revision}")
        self.headers = {"Authorization": f"Bearer {key}"}
        self.http = self.app.test_client()
        with psycopg.connect(_driver(self.url)) as conn:
            self.oid = conn.execute("SELECT oid FROM pg_database WHERE datname = current_database()").fetchone()[0]  # type: ignore[index]
        self.bytes = self.fpi = self.rounds = 0

    def store(self, n: int) -> None:
        for _ in range(n):
            headers = {**self.headers, "Idempotency-Key": uuid.uuid4().hex}
            answer = self.http.post("/v1/rounds", json=BODY, headers=headers)
            assert answer.status_code == 201, answer.get_json()
        self.rounds += n

    def close(self, admin: str) -> None:
        self.app.extensions["capsa"].db.dispose()
        drop_database(admin, self.name)


def _lsn(conn: Any) -> str:
    return str(conn.execute("SELECT pg_current_wal_lsn()").fetchone()[0])


def _wal(conn: Any, start: str, end: str, oid: int) -> tuple[int, int]:
    """Bytes and full-page-image bytes of the WAL records that touch database `oid`."""
    row = conn.execute(
        "SELECT coalesce(sum(record_length), 0), coalesce(sum(fpi_length), 0) "
        "FROM pg_get_wal_records_info(%s, %s) WHERE block_ref LIKE %s",
        (start, end, f"%/{oid}/%"),
    ).fetchone()
    return int(row[0]), int(row[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=600)
    parser.add_argument("--chunk", type=int, default=100)
    args = parser.parse_args()
    admin = normalise_url(os.environ.get("BENCH_DATABASE_URL") or os.environ["TEST_DATABASE_URL"])
    sides = [Side(admin, "0011"), Side(admin, "head")]
    try:
        with psycopg.connect(_driver(sides[0].url), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS pg_walinspect")
            for side in sides:
                side.store(20)  # warm: the first writes of a fresh database are not the steady state
                side.rounds = 0
            load = []
            for _ in range(max(1, args.rounds // args.chunk)):
                for side in sides:
                    start = _lsn(conn)
                    side.store(args.chunk)
                    end = _lsn(conn)
                    written, fpi = _wal(conn, start, end, side.oid)
                    side.bytes += written
                    side.fpi += fpi
                load.append(Path("/proc/loadavg").read_text().split()[0])
        for side in sides:
            print(
                f"schema {side.revision:>4}: {side.rounds} rounds, WAL {side.bytes / side.rounds / 1024:.2f} KiB/round "
                f"(full-page images {side.fpi / max(side.bytes, 1):.1%})"
            )
        before, after = (s.bytes / s.rounds for s in sides)
        print(f"after / before: x{after / before:.3f} ({(after - before):+.0f} bytes/round); load {' '.join(load)}")
    finally:
        for side in sides:
            side.close(admin)


if __name__ == "__main__":
    main()
