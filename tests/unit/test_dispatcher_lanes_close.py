"""The dispatcher's lanes at shutdown: an attempt still in flight when the grace runs out is
abandoned, and its connection is closed then, not left open until the garbage collector
happens to find it (a receiver would otherwise hold a half-dead connection per abandoned
attempt, and a dispatcher restarted in a loop would leak a socket per stop)."""

from __future__ import annotations

import gc
import socket
import threading

import pytest

from service.adapters import delivery
from service.adapters.webhooks import Claimed
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
