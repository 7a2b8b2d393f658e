"""Receipts signed but not yet stored (PostgreSQL): they ride in the worker's next write.

The PostgreSQL write path learns a record's hash only from the statement that stores it,
so its receipt cannot be in that statement. Rather than a second transaction per round,
the receipt waits here, in the process that signed it, and the next one-statement write of
the same process stores it (a `receipts` step of that statement, `chain_pg`). A process
with nothing more to write stores what waits after `RECEIPT_FLUSH_MS` (500 ms) in a short
transaction of its own (a timer thread, which tries again a flush time later while the
database cannot be reached), and when it exits or its database is disposed.

Nothing is lost for good if a receipt never gets stored (the process is killed, the
statement carrying it fails past its retries): the first read of the record remakes it
byte for byte (`signatures.SignatureRepository.complete`: Ed25519 is deterministic and the
key is the one active when the record was stored), which is what the service answered.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .pg_literals import int_array, text_array

log = logging.getLogger(__name__)

FLUSH_AFTER_S = 0.5  # a receipt waits at most about this long for a next write (RECEIPT_FLUSH_MS)
MAX_PENDING = 10_000  # beyond this, the oldest are left to be remade on first read

# What the timer and an exiting process store (no next write to ride in). Its commit does
# not wait for the WAL flush: a receipt lost in a crash is remade byte for byte.
FLUSH_STATEMENT = (
    "INSERT INTO chain_signatures (client_id, sequence, kid, signature) "
    "SELECT r.client_id, r.sequence, r.kid, decode(r.signature, 'hex') "
    "FROM unnest(%(r_clients)s::text[], %(r_sequences)s::int8[], %(r_kids)s::text[], %(r_signatures)s::text[]) "
    "AS r(client_id, sequence, kid, signature) ON CONFLICT DO NOTHING"
)


@dataclass(frozen=True, slots=True)
class Receipt:
    client_id: str
    sequence: int
    kid: str
    signature: bytes


def parameters(receipts: Sequence[Receipt]) -> dict[str, str]:
    """The receipts as four array literals (one text parameter each: cheaper to send than
    adapted Python lists), for `FLUSH_STATEMENT` and the write statement's `receipts` step."""
    return {
        "r_clients": text_array(r.client_id for r in receipts),
        "r_sequences": int_array(r.sequence for r in receipts),
        "r_kids": text_array(r.kid for r in receipts),
        "r_signatures": "{" + ",".join(r.signature.hex() for r in receipts) + "}",
    }


class PendingReceipts:
    """One database's receipts waiting for a statement to carry them, in this process.

    `flush(receipts)` stores receipts alone (a transaction of its own); it is called by the
    timer thread, at exit and by `drain`."""

    def __init__(self, flush: Callable[[list[Receipt]], None], flush_after_s: float = FLUSH_AFTER_S) -> None:
        self._flush = flush
        self.flush_after_s = flush_after_s
        self._lock = threading.Condition()
        self._items: list[Receipt] = []
        self._oldest = 0.0  # monotonic time the oldest waiting receipt was added
        self._pid = -1  # the process whose timer runs (-1: none yet, or closed)
        self._owner = os.getpid()  # the process the waiting receipts belong to
        # The timer sleeps without a deadline (nothing waited when it last looked): only
        # then must a first receipt wake it. Otherwise it wakes on its own, no later than the
        # oldest receipt's flush time, and looks again; waking it on every write would cost
        # a thread switch per request for nothing.
        self._idle = True

    def __len__(self) -> int:
        return len(self._items)

    def add(self, receipt: Receipt) -> None:
        with self._lock:
            if self._pid != os.getpid():
                self._start()
            if not self._items:
                self._oldest = time.monotonic()
                if self._idle:
                    self._lock.notify()
            self._items.append(receipt)
            if len(self._items) > MAX_PENDING:
                del self._items[: len(self._items) - MAX_PENDING]

    def take(self) -> list[Receipt]:
        """Everything waiting (now the caller's to store, or to `put_back`)."""
        if not self._items:
            return []
        with self._lock:
            items, self._items = self._items, []
            return items

    def put_back(self, receipts: list[Receipt]) -> None:
        """Receipts whose statement failed: they wait again, oldest first."""
        if not receipts:
            return
        with self._lock:
            if not self._items:
                self._oldest = time.monotonic()
                if self._idle:
                    self._lock.notify()
            self._items[:0] = receipts
            if len(self._items) > MAX_PENDING:
                del self._items[: len(self._items) - MAX_PENDING]

    def discard(self) -> int:
        """Forget what waits (what a killed process loses); how many were forgotten."""
        with self._lock:
            n, self._items = len(self._items), []
            return n

    def drain(self, keep: bool = False) -> None:
        """Store what waits now, in a transaction of its own (exit, dispose, the timer).

        Where that fails, `keep` (the timer) puts them back to be tried again a flush time
        later, so a database out of reach for a moment loses none; otherwise (the process
        is ending) they are left to be remade (docs/audit.md)."""
        items = self.take()
        if not items:
            return
        try:
            self._flush(items)
        except Exception as error:
            if keep:
                self.put_back(items)
                log.warning("%d receipts not stored (%s); trying again in %.1f s", len(items), error,
                            self.flush_after_s)
            else:
                log.warning("%d receipts not stored; capsa sweep remakes them (a read, within 5 minutes of the record)",
                            len(items), exc_info=True)

    def close(self) -> None:
        """Store what waits and stop the timer (the next receipt starts it again)."""
        with self._lock:
            self._pid = -1
            self._lock.notify()
        self.drain()

    def _start(self) -> None:
        # First receipt in this (maybe forked) process: what the parent had is not ours.
        if os.getpid() != self._owner:
            self._items = []
        self._pid = self._owner = os.getpid()
        _LIVE.add(self)
        threading.Thread(target=self._timer, args=(self._pid,), name="capsa-receipts", daemon=True).start()

    def _timer(self, pid: int) -> None:
        while True:
            with self._lock:
                while self._pid == pid and (
                    not self._items or time.monotonic() < self._oldest + self.flush_after_s
                ):
                    wait = None if not self._items else self._oldest + self.flush_after_s - time.monotonic()
                    self._idle = wait is None
                    self._lock.wait(wait)
                    self._idle = False
                if self._pid != pid:
                    return
            self.drain(keep=True)


_LIVE: weakref.WeakSet[PendingReceipts] = weakref.WeakSet()


@atexit.register
def _drain_all() -> None:
    """A process ending normally (a gunicorn worker recycled or stopped) stores what waits."""
    for pending in list(_LIVE):
        if pending._owner == os.getpid():
            pending.drain()


def flush_with(cursor: Any, receipts: Sequence[Receipt]) -> None:
    """Store `receipts` with a psycopg cursor on a connection in a transaction."""
    cursor.execute("SET LOCAL synchronous_commit TO off")
    cursor.execute(FLUSH_STATEMENT, parameters(receipts))


__all__ = ["FLUSH_AFTER_S", "PendingReceipts", "Receipt", "flush_with", "parameters"]
