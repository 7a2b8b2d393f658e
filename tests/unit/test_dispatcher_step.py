"""When a dispatcher pass asks for the next at once: only when its fan-out queued something
or its claim took all its free threads. A pass that asks for another when it did neither
keeps `run` from ever waiting its poll (a busy loop until stopped) and `run_until_idle`
passing until its time runs out.

Against a stand-in for the delivery queue (one client's chain, one endpoint and its cursor,
as the real queue reads and moves them), so these run in a few milliseconds: the API tests
that would notice the same through a slow `run_until_idle` take its whole time to do so.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from service.adapters.webhook_queue import Claimed, EventKey, FanoutTarget
from service.services.webhooks.dispatcher import Dispatcher, Outcome, Settings

AT = datetime(2030, 1, 1, tzinfo=UTC)


class Chain:
    """The delivery queue's place: a client's chain up to `head` (a settled round a record),
    one endpoint taking every event at `cursor`; what each pass queued and claimed."""

    def __init__(self, head: int) -> None:
        self.head = head
        self.cursor = 0
        self.queued: list[str] = []
        self.fan_outs = 0
        self.due: list[Claimed] = []

    @contextlib.contextmanager
    def pass_(self) -> Iterator[Chain]:
        yield self

    def fingerprint(self) -> tuple[int, int, int]:
        return self.head, 1, self.cursor

    def lock_due(self, limit: int) -> list[FanoutTarget]:
        self.fan_outs += 1
        return [FanoutTarget("cl_1", "wh_1", self.cursor, ("*",))] if self.cursor < self.head else []

    resuming = 0  # no endpoint enabled again

    def disable_overdue(self, now: object, since: object) -> list[str]:
        return []  # no endpoint failing

    def skipped(self, locked: int) -> bool:
        return False  # one dispatcher, no request holding the endpoint

    def event_keys(self, client_id: str, from_sequence: int, limit: int) -> list[EventKey]:
        sequences = range(from_sequence, self.head + 1)[:limit]
        return [EventKey(s, "round", f"rnd_{s:026d}", None, AT) for s in sequences]

    def queue(self, rows: list[dict[str, Any]]) -> None:
        self.queued.extend(row["event_id"] for row in rows)

    def advance(self, cursors: list[tuple[str, str, int]]) -> None:
        if cursors:
            ((_, _, self.cursor),) = cursors

    def claim(self, now: Any, until: Any, token: str, limit: int, *caps: Any) -> list[Claimed]:
        taken, self.due = self.due[:limit], self.due[limit:]
        return taken


class Held:
    """Lanes holding `pending` deliveries, handing over nothing finished."""

    def __init__(self, pending: int = 0, reserve_waiting: int = 0) -> None:
        self.pending = pending
        self.reserve_waiting = reserve_waiting
        self.submitted = 0

    def collect(self) -> tuple[list[Outcome], list[Claimed]]:
        return [], []

    def submit(self, prepared: list[Any]) -> None:
        self.submitted += len(prepared)


def dispatcher(chain: Chain) -> Dispatcher:
    """A PostgreSQL dispatcher (no lease to take) whose queue is `chain`."""
    engine = SimpleNamespace(dialect=SimpleNamespace(name="postgresql"), execution_options=lambda **_: None)
    d = Dispatcher(SimpleNamespace(dialect="postgresql", engine=engine), Settings(concurrency=4))
    d.queue = chain
    d.prepare = lambda claimed, *_: list(claimed)
    return d


def test_a_pass_asks_for_another_only_when_it_queued_or_filled_its_free_threads() -> None:
    chain = Chain(head=2)
    d = dispatcher(chain)
    assert d.step(Held()) is True  # its fan-out queued two: another pass claims them
    assert chain.queued == [f"evt_{n:026d}_settled" for n in (1, 2)]
    assert (chain.cursor, chain.fan_outs) == (2, 1)
    assert d.step(Held()) is False  # nothing moved: no fan-out; none of its 4 free threads filled
    assert d.step(Held(pending=4)) is False  # no free thread: nothing claimed, and no other pass
    assert chain.fan_outs == 1
    chain.due = [Claimed("wh_1", f"evt_{n}", "cl_1", n, "round.settled", 0, "c") for n in range(5)]
    lanes = Held(pending=1)
    assert d.step(lanes) is True and lanes.submitted == 3  # its 3 free threads filled: there may be more
    lanes = Held(pending=3)
    assert d.step(lanes) is True and lanes.submitted == 1  # its one free thread filled
    lanes = Held(pending=1)
    assert d.step(lanes) is False and lanes.submitted == 1  # the last one: 3 free threads, not all filled
    chain.head = 3
    assert d.step(Held(pending=4)) is True and chain.cursor == 3 and chain.fan_outs == 2


def test_what_waits_for_the_reserve_does_not_take_its_slot_from_a_claim() -> None:
    """Deliveries of clients with attempts in flight, waiting in the lanes only because the
    free slots are the reserve's, would otherwise leave nothing to claim: another client's
    events (none in flight) would wait for one of the others' attempts to end."""
    chain = Chain(head=0)
    d = dispatcher(chain)  # 4 threads: a reserve of 1
    chain.due = [Claimed("wh_2", f"evt_{n}", "cl_2", n, "round.settled", 0, "c") for n in range(5)]
    lanes = Held(pending=4, reserve_waiting=1)  # 3 in flight, 1 waiting for the reserve
    assert d.step(lanes) is True and lanes.submitted == 1
    lanes = Held(pending=5, reserve_waiting=3)  # counted up to the reserve's size
    assert d.step(lanes) is False and lanes.submitted == 0
    lanes = Held(pending=4, reserve_waiting=0)
    assert d.step(lanes) is False and lanes.submitted == 0
