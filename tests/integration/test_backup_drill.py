"""The backup drill on PostgreSQL: pg_dump, pg_restore, `capsa audit verify-restore`, rows put back.

What docs/operations.md's "Backup and restore" tells an operator, run end to end on the test
server (about a minute): two clients store rounds through the app, each client's signed
head is kept, the live database is dumped in the custom format and restored into a new
database, and `capsa audit verify-restore` (its own process, DATABASE_URL of the restored
copy) passes with the heads. Then a mistake in the live database (one client's ledger
lines deleted) is repaired by copying the rows back from the restored copy with psql's COPY,
and `capsa audit verify` passes again. Last, the restored copy loses its newest records and
the command names the client and the first missing sequence: the test that fails if a
restore drops a record.

PostgreSQL only: skipped without TEST_DATABASE_URL, or without pg_dump, pg_restore and psql
on PATH or in /usr/lib/postgresql/15/bin.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import create_pg_database, drop_pg_database, make_app, make_tenant, pg_admin_url
from sqlalchemy import create_engine, delete, func, select

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "api"))

from httpkit import two_player_round  # noqa: E402

from service.adapters import keyfile  # noqa: E402
from service.adapters.migrate import upgrade  # noqa: E402
from service.adapters.models import ChainRecord, ChainSignature, LedgerLine, Round  # noqa: E402
from service.domain.signing import Keyring  # noqa: E402
from service.services.clock import utcnow_ms  # noqa: E402

pytestmark = pytest.mark.postgres

ROOT = Path(__file__).resolve().parents[2]
PG_BIN = Path("/usr/lib/postgresql/15/bin")


def tool(name: str) -> str | None:
    return shutil.which(name) or shutil.which(name, path=str(PG_BIN))


def libpq(url: str) -> str:
    """The URL without SQLAlchemy's driver name, as pg_dump and psql read it."""
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


@pytest.fixture(scope="module")
def drill(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    admin = pg_admin_url()
    if admin is None:
        pytest.skip("TEST_DATABASE_URL is not set")
    tools = {name: tool(name) for name in ("pg_dump", "pg_restore", "psql")}
    if None in tools.values():
        pytest.skip(f"needs pg_dump, pg_restore and psql: not found {[n for n, t in tools.items() if t is None]}")
    folder = tmp_path_factory.mktemp("drill")
    made: list[str] = []
    try:
        live, name = create_pg_database(admin)
        made.append(name)
        upgrade(live)
        ring, _ = Keyring().rotated(utcnow_ms())
        keyfile.save(folder / "keys.json", ring)
        app = make_app(live, SIGNING_KEY_FILE=str(folder / "keys.json"))
        http = app.test_client()
        alpha, beta = make_tenant(app), make_tenant(app)
        for tenant, rounds in ((alpha, 5), (beta, 3)):
            for _ in range(rounds):
                assert http.post("/v1/rounds", json=two_player_round(), headers=tenant.headers).status_code == 201
            head = http.get("/v1/audit/head", headers=tenant.read_headers)
            assert head.status_code == 200 and head.get_json()["signature"]
            (folder / f"{tenant.name}.head.json").write_bytes(head.data)
        (folder / "keys.public.json").write_bytes(http.get("/v1/audit/keys", headers=alpha.read_headers).data)
        app.extensions["capsa"].db.dispose()

        dump = folder / "capsa.dump"
        subprocess.run([tools["pg_dump"], "--format=custom", f"--file={dump}", libpq(live)],
                       check=True, capture_output=True, timeout=120)
        restored, name = create_pg_database(admin)
        made.append(name)
        subprocess.run([tools["pg_restore"], "--no-owner", "--exit-on-error", f"--dbname={libpq(restored)}", str(dump)],
                       check=True, capture_output=True, timeout=120)
        yield {"live": live, "restored": restored, "folder": folder, "alpha": alpha, "beta": beta, **tools}
    finally:
        for name in made:
            drop_pg_database(admin, name)


def capsa(*args: str, url: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": url}
    return subprocess.run([sys.executable, "-m", "service.cli", *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=120)


def verify_restore(d: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    heads = [a for t in ("alpha", "beta") for a in ("--head", str(d["folder"] / f"{d[t].name}.head.json"))]
    return capsa("audit", "verify-restore", "--public-keys", str(d["folder"] / "keys.public.json"), *heads,
                 url=d["restored"])


def rows(url: str, table: Any, client_id: str) -> int:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.scalar(select(func.count()).select_from(table).where(table.client_id == client_id)) or 0)
    finally:
        engine.dispose()


def test_1_the_restored_copy_verifies_and_reaches_both_kept_heads(drill):
    done = verify_restore(drill)
    assert (done.returncode, done.stderr) == (0, ""), done.stdout
    assert done.stdout.splitlines()[-1] == (
        "ok: the restore holds 2 clients whose chains verify (8 records) and reaches 2 of 2 signed heads")
    assert rows(drill["restored"], LedgerLine, drill["alpha"].id) == rows(drill["live"], LedgerLine, drill["alpha"].id)


def test_2_ledger_lines_deleted_by_mistake_are_copied_back_from_the_restored_copy(drill):
    alpha, live = drill["alpha"], drill["live"]
    lines = rows(live, LedgerLine, alpha.id)
    assert lines >= 10
    engine = create_engine(live)
    with engine.begin() as conn:  # the mistake
        conn.execute(delete(LedgerLine).where(LedgerLine.client_id == alpha.id))
    engine.dispose()
    broken = capsa("audit", "verify", "--client", alpha.name, url=live)
    assert broken.returncode == 1 and broken.stdout.startswith("BAD: first bad sequence 1: ")
    # docs/operations.md, "Putting rows back": psql's COPY from the restored copy into the live one.
    out = subprocess.Popen(
        [drill["psql"], libpq(drill["restored"]), "-v", "ON_ERROR_STOP=1", "-c",
         f"\\copy (SELECT * FROM ledger_lines WHERE client_id = '{alpha.id}' ORDER BY sequence, line_no) TO STDOUT"],
        stdout=subprocess.PIPE)
    into = subprocess.run([drill["psql"], libpq(live), "-v", "ON_ERROR_STOP=1", "-c", "\\copy ledger_lines FROM STDIN"],
                          stdin=out.stdout, capture_output=True, text=True, timeout=120)
    assert out.stdout is not None
    out.stdout.close()
    assert out.wait(timeout=120) == 0 and into.returncode == 0, into.stderr
    assert into.stdout.strip() == f"COPY {lines}"
    fixed = capsa("audit", "verify", "--client", alpha.name, url=live)
    assert (fixed.returncode, fixed.stdout) == (0, f"ok: 5 records of {alpha.name} verified\n")


def test_3_a_restore_that_lost_its_newest_records_is_caught_at_the_first_missing_sequence(drill):
    alpha, restored = drill["alpha"], drill["restored"]
    engine = create_engine(restored)
    with engine.begin() as conn:  # the copy loses alpha's records 4 and 5 and their rows
        for table in (LedgerLine, ChainSignature, Round, ChainRecord):
            conn.execute(delete(table).where(table.client_id == alpha.id, table.sequence > 3))
    engine.dispose()
    done = verify_restore(drill)
    assert done.returncode == 1, done.stdout + done.stderr
    head = drill["folder"] / f"{alpha.name}.head.json"
    assert f"BAD: client {alpha.name} ({alpha.id}): first bad sequence 4: sequence 4 is missing" in done.stdout
    assert (f"BAD: client {alpha.name} ({alpha.id}): first missing sequence 4: the restored chain does not reach "
            f"signed head #1 ({head}) at sequence 5") in done.stdout
    assert f"ok: 3 records of {drill['beta'].name} verified" in done.stdout
