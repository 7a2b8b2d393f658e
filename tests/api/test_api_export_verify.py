"""The offline verifier (`capsa audit verify-file`) on a real export: every way a file can be wrong.

The export is made once by the service (SQLite) with rounds of both games and a void; each
test damages a copy and checks the verifier names the first bad sequence and why.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from banting_scripts import BOMB_SCRIPT, FOUR
from conftest import make_app, make_tenant, migrated_sqlite
from httpkit import four_player_round
from hypothesis import given, settings
from hypothesis import strategies as st

from service.adapters import keyfile
from service.adapters.records import StoredRecord
from service.domain import export_check
from service.domain.audit import chain_hash
from service.domain.signing import Keyring, b64, head_message, receipt_message, unb64
from service.services.audit import receipts
from service.services.clock import utcnow_ms

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("export")
    url = migrated_sqlite(folder / "capsa.db")
    ring, _ = Keyring().rotated(utcnow_ms())
    keyfile.save(folder / "keys.json", ring)
    app = make_app(url, SIGNING_KEY_FILE=str(folder / "keys.json"))
    try:
        op = make_tenant(app)
        http = app.test_client()
        ids = []
        for _ in range(3):
            r = http.post("/v1/rounds", json=four_player_round(), headers=op.headers)
            assert r.status_code == 201
            ids.append(r.get_json()["id"])
        assert http.post(f"/v1/rounds/{ids[1]}/void", json={"reason": "misdeal"}, headers=op.headers).status_code == 200
        game = http.post("/v1/banting/games", json=_banting_game(), headers=op.headers)
        assert game.status_code == 201, game.get_json()
        _play_out(http, op, game.get_json())
        export = http.get("/v1/audit/export", headers=op.read_headers).data
        head = http.get("/v1/audit/head", headers=op.read_headers).data
        keys = http.get("/v1/audit/keys", headers=op.read_headers).data
    finally:
        app.extensions["capsa"].db.dispose()
    (folder / "export.ndjson").write_bytes(export)
    (folder / "head.json").write_bytes(head)
    (folder / "keys.public.json").write_bytes(keys)
    public = Keyring.from_json(json.loads(keys), public_only=True)
    return {"folder": folder, "export": export, "head": head, "public": public, "private": ring, "client": op.id}


def _banting_game() -> dict[str, Any]:
    return {"currency": "IDR", "stake": "1000",
            "players": [{"id": pid, "hand": hand.split()} for pid, hand in FOUR.items()]}


def _play_out(http: Any, op: Any, game: dict[str, Any]) -> None:
    for line in BOMB_SCRIPT:
        player, _, what = line.partition(":")
        what = what.strip()
        move = {"player": player.strip(), **({"pass": True} if what == "pass" else {"play": what.split()})}
        r = http.post(f"/v1/banting/games/{game['id']}/moves", json=move, headers=op.headers)
        assert r.status_code == 200, r.get_json()


def lines_of(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def check(made: dict[str, Any], data: bytes | list[bytes], heads: list[bytes] = (), rescore: bool = True) -> Any:
    lines = lines_of(data) if isinstance(data, bytes) else data
    parsed = [export_check.parse_head(h, made["public"], f"#{n}") for n, h in enumerate(heads, start=1)]
    return export_check.verify_lines(lines, made["public"], parsed, rescore=rescore)


def test_the_services_own_export_verifies_with_its_head(made):
    report = check(made, made["export"], [made["head"]])
    records = len(lines_of(made["export"]))
    assert report.ok, report
    assert report.records == records == 5 and report.rescored == 4 and report.heads_checked == 1
    assert report.last_sequence == json.loads(made["head"])["sequence"] == 5


def _position_sequences(data: bytes) -> list[int]:
    """The sequence of the line each byte belongs to (its newline included)."""
    out: list[int] = []
    for n, line in enumerate(lines_of(data), start=1):
        out += [n] * len(line)
    return out


def test_any_byte_flipped_is_reported_at_its_sequence(made):
    data = made["export"][: sum(len(x) for x in lines_of(made["export"])[:2])]  # two records: ~2 ms a check
    owner = _position_sequences(data)
    missed = []
    for i in range(len(data)):
        damaged = data[:i] + bytes([data[i] ^ 0x01]) + data[i + 1:]
        report = check(made, damaged, rescore=False)
        if report.ok or report.first_bad_sequence != owner[i]:
            missed.append((i, chr(data[i]), report.first_bad_sequence, report.reason))
    assert not missed, missed[:5]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_byte_replaced_by_any_other_is_reported_at_its_sequence(made, data):
    export = made["export"]
    i = data.draw(st.integers(0, len(export) - 1))
    value = data.draw(st.integers(0, 255).filter(lambda v: v != export[i]))
    report = check(made, export[:i] + bytes([value]) + export[i + 1:], rescore=False)
    assert not report.ok and report.first_bad_sequence == _position_sequences(export)[i], report


@pytest.mark.parametrize("edit", [
    lambda line: line.replace(b'"sequence":', b'"sequence": ', 1),  # a space
    lambda line: line.replace(b'{"format":', b'{ "format":', 1),
    lambda line: line.replace(b'"kind":', b'"kind":"void","kind":', 1),  # a key twice
    lambda line: line[:-1] + b"\r\n",  # CRLF
    lambda line: line[:-2] + b" }\n",  # a space before the closing brace
    lambda line: line.replace(b'"client_id":"c', b'"client_id":"\\u0063', 1),  # an escaped letter
    lambda line: line.replace(b'"sequence":2,"kind":"round",', b'"kind":"round","sequence":2,', 1),  # keys reordered
    lambda line: re.sub(rb'("signature":"[^"]+)"', rb'\1=="', line),  # the signature padded
], ids=["space", "space-first", "key-twice", "crlf", "space-end", "escape", "reordered", "padded"])
def test_a_byte_changed_outside_the_hashed_record_is_reported_at_its_line(made, edit):
    """The line's place (sequence, hashes, receipt) is read as JSON, which the same values
    can take other spellings of: each line must be as the export writes it, byte for byte,
    so any byte changed anywhere in a line is reported at its sequence."""
    lines = lines_of(made["export"])
    changed = edit(lines[1])
    assert changed != lines[1]
    report = check(made, b"".join([lines[0], changed, *lines[2:]]), rescore=False)
    assert not report.ok and report.first_bad_sequence == 2, report


def test_an_export_whose_line_endings_were_rewritten_says_so(made):
    """A copy through a tool that writes CRLF: the reason names the line endings, not the
    record's place on its line."""
    crlf = made["export"].replace(b"\n", b"\r\n")
    report = check(made, crlf, rescore=False)
    assert not report.ok and report.first_bad_sequence == 1
    assert "ends with CRLF (\\r\\n); an export's lines end with \\n alone" in report.reason, report.reason


def test_a_signed_head_with_a_padded_signature_is_refused(made):
    """Signatures are unpadded base64url: the same bytes padded are another head document."""
    padded = re.sub(rb'("signature":"[^"]+)"', rb'\1=="', made["head"])
    assert padded != made["head"]
    with pytest.raises(export_check.BadRecord, match="not unpadded base64url"):
        export_check.parse_head(padded, made["public"], "#1")


def test_a_reordered_line_is_reported_where_the_order_breaks(made):
    lines = lines_of(made["export"])
    report = check(made, [lines[0], lines[2], lines[1], *lines[3:]])
    assert (report.ok, report.first_bad_sequence) == (False, 2)
    assert report.reason == "sequence 2 is missing (found 3)"


def test_a_dropped_line_is_reported_as_the_missing_sequence(made):
    lines = lines_of(made["export"])
    report = check(made, [lines[0], *lines[2:]])
    assert (report.first_bad_sequence, report.reason) == (2, "sequence 2 is missing (found 3)")


def test_a_duplicated_line_is_reported_where_it_repeats(made):
    lines = lines_of(made["export"])
    report = check(made, [*lines[:2], lines[1], *lines[2:]])
    assert (report.first_bad_sequence, report.reason) == (3, "sequence 2 again where 3 should follow (repeated or moved)")


def _line(doc: dict[str, Any], body: bytes) -> bytes:
    """An export line as the service writes it: the place, then the record's bytes verbatim."""
    signature = None if doc["signature"] is None else unb64(doc["signature"])
    record = StoredRecord(doc["sequence"], doc["kind"], doc["round"], doc["previous_hash"], doc["hash"], body,
                          doc["kid"], signature)
    return receipts.export_line(doc["client_id"], record)


def _resign(line: bytes, ring: Keyring, **changes: Any) -> bytes:
    doc, body = json.loads(line), bytes(export_check.parse_line(line)[1])
    doc.update(changes)
    kid, sig = ring.sign(receipt_message(doc["client_id"], doc["sequence"], doc["hash"]))
    doc["kid"], doc["signature"] = kid, b64(sig)
    return _line(doc, body)


def test_a_receipt_signed_with_another_key_is_refused(made):
    lines = lines_of(made["export"])
    other, _ = Keyring().rotated(utcnow_ms())
    forged = _resign(lines[2], other)
    report = check(made, [*lines[:2], forged, *lines[3:]])
    assert report.first_bad_sequence == 3 and "is not among the public keys" in report.reason
    # The service's kid on another key's signature: the signature does not verify.
    doc = json.loads(forged)
    doc["kid"] = json.loads(lines[2])["kid"]
    report = check(made, [*lines[:2], _line(doc, bytes(export_check.parse_line(forged)[1])), *lines[3:]])
    assert report.first_bad_sequence == 3 and "does not verify" in report.reason


def test_a_truncated_file_is_reported_at_the_cut_record(made):
    data = made["export"]
    cut = sum(len(x) for x in lines_of(data)[:3]) + 100  # inside line 4
    report = check(made, data[:cut])
    assert report.first_bad_sequence == 4 and "truncated" in report.reason


def test_an_export_that_stops_before_the_signed_head_is_refused(made):
    lines = lines_of(made["export"])[:3]
    report = check(made, lines, [made["head"]])
    assert not report.ok and report.first_bad_sequence == 4
    assert report.reason.startswith("the export ends at sequence 3 and does not reach signed head #1")


def _head(made: dict[str, Any], sequence: int, hash_: str) -> bytes:
    signed_at = "2026-12-01T12:00:00.000Z"
    kid, sig = made["private"].sign(head_message(made["client"], sequence, hash_, signed_at))
    return orjson.dumps({"client_id": made["client"], "sequence": sequence, "hash": hash_, "created_at": None,
                         "signed_at": signed_at, "kid": kid, "signature": b64(sig)})


def test_two_signed_heads_of_a_forked_chain_are_a_fork(made):
    lines = lines_of(made["export"])
    real = json.loads(lines[1])["hash"]
    forked = chain_hash(json.loads(lines[0])["hash"], b'{"kind":"round","sequence":2}')
    both = [_head(made, 2, real), _head(made, 2, forked)]
    report = check(made, made["export"], both)
    assert not report.ok and report.reason.startswith("fork: signed heads #1 and #2 both sign sequence 2")
    # A head the export does not pass through: the export is of another chain than that head's.
    report = check(made, made["export"], [made["head"], _head(made, 2, forked)])
    assert not report.ok and report.first_bad_sequence == 2 and report.reason.startswith("fork: signed head #2")


def _rechain(made: dict[str, Any], lines: list[bytes], at: int, edit: Any) -> list[bytes]:
    """What a service that controls its database and key could write: record `at` edited,
    every later record re-linked, re-hashed and re-signed."""

    def edited(record: dict[str, Any]) -> bytes:
        edit(record)
        return orjson.dumps(record, option=orjson.OPT_SORT_KEYS)

    return _rechained(made, at, edited, lines)


def test_a_consistently_rewritten_result_is_caught_by_re_scoring(made):
    def more_points(record: dict[str, Any]) -> None:
        record["result"]["players"][0]["points"] += 1

    report = check(made, _rechain(made, lines_of(made["export"]), 1, more_points))
    assert (report.first_bad_sequence, report.reason) == (
        1, "re-scored, result.players[0].points is 49, the record says 50")


def test_ledger_lines_that_balance_but_are_not_the_settlement_are_caught(made):
    def shift(record: dict[str, Any]) -> None:
        lines = record["ledger_lines"]
        lines[0]["amount"] = str(int(lines[0]["amount"]) + 100)
        lines[-1]["amount"] = str(int(lines[-1]["amount"]) - 100)

    report = check(made, _rechain(made, lines_of(made["export"]), 3, shift))
    assert (report.first_bad_sequence, report.reason) == (3, "the ledger lines are not the settlement of the result")


def test_ledger_lines_that_do_not_sum_to_zero_are_caught(made):
    def unbalance(record: dict[str, Any]) -> None:
        record["ledger_lines"][0]["amount"] = str(int(record["ledger_lines"][0]["amount"]) + 1)

    report = check(made, _rechain(made, lines_of(made["export"]), 2, unbalance))
    assert (report.first_bad_sequence, report.reason) == (2, "the ledger lines sum to 1 minor units, not 0")


def test_a_void_that_does_not_reverse_its_round_is_caught(made):
    void_at = next(json.loads(x)["sequence"] for x in lines_of(made["export"]) if json.loads(x)["kind"] == "void")

    def swap(record: dict[str, Any]) -> None:
        a, b = record["ledger_lines"][0], record["ledger_lines"][1]
        a["amount"], b["amount"] = b["amount"], a["amount"]

    report = check(made, _rechain(made, lines_of(made["export"]), void_at, swap))
    assert report.first_bad_sequence == void_at
    assert report.reason == "the void's lines are not the negation of its round's lines"


def test_verify_file_runs_offline_and_exits_1_at_the_first_bad_sequence(made, tmp_path):
    folder = made["folder"]
    cmd = [sys.executable, "-m", "service.cli", "audit", "verify-file", str(folder / "export.ndjson"),
           "--public-keys", str(folder / "keys.public.json"), "--head", str(folder / "head.json"), "--progress"]
    env = {"PATH": "/usr/bin:/bin", "DATABASE_URL": "postgresql+psycopg://nobody@127.0.0.1:1/none"}
    ok = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("ok: 5 records of ") and "4 rounds re-scored; 1 signed heads reached" in ok.stdout
    assert ok.stderr.strip().endswith("MiB (5 records)")  # --progress: one line per 10,000 records, and the last
    lines = lines_of(made["export"])
    (tmp_path / "bad.ndjson").write_bytes(b"".join([lines[0], *lines[2:]]))
    cmd[5] = str(tmp_path / "bad.ndjson")
    bad = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert bad.returncode == 1
    assert bad.stdout.strip() == "BAD: first bad sequence 2: sequence 2 is missing (found 3) (1 records verified before it)"


def test_verify_file_with_a_client_id_refuses_another_clients_sound_export(made, capsys):
    """Without a head, any one client's sound export passed: an auditor handed another
    client's export was told ok."""
    from service import cli

    folder = made["folder"]
    argv = ["audit", "verify-file", str(folder / "export.ndjson"), "--public-keys", str(folder / "keys.public.json")]
    assert cli.main([*argv, "--client-id", made["client"]]) == 0
    assert capsys.readouterr().out.startswith(f"ok: 5 records of {made['client']}")
    assert cli.main([*argv, "--client-id", "cl_someone_else"]) == 1
    assert capsys.readouterr().out == (
        f"BAD: the export is of client {made['client']}, not cl_someone_else (5 records verified)\n")


# -- a key's time, the record's form, what no version of the service wrote ---------------------


def _public(ring: Keyring) -> Keyring:
    return Keyring.from_json(ring.public_json(), public_only=True)


def test_a_key_retired_before_a_record_or_a_head_does_not_sign_it(made):
    """A retired key, leaked, could sign records and heads dated after its retirement: the
    verifier took any key of the keyring. A key signs what is dated from its making (the
    oldest also what is older than every key) until its retirement and a grace of 10
    minutes while nodes restart onto the new key."""
    from datetime import timedelta

    from service.domain.signing import ROTATION_GRACE

    old = made["private"]
    made_at = utcnow_ms()
    retired_early, _ = old.rotated(made_at - ROTATION_GRACE - timedelta(hours=1))  # K1 retired before every record
    report = export_check.verify_lines(lines_of(made["export"]), _public(retired_early))
    assert report.first_bad_sequence == 1 and "does not sign records of" in report.reason
    with pytest.raises(export_check.BadRecord, match="which did not sign at"):
        export_check.parse_head(made["head"], _public(retired_early), "#1")
    within_grace, _ = old.rotated(made_at - ROTATION_GRACE + timedelta(minutes=5))
    assert export_check.verify_lines(lines_of(made["export"]), _public(within_grace)).ok  # nodes restarting
    later, new = old.rotated(made_at + timedelta(hours=1))  # K2 made after the records
    assert export_check.verify_lines(lines_of(made["export"]), _public(later)).ok
    lines = lines_of(made["export"])
    forged = _resign(lines[2], later)  # a record re-signed with the key made after it
    report = export_check.verify_lines([*lines[:2], forged, *lines[3:]], _public(later))
    assert report.first_bad_sequence == 3 and f"{new.kid!r}" in report.reason and "does not sign" in report.reason


def _rechained(made: dict[str, Any], at: int, body_of: Any, lines: list[bytes] | None = None) -> list[bytes]:
    """Record `at`'s bytes made by `body_of(record)`, every record from it re-linked,
    re-hashed and re-signed (a key holder's rewrite); of `lines`, else the export."""
    lines = lines_of(made["export"]) if lines is None else lines
    out = list(lines[: at - 1])
    previous = json.loads(out[-1])["hash"] if out else "0" * 64
    for raw in lines[at - 1:]:
        doc = json.loads(raw)
        record = doc["record"]
        body = body_of(record) if doc["sequence"] == at else orjson.dumps(record, option=orjson.OPT_SORT_KEYS)
        doc["previous_hash"] = previous
        doc["hash"] = previous = chain_hash(previous, body)
        kid, sig = made["private"].sign(receipt_message(doc["client_id"], doc["sequence"], doc["hash"]))
        doc["kid"], doc["signature"] = kid, b64(sig)
        out.append(_line(doc, body))
    return out


@pytest.mark.parametrize(("body_of", "reason"), [
    (lambda r: json.dumps(r, sort_keys=True, indent=1).encode(), "not its canonical JSON"),
    (lambda r: json.dumps(r).encode(), "not its canonical JSON"),  # keys out of order, spaces
    (lambda r: orjson.dumps(r, option=orjson.OPT_SORT_KEYS)[:-1] + b',"result":{}}', "not its canonical JSON"),
    (lambda r: orjson.dumps({**r, "sequence": 2.0}, option=orjson.OPT_SORT_KEYS), "holds the number 2.0"),
    # What orjson writes as it reads it, but RFC 8785 (or a record) would not: a float, an
    # integer no JSON reader holds exactly, keys beyond the BMP out of UTF-16 order.
    (lambda r: orjson.dumps({**r, "zz": 1.0}, option=orjson.OPT_SORT_KEYS), "holds the number 1.0"),
    (lambda r: orjson.dumps({**r, "zz": -0.0}, option=orjson.OPT_SORT_KEYS), "holds the number -0.0"),
    (lambda r: orjson.dumps({**r, "zz": 0.5}, option=orjson.OPT_SORT_KEYS), "holds the number 0.5"),
    (lambda r: orjson.dumps({**r, "zz": 2**53}, option=orjson.OPT_SORT_KEYS), "holds the number 9007199254740992"),
    (lambda r: orjson.dumps({**r, "zz": 2**64 - 1}, option=orjson.OPT_SORT_KEYS), "holds the number 18446744073709551615"),
    (lambda r: orjson.dumps({**r, "zz": -(2**63)}, option=orjson.OPT_SORT_KEYS), "holds the number -9223372036854775808"),
    (lambda r: orjson.dumps({**r, "zz": {"\uffff": 1, "\U0001f600": 2}}, option=orjson.OPT_SORT_KEYS), "not its canonical JSON"),
])
def test_record_bytes_that_are_not_what_the_service_writes_are_refused(made, body_of, reason):
    """Bytes that hash and sign but are not the record's RFC 8785 form: a reader taking the
    first of two `result` keys sees another round than one taking the last."""
    report = check(made, _rechained(made, 2, body_of))
    assert report.first_bad_sequence == 2 and reason in report.reason


def test_a_record_in_rfc_8785_order_beyond_the_bmp_verifies(made):
    """Keys beyond the BMP in UTF-16 order, as RFC 8785 sorts them, are canonical."""
    body_of = lambda r: b'{"0":{"\xf0\x9f\x98\x80":2,"\xef\xbf\xbf":1},' + orjson.dumps(r, option=orjson.OPT_SORT_KEYS)[1:]  # noqa: E731
    report = check(made, _rechained(made, 2, body_of))
    assert report.ok, report


@pytest.mark.parametrize(("void_of", "reason"), [
    (lambda v: {**v, "request": {}, "result": {}}, 'the void\'s request is {}, not {"reason": ...}'),
    (lambda v: {**v, "request": {"reason": "x", "players": []}, "result": {"reason": "x", "players": []}},
     'the void\'s request is {"players": [], "reason": "x"}, not {"reason": ...}'),
    (lambda v: {**v, "request": {"reason": 5}, "result": {"reason": 5}}, 'the void\'s request is {"reason": 5}'),
    (lambda v: {**v, "result": {"reason": "other"}},
     'the void\'s result is {"reason": "other"}, not its request {"reason": "misdeal"}'),
])
def test_a_void_whose_request_and_result_are_not_its_reason_is_refused(made, void_of, reason):
    void_at = next(json.loads(x)["sequence"] for x in lines_of(made["export"]) if json.loads(x)["kind"] == "void")
    report = check(made, _rechained(made, void_at, lambda r: orjson.dumps(void_of(r), option=orjson.OPT_SORT_KEYS)))
    assert report.first_bad_sequence == void_at and reason in report.reason, report.reason


def test_a_request_no_version_of_the_service_stored_is_a_bad_record_not_a_traceback(made):
    lines = lines_of(made["export"])
    game_at = next(json.loads(x)["sequence"] for x in lines if json.loads(x)["record"]["result"].get("game") == "banting")

    def no_moves(record: dict[str, Any]) -> bytes:
        record["request"]["moves"] = None
        return orjson.dumps(record, option=orjson.OPT_SORT_KEYS)

    report = check(made, _rechained(made, game_at, no_moves))
    assert report.first_bad_sequence == game_at and "cannot be scored: TypeError" in report.reason


def test_a_partial_export_whose_first_previous_hash_is_not_a_hash_is_refused(made):
    lines = lines_of(made["export"])[2:]
    doc = json.loads(lines[0])
    doc["previous_hash"] = "é" * 64
    body = bytes(export_check.parse_line(lines[0])[1])
    report = export_check.verify_lines([_line(doc, body), *lines[1:]], made["public"], partial=True)
    assert report.first_bad_sequence == 3 and "not a SHA-256 hash" in report.reason
