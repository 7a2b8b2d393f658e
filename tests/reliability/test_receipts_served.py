"""Receipts as served, on a real server: stored by the worker's next write, by its timer when
idle and when it exits; a worker killed before storing one leaves it to be remade byte for
byte on first read.

gunicorn (gunicorn.conf.py, one worker, a signing key) on loopback, on a PostgreSQL
database made for the test. Runs in `make test` in a few seconds; skipped without
TEST_DATABASE_URL.
"""

from __future__ import annotations

import base64
import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import pg_admin_url
from serverkit import Gunicorn, call, client_key, database, round_body

from service.adapters import keyfile
from service.domain.signing import Keyring
from service.services.clock import utcnow_ms

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    admin = pg_admin_url()
    if admin is None:
        pytest.skip("TEST_DATABASE_URL is not set")
    key_file = tmp_path_factory.mktemp("keys") / "signing.json"
    keyfile.save(key_file, Keyring().rotated(utcnow_ms())[0])
    with database(admin) as url:
        yield url, key_file


def _receipts(url: str, client_id: str) -> list[tuple[int, str, bytes]]:
    import psycopg

    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://")) as conn:
        rows = conn.execute(
            "SELECT sequence, kid, signature FROM chain_signatures WHERE client_id = %s ORDER BY sequence",
            (client_id,),
        ).fetchall()
    return [(n, k, bytes(s)) for n, k, s in rows]


def _post(port: int, key: str) -> Any:
    reply = call(port, "POST", "/v1/rounds", {"Authorization": f"Bearer {key}", "Content-Type": "application/json",
                                              "Idempotency-Key": uuid.uuid4().hex}, round_body(uuid.uuid4().hex))
    assert reply.status == 201, reply.body[:300]
    audit = reply.json()["audit"]
    signature = base64.urlsafe_b64decode(audit["signature"] + "=" * (-len(audit["signature"]) % 4))
    return reply, (audit["sequence"], audit["kid"], signature)


def _wait_for(what: Any, seconds: float = 10.0) -> Any:
    deadline = time.monotonic() + seconds
    while not (found := what()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def test_the_next_write_stores_a_receipt_and_a_killed_worker_leaves_it_remade_byte_for_byte(served):
    url, key_file = served
    client_id, key = client_key(url)
    # A long timer: only a next write (or the worker's exit) stores a waiting receipt.
    with Gunicorn(url, workers=1, SIGNING_KEY_FILE=str(key_file), RECEIPT_FLUSH_MS="60000") as server:
        _, first = _post(server.port, key)
        assert _receipts(url, client_id) == []  # waiting in the worker
        _, second = _post(server.port, key)
        assert _receipts(url, client_id) == [first]  # carried by the second round's statement
        (worker,) = server.workers()
        os.kill(worker, signal.SIGKILL)  # the second's receipt dies with it
        _wait_for(lambda: server.workers() and server.workers() != [worker])
        assert _receipts(url, client_id) == [first]
        reply = call(server.port, "GET", f"/v1/audit/records/{second[0]}", {"Authorization": f"Bearer {key}"})
        assert reply.status == 200
        body = reply.json()
        assert (body["kid"], body["signature"]) == (
            second[1], base64.urlsafe_b64encode(second[2]).rstrip(b"=").decode()
        )
        assert _receipts(url, client_id) == [first, second]  # remade on first read, the same bytes, stored


def test_an_idle_worker_stores_its_receipt_after_the_timer_and_a_stopped_one_at_exit(served):
    url, key_file = served
    client_id, key = client_key(url)
    with Gunicorn(url, workers=1, SIGNING_KEY_FILE=str(key_file), RECEIPT_FLUSH_MS="200") as server:
        _, first = _post(server.port, key)
        assert _wait_for(lambda: _receipts(url, client_id)) == [first]
    with Gunicorn(url, workers=1, SIGNING_KEY_FILE=str(key_file), RECEIPT_FLUSH_MS="60000") as server:
        _, second = _post(server.port, key)
        assert _receipts(url, client_id) == [first]
    # SIGTERM: the worker exits gracefully and stores what waits.
    assert _receipts(url, client_id) == [first, second]
