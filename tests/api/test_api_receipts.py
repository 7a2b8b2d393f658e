"""Receipts, signed heads, the public keys and the export over HTTP, on both engines."""

from __future__ import annotations

import base64
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import TAMPERED, make_app, make_tenant
from httpkit import four_player_round, problem
from sqlalchemy import delete, select, update

from service.adapters import keyfile
from service.adapters.models import ChainRecord, ChainSignature
from service.domain import export_check
from service.domain.audit import GENESIS_HASH, chain_hash
from service.domain.signing import Keyring, head_message, receipt_message
from service.services.clock import utcnow_ms


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@pytest.fixture(scope="module")
def key_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("keys") / "signing.json"
    ring, _ = Keyring().rotated(utcnow_ms())
    keyfile.save(path, ring)
    return path


@pytest.fixture(scope="module")
def signed_app(db_url: str, key_file: Path) -> Iterator[Any]:
    app = make_app(db_url, SIGNING_KEY_FILE=str(key_file))
    yield app
    app.extensions["capsa"].db.dispose()


@pytest.fixture
def client(signed_app: Any) -> Any:
    return signed_app.test_client()


@pytest.fixture
def op(signed_app: Any) -> Any:
    return make_tenant(signed_app)


def _keys(client: Any, op: Any) -> Keyring:
    return Keyring.from_json(client.get("/v1/audit/keys", headers=op.read_headers).get_json(), public_only=True)


def _store(client: Any, op: Any, n: int = 1, body: Any = None, **headers: str) -> list[Any]:
    out = []
    for _ in range(n):
        r = client.post("/v1/rounds", json=body or four_player_round(), headers={**op.headers, **headers})
        assert r.status_code == 201, r.get_json()
        out.append(r)
    return out


def _stored_receipts(app: Any, client_id: str) -> list[tuple[int, str, bytes]]:
    """The receipts in the table (a plain read: nothing is remade)."""
    with app.extensions["capsa"].db.unit_of_work() as uow:
        rows = uow.session.execute(
            select(ChainSignature.sequence, ChainSignature.kid, ChainSignature.signature)
            .where(ChainSignature.client_id == client_id)
            .order_by(ChainSignature.sequence)
        ).all()
    return [(n, k, bytes(s)) for n, k, s in rows]


def _receipt(created: Any) -> tuple[int, str, bytes]:
    audit = created.get_json()["audit"]
    return audit["sequence"], audit["kid"], _unb64(audit["signature"])


@pytest.fixture
def waiting(signed_app: Any) -> Iterator[Any]:
    """The app's waiting receipts, with the timer held off (only a next write stores them)."""
    pending = signed_app.extensions["capsa"].db.receipts
    pending.drain()
    before, pending.flush_after_s = pending.flush_after_s, 3600.0
    yield pending
    pending.flush_after_s = before
    # Its timer may be asleep for the hour set above (a timed wait is not woken by a new
    # receipt): stopped, the next receipt starts one with the setting restored.
    pending.close()


def test_every_stored_round_carries_a_receipt_that_verifies_over_the_documented_message(
    signed_app, client, op, key_file
):
    (created,) = _store(client, op)
    audit = created.get_json()["audit"]
    ring = _keys(client, op)
    message = f"capsa-audit-v1\n{op.id}\n{audit['sequence']}\n{audit['hash']}\n".encode()
    assert message == receipt_message(op.id, audit["sequence"], audit["hash"])
    assert audit["kid"] == ring.keys[-1].kid == keyfile.load(key_file).active.kid
    assert ring.verify(audit["kid"], message, _unb64(audit["signature"]))
    assert not ring.verify(audit["kid"], message.replace(b"v1", b"v2"), _unb64(audit["signature"]))


def test_a_receipt_is_stored_by_the_next_write_on_postgresql_and_with_its_record_on_sqlite(
    signed_app, client, op, waiting
):
    (first,) = _store(client, op)
    if signed_app.extensions["capsa"].db.dialect == "postgresql":
        # Signed once PostgreSQL returned the hash: it waits for this worker's next write.
        assert _stored_receipts(signed_app, op.id) == []
        assert len(waiting) == 1
    else:
        assert _stored_receipts(signed_app, op.id) == [_receipt(first)]
    other = make_tenant(signed_app)  # the next write may be another client's: it carries it
    (second,) = _store(client, other, **{"Idempotency-Key": "carrier-1"})
    assert _stored_receipts(signed_app, op.id) == [_receipt(first)]
    if signed_app.extensions["capsa"].db.dialect == "postgresql":
        assert _stored_receipts(signed_app, other.id) == [] and len(waiting) == 1
        waiting.drain()  # what the timer, a worker's exit or dispose does
    assert _stored_receipts(signed_app, other.id) == [_receipt(second)]
    assert len(waiting) == 0


def test_a_refused_write_keeps_the_receipts_it_carried_for_the_next(signed_app, client, op, waiting):
    body = four_player_round()
    (first,) = _store(client, op, body=body, **{"Idempotency-Key": "refused-1"})
    other = four_player_round()
    other["stake"] = "2000"
    refused = client.post("/v1/rounds", json=other, headers={**op.headers, "Idempotency-Key": "refused-1"})
    assert refused.status_code == 422
    if signed_app.extensions["capsa"].db.dialect == "postgresql":
        assert _stored_receipts(signed_app, op.id) == [] and len(waiting) == 1
    (second,) = _store(client, op)
    assert _stored_receipts(signed_app, op.id)[:1] == [_receipt(first)]


def test_an_idle_workers_receipts_are_stored_by_the_timer(signed_app, client, op):
    pending = signed_app.extensions["capsa"].db.receipts
    before, pending.flush_after_s = pending.flush_after_s, 0.05
    try:
        (created,) = _store(client, op)
        deadline = time.monotonic() + 10
        while not _stored_receipts(signed_app, op.id) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _stored_receipts(signed_app, op.id) == [_receipt(created)]
        assert len(pending) == 0
    finally:
        pending.flush_after_s = before


def test_a_receipt_lost_with_its_worker_before_the_next_write_is_remade_byte_for_byte(
    signed_app, client, op, waiting
):
    (created,) = _store(client, op)
    if signed_app.extensions["capsa"].db.dialect == "postgresql":
        assert waiting.discard() == 1  # what a worker killed before its next write loses
    else:  # stored with its record: lost only with the table's row
        with signed_app.extensions["capsa"].db.unit_of_work(write=True) as uow:
            uow.session.execute(delete(ChainSignature).where(ChainSignature.client_id == op.id))
            uow.commit()
    assert _stored_receipts(signed_app, op.id) == []
    assert client.get(f"/v1/rounds/{created.get_json()['id']}", headers=op.read_headers).data == created.data
    assert _stored_receipts(signed_app, op.id) == [_receipt(created)]  # remade on first read, and stored


def test_get_replay_and_record_answer_the_same_receipt_byte_for_byte(client, op):
    body = four_player_round()
    (created,) = _store(client, op, body=body, **{"Idempotency-Key": "receipt-1"})
    replay = client.post("/v1/rounds", json=body, headers={**op.headers, "Idempotency-Key": "receipt-1"})
    assert replay.headers["Idempotent-Replayed"] == "true"
    doc = created.get_json()
    got = client.get(f"/v1/rounds/{doc['id']}", headers=op.read_headers)
    assert replay.data == created.data == got.data
    record = client.get(f"/v1/audit/records/{doc['audit']['sequence']}", headers=op.read_headers).get_json()
    assert (record["kid"], record["signature"]) == (doc["audit"]["kid"], doc["audit"]["signature"])


def test_a_void_answers_its_own_records_receipt_and_get_shows_it_too(client, op):
    (created,) = _store(client, op)
    doc = created.get_json()
    voided = client.post(f"/v1/rounds/{doc['id']}/void", json={"reason": "dealer error"}, headers=op.headers)
    assert voided.status_code == 200
    void = voided.get_json()["void"]
    assert void["audit"]["sequence"] == doc["audit"]["sequence"] + 1
    assert void["audit"]["previous_hash"] == doc["audit"]["hash"]
    ring = _keys(client, op)
    assert ring.verify(
        void["audit"]["kid"],
        receipt_message(op.id, void["audit"]["sequence"], void["audit"]["hash"]),
        _unb64(void["audit"]["signature"]),
    )
    assert voided.get_json()["audit"] == doc["audit"]  # the round's own receipt is unchanged
    assert client.get(f"/v1/rounds/{doc['id']}", headers=op.read_headers).data == voided.data


def test_the_head_is_signed_over_the_documented_message_and_names_the_client(client, op):
    empty = client.get("/v1/audit/head", headers=op.read_headers).get_json()
    assert (empty["client_id"], empty["sequence"], empty["hash"]) == (op.id, 0, GENESIS_HASH)
    _store(client, op, 2)
    head = client.get("/v1/audit/head", headers=op.read_headers).get_json()
    assert head["sequence"] == 2
    message = f"capsa-head-v1\n{op.id}\n2\n{head['hash']}\n{head['signed_at']}\n".encode()
    assert message == head_message(op.id, 2, head["hash"], head["signed_at"])
    assert _keys(client, op).verify(head["kid"], message, _unb64(head["signature"]))


def test_a_rotation_keeps_old_receipts_byte_identical_and_verifying(db_url, key_file, tmp_path):
    rotated = tmp_path / "rotated.json"
    old = keyfile.load(key_file)
    ring, new = old.rotated(utcnow_ms())
    keyfile.save(rotated, ring)
    before_app = make_app(db_url, SIGNING_KEY_FILE=str(key_file))
    after_app = make_app(db_url, SIGNING_KEY_FILE=str(rotated))
    try:
        op = make_tenant(before_app)
        before = before_app.test_client()
        (created,) = _store(before, op)
        # Stored by the old worker (its next write, its timer or its exit). A worker killed
        # during a rotation before storing it leaves a receipt remade with the new key.
        before_app.extensions["capsa"].db.receipts.drain()
        after = after_app.test_client()
        got = after.get(f"/v1/rounds/{created.get_json()['id']}", headers=op.read_headers)
        assert got.data == created.data
        (later,) = _store(after, op)
        assert later.get_json()["audit"]["kid"] == new.kid != created.get_json()["audit"]["kid"]
        keys = after.get("/v1/audit/keys", headers=op.read_headers).get_json()["keys"]
        assert [k["kid"] for k in keys] == [old.active.kid, new.kid]
        assert keys[0]["retired_at"] is not None and keys[1]["retired_at"] is None
        assert "private_key" not in json.dumps(keys)
        public = Keyring.from_json({"keys": keys}, public_only=True)
        audit = created.get_json()["audit"]
        assert public.verify(audit["kid"], receipt_message(op.id, audit["sequence"], audit["hash"]),
                             _unb64(audit["signature"]))
    finally:
        before_app.extensions["capsa"].db.dispose()
        after_app.extensions["capsa"].db.dispose()


def test_records_stored_without_a_key_are_signed_on_first_read_with_the_oldest_key(db_url, key_file):
    unsigned_app = make_app(db_url)
    try:
        op = make_tenant(unsigned_app)
        (created,) = _store(unsigned_app.test_client(), op)
    finally:
        unsigned_app.extensions["capsa"].db.dispose()
    assert created.get_json()["audit"]["kid"] is None and created.get_json()["audit"]["signature"] is None
    signed_app = make_app(db_url, SIGNING_KEY_FILE=str(key_file))
    try:
        client = signed_app.test_client()
        first = client.get(f"/v1/rounds/{created.get_json()['id']}", headers=op.read_headers).get_json()["audit"]
        ring = keyfile.load(key_file)
        assert first["kid"] == ring.keys[0].kid
        assert ring.verify(first["kid"], receipt_message(op.id, first["sequence"], first["hash"]),
                           _unb64(first["signature"]))
        again = client.get(f"/v1/rounds/{created.get_json()['id']}", headers=op.read_headers).get_json()["audit"]
        assert again == first
    finally:
        signed_app.extensions["capsa"].db.dispose()


def test_a_service_without_a_key_does_not_parse_its_records_for_their_time(db_url, monkeypatch):
    # The webhook dispatcher renders every event through this path: a keyless deployment
    # parsed each record a second time (about 40 us a 4-player round) to look for receipts
    # it could never make.
    from service.adapters import signatures

    unsigned_app = make_app(db_url)
    try:
        op = make_tenant(unsigned_app)
        client = unsigned_app.test_client()
        (created,) = _store(client, op)
        read = []
        monkeypatch.setattr(signatures, "known_record_time", lambda canonical: read.append(canonical) or utcnow_ms())
        again = client.get(f"/v1/rounds/{created.get_json()['id']}", headers=op.read_headers)
        assert again.status_code == 200 and again.get_json()["audit"]["signature"] is None
        assert read == []
    finally:
        unsigned_app.extensions["capsa"].db.dispose()


def test_an_event_read_before_its_receipt_and_after_differs_only_in_the_receipt(db_url, key_file):
    """docs/webhooks.md: an event first sent without its round's receipt (stored before the
    service had a key) carries it later; every other byte is the same."""
    unsigned_app = make_app(db_url)
    try:
        op = make_tenant(unsigned_app)
        (created,) = _store(unsigned_app.test_client(), op)
        event = f"/v1/events/evt_{created.get_json()['id'].removeprefix('rnd_')}_settled"
        before = unsigned_app.test_client().get(event, headers=op.read_headers).get_json()
    finally:
        unsigned_app.extensions["capsa"].db.dispose()
    signed = make_app(db_url, SIGNING_KEY_FILE=str(key_file))
    try:
        after = signed.test_client().get(event, headers=op.read_headers).get_json()
    finally:
        signed.extensions["capsa"].db.dispose()
    assert (before["data"]["audit"]["kid"], before["data"]["audit"]["signature"]) == (None, None)
    assert after["data"]["audit"]["kid"] == keyfile.load(key_file).keys[0].kid
    for doc in (before, after):
        doc["data"]["audit"].pop("kid")
        doc["data"]["audit"].pop("signature")
    assert before == after


def test_a_receipt_whose_write_was_lost_is_remade_byte_for_byte(signed_app, client, op):
    (created,) = _store(client, op)
    audit = created.get_json()["audit"]
    with signed_app.extensions["capsa"].db.unit_of_work(write=True) as uow:
        uow.session.execute(
            delete(ChainSignature).where(ChainSignature.client_id == op.id, ChainSignature.sequence == audit["sequence"])
        )
        uow.commit()
    assert client.get(f"/v1/rounds/{created.get_json()['id']}", headers=op.read_headers).data == created.data


def test_the_export_streams_one_record_a_line_and_says_where_to_continue(client, op):
    _store(client, op, 5)
    first = client.get("/v1/audit/export?limit=2", headers=op.read_headers)
    assert first.status_code == 200 and first.content_type == "application/x-ndjson"
    assert first.headers["Capsa-Next-From-Sequence"] == "3" and first.headers["Capsa-Head-Sequence"] == "5"
    assert first.headers["Link"] == '</v1/audit/export?from_sequence=3&limit=2>; rel="next"'
    lines = first.data.splitlines(keepends=True)
    assert [json.loads(x)["sequence"] for x in lines] == [1, 2]
    rest = client.get("/v1/audit/export?from_sequence=3&limit=10", headers=op.read_headers)
    assert "Capsa-Next-From-Sequence" not in rest.headers and "Link" not in rest.headers
    lines += rest.data.splitlines(keepends=True)
    previous = GENESIS_HASH
    for n, raw in enumerate(lines, start=1):
        line = json.loads(raw)
        body = raw[raw.index(b',"record":') + len(b',"record":') : -2]  # the bytes, verbatim
        assert line["sequence"] == n and line["previous_hash"] == previous and line["client_id"] == op.id
        assert chain_hash(previous, body) == line["hash"] and line["record"]["sequence"] == n
        record = client.get(f"/v1/audit/records/{n}", headers=op.read_headers).get_json()
        assert record["canonical"].encode() == body and record["signature"] == line["signature"]
        previous = line["hash"]
    head = client.get("/v1/audit/head", headers=op.read_headers).data
    ring = _keys(client, op)
    report = export_check.verify_lines(lines, ring, [export_check.parse_head(head, ring, "now")])
    assert report.ok and report.records == 5 and report.rescored == 5 and report.heads_checked == 1


def test_an_export_answer_stops_at_its_byte_budget_and_says_where_to_continue(client, op, monkeypatch):
    # Records are up to a request's size each: 50,000 of them could be gigabytes, past the
    # temp file nginx buffers an answer in, and then the answer goes at a slow reader's pace
    # until the worker is stopped mid-answer. An answer stops at its bytes as at its limit.
    from service.services.audit import receipts

    _store(client, op, 5)
    whole = client.get("/v1/audit/export", headers=op.read_headers).data.splitlines(keepends=True)
    sizes = [len(x) for x in whole]
    assert max(sizes) - min(sizes) < 100  # five records alike: the budget below takes one a time
    monkeypatch.setattr(receipts, "EXPORT_MAX_BYTES", 2 * min(sizes) - 1)
    got, start, answers = [], 1, []
    while True:
        answer = client.get(f"/v1/audit/export?from_sequence={start}&limit=10", headers=op.read_headers)
        assert answer.status_code == 200 and len(answer.data) <= receipts.EXPORT_MAX_BYTES
        got += answer.data.splitlines(keepends=True)
        answers.append(answer.headers.get("Capsa-Next-From-Sequence"))
        if "Capsa-Next-From-Sequence" not in answer.headers:
            break
        assert answer.headers["Link"] == f'</v1/audit/export?from_sequence={answer.headers["Capsa-Next-From-Sequence"]}&limit=10>; rel="next"'
        start = int(answer.headers["Capsa-Next-From-Sequence"])
    assert got == whole and answers == ["2", "3", "4", "5", None]
    monkeypatch.setattr(receipts, "EXPORT_MAX_BYTES", 1)  # a line over the budget still goes, alone
    assert client.get("/v1/audit/export?from_sequence=3", headers=op.read_headers).data == whole[2]


def test_an_export_lines_bytes_past_its_record_are_within_the_bound_the_budget_counts():
    from service.adapters.records import StoredRecord
    from service.services.audit import receipts

    longest = StoredRecord(
        sequence=2**63 - 1, kind="void", round_id="rnd_" + "Z" * 26, previous_hash="f" * 64, hash="f" * 64,
        canonical=b"{}", kid="f" * 16, signature=b"\xff" * 64,
    )
    line = receipts.export_line("cl_" + "Z" * 26, longest)
    assert len(line) - len(b"{}") <= receipts.EXPORT_LINE_MAX_EXTRA


def test_an_export_past_the_head_is_empty_and_another_clients_records_never_appear(client, op, signed_app):
    _store(client, op, 1)
    other = make_tenant(signed_app)
    assert client.get("/v1/audit/export?from_sequence=2", headers=op.read_headers).data == b""
    assert client.get("/v1/audit/export", headers=other.read_headers).data == b""


@pytest.mark.parametrize(
    ("query", "field"),
    [("limit=0", "limit"), ("limit=50001", "limit"), ("from_sequence=0", "from_sequence"), ("limit=x", "limit")],
)
def test_export_refuses_a_bad_range_naming_the_field(client, op, query, field):
    body = problem(client.get(f"/v1/audit/export?{query}", headers=op.read_headers), 422, "validation")
    assert any(field in e["field"] for e in body["errors"])


def test_tampered_receipts_are_found_by_the_offline_verifier(signed_app, client, op):
    """A signature rewritten in the database with another key is not the service's receipt."""
    TAMPERED.add(op.id)
    _store(client, op, 2)
    signed_app.extensions["capsa"].db.receipts.drain()  # stored, as the timer would
    other, _ = Keyring().rotated(utcnow_ms())
    with signed_app.extensions["capsa"].db.unit_of_work(write=True) as uow:
        kid, sig = other.sign(receipt_message(op.id, 2, "0" * 64))
        uow.session.execute(
            ChainSignature.__table__.update()
            .where(ChainSignature.client_id == op.id, ChainSignature.sequence == 2)
            .values(kid=kid, signature=sig)
        )
        uow.commit()
    lines = client.get("/v1/audit/export", headers=op.read_headers).data.splitlines(keepends=True)
    report = export_check.verify_lines(lines, _keys(client, op))
    assert not report.ok and report.first_bad_sequence == 2
    assert "not among the public keys" in report.reason


def test_a_finished_big_two_game_is_stored_with_its_receipt_in_the_moves_transaction(client, op):
    from banting_scripts import BOMB_SCRIPT, FOUR

    game = client.post("/v1/banting/games", headers=op.headers, json={
        "currency": "IDR", "stake": "1000",
        "players": [{"id": pid, "hand": hand.split()} for pid, hand in FOUR.items()]}).get_json()
    doc: dict[str, Any] = {}
    for line in BOMB_SCRIPT:
        player, _, what = line.partition(":")
        what = what.strip()
        move = {"player": player.strip(), **({"pass": True} if what == "pass" else {"play": what.split()})}
        r = client.post(f"/v1/banting/games/{game['id']}/moves", json=move, headers=op.headers)
        assert r.status_code == 200, r.get_json()
        doc = r.get_json()
    round_doc = client.get(f"/v1/rounds/{doc['round']}", headers=op.read_headers).get_json()
    audit = round_doc["audit"]
    assert _keys(client, op).verify(audit["kid"], receipt_message(op.id, audit["sequence"], audit["hash"]),
                                    _unb64(audit["signature"]))


def test_a_delivered_event_carries_the_receipt_get_answers_while_its_worker_still_holds_it(
    signed_app, db_url, client, op, waiting, monkeypatch
):
    """The dispatcher, opened as `capsa webhooks dispatch` opens it (no signing key: it is
    the one process with a way out), finds a round whose receipt still waits in the worker
    (PostgreSQL: until that worker's next write). It does not send the event without it:
    the delivery is due again shortly, and once the worker has stored the receipt the event
    carries it, as the round's answer, GET and the events list do."""
    from webhookkit import Receiver

    from service.commands.webhooks import dispatcher_database
    from service.services.webhooks.dispatcher import RECEIPT_RETRY_S, Dispatcher, Settings

    monkeypatch.delenv("SIGNING_KEY_FILE", raising=False)
    monkeypatch.setenv("WEBHOOK_ALLOW_PRIVATE", "1")
    receiver = Receiver().start()
    settings = Settings(schedule=(0.05,), timeout_s=1.0, allow_private=True, poll_s=0.02)
    db = dispatcher_database(db_url, settings)
    try:
        assert db.keyring is None
        _store(client, op)  # a receipt stored before: the service signs
        waiting.drain()
        hook = client.post("/v1/webhooks", json={"url": receiver.url, "events": ["round.settled"]}, headers=op.headers)
        assert hook.status_code == 201, hook.get_json()
        receiver.secrets.append(hook.get_json()["secret"])
        (created,) = _store(client, op)
        if signed_app.extensions["capsa"].db.dialect == "postgresql":
            assert len(_stored_receipts(signed_app, op.id)) == 1 and len(waiting) == 1  # the first's only
            Dispatcher(db, settings).run_until_idle()
            assert receiver.requests == []  # it waits for the receipt
            waiting.drain()  # the worker's next write, or its timer
            time.sleep(RECEIPT_RETRY_S + 0.05)
        Dispatcher(db, settings).run_until_idle()
        (got,) = receiver.requests
        assert got.body["data"]["audit"] == created.get_json()["audit"]
        assert got.body["data"]["audit"]["signature"] is not None
        listed = client.get("/v1/events", headers=op.read_headers).get_json()["items"]
        assert listed[-1]["data"] == got.body["data"]
    finally:
        db.dispose()
        receiver.stop()


def test_a_new_clients_first_event_waits_for_its_receipt_and_an_unsigned_writers_does_not(
    signed_app, db_url, client, op, waiting, monkeypatch
):
    """The dispatcher learned that a client's records are signed from a receipt already
    stored, so a new client's first events went out without their receipts (which GET then
    answered). The client's chain head now says whether its last write was made with a
    signing key: the first round's event waits like every other; and once a writer without
    a key stores the client's rounds, their events go at once, with no wait for a receipt
    that never comes."""
    from webhookkit import Receiver

    from service.commands.webhooks import dispatcher_database
    from service.services.webhooks import dispatcher as dispatching

    if signed_app.extensions["capsa"].db.dialect != "postgresql":
        pytest.skip("SQLite stores a receipt with its record")
    monkeypatch.delenv("SIGNING_KEY_FILE", raising=False)
    monkeypatch.setenv("WEBHOOK_ALLOW_PRIVATE", "1")
    receiver = Receiver().start()
    settings = dispatching.Settings(schedule=(0.05,), timeout_s=1.0, allow_private=True, poll_s=0.02)
    db = dispatcher_database(db_url, settings)
    unsigned = make_app(db_url)
    try:
        hook = client.post("/v1/webhooks", json={"url": receiver.url, "events": ["round.settled"]}, headers=op.headers)
        receiver.secrets.append(hook.get_json()["secret"])
        (created,) = _store(client, op)  # the client's first round: no receipt of it stored yet
        assert _stored_receipts(signed_app, op.id) == [] and len(waiting) == 1
        dispatching.Dispatcher(db, settings).run_until_idle()
        assert receiver.requests == []  # it waits for the receipt
        waiting.drain()
        time.sleep(dispatching.RECEIPT_RETRY_S + 0.05)
        dispatching.Dispatcher(db, settings).run_until_idle()
        (got,) = receiver.requests
        assert got.body["data"]["audit"] == created.get_json()["audit"]
        assert got.body["data"]["audit"]["signature"] is not None

        stored = unsigned.test_client().post("/v1/rounds", json=four_player_round(), headers=op.headers)
        assert stored.status_code == 201 and stored.get_json()["audit"]["signature"] is None
        dispatching.Dispatcher(db, settings).run_until_idle()  # young, unsigned, and sent
        assert [r.body["data"]["id"] for r in receiver.requests][1:] == [stored.get_json()["id"]]
    finally:
        unsigned.extensions["capsa"].db.dispose()
        db.dispose()
        receiver.stop()


def test_an_event_whose_receipt_was_lost_with_its_worker_goes_without_it_after_the_wait(
    signed_app, db_url, client, op, waiting, monkeypatch
):
    """A receipt lost with its worker (killed before its next write) never comes: past
    RECEIPT_WAIT_S the event is sent as the record stands, rather than held for ever."""
    from webhookkit import Receiver

    from service.commands.webhooks import dispatcher_database
    from service.services.webhooks import dispatcher as dispatching

    if signed_app.extensions["capsa"].db.dialect != "postgresql":
        pytest.skip("SQLite stores a receipt with its record")
    monkeypatch.setenv("WEBHOOK_ALLOW_PRIVATE", "1")
    monkeypatch.setattr(dispatching, "RECEIPT_WAIT_S", 0.3)
    receiver = Receiver().start()
    settings = dispatching.Settings(schedule=(0.05,), timeout_s=1.0, allow_private=True, poll_s=0.02)
    db = dispatcher_database(db_url, settings)
    try:
        _store(client, op)  # a receipt stored before: the service signs
        waiting.drain()
        hook = client.post("/v1/webhooks", json={"url": receiver.url, "events": ["round.settled"]}, headers=op.headers)
        receiver.secrets.append(hook.get_json()["secret"])
        _store(client, op)
        assert waiting.discard() == 1  # the worker is gone with it
        dispatching.Dispatcher(db, settings).run_until_idle()
        assert receiver.requests == []
        time.sleep(0.35)
        dispatching.Dispatcher(db, settings).run_until_idle()
        (got,) = receiver.requests
        assert got.body["data"]["audit"]["signature"] is None
    finally:
        db.dispose()
        receiver.stop()


def test_a_read_never_signs_a_record_it_did_not_just_store(signed_app, client, op, waiting, clock):
    """A missing receipt is remade on a read within minutes of its record's storing (a
    receipt lost with its worker). Later, a record without one is answered unsigned: else
    anyone who can write the database could rewrite a round, delete its receipt, and have
    the service sign the forgery on the next GET."""
    from service.adapters.signatures import REMAKE_WINDOW

    (created,) = _store(client, op)
    round_id, sequence = created.get_json()["id"], created.get_json()["audit"]["sequence"]
    waiting.drain()
    with signed_app.extensions["capsa"].db.unit_of_work(write=True) as uow:  # the receipt gone
        uow.session.execute(
            delete(ChainSignature).where(ChainSignature.client_id == op.id, ChainSignature.sequence == sequence)
        )
        uow.commit()
    clock.advance(seconds=REMAKE_WINDOW.total_seconds() + 1)
    late = client.get(f"/v1/rounds/{round_id}", headers=op.read_headers).get_json()["audit"]
    assert (late["kid"], late["signature"]) == (None, None)
    assert _stored_receipts(signed_app, op.id) == []
    clock.advance(seconds=-REMAKE_WINDOW.total_seconds())  # within the window again (a drifted clock)
    assert client.get(f"/v1/rounds/{round_id}", headers=op.read_headers).data == created.data


def test_signing_pending_records_leaves_a_young_record_to_the_worker_that_holds_its_receipt(
    signed_app, client, op, waiting, clock, db_url
):
    """`capsa keys create` rotates the keyring while the workers run on the old one, then
    signs the records without a receipt. A record stored a moment ago has its receipt in
    its worker, signed with the key the worker holds; signed here with the new keyring's key
    of its time, the stored receipt was another than the one answered (the worker's was
    then dropped as a conflict). Records younger than LOST_AFTER are left to their workers
    (or, lost, to the sweeper); they are counted apart."""
    from service.adapters.uow import Database
    from service.services.audit.receipts import LOST_AFTER, PendingSigned, sign_pending

    app_db = signed_app.extensions["capsa"].db
    assert app_db.keyring is not None
    rotated, new = app_db.keyring.rotated(clock.now())  # `capsa keys create` on another host
    clock.advance(seconds=1)
    (created,) = _store(client, op)  # signed by the worker with the key it holds: the old one
    assert created.get_json()["audit"]["kid"] != new.kid
    command = Database(db_url, keyring=rotated, clock=clock.now)
    try:
        pending = 1 if app_db.dialect == "postgresql" else 0  # SQLite stores it with its record
        assert sign_pending(command, op.id) == PendingSigned(signed=0, young=pending, unsignable=0)
        _store(client, op)  # the worker's next write stores the receipt it answered
        assert _stored_receipts(signed_app, op.id)[0] == _receipt(created)
        clock.advance(seconds=LOST_AFTER.total_seconds() + 1)
        waiting.discard()  # the second round's receipt, lost with its worker: old enough now
        done = sign_pending(command, op.id)
        # lost after the first round's receipt was stored: one to check, and said so
        assert done == PendingSigned(signed=pending, young=0, unsignable=0, after_signed=pending)
    finally:
        command.dispose()


def test_signing_records_after_signed_ones_says_how_many_to_check(db_url, key_file):
    """`capsa keys sign` (and every rotation) signed records rewritten in the database, their
    receipts deleted, as readily as a chain's first records: a rewrite laundered by routine
    commands, with nothing said. It still signs them (a receipt lost with its worker looks
    the same), but says how many lie after records already signed."""
    from datetime import timedelta

    from service.adapters.uow import Database
    from service.services.audit.receipts import PendingSigned, sign_pending

    app = make_app(db_url, SIGNING_KEY_FILE=str(key_file))
    op = make_tenant(app)
    TAMPERED.add(op.id)
    http = app.test_client()
    _store(http, op, 3)
    app.extensions["capsa"].db.receipts.drain()
    with app.extensions["capsa"].db.engine.begin() as conn:
        conn.execute(delete(ChainSignature).where(ChainSignature.client_id == op.id, ChainSignature.sequence >= 2))
    app.extensions["capsa"].db.dispose()
    later = utcnow_ms() + timedelta(seconds=10)  # past the 2 s left to the workers
    command = Database(db_url, keyring=keyfile.load(key_file), clock=lambda: later)
    try:
        done = sign_pending(command, op.id)
    finally:
        command.dispose()
    assert done == PendingSigned(signed=2, young=0, unsignable=0, after_signed=2)
    assert "(2 of them after records already signed" in str(done)


def test_an_export_without_a_key_waits_for_a_receipt_its_worker_still_holds(
    signed_app, client, op, waiting, clock, db_url, monkeypatch
):
    """`capsa audit export` without SIGNING_KEY_FILE cannot make a missing receipt: a record
    stored a moment ago, whose worker still held its receipt, was exported with `"kid":
    null` (and failed offline), and a later export of the range differed. The page is read
    again once the record is LOST_AFTER old; the worker has stored it by then."""
    from service.adapters.uow import Database
    from service.services.audit import receipts

    (created,) = _store(client, op)
    waits: list[float] = []

    def sleep(seconds: float) -> None:  # meanwhile the worker stores what it holds
        waits.append(seconds)
        waiting.drain()

    monkeypatch.setattr(receipts.time, "sleep", sleep)
    command = Database(db_url, clock=clock.now)  # no keyring: the CLI's without SIGNING_KEY_FILE
    try:
        plan = receipts.plan_export(command, op.id, 1, None)
        (line,) = b"".join(receipts.export_lines(command, plan, settle=True)).splitlines()
    finally:
        command.dispose()
    assert json.loads(line)["kid"] == created.get_json()["audit"]["kid"]
    held = signed_app.extensions["capsa"].db.dialect == "postgresql"  # SQLite stores it with its record
    assert waits == ([receipts.LOST_AFTER.total_seconds()] if held else [])


def test_the_apis_export_never_waits_for_a_receipt(db_url, monkeypatch):
    """The wait is the command line's: a service with a key remakes a missing receipt as it
    reads, and one without a key has no worker that holds one, so waiting there only held
    an export's slot for 2 s."""
    from service.services.audit import receipts

    app = make_app(db_url)  # no key: its records have no receipt
    try:
        op = make_tenant(app)
        http = app.test_client()
        _store(http, op)
        waits: list[float] = []
        monkeypatch.setattr(receipts.time, "sleep", waits.append)
        answer = http.get("/v1/audit/export", headers=op.read_headers)
        assert answer.status_code == 200 and json.loads(answer.data.splitlines()[0])["kid"] is None
        assert waits == []
    finally:
        app.extensions["capsa"].db.dispose()


def _restamp_unsigned(db: Any, client_id: str, sequence: int, stamp_of: Any) -> None:
    """The record's `created_at` rewritten in the database by `stamp_of`, and its receipt
    deleted: a record changed behind the service's back."""
    where = (ChainRecord.client_id == client_id, ChainRecord.sequence == sequence)
    with db.unit_of_work(write=True) as uow:
        body = bytes(uow.session.scalar(select(ChainRecord.canonical).where(*where)))
        found = re.search(rb'"created_at":"[^"]+Z"', body)
        assert found is not None
        edited = body.replace(found.group(0), stamp_of(found.group(0)))
        uow.session.execute(update(ChainRecord).where(*where).values(canonical=edited))
        uow.session.execute(delete(ChainSignature).where(
            ChainSignature.client_id == client_id, ChainSignature.sequence == sequence))
        uow.commit()


def test_a_record_whose_time_has_no_offset_is_exported_and_passed_over_without_a_traceback(
    signed_app, client, op, db_url
):
    """A record changed in the database so that its created_at has no offset (or is no
    time at all) must still export, for an auditor to find it, and must not stop the
    signing of the others: its time is unknown, not naive."""
    from service.adapters.uow import Database
    from service.services.audit import receipts

    app_db = signed_app.extensions["capsa"].db
    for stamp_of in (lambda t: t[:-2] + b'"', lambda t: b'"created_at":20261206'):  # no Z; a number
        (created,) = _store(client, op)
        sequence = created.get_json()["audit"]["sequence"]
        app_db.receipts.drain()
        _restamp_unsigned(app_db, op.id, sequence, stamp_of)
        keyless = Database(db_url)
        try:
            plan = receipts.plan_export(keyless, op.id, sequence, 1)
            (line,) = b"".join(receipts.export_lines(keyless, plan, settle=True)).splitlines()
            assert json.loads(line)["kid"] is None
        finally:
            keyless.dispose()
        keyed = Database(db_url, keyring=app_db.keyring)
        try:
            assert receipts.sign_pending(keyed, op.id).signed == 1
        finally:
            keyed.dispose()


def test_the_sweeper_remakes_a_lost_receipt_so_a_late_replay_is_still_byte_for_byte(
    signed_app, client, op, waiting, clock
):
    """A receipt lost with its worker is remade on a read within 5 minutes only; a replay of
    the same Idempotency-Key after that answered unsigned what it first answered signed.
    `capsa sweep` remakes it once it is old enough to be lost (its worker stores it within
    0.5 s), looking only at the records stored since its last pass."""
    from service.services.audit.receipts import LOST_AFTER, LostReceipts

    db = signed_app.extensions["capsa"].db
    lost = LostReceipts()
    lost.sweep(db)  # its first pass: where each client's check starts (other tests' clients are signed too)
    body = four_player_round()
    (created,) = _store(client, op, body=body, **{"Idempotency-Key": "lost-then-late"})
    if db.dialect == "postgresql":
        assert waiting.discard() == 1  # what a worker killed before its next write loses
    else:  # stored with its record: lost only with the table's row
        with db.unit_of_work(write=True) as uow:
            uow.session.execute(delete(ChainSignature).where(ChainSignature.client_id == op.id))
            uow.commit()
    lost.sweep(db)
    assert _stored_receipts(signed_app, op.id) == []  # too young to tell: its worker may still hold it
    clock.advance(seconds=LOST_AFTER.total_seconds() + 1)
    lost.sweep(db)
    assert _stored_receipts(signed_app, op.id) == [_receipt(created)]
    assert lost.checked is not None and lost.checked[op.id] == created.get_json()["audit"]["sequence"]
    clock.advance(minutes=10)
    again = client.post("/v1/rounds", json=body, headers={**op.headers, "Idempotency-Key": "lost-then-late"})
    assert again.headers["Idempotent-Replayed"] == "true" and again.data == created.data


def test_a_sweeper_started_after_the_loss_remakes_what_the_window_still_allows(signed_app, client, op, waiting, clock):
    """A host that crashes takes its workers' unstored receipts and its sweeper at once: the
    sweeper started again took the chain heads of its first pass as checked, and never
    looked at the records lost just before; after the read window a replay of the same
    Idempotency-Key answered unsigned. Its first pass now looks back over the window."""
    from service.services.audit.receipts import LOST_AFTER, LostReceipts

    db = signed_app.extensions["capsa"].db
    body = four_player_round()
    (created,) = _store(client, op, body=body, **{"Idempotency-Key": "lost-in-a-crash"})
    if db.dialect == "postgresql":
        assert waiting.discard() == 1  # the worker killed with its host
    else:
        with db.unit_of_work(write=True) as uow:
            uow.session.execute(delete(ChainSignature).where(ChainSignature.client_id == op.id))
            uow.commit()
    clock.advance(seconds=LOST_AFTER.total_seconds() + 60)  # the host is back a minute later
    restarted = LostReceipts()
    # at least this one: the session's database holds other tests' clients, whose records
    # stored without a key in the window are signed too; this client's is the one asked for
    assert restarted.sweep(db) >= 1
    assert _stored_receipts(signed_app, op.id) == [_receipt(created)]
    clock.advance(minutes=10)
    again = client.post("/v1/rounds", json=body, headers={**op.headers, "Idempotency-Key": "lost-in-a-crash"})
    assert again.headers["Idempotent-Replayed"] == "true" and again.data == created.data


def test_the_sweeper_leaves_a_receipt_missing_past_the_window_and_the_records_before_it_started(
    signed_app, client, op, waiting, clock
):
    """It signs only what a read would within the window: a record older than that without
    a receipt (rewritten in the database, say) stays unsigned, whether it was stored before
    the sweeper's first pass or after."""
    from service.adapters.signatures import REMAKE_WINDOW
    from service.services.audit.receipts import LostReceipts

    db = signed_app.extensions["capsa"].db
    (before,) = _store(client, op)
    lost = LostReceipts()
    lost.sweep(db)
    (late,) = _store(client, op)
    waiting.drain()
    with db.unit_of_work(write=True) as uow:
        uow.session.execute(delete(ChainSignature).where(ChainSignature.client_id == op.id))
        uow.commit()
    clock.advance(seconds=REMAKE_WINDOW.total_seconds() + 1)
    lost.sweep(db)
    assert _stored_receipts(signed_app, op.id) == []
    assert lost.checked is not None and lost.checked[op.id] == late.get_json()["audit"]["sequence"]


def test_a_key_made_on_a_host_ahead_of_the_nodes_signs_from_its_own_time_on_every_path(db_url, tmp_path, clock):
    """`capsa keys create` stamps the new key with its host's clock. A node whose clock is
    behind it signed its new records with the new key (the active one) while a lost receipt
    was remade with the key of the record's time, the old one: the 201 and every later
    answer differed. Both now take the key of the record's time."""
    from datetime import timedelta

    rotated = tmp_path / "ahead.json"
    old, _ = Keyring().rotated(clock.now() - timedelta(hours=1))
    ring, new = old.rotated(clock.now() + timedelta(seconds=3))  # the keys' host 3 s ahead
    keyfile.save(rotated, ring)
    app = make_app(db_url, SIGNING_KEY_FILE=str(rotated))
    db = app.extensions["capsa"].db
    try:
        http, op = app.test_client(), make_tenant(app)
        (created,) = _store(http, op)
        assert created.get_json()["audit"]["kid"] == old.active.kid  # the key of its time
        db.receipts.discard()  # lost with its worker (PostgreSQL); on SQLite, the row:
        with db.unit_of_work(write=True) as uow:
            uow.session.execute(delete(ChainSignature).where(ChainSignature.client_id == op.id))
            uow.commit()
        got = http.get(f"/v1/rounds/{created.get_json()['id']}", headers=op.read_headers)
        assert got.data == created.data  # remade: the same bytes
        clock.advance(seconds=4)
        (later,) = _store(http, op)
        assert later.get_json()["audit"]["kid"] == new.kid  # from the new key's own time on
    finally:
        db.dispose()


def test_the_dispatcher_sends_the_event_of_a_record_whose_time_has_no_offset(
    signed_app, client, op, db_url, waiting, monkeypatch
):
    """A record changed in the database so that its created_at has no offset (or is no time
    at all), without a receipt, in a service that signs: its time is unknown, so its event
    waits for no receipt, and the dispatcher's pass goes on rather than raise (which sent
    the whole batch back, again and again, the other clients' events in it)."""
    from webhookkit import Receiver

    from service.commands.webhooks import dispatcher_database
    from service.services.webhooks import dispatcher as dispatching

    monkeypatch.setenv("WEBHOOK_ALLOW_PRIVATE", "1")
    receiver = Receiver().start()
    settings = dispatching.Settings(schedule=(0.05,), timeout_s=1.0, allow_private=True, poll_s=0.02)
    db = dispatcher_database(db_url, settings)
    app_db = signed_app.extensions["capsa"].db
    try:
        _store(client, op)  # a receipt stored before: the service signs
        waiting.drain()
        hook = client.post("/v1/webhooks", json={"url": receiver.url, "events": ["round.settled"]}, headers=op.headers)
        receiver.secrets.append(hook.get_json()["secret"])
        for stamp_of in (lambda t: t[:-2] + b'"', lambda t: b'"created_at":20261206'):  # no Z; a number
            (created,) = _store(client, op)
            sequence = created.get_json()["audit"]["sequence"]
            waiting.discard()
            _restamp_unsigned(app_db, op.id, sequence, stamp_of)
            dispatching.Dispatcher(db, settings).run_until_idle()
        got = [r.body["data"]["id"] for r in receiver.requests]
        assert len(got) == 2, got
    finally:
        db.dispose()
        receiver.stop()
