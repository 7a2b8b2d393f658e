"""Reports off a real streaming standby (READ_DATABASE_URL) whose replay is paused.

A private primary (initdb, on a free port, never the machine's shared server) and a
standby made from it with `pg_basebackup -R`, both owned by the `postgres` user when the
suite runs as root. With the standby's replay paused (`pg_wal_replay_pause()`) the
reports say the old as_of; `min_sequence` beyond it, or a lag past READ_MAX_LAG_S, goes to
the primary; /readyz and the metrics report the lag; rounds themselves read the primary.
Skipped where the PostgreSQL server binaries are absent.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import Tenant, make_app, make_tenant

from service.services.rounds import store as rounds

BINARIES = ("initdb", "pg_ctl", "pg_basebackup")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Node:
    """One PostgreSQL server in a temp dir of its own."""

    def __init__(self, root: Path, name: str) -> None:
        self.dir = root / name
        self.data = self.dir / "data"
        self.port = _free_port()
        self.as_root = os.geteuid() == 0

    def run(self, *argv: str) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if self.as_root else []
        subprocess.run(prefix + list(argv), check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c max_connections=60 -c wal_level=replica -c max_wal_senders=4 -c hot_standby=on"
        )
        self.run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.dir / "log"), "-w", "start")

    def stop(self) -> None:
        try:
            self.run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        except subprocess.CalledProcessError:
            pass

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"


class Pair:
    def __init__(self) -> None:
        for tool in BINARIES:
            if shutil.which(tool) is None:
                pytest.skip(f"{tool} is not on PATH")
        self.root = Path(tempfile.mkdtemp(prefix="capsa-replica-"))
        self.primary = Node(self.root, "primary")
        self.standby = Node(self.root, "standby")
        for path in (self.root, self.primary.dir, self.standby.dir):
            path.mkdir(exist_ok=True)
            if self.primary.as_root:
                shutil.chown(path, "postgres")

    def build(self) -> None:
        p = self.primary
        p.run("initdb", "-D", str(p.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        with open(p.data / "pg_hba.conf", "a") as hba:
            hba.write("host replication postgres 127.0.0.1/32 trust\n")
        p.start()
        s = self.standby
        p.run(
            "pg_basebackup", "-h", "127.0.0.1", "-p", str(p.port), "-U", "postgres", "-D", str(s.data),
            "-R", "-X", "stream", "--no-sync",
        )
        s.start()

    def destroy(self) -> None:
        self.standby.stop()
        self.primary.stop()
        shutil.rmtree(self.root, ignore_errors=True)


def sql(url: str, statement: str) -> Any:
    import psycopg

    with psycopg.connect(url.replace("+psycopg", ""), autocommit=True) as conn:
        cursor = conn.execute(statement)
        return cursor.fetchone() if cursor.description else None


@pytest.fixture(scope="module")
def pair() -> Iterator[Pair]:
    from service.adapters.migrate import upgrade

    found = Pair()
    try:
        found.build()
        sql(found.primary.url(), "CREATE DATABASE capsa")
        upgrade(found.primary.url("capsa"))
        yield found
    finally:
        found.destroy()


def until(check: Any, seconds: float = 30.0) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


BODY = json.loads((Path(__file__).parents[2] / "service/examples/round-4p-capsa-susun-id.json").read_text())


def store(app: Any, tenant: Tenant, n: int) -> str:
    created = rounds.create(app.extensions["capsa"].db, tenant.id, {**BODY, "reference": f"r{n}"}, None)
    return str(json.loads(created.response.body)["id"])


def summary(http: Any, tenant: Tenant, **query: Any) -> dict[str, Any]:
    args = "&".join(f"{k}={v}" for k, v in {"currency": "IDR", **query}.items())
    resp = http.get(f"/v1/ledger/summary?{args}", headers=tenant.read_headers)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    body: dict[str, Any] = resp.get_json()
    return body


@pytest.fixture(scope="module")
def apps(pair: Pair) -> Iterator[tuple[Any, Any]]:
    """(patient, strict): READ_MAX_LAG_S 600 and 1 over the same primary and standby."""
    primary, standby = pair.primary.url("capsa"), pair.standby.url("capsa")
    patient = make_app(primary, READ_DATABASE_URL=standby, READ_MAX_LAG_S=600.0, IDEMPOTENCY_PURGE=False)
    strict = make_app(primary, READ_DATABASE_URL=standby, READ_MAX_LAG_S=1.0, IDEMPOTENCY_PURGE=False)
    try:
        yield patient, strict
    finally:
        patient.extensions["capsa"].db.dispose()
        strict.extensions["capsa"].db.dispose()


def test_a_paused_standby_serves_its_old_as_of_and_anything_newer_goes_to_the_primary(
    pair: Pair, apps: tuple[Any, Any]
) -> None:
    patient, strict = apps
    tenant = make_tenant(patient)
    http, strict_http = patient.test_client(), strict.test_client()
    first = store(patient, tenant, 1)
    caught_up = until(lambda: summary(http, tenant)["as_of"]["sequence"] == 1)
    assert caught_up
    assert summary(http, tenant)["as_of"]["source"] == "replica"
    assert http.get("/readyz").get_json()["replica"] == {"status": "ok", "lag_seconds": 0.0}

    standby = pair.standby.url("capsa")
    sql(standby, "SELECT pg_wal_replay_pause()")
    try:
        second = store(patient, tenant, 2)
        # The standby has received record 2 but not replayed it: its reports stop at 1.
        old = summary(http, tenant)
        assert old["as_of"]["sequence"] == 1 and old["as_of"]["source"] == "replica"
        assert [r["key"] for r in old["rows"]] == ["a", "b", "c", "d"]
        csv_answer = http.get("/v1/ledger/entries?currency=IDR", headers={**tenant.read_headers, "Accept": "text/csv"})
        assert csv_answer.headers["Capsa-As-Of"].startswith("sequence=1; at=")
        assert csv_answer.headers["Capsa-As-Of"].endswith("; source=replica")
        lines = list(csv.DictReader(io.StringIO(csv_answer.get_data(as_text=True))))
        assert {(line["round"], line["sequence"]) for line in lines} == {(first, "1")}

        # A reader that just stored record 2: waits up to 1 s, then the primary answers.
        started = time.monotonic()
        fresh = summary(http, tenant, min_sequence=2)
        assert fresh["as_of"]["sequence"] == 2 and fresh["as_of"]["source"] == "primary"
        assert 0.9 <= time.monotonic() - started < 10
        verified = http.get("/v1/audit/verify?min_sequence=2", headers=tenant.read_headers).get_json()
        assert verified["as_of"]["sequence"] == 2 and verified["as_of"]["source"] == "primary"
        assert verified["ok"] is True and verified["records_checked"] == 2

        # The round itself always reads the primary.
        assert http.get(f"/v1/rounds/{second}", headers=tenant.read_headers).status_code == 200

        # Past READ_MAX_LAG_S (1 s) the strict app sends reports to the primary and says why.
        time.sleep(1.2)
        ready = strict_http.get("/readyz")
        assert ready.status_code == 200
        replica = ready.get_json()["replica"]
        assert replica["status"] == "lagging" and replica["lag_seconds"] > 1.0
        lagging = summary(strict_http, tenant)
        assert lagging["as_of"]["sequence"] == 2 and lagging["as_of"]["source"] == "primary"
        exposition = strict.extensions["capsa"].metrics.exposition().get_data(as_text=True)
        gauge = next(line for line in exposition.splitlines() if line.startswith("capsa_replica_lag_seconds "))
        assert float(gauge.split()[1]) > 1.0
        # The patient app still serves the standby's old snapshot, and says so.
        assert summary(http, tenant)["as_of"] == old["as_of"]
    finally:
        sql(standby, "SELECT pg_wal_replay_resume()")
    assert until(lambda: summary(http, tenant)["as_of"]["sequence"] == 2)
    assert summary(http, tenant)["as_of"]["source"] == "replica"
    assert until(lambda: strict_http.get("/readyz").get_json()["replica"]["status"] == "ok")


def one_round_on_both(apps: tuple[Any, Any]) -> tuple[Any, Tenant, Any]:
    """(the patient app, a new tenant, the strict app's client) once the tenant's first
    round is on the standby and the strict app's report shows it."""
    patient, strict = apps
    tenant = make_tenant(patient)
    strict_http = strict.test_client()
    store(patient, tenant, 1)
    assert until(lambda: summary(strict_http, tenant)["as_of"]["sequence"] == 1)
    return patient, tenant, strict_http


def test_a_standby_cut_off_from_the_primary_is_not_taken_for_a_current_one(pair: Pair, apps: tuple[Any, Any]) -> None:
    """With no WAL receiver (the replication link broken, its login refused), a standby has
    replayed all it ever received, as a current one has: it read as lag 0 for ever, and its
    reports stopped at the cut. Its lag is now the time since its last replayed transaction."""
    patient, tenant, strict_http = one_round_on_both(apps)
    standby = pair.standby.url("capsa")
    (conninfo,) = sql(standby, "SHOW primary_conninfo")
    sql(standby, "ALTER SYSTEM SET primary_conninfo = ''")
    sql(standby, "SELECT pg_reload_conf()")
    try:
        assert until(lambda: sql(standby, "SELECT count(*) FROM pg_stat_wal_receiver")[0] == 0)
        store(patient, tenant, 2)
        time.sleep(1.2)  # past the strict app's READ_MAX_LAG_S
        replica = strict_http.get("/readyz").get_json()["replica"]
        assert replica["status"] == "lagging" and replica["lag_seconds"] > 1.0, replica
        fresh = summary(strict_http, tenant)
        assert fresh["as_of"]["sequence"] == 2 and fresh["as_of"]["source"] == "primary"
    finally:
        escaped = conninfo.replace("'", "''")
        sql(standby, f"ALTER SYSTEM SET primary_conninfo = '{escaped}'")
        sql(standby, "SELECT pg_reload_conf()")
    assert until(lambda: strict_http.get("/readyz").get_json()["replica"]["status"] == "ok")
    assert until(lambda: summary(strict_http, tenant)["as_of"]["sequence"] == 2)


def test_a_standby_whose_wal_receiver_stalls_is_not_taken_for_a_current_one(pair: Pair, apps: tuple[Any, Any]) -> None:
    """A partition that drops packets leaves the receiver waiting (here: stopped): the
    standby has replayed all it received and its receiver reads as streaming, so its own
    figures said lag 0 for as long as it lasted (wal_receiver_timeout, 60 s; for ever with
    a frozen receiver). The primary now says how long ago it wrote what the standby has not."""
    import signal

    patient, tenant, strict_http = one_round_on_both(apps)
    standby = pair.standby.url("capsa")
    (receiver,) = sql(standby, "SELECT pid FROM pg_stat_wal_receiver")
    os.kill(receiver, signal.SIGSTOP)
    try:
        store(patient, tenant, 2)
        time.sleep(1.2)  # past the strict app's READ_MAX_LAG_S
        fresh = summary(strict_http, tenant)
        assert fresh["as_of"]["sequence"] == 2 and fresh["as_of"]["source"] == "primary"
    finally:
        os.kill(receiver, signal.SIGCONT)
    assert until(lambda: summary(strict_http, tenant)["as_of"] == {**fresh["as_of"], "source": "replica"})


def test_a_frozen_standby_is_cut_off_and_the_primary_answers(pair: Pair, apps: tuple[Any, Any], monkeypatch) -> None:
    """Its processes stopped while its host's kernel still acknowledges (a hung disk, a
    stopped process): no statement_timeout, cancel or TCP timeout reached a report or
    /readyz waiting on it, and gunicorn killed the worker after 30 s."""
    import signal

    from service.adapters import replicas

    monkeypatch.setattr(replicas, "read_deadline_s", lambda db: 2.0, raising=False)  # (before it: none)
    monkeypatch.setattr(replicas, "PROBE_DEADLINE_S", 1.0, raising=False)
    patient, strict = apps
    tenant = make_tenant(patient)
    strict_http = strict.test_client()
    store(patient, tenant, 1)
    assert until(lambda: summary(strict_http, tenant)["as_of"]["source"] == "replica")  # its connections pooled
    postmaster = int((pair.standby.data / "postmaster.pid").read_text().split()[0])
    frozen = [postmaster] + [
        int(entry) for entry in os.listdir("/proc")
        if entry.isdigit() and _parent(entry) == postmaster
    ]
    for pid in frozen:
        os.kill(pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        answer = summary(strict_http, tenant)
        assert answer["as_of"]["source"] == "primary" and answer["as_of"]["sequence"] == 1
        assert time.monotonic() - started < 8
        started = time.monotonic()
        ready = strict_http.get("/readyz")
        assert ready.status_code == 200 and ready.get_json()["replica"]["status"] == "unavailable"
        assert time.monotonic() - started < 5
    finally:
        for pid in frozen:
            os.kill(pid, signal.SIGCONT)
    assert until(lambda: summary(strict_http, tenant)["as_of"]["source"] == "replica")


def _parent(pid: str) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def test_a_read_url_that_finds_a_primary_after_a_failover_serves_it_as_current(pair: Pair) -> None:
    # What libpq's target_session_attrs=prefer-standby falls back to when no standby is left.
    primary = pair.primary.url("capsa")
    app = make_app(primary, READ_DATABASE_URL=primary, IDEMPOTENCY_PURGE=False)
    try:
        tenant = make_tenant(app)
        store(app, tenant, 1)
        http = app.test_client()
        assert http.get("/readyz").get_json()["replica"] == {"status": "primary", "lag_seconds": 0.0}
        body = summary(http, tenant)
        assert body["as_of"]["sequence"] == 1 and body["as_of"]["source"] == "replica"
    finally:
        app.extensions["capsa"].db.dispose()


def test_a_read_url_that_does_not_answer_leaves_the_reports_to_the_primary(pair: Pair) -> None:
    primary = pair.primary.url("capsa")
    dead = f"postgresql+psycopg://postgres@127.0.0.1:{_free_port()}/capsa"
    app = make_app(primary, READ_DATABASE_URL=dead, IDEMPOTENCY_PURGE=False)
    try:
        tenant = make_tenant(app)
        store(app, tenant, 1)
        http = app.test_client()
        ready = http.get("/readyz")
        assert ready.status_code == 200
        # The primary's own standby streams without being synchronous (the pair names none).
        assert ready.get_json() == {
            "status": "ok", "database": "ok", "replication": "asynchronous", "standbys": 1,
            "replica": {"status": "unavailable", "lag_seconds": None},
        }
        body = summary(http, tenant)
        assert body["as_of"]["sequence"] == 1 and body["as_of"]["source"] == "primary"
    finally:
        app.extensions["capsa"].db.dispose()
