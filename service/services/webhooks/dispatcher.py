"""The webhook dispatcher: queue each endpoint's events, claim the due ones, POST them.

A loop (`capsa webhooks dispatch`, a process of its own) that, every pass, in one
transaction (`service.adapters.webhook_queue`):

1. records the outcomes of the attempts finished since the last pass, together: each
   attempt, each delivery's new state (2xx is delivered; anything else is retried after the
   next step of the retry schedule, jittered, until the schedule is used up: failed), and
   each endpoint's failure record (an endpoint failing for `disable_after` (3 days) since its
   last success is disabled);
2. claims due deliveries, up to `claim_batch` a statement, and no endpoint (no client) more
   than its own free slots, counted over every dispatcher's unexpired claims: it sets their
   `next_attempt_at` to the end of a lease and a claim token, so a dispatcher that dies
   leaves them due again when the lease ends (PostgreSQL: FOR UPDATE SKIP LOCKED, so
   dispatchers never claim the same delivery; SQLite: one dispatcher at a time holds the
   lease in `dispatcher_leases`);
3. reads the chains' fingerprint (the heads' sequences, the endpoints' cursors): only when
   it moved does it queue deliveries for each enabled endpoint whose client's chain has
   moved past the endpoint's `cursor` (the records after it, the types it takes, read
   without their bytes) and move the cursor, with the endpoint rows locked (SKIP LOCKED:
   another dispatcher takes the others).

The claimed deliveries' records are then read and parsed once each (every endpoint's copy
of an event, and each of a record's events, from the one read) and the events rendered;
they wait in lanes, one per endpoint, for `concurrency` threads, each taking the next
delivery whose endpoint has fewer than `endpoint_concurrency` attempts in flight and whose
client fewer than `client_concurrency`, the client with the fewest in flight first; the last
quarter of the threads (`reserve`) only for a client with none in flight: a slow endpoint
holds its own slots only, and however many tenants' endpoints hang, another's first event
starts at once. Each attempt ends by its deadline (`timeout_s`, all of it), on a kept-
alive connection of the endpoint's (`delivery.Pool`: resolved and checked once per
connection).

An endpoint that answered its last attempt 2xx within `FAST_S` is claimed `depth` times
its caps, to keep its lanes busy between passes; those wait in the lane behind its attempts
in flight, which stay at the plain caps. The first answer that is not a fast 2xx sends the
rest of its lane back unattempted (due again at once) and its next claims are plain ones.

A claim lasts `claim_s`: the most a claimed delivery waits for its thread (`QUEUE_S`: one
not started by then is sent back unattempted), its attempt's deadline, and `RECORD_S` to
record the outcome. An attempt thus always ends within its claim, and an event is not sent
a second time beside a first copy still in flight.

On SIGTERM the loop claims no more, sends back what waits in the lanes, and waits for the
attempts in flight (each ends by its deadline), at most `shutdown_grace_s` (the deadline
and 1 s) from the signal.

Delivery is at least once: an answer lost after the receiver acted on it (a timeout, a
dispatcher killed between the POST and its record) means the event is sent again, with
the same `webhook-id`, which receivers dedupe on.

Between passes the loop deletes the attempts past their retention (`attempts_keep_s`, 30
days), and with them the deliveries that failed for good: the endpoints that have some are
looked for every `PRUNE_EVERY_S`, then worked through a few batches at a time (`_prune`).
The deliveries and attempts of an endpoint deleted with more than one batch of them go the
same way, looked for every `PURGE_EVERY_S`, and then the endpoint's row (`_purge`).
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import random
import secrets
import socket
import threading
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from service.adapters import delivery
from service.adapters.records import StoredRecord
from service.adapters.uow import Database
from service.adapters.webhook_queue import (
    DELIVERED,
    FAILED,
    PENDING,
    AttemptRow,
    Claimed,
    DeliveryQueue,
    Finish,
    Pass,
)
from service.adapters.webhooks import Target
from service.domain import settings
from service.domain import webhooks as hooks
from service.domain.audit import known_record_time
from service.domain.errors import SettingError
from service.services.clock import utcnow_ms
from service.services.webhooks import events
from service.services.webhooks.endpoints import _delivery, allow_private, live_secrets

log = logging.getLogger("capsa.webhooks")
LEASE = "dispatcher"
USER_AGENT = "capsa-webhooks/1"
QUEUE_S = 2.0  # a claim's allowance for reaching its thread (one not started by then is sent back)
RECORD_S = 10.0  # and for recording the outcome on a busy database, after the attempt
MIN_ATTEMPT_S = 0.1  # an attempt left less than this by a late start is not made (sent back)
DEPTH = 16  # a fast endpoint's claims: its caps times this, queued in its lane
FAST_S = QUEUE_S / DEPTH / 2  # fast: a lane of DEPTH such answers drains in half of QUEUE_S
TICK_S = 0.05  # the longest a busy loop waits for outcomes before its next pass
FANOUT_ENDPOINTS = 100  # endpoints queued for per fan-out transaction
# On PostgreSQL a round's receipt is stored by its worker's next write (or within 0.5 s,
# RECEIPT_FLUSH_MS): an event of a record this young without one, of a client whose last
# write was made with a signing key (its chain head's `signing`), waits for it (due again
# after RECEIPT_RETRY_S), so every attempt carries the receipt GET answers. The dispatcher
# holds no signing key: it is the one process with a way out. Older, the receipt was lost
# with its worker: the event goes without it (a GET within minutes of the record remakes it).
RECEIPT_WAIT_S = 2.0
RECEIPT_RETRY_S = 0.2
RESUME_BATCH = 1000  # deliveries of endpoints enabled again made due per pass
OVERDUE_EVERY_S = 60.0  # how often a dispatcher disables the endpoints failing for the whole period
PRUNE_EVERY_S = 600.0  # how often a dispatcher looks for endpoints with attempts past their retention
PRUNE_BATCH = 1000  # attempts deleted per transaction
PRUNE_BATCHES = 10  # transactions between two passes at most, until the endpoints found are done
PURGE_EVERY_S = 60.0  # how often a dispatcher looks for endpoints deleted with a backlog to delete


@dataclass(frozen=True)
class Settings:
    """The dispatcher's settings; `from_env` reads the WEBHOOK_* variables."""

    schedule: tuple[float, ...] = hooks.parse_schedule(hooks.DEFAULT_SCHEDULE)
    timeout_s: float = 5.0  # an attempt's deadline, all of it
    allow_private: bool = False
    concurrency: int = 16
    endpoint_concurrency: int = 4  # attempts in flight per endpoint, across dispatchers
    client_concurrency: int = 8  # and per client, over all its endpoints
    disable_after_s: float = 3 * 86400.0
    poll_s: float = 0.2
    # While it keeps up, the least time between two fan-outs: new events gather this long,
    # so one pass queues, claims and records several instead of one (at 300 rounds/s, a
    # pass for each event cost 1.5 ms of CPU an event; 0.8 ms with this). Not while a
    # fan-out leaves more to queue.
    linger_s: float = 0.05
    lease_s: float = 10.0  # the SQLite dispatcher's lease
    batch: int = 500  # records queued per endpoint per poll
    claim_batch: int = 256  # deliveries claimed per statement at most
    depth: int = DEPTH  # a fast endpoint's claims, in multiples of its caps (1: plain caps only)
    # how long an attempt is kept (listed by GET /v1/webhooks/{id}/deliveries); None: for ever
    attempts_keep_s: float | None = 30 * 86400.0

    @property
    def claim_s(self) -> float:
        """How long a claimed delivery is held: its wait for a thread, its attempt's
        deadline, and a margin for recording the outcome on a busy database (a claim that
        runs out before its outcome is recorded is sent again: a duplicate the receiver did
        not cause). Derived, so it cannot be set shorter than an attempt."""
        return QUEUE_S + self.timeout_s + RECORD_S

    @property
    def shutdown_grace_s(self) -> float:
        """How long `capsa webhooks dispatch` takes at most to exit after SIGTERM."""
        return self.timeout_s + 1.0

    @classmethod
    def from_env(cls, env: Any = None) -> Settings:
        """The WEBHOOK_* variables; SettingError, naming the variable and its value, for one
        that would make the dispatcher deliver nothing, loop without pause or misread it (a
        count below 1, a deadline or poll of 0, two durations where one is meant)."""
        env = os.environ if env is None else env
        base = cls()
        read = _Reader(env)
        keep = (env.get("WEBHOOK_ATTEMPTS_KEEP") or "").strip()
        return cls(
            schedule=read.schedule("WEBHOOK_RETRY_SCHEDULE", hooks.DEFAULT_SCHEDULE),
            timeout_s=read.number("WEBHOOK_TIMEOUT_S", base.timeout_s, least=MIN_ATTEMPT_S),
            allow_private=allow_private(),
            concurrency=read.count("WEBHOOK_CONCURRENCY", base.concurrency),
            endpoint_concurrency=read.count("WEBHOOK_ENDPOINT_CONCURRENCY", base.endpoint_concurrency),
            client_concurrency=read.count("WEBHOOK_CLIENT_CONCURRENCY", base.client_concurrency),
            disable_after_s=read.duration("WEBHOOK_DISABLE_AFTER", base.disable_after_s),
            poll_s=read.number("WEBHOOK_POLL_S", base.poll_s, above=0.0),
            linger_s=read.number("WEBHOOK_LINGER_S", base.linger_s, least=0.0),
            lease_s=read.number("WEBHOOK_LEASE_S", base.lease_s, above=0.0),
            claim_batch=read.count("WEBHOOK_CLAIM_BATCH", base.claim_batch),
            depth=read.count("WEBHOOK_DEPTH", base.depth),
            attempts_keep_s=None if keep.lower() == "off"
            else read.duration("WEBHOOK_ATTEMPTS_KEEP", base.attempts_keep_s or 0.0, or_off=True),
        )

    @property
    def most_held(self) -> int:
        """Deliveries one dispatcher holds at most: in flight, and waiting in its lanes."""
        return max(2 * self.claim_batch, self.concurrency)


class _Reader:
    """The WEBHOOK_* variables, each checked as it is read (an empty one: its default)."""

    def __init__(self, env: Any) -> None:
        self.env = env

    def _text(self, name: str) -> str:
        return str(self.env.get(name) or "").strip()

    def count(self, name: str, default: int) -> int:
        text = self._text(name)
        if not text:
            return default
        if not text.isdigit() or int(text) < 1:
            raise SettingError(f"{name} must be a whole number of 1 or more, not {text!r}")
        return int(text)

    def number(self, name: str, default: float, *, above: float | None = None, least: float | None = None) -> float:
        return float(settings.number(
            self.env, name, default, above=above, least=least, unit="seconds", most=settings.MAX_DURATION_S
        ))

    def schedule(self, name: str, default: str) -> tuple[float, ...]:
        text = self._text(name) or default
        try:
            return hooks.parse_schedule(text)
        except hooks.InvalidWebhook as exc:
            raise SettingError(f"{name} {text!r}: {exc.message}") from exc

    def duration(self, name: str, default: float, or_off: bool = False) -> float:
        """One duration with its unit (`30d`, `12h`; a bare number is seconds), above 0
        (`or_off`: the caller took `off` already, and the refusal names it)."""
        text = self._text(name)
        if not text:
            return default
        try:
            steps = hooks.parse_schedule(text)
        except hooks.InvalidWebhook:  # its words are a retry step's: this is one duration
            steps = ()
        if len(steps) != 1 or not steps[0] > 0:
            off = ", or off" if or_off else ""
            raise SettingError(
                f"{name} must be one duration above 0, at most ten years (such as 3d or 12h){off}, not {text!r}"
            )
        return steps[0]


class Metrics:
    """Deliveries by outcome, endpoints disabled, events waiting, the oldest one's age."""

    def __init__(self) -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge

        self.registry = CollectorRegistry()
        self.deliveries = Counter(
            "capsa_webhook_deliveries", "Webhook delivery attempts by outcome.", ["outcome"], registry=self.registry
        )
        self.disabled = Counter(
            "capsa_webhook_endpoints_disabled", "Endpoints disabled after failing for the disable period.",
            registry=self.registry,
        )
        self.pruned = Counter(
            "capsa_webhook_attempts_deleted", "Delivery attempts deleted past their retention (WEBHOOK_ATTEMPTS_KEEP).",
            registry=self.registry,
        )
        self.purged = Counter(
            "capsa_webhook_deleted_rows", "Deliveries and attempts of deleted endpoints deleted after the DELETE.",
            registry=self.registry,
        )
        self.waiting = Gauge(
            "capsa_webhook_events_waiting", "Deliveries queued and not yet made (enabled endpoints).",
            registry=self.registry,
        )
        self.oldest = Gauge(
            "capsa_webhook_oldest_waiting_seconds", "Age of the oldest event not yet delivered (0: none).",
            registry=self.registry,
        )


@dataclass(frozen=True, slots=True)
class Prepared:
    """A claimed delivery, where it goes (None: the endpoint is gone), what it carries (its
    body rendered once for every endpoint's copy), the moment (monotonic) its attempt must
    start by, and the one it must end by for its claim to outlive it."""

    claimed: Claimed
    target: Target | None
    event: events.Event | None
    end_by: float = float("inf")
    start_by: float = float("inf")
    body: bytes = b""


@dataclass(frozen=True, slots=True)
class Outcome:
    claimed: Claimed
    result: delivery.Result
    was_failing: bool
    started_at: datetime | None = None  # when the attempt began (its `attempted_at`)


class Lanes:
    """Claimed deliveries waiting for an attempt, a lane per endpoint, and one event loop (a
    thread of its own, `delivery.Loop`) that runs up to `concurrency` attempts at once, each
    time taking the next delivery whose endpoint and client are under their caps of attempts
    in flight (the least busy client's first, lanes of equal ones in turn; see `_next` for
    the reserve). What finished waits for the loop in `done` (outcomes)
    and `released` (claims sent back unattempted).

    The lanes, and the counts of attempts in flight per endpoint and client, belong to the
    event loop's thread; the database loop hands it deliveries (`submit`) and takes what
    finished (`collect`), under one lock."""

    def __init__(self, settings: Settings, attempt: Callable[[Prepared], Awaitable[Outcome | None]]) -> None:
        self.settings = settings
        self.attempt = attempt
        self.cv = threading.Condition()
        # the event loop's own (no lock):
        self.lanes: dict[str, deque[Prepared]] = {}
        self.endpoint_busy: Counter[str] = Counter()
        self.client_busy: Counter[str] = Counter()
        self.running = 0
        self.reserved_from = settings.concurrency - reserve(settings.concurrency)  # running: only newcomers start
        self.tasks: set[asyncio.Task[None]] = set()
        self.closing = False  # pragma: no mutate (None reads as False)
        # shared, under `cv`:
        self.queued = 0
        self.inflight = 0
        # of `queued`, those that wait only for the reserve (their clients have attempts in
        # flight): what plain claims need not count as taking a free slot
        self.reserve_waiting = 0
        self.done: list[Outcome] = []
        self.released: list[Claimed] = []
        # how many finished the database loop waits for (0: it does not wait; 1 or None
        # before any wait only wake nobody, or read as 0)
        self._want = 0  # pragma: no mutate
        self.stopped = False  # pragma: no mutate (None reads as False)
        self.io = delivery.Loop()

    @property
    def pending(self) -> int:
        return self.queued + self.inflight

    @property
    def finished(self) -> bool:
        """Outcomes or claims sent back wait to be recorded."""
        return bool(self.done or self.released)

    def submit(self, prepared: list[Prepared]) -> None:
        with self.cv:
            self.queued += len(prepared)
        self.io.call(self._add, prepared)

    def collect(self) -> tuple[list[Outcome], list[Claimed]]:
        with self.cv:
            done, self.done = self.done, []
            released, self.released = self.released, []
        return done, released

    def wait(self, enough: int, timeout: float) -> None:
        """Until `enough` have finished, nothing is pending, or `timeout`."""
        deadline = time.monotonic() + timeout
        with self.cv:
            self._want = max(1, enough)
            try:
                while len(self.done) + len(self.released) < enough and self.pending:
                    left = deadline - time.monotonic()
                    if left <= 0:  # pragma: no mutate (left is never exactly 0: < and <= agree)
                        return
                    self.cv.wait(left)
            finally:
                self._want = 0  # pragma: no mutate (None reads as 0; 1 only wakes nobody)

    def send_back(self, webhook_id: str | None = None, keep: int = 0) -> None:
        """Send back unattempted what waits in one lane (None: in all) but its first `keep`
        (on the event loop's thread)."""
        back: list[Claimed] = []
        for name in list(self.lanes) if webhook_id is None else [webhook_id]:
            lane = self.lanes.get(name)
            while lane is not None and len(lane) > keep:
                back.append(lane.pop().claimed)
            if lane is not None and not lane:
                del self.lanes[name]
        if back:
            with self.cv:
                self.released.extend(back)
                self.queued -= len(back)
                self.cv.notify()

    def close(self, grace: float, then: Callable[[], None] | None = None) -> int:
        """Send back what waits, let the attempts in flight end (within `grace`): how many
        are still in flight after it (abandoned: cancelled, their connections closed, nothing
        recorded, so their claims run out and the events are sent again). `then` runs on the
        event loop last, before it stops."""
        self.stopped = True
        self.io.call(self._close)
        deadline = time.monotonic() + grace
        with self.cv:
            while self.inflight or self.queued:
                left = deadline - time.monotonic()
                if left <= 0:  # pragma: no mutate (left is never exactly 0: < and <= agree)
                    break
                # every change of inflight or queued while closing notifies: the poll is a backstop
                self.cv.wait(min(left, 0.05))  # pragma: no mutate
            abandoned = self.inflight
        ending = asyncio.run_coroutine_threadsafe(self._end(then), self.io.loop)
        try:
            ending.result(timeout=5)  # pragma: no mutate (a bound only a wedged loop reaches)
        except Exception:  # the loop is wedged: stop it anyway, the claims run out
            log.exception("the webhook event loop did not end its attempts")
        self.io.stop()
        return abandoned

    # -- on the event loop's thread ------------------------------------------------------------

    def _add(self, prepared: list[Prepared]) -> None:
        if self.closing:
            with self.cv:
                self.released.extend(p.claimed for p in prepared)
                self.queued -= len(prepared)
                self.cv.notify()
            return
        for p in prepared:
            self.lanes.setdefault(p.claimed.webhook_id, deque()).append(p)
        self._pump()

    def _close(self) -> None:
        self.closing = True
        self.send_back()

    async def _end(self, then: Callable[[], None] | None) -> None:
        """Cancel the attempts still in flight and wait until they have ended (each aborts
        its connection as it unwinds), run `then`, and give the loop one more turn: an
        aborted transport closes its socket in a callback of its own."""
        tasks = list(self.tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if then is not None:
            then()
        await asyncio.sleep(0)

    def _next(self) -> Prepared | None:
        """The next delivery to attempt: from the lane, under its endpoint's and client's
        caps, whose client has the fewest attempts in flight (lanes of equal ones in turn).
        The last `reserve` free slots go only to a client with none in flight: however many
        tenants' endpoints hang, another tenant's first attempt starts at once."""
        reserved = self.running >= self.reserved_from
        best: str | None = None
        fewest = self.settings.client_concurrency
        for name, lane in self.lanes.items():
            busy = self._room(name, lane)
            if busy is not None and busy < fewest and not (reserved and busy):
                best, fewest = name, busy
                if not busy:
                    break
        if best is None:
            return None
        lane = self.lanes.pop(best)
        p = lane.popleft()
        if lane:
            self.lanes[best] = lane  # to the back: the lanes take turns
        return p

    def _pump(self) -> None:
        """Start attempts while fewer than `concurrency` run and a lane has one under its caps."""
        started = 0
        while not self.closing and self.running < self.settings.concurrency and (p := self._next()) is not None:
            c = p.claimed
            self.running += 1
            self.endpoint_busy[c.webhook_id] += 1
            self.client_busy[c.client_id] += 1
            task = self.io.loop.create_task(self._run(p))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
            started += 1
        waiting = self._reserve_waiting()
        if started or waiting != self.reserve_waiting:
            with self.cv:
                self.queued -= started
                self.inflight += started
                self.reserve_waiting = waiting

    def _reserve_waiting(self) -> int:
        """What waits in the lanes, after a pump, only because the free slots are the
        reserve's: deliveries of clients with attempts in flight, under their caps."""
        if not self.reserved_from <= self.running < self.settings.concurrency:
            return 0
        return sum(len(lane) for name, lane in self.lanes.items() if self._room(name, lane))

    def _room(self, name: str, lane: deque[Prepared]) -> int | None:
        """The attempts in flight of the lane's client when its endpoint and its client are
        both under their caps (its next delivery may start), else None."""
        s = self.settings
        busy = self.client_busy[lane[0].claimed.client_id]
        return busy if busy < s.client_concurrency and self.endpoint_busy[name] < s.endpoint_concurrency else None

    async def _run(self, p: Prepared) -> None:
        c = p.claimed
        outcome: Outcome | None = None
        try:
            if time.monotonic() <= p.start_by:  # pragma: no mutate (never exactly equal: < and <= agree)
                outcome = await self.attempt(p)
        except asyncio.CancelledError:  # abandoned at shutdown: not recorded, its claim runs out
            self.running -= 1  # pragma: no mutate (closing: nothing starts again, it is not read)
            with self.cv:
                self.inflight -= 1
                self.cv.notify()
            raise
        self.running -= 1
        self.endpoint_busy[c.webhook_id] -= 1
        self.client_busy[c.client_id] -= 1
        with self.cv:
            self.inflight -= 1
            if outcome is None:
                self.released.append(c)
            else:
                self.done.append(outcome)
            # a waiter woken when it need not be checks again and waits on: `or` for either `and` agrees
            if self._want and (len(self.done) + len(self.released) >= self._want or not self.pending):  # pragma: no mutate
                self.cv.notify()
            elif self.closing:
                self.cv.notify()
        if outcome is None or outcome.result.outcome != hooks.AttemptOutcome.DELIVERED:
            self.send_back(c.webhook_id)  # failing: its next claims are plain ones
        elif not fast(outcome.result):
            self.send_back(c.webhook_id, keep=self.settings.endpoint_concurrency)  # slow: a plain lane
        self._pump()


class Chore:
    """Work the loop does between two passes on the endpoints a look-up finds: the look-up
    every `every_s` (once those it found before are done), then `work` on the next endpoint,
    a transaction a call and PRUNE_BATCHES at most between two passes. `work` says how many
    rows it deleted (each call's go to `count`) and whether the endpoint is done. A failure
    is logged as `failure`, and the look-up runs again at its next time."""

    def __init__(
        self,
        every_s: float,
        find: Callable[[], list[tuple[str, str]]],
        work: Callable[[str, str], tuple[int, bool]],
        count: Callable[[int], None],
        failure: str,
    ) -> None:
        self.every_s = every_s
        self.find, self.work, self.count, self.failure = find, work, count, failure
        self.at = 0.0  # pragma: no mutate (0 or 1: the monotonic clock is past both at start)
        self.left: list[tuple[str, str]] = []  # found and not done, the next last  # pragma: no mutate

    def run(self) -> None:
        try:
            if not self.left:
                if time.monotonic() < self.at:
                    return
                self.at = time.monotonic() + self.every_s
                self.left = self.find()[::-1]
            for _ in range(PRUNE_BATCHES):
                if not self.left:
                    break  # pragma: no mutate (return: nothing follows the loop)
                gone, done = self.work(*self.left[-1])
                self.count(gone)
                if done:
                    self.left.pop()
        except Exception:  # the database went away: look again at the next time
            log.exception(self.failure)
            self.left = []


def _receipt_pending(unsigned: list[StoredRecord]) -> set[int]:
    """The sequences of these records without a receipt that are younger than
    RECEIPT_WAIT_S: their receipt may still wait in the worker that stored them. A record
    whose time is unknown (changed in the database) waits for none."""
    since = utcnow_ms() - timedelta(seconds=RECEIPT_WAIT_S)
    return {r.sequence for r in unsigned if (at := known_record_time(r.canonical)) is not None and at > since}


def reserve(concurrency: int) -> int:
    """A dispatcher's slots kept for clients with no attempt in flight: a quarter."""
    return concurrency // 4


def fast(result: delivery.Result) -> bool:
    # latencies are whole milliseconds: < and <=, or 62.5 and 62.56 ms, bound them alike
    return result.outcome == hooks.AttemptOutcome.DELIVERED and result.latency_ms <= FAST_S * 1000  # pragma: no mutate


@dataclass
class Dispatcher:
    db: Database
    settings: Settings = field(default_factory=Settings)
    metrics: Metrics | None = None
    rng: random.Random = field(default_factory=random.SystemRandom)
    holder: str = field(default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}")

    def __post_init__(self) -> None:
        self.sqlite = self.db.dialect == "sqlite"
        self.queue = DeliveryQueue(self.db.engine)
        # Endpoints on one origin share its kept connections: as many stay idle as this
        # dispatcher can have in flight, so none is closed only to be opened again (an
        # endpoint's cap kept too few when several endpoints share an origin).
        self.pool = delivery.AsyncPool(self.settings.allow_private, per_origin=self.settings.concurrency)
        self.stopping = threading.Event()
        self._last_gauges = 0.0  # pragma: no mutate (0 or 1: the monotonic clock is past both at start)
        self._overdue_at = 0.0  # pragma: no mutate (0 or 1: the monotonic clock is past both at start)
        self._unrecorded: tuple[list[Outcome], list[Claimed]] = ([], [])
        self._fast: dict[str, bool] = {}  # by endpoint: its last attempt here was a fast 2xx
        # the fingerprint when nothing was left to queue (None, or any non-tuple: none yet)
        self._quiet: tuple[int, int, int] | None = None  # pragma: no mutate
        self._fanned_at = -math.inf  # when the last fan-out started (monotonic)
        self._behind = False  # the last fan-out left records to queue (a batch or endpoints full)
        self._due: float | None = None  # when the fan-out the last step left to its linger is due
        # the fingerprint that pass read; read only with a `_due`, which is set with it
        self._seen: tuple[int, int, int] | None = None  # pragma: no mutate (never read before it is set)
        self.abandoned = 0  # attempts still in flight when the shutdown grace ran out
        self.claims: list[int] = []  # each claim's size (the last 1,000), for the benchmark's report
        # the endpoints with attempts past their retention, and what is older than this goes
        # (set when they are found, never read before)
        self._pruner = Chore(
            PRUNE_EVERY_S, self._expired, self._prune_one, self._counter("pruned"),
            "could not delete the attempts past their retention",
        )
        self._prune_before = utcnow_ms()  # pragma: no mutate
        # the endpoints deleted with a backlog
        self._purger = Chore(
            PURGE_EVERY_S, lambda: self.queue.deleted_endpoints(), self._purge_one, self._counter("purged"),
            "could not delete the deliveries and attempts of deleted endpoints",
        )
        # SQLite: the last pass held the lease (only its holder writes)
        self._leased = False  # pragma: no mutate (None reads as False)
        # the last pass made a full batch of an enabled-again endpoint's deliveries due
        self._resuming = False
        # claimed deliveries whose record's receipt still waits in its worker: due again soon
        self._deferred: list[Claimed] = []
        # claimed deliveries of a type their endpoint no longer takes (PATCH events): deleted
        self._dropped: list[Claimed] = []

    # -- the loop --------------------------------------------------------------------------

    def run(self, stop: threading.Event | None = None) -> None:
        """Until `stop` is set (SIGTERM/SIGINT in the command); then what waits in the lanes
        is sent back and the attempts in flight end (by their deadline) and are recorded,
        within `shutdown_grace_s` of the stop. Any left past it are abandoned (`abandoned`):
        their claims run out and their events are sent again, with the same `webhook-id`."""
        stop = stop or self.stopping
        lanes = Lanes(self.settings, self.deliver)
        try:
            while not stop.is_set():
                try:
                    busy = self.step(lanes, self.settings.linger_s)
                except Exception:  # the database went away: log, wait, go on
                    log.exception("dispatcher step failed")
                    self._due = None  # a failed pass waits its poll, never only a linger
                    busy = False  # pragma: no mutate (None reads as False)
                self._prune()
                self._purge()
                if busy:
                    continue
                if lanes.pending:  # until enough have finished to record, or a tick
                    lanes.wait(self.settings.claim_batch // 2, self._wait(TICK_S))
                if not lanes.pending and (not lanes.finished or self._due is not None):
                    # Nothing in flight: wait for the poll, or for the lingered fan-out, whose
                    # pass then records what finished too (one pass, not one more for them).
                    stop.wait(self._wait(self.settings.poll_s))
            self.abandoned = self._close(lanes)
            self._record(*lanes.collect())
            if self.abandoned:
                log.warning("stopping with %d attempts still in flight: their claims will run out", self.abandoned)
        finally:
            if not lanes.stopped:
                self._close(lanes)
            if self.sqlite:
                self._release()

    def _prune(self) -> None:
        """Delete the attempts past their retention (`attempts_keep_s`): every PRUNE_EVERY_S
        the endpoints whose oldest attempt is older are found (a probe of each endpoint's
        index), then their old attempts go (with their events' deliveries failed for good),
        PRUNE_BATCH a transaction and PRUNE_BATCHES at most between two passes, until those
        endpoints are done."""
        if self.settings.attempts_keep_s is not None and not (self.sqlite and not self._leased):
            self._pruner.run()

    def _expired(self) -> list[tuple[str, str]]:
        keep = self.settings.attempts_keep_s
        assert keep is not None
        self._prune_before = utcnow_ms() - timedelta(seconds=keep)
        return self.queue.expired_endpoints(self._prune_before)

    def _prune_one(self, client_id: str, webhook_id: str) -> tuple[int, bool]:
        gone, _ = self.queue.prune_endpoint(client_id, webhook_id, self._prune_before, PRUNE_BATCH)
        return gone, gone < PRUNE_BATCH

    def _purge(self) -> None:
        """Delete what endpoints deleted with a backlog left (`endpoints.delete`): every
        PURGE_EVERY_S they are looked for, then their attempts and deliveries go, PRUNE_BATCH
        of each a transaction and PRUNE_BATCHES transactions at most between two passes,
        and each one's row once none is left."""
        if not (self.sqlite and not self._leased):
            self._purger.run()

    def _purge_one(self, client_id: str, webhook_id: str) -> tuple[int, bool]:
        gone, done = self.queue.purge_deleted(client_id, webhook_id, PRUNE_BATCH)
        return gone, done or not gone  # gone, or what is left another dispatcher's batch holds

    def _counter(self, name: str) -> Callable[[int], None]:
        """What counts a chore's rows: the metric `name`, or nothing without metrics."""
        metrics = self.metrics
        return (lambda n: None) if metrics is None else getattr(metrics, name).inc

    def _wait(self, longest: float) -> float:
        """How long the loop may wait: `longest`, or less when a fan-out waits for its linger."""
        if self._due is None:
            return longest
        return max(0.0, min(longest, self._due - time.monotonic()))

    def step(self, lanes: Lanes, linger: float = 0.0) -> bool:
        """One pass: lease, record, claim, queue, submit. True when another pass should
        follow at once (a full claim, or new deliveries queued after its claim).

        With `linger` (the loop's `linger_s`), new events are fanned out no sooner than that
        after the last fan-out, unless it left more to queue: the pass that sees them sets
        `_due`, and the first step from then on fans them out before its pass, whose claim
        then takes them (a fan-out, a pass and a read of their records for all the events
        of the linger)."""
        if self.sqlite and not self._hold_lease():
            self._record(*lanes.collect())  # what it sent while it held the lease
            return False
        now = time.monotonic()
        if self._due is not None and now >= self._due:
            self._fanned_at = now
            self._fan_out(self._seen)
        done, released = lanes.collect()
        if any(self._fast.values()) and self.settings.depth > 1:
            free = min(self.settings.claim_batch, self.settings.most_held - lanes.pending)
        else:  # plain claims only: no more than free threads, so a kill leaves no more duplicates
            # (what waits for the reserve does not take a slot a client with none in flight
            # may use: up to the reserve's size, it is not counted)
            s = self.settings
            free = s.concurrency - lanes.pending + min(lanes.reserve_waiting, reserve(s.concurrency))
        claimed_at = time.monotonic()
        claimed, fingerprint = self._pass(done, released, free)
        if claimed:
            lanes.submit(self.prepare(claimed, claimed_at + QUEUE_S + self.settings.timeout_s, claimed_at + QUEUE_S))
        queued = 0
        self._due = None
        if fingerprint != self._quiet:
            now = time.monotonic()
            if self._behind or now >= self._fanned_at + linger:
                self._fanned_at = now
                queued = self._fan_out(fingerprint)
            else:
                self._due, self._seen = self._fanned_at + linger, fingerprint
        self._gauges()
        self._disable_overdue()
        return queued > 0 or (free > 0 and len(claimed) == free) or self._resuming

    def run_until_idle(self, timeout: float = 30.0) -> None:  # pragma: no mutate (a bound no run reaches: 30 s or 31)
        """Deliver everything due now, then return (tests, `--once`)."""
        deadline = time.monotonic() + timeout
        lanes = Lanes(self.settings, self.deliver)
        try:
            while time.monotonic() < deadline:  # pragma: no mutate (never exactly at it: < and <= agree)
                busy = self.step(lanes)
                # for all of them (any count above what the lanes hold is the same), within the time left
                lanes.wait(self.settings.concurrency * 10_000, max(0.0, deadline - time.monotonic()))  # pragma: no mutate
                if not busy and not lanes.pending and not lanes.finished:
                    return
        finally:
            self._close(lanes)
            self._record(*lanes.collect())
            if self.sqlite:
                self._release()

    def _close(self, lanes: Lanes) -> int:
        """Close the lanes (within the attempt deadline and 0.5 s), then the idle connections:
        how many attempts were abandoned."""
        lanes.io.call(self.pool.close)  # idle ones: the attempts in flight close theirs
        return lanes.close(self.settings.timeout_s + 0.5, then=self.pool.close)

    def _pass(self, done: list[Outcome], released: list[Claimed], free: int) -> tuple[list[Claimed], tuple[int, int, int] | None]:
        """Record, read the fingerprint, resume and claim in one transaction. Outcomes a pass could
        not record (a busy or unreachable database) are kept and tried again each pass, so
        an outcome is lost (and its event sent again) only if its claim runs out first."""
        done = self._unrecorded[0] + done
        released = self._unrecorded[1] + released
        self._unrecorded = ([], [])
        try:
            with self.queue.pass_() as tx:
                disabled = self._write_outcomes(tx, done, released)
                self._write_held(tx)
                fingerprint = tx.fingerprint()
                # Endpoints enabled again: a batch of what they missed made due now (and
                # claimed below); a full batch asks for another pass at once.
                self._resuming = tx.resuming > 0 and tx.resume(utcnow_ms(), RESUME_BATCH) >= RESUME_BATCH
                claimed = self._claim(tx, free) if free > 0 else []
        except Exception:
            if done or released:
                log.exception("could not record %d attempts; trying again", len(done))
            self._unrecorded = (done[-10_000:], released[-10_000:])
            raise
        self._counted(done, disabled)
        return claimed, fingerprint

    def _record(self, done: list[Outcome], released: list[Claimed]) -> None:
        """Record what finished (and what earlier passes could not), in one transaction."""
        done, released = self._unrecorded[0] + done, self._unrecorded[1] + released
        self._unrecorded = ([], [])
        if not done and not released and not self._deferred and not self._dropped:
            return
        try:
            with self.queue.pass_() as tx:
                disabled = self._write_outcomes(tx, done, released)
                self._write_held(tx)
        except Exception:
            log.exception("could not record %d attempts", len(done))
            return
        self._counted(done, disabled)

    def _write_held(self, tx: Pass) -> None:
        """The claimed deliveries `prepare` held back: those waiting for their record's
        receipt, due again in RECEIPT_RETRY_S (their claims end; if this transaction fails, at
        the end of their lease), and those of a type their endpoint no longer takes, deleted
        (if it fails, claimed again)."""
        if self._deferred:
            tx.defer(self._deferred, utcnow_ms() + timedelta(seconds=RECEIPT_RETRY_S))
            self._deferred = []
        if self._dropped:
            tx.drop(self._dropped)
            self._dropped = []

    # -- the SQLite lease ------------------------------------------------------------------

    def _hold_lease(self) -> bool:
        now = utcnow_ms()
        with self.db.unit_of_work(write=True) as uow:
            held = uow.webhooks.take_lease(LEASE, self.holder, now, now + timedelta(seconds=self.settings.lease_s))
            uow.commit()
        self._leased = held
        return held

    def _release(self) -> None:
        try:
            with self.db.unit_of_work(write=True) as uow:
                uow.webhooks.release_lease(LEASE, self.holder)
                uow.commit()
        except Exception:  # pragma: no cover - the lease runs out by itself
            log.exception("could not release the dispatcher lease")

    # -- queueing ------------------------------------------------------------------------------

    def fan_out(self) -> int:
        """Queue the new events of every endpoint that has some; returns how many."""
        return self._fan_out(None)

    def _fan_out(self, fingerprint: tuple[int, int, int] | None) -> int:
        """Queue deliveries for the endpoints behind their heads, in one transaction: each
        client's records read once (without their bytes) for all its endpoints. When all
        were queued, the fingerprint they leave is remembered: no fan-out query runs until
        it moves."""
        moved = 0
        with self.queue.pass_() as tx:
            due = tx.lock_due(FANOUT_ENDPOINTS)
            # Not complete when it reached its limit, or skipped an endpoint a request holds
            # (then its fingerprint is not remembered as quiet, and the next pass looks again).
            complete = len(due) < FANOUT_ENDPOINTS and not tx.skipped(len(due))
            by_client: dict[str, list[Any]] = {}
            for target in due:
                by_client.setdefault(target.client_id, []).append(target)
            rows: list[dict[str, Any]] = []
            cursors: list[tuple[str, str, int]] = []
            now = utcnow_ms()
            for client_id, targets in by_client.items():
                # The records from the lowest cursor on, a batch: the endpoints that batch
                # reaches take theirs from it. One more than a batch behind the others (an
                # endpoint enabled again after days) does not hold them back: they are read
                # again from the lowest cursor of those it did not reach.
                waiting = sorted(targets, key=lambda t: t.cursor)
                while waiting:
                    keys = tx.event_keys(client_id, waiting[0].cursor + 1, self.settings.batch)
                    full = len(keys) >= self.settings.batch
                    complete = complete and not full
                    reached = keys[-1].sequence if keys else waiting[0].cursor
                    served = [t for t in waiting if not full or t.cursor < reached]
                    waiting = waiting[len(served):]
                    for t in served:
                        mine = [k for k in keys if k.sequence > t.cursor]
                        if not mine:
                            continue  # its records are not stored yet (a head read before them)
                        for k in mine:
                            for type_ in hooks.types_of(k.kind, k.game):
                                if hooks.subscribed(t.events, type_):
                                    event_id = hooks.event_id(k.round_id, type_)
                                    rows.append(_delivery(t.webhook_id, client_id, event_id, k.sequence, type_, k.at, now))
                        cursors.append((client_id, t.webhook_id, mine[-1].sequence))
                        moved += mine[-1].sequence - t.cursor
            tx.queue(rows)
            tx.advance(cursors)
            queued = len(rows)
        self._behind = not complete
        if fingerprint is not None and complete:
            self._quiet = (fingerprint[0], fingerprint[1], fingerprint[2] + moved)
        return queued

    def claim(self, limit: int) -> list[Claimed]:
        with self.queue.pass_() as tx:
            return self._claim(tx, limit)

    def _claim(self, tx: Pass, limit: int) -> list[Claimed]:
        now = utcnow_ms()
        s = self.settings
        deep = [w for w, quick in self._fast.items() if quick] if s.depth > 1 else []
        claimed = tx.claim(
            now, now + timedelta(seconds=s.claim_s), secrets.token_hex(8), limit,
            s.endpoint_concurrency, s.client_concurrency, deep, s.depth,
        )
        if claimed:
            self.claims = self.claims[-999:] + [len(claimed)]
        return claimed

    # -- sending -------------------------------------------------------------------------------

    def prepare(self, claimed: list[Claimed], end_by: float = float("inf"), start_by: float = float("inf")) -> list[Prepared]:
        """Each claimed delivery with its endpoint and its event, before any is sent: the
        endpoints read at once, each client's records at once, each record read and parsed
        once for all its events and every endpoint's copy of them; its attempt is to start
        by `start_by` and end by `end_by` (monotonic)."""
        wanted: dict[str, dict[int, list[str]]] = {}
        for c in claimed:
            types = wanted.setdefault(c.client_id, {}).setdefault(c.sequence, [])
            if c.event_type not in types:
                types.append(c.event_type)
        rendered: dict[tuple[str, str], tuple[events.Event | None, bytes]] = {}
        with self.queue.reads() as reads, self.db.unit_of_work() as uow:
            targets = reads.targets((c.client_id, c.webhook_id) for c in claimed)
            waiting: set[tuple[str, int]] = set()
            for client_id, by_sequence in wanted.items():
                found = reads.records_at(client_id, by_sequence)
                records = [found[s] for s in sorted(by_sequence) if s in found]
                # Only where the client's writes are signed (its head says so, from its last
                # write): an unsigned deployment's records are not parsed again for their time.
                unsigned = [f.record for f in records if f.record.signature is None]
                young = _receipt_pending(unsigned) if unsigned and reads.signs(client_id) else set()
                if young:
                    waiting.update((client_id, s) for s in young)
                    records = [f for f in records if f.record.sequence not in young]
                for e in events.render(
                    self.db, uow, client_id, records, [by_sequence[f.record.sequence] for f in records]
                ):
                    rendered[client_id, e.id] = (e, e.body())
        out = []
        for c in claimed:
            target = targets.get(c.webhook_id)
            if target is not None and not hooks.subscribed(target.events, c.event_type):
                # Queued before a PATCH of its events took the type away: never sent, as a
                # redelivery of it would be refused.
                self._dropped.append(c)
                continue
            if (c.client_id, c.sequence) in waiting:
                self._deferred.append(c)
                continue
            event, body = rendered.get((c.client_id, c.event_id), (None, b""))
            out.append(Prepared(c, target, event, end_by, start_by, body))
        return out

    async def deliver(self, p: Prepared) -> Outcome | None:
        """Send one delivery (on the lanes' event loop); its outcome is recorded by the
        database loop, with others, in one transaction (None: not attempted, sent back)."""
        try:
            return await self._deliver(p)
        except Exception:  # sent back: due again at once
            log.exception("delivery of %s to %s failed", p.claimed.event_id, p.claimed.webhook_id)
            return None

    async def _deliver(self, p: Prepared) -> Outcome | None:
        c, w, event = p.claimed, p.target, p.event
        if w is None or not w.enabled:
            # Deleted meanwhile (its deliveries went with it, or go with its purge), or
            # disabled: sent back unmade, due again once it is enabled again.
            return None
        timeout = min(self.settings.timeout_s, p.end_by - time.monotonic())
        started = utcnow_ms()
        if event is None:
            result = delivery.Result(hooks.AttemptOutcome.CONNECTION_ERROR, None, 0, "the event's record is missing")
        elif timeout < MIN_ATTEMPT_S:
            log.warning("delivery of %s to %s started too late for its claim: sent back", c.event_id, c.webhook_id)
            return None
        else:
            stamp = int(time.time())
            headers = {
                "Content-Type": "application/json",
                "User-Agent": USER_AGENT,
                "webhook-id": event.id,
                "webhook-timestamp": str(stamp),
                "webhook-signature": hooks.signature_header(live_secrets(w, started), event.id, stamp, p.body),
            }
            result = await self.pool.post(w.url, p.body, headers, timeout)
        self._fast[c.webhook_id] = fast(result)
        return Outcome(c, result, w.failing_since is not None, started)

    def _write_outcomes(self, tx: Pass, outcomes: list[Outcome], released: list[Claimed]) -> list[str]:
        """Each attempt, each delivery's new state (delivered, due again after its jittered
        delay, or failed), each claim sent back, and each endpoint's failure record
        (disabled once failing for `disable_after_s`): the endpoints disabled."""
        if not outcomes and not released:
            return []
        now = utcnow_ms()
        finishes: list[Finish] = []
        recovered: set[tuple[str, str]] = set()
        failing: set[tuple[str, str]] = set()
        for o in outcomes:
            c, result = o.claimed, o.result
            endpoint = (c.client_id, c.webhook_id)
            if result.outcome == hooks.AttemptOutcome.DELIVERED:
                state, at = DELIVERED, now
                if o.was_failing:
                    recovered.add(endpoint)
            else:
                delay = hooks.retry_delay(self.settings.schedule, c.attempts + 1, self.rng)
                state = FAILED if delay is None else PENDING
                at = now if delay is None else now + timedelta(seconds=delay)
                failing.add(endpoint)
            finishes.append(Finish(c, state, at, result.status_code, result.error))
        # The endpoints' rows first, then their deliveries': the order in which deleting an
        # endpoint takes them (the other order deadlocked with it).
        since = now - timedelta(seconds=self.settings.disable_after_s)
        disabled = tx.endpoints(now, since, sorted(recovered - failing), sorted(failing))
        tx.record(
            now,
            [AttemptRow(o.claimed, o.result.outcome, o.result.status_code, o.result.latency_ms, o.result.error,
                        o.started_at)
             for o in outcomes],
            finishes,
            released,
        )
        return disabled

    def _disable_overdue(self) -> None:
        """Every OVERDUE_EVERY_S, disable the endpoints failing for `disable_after_s` with no
        retry left: an attempt that fails disables its endpoint then, but the retries of an
        endpoint with few events can run out before the period is over (the default
        schedule's 2.8 days, +-20%, against 3 days), and no attempt comes after them."""
        if time.monotonic() < self._overdue_at:
            return
        self._overdue_at = time.monotonic() + OVERDUE_EVERY_S
        now = utcnow_ms()
        self._counted([], self.queue.disable_overdue(now, now - timedelta(seconds=self.settings.disable_after_s)))

    def _counted(self, outcomes: list[Outcome], disabled: list[str]) -> None:
        if self.metrics is not None:
            for outcome, n in Counter(o.result.outcome for o in outcomes).items():
                self.metrics.deliveries.labels(outcome).inc(n)
            for _ in disabled:
                self.metrics.disabled.inc()
        for webhook_id in disabled:
            log.warning("webhook %s disabled: failing for more than %s s", webhook_id, self.settings.disable_after_s)

    def _gauges(self) -> None:
        if self.metrics is None or time.monotonic() - self._last_gauges < 1.0:
            return
        self._last_gauges = time.monotonic()
        with self.db.unit_of_work() as uow:
            count, oldest = uow.webhooks.waiting()
        self.metrics.waiting.set(count)
        self.metrics.oldest.set(0 if oldest is None else max(0.0, (utcnow_ms() - oldest).total_seconds()))
