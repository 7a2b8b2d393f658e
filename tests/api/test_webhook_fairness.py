"""One tenant cannot stall another: hostile receivers hold their own slots, and only theirs.

Two receivers on loopback never let an attempt finish: one answers its status line and then
trickles a header byte a second, the other reads the request and never answers. Client A
points an endpoint at each, with a backlog of stored events; client B's endpoint answers at
once. Each of B's events must arrive within 1 s of being stored, neither slow endpoint may
have more than its cap in flight (nor A more than its own), no event is sent again while a
first copy is still in flight, and a real `capsa webhooks dispatch` stopped by SIGTERM with
such attempts in flight exits within its grace (the attempt deadline and 1 s).
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from httpkit import two_player_round
from sqlalchemy import select
from webhookkit import Receiver, Stalling

from service.adapters import delivery
from service.adapters.models import WebhookDelivery
from service.adapters.uow import Database
from service.adapters.webhook_queue import DELIVERED, DeliveryQueue, Finish
from service.adapters.webhooks import Claimed
from service.domain import webhooks as hooks
from service.services import clients
from service.services.rounds import store as rounds
from service.services.webhooks import endpoints as webhooks
from service.services.webhooks.dispatcher import QUEUE_S, RECORD_S, Dispatcher, Settings

CAPSA = str(Path(sys.executable).parent / "capsa")
PER_ENDPOINT, PER_CLIENT = 2, 3
SETTINGS = Settings(
    schedule=(0.05,) * 5, timeout_s=1.0, allow_private=True, concurrency=8,
    endpoint_concurrency=PER_ENDPOINT, client_concurrency=PER_CLIENT, poll_s=0.05,
)


@pytest.fixture
def url(own_db_url: str) -> str:
    """A database of its own: no other test's endpoints compete for the slots."""
    return own_db_url


@pytest.fixture(autouse=True)
def private_ok(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBHOOK_ALLOW_PRIVATE", "1")


@pytest.fixture
def stalling() -> Iterator[tuple[Stalling, Stalling]]:
    trickle, hang = Stalling("trickle").start(), Stalling("hang").start()
    yield trickle, hang
    trickle.stop()
    hang.stop()


def client_with_hooks(db: Database, *urls: str) -> tuple[str, list[dict[str, Any]]]:
    client_id, _ = clients.create_client(db, f"fair-{secrets.token_hex(4)}")
    return client_id, [webhooks.create(db, client_id, {"url": u, "events": ["round.settled"]}) for u in urls]


def store(db: Database, client_id: str) -> str:
    """A round; its settled event's id."""
    made = rounds.create(db, client_id, two_player_round(), None).response.body
    return hooks.event_id(orjson.loads(made)["id"], hooks.SETTLED)


def delivered(db: Database, claimed: Claimed) -> None:
    """The claimed delivery recorded as delivered, as a dispatcher's pass records it."""
    from service.services.clock import utcnow_ms

    now = utcnow_ms()
    with DeliveryQueue(db.engine).pass_() as tx:
        tx.record(now, [], [Finish(claimed, DELIVERED, now, 200, None)], [])


def wait_for(what: Any, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not what():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.01)


# -- one attempt, one deadline -------------------------------------------------------------


@pytest.mark.parametrize("mode", ["trickle", "hang"])
def test_an_attempt_ends_by_its_deadline_however_slowly_the_receiver_answers(mode):
    receiver = Stalling(mode, every_s=0.2).start()
    try:
        started = time.monotonic()
        result = delivery.post(receiver.url, b"{}", {"webhook-id": "msg_1"}, 1.0, True)
        took = time.monotonic() - started
        wait_for(lambda: receiver.open_now == 0, 2)
    finally:
        receiver.stop()
    # A per-read timeout alone never fires while a byte comes every 0.2 s.
    assert (result.outcome, result.status_code) == ("timeout", None)
    assert result.error == "no answer within 1 s"
    assert 1.0 <= took < 1.3
    assert [a.id for a in receiver.attempts] == ["msg_1"]


def answered(respond: Callable[[socket.socket], None], timeout: float = 2.0) -> delivery.Result:
    """An attempt at a raw receiver that answers it with `respond(connection)`, after reading
    the request (until it sends no more: an error sending ends it)."""
    server = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            conn.recv(65536)
            try:
                respond(conn)
            except OSError:
                pass

    threading.Thread(target=serve, daemon=True).start()
    try:
        return delivery.post(f"http://127.0.0.1:{server.getsockname()[1]}/hook", b"{}", {}, timeout, True)
    finally:
        server.close()


def endless(head: bytes, more: bytes) -> Callable[[socket.socket], None]:
    """An answer of `head`, then `more` again and again, as fast as it goes."""

    def respond(conn: socket.socket) -> None:
        conn.sendall(head)
        while True:
            conn.sendall(more)

    return respond


def test_an_endless_2xx_body_is_read_up_to_4_kib_and_the_attempt_is_delivered():
    # a body far larger than anyone reads
    result = answered(endless(b"HTTP/1.1 200 OK\r\nContent-Length: 100000000\r\n\r\n", b"x" * 65536))
    assert (result.outcome, result.status_code, result.error) == ("delivered", 200, None)
    assert result.latency_ms < 1000


def test_an_endless_run_of_interim_answers_ends_the_attempt_at_once():
    """1xx answers precede the final one, and a receiver may send them without end: each was
    parsed and skipped until the deadline, the dispatcher's one event loop busy with them
    (its other endpoints' attempts waiting their turns). A few are allowed, as servers send
    (100 Continue, 103 Early Hints); past that the answer is bad."""
    cpu = time.process_time()
    result = answered(endless(b"", b"HTTP/1.1 100 Continue\r\n\r\n" * 2000))
    cpu = time.process_time() - cpu
    assert (result.outcome, result.status_code) == ("connection_error", None)
    assert result.error == f"BadAnswer: got more than {delivery._MAX_INTERIM} interim (1xx) answers"
    assert result.latency_ms < 500 and cpu < 0.5


@pytest.mark.parametrize(("interim", "outcome"), [(delivery._MAX_INTERIM, "delivered"), (delivery._MAX_INTERIM + 1, "connection_error")])
def test_interim_answers_up_to_the_bound_precede_the_final_one(interim, outcome):
    early = b"HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n" * interim
    result = answered(lambda conn: conn.sendall(early + b"HTTP/1.1 204 No Content\r\n\r\n"))
    assert result.outcome == outcome


def test_endless_trailers_after_a_chunked_2xx_are_read_up_to_4_kib_and_the_attempt_is_delivered():
    """A chunked body's trailers end at an empty line; one that never comes was kept waiting
    for, every byte held in memory and searched again as each arrived, until the deadline."""
    head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n"
    result = answered(endless(head, b"X-Trailer: " + b"t" * 65536))
    assert (result.outcome, result.status_code, result.error) == ("delivered", 200, None)
    assert result.latency_ms < 1000


def test_an_answer_whose_reason_holds_a_nul_is_recorded_and_stalls_no_one(url):
    """A receiver's reason phrase is its own text, NUL included, and an attempt's error
    quotes it: PostgreSQL's text holds no NUL, so stored as it came, the pass that records
    it failed, and so did every pass after it (each tries again what it could not record),
    and no client's events were claimed any more. Stored with U+FFFD in its place."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            with conn:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 500 Bad\x00\"Thing\\\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")

    threading.Thread(target=serve, daemon=True).start()
    db = Database(url)
    fast = Receiver().start()
    try:
        hostile, (bad,) = client_with_hooks(db, f"http://127.0.0.1:{server.getsockname()[1]}/hook")
        store(db, hostile)
        dispatcher = Dispatcher(db, SETTINGS)
        dispatcher.run_until_idle(timeout=1.0)  # its attempt (and retries, 50 ms apart) recorded
        other, (hook,) = client_with_hooks(db, fast.url)
        fast.secrets = [hook["secret"]]
        wanted = store(db, other)
        dispatcher.run_until_idle(timeout=1.0)
        assert fast.acknowledged() == {wanted}
        with db.unit_of_work() as uow:
            tried = uow.webhooks.attempts(hostile, bad["id"], None, None, 100)
            last_errors = set(uow.session.scalars(
                select(WebhookDelivery.last_error).where(WebhookDelivery.client_id == hostile)
            ))
    finally:
        stop.set()
        fast.stop()
        server.close()
        db.dispose()
    said = 'HTTP 500 Bad\ufffd"Thing\\'
    assert tried and {(a.outcome, a.status_code, a.error) for a in tried} == {("http_error", 500, said)}
    assert last_errors == {said}  # the delivery's last error too, retried or failed


def test_a_claim_outlives_the_longest_attempt_whatever_the_timeout():
    for timeout in (0.5, 5.0, 120.0):
        s = Settings(timeout_s=timeout)
        assert s.claim_s == QUEUE_S + timeout + RECORD_S
        assert s.shutdown_grace_s == timeout + 1.0
    env = {"WEBHOOK_TIMEOUT_S": "7", "WEBHOOK_ENDPOINT_CONCURRENCY": "3", "WEBHOOK_CLIENT_CONCURRENCY": "5"}
    read = Settings.from_env(env)
    assert (read.timeout_s, read.endpoint_concurrency, read.client_concurrency, read.claim_s) == (7.0, 3, 5, 19.0)


# -- one tenant cannot stall another ---------------------------------------------------------


def deliver_ten(db: Database, fast: Receiver, fast_client: str, stalling: tuple[Stalling, Stalling],
                ready: Callable[[], Any], gap: float) -> tuple[list[float], int]:
    """A dispatcher running until `ready`, then ten of `fast_client`'s rounds stored `gap` s
    apart: each event's delivery latency, and the most attempts in flight to the two
    stalling endpoints meanwhile. The dispatcher is stopped within its grace."""
    trickle, hang = stalling
    stop = threading.Event()
    loop = threading.Thread(target=Dispatcher(db, SETTINGS).run, args=(stop,), daemon=True)
    loop.start()
    try:
        wait_for(ready, 30)
        most = 0
        sampling = threading.Event()

        def sample() -> None:
            nonlocal most
            while not sampling.is_set():
                most = max(most, trickle.open_now + hang.open_now)
                time.sleep(0.005)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        latencies = []
        for _ in range(10):
            event_id = store(db, fast_client)
            stored = time.time()
            wait_for(lambda e=event_id: any(r.id == e for r in fast.requests), 5)
            latencies.append(next(r.at for r in fast.requests if r.id == event_id) - stored)
            time.sleep(gap)
        sampling.set()
        sampler.join()
    finally:
        stop.set()
        loop.join(SETTINGS.shutdown_grace_s + 2)
    assert not loop.is_alive()
    return latencies, most


def run_fairness(url: str, stalling: tuple[Stalling, Stalling], backlog: int) -> None:
    trickle, hang = stalling
    db = Database(url)
    fast = Receiver().start()
    try:
        slow_client, _ = client_with_hooks(db, trickle.url, hang.url)
        for _ in range(backlog):
            store(db, slow_client)
        fast_client, (hook,) = client_with_hooks(db, fast.url)
        fast.secrets = [hook["secret"]]
        latencies, most_of_a = deliver_ten(
            db, fast, fast_client, stalling, lambda: trickle.attempts and hang.attempts, 0.2  # the backlog claimed
        )
    finally:
        fast.stop()
        db.dispose()
    slow_attempts = len(trickle.attempts) + len(hang.attempts)
    print(
        f"\n{backlog} slow events queued on each of 2 stalling endpoints: the other client's "
        f"delivery latency p50 {statistics.median(latencies) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms "
        f"over {len(latencies)} events; slow attempts {slow_attempts}, most in flight "
        f"{trickle.most_open} + {hang.most_open} (client {most_of_a}); load {os.getloadavg()[0]:.2f}"
    )
    assert max(latencies) < 1.0, latencies
    assert fast.invalid == 0 and len(fast.requests) == 10  # each once, signed
    assert trickle.most_open <= PER_ENDPOINT and hang.most_open <= PER_ENDPOINT
    assert most_of_a <= PER_CLIENT
    assert most_of_a == PER_CLIENT  # the slow client still had its slots
    assert trickle.overlapping_copies() == 0 and hang.overlapping_copies() == 0
    # Every slow attempt ended by its deadline: the dispatcher closed each one.
    assert all(a.closed is not None and a.closed - a.opened < SETTINGS.timeout_s + 0.5
               for a in trickle.attempts + hang.attempts)


def test_a_trickling_and_a_hanging_endpoint_delay_only_their_own_events(url, stalling):
    run_fairness(url, stalling, backlog=100)


@pytest.mark.slow  # storing 1,000 rounds takes about 20 s on SQLite here: `make slow`
def test_a_backlog_of_1000_events_on_stalling_endpoints_delays_only_their_own(url, stalling):
    run_fairness(url, stalling, backlog=1000)


def test_three_tenants_on_stalling_endpoints_leave_a_slot_for_a_fourth(url, stalling):
    """Three clients' endpoints never answer, each with a backlog: together they could hold
    every slot (3 + 3 + 2 of 8), and another client's events would wait for one of their
    attempts to reach its deadline. A quarter of the slots is kept for clients with none in
    flight: the three hold 6 at most, and the fourth's events arrive at once."""
    trickle, hang = stalling
    db = Database(url)
    fast = Receiver().start()
    try:
        for _ in range(3):
            hostile, _ = client_with_hooks(db, trickle.url, hang.url)
            for _ in range(10):
                store(db, hostile)
        fast_client, (hook,) = client_with_hooks(db, fast.url)
        fast.secrets = [hook["secret"]]
        latencies, most = deliver_ten(
            db, fast, fast_client, stalling, lambda: trickle.open_now + hang.open_now >= 6, 0.1
        )
    finally:
        fast.stop()
        db.dispose()
    print(f"\nthree stalling tenants: the fourth's latency max {max(latencies) * 1000:.0f} ms; "
          f"their attempts in flight at most {most} of {SETTINGS.concurrency}; load {os.getloadavg()[0]:.2f}")
    assert most == SETTINGS.concurrency - 2  # a quarter kept, and the three still had the rest
    assert max(latencies) < 0.5, latencies  # their attempts last 1 s: none waited for one
    assert fast.invalid == 0 and len(fast.requests) == 10


# -- SIGTERM -----------------------------------------------------------------------------------


def test_sigterm_stops_the_dispatcher_within_its_grace_with_stalled_attempts_in_flight(url, stalling, tmp_path):
    trickle, hang = stalling
    db = Database(url)
    try:
        client_id, _ = client_with_hooks(db, trickle.url, hang.url)
        for _ in range(10):
            store(db, client_id)
    finally:
        db.dispose()
    timeout = 2.0
    env = {
        **os.environ, "DATABASE_URL": url, "WEBHOOK_TIMEOUT_S": str(timeout), "WEBHOOK_ALLOW_PRIVATE": "1",
        "WEBHOOK_POLL_S": "0.05", "WEBHOOK_METRICS_BIND": "off", "LOG_LEVEL": "WARNING",
    }
    with open(tmp_path / "dispatch.log", "wb") as log:
        proc = subprocess.Popen([CAPSA, "webhooks", "dispatch"], env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: trickle.open_now and hang.open_now, 30)
        time.sleep(0.5)  # mid-attempt: the trickle has sent bytes, the hang nothing
        signalled = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout + 5)
        took = time.monotonic() - signalled
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    print(f"\nSIGTERM to exit: {took:.2f} s (grace {timeout + 1:g} s); load {os.getloadavg()[0]:.2f}")
    assert code == 0, (tmp_path / "dispatch.log").read_text()
    assert took <= Settings(timeout_s=timeout).shutdown_grace_s
    wait_for(lambda: trickle.open_now == 0 and hang.open_now == 0, 1)  # no attempt outlived the process


# -- the claim's accounting ----------------------------------------------------------------------


def test_a_claim_gives_each_endpoint_its_free_slots_oldest_first_counting_other_dispatchers(url):
    db = Database(url)
    try:
        busy, (a, b) = client_with_hooks(db, "http://127.0.0.1:9/a", "http://127.0.0.1:9/b")
        busy_events = [store(db, busy) for _ in range(6)]
        other, (c,) = client_with_hooks(db, "http://127.0.0.1:9/c")
        other_events = [store(db, other) for _ in range(2)]
        first, second = Dispatcher(db, SETTINGS), Dispatcher(db, SETTINGS)
        assert first.fan_out() == 6 * 2 + 2
        taken = first.claim(100)
        # 2 per endpoint, 3 for the busy client, each endpoint's oldest first.
        by_hook: dict[str, list[str]] = {}
        for claimed in taken:
            by_hook.setdefault(claimed.webhook_id, []).append(claimed.event_id)
        assert sorted(len(v) for k, v in by_hook.items() if k != c["id"]) == [1, 2]
        assert by_hook[c["id"]] == other_events
        for hook in (a["id"], b["id"]):
            got = by_hook.get(hook, [])
            assert got == busy_events[: len(got)]
        # Another dispatcher finds the busy client's and the other client's slots full.
        assert second.claim(100) == []
        # One finishes: its slot is free again, for the oldest waiting of its endpoint.
        done = next(x for x in taken if x.webhook_id == c["id"])
        delivered(db, done)
        assert second.claim(100) == []  # the other client has nothing more queued
        held_a = len(by_hook.get(a["id"], []))
        slow = next(x for x in taken if x.webhook_id != c["id"])
        delivered(db, slow)
        again = second.claim(100)
        assert len(again) == 1 and again[0].client_id == busy
        queue = busy_events[held_a:] if again[0].webhook_id == a["id"] else busy_events[len(by_hook.get(b["id"], [])):]
        assert again[0].event_id == queue[0]
    finally:
        db.dispose()
