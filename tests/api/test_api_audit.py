"""The audit trail over HTTP: chain, voids, tampering found at its sequence, the guard, the view."""

from __future__ import annotations

import contextlib
import io
import json
import re
import threading
import time
from typing import Any

import pytest
from conftest import TAMPERED, Tenant, make_tenant
from httpkit import four_player_round, problem, two_player_round
from itsdangerous.timed import TimestampSigner
from sqlalchemy import text, update

from service import cli
from service.adapters.errors import CheckViolation
from service.adapters.models import ChainRecord
from service.adapters.records import LineRow, NewRecord
from service.domain.audit import GENESIS_HASH, canonical, chain_hash
from service.services import view_links as viewlinks
from service.services.clock import rfc3339, utcnow_ms


def post_rounds(http: Any, tenant: Tenant, n: int) -> list[dict[str, Any]]:
    docs = []
    for i in range(n):
        body = four_player_round() if i % 2 else two_player_round()
        r = http.post("/v1/rounds", json=body, headers=tenant.headers)
        assert r.status_code == 201, r.get_data(as_text=True)
        docs.append(r.get_json())
    return docs


def chain_verify(http: Any, tenant: Tenant, query: str = "") -> dict[str, Any]:
    """The verify answer without its `as_of`, which must be the chain's head."""
    r = http.get(f"/v1/audit/verify{query}", headers=tenant.read_headers)
    assert r.status_code == 200, r.get_data(as_text=True)
    body = dict(r.get_json())
    # The head row itself: GET /v1/audit/head signs none that names no stored record.
    with http.application.extensions["capsa"].db.unit_of_work() as uow:
        head = uow.chain.head(tenant.id)
    at = None if head.created_at is None else rfc3339(head.created_at)
    assert body.pop("as_of") == {"sequence": head.sequence, "at": at, "source": "primary"}
    return body


# The ledger lines of a round's own record (a line's round is its record's).
LINES_OF_ROUND = ("(client_id, sequence) IN"
                  " (SELECT client_id, sequence FROM chain_records WHERE round_id = :r AND kind = 'round')")


def sql(app: Any, statement: Any, **params: Any) -> None:
    with app.extensions["capsa"].db.engine.begin() as conn:
        conn.execute(text(statement) if isinstance(statement, str) else statement, params)


def cli_verify(app: Any, tenant: Tenant) -> tuple[int, str]:
    url = app.config["DATABASE_URL"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main(["audit", "verify", "--client", tenant.name, "--database-url", url])
    return code, out.getvalue()


# -- the chain -----------------------------------------------------------------------------------


def test_each_round_is_chained_after_the_previous_one_with_the_hash_of_its_stored_bytes(http, tenant):
    docs = post_rounds(http, tenant, 3)
    previous = GENESIS_HASH
    for n, doc in enumerate(docs, start=1):
        assert doc["audit"]["sequence"] == n and doc["audit"]["previous_hash"] == previous
        record = http.get(f"/v1/audit/records/{n}", headers=tenant.read_headers).get_json()
        stored = record["canonical"].encode()
        assert chain_hash(previous, stored) == record["hash"] == doc["audit"]["hash"]
        import json

        parsed = json.loads(stored)
        assert canonical(parsed) == stored  # the bytes are RFC 8785
        assert parsed["kind"] == "round" and parsed["round"] == doc["id"] and parsed["sequence"] == n
        assert parsed["result"] == {k: v for k, v in doc.items() if k not in ("id", "created_at", "status", "void", "audit")}
        assert parsed["created_at"] == doc["created_at"]
        previous = record["hash"]
    head = http.get("/v1/audit/head", headers=tenant.read_headers).get_json()
    assert {k: head[k] for k in ("client_id", "sequence", "hash", "created_at")} == {
        "client_id": tenant.id, "sequence": 3, "hash": previous, "created_at": docs[-1]["created_at"]
    }
    assert head["kid"] is None and head["signature"] is None  # this app has no signing key
    assert http.get(f"/v1/rounds/{docs[0]['id']}", headers=tenant.headers).get_json()["audit"] == docs[0]["audit"]


def test_ledger_lines_follow_api_md_order_and_sum_to_zero(http, tenant):
    doc = post_rounds(http, tenant, 1)[0]
    import json

    record = json.loads(http.get("/v1/audit/records/1", headers=tenant.read_headers).get_json()["canonical"])
    assert record["ledger_lines"] == [
        {"account": "player:a", "kind": "settlement", "amount": "11000"},
        {"account": "player:a", "kind": "fee", "amount": "-330"},
        {"account": "player:b", "kind": "settlement", "amount": "-11000"},
        {"account": "house", "kind": "fee", "amount": "330"},
    ]
    assert doc["house_fee"] == "330"


def test_a_new_tenant_has_an_empty_chain_that_verifies(http, tenant):
    head = http.get("/v1/audit/head", headers=tenant.read_headers).get_json()
    assert {k: head[k] for k in ("client_id", "sequence", "hash", "created_at")} == {
        "client_id": tenant.id, "sequence": 0, "hash": GENESIS_HASH, "created_at": None}
    assert chain_verify(http, tenant) == {"ok": True, "records_checked": 0, "first_bad_sequence": None,
                                          "reason": None, "next_from_sequence": None}
    problem(http.get("/v1/audit/records/1", headers=tenant.read_headers), 404, "not-found")


def test_verify_pages_with_limit_and_from_sequence(http, tenant):
    post_rounds(http, tenant, 5)
    first = chain_verify(http, tenant, "?limit=2")
    assert first == {"ok": True, "records_checked": 2, "first_bad_sequence": None, "reason": None,
                     "next_from_sequence": 3}
    second = chain_verify(http, tenant, "?from_sequence=3&limit=2")
    assert second["records_checked"] == 2 and second["next_from_sequence"] == 5
    last = chain_verify(http, tenant, "?from_sequence=5&limit=2")
    assert last["ok"] and last["records_checked"] == 1 and last["next_from_sequence"] is None
    assert chain_verify(http, tenant)["records_checked"] == 5


@pytest.mark.parametrize("query", ["?limit=0", "?limit=100001", "?from_sequence=0", "?limit=x"])
def test_bad_verify_parameters_are_422(http, tenant, query):
    problem(http.get(f"/v1/audit/verify{query}", headers=tenant.read_headers), 422, "validation")


def test_another_clients_chain_and_records_are_not_visible(http, tenant, other_tenant):
    post_rounds(http, tenant, 1)
    problem(http.get("/v1/audit/records/1", headers=other_tenant.headers), 404, "not-found")
    assert http.get("/v1/audit/head", headers=other_tenant.headers).get_json()["sequence"] == 0


# -- tampering, each directly in SQL ---------------------------------------------------------------


@pytest.mark.parametrize(("canonical", "bad"), [
    ("CAST(canonical AS TEXT)", False),  # the same bytes, kept as text
    ("REPLACE(CAST(canonical AS TEXT), '\"a\"', '\"z\"')", True),  # other bytes, as text
])
def test_canonical_bytes_sqlite_keeps_as_text_are_checked_as_bytes(app, http, tenant, canonical, bad):
    """SQLite keeps any type in any column: a record's bytes put back as text made every
    read of it (verify, the record, the export) a 500 and `capsa audit verify` a traceback,
    where the auditor needs the check's answer."""
    if app.extensions["capsa"].db.dialect != "sqlite":
        pytest.skip("PostgreSQL's bytea column holds bytes only")
    TAMPERED.add(tenant.id)
    post_rounds(http, tenant, 3)
    sql(app, f"UPDATE chain_records SET canonical = {canonical} WHERE client_id = :c AND sequence = 2", c=tenant.id)
    with app.extensions["capsa"].db.engine.connect() as conn:
        stored = conn.execute(text("SELECT typeof(canonical) FROM chain_records WHERE client_id = :c AND sequence = 2"),
                              {"c": tenant.id}).scalar_one()
    assert stored == "text"
    if bad:
        _assert_bad_at(app, http, tenant, 2)
    else:
        assert chain_verify(http, tenant)["ok"]
        assert cli_verify(app, tenant)[0] == 0
    assert http.get("/v1/audit/records/2", headers=tenant.read_headers).status_code == 200
    export = http.get("/v1/audit/export", headers=tenant.read_headers)
    assert export.status_code == 200 and export.get_data().count(b"\n") == 3


@pytest.mark.parametrize("statement", [
    "UPDATE chain_heads SET hash = :h WHERE client_id = :c",  # a hash no record has
    "UPDATE chain_heads SET sequence = 50 WHERE client_id = :c",  # past the last record
    # the last record and the head given a hash its bytes do not have
    ["UPDATE chain_records SET hash = :h WHERE client_id = :c AND sequence = 2",
     "UPDATE chain_heads SET hash = :h WHERE client_id = :c"],
])
def test_a_head_that_does_not_match_its_record_is_not_signed(app, http, tenant, statement):
    """GET /v1/audit/head signed whatever the head row said: a row set by hand to sequence
    50 and a hash no record has came back as the service's signed word."""
    TAMPERED.add(tenant.id)
    post_rounds(http, tenant, 2)
    assert http.get("/v1/audit/head", headers=tenant.read_headers).status_code == 200
    for one in [statement] if isinstance(statement, str) else statement:
        sql(app, one, c=tenant.id, h="f" * 64)
    body = problem(http.get("/v1/audit/head", headers=tenant.read_headers), 409, "conflict")
    assert "does not match the record stored there" in body["detail"] and "signature" not in body


def _tampered(app: Any, http: Any, n: int = 5) -> tuple[Tenant, list[dict[str, Any]]]:
    tenant = make_tenant(app)
    TAMPERED.add(tenant.id)
    docs = post_rounds(http, tenant, n)
    assert chain_verify(http, tenant)["ok"]
    return tenant, docs


def _assert_bad_at(app: Any, http: Any, tenant: Tenant, sequence: int) -> dict[str, Any]:
    report = chain_verify(http, tenant)
    assert report["ok"] is False and report["first_bad_sequence"] == sequence, report
    assert report["reason"] and report["next_from_sequence"] is None
    code, out = cli_verify(app, tenant)
    assert code == 1 and f"first bad sequence {sequence}:" in out, out
    return report


def _record_bytes(http: Any, tenant: Tenant, sequence: int) -> bytes:
    return str(http.get(f"/v1/audit/records/{sequence}", headers=tenant.read_headers).get_json()["canonical"]).encode()


def _rehash_newest(app: Any, http: Any, tenant: Tenant, sequence: int, record: dict[str, Any]) -> None:
    """Store `record` as the client's newest record `sequence`, re-hashed, the head with it:
    what someone who can write the database (not the key) can do without breaking a link."""
    forged = canonical(record)
    previous = str(http.get(f"/v1/audit/records/{sequence}", headers=tenant.read_headers).get_json()["previous_hash"])
    forged_hash = chain_hash(previous, forged)
    sql(app, "UPDATE chain_records SET canonical = :b, hash = :h WHERE client_id = :c AND sequence = :s",
        b=forged, h=forged_hash, c=tenant.id, s=sequence)
    sql(app, "UPDATE chain_heads SET hash = :h WHERE client_id = :c", h=forged_hash, c=tenant.id)


def test_changed_record_bytes_are_found_at_their_sequence_and_by_the_rounds_own_verify(app, http):
    tenant, docs = _tampered(app, http)
    victim = docs[2]
    import json

    record = json.loads(_record_bytes(http, tenant, 3))
    points = record["result"]["players"][0]["points"]
    record["result"]["players"][0]["points"] += 1
    forged = canonical(record)
    sql(app, update(ChainRecord).where(ChainRecord.client_id == tenant.id, ChainRecord.sequence == 3)
        .values(canonical=forged))
    report = _assert_bad_at(app, http, tenant, 3)
    assert report["reason"] == "hash does not match the stored canonical bytes"
    verdict = http.get(f"/v1/rounds/{victim['id']}/verify", headers=tenant.read_headers).get_json()
    assert verdict["ok"] is False
    fields = {d["field"] for d in verdict["differences"]}
    assert {"players[0].points", "audit.hash"} <= fields
    diff = next(d for d in verdict["differences"] if d["field"] == "players[0].points")
    assert diff["stored"] == diff["recomputed"] + 1 == points + 1
    assert http.get(f"/v1/rounds/{docs[1]['id']}/verify", headers=tenant.read_headers).get_json() == {
        "ok": True, "differences": []}


def test_a_record_rewritten_with_a_matching_hash_breaks_the_next_link(app, http):
    tenant, _docs = _tampered(app, http)
    body = _record_bytes(http, tenant, 2)
    previous = http.get("/v1/audit/records/2", headers=tenant.read_headers).get_json()["previous_hash"]
    forged = body.replace(b'"kind":"round"', b'"kind":"round" ', 1)
    sql(app, update(ChainRecord).where(ChainRecord.client_id == tenant.id, ChainRecord.sequence == 2)
        .values(canonical=forged, hash=chain_hash(previous, forged)))
    report = _assert_bad_at(app, http, tenant, 3)
    assert report["reason"] == "previous_hash does not match the hash of the record before"


def test_a_changed_previous_hash_alone_is_found_at_its_sequence(app, http):
    tenant, _docs = _tampered(app, http)
    sql(app, update(ChainRecord).where(ChainRecord.client_id == tenant.id, ChainRecord.sequence == 3)
        .values(previous_hash="e" * 64))
    report = _assert_bad_at(app, http, tenant, 3)
    assert report["reason"] == "previous_hash does not match the hash of the record before"


def test_a_changed_ledger_amount_is_found_at_its_sequence(app, http):
    tenant, docs = _tampered(app, http)
    # Kept balanced (the database refuses anything else): only the chain can tell.
    sql(app, "UPDATE ledger_lines SET amount = amount + CASE line_no WHEN 0 THEN 100 ELSE -100 END"
             f" WHERE {LINES_OF_ROUND} AND line_no IN (0, 1)", r=docs[3]["id"])
    report = _assert_bad_at(app, http, tenant, 4)
    assert report["reason"] == "the stored ledger_lines[0].amount no longer matches the hashed record"
    verdict = http.get(f"/v1/rounds/{docs[3]['id']}/verify", headers=tenant.read_headers).get_json()
    assert verdict["ok"] is False
    assert [d["field"] for d in verdict["differences"]] == ["ledger_lines[0].amount", "ledger_lines[1].amount"]
    first = verdict["differences"][0]
    assert first["stored"] == first["recomputed"] + 100


@pytest.mark.parametrize(
    ("statement", "field"),
    [
        ("UPDATE rounds SET table_ref = 'table-x' WHERE id = :r", "round.table"),
        ("UPDATE rounds SET reference = 'forged-ref' WHERE id = :r", "round.reference"),
        ("UPDATE rounds SET currency = 'USD' WHERE id = :r", "round.currency"),
        ("UPDATE rounds SET preset = 'chinese-poker-2-4' WHERE id = :r", "round.preset"),
        # the round is re-scored by the game its hashed record names, not the live column's
        ("UPDATE rounds SET game = 'banting' WHERE id = :r", "round.game"),
        (f"UPDATE ledger_lines SET table_ref = 'table-x' WHERE {LINES_OF_ROUND} AND line_no = 1", "ledger_lines[1].table"),
        (f"UPDATE ledger_lines SET player_id = 'zz' WHERE {LINES_OF_ROUND} AND line_no = 0", "ledger_lines[0].player"),
        (f"UPDATE ledger_lines SET points = points + 1 WHERE {LINES_OF_ROUND} AND line_no = 0", "ledger_lines[0].points"),
        (f"UPDATE ledger_lines SET winnings = winnings + 5 WHERE {LINES_OF_ROUND} AND line_no = 0",
         "ledger_lines[0].winnings"),
        (f"UPDATE ledger_lines SET basis = 'fee' WHERE {LINES_OF_ROUND} AND line_no = 0", "ledger_lines[0].basis"),
        (f"UPDATE ledger_lines SET currency = 'USD' WHERE {LINES_OF_ROUND} AND line_no = 2", "ledger_lines[2].currency"),
        # The verifier compares a record's lines as one text: an empty player is not the
        # house's null, and a value holding the text's separators cannot pose as two columns.
        (f"UPDATE ledger_lines SET player_id = '' WHERE {LINES_OF_ROUND} AND player_id IS NULL", "ledger_lines[3].player"),
        (f"UPDATE ledger_lines SET kind = 'settlement,x' WHERE {LINES_OF_ROUND} AND line_no = 0", "ledger_lines[0].kind"),
        (f"UPDATE ledger_lines SET created_at = '2020-01-01 00:00:00' WHERE {LINES_OF_ROUND} AND line_no = 3",
         "ledger_lines[3].created_at"),
    ],
)
def test_every_copy_kept_for_queries_is_checked_against_the_hashed_record(app, http, statement, field):
    tenant, docs = _tampered(app, http, 4)
    sql(app, statement, r=docs[2]["id"])
    report = _assert_bad_at(app, http, tenant, 3)
    assert report["reason"] == f"the stored {field} no longer matches the hashed record"
    verdict = http.get(f"/v1/rounds/{docs[2]['id']}/verify", headers=tenant.read_headers).get_json()
    assert field in {d["field"] for d in verdict["differences"]}


@pytest.mark.parametrize("form", ["T for the space", "an offset"])
@pytest.mark.parametrize(("table", "field"), [("rounds", "round.created_at"), ("ledger_lines", "ledger_lines[0].created_at")])
def test_a_stored_time_rewritten_as_the_same_moment_in_another_form_is_found(app, http, form, table, field):
    """SQLite keeps times as text, which the reports compare and cut (a period's bounds, a
    day's first ten characters). `2026-06-01T12:00:00.000000` or the same moment at
    `+13:00` put a round outside a period or on another day; the verifier read the text as
    a moment and said ok. It now takes only the form the service writes. (PostgreSQL keeps
    a moment, whatever text wrote it: nothing changes, and verify says ok.)"""
    from datetime import datetime, timedelta

    tenant, docs = _tampered(app, http, 4)
    where = "id = :r" if table == "rounds" else f"{LINES_OF_ROUND} AND line_no = 0"
    stored = docs[2]["created_at"]  # 2026-...T...Z, the record's time
    moment = datetime.fromisoformat(stored)
    text_form = (
        moment.strftime("%Y-%m-%dT%H:%M:%S.%f") if form == "T for the space"
        else (moment + timedelta(hours=13)).strftime("%Y-%m-%d %H:%M:%S.%f+13:00")
    )
    sql(app, f"UPDATE {table} SET created_at = :t WHERE {where}", r=docs[2]["id"], t=text_form)
    if app.extensions["capsa"].db.dialect != "sqlite":
        assert chain_verify(http, tenant)["ok"]
        return
    report = _assert_bad_at(app, http, tenant, 3)
    assert report["reason"] == f"the stored {field} no longer matches the hashed record"
    verdict = http.get(f"/v1/rounds/{docs[2]['id']}/verify", headers=tenant.read_headers).get_json()
    assert {"field": field, "stored": text_form, "recomputed": stored} in verdict["differences"]


def test_a_round_pointed_at_another_record_is_found_at_its_own_and_is_not_served(app, http):
    tenant, docs = _tampered(app, http, 4)
    sql(app, "UPDATE rounds SET sequence = sequence + 1 WHERE id = :r", r=docs[1]["id"])
    report = _assert_bad_at(app, http, tenant, 2)
    assert report["reason"] == "the stored round.sequence no longer matches the hashed record"
    # The round's record must name the round: another round's record is never served as it.
    assert http.get(f"/v1/rounds/{docs[1]['id']}", headers=tenant.read_headers).status_code == 404
    assert http.get(f"/v1/rounds/{docs[2]['id']}", headers=tenant.read_headers).get_json() == docs[2]
    # its own verify says so, where it answered 404 for a round whose row is there
    verdict = http.get(f"/v1/rounds/{docs[1]['id']}/verify", headers=tenant.read_headers).get_json()
    assert verdict == {"ok": False, "differences": [
        {"field": "round.sequence", "stored": 3, "recomputed": None}]}


def test_a_changed_reversal_line_is_found_at_the_voids_sequence(app, http):
    tenant, docs = _tampered(app, http, 3)
    assert http.post(f"/v1/rounds/{docs[0]['id']}/void", json={"reason": "x"}, headers=tenant.headers).status_code == 200
    assert chain_verify(http, tenant)["ok"]
    sql(app, "UPDATE ledger_lines SET winnings = winnings + 1 WHERE client_id = :c AND sequence = 4 AND line_no = 0",
        c=tenant.id)
    report = _assert_bad_at(app, http, tenant, 4)
    assert report["reason"] == "the stored ledger_lines[0].winnings no longer matches the hashed record"
    # The voided round's own verify checks its void's record and lines too.
    verdict = http.get(f"/v1/rounds/{docs[0]['id']}/verify", headers=tenant.read_headers).get_json()
    assert verdict["ok"] is False
    assert [d["field"] for d in verdict["differences"]] == ["void.ledger_lines[0].winnings"]


def test_a_rehashed_void_whose_lines_do_not_reverse_its_round_is_found(app, http):
    """Someone who can write the database rewrites a void (the newest record) so its lines
    move money instead of reversing the round's: the bytes, the hash, the head and the live
    lines all agree with each other. A void's lines must be its round's, negated: verify
    finds it at the void, as the offline verifier of the whole chain does."""
    import json

    tenant, docs = _tampered(app, http, 3)
    assert http.post(f"/v1/rounds/{docs[0]['id']}/void", json={"reason": "x"}, headers=tenant.headers).status_code == 200
    record = json.loads(_record_bytes(http, tenant, 4))
    lines = record["ledger_lines"]
    last = len(lines) - 1
    amounts = {}
    for n, change in ((0, 1_000_000), (last, -1_000_000)):  # still balanced (IDR: whole units)
        amounts[n] = int(lines[n]["amount"]) + change
        lines[n]["amount"] = str(amounts[n])
    # one statement: PostgreSQL checks that a record's lines balance at its end
    sql(app, "UPDATE ledger_lines SET amount = CASE line_no WHEN 0 THEN :a0 ELSE :a1 END"
             " WHERE client_id = :c AND sequence = 4 AND line_no IN (0, :last)",
        a0=amounts[0], a1=amounts[last], last=last, c=tenant.id)
    _rehash_newest(app, http, tenant, 4, record)
    sql(app, "DELETE FROM chain_signatures WHERE client_id = :c AND sequence = 4", c=tenant.id)
    report = _assert_bad_at(app, http, tenant, 4)
    assert report["reason"] == "the void's ledger lines are not its round's, negated"


def test_a_result_rewritten_with_a_null_key_dropped_or_added_fails_its_re_score(app, http):
    """Someone who can write the database rewrites the newest round's result so that a key
    holding null is gone and a new key holds null, and re-hashes it (the head too). No
    number changed, but the result is no longer what the engine answers: the round's own
    verify and the offline verifier of the export both re-score it and must say so (a
    missing key read as null passed both)."""
    import json

    from service.domain import export_check
    from service.domain.signing import Keyring

    tenant, docs = _tampered(app, http, 3)
    record = json.loads(_record_bytes(http, tenant, 3))
    first, second = record["result"]["players"][:2]
    dropped = next(k for k, v in first.items() if v is None)
    del first[dropped]
    second["paid_outside_ledger"] = None
    _rehash_newest(app, http, tenant, 3, record)
    verdict = http.get(f"/v1/rounds/{docs[2]['id']}/verify", headers=tenant.read_headers).get_json()
    assert verdict["ok"] is False
    assert verdict["differences"] == [
        {"field": f"players[0].{dropped}", "stored": None, "recomputed": None, "absent": "stored"},
        {"field": "players[1].paid_outside_ledger", "stored": None, "recomputed": None, "absent": "recomputed"},
    ]
    lines = http.get("/v1/audit/export", headers=tenant.read_headers).data.splitlines(keepends=True)
    report = export_check.verify_lines(lines, Keyring(), receipts=False)
    assert not report.ok and report.first_bad_sequence == 3, report
    assert report.reason == f"re-scored, result.players[0].{dropped} is null, the record has no such key"


def test_a_release_with_a_new_engine_version_still_verifies_the_rounds_stored_before(app, http, monkeypatch):
    """The next release's engine stamps its own version on what it scores. Rounds stored
    under a version it re-scores as they were scored must still verify, by their own
    verify and offline; a stored version it does not know, or a record whose own
    `engine_version` is not its result's, must not."""
    import json

    from service.domain import export_check, rescoring
    from service.domain.banting import round as banting_round
    from service.domain.signing import Keyring
    from service.domain.susun import round as susun_round

    tenant, docs = _tampered(app, http, 3)
    monkeypatch.setattr(susun_round, "ENGINE_VERSION", "1.0.1")
    monkeypatch.setattr(banting_round, "ENGINE_VERSION", "1.0.1")
    monkeypatch.setattr(rescoring, "RESCORES", frozenset({"1.0.0", "1.0.1"}))

    def offline() -> Any:
        lines = http.get("/v1/audit/export", headers=tenant.read_headers).data.splitlines(keepends=True)
        return export_check.verify_lines(lines, Keyring(), receipts=False)

    for doc in docs:
        verdict = http.get(f"/v1/rounds/{doc['id']}/verify", headers=tenant.read_headers).get_json()
        assert verdict == {"ok": True, "differences": []}
    assert offline().ok

    def rewrite(change: Any) -> None:
        record = json.loads(_record_bytes(http, tenant, 3))
        change(record)
        _rehash_newest(app, http, tenant, 3, record)

    rewrite(lambda r: r.update(engine_version="9.9.9"))
    verdict = http.get(f"/v1/rounds/{docs[2]['id']}/verify", headers=tenant.read_headers).get_json()
    assert verdict["differences"] == [{"field": "record.engine_version", "stored": "9.9.9", "recomputed": "1.0.0"}]
    report = offline()
    assert not report.ok and report.first_bad_sequence == 3
    assert report.reason == "the record's engine_version '9.9.9' is not its result's '1.0.0'"

    rewrite(lambda r: (r.update(engine_version="0.9.0"), r["result"].update(engine_version="0.9.0")))
    verdict = http.get(f"/v1/rounds/{docs[2]['id']}/verify", headers=tenant.read_headers).get_json()
    assert verdict["differences"] == [{"field": "engine_version", "stored": "0.9.0", "recomputed": "1.0.1"}]
    report = offline()
    assert not report.ok and report.first_bad_sequence == 3
    assert report.reason == "re-scored, result.engine_version is '1.0.1', the record says '0.9.0'"


def test_a_void_is_checked_against_its_round_read_in_an_earlier_page(app, http, monkeypatch):
    from service.services.audit import chains as audit

    monkeypatch.setattr(audit, "PAGE", 2)
    tenant, docs = _tampered(app, http, 3)
    assert http.post(f"/v1/rounds/{docs[0]['id']}/void", json={"reason": "x"}, headers=tenant.headers).status_code == 200
    assert chain_verify(http, tenant) == {
        "ok": True, "records_checked": 4, "first_bad_sequence": None, "reason": None, "next_from_sequence": None,
    }
    sql(app, "UPDATE ledger_lines SET points = points - 1 WHERE client_id = :c AND sequence = 4 AND line_no = 0",
        c=tenant.id)
    report = _assert_bad_at(app, http, tenant, 4)
    assert report["reason"] == "the stored ledger_lines[0].points no longer matches the hashed record"


def test_a_deleted_round_is_found_at_its_sequence(app, http):
    tenant, docs = _tampered(app, http)
    rid = docs[1]["id"]
    sql(app, f"DELETE FROM ledger_lines WHERE {LINES_OF_ROUND}", r=rid)
    sql(app, "DELETE FROM rounds WHERE id = :r", r=rid)
    report = _assert_bad_at(app, http, tenant, 2)
    assert report["reason"] == "the round or its ledger lines are missing"


def test_deleted_ledger_lines_alone_are_found_at_their_sequence(app, http):
    tenant, docs = _tampered(app, http)
    sql(app, f"DELETE FROM ledger_lines WHERE {LINES_OF_ROUND}", r=docs[1]["id"])  # all of them: balanced
    report = _assert_bad_at(app, http, tenant, 2)
    assert report["reason"] == "ledger_lines[0] is missing"


def test_a_deleted_round_with_its_chain_record_is_a_gap(app, http):
    tenant, docs = _tampered(app, http)
    rid = docs[4]["id"]  # the newest: only the head still knows it existed
    sql(app, f"DELETE FROM ledger_lines WHERE {LINES_OF_ROUND}", r=rid)
    sql(app, "DELETE FROM rounds WHERE id = :r", r=rid)
    sql(app, "DELETE FROM chain_records WHERE round_id = :r", r=rid)
    report = _assert_bad_at(app, http, tenant, 5)
    assert report["reason"] == "sequence 5 is missing (the head is at 5)"


def _stray_lines(app: Any, tenant: Tenant, sequence: int, amount: int) -> None:
    """Two balanced lines at `sequence`, where no record is (a database writer's own)."""
    from service.services.clock import utcnow_ms

    at = utcnow_ms()
    at = at.replace(tzinfo=None) if app.extensions["capsa"].db.dialect == "sqlite" else at
    # one statement: PostgreSQL checks that a record's lines balance at its end
    sql(app, "INSERT INTO ledger_lines (client_id, sequence, line_no, player_id, created_at, kind, basis,"
             " amount, currency, points, winnings) VALUES"
             " (:c, :s, 0, 'a', :t, 'settlement', 'settlement', :v, 'IDR', 0, 0),"
             " (:c, :s, 1, NULL, :t, 'settlement', 'settlement', -:v, 'IDR', 0, 0)",
        c=tenant.id, s=sequence, t=at, v=amount)


@pytest.mark.parametrize("where", [0, -1, 10**9])
def test_ledger_lines_where_no_record_is_are_found_however_far_from_the_chain(app, http, where):
    """Balances, statements and reports sum every line of a client up to a sequence: lines at
    a sequence no record holds (before the first, or past the head) would move them with
    every record and its copies intact. Verify reads the lines outside the chain too."""
    tenant, _ = _tampered(app, http)
    _stray_lines(app, tenant, where, 1_000_000)
    report = _assert_bad_at(app, http, tenant, where)
    assert report["reason"] == f"ledger lines at sequence {where}, where no record of the chain is"


@pytest.mark.parametrize("where", [10**9, 0, -1])
def test_a_record_outside_the_chain_however_far_is_found(app, http, where):
    """A record past the head, or before the first, is read by the round's GET (a void of
    it, say: the round then shows as void) though no chain holds it: verify finds it wherever
    it is, not only within a page past the head."""
    tenant, docs = _tampered(app, http)
    body = canonical({"forged": True})
    sql(app, "INSERT INTO chain_records (client_id, sequence, kind, round_id, previous_hash, hash, canonical)"
             " VALUES (:c, :s, 'void', :r, :h, :h, :b)", c=tenant.id, s=where, r=docs[0]["id"],
        h=chain_hash("0" * 64, body), b=body)
    report = _assert_bad_at(app, http, tenant, where)
    assert report["reason"] == (
        f"sequence {where} is past the head" if where > 0 else f"sequence {where} is before the chain's first record (1)"
    )


@pytest.mark.parametrize("grouping", ["player", "quarter"])
def test_the_cli_finds_all_time_rollups_that_are_not_the_sums_of_the_lines(app, http, grouping):
    """All-time reports start from the rollups the sweeper folds from the lines: a rollup
    changed in the database moves every all-time total with every record intact. The CLI's
    check of the whole chain sums the lines up to the rollups' cursor and compares."""
    from service.services.ledger import rollups

    tenant, docs = _tampered(app, http, 3)
    assert http.post(f"/v1/rounds/{docs[0]['id']}/void", json={"reason": "x"}, headers=tenant.headers).status_code == 200
    rollups.fold(app.extensions["capsa"].db, tenant.id)
    code, out = cli_verify(app, tenant)
    assert code == 0 and out.startswith("ok: 4 records"), out
    sql(app, "UPDATE ledger_rollups SET net = net + 1000000 WHERE client_id = :c AND grouping = :g"
             " AND key = (SELECT max(key) FROM ledger_rollups WHERE client_id = :c AND grouping = :g)",
        c=tenant.id, g=grouping)
    code, out = cli_verify(app, tenant)
    assert code == 1 and out.startswith(f"BAD: the all-time rollup IDR {grouping} "), out
    assert "is not the sum of its ledger lines through sequence 4 (4 records verified)" in out


def test_the_cli_finds_a_kept_zones_day_that_is_not_the_sum_of_the_lines(app, http):
    """A zone whose days the rollups keep (after an all-time summary by day there) has a row
    a day, read by that summary instead of the quarter hours: changed, it moves those days'
    totals. The CLI gathers the lines' quarter hours into the zone's days and compares."""
    from service.services.ledger import rollups

    tenant, _ = _tampered(app, http, 3)
    rollups.fold(app.extensions["capsa"].db, tenant.id)
    answer = http.get("/v1/ledger/summary?currency=IDR&group_by=day&tz=Asia/Kathmandu", headers=tenant.headers)
    assert answer.status_code == 200, answer.get_json()
    with app.extensions["capsa"].db.engine.connect() as conn:
        kept = conn.execute(text("SELECT count(*) FROM ledger_rollups WHERE client_id = :c AND grouping = 'zoneday'"),
                            {"c": tenant.id}).scalar_one()
    assert kept >= 1
    code, out = cli_verify(app, tenant)
    assert code == 0 and out.startswith("ok: 3 records"), out
    sql(app, "UPDATE ledger_rollups SET net = net + 1 WHERE client_id = :c AND grouping = 'zoneday'"
             " AND key = (SELECT max(key) FROM ledger_rollups WHERE client_id = :c AND grouping = 'zoneday')",
        c=tenant.id)
    code, out = cli_verify(app, tenant)
    assert code == 1 and out.startswith("BAD: the all-time rollup IDR zoneday Asia/Kathmandu '"), out


def test_two_swapped_sequences_are_found_at_the_first(app, http):
    tenant, docs = _tampered(app, http)
    c = tenant.id
    sql(app, "UPDATE chain_records SET sequence = -1 WHERE client_id = :c AND sequence = 2", c=c)
    sql(app, "UPDATE chain_records SET sequence = 2 WHERE client_id = :c AND sequence = 4", c=c)
    sql(app, "UPDATE chain_records SET sequence = 4 WHERE client_id = :c AND sequence = -1", c=c)
    _assert_bad_at(app, http, tenant, 2)
    assert chain_verify(http, tenant, "?limit=1")["ok"]  # record 1 is still fine


# -- voids -------------------------------------------------------------------------------------------


def test_a_void_is_chained_reverses_the_lines_and_keeps_the_round_readable(http, tenant):
    doc = post_rounds(http, tenant, 1)[0]
    r = http.post(f"/v1/rounds/{doc['id']}/void", json={"reason": "dealer error"}, headers=tenant.headers)
    assert r.status_code == 200
    voided = r.get_json()
    assert voided["status"] == "void" and voided["void"]["reason"] == "dealer error"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", voided["void"]["at"])
    assert {k: v for k, v in voided.items() if k not in ("status", "void")} == {
        k: v for k, v in doc.items() if k not in ("status", "void")}
    again = http.get(f"/v1/rounds/{doc['id']}", headers=tenant.read_headers).get_json()
    assert again == voided
    import json

    record = json.loads(http.get("/v1/audit/records/2", headers=tenant.read_headers).get_json()["canonical"])
    assert record["kind"] == "void" and record["round"] == doc["id"]
    assert record["result"] == {"reason": "dealer error"} and record["created_at"] == voided["void"]["at"]
    assert [line["amount"] for line in record["ledger_lines"]] == ["-11000", "330", "11000", "-330"]
    assert {line["kind"] for line in record["ledger_lines"]} == {"reversal"}
    assert chain_verify(http, tenant)["records_checked"] == 2
    assert http.get(f"/v1/rounds/{doc['id']}/verify", headers=tenant.read_headers).get_json()["ok"]
    listed = http.get("/v1/rounds", headers=tenant.headers).get_json()["items"][0]
    assert listed["status"] == "void"


def test_voiding_twice_is_409_and_books_nothing(http, tenant):
    doc = post_rounds(http, tenant, 1)[0]
    assert http.post(f"/v1/rounds/{doc['id']}/void", json={"reason": "x"}, headers=tenant.headers).status_code == 200
    again = problem(http.post(f"/v1/rounds/{doc['id']}/void", json={"reason": "y"}, headers=tenant.headers), 409, "conflict")
    assert [e["field"] for e in again["errors"]] == ["path.round_id"]  # the route's {round_id}
    assert http.get("/v1/audit/head", headers=tenant.headers).get_json()["sequence"] == 2


def test_a_void_retried_with_its_idempotency_key_replays_the_first_200_and_voids_once(http, tenant, clock):
    doc = post_rounds(http, tenant, 1)[0]
    url = f"/v1/rounds/{doc['id']}/void"
    headers = {**tenant.headers, "Idempotency-Key": "void-1"}
    first = http.post(url, json={"reason": "dealer error"}, headers=headers)
    assert first.status_code == 200 and "Idempotent-Replayed" not in first.headers
    assert first.get_json()["status"] == "void" and first.get_json()["void"]["reason"] == "dealer error"
    clock.advance(seconds=30)  # the response was lost; the game server retries later
    again = http.post(url, json={"reason": "dealer error"}, headers=headers)
    assert again.status_code == 200, again.get_data(as_text=True)
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_data() == first.get_data()
    assert http.get("/v1/audit/head", headers=tenant.headers).get_json()["sequence"] == 2  # one void
    other = http.post(url, json={"reason": "another reason"}, headers=headers)
    assert [e["field"] for e in problem(other, 422, "idempotency-key-reused")["errors"]] == ["header.Idempotency-Key"]
    unkeyed = http.post(url, json={"reason": "dealer error"}, headers=tenant.headers)
    problem(unkeyed, 409, "conflict")  # without the key a second void is refused, as before


def test_void_needs_a_write_key_a_reason_and_a_round_of_this_client(http, tenant, other_tenant):
    doc = post_rounds(http, tenant, 1)[0]
    url = f"/v1/rounds/{doc['id']}/void"
    problem(http.post(url, json={"reason": "x"}, headers=tenant.read_headers), 403, "forbidden")
    problem(http.post(url, json={"reason": "x"}, headers=other_tenant.headers), 404, "not-found")
    problem(http.post(url, json={}, headers=tenant.headers), 422, "validation")
    problem(http.post(url, json={"reason": ""}, headers=tenant.headers), 422, "validation")
    problem(http.post(url, json={"reason": "x" * 501}, headers=tenant.headers), 422, "validation")
    # Spaces, a tab and a newline, an ideographic space; then what shows nothing at all: a
    # zero-width space, a byte order mark, a word joiner, a soft hyphen, Hangul fillers, a
    # variation selector, and a mix of them with a space.
    for blank in ("   ", "\t\n", "\u3000", "\u200b", "\ufeff", "\u2060", "\u00ad", "\u3164", "\u115f",
                  "\ufe0f", " \u200b\u00ad "):
        refused = problem(http.post(url, json={"reason": blank}, headers=tenant.headers), 422, "validation")
        assert [e["field"] for e in refused["errors"]] == ["reason"], repr(blank)
        assert "must say why: not only whitespace or characters that show nothing" in refused["errors"][0]["message"]
    assert http.get(f"/v1/rounds/{doc['id']}", headers=tenant.headers).get_json()["status"] == "settled"
    problem(http.post("/v1/rounds/rnd_nope/void", json={"reason": "x"}, headers=tenant.headers), 404, "not-found")
    problem(http.get(f"/v1/rounds/{doc['id']}/verify", headers=other_tenant.headers), 404, "not-found")


def test_a_void_reason_shows_as_it_is_stored_no_control_or_bidi_formatting_character(http, tenant):
    doc = post_rounds(http, tenant, 1)[0]
    url = f"/v1/rounds/{doc['id']}/void"
    # An override that shows "dealer error" for other text, a line of its own, an isolate, a mark.
    for reason, at in (("dealer \u202eorre rellaed", 7), ("dealer error\nsettled twice", 12),
                       ("\u2066x\u2069", 0), ("ok\u200f", 2), ("\x7f", 0),
                       ("dealer error\u2028settled twice", 12)):
        refused = problem(http.post(url, json={"reason": reason}, headers=tenant.headers), 422, "validation")
        assert refused["errors"] == [{"field": "reason", "message": (
            f"has U+{ord(reason[at]):04X} at position {at}: no control character (newlines and line separators included) and no "
            f"bidirectional formatting character is allowed: got {json.dumps(reason)}")}], reason  # escaped
    assert http.get(f"/v1/rounds/{doc['id']}", headers=tenant.headers).get_json()["status"] == "settled"
    # Right-to-left text and emoji joined by ZWJ are text, not formatting; so is a reason whose
    # letters carry a soft hyphen or a zero-width space between them.
    assert http.post(url, json={"reason": "deal\u00ader\u200b error"}, headers=tenant.headers).status_code == 200
    doc = post_rounds(http, tenant, 1)[0]
    url = f"/v1/rounds/{doc['id']}/void"
    reason = "\u062e\u0637\u0623 \u0627\u0644\u0645\u0648\u0632\u0639 \U0001f468\u200d\U0001f469\u200d\U0001f467"
    voided = http.post(url, json={"reason": reason}, headers=tenant.headers)
    assert voided.status_code == 200, voided.get_json()
    assert http.get(f"/v1/rounds/{doc['id']}", headers=tenant.headers).get_json()["void"]["reason"] == reason


def test_a_void_nets_to_zero_over_all_time_and_a_period_before_it_still_shows_the_round(http, tenant, clock):
    doc = post_rounds(http, tenant, 1)[0]
    clock.advance(milliseconds=5)
    between = http.post(f"/v1/rounds/{doc['id']}/void", json={"reason": "x"}, headers=tenant.headers)
    void_at = between.get_json()["void"]["at"]
    h = tenant.read_headers
    everything = http.get("/v1/ledger/players/a?currency=IDR", headers=h).get_json()
    as_of = {"sequence": 2, "at": void_at, "source": "primary"}  # the void is the head
    assert everything == {"player": "a", "currency": "IDR", "rounds": 0, "points": 0, "result": "0",
                          "winnings": "0", "fees": "0", "net": "0", "as_of": as_of}
    before = http.get(f"/v1/ledger/players/a?currency=IDR&until={void_at}", headers=h).get_json()
    assert before == {"player": "a", "currency": "IDR", "rounds": 1, "points": 11, "result": "11000",
                      "winnings": "11000", "fees": "330", "net": "10670", "as_of": as_of}
    after = http.get(f"/v1/ledger/players/a?currency=IDR&since={void_at}", headers=h).get_json()
    assert (after["rounds"], after["points"], after["net"]) == (-1, -11, "-10670")
    summary = http.get("/v1/ledger/summary?currency=IDR", headers=h).get_json()
    assert summary["house_fee"] == "0" and all(r["net"] == "0" for r in summary["rows"])
    assert http.get(f"/v1/ledger/summary?currency=IDR&until={void_at}", headers=h).get_json()["house_fee"] == "330"


# -- the database guard ----------------------------------------------------------------------------


def _unbalanced(tenant: Tenant) -> NewRecord:
    from service.services.clock import utcnow_ms

    return NewRecord(
        client_id=tenant.id, kind="void", round_id="rnd_unbalanced", created_at=utcnow_ms(),
        unsealed=b'{"kind":"void","sequence":', currency="IDR", table=None,
        lines=(LineRow("a", "reversal", "settlement", 100), LineRow("b", "reversal", "settlement", -99)),
    )


def test_the_database_refuses_a_record_whose_lines_do_not_sum_to_zero(app, tenant):
    db = app.extensions["capsa"].db
    post_rounds(app.test_client(), tenant, 1)
    with pytest.raises(CheckViolation) as refused, db.unit_of_work(write=True) as uow:
        uow.chain.append(_unbalanced(tenant))
        uow.commit()
    assert refused.value.constraint == "ledger_lines_balanced"
    with db.unit_of_work() as uow:
        assert uow.chain.head(tenant.id).sequence == 1
        assert uow.ledger.lines_of(tenant.id, 2) == []


def test_plain_sql_cannot_store_unbalanced_lines_either(app, tenant):
    from sqlalchemy.exc import IntegrityError

    post_rounds(app.test_client(), tenant, 1)
    engine = app.extensions["capsa"].db.engine
    line = ("INSERT INTO ledger_lines (client_id, sequence, line_no, created_at, kind, basis,"
            " amount, currency, points, winnings) VALUES (:c, 98, 0, :t, 'fee', 'fee', 5, 'IDR', 0, 0)")
    record = ("INSERT INTO chain_records (client_id, sequence, kind, round_id, previous_hash, hash, canonical)"
              " VALUES (:c, 98, 'void', 'rnd_forged', :h, :h, :b)")
    from service.services.clock import utcnow_ms

    with pytest.raises(IntegrityError, match="ledger_lines_balanced|sum to"):
        with engine.begin() as conn:
            # PostgreSQL refuses the lines at once; SQLite refuses the record they belong to.
            conn.execute(text(line), {"c": tenant.id, "t": utcnow_ms().replace(tzinfo=None)})
            conn.execute(text(record), {"c": tenant.id, "h": "0" * 64, "b": b"{}"})
    with engine.connect() as conn:
        # this tenant's: another test's client may well have a record 98 of its own
        assert conn.execute(text("SELECT count(*) FROM ledger_lines WHERE client_id = :c AND sequence = 98"),
                            {"c": tenant.id}).scalar() == 0


@pytest.mark.postgres
def test_postgresql_checks_balance_once_per_statement_not_once_per_line(app, tenant):
    if app.extensions["capsa"].db.engine.dialect.name != "postgresql":
        pytest.skip("the statement-level trigger is PostgreSQL's")
    with app.extensions["capsa"].db.engine.connect() as conn:
        triggers = dict(conn.execute(text(
            "SELECT tgname, tgtype FROM pg_trigger WHERE tgrelid = 'ledger_lines'::regclass AND NOT tgisinternal"
        )).all())
    assert set(triggers) == {"ledger_lines_balanced_insert", "ledger_lines_balanced_update",
                             "ledger_lines_balanced_delete"}
    assert all(not (tgtype & 1) for tgtype in triggers.values())  # bit 0 set = FOR EACH ROW


# -- concurrency -----------------------------------------------------------------------------------


@pytest.mark.postgres
def test_concurrent_rounds_of_one_client_give_a_gap_free_unforked_chain(app, http, tenant):
    if app.extensions["capsa"].db.engine.dialect.name != "postgresql":
        pytest.skip("SQLite serialises writers with BEGIN IMMEDIATE; the race is PostgreSQL's")
    results: list[int] = []
    errors: list[str] = []
    start = threading.Barrier(8)

    def worker() -> None:
        client = app.test_client()
        start.wait()
        for i in range(5):
            body = two_player_round() if i % 2 else four_player_round()
            r = client.post("/v1/rounds", json=body, headers=tenant.headers)
            if r.status_code != 201:
                errors.append(r.get_data(as_text=True))
            else:
                results.append(r.get_json()["audit"]["sequence"])

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sorted(results) == list(range(1, 41))
    assert chain_verify(http, tenant) == {"ok": True, "records_checked": 40, "first_bad_sequence": None,
                                          "reason": None, "next_from_sequence": None}


# -- the round view --------------------------------------------------------------------------------


def test_the_round_view_shows_every_players_cards_and_the_matrix(http, tenant):
    doc = post_rounds(http, tenant, 2)[1]  # the 4-player example
    r = http.post(f"/v1/rounds/{doc['id']}/view-link", headers=tenant.read_headers)
    assert r.status_code == 201
    link = r.get_json()
    assert link["url"].startswith("/view/rounds/") and tenant.key not in link["url"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", link["expires_at"])
    page = http.get(link["url"])
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    html = page.get_data(as_text=True)
    for player in doc["players"]:
        assert f'id="player-{player["id"]}"' in html
        for row in player["rows"].values():
            for card in row["cards"]:
                assert f'title="{card}"' in html
    assert 'id="matrix"' in html and "♥" in html and 'class="card red"' in html
    assert doc["house_fee"] in html and "pays" in html
    assert "http://" not in html and "https://" not in html  # nothing from a CDN


def test_a_voided_round_view_says_so(http, tenant):
    doc = post_rounds(http, tenant, 1)[0]
    http.post(f"/v1/rounds/{doc['id']}/void", json={"reason": "misdeal"}, headers=tenant.headers)
    url = http.post(f"/v1/rounds/{doc['id']}/view-link", headers=tenant.headers).get_json()["url"]
    assert "misdeal" in http.get(url).get_data(as_text=True)


def test_forged_expired_and_foreign_view_links_are_404_pages(app, http, tenant, other_tenant):
    doc = post_rounds(http, tenant, 1)[0]
    problem(http.post(f"/v1/rounds/{doc['id']}/view-link", headers=other_tenant.headers), 404, "not-found")
    url = http.post(f"/v1/rounds/{doc['id']}/view-link", headers=tenant.headers).get_json()["url"]
    token = url.rsplit("/", 1)[1]
    forged = token[:-2] + ("AA" if token[-2:] != "AA" else "BB")
    for bad in (forged, "nonsense", token + "x"):
        r = http.get(f"/view/rounds/{bad}")
        assert r.status_code == 404 and r.headers["Content-Type"].startswith("text/html")
    # A token signed with another secret (another deployment) names nothing here.
    other = viewlinks.ViewLinks("another secret").create(app.extensions["capsa"].db, tenant.id, doc["id"])
    assert http.get(other["url"]).status_code == 404
    # Expired: the same secret, a clock an hour and a bit later.
    signer = app.extensions["capsa_view_links"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(TimestampSigner, "get_timestamp", lambda self: int(time.time()) - 3700)
        old = signer.create(app.extensions["capsa"].db, tenant.id, doc["id"])
    assert http.get(old["url"]).status_code == 404
    # A validly signed token naming this round under another client shows nothing.
    foreign = signer._serializer.dumps([other_tenant.id, doc["id"]])
    assert http.get(f"/view/rounds/{foreign}").status_code == 404
    assert http.get(url).status_code == 200


def test_a_view_link_opens_until_its_expires_at_and_not_after_whatever_the_ttl_then(app, http, tenant, clock):
    """`expires_at` is when the link stops: a link made while VIEW_LINK_TTL was 2 s does
    not open again later under a longer TTL (a restart, another node), nor a moment after
    its `expires_at`."""
    doc = post_rounds(http, tenant, 1)[0]
    http.post(f"/v1/rounds/{doc['id']}/view-link", headers=tenant.headers)  # the signer, made on first use
    signer = app.extensions["capsa_view_links"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(signer, "ttl", 2)
        link = http.post(f"/v1/rounds/{doc['id']}/view-link", headers=tenant.headers).get_json()
    assert signer.ttl == 3600
    clock.advance(seconds=1.999)
    assert http.get(link["url"]).status_code == 200
    clock.advance(milliseconds=1)  # exactly its expires_at
    assert link["expires_at"] == rfc3339(utcnow_ms())
    assert http.get(link["url"]).status_code == 404


def test_view_links_share_one_secret_across_workers(app, db_url):
    """Two apps on one database, as two gunicorn workers are (each its own engine and pool):
    a link signed by one opens on the other, through the secret stored once."""
    from conftest import make_app

    tenant = make_tenant(app)
    doc = post_rounds(app.test_client(), tenant, 1)[0]
    link = app.test_client().post(f"/v1/rounds/{doc['id']}/view-link", json={}, headers=tenant.headers)
    assert link.status_code in (200, 201), link.get_data(as_text=True)
    other = make_app(db_url)
    try:
        page = other.test_client().get(link.get_json()["url"])
        assert page.status_code == 200, page.get_data(as_text=True)[:300]
        assert doc["id"] in page.get_data(as_text=True)
        assert viewlinks.stored_secret(other.extensions["capsa"].db) == viewlinks.stored_secret(
            app.extensions["capsa"].db)
    finally:
        other.extensions["capsa"].db.dispose()


def test_changed_stored_canonical_bytes_are_found_at_their_sequence(app, http):
    tenant, docs = _tampered(app, http)

    record = http.get("/v1/audit/records/3", headers=tenant.read_headers).get_json()
    forged = record["canonical"].replace('"kind":"round"', '"kind":"round" ').encode()
    sql(app, update(ChainRecord).where(ChainRecord.client_id == tenant.id, ChainRecord.sequence == 3)
        .values(canonical=forged))
    report = _assert_bad_at(app, http, tenant, 3)
    assert "hash" in report["reason"]
