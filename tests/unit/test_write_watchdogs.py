"""The write path's two watchdog threads: the write deadline and the receipts' flush timer.

Both wake their thread only when it would otherwise sleep past what was just armed (not on
every write: a thread switch per request); these tests pin that nothing is ever late for it.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from service.adapters.pending_receipts import PendingReceipts, Receipt
from service.adapters.uow import _Deadlines


class FakeConnection:
    def __init__(self) -> None:
        self.cancelled_at: float | None = None
        self.done = threading.Event()

    def cancel_safe(self, timeout: float) -> None:
        self.cancelled_at = time.monotonic()
        self.done.set()


def test_a_short_deadline_armed_while_a_long_one_waits_is_cancelled_on_time() -> None:
    deadlines = _Deadlines()
    slow, fast = FakeConnection(), FakeConnection()
    with deadlines.armed(slow, 30):  # type: ignore[arg-type]
        started = time.monotonic()
        with deadlines.armed(fast, 0.2):  # type: ignore[arg-type]
            assert fast.done.wait(5)
        assert fast.cancelled_at is not None
        assert 0.15 <= fast.cancelled_at - started < 1.5
    assert slow.cancelled_at is None


def test_writes_armed_one_after_another_wake_the_watchdog_once_and_each_is_cancelled_at_its_own_deadline() -> None:
    deadlines = _Deadlines()
    notified = []
    first, second = FakeConnection(), FakeConnection()
    with deadlines.armed(FakeConnection(), 0.05):  # type: ignore[arg-type]  # starts the watchdog
        pass
    real_notify = deadlines._cond.notify

    def counting_notify(n: int = 1) -> None:
        notified.append(n)
        real_notify(n)

    deadlines._cond.notify = counting_notify  # type: ignore[method-assign]
    time.sleep(0.2)  # the watchdog found nothing armed and sleeps until notified
    started = time.monotonic()
    with deadlines.armed(first, 0.3):  # type: ignore[arg-type]  # wakes it: it slept with no deadline
        pass  # disarmed before its deadline: never cancelled
    with deadlines.armed(second, 0.4):  # type: ignore[arg-type]  # later than what it waits for: no wake-up
        assert second.done.wait(5)
    assert notified == [1]
    assert first.cancelled_at is None
    assert second.cancelled_at is not None and 0.35 <= second.cancelled_at - started < 1.5


def _receipt(sequence: int) -> Receipt:
    return Receipt("cl_x", sequence, "kid", b"\x01" * 64)


def test_receipts_added_while_the_timer_waits_are_stored_within_the_flush_time_and_after_it_went_idle_too() -> None:
    stored: list[tuple[float, list[int]]] = []
    flushed = threading.Event()

    def flush(receipts: list[Receipt]) -> None:
        stored.append((time.monotonic(), [r.sequence for r in receipts]))
        flushed.set()

    pending = PendingReceipts(flush, flush_after_s=0.2)
    try:
        started = time.monotonic()
        pending.add(_receipt(1))
        assert pending.take() == [_receipt(1)]  # a write carried it: the timer still waits
        pending.add(_receipt(2))  # no wake-up: the timer wakes on its own and looks again
        assert flushed.wait(5)
        when, sequences = stored[0]
        assert sequences == [2]
        assert 0.15 <= when - started < 1.5
        time.sleep(0.1)  # the timer found nothing and sleeps with no deadline
        flushed.clear()
        again = time.monotonic()
        pending.add(_receipt(3))  # so this one must wake it
        assert flushed.wait(5)
        when, sequences = stored[1]
        assert sequences == [3]
        assert 0.15 <= when - again < 1.5
        assert len(pending) == 0
    finally:
        pending.close()


def test_receipts_the_timer_could_not_store_wait_and_are_stored_once_the_database_answers() -> None:
    attempts: list[list[int]] = []
    stored = threading.Event()

    def flush(receipts: list[Receipt]) -> None:
        attempts.append([r.sequence for r in receipts])
        if len(attempts) < 3:  # the database out of reach for two tries
            raise OSError("connection refused")
        stored.set()

    pending = PendingReceipts(flush, flush_after_s=0.1)
    try:
        pending.add(_receipt(1))
        assert stored.wait(5)
        assert attempts == [[1], [1], [1]]
        assert len(pending) == 0
    finally:
        pending.close()


def test_receipts_a_closing_process_could_not_store_are_left_to_be_remade() -> None:
    def flush(receipts: list[Receipt]) -> None:
        raise OSError("connection refused")

    pending = PendingReceipts(flush, flush_after_s=60)
    pending.add(_receipt(1))
    pending.close()  # no retry: the process is ending
    assert len(pending) == 0


def test_a_receipt_put_back_after_a_failed_write_is_stored_by_the_timer() -> None:
    stored: list[list[int]] = []
    flushed = threading.Event()

    def flush(receipts: list[Any]) -> None:
        stored.append([r.sequence for r in receipts])
        flushed.set()

    pending = PendingReceipts(flush, flush_after_s=0.1)
    try:
        pending.add(_receipt(1))
        riding = pending.take()
        pending.add(_receipt(2))
        pending.put_back(riding)
        assert flushed.wait(5)
        assert stored == [[1, 2]]
    finally:
        pending.close()
