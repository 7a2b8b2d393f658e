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
from typing import Any

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


# -- who runs when: the caps, the turns, the lanes sent back -----------------------------------------


class Gate:
    """Attempts that note their start and end when the test says, with the result it gives
    (None: not attempted, sent back)."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.ends: dict[str, delivery.Result | None] = {}

    async def attempt(self, p: Prepared) -> Outcome | None:
        self.started.append(p.claimed.event_id)
        while p.claimed.event_id not in self.ends:
            await asyncio.sleep(0.002)
        r = self.ends[p.claimed.event_id]
        return None if r is None else Outcome(p.claimed, r, False)


OK_FAST = delivery.Result(AttemptOutcome.DELIVERED, 200, 1, None)
OK_SLOW = delivery.Result(AttemptOutcome.DELIVERED, 200, 500, None)
FAILED = delivery.Result(AttemptOutcome.HTTP_ERROR, 500, 1, "HTTP 500")


def claim(event_id: str, webhook_id: str, client_id: str = "cl_1", start_by: float = float("inf")) -> Prepared:
    return Prepared(Claimed(webhook_id, event_id, client_id, 1, "round.settled", 0, "c"), None, None, start_by=start_by)


def settled(what: Any, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not what():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.005)
    time.sleep(0.05)  # and nothing more happens meanwhile


def lanes_of(gate: Gate, concurrency: int = 10, endpoint: int = 10, client: int = 10) -> Lanes:
    s = Settings(allow_private=True, concurrency=concurrency, endpoint_concurrency=endpoint, client_concurrency=client)
    return Lanes(s, gate.attempt)


def test_lanes_take_turns_and_an_endpoint_runs_its_cap_at_most() -> None:
    gate = Gate()
    lanes = lanes_of(gate, endpoint=2)
    try:
        lanes.submit([claim("a1", "A"), claim("a2", "A"), claim("a3", "A"), claim("a4", "A"), claim("b1", "B")])
        settled(lambda: len(gate.started) == 3)
        assert gate.started == ["a1", "b1", "a2"]  # A, then B, then A again
        assert (lanes.queued, lanes.inflight, lanes.pending) == (2, 3, 5)
        gate.ends["a1"] = OK_FAST
        settled(lambda: len(gate.started) == 4)
        assert gate.started[3:] == ["a3"]  # a slot of A freed: one more of A
        assert lanes.pending == 4
    finally:
        lanes.close(grace=0)


def test_a_client_runs_its_cap_at_most_over_its_endpoints() -> None:
    gate = Gate()
    lanes = lanes_of(gate, client=3)
    try:
        lanes.submit([claim("a1", "A"), claim("a2", "A"), claim("b1", "B"), claim("b2", "B"), claim("c1", "C", "cl_2"),
                      claim("a3", "A")])
        settled(lambda: len(gate.started) == 4)
        assert gate.started == ["a1", "c1", "b1", "a2"]  # cl_2, with none in flight, before cl_1's second
        gate.ends["c1"] = OK_FAST  # another client's slot: not cl_1's
        settled(lambda: lanes.inflight == 3)
        assert gate.started == ["a1", "c1", "b1", "a2"]
        gate.ends["a1"] = OK_FAST  # one of cl_1's 3 slots free: one more of its 2 waiting starts
        settled(lambda: len(gate.started) == 5)
        assert gate.started[4] == "b2" and lanes.queued == 1
    finally:
        lanes.close(grace=0)


def test_a_freed_slot_goes_to_the_client_with_fewest_in_flight() -> None:
    gate = Gate()
    lanes = lanes_of(gate, concurrency=3, endpoint=3, client=3)
    try:
        lanes.submit([claim("a1", "A"), claim("a2", "A"), claim("a3", "A"), claim("a4", "A")])
        settled(lambda: len(gate.started) == 3)
        lanes.submit([claim("b1", "B", "cl_2"), claim("b2", "B", "cl_2")])
        gate.ends["a1"] = OK_FAST
        settled(lambda: len(gate.started) == 4)
        assert gate.started[3] == "b1"  # cl_2 (none in flight) before cl_1's a4, queued first
        gate.ends["a2"] = OK_FAST
        settled(lambda: len(gate.started) == 5)
        assert gate.started[4] == "a4"  # 1 in flight each: the lanes take turns, and B's just went
    finally:
        lanes.close(grace=0)


def test_the_last_quarter_of_the_slots_waits_for_a_client_with_none_in_flight() -> None:
    """Three tenants whose endpoints never answer hold three quarters of the slots at most:
    a fourth and a fifth tenant's first attempts start at once, a sixth takes the next slot
    freed, before any of the three."""
    gate = Gate()
    lanes = lanes_of(gate, concurrency=8, endpoint=2, client=3)
    assert dispatcher.reserve(8) == 2
    try:
        hostile = [claim(f"{c}{e}{i}", f"{c}{e}", f"cl_{c}") for c in "xyz" for e in "12" for i in range(3)]
        lanes.submit(hostile)
        settled(lambda: len(gate.started) == 6)
        assert sorted(s[0] for s in gate.started) == ["x", "x", "y", "y", "z", "z"]  # 2 each, not 3 + 3 + 2
        lanes.submit([claim("p1", "P", "cl_p"), claim("p2", "P", "cl_p"), claim("q1", "Q", "cl_q")])
        settled(lambda: len(gate.started) == 8)
        assert gate.started[6:] == ["p1", "q1"]  # one each: p2 waits, cl_p has one in flight
        lanes.submit([claim("r1", "R", "cl_r")])
        gate.ends["x10"] = None  # one of the three's slots freed
        settled(lambda: len(gate.started) == 9)
        assert gate.started[8] == "r1"  # none in flight: before p2 and the three's
        gate.ends["p1"] = OK_FAST
        settled(lambda: len(gate.started) == 10)
        assert gate.started[9] == "p2"  # cl_p has none in flight again; the three still wait
        gate.ends["q1"] = OK_FAST
        settled(lambda: lanes.inflight == 7)
        assert len(gate.started) == 10  # the last free slot stays free for a newcomer
        gate.ends["r1"] = gate.ends["p2"] = OK_FAST
        settled(lambda: len(gate.started) == 11)
        assert gate.started[10][0] in "xyz" and lanes.inflight == 6  # the three again, up to 3 quarters
    finally:
        lanes.close(grace=0)


def test_no_more_than_concurrency_attempts_run_and_a_freed_slot_is_taken_again() -> None:
    gate = Gate()
    lanes = lanes_of(gate, concurrency=3, endpoint=2, client=2)
    try:
        lanes.submit([claim("a1", "A")])
        settled(lambda: gate.started == ["a1"])
        gate.ends["a1"] = OK_FAST
        settled(lambda: lanes.pending == 0)
        lanes.submit([claim("a2", "A"), claim("a3", "A"), claim("b1", "B", "cl_2")])
        settled(lambda: len(gate.started) == 4)
        assert gate.started == ["a1", "a2", "b1", "a3"] and lanes.pending == 3  # a1's slots all free again
        lanes.submit([claim("b2", "B", "cl_2")])
        assert lanes.pending == 4
        lanes.submit([claim("b3", "B", "cl_2")])  # added to what waits
        assert lanes.pending == 5
        settled(lambda: True)
        assert len(gate.started) == 4  # 3 at once at most
        gate.ends["a2"] = OK_FAST
        settled(lambda: len(gate.started) == 5)
        assert gate.started[4] == "b2" and lanes.inflight == 3
        assert [o.claimed.event_id for o in lanes.collect()[0]] == ["a1", "a2"]
    finally:
        lanes.close(grace=0)


@pytest.mark.parametrize(("answer", "kept"), [(FAILED, 0), (None, 0), (OK_SLOW, 2), (OK_FAST, 4)])
def test_what_waits_in_a_lane_behind_an_answer_that_is_not_a_fast_2xx_is_sent_back(answer: Any, kept: int) -> None:
    """A failure (or an attempt not made) sends back the rest of its endpoint's lane; a slow
    2xx keeps what the endpoint's plain caps hold; a fast 2xx keeps all. Other lanes stay,
    however long."""
    gate = Gate()
    lanes = lanes_of(gate, concurrency=2, endpoint=2)
    waiting = [claim(f"a{n}", "A") for n in range(2, 6)]
    try:
        lanes.submit([claim("a1", "A"), claim("b1", "B"), *waiting, claim("b2", "B"), claim("b3", "B"), claim("b4", "B")])
        settled(lambda: len(gate.started) == 2)
        gate.ends["a1"] = answer
        settled(lambda: len(gate.started) == 3)
        done, released = lanes.collect()
        back = ["a1"] if answer is None else []
        assert [c.event_id for c in released] == back + [p.claimed.event_id for p in waiting[kept:]][::-1]
        assert [o.claimed.event_id for o in done] == ([] if answer is None else ["a1"])
        assert gate.started[2] == ("a2" if kept else "b2")
        # b1 and the next; what A kept less the one started, and B's 3 waiting (all kept: not its answer)
        assert (lanes.inflight, lanes.queued) == (2, kept + 2)
    finally:
        lanes.close(grace=0)


def test_a_claim_past_its_start_is_sent_back_unattempted_and_a_waiter_counts_it() -> None:
    gate = Gate()
    lanes = lanes_of(gate)
    try:
        lanes.submit([claim("slow", "A"), claim("late", "B", start_by=time.monotonic() - 1)])
        started = time.monotonic()
        lanes.wait(1, timeout=5)
        assert time.monotonic() - started < 2
        done, released = lanes.collect()
        assert (done, [c.event_id for c in released]) == ([], ["late"])
        assert gate.started == ["slow"] and lanes.pending == 1
    finally:
        lanes.close(grace=0)


def test_wait_returns_at_its_timeout_with_nothing_finished() -> None:
    gate = Gate()
    lanes = lanes_of(gate)
    try:
        lanes.submit([claim("a1", "A")])
        started = time.monotonic()
        lanes.wait(1, timeout=0.3)
        assert 0.3 <= time.monotonic() - started < 1.2
        assert lanes.collect() == ([], [])
        lanes.wait(1, timeout=0)
        assert lanes._want == 0  # nobody waits now
    finally:
        lanes.close(grace=0)


def test_closing_lanes_send_back_what_they_are_given() -> None:
    gate = Gate()
    lanes = lanes_of(gate)
    try:
        lanes.io.call(lanes._close)
        lanes.submit([claim("a1", "A"), claim("a2", "A")])
        settled(lambda: len(lanes.released) == 2)
        assert gate.started == [] and lanes.pending == 0
    finally:
        lanes.close(grace=0)


def test_close_sends_back_what_waits_lets_the_attempts_in_flight_end_and_runs_then(caplog: pytest.LogCaptureFixture) -> None:
    gate = Gate()
    lanes = lanes_of(gate, concurrency=1)
    ran: list[int] = []
    lanes.submit([claim("a1", "A"), claim("b1", "B"), claim("c1", "C")])
    settled(lambda: gate.started == ["a1"])
    started = time.monotonic()  # before the timer's start: it ends the attempt 0.2 s after that
    threading.Timer(0.2, lambda: gate.ends.update(a1=OK_FAST)).start()
    with caplog.at_level("ERROR", logger="capsa.webhooks"):
        abandoned = lanes.close(grace=2, then=lambda: ran.append(threading.get_ident()))
    took = time.monotonic() - started
    assert abandoned == 0 and 0.2 <= took < 1.0
    assert ran and ran[0] == lanes.io.thread.ident  # on the event loop, last
    done, released = lanes.collect()
    assert [o.claimed.event_id for o in done] == ["a1"] and sorted(c.event_id for c in released) == ["b1", "c1"]
    assert gate.started == ["a1"] and lanes.pending == 0 and lanes.stopped
    assert caplog.records == []


def test_close_abandons_what_outlives_its_grace_and_logs_a_wedged_end(caplog: pytest.LogCaptureFixture) -> None:
    gate = Gate()
    lanes = lanes_of(gate)
    lanes.submit([claim("a1", "A"), claim("b1", "B")])
    settled(lambda: len(gate.started) == 2)

    def broken() -> None:
        raise RuntimeError("wedged")

    started = time.monotonic()
    with caplog.at_level("ERROR", logger="capsa.webhooks"):
        abandoned = lanes.close(grace=0.3, then=broken)
    assert abandoned == 2 and time.monotonic() - started >= 0.3
    assert lanes.pending == 0 and lanes.collect() == ([], [])  # abandoned: nothing recorded
    assert [r.getMessage() for r in caplog.records] == ["the webhook event loop did not end its attempts"]


def test_close_runs_then_after_the_abandoned_attempts_have_ended(caplog: pytest.LogCaptureFixture) -> None:
    gate = Gate()
    lanes = lanes_of(gate)
    lanes.submit([claim("a1", "A"), claim("b1", "B")])
    settled(lambda: len(gate.started) == 2)
    seen: list[int] = []
    with caplog.at_level("ERROR", logger="capsa.webhooks"):
        assert lanes.close(grace=0.1, then=lambda: seen.append(lanes.inflight)) == 2
    assert seen == [0] and caplog.records == []  # each cancelled attempt unwound first; nothing went wrong
