"""The dispatcher built for throughput: batch claims within their caps, each record read and
parsed once, and kept-alive connections that resolve and check their address once each.

A fast endpoint (one this dispatcher saw answer 2xx quickly) is claimed `depth` times its
caps in one statement, a plain one at its caps, and another dispatcher still has its plain
share; fan-out reads no record bytes (the event time comes with the record's key) and the
claimed deliveries' records are parsed once however many endpoints take them; a pool
connection is resolved and checked when it is made, and a new one is checked anew.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Iterator
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace
from typing import Any

import orjson
import pytest
from sqlalchemy import event, select
from test_webhook_fairness import client_with_hooks, store
from test_webhook_fairness import url as database_url  # noqa: F401 (a fixture: a database of its own)

from service.adapters import delivery
from service.adapters.models import ChainRecord, WebhookDelivery
from service.adapters.uow import Database
from service.services.webhooks import events
from service.services.webhooks.dispatcher import Dispatcher, Settings


@pytest.fixture
def db(database_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Database]:  # noqa: F811 (the fixture)
    """A database of its own (SQLite, and PostgreSQL with TEST_DATABASE_URL)."""
    monkeypatch.setenv("WEBHOOK_ALLOW_PRIVATE", "1")
    database = Database(database_url)
    yield database
    database.dispose()


DEEP = Settings(allow_private=True, endpoint_concurrency=4, client_concurrency=8, depth=32, claim_batch=256)


def test_a_fast_endpoint_is_claimed_depth_times_its_caps_in_one_statement_and_others_keep_their_share(db):
    client_id, (fast, plain) = client_with_hooks(db, "http://127.0.0.1:9/fast", "http://127.0.0.1:9/plain")
    stored = [store(db, client_id) for _ in range(150)]
    first, second = Dispatcher(db, DEEP), Dispatcher(db, DEEP)
    assert first.fan_out() == 300
    first._fast[fast["id"]] = True  # it answered its last attempt 2xx within FAST_S
    taken = first.claim(256)
    mine = [c.event_id for c in taken if c.webhook_id == fast["id"]]
    # 4 x 32 of the fast endpoint, oldest first; the plain one at its cap of 4; in one claim.
    assert (len(mine), len(taken) - len(mine)) == (128, 4)
    assert mine == stored[:128]
    assert {c.claim.endswith(":deep") for c in taken if c.webhook_id == fast["id"]} == {True}
    # Another dispatcher (that has not seen the endpoint answer) still gets its plain share of
    # the fast endpoint: 4, less no plain claim there; the client's plain cap 8 less the 4 held.
    again = second.claim(256)
    assert [c.event_id for c in again] == stored[128:132]
    assert {c.webhook_id for c in again} == {fast["id"]}
    assert second.claim(256) == []  # the fast endpoint's plain slots and the client's are full


def test_fan_out_reads_no_record_bytes_and_prepare_parses_each_record_once(db, monkeypatch):
    client_id, hooks_ = client_with_hooks(db, "http://127.0.0.1:9/a", "http://127.0.0.1:9/b")
    stored = [store(db, client_id) for _ in range(5)]
    statements: list[str] = []

    def seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(statement)

    event.listen(db.engine, "before_cursor_execute", seen)
    try:
        d = Dispatcher(db, Settings(allow_private=True, endpoint_concurrency=50, client_concurrency=50))
        queued = d.fan_out()
        fan_out_statements, statements[:] = list(statements), []
        claimed = d.claim(100)
        parsed: list[bytes] = []
        real = orjson.loads
        monkeypatch.setattr(events, "orjson", SimpleNamespace(loads=lambda raw: parsed.append(raw) or real(raw)))
        prepared = d.prepare(claimed)
    finally:
        event.remove(db.engine, "before_cursor_execute", seen)
    records = len(stored)
    assert queued == 2 * records == len(claimed) == len(prepared)
    assert not any("canonical" in s for s in fan_out_statements)
    assert sum("canonical" in s for s in statements) == 1  # the client's records, in one read
    assert len(parsed) == len(set(parsed)) == records  # each record parsed once, for both endpoints
    assert {p.event.id for p in prepared if p.event is not None} == {c.event_id for c in claimed}
    assert all(p.body == p.event.body() for p in prepared if p.event is not None)
    # The event time on each delivery row is its record's own time.
    with db.unit_of_work() as uow:
        rows = uow.session.execute(
            select(WebhookDelivery.sequence, WebhookDelivery.event_at, ChainRecord.canonical)
            .join(ChainRecord, (ChainRecord.client_id == WebhookDelivery.client_id)
                  & (ChainRecord.sequence == WebhookDelivery.sequence))
            .where(WebhookDelivery.client_id == client_id)
        ).all()
    assert len(rows) == 2 * records and len(hooks_) == 2
    for _, at, canonical in rows:
        created = datetime.fromisoformat(str(real(canonical)["created_at"]).replace("Z", "+00:00"))
        assert at == created


# -- kept-alive connections -------------------------------------------------------------------


class _Server:
    """An HTTP/1.1 receiver answering 204 and keeping connections open (`close_after`: it
    closes each connection after answering, without saying so, as an idle timeout does)."""

    def __init__(self, close_after: bool = False) -> None:
        server = self
        self.connections: set[int] = set()
        self.requests = 0
        self.paths: list[str] = []

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                server.connections.add(self.client_address[1])
                server.requests += 1
                server.paths.append(self.path)
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()
                if close_after:
                    self.close_connection = True

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def resolver(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """`hooks.example` resolves to `answer` (counted in `lookups`); only 127.0.0.2 is refused."""
    state: dict[str, Any] = {"answer": "127.0.0.1", "lookups": 0}

    def fake(host: str, port: int, deadline: Any) -> list[Any]:
        state["lookups"] += 1
        return [(None, None, None, "", (state["answer"], port))]

    monkeypatch.setattr(delivery, "_getaddrinfo", fake)
    monkeypatch.setattr(delivery, "refused_address", lambda a: a == ipaddress.ip_address("127.0.0.2"))
    return state


def test_a_kept_connection_is_resolved_and_checked_once_and_a_new_one_is_checked_again(resolver):
    server = _Server()
    pool = delivery.Pool(allow_private=False, per_origin=4)
    url = f"http://hooks.example:{server.port}/hook"
    try:
        results = [pool.post(url, b"{}", {"webhook-id": f"msg_{i}"}, 2.0).outcome for i in range(5)]
        assert results == ["delivered"] * 5
        assert (resolver["lookups"], pool.connections_made, len(server.connections)) == (1, 1, 1)
        pool.close()  # the idle connection goes: the next request needs a new one
        resolver["answer"] = "127.0.0.2"  # and the name now points somewhere refused
        refused = pool.post(url, b"{}", {"webhook-id": "msg_5"}, 2.0)
        assert refused.outcome == "refused" and "127.0.0.2" not in (refused.error or "")
        assert refused.error == "hooks.example does not resolve to a public address"
        assert (resolver["lookups"], server.requests) == (2, 5)
    finally:
        pool.close()
        server.stop()


def test_a_name_that_does_not_resolve_reads_as_one_that_resolves_to_a_refused_address(monkeypatch):
    """Which names the service's own network resolves is not the endpoint owner's to learn:
    with the guard on, a name the resolver does not know and one it resolves to a private
    address give the same outcome and error (the second was `refused`, the first a
    `connection_error` quoting the resolver: "Name or service not known")."""
    answers = {"intranet.example": "10.0.0.7", "missing.example": None}

    def fake(host: str, port: int, deadline: Any) -> list[Any]:
        if answers[host] is None:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(None, None, None, "", (answers[host], port))]

    monkeypatch.setattr(delivery, "_getaddrinfo", fake)
    guarded, open_ = delivery.Pool(allow_private=False, per_origin=1), delivery.Pool(allow_private=True, per_origin=1)
    try:
        seen = [guarded.post(f"http://{host}/hook", b"{}", {"webhook-id": "msg_1"}, 2.0) for host in answers]
        assert [(r.outcome, r.error) for r in seen] == [
            ("refused", f"{host} does not resolve to a public address") for host in answers
        ]
        # Where private receivers are allowed there is nothing to hide: the resolver's words.
        missing = open_.post("http://missing.example/hook", b"{}", {"webhook-id": "msg_1"}, 2.0)
        assert (missing.outcome, missing.error) == ("connection_error", "gaierror: [Errno -2] Name or service not known")
    finally:
        guarded.close()
        open_.close()


def test_a_path_outside_ascii_is_sent_percent_encoded_as_utf_8():
    """`/pay€` was sent as Latin-1, which cannot hold the euro sign: every attempt a
    connection_error (UnicodeEncodeError) until the endpoint was disabled; `/café` went as
    the raw byte 0xE9. A path or query outside ASCII now goes as browsers send it: each
    character's UTF-8 bytes percent-encoded, what is ASCII (escapes included) as it is."""
    server = _Server()
    pool = delivery.Pool(allow_private=True, per_origin=1)
    try:
        base = f"http://127.0.0.1:{server.port}"
        sent = [pool.post(f"{base}{path}", b"{}", {"webhook-id": "msg_1"}, 2.0) for path in ("/pay€", "/café?x=ü&y=%41")]
        assert [r.outcome for r in sent] == ["delivered", "delivered"]
        assert server.paths == ["/pay%E2%82%AC", "/caf%C3%A9?x=%C3%BC&y=%41"]
    finally:
        pool.close()
        server.stop()


def test_a_kept_connection_closed_by_the_receiver_is_replaced_and_checked_again(resolver):
    server = _Server(close_after=True)
    pool = delivery.Pool(allow_private=False, per_origin=4)
    url = f"http://hooks.example:{server.port}/hook"
    try:
        results = [pool.post(url, b"{}", {"webhook-id": f"msg_{i}"}, 2.0).outcome for i in range(3)]
        assert results == ["delivered"] * 3
        # Each kept connection was found closed on its next use: a new one, resolved anew.
        assert (server.requests, len(server.connections), pool.connections_made, resolver["lookups"]) == (3, 3, 3, 3)
    finally:
        pool.close()
        server.stop()


def test_endpoints_sharing_an_origin_keep_as_many_connections_as_they_use_at_once(db):
    """Endpoints on one origin (several of a client's, or several clients' at one wallet
    provider) share its kept connections. The pool kept at most an endpoint's cap idle (2
    here) while the client's cap let 8 attempts run at once, so each batch closed 6 and opened
    6 again: a connection made and torn down for most deliveries."""
    server = _Server()
    try:
        url = f"http://127.0.0.1:{server.port}/hook"
        client_id, _ = client_with_hooks(db, *(f"{url}/{i}" for i in range(4)))
        for _ in range(30):
            store(db, client_id)
        d = Dispatcher(db, Settings(allow_private=True, concurrency=16, endpoint_concurrency=2, client_concurrency=8))
        d.run_until_idle()
        assert server.requests == 4 * 30
        # never more than the attempts in flight at once: the client's 8
        assert d.pool.connections_made <= 8 and len(server.connections) <= 8
    finally:
        server.stop()
