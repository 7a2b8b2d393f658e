"""The webhook dispatcher: queue each endpoint's events, claim the due ones, POST them.

A loop (`capsa webhooks dispatch`, a process of its own) that, every poll:

1. queues deliveries for each enabled endpoint whose client's chain has moved past the
   endpoint's `cursor` (the records after it, the types it takes), and moves the cursor,
   with the endpoint row locked (SKIP LOCKED: another dispatcher takes another endpoint);
2. claims due deliveries up to its free delivery slots, and no endpoint (no client) more
   than its own free slots, counted over every dispatcher's unexpired claims: it sets their
   `next_attempt_at` to the end of a lease and a claim token, so a dispatcher that dies
   leaves them due again when the lease ends (PostgreSQL: FOR UPDATE SKIP LOCKED, so
   dispatchers never claim the same delivery; SQLite: one dispatcher at a time holds the
   lease in `dispatcher_leases`);
3. sends them concurrently (a thread each, `concurrency` at most), each attempt ending by
   its deadline (`timeout_s`, all of it), and records every attempt: 2xx is delivered; anything else is retried after the next step of the retry
   schedule, jittered, until the schedule is used up (failed); an endpoint failing for
   `disable_after` (3 days) since its last success is disabled.

A claim lasts `claim_s`: the most a claimed delivery waits for its thread (`QUEUE_S`), its
attempt's deadline, and `RECORD_S` to record the outcome. An attempt that starts late is
shortened to end in time, so no claim runs out while its attempt is in flight, and an
event is not sent a second time beside a first copy still in flight. A slow or hanging
endpoint thus holds `endpoint_concurrency` slots at most, each for `timeout_s` at most,
and only its own events wait.

On SIGTERM the loop claims no more and waits for the attempts in flight (each ends by its
deadline), at most `shutdown_grace_s` (the deadline and 1 s) from the signal.

Delivery is at least once: an answer lost after the receiver acted on it (a timeout, a
dispatcher killed between the POST and its record) means the event is sent again, with
the same `webhook-id`, which receivers dedupe on.
"""

from __future__ import annotations

import logging
import os
import random
import secrets
import socket
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from service.adapters import delivery
from service.adapters.models import Webhook
from service.adapters.uow import Database
from service.adapters.webhooks import DELIVERED, FAILED, PENDING, Claimed, Target
from service.domain import webhooks as hooks

from . import events
from .ids import utcnow_ms
from .webhooks import _delivery, _record_time, allow_private, live_secrets

log = logging.getLogger("capsa.webhooks")
LEASE = "dispatcher"
USER_AGENT = "capsa-webhooks/1"
QUEUE_S = 2.0  # a claim's allowance for reaching its thread (claims never exceed free threads)
RECORD_S = 10.0  # and for recording the outcome on a busy database, after the attempt
MIN_ATTEMPT_S = 0.1  # an attempt left less than this by a late start is not made (retried)


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
    lease_s: float = 10.0  # the SQLite dispatcher's lease
    batch: int = 500  # records queued per endpoint per poll

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
        env = os.environ if env is None else env
        base = cls()
        disable = env.get("WEBHOOK_DISABLE_AFTER")
        return cls(
            schedule=hooks.parse_schedule(env.get("WEBHOOK_RETRY_SCHEDULE") or hooks.DEFAULT_SCHEDULE),
            timeout_s=float(env.get("WEBHOOK_TIMEOUT_S") or base.timeout_s),
            allow_private=allow_private(),
            concurrency=int(env.get("WEBHOOK_CONCURRENCY") or base.concurrency),
            endpoint_concurrency=int(env.get("WEBHOOK_ENDPOINT_CONCURRENCY") or base.endpoint_concurrency),
            client_concurrency=int(env.get("WEBHOOK_CLIENT_CONCURRENCY") or base.client_concurrency),
            disable_after_s=hooks.parse_schedule(disable)[0] if disable else base.disable_after_s,
            poll_s=float(env.get("WEBHOOK_POLL_S") or base.poll_s),
            lease_s=float(env.get("WEBHOOK_LEASE_S") or base.lease_s),
        )


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
    """A claimed delivery, where it goes (None: the endpoint is gone), what it carries, and
    when (monotonic) its attempt must end for its claim to outlive it."""

    claimed: Claimed
    target: Target | None
    event: events.Event | None
    end_by: float = float("inf")


@dataclass(frozen=True, slots=True)
class Outcome:
    claimed: Claimed
    result: delivery.Result
    was_failing: bool


@dataclass
class Dispatcher:
    db: Database
    settings: Settings = field(default_factory=Settings)
    metrics: Metrics | None = None
    rng: random.Random = field(default_factory=random.SystemRandom)
    holder: str = field(default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}")

    def __post_init__(self) -> None:
        self.sqlite = self.db.dialect == "sqlite"
        self.stopping = threading.Event()
        self._last_gauges = 0.0
        self._unrecorded: list[Outcome] = []
        self.abandoned = 0  # attempts still in flight when the shutdown grace ran out

    # -- the loop --------------------------------------------------------------------------

    def run(self, stop: threading.Event | None = None) -> None:
        """Until `stop` is set (SIGTERM/SIGINT in the command); then the attempts in flight
        end (by their deadline) and are recorded, within `shutdown_grace_s` of the stop.
        Any left past it are abandoned (`abandoned`): their claims run out and their events
        are sent again, with the same `webhook-id`."""
        stop = stop or self.stopping
        pool = ThreadPoolExecutor(self.settings.concurrency, thread_name_prefix="webhook")
        inflight: set[Future[Outcome | None]] = set()
        tick = min(self.settings.poll_s, 0.25)  # how soon a stop is seen while attempts run
        try:
            while not stop.is_set():
                try:
                    busy = self.step(pool, inflight)
                except Exception:  # the database went away: log, wait, go on
                    log.exception("dispatcher step failed")
                    busy = False
                if inflight:
                    done, _ = wait(inflight, timeout=tick, return_when=FIRST_COMPLETED)
                    inflight.difference_update(done)
                    self._record_done(done)
                else:
                    if self._unrecorded:
                        self._record_done(set())
                    if not busy:
                        stop.wait(self.settings.poll_s)
            done, left = wait(inflight, timeout=self.settings.timeout_s + 0.5)
            self._record_done(done)
            self.abandoned = len(left)
            if left:
                log.warning("stopping with %d attempts still in flight: their claims will run out", len(left))
        finally:
            pool.shutdown(wait=not self.abandoned, cancel_futures=True)
            if self.sqlite:
                self._release()

    def _record_done(self, done: set[Future[Outcome | None]]) -> None:
        """Record what finished, and what an earlier pass could not record (a busy or
        unreachable database): kept and tried again each pass, so an outcome is lost (and
        its event sent again) only if its claim runs out first."""
        outcomes = self._unrecorded + [o for f in done if (o := f.result()) is not None]
        self._unrecorded = []
        try:
            self.record(outcomes)
        except Exception:
            log.exception("could not record %d attempts; trying again", len(outcomes))
            self._unrecorded = outcomes[-10_000:]

    def step(self, pool: ThreadPoolExecutor, inflight: set[Future[Outcome | None]]) -> bool:
        """One pass: lease, queue, claim, submit. True when there was work to claim."""
        if self.sqlite and not self._hold_lease():
            return False
        self.fan_out()
        free = self.settings.concurrency - len(inflight)
        claimed_at = time.monotonic()
        claimed = self.claim(free) if free > 0 else []
        end_by = claimed_at + QUEUE_S + self.settings.timeout_s
        for p in self.prepare(claimed, end_by) if claimed else []:
            inflight.add(pool.submit(self.deliver, p))
        self._gauges()
        return len(claimed) == free and free > 0

    def run_until_idle(self, timeout: float = 30.0) -> None:
        """Deliver everything due now, then return (tests, `--once`)."""
        deadline = time.monotonic() + timeout
        try:
            with ThreadPoolExecutor(self.settings.concurrency) as pool:
                while time.monotonic() < deadline:
                    inflight: set[Future[Outcome | None]] = set()
                    self.step(pool, inflight)
                    if not inflight:
                        return
                    done, _ = wait(inflight)
                    self._record_done(done)
        finally:
            if self.sqlite:
                self._release()

    # -- the SQLite lease ------------------------------------------------------------------

    def _hold_lease(self) -> bool:
        now = utcnow_ms()
        with self.db.unit_of_work(write=True) as uow:
            held = uow.webhooks.take_lease(LEASE, self.holder, now, now + timedelta(seconds=self.settings.lease_s))
            uow.commit()
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
        with self.db.unit_of_work() as uow:
            due = uow.webhooks.due_for_fanout(100)
        queued = 0
        for client_id, webhook_id in due:
            with self.db.unit_of_work(write=True) as uow:
                w = uow.webhooks.lock_for_fanout(client_id, webhook_id)
                if w is None:
                    continue  # another dispatcher is queueing it
                found = uow.webhooks.events(w.client_id, w.cursor + 1, None, None, self.settings.batch)
                if not found:
                    continue
                now = utcnow_ms()
                rows: list[dict[str, Any]] = []
                for f in found:
                    wanted = [(e, t) for e, t in events.expand(f) if hooks.subscribed(w.events, t)]
                    if not wanted:
                        continue
                    at = _record_time(f.record.canonical)
                    rows.extend(_delivery(w.id, w.client_id, e, f.record.sequence, t, at, now) for e, t in wanted)
                existing = uow.webhooks.existing(w.client_id, w.id, [r["event_id"] for r in rows])
                rows = [r for r in rows if r["event_id"] not in existing]  # redelivered meanwhile
                uow.webhooks.queue(rows)
                w.cursor = found[-1].record.sequence
                uow.commit()
                queued += len(rows)
        return queued

    def claim(self, limit: int) -> list[Claimed]:
        now = utcnow_ms()
        token = secrets.token_hex(8)
        with self.db.unit_of_work(write=True) as uow:
            claimed = uow.webhooks.claim_due(
                now, now + timedelta(seconds=self.settings.claim_s), token, limit,
                self.settings.endpoint_concurrency, self.settings.client_concurrency,
            )
            uow.commit()
        return claimed

    # -- sending -------------------------------------------------------------------------------

    def prepare(self, claimed: list[Claimed], end_by: float = float("inf")) -> list[Prepared]:
        """Each claimed delivery with its endpoint and its event, read in a few queries
        (the endpoints at once, each client's records at once), before any is sent; its
        attempt is to end by `end_by` (monotonic)."""
        out: list[Prepared] = []
        by_client: dict[str, list[Claimed]] = {}
        for c in claimed:
            by_client.setdefault(c.client_id, []).append(c)
        with self.db.unit_of_work() as uow:
            targets = uow.webhooks.targets((c.client_id, c.webhook_id) for c in claimed)
            for client_id, group in by_client.items():
                found = uow.webhooks.records_at(client_id, (c.sequence for c in group))
                for c in group:
                    record = found.get(c.sequence)
                    rendered = [] if record is None else events.render(self.db, uow, client_id, [record], [[c.event_type]])
                    out.append(Prepared(c, targets.get(c.webhook_id), rendered[0] if rendered else None, end_by))
        return out

    def deliver(self, p: Prepared) -> Outcome | None:
        """Send one delivery; its outcome is recorded by the loop, with others, in one
        transaction (None: nothing to record)."""
        try:
            return self._deliver(p)
        except Exception:  # recorded as nothing: the claim runs out and it is retried
            log.exception("delivery of %s to %s failed", p.claimed.event_id, p.claimed.webhook_id)
            return None

    def _deliver(self, p: Prepared) -> Outcome | None:
        c, w, event = p.claimed, p.target, p.event
        if w is None:
            return None  # deleted meanwhile: its deliveries went with it
        timeout = min(self.settings.timeout_s, p.end_by - time.monotonic())
        if event is None:
            result = delivery.Result("connection_error", None, 0, "the event's record is missing")
        elif timeout < MIN_ATTEMPT_S:
            log.warning("delivery of %s to %s started too late for its claim: left to run out", c.event_id, c.webhook_id)
            return None
        else:
            body = event.body()
            stamp = int(time.time())
            headers = {
                "Content-Type": "application/json",
                "User-Agent": USER_AGENT,
                "webhook-id": event.id,
                "webhook-timestamp": str(stamp),
                "webhook-signature": hooks.signature_header(live_secrets(w, utcnow_ms()), event.id, stamp, body),
            }
            result = delivery.post(w.url, body, headers, timeout, self.settings.allow_private)
        return Outcome(c, result, w.failing_since is not None)

    def record(self, outcomes: list[Outcome]) -> None:
        """Record finished attempts, all in one transaction: each attempt, each delivery's
        new state (delivered, due again after its jittered delay, or failed), and each
        endpoint's failure record (disabled once failing for `disable_after_s`)."""
        if not outcomes:
            return
        now = utcnow_ms()
        disabled = []
        with self.db.unit_of_work(write=True) as uow:
            uow.webhooks.record_attempts(
                [
                    {
                        "client_id": o.claimed.client_id,
                        "webhook_id": o.claimed.webhook_id,
                        "event_id": o.claimed.event_id,
                        "attempted_at": now,
                        "outcome": o.result.outcome,
                        "status_code": o.result.status_code,
                        "latency_ms": o.result.latency_ms,
                        "error": o.result.error,
                    }
                    for o in outcomes
                ]
            )
            updates: list[tuple[Claimed, dict[str, Any]]] = []
            failing: set[tuple[str, str]] = set()
            for o in outcomes:
                c, result = o.claimed, o.result
                values: dict[str, Any] = {
                    "attempts": c.attempts + 1,
                    "last_status": result.status_code,
                    "last_error": result.error,
                    "claim": None,
                }
                if result.outcome == "delivered":
                    values.update(state=DELIVERED, delivered_at=now, next_attempt_at=now)
                    if o.was_failing:
                        uow.webhooks.mark_endpoint(
                            c.client_id, c.webhook_id, {"failing_since": None}, Webhook.failing_since.is_not(None)
                        )
                else:
                    delay = hooks.retry_delay(self.settings.schedule, c.attempts + 1, self.rng)
                    if delay is None:
                        values.update(state=FAILED, next_attempt_at=now, delivered_at=None)
                    else:
                        values.update(state=PENDING, next_attempt_at=now + timedelta(seconds=delay), delivered_at=None)
                    failing.add((c.client_id, c.webhook_id))
                updates.append((c, values))
            uow.webhooks.finish_many(updates)
            since = now - timedelta(seconds=self.settings.disable_after_s)
            for client_id, webhook_id in sorted(failing):
                uow.webhooks.mark_endpoint(client_id, webhook_id, {"failing_since": now}, Webhook.failing_since.is_(None))
                if uow.webhooks.mark_endpoint(
                    client_id,
                    webhook_id,
                    {"enabled": False, "disabled_reason": "failing", "updated_at": now},
                    Webhook.enabled.is_(True) & (Webhook.failing_since <= since),
                ):
                    disabled.append(webhook_id)
            uow.commit()
        if self.metrics is not None:
            for o in outcomes:
                self.metrics.deliveries.labels(o.result.outcome).inc()
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

