"""The chain verifier's fast path: the live copies of every round record are compared with
what the hashed bytes say (its lines as one JSON text with the record's `ledger_lines`
bytes), and only a void or a copy that differs is read in full. These tests pin that the fast path is the one taken (so verify keeps its speed), that
it formats money as the records do in every currency, and that a live value crafted to
pose as the text's structure is still found."""

from __future__ import annotations

import threading
from typing import Any

import orjson
import pytest
from conftest import TAMPERED, make_tenant
from httpkit import four_player_round, two_player_round
from test_api_audit import LINES_OF_ROUND, _assert_bad_at, chain_verify, sql

from service.adapters import chain_scan
from service.adapters.chain import ChainRepository
from service.services.audit import chains as audit
from service.services.audit.record_checks import copies_match


@pytest.fixture
def slow_path(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, str]]:
    """(sequence, kind) of every record the verifier had to read in full."""
    seen: list[tuple[int, str]] = []
    differences = audit._differences

    def counted(uow: Any, client_id: str, sequence: int, kind: str, round_id: str, body: bytes) -> Any:
        seen.append((sequence, kind))
        return differences(uow, client_id, sequence, kind, round_id, body)

    monkeypatch.setattr(audit, "_differences", counted)
    return seen


def test_round_records_in_every_currency_take_the_fast_path_and_only_voids_are_read_in_full(app, http, slow_path):
    tenant = make_tenant(app)
    bodies = [
        two_player_round(),
        four_player_round(),
        four_player_round(currency="USD", stake="1.25", table=None, reference=None),  # cents, negatives
        two_player_round(currency="KWD", stake="0.125"),  # three minor digits
        four_player_round(currency="JPY", stake="100", table=None),
    ]
    docs = []
    for body in bodies:
        r = http.post("/v1/rounds", json={k: v for k, v in body.items() if v is not None}, headers=tenant.headers)
        assert r.status_code == 201, r.get_data(as_text=True)
        docs.append(r.get_json())
    voided = http.post(f"/v1/rounds/{docs[2]['id']}/void", json={"reason": "x"}, headers=tenant.headers)
    assert voided.status_code == 200
    assert chain_verify(http, tenant) == {
        "ok": True, "records_checked": 6, "first_bad_sequence": None, "reason": None, "next_from_sequence": None,
    }
    assert slow_path == [(6, "void")]


def test_the_fast_path_never_matches_a_void_and_the_scan_gives_the_same_texts_on_every_engine(app, http):
    tenant = make_tenant(app)
    doc = http.post("/v1/rounds", json=four_player_round(currency="USD", stake="0.05"), headers=tenant.headers)
    assert doc.status_code == 201
    assert http.post(f"/v1/rounds/{doc.get_json()['id']}/void", json={"reason": "x"},
                     headers=tenant.headers).status_code == 200
    db = app.extensions["capsa"].db
    with db.snapshot() as uow:
        scanned = [row for statement in uow.scan_chain(tenant.id, 1, 10) for row in statement]
        found = uow.rounds.copies_of(tenant.id, scanned[0][2])
        lines = uow.ledger.copies_of(tenant.id, 1)
    assert [(row[0], row[1]) for row in scanned] == [(1, "round"), (2, "void")]
    assert copies_match(scanned[0]) and not copies_match(scanned[1])
    # What the database built is what `live_copies` builds from the same rows.
    assert found is not None
    assert scanned[0][6:] == chain_scan.live_copies(1, "round", found.columns, found.sequence, lines)
    assert scanned[0][6:9] == ("susun", "capsa-susun-id", "table-9") and scanned[0][10] == "USD"
    assert scanned[0][13].startswith("0,1,") and scanned[0][14].startswith('[{"account":"player:')
    # The record's own `ledger_lines` bytes, money with the currency's two digits.
    assert scanned[0][14].encode() in scanned[0][5] and '"amount":"-0.' in scanned[0][14]


@pytest.mark.parametrize(
    ("form", "matches"),
    [
        (lambda t: t, True),
        (lambda t: t[:-1] + "+00:00", False),  # the same moment, as an offset
        (lambda t: t.replace("T", " "), False),  # ... with a space for the T
        (lambda t: t.replace(".", ","), False),  # ... with a decimal comma
        (lambda t: t[:-1] + "000Z", False),  # ... in microseconds
        (lambda t: t[:11] + t[11:19].replace(":", "") + t[19:], False),  # ... as basic time
    ],
    ids=["records", "offset", "space", "comma", "microseconds", "basic"],
)
def test_the_fast_path_takes_a_records_time_only_in_the_form_records_write(app, http, form, matches):
    """The scan hands the round's moment over as a datetime and the check parses the record's
    text; a text the parser reads as the same moment in another form is not the record's
    own form, and goes to the full comparison (which compares the texts)."""
    tenant = make_tenant(app)
    assert http.post("/v1/rounds", json=four_player_round(), headers=tenant.headers).status_code == 201
    with app.extensions["capsa"].db.snapshot() as uow:
        scanned = [row for statement in uow.scan_chain(tenant.id, 1, 2) for row in statement][0]
    text = orjson.loads(scanned[5])["created_at"]
    body = scanned[5].replace(f'"created_at":"{text}"'.encode(), f'"created_at":"{form(text)}"'.encode())
    assert copies_match((*scanned[:5], body, *scanned[6:])) is matches


@pytest.mark.parametrize(
    ("statement", "field"),
    [
        # A quote or a backslash in a live value could pose as the JSON around it.
        (f"UPDATE ledger_lines SET player_id = 'a\",\"kind\":\"settlement' WHERE {LINES_OF_ROUND} AND line_no = 0",
         "ledger_lines[0].player"),
        (f"UPDATE ledger_lines SET kind = 'fee\\' WHERE {LINES_OF_ROUND} AND line_no = 1", "ledger_lines[1].kind"),
        ("UPDATE rounds SET reference = 'r\",\"x' WHERE id = :r", "round.reference"),
        # Two lines whose numbers were swapped: the same lines in another order.
        ([f"UPDATE ledger_lines SET line_no = -1 WHERE {LINES_OF_ROUND} AND line_no = 0",
          f"UPDATE ledger_lines SET line_no = 0 WHERE {LINES_OF_ROUND} AND line_no = 1",
          f"UPDATE ledger_lines SET line_no = 1 WHERE {LINES_OF_ROUND} AND line_no = -1"], "ledger_lines[0].kind"),
        # Points on a line that is not a settlement.
        (f"UPDATE ledger_lines SET points = 1 WHERE {LINES_OF_ROUND} AND line_no = 1", "ledger_lines[1].points"),
        # One line without its round's table (the least and greatest table of the lines skip it).
        (f"UPDATE ledger_lines SET table_ref = NULL WHERE {LINES_OF_ROUND} AND line_no = 2", "ledger_lines[2].table"),
        # A line's time, currency or table before and after the round's: its lines are
        # compared by the least and the greatest of each.
        *(
            (f"UPDATE ledger_lines SET {column} = {value} WHERE {LINES_OF_ROUND} AND line_no = 1", f"ledger_lines[1].{field}")
            for column, field, value in (
                ("created_at", "created_at", "'2000-01-01 00:00:00'"),
                ("created_at", "created_at", "'2100-01-01 00:00:00'"),
                ("currency", "currency", "'ADP'"),  # no minor digits, as the round's IDR
                ("currency", "currency", "'ZWD'"),
                ("table_ref", "table", "'table-0'"),
                ("table_ref", "table", "'table-z'"),
            )
        ),
    ],
)
def test_a_live_value_shaped_like_the_copies_text_is_still_found(app, http, statement, field):
    tenant = make_tenant(app)
    TAMPERED.add(tenant.id)
    docs = []
    for body in (two_player_round(), four_player_round(), two_player_round()):
        r = http.post("/v1/rounds", json=body, headers=tenant.headers)
        assert r.status_code == 201
        docs.append(r.get_json())
    assert chain_verify(http, tenant)["ok"]
    for one in [statement] if isinstance(statement, str) else statement:
        sql(app, one, r=docs[1]["id"])
    report = _assert_bad_at(app, http, tenant, 2)
    assert report["reason"] == f"the stored {field} no longer matches the hashed record"


@pytest.mark.parametrize(("which", "shift", "field"), [
    ("line", 999, "ledger_lines[1].created_at"),
    ("round", 1, "round.created_at"),
    ("line", -1, "ledger_lines[1].created_at"),
])
def test_a_live_time_moved_by_less_than_a_millisecond_is_found(app, http, which, shift, field):
    """A record's time is written to the millisecond, its live copies to the microsecond.
    A copy moved later within its millisecond (a line at .647999 for .647) was compared
    cut to milliseconds and passed, though it moves the line across a report's bound."""
    from datetime import timedelta

    from sqlalchemy import select, update

    from service.adapters.models import LedgerLine, Round

    tenant = make_tenant(app)
    TAMPERED.add(tenant.id)
    docs = [http.post("/v1/rounds", json=four_player_round(), headers=tenant.headers).get_json() for _ in range(3)]
    assert chain_verify(http, tenant)["ok"]
    if which == "line":
        table, key = LedgerLine, (LedgerLine.client_id == tenant.id, LedgerLine.sequence == 2, LedgerLine.line_no == 1)
    else:
        table, key = Round, (Round.client_id == tenant.id, Round.id == docs[1]["id"])
    with app.extensions["capsa"].db.engine.begin() as conn:
        moment = conn.execute(select(table.created_at).where(*key)).scalar_one()
        conn.execute(update(table).where(*key).values(created_at=moment + timedelta(microseconds=shift)))
    report = _assert_bad_at(app, http, tenant, 2)
    assert report["reason"] == f"the stored {field} no longer matches the hashed record"


def test_a_line_at_a_table_in_a_round_at_none_is_found(app, http):
    tenant = make_tenant(app)
    TAMPERED.add(tenant.id)
    body = four_player_round()
    del body["table"]
    doc = http.post("/v1/rounds", json=body, headers=tenant.headers)
    assert doc.status_code == 201 and doc.get_json()["table"] is None
    assert chain_verify(http, tenant)["ok"]
    sql(app, f"UPDATE ledger_lines SET table_ref = 'table-9' WHERE {LINES_OF_ROUND} AND line_no = 3", r=doc.get_json()["id"])
    report = _assert_bad_at(app, http, tenant, 1)
    assert report["reason"] == "the stored ledger_lines[3].table no longer matches the hashed record"


def test_a_scan_over_many_statements_checks_every_record_and_finds_a_gap_at_a_statement_edge(app, http, monkeypatch):
    monkeypatch.setattr(chain_scan, "SCAN_STATEMENT", 2)
    monkeypatch.setattr(chain_scan, "SQLITE_PAGE", 2)
    tenant = make_tenant(app)
    TAMPERED.add(tenant.id)
    docs = []
    for _ in range(5):
        r = http.post("/v1/rounds", json=two_player_round(), headers=tenant.headers)
        assert r.status_code == 201
        docs.append(r.get_json())
    assert chain_verify(http, tenant) == {
        "ok": True, "records_checked": 5, "first_bad_sequence": None, "reason": None, "next_from_sequence": None,
    }
    assert chain_verify(http, tenant, "?from_sequence=2&limit=3")["next_from_sequence"] == 5
    rid = docs[2]["id"]  # sequence 3: the first of the second statement
    sql(app, f"DELETE FROM ledger_lines WHERE {LINES_OF_ROUND}", r=rid)
    sql(app, "DELETE FROM rounds WHERE id = :r", r=rid)
    sql(app, "DELETE FROM chain_records WHERE round_id = :r", r=rid)
    report = _assert_bad_at(app, http, tenant, 3)
    assert report["reason"] == "sequence 3 is missing (found 4)"


def test_a_limit_far_past_the_head_reads_no_statement_past_a_page_beyond_it(app, http, monkeypatch):
    # `capsa audit verify --limit` takes any size: the scan ran a statement per 5,000
    # sequences up to from + limit on PostgreSQL, minutes for a limit of 10**8.
    statements = []
    pg_statement = chain_scan._pg_statement
    monkeypatch.setattr(chain_scan, "_pg_statement", lambda *a: statements.append(a) or pg_statement(*a))
    sqlite_page = chain_scan._page
    monkeypatch.setattr(chain_scan, "_page", lambda *a: statements.append(a) or sqlite_page(*a))
    tenant = make_tenant(app)
    for _ in range(3):
        assert http.post("/v1/rounds", json=two_player_round(), headers=tenant.headers).status_code == 201
    report = audit.verify_chain(app.extensions["capsa"].db, tenant.id, limit=40 * chain_scan.SCAN_STATEMENT)
    assert (report.ok, report.records_checked, report.next_from_sequence) == (True, 3, None)
    assert len(statements) <= 2


@pytest.mark.parametrize("route", ["api", "cli"])
def test_a_round_stored_after_the_head_was_read_is_not_seen_by_that_check(app, http, monkeypatch, route):
    """The head and the records are read in one snapshot: a round stored between the two
    reads is neither past the head nor checked. (Before, the scan read the records in a
    snapshot of its own, found the new one past the head it had read, and said the chain
    was bad.)"""
    tenant = make_tenant(app)
    for _ in range(3):
        assert http.post("/v1/rounds", json=two_player_round(), headers=tenant.headers).status_code == 201
    stored: list[int] = []
    hash_before = ChainRepository.hash_before

    def store_one_meanwhile(self: Any, client_id: str, sequence: int) -> str | None:
        # After the head is read, before the records are: another request stores a round.
        if not stored:
            worker = threading.Thread(target=lambda: stored.append(
                app.test_client().post("/v1/rounds", json=two_player_round(), headers=tenant.headers).status_code))
            worker.start()
            worker.join()
        return hash_before(self, client_id, sequence)

    monkeypatch.setattr(ChainRepository, "hash_before", store_one_meanwhile)
    if route == "api":
        r = http.get("/v1/audit/verify?limit=100", headers=tenant.read_headers)
        assert r.status_code == 200
        found = r.get_json()
        assert found.pop("as_of")["sequence"] == 3
    else:
        found = audit.verify_chain(app.extensions["capsa"].db, tenant.id, 1, None).to_json()
    assert stored == [201]
    assert found == {"ok": True, "records_checked": 3, "first_bad_sequence": None, "reason": None,
                     "next_from_sequence": None}
    monkeypatch.undo()
    assert chain_verify(http, tenant)["records_checked"] == 4


def test_a_void_read_in_full_before_a_broken_link_in_the_same_statement_is_still_checked(app, http, monkeypatch):
    """The scan stops at a broken link; the void before it, which the fast path sends to be
    read in full, is read after it in the same snapshot, and a bad void is the first bad
    sequence, whatever lies after it."""
    monkeypatch.setattr(chain_scan, "STREAM_CHUNK", 1)  # rows still to come when the link breaks
    tenant = make_tenant(app)
    TAMPERED.add(tenant.id)
    docs = []
    for _ in range(2):
        r = http.post("/v1/rounds", json=two_player_round(), headers=tenant.headers)
        assert r.status_code == 201
        docs.append(r.get_json())
    assert http.post(f"/v1/rounds/{docs[0]['id']}/void", json={"reason": "x"}, headers=tenant.headers).status_code == 200
    for _ in range(3):
        assert http.post("/v1/rounds", json=two_player_round(), headers=tenant.headers).status_code == 201
    sql(app, "UPDATE chain_records SET hash = :h WHERE client_id = :c AND sequence = 5", h="0" * 64, c=tenant.id)
    report = _assert_bad_at(app, http, tenant, 5)
    assert report["reason"] == "hash does not match the stored canonical bytes"
    # The void's reversal lines, kept balanced (the database refuses anything else).
    sql(app, "UPDATE ledger_lines SET amount = amount + CASE line_no WHEN 0 THEN 100 ELSE -100 END"
             " WHERE client_id = :c AND sequence = 3 AND line_no IN (0, 1)", c=tenant.id)
    report = _assert_bad_at(app, http, tenant, 3)
    assert report["reason"] == "the stored ledger_lines[0].amount no longer matches the hashed record"


def test_the_postgresql_scan_reads_each_table_once_in_sequence_order_and_holds_nothing(app, http):
    """Whatever the planner knows of the tables (the test's are never analysed): the records
    by their key, each round by its key, and the statement's lines as one range of their key
    folded per record and merged by sequence: no sort, hash or bitmap, which would read all
    of a statement's lines before sending its first record."""
    if app.extensions["capsa"].db.dialect != "postgresql":
        pytest.skip("the plan is PostgreSQL's")
    tenant = make_tenant(app)
    for body in (two_player_round(), four_player_round(), two_player_round(), four_player_round()):
        assert http.post("/v1/rounds", json=body, headers=tenant.headers).status_code == 201
    with app.extensions["capsa"].db.snapshot() as uow:
        assert uow.chain.head(tenant.id).sequence == 4  # the snapshot's transaction begun, as the verifier's
        conn = uow.session.connection().connection.driver_connection
        conn.execute(chain_scan._PG_SETTINGS)
        plan = "\n".join(
            row[0] for row in conn.execute(
                "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) " + chain_scan._PG_SCAN, {"c": tenant.id, "lo": 1, "hi": 5}
            )
        )
        lines = conn.execute("SELECT count(*) FROM ledger_lines WHERE client_id = %s", (tenant.id,)).fetchone()[0]
    assert "Merge Left Join" in plan and "GroupAggregate" in plan, plan
    assert "Index Scan using pk_chain_records on chain_records" in plan, plan
    assert "Index Scan using pk_rounds on rounds" in plan, plan
    assert "Index Scan using pk_ledger_lines on ledger_lines" in plan, plan
    for node in ("Sort", "Hash", "Bitmap", "Seq Scan", "Materialize"):
        assert node not in plan, plan
    # The records' lines, each read once.
    assert lines > 4 and f"on ledger_lines l (actual rows={lines} loops=1)" in plan, plan
