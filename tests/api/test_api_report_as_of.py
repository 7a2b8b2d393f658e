"""Every reporting answer says how far it reaches (`as_of`), cursors keep their first page's,
a read-only database remakes missing receipts in memory only, and a report's recovery
conflict on the standby is retried once, then served by the primary. Both engines; the
real standby is tests/api/test_api_replica.py."""

from __future__ import annotations

import base64
import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import Tenant, make_app, make_tenant
from httpkit import four_player_round, problem
from sqlalchemy import delete, select, text

from service.adapters import keyfile, replicas
from service.adapters.errors import SerializationFailure
from service.adapters.models import ChainSignature
from service.adapters.uow import Database
from service.domain.signing import Keyring
from service.services.clock import utcnow_ms
from service.services.cursors import decode_cursor, encode_cursor
from service.services.ledger import reports as ledger

CSV = {"Accept": "text/csv"}


def _post(http: Any, tenant: Tenant, **overrides: Any) -> dict[str, Any]:
    r = http.post("/v1/rounds", json=four_player_round(**overrides), headers=tenant.headers)
    assert r.status_code == 201, r.get_json()
    body: dict[str, Any] = r.get_json()
    return body


def _record_time(http: Any, tenant: Tenant, sequence: int) -> str:
    record = http.get(f"/v1/audit/records/{sequence}", headers=tenant.read_headers).get_json()
    return str(orjson.loads(record["canonical"])["created_at"])


JSON_ROUTES = [
    "/v1/ledger/players/a?currency=IDR",
    "/v1/ledger/players/a?currency=IDR&since=2020-01-01",
    "/v1/ledger/players/a/statement?currency=IDR",
    "/v1/ledger/summary?currency=IDR",
    "/v1/ledger/summary?currency=IDR&group_by=table",
    "/v1/ledger/summary?currency=IDR&since=2020-01-01&group_by=day&tz=Asia/Jakarta",
    "/v1/ledger/entries?currency=IDR",
    "/v1/ledger/entries?currency=IDR&player=b&limit=2",
    "/v1/audit/verify",
]
CSV_ROUTES = [
    ("/v1/ledger/entries?currency=IDR", CSV),
    ("/v1/ledger/players/a/statement?currency=IDR", CSV),
    ("/v1/audit/export", {}),
]


@pytest.fixture
def voided(http: Any, tenant: Tenant) -> tuple[Tenant, str]:
    """Two rounds and a void of the first: the head is record 3, the void."""
    first = _post(http, tenant)
    _post(http, tenant)
    r = http.post(f"/v1/rounds/{first['id']}/void", json={"reason": "dealer error"}, headers=tenant.headers)
    assert r.status_code == 200, r.get_json()
    return tenant, _record_time(http, tenant, 3)


@pytest.mark.parametrize("path", JSON_ROUTES)
def test_every_json_report_names_the_chain_head_and_its_time_it_reaches(
    http: Any, voided: tuple[Tenant, str], path: str
) -> None:
    tenant, at = voided
    r = http.get(path, headers=tenant.read_headers)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["as_of"] == {"sequence": 3, "at": at, "source": "primary"}


@pytest.mark.parametrize(("path", "headers"), CSV_ROUTES)
def test_every_csv_and_ndjson_report_names_its_as_of_in_a_header(
    http: Any, voided: tuple[Tenant, str], path: str, headers: dict[str, str]
) -> None:
    tenant, at = voided
    r = http.get(path, headers={**tenant.read_headers, **headers})
    assert r.status_code == 200, r.get_data(as_text=True)
    assert r.headers["Capsa-As-Of"] == f"sequence=3; at={at}; source=primary"


@pytest.mark.parametrize("path", JSON_ROUTES)
def test_a_report_on_an_empty_chain_reaches_sequence_0_with_no_time(http: Any, tenant: Tenant, path: str) -> None:
    r = http.get(path, headers=tenant.read_headers)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["as_of"] == {"sequence": 0, "at": None, "source": "primary"}
    csv_answer = http.get("/v1/ledger/entries?currency=IDR", headers={**tenant.read_headers, **CSV})
    assert csv_answer.headers["Capsa-As-Of"] == "sequence=0; source=primary"


def test_later_entry_pages_keep_the_first_pages_as_of_and_never_show_newer_records(
    http: Any, tenant: Tenant
) -> None:
    _post(http, tenant)
    _post(http, tenant)
    at = _record_time(http, tenant, 2)
    first = http.get("/v1/ledger/entries?currency=IDR&limit=3", headers=tenant.read_headers).get_json()
    _post(http, tenant)  # record 3: after the first page
    seen = [(i["sequence"], i["account"]) for i in first["items"]]
    cursor = first["next_cursor"]
    while cursor is not None:
        page = http.get(f"/v1/ledger/entries?currency=IDR&limit=3&cursor={cursor}", headers=tenant.read_headers)
        body = page.get_json()
        assert body["as_of"] == {"sequence": 2, "at": at, "source": "primary"}
        seen += [(i["sequence"], i["account"]) for i in body["items"]]
        cursor = body["next_cursor"]
    every = http.get("/v1/ledger/entries?currency=IDR&limit=500", headers=tenant.read_headers).get_json()
    assert every["as_of"]["sequence"] == 3
    assert seen == [(i["sequence"], i["account"]) for i in every["items"] if i["sequence"] <= 2]
    assert len(seen) == len(every["items"]) * 2 // 3


def test_later_statement_pages_keep_the_first_pages_closing_balance_and_as_of(http: Any, tenant: Tenant) -> None:
    _post(http, tenant)
    _post(http, tenant)
    url = "/v1/ledger/players/a/statement?currency=IDR&limit=1"
    first = http.get(url, headers=tenant.read_headers).get_json()
    _post(http, tenant)  # record 3: after the first page
    pages, cursor = [first], first["next_cursor"]
    while cursor is not None:
        pages.append(http.get(f"{url}&cursor={cursor}", headers=tenant.read_headers).get_json())
        cursor = pages[-1]["next_cursor"]
    assert len(pages) > 2
    assert {(p["closing_balance"], json.dumps(p["as_of"])) for p in pages} == {
        (first["closing_balance"], json.dumps(first["as_of"]))
    }
    assert first["as_of"]["sequence"] == 2
    now = http.get("/v1/ledger/players/a/statement?currency=IDR", headers=tenant.read_headers).get_json()
    assert [line for p in pages for line in p["lines"]] == [line for line in now["lines"] if line["sequence"] <= 2]
    assert now["closing_balance"] != first["closing_balance"] and now["as_of"]["sequence"] == 3


def test_a_capped_csv_answers_next_parts_keep_its_as_of(
    http: Any, tenant: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ledger, "CSV_MAX_LINES", 5)
    _post(http, tenant)
    _post(http, tenant)
    first = http.get("/v1/ledger/entries?currency=IDR", headers={**tenant.read_headers, **CSV})
    _post(http, tenant)  # record 3: after the first answer
    answers = [first]
    while "Link" in answers[-1].headers:
        link = answers[-1].headers["Link"]
        answers.append(http.get(link[1 : link.index(">")], headers={**tenant.read_headers, **CSV}))
    assert len(answers) > 2
    assert {a.headers["Capsa-As-Of"] for a in answers} == {first.headers["Capsa-As-Of"]}
    assert first.headers["Capsa-As-Of"].startswith("sequence=2; ")
    rows = [row for a in answers for row in csv.DictReader(io.StringIO(a.get_data(as_text=True)))]
    every = http.get("/v1/ledger/entries?currency=IDR&limit=500", headers=tenant.read_headers).get_json()
    assert [(int(r["sequence"]), r["account"]) for r in rows] == [
        (i["sequence"], i["account"]) for i in every["items"] if i["sequence"] <= 2
    ]


def test_a_cursor_made_before_as_of_still_pages_with_the_answers_own_as_of(http: Any, tenant: Tenant) -> None:
    _post(http, tenant)
    body = http.get("/v1/ledger/entries?currency=IDR&limit=500", headers=tenant.read_headers).get_json()
    first = http.get("/v1/ledger/entries?currency=IDR&limit=1", headers=tenant.read_headers).get_json()
    when, sequence, line_no, _, _ = decode_cursor(first["next_cursor"], int, int, int, int)
    old = encode_cursor(when, sequence, line_no)  # what the service gave before as_of
    _post(http, tenant)
    page = http.get(f"/v1/ledger/entries?currency=IDR&limit=500&cursor={old}", headers=tenant.read_headers)
    assert page.status_code == 200
    assert page.get_json()["as_of"]["sequence"] == 2  # its own snapshot: nothing pinned it
    assert [(i["sequence"], i["account"]) for i in page.get_json()["items"]] == [
        (i["sequence"], i["account"]) for i in body["items"][1:]
    ]


@pytest.mark.parametrize("pin", [[-1, -1], [2, -2], ["2", 0]])
def test_a_cursor_whose_as_of_is_not_ours_is_a_422_on_the_cursor(http: Any, tenant: Tenant, pin: list[Any]) -> None:
    raw = json.dumps(["2026-11-29T10:00:00+00:00", 1, 0, *pin]).encode()
    cursor = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    r = http.get(f"/v1/ledger/entries?currency=IDR&cursor={cursor}", headers=tenant.read_headers)
    assert problem(r, 422, "validation")["errors"][0]["field"] == "query.cursor"


@pytest.mark.parametrize(
    "path", ["/v1/ledger/summary?currency=IDR", "/v1/audit/verify", "/v1/audit/export", "/v1/ledger/entries?currency=IDR"]
)
def test_min_sequence_must_be_a_positive_sequence(http: Any, tenant: Tenant, path: str) -> None:
    r = http.get(f"{path}{'&' if '?' in path else '?'}min_sequence=0", headers=tenant.read_headers)
    body = problem(r, 422, "validation")
    assert [e["field"] for e in body["errors"]] == ["query.min_sequence"]


def test_without_a_standby_min_sequence_is_answered_by_the_primary_at_once(http: Any, tenant: Tenant) -> None:
    _post(http, tenant)
    body = http.get("/v1/ledger/summary?currency=IDR&min_sequence=1", headers=tenant.read_headers).get_json()
    assert body["as_of"]["sequence"] == 1 and body["as_of"]["source"] == "primary"


# -- a read-only database and the routing, with the same database standing in for a standby ----


@pytest.fixture(scope="module")
def signed(db_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Path]]:
    path = tmp_path_factory.mktemp("keys") / "signing.json"
    ring, _ = Keyring().rotated(utcnow_ms())
    keyfile.save(path, ring)
    app = make_app(db_url, SIGNING_KEY_FILE=str(path))
    yield app, path
    app.extensions["capsa"].db.dispose()


def _receipts(db: Database, client_id: str) -> list[tuple[int, bytes]]:
    with db.unit_of_work() as uow:
        rows = uow.session.execute(
            select(ChainSignature.sequence, ChainSignature.signature).where(ChainSignature.client_id == client_id)
        ).all()
    return [(r[0], bytes(r[1])) for r in rows]


def test_a_read_only_database_remakes_a_missing_receipt_in_memory_and_stores_nothing(
    db_url: str, signed: tuple[Any, Path]
) -> None:
    app, key_path = signed
    tenant = make_tenant(app)
    http = app.test_client()
    _post(http, tenant)
    db = app.extensions["capsa"].db
    db.receipts.drain()  # stored (on PostgreSQL it waits for a next write or the timer)
    ((_, stored),) = _receipts(db, tenant.id)
    with db.unit_of_work(write=True) as uow:
        uow.session.execute(delete(ChainSignature).where(ChainSignature.client_id == tenant.id))
        uow.commit()
    reader = Database(db_url, keyring=keyfile.load(key_path), read_only=True)
    try:
        with reader.snapshot() as uow:
            record = uow.chain.record(tenant.id, 1)
        assert record is not None and record.signature == stored
        assert _receipts(db, tenant.id) == []  # nothing written by the reader
        with pytest.raises(RuntimeError):
            reader.unit_of_work(write=True)
    finally:
        reader.dispose()
    with db.unit_of_work() as uow:  # the primary's first read stores the same bytes
        uow.chain.record(tenant.id, 1)
    assert _receipts(db, tenant.id) == [(1, stored)]


class _Conflicts:
    """A report's work that fails with SQLSTATE 40001 on the standby `times` times."""

    def __init__(self, times: int) -> None:
        self.times = times
        self.sources: list[str] = []

    def __call__(self, uow: Any, as_of: replicas.AsOf) -> replicas.AsOf:
        self.sources.append(as_of.source.value)
        if uow.db.read_only and self.times > 0:
            self.times -= 1
            raise SerializationFailure("canceling statement due to conflict with recovery")
        return as_of


def test_a_recovery_conflict_on_the_standby_is_retried_once_there(standing_in: Database, tenant: Tenant) -> None:
    work = _Conflicts(1)
    assert replicas.report(standing_in, tenant.id, work).source == replicas.ReportSource.REPLICA
    assert work.sources == ["replica", "replica"]


def test_a_second_recovery_conflict_sends_the_report_to_the_primary(standing_in: Database, tenant: Tenant) -> None:
    work = _Conflicts(2)
    assert replicas.report(standing_in, tenant.id, work).source == replicas.ReportSource.PRIMARY
    assert work.sources == ["replica", "replica", "primary"]


def test_reports_on_a_standby_that_stays_behind_min_sequence_go_to_the_primary(
    standing_in: Database, http: Any, tenant: Tenant
) -> None:
    _post(http, tenant)
    on_standby = replicas.report(standing_in, tenant.id, lambda uow, as_of: as_of, min_sequence=1)
    assert (on_standby.sequence, on_standby.source) == (1, replicas.ReportSource.REPLICA)
    # The same database cannot be behind; a sequence past the head is: 1 s of polling, then the primary.
    beyond = replicas.report(standing_in, tenant.id, lambda uow, as_of: as_of, min_sequence=2)
    assert (beyond.sequence, beyond.source) == (1, replicas.ReportSource.PRIMARY)


def test_a_standby_route_answer_names_the_replica_as_its_source(
    standing_in: Database, http: Any, tenant: Tenant
) -> None:
    _post(http, tenant)
    body = http.get("/v1/ledger/summary?currency=IDR", headers=tenant.read_headers).get_json()
    assert body["as_of"]["source"] == "replica" and body["as_of"]["sequence"] == 1


@pytest.mark.parametrize(
    "position",
    [
        [1, 2**31 - 1, 1, 0],  # past a line number's column: its next was a 500
        [1, 2**63 - 1, 1, 0],
        [1, -1, 1, 0],
        [-1, 0, 1, 0],
        [2**62, 0, 1, 0],
        [1, 2**31 - 1],  # the form made before as_of
        [1, 2**31],
    ],
)
@pytest.mark.parametrize("path", ["/v1/ledger/entries", "/v1/ledger/players/a/statement"])
@pytest.mark.parametrize("accept", ["application/json", "text/csv"])
def test_a_cursor_past_what_the_columns_hold_is_a_422_on_the_cursor(
    http: Any, tenant: Tenant, position: list[int], path: str, accept: str
) -> None:
    _post(http, tenant)
    raw = json.dumps(["2026-11-29T10:00:00+00:00", *position]).encode()
    cursor = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    r = http.get(f"{path}?currency=IDR&cursor={cursor}", headers={**tenant.read_headers, "Accept": accept})
    assert problem(r, 422, "validation")["errors"][0]["field"] == "query.cursor"


@pytest.mark.parametrize("path", ["/v1/ledger/entries", "/v1/ledger/players/a/statement"])
def test_a_cursor_pinned_past_the_chains_head_is_a_422_not_an_answer_claiming_it(
    http: Any, tenant: Tenant, path: str
) -> None:
    """The service pins a cursor to a head it read; one pinned past the head would answer an
    `as_of` naming records that do not exist, as if the answer held them."""
    _post(http, tenant)
    raw = json.dumps(["2026-11-29T10:00:00+00:00", 1, 0, 10**15, 0]).encode()
    cursor = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    r = http.get(f"{path}?currency=IDR&cursor={cursor}", headers=tenant.read_headers)
    body = problem(r, 422, "validation")
    assert body["errors"][0]["field"] == "query.cursor" and "past the chain's head" in body["errors"][0]["message"]


@pytest.fixture
def copied(tmp_path: Path) -> Iterator[tuple[Any, Tenant, Path]]:
    """A SQLite primary with one round, and a copy of it taken then: a 'standby' that stopped
    there (its own lag figures say nothing: a file)."""
    import sqlite3

    from service.adapters.migrate import upgrade

    primary = tmp_path / "primary.db"
    upgrade(f"sqlite:///{primary}")
    app = make_app(f"sqlite:///{primary}", IDEMPOTENCY_PURGE=False, RATE_LIMIT="off")
    tenant = make_tenant(app)
    _post(app.test_client(), tenant, reference="copied-1")
    with sqlite3.connect(primary) as source, sqlite3.connect(tmp_path / "standby.db") as copy:
        source.backup(copy)  # what the WAL holds too
    try:
        yield app, tenant, tmp_path / "standby.db"
    finally:
        db = app.extensions["capsa"].db
        if db.replica is not None:
            db.replica.db.dispose()
        db.dispose()


def _standby(app: Any, path: Path, max_lag_s: float) -> None:
    db = app.extensions["capsa"].db
    db.replica = replicas.Replica(f"sqlite:///{path}", keyring=db.keyring, max_lag_s=max_lag_s)


def _as_of(app: Any, tenant: Tenant) -> tuple[int, str]:
    body = app.test_client().get("/v1/ledger/summary?currency=IDR", headers=tenant.read_headers).get_json()
    return body["as_of"]["sequence"], body["as_of"]["source"]


def test_a_standby_that_stopped_past_the_lag_allowed_leaves_the_report_to_the_primary(copied) -> None:
    # A WAL receiver that stalls (a partition that drops packets) left the standby's own
    # figures at "replayed all it received, lag 0": its reports stayed at the cut for good.
    # The primary now says how long ago it wrote the record the standby has not.
    app, tenant, standby = copied
    _post(app.test_client(), tenant, reference="copied-2")
    _standby(app, standby, max_lag_s=60)
    assert _as_of(app, tenant) == (1, "replica")  # behind, within the lag allowed: says so
    _standby(app, standby, max_lag_s=0.001)
    assert _as_of(app, tenant) == (2, "primary")


def test_a_standby_whose_chain_is_not_the_primarys_never_answers(copied) -> None:
    # Another cluster's standby, or one promoted and written to: its head was served as
    # current, and with min_sequence it vouched for rounds the primary never stored.
    import sqlite3

    app, tenant, standby = copied
    with sqlite3.connect(standby) as conn:
        conn.execute("UPDATE chain_records SET hash = ? WHERE client_id = ? AND sequence = 1", ("ab" * 32, tenant.id))
        conn.execute("UPDATE chain_heads SET hash = ? WHERE client_id = ?", ("ab" * 32, tenant.id))
    _standby(app, standby, max_lag_s=60)
    assert _as_of(app, tenant) == (1, "primary")
    assert app.extensions["capsa"].db.replica.state().status == replicas.ReplicaStatus.UNAVAILABLE
    # ahead of the primary: a record the primary does not hold
    _post(app.test_client(), tenant, reference="copied-2")
    with sqlite3.connect(standby) as conn:
        conn.execute("UPDATE chain_heads SET sequence = 5, hash = ? WHERE client_id = ?", ("cd" * 32, tenant.id))
    _standby(app, standby, max_lag_s=60)
    on = replicas.report(app.extensions["capsa"].db, tenant.id, lambda uow, as_of: as_of, min_sequence=5)
    assert (on.sequence, on.source) == (2, replicas.ReportSource.PRIMARY)


def test_a_standby_on_another_migration_leaves_the_report_to_the_primary(copied) -> None:
    # A missing table on the standby (an older schema) was a 500.
    import sqlite3

    app, tenant, standby = copied
    with sqlite3.connect(standby) as conn:
        conn.execute("DROP TABLE ledger_rollup_cursors")
    _standby(app, standby, max_lag_s=60)
    assert _as_of(app, tenant) == (1, "primary")
    assert app.extensions["capsa"].db.replica.state().status == replicas.ReplicaStatus.UNAVAILABLE


def test_a_postgresql_standby_on_an_older_migration_leaves_the_report_to_the_primary(
    app: Any, db_url: str, tenant: Tenant
) -> None:
    # PostgreSQL names a missing table SQLSTATE 42P01, which no handler took: a 500 for the
    # all-time reports (SQLite's "no such table" already sent them to the primary).
    import os

    from service.adapters.db import create_database, drop_database, normalise_url
    from service.adapters.migrate import upgrade

    if not db_url.startswith("postgresql"):
        pytest.skip("the SQLite case: test_a_standby_on_another_migration_leaves_the_report_to_the_primary")
    admin = normalise_url(os.environ["TEST_DATABASE_URL"])
    url, name = create_database(admin, "capsa_old_standby")
    db = app.extensions["capsa"].db
    try:
        upgrade(url, "0012")
        _post(app.test_client(), tenant)
        db.replica = replicas.Replica(url, keyring=db.keyring, max_lag_s=60)
        assert _as_of(app, tenant) == (1, "primary")
        assert db.replica.state().status == replicas.ReplicaStatus.UNAVAILABLE
    finally:
        if db.replica is not None:
            db.replica.db.dispose()
        db.replica = None
        drop_database(admin, name)


def test_a_standby_ahead_of_the_primarys_snapshot_is_not_set_aside(copied) -> None:
    # With a synchronous standby, a commit can be visible there before it is on the primary
    # (the primary shows it once the standby has acknowledged): a head the primary does not
    # show yet is a commit in flight, not another chain. The primary answers this report,
    # and the standby stays in use.
    import sqlite3

    app, tenant, standby = copied
    primary = standby.with_name("primary.db")
    with sqlite3.connect(primary) as conn:  # the primary's snapshot without record 1 yet
        conn.execute("UPDATE chain_heads SET sequence = 0 WHERE client_id = ?", (tenant.id,))
        conn.execute("UPDATE chain_records SET sequence = sequence + 100 WHERE client_id = ?", (tenant.id,))
    try:
        _standby(app, standby, max_lag_s=60)
        assert _as_of(app, tenant) == (0, "primary")
        assert app.extensions["capsa"].db.replica.state().status == replicas.ReplicaStatus.OK
    finally:
        with sqlite3.connect(primary) as conn:
            conn.execute("UPDATE chain_records SET sequence = sequence - 100 WHERE client_id = ?", (tenant.id,))
            conn.execute("UPDATE chain_heads SET sequence = 1 WHERE client_id = ?", (tenant.id,))


def test_a_primary_slow_to_vouch_leaves_the_standby_answering(standing_in: Database, http: Any, tenant: Tenant,
                                                             db_url: str, monkeypatch: Any) -> None:
    # The primary's check ran without a deadline of its own, inside the standby's: a primary
    # slow to answer (a partition) had the standby cut off, and the report waited on the
    # primary instead. Past its own deadline the check counts as a primary that cannot be
    # asked, and the standby answers.
    import time

    from service.adapters.chain import ChainRepository

    if not db_url.startswith("postgresql"):
        pytest.skip("a deadline cuts a PostgreSQL connection; SQLite has none to wait on")
    monkeypatch.setattr(replicas, "read_deadline_s", lambda db: 3.0)
    monkeypatch.setattr(replicas, "VOUCH_DEADLINE_S", 0.5, raising=False)  # (before it: none)
    _post(http, tenant)
    primary = standing_in.engine
    asked = ChainRepository.vouch

    def slow(self: Any, client_id: str, sequence: int) -> Any:
        if self.session.get_bind().pool is primary.pool:  # the primary's, not the standby's
            self.session.execute(text("SELECT pg_sleep(5)"))
        return asked(self, client_id, sequence)

    monkeypatch.setattr(ChainRepository, "vouch", slow)
    started = time.monotonic()
    on = replicas.report(standing_in, tenant.id, lambda uow, as_of: as_of)
    assert (on.sequence, on.source) == (1, replicas.ReportSource.REPLICA)
    assert time.monotonic() - started < 2.5


def test_a_standby_read_may_take_twice_a_longer_statement_timeout() -> None:
    # A fixed 10 s cut off a live standby's long report where the operator allows 10 s and
    # more a statement: the report was then done again on the primary.
    ten = Database("sqlite://", statement_timeout_ms=0)
    long = Database("sqlite://", statement_timeout_ms=8000)
    try:
        assert replicas.read_deadline_s(ten) == replicas.READ_DEADLINE_S == 10.0
        assert replicas.read_deadline_s(long) == 16.0
    finally:
        ten.dispose()
        long.dispose()
