"""The dispatcher's lanes: `wait` returns as soon as enough attempts have finished; at
shutdown an attempt still in flight when the grace runs out is abandoned, and its connection is closed then, not left open until the garbage collector
happens to find it (a receiver would otherwise hold a half-dead connection per abandoned
attempt, and a dispatcher restarted in a loop would leak a socket per stop)."""

from __future__ import annotations

import asyncio
import gc
import socket
import threading
import time

import pytest

from service.adapters import delivery
from service.adapters.webhooks import Claimed
from service.domain.webhooks import AttemptOutcome
from service.services.webhooks import dispatcher
from service.services.webhooks.dispatcher import Lanes, Outcome, Prepared, Settings


def silent_receiver() -> tuple[socket.socket, list[socket.socket], threading.Event]:
    """A listener that accepts and never answers; `accepted` holds its side of each connection."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    accepted: list[socket.socket] = []
    got = threading.Event()

    def serve() -> None:
        try:
            conn, _ = server.accept()
        except OSError:
            return
        accepted.append(conn)
        got.set()

    threading.Thread(target=serve, daemon=True).start()
    return server, accepted, got


def test_an_abandoned_attempt_has_its_connection_closed_by_close(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whether or not the event loop's thread gets the CPU between the cancel and the stop:
    `close` used to sleep 10 ms and hope the cancelled attempts had closed their sockets by
    then. A loaded machine (here: no sleep at all) stopped the loop first, and the socket
    stayed open, the cancelled task pending."""
    monkeypatch.setattr(dispatcher.time, "sleep", lambda seconds: None)
    server, accepted, got = silent_receiver()
    port = server.getsockname()[1]
    pool = delivery.AsyncPool(allow_private=True)

    async def attempt(p: Prepared) -> Outcome | None:
        result = await pool.post(f"http://127.0.0.1:{port}/hook", b"{}", {}, timeout=30)
        return Outcome(p.claimed, result, False)

    lanes = Lanes(Settings(allow_private=True), attempt)
    claimed = Claimed("wh_1", "evt_1", "cl_1", 1, "round.stored", 0, "claim-1")
    gc.disable()  # nothing but `close` may close the abandoned attempt's socket
    try:
        lanes.submit([Prepared(claimed, None, None)])
        assert got.wait(5), "the attempt never connected"
        abandoned = lanes.close(grace=0.1, then=pool.close)
        assert abandoned == 1
        receiver_side = accepted[0]
        receiver_side.settimeout(2)
        data = b""
        while chunk := receiver_side.recv(4096):  # b"": the dispatcher closed its end
            data += chunk
        assert data.startswith(b"POST /hook HTTP/1.1")
    finally:
        gc.enable()
        for s in accepted:
            s.close()
        server.close()


def _lanes_with(delays: dict[str, float]) -> Lanes:
    """Lanes whose attempt for event id E takes delays[E] seconds and is delivered."""

    async def attempt(p: Prepared) -> Outcome | None:
        await asyncio.sleep(delays[p.claimed.event_id])
        return Outcome(p.claimed, delivery.Result(AttemptOutcome.DELIVERED, 200, 1, None), False)

    return Lanes(Settings(allow_private=True), attempt)


def _claims(*event_ids: str) -> list[Prepared]:
    # one endpoint each, so their caps never hold one back
    return [Prepared(Claimed(f"wh_{e}", e, "cl_1", n, "round.settled", 0, f"c{n}"), None, None)
            for n, e in enumerate(event_ids, 1)]


def test_wait_returns_when_enough_have_finished_not_before() -> None:
    lanes = _lanes_with({"slow": 0.2})
    try:
        lanes.submit(_claims("slow"))
        lanes.wait(1, timeout=5)
        assert [o.claimed.event_id for o in lanes.collect()[0]] == ["slow"]
    finally:
        lanes.close(grace=1)


def test_wait_for_one_returns_at_the_first_finished_while_a_slower_one_runs_on() -> None:
    lanes = _lanes_with({"fast": 0.05, "slow": 3.0})
    try:
        lanes.submit(_claims("fast", "slow"))
        started = time.monotonic()
        lanes.wait(1, timeout=10)
        assert time.monotonic() - started < 2.0
        assert [o.claimed.event_id for o in lanes.collect()[0]] == ["fast"]
        assert lanes.pending == 1
    finally:
        lanes.close(grace=0.1)


@pytest.mark.parametrize(("outcome", "latency_ms", "is_fast"), [
    (AttemptOutcome.DELIVERED, 0, True),
    (AttemptOutcome.DELIVERED, int(dispatcher.FAST_S * 1000), True),  # 62 ms, under the 62.5 ms bound
    (AttemptOutcome.DELIVERED, int(dispatcher.FAST_S * 1000) + 1, False),
    (AttemptOutcome.HTTP_ERROR, 0, False),  # an instant 500 is not a fast endpoint
    (AttemptOutcome.TIMEOUT, 0, False),
])
def test_a_fast_endpoint_answered_2xx_within_the_bound(outcome: AttemptOutcome, latency_ms: int, is_fast: bool) -> None:
    """Only a 2xx within FAST_S earns an endpoint the deep claims."""
    assert dispatcher.fast(delivery.Result(outcome, 200 if outcome == AttemptOutcome.DELIVERED else None, latency_ms, None)) is is_fast
