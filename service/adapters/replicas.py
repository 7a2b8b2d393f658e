"""Reports off the primary: a standby (READ_DATABASE_URL) and where each report reads.

`report(db, client_id, work)` runs `work(uow, as_of)` in one read-only snapshot, on the
standby when it is current enough, else on the primary, and hands `work` the `AsOf` the
snapshot reaches: the client's chain head as that snapshot sees it.

- Lag: on the standby, 0 while everything received is replayed, else
  `now() - pg_last_xact_replay_timestamp()` (that alone grows while the primary is idle, so
  it is only read when WAL waits to be replayed). Beyond `max_lag_s` the primary serves.
- The primary vouches for the head the standby reached, per report, in one indexed read
  (`vouch`, with VOUCH_DEADLINE_S): the same record there (else the standby is set aside:
  a fork, another cluster, a promoted standby written to), and no newer record of the
  client older than `max_lag_s` (else the primary serves: the standby's own figures miss a
  WAL receiver that stalled). A head past the primary's snapshot is a commit the standby
  shows first: the primary serves that report.
- A standby that answers nothing (a stopped process; no statement_timeout or cancel reaches
  it) is cut off after `read_deadline_s` (a probe after PROBE_DEADLINE_S): its socket is
  shut, the read fails as a lost connection, and the primary serves.
- `min_sequence` (a reader that just stored a round) or a cursor's pinned as_of: the
  standby's snapshot must reach it; it is polled for up to MIN_SEQUENCE_WAIT_S, then the
  primary serves.
- SQLSTATE 40001 (a recovery conflict cancelled the read) is retried once on the standby,
  then the primary serves. A standby that cannot be reached: the primary serves, and the
  standby is probed again after STATE_TTL_S.
- The URL may name several hosts (`host=a,b&target_session_attrs=prefer-standby`): libpq
  then finds a standby after a failover, or falls back to a primary; a server that is not
  in recovery reads as `primary`, lag 0, and serves (it is current).
"""

from __future__ import annotations

import contextlib
import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any, TypeVar

import psycopg
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ProgrammingError

from service.domain.signing import Keyring

from .db import Pooler, PostgresSettings, ReplicaState, ReplicaStatus, normalise_url
from .errors import DatabaseUnavailable, SerializationFailure
from .records import Head
from .uow import Database, Standby, UnitOfWork

T = TypeVar("T")
log = logging.getLogger(__name__)

DEFAULT_MAX_LAG_S = 5.0
STATE_TTL_S = 0.5  # a probe's answer is reused this long (one query per worker and interval)
MIN_SEQUENCE_WAIT_S = 1.0
# How long a standby may take over a report, and over a probe of its state, before its
# connection is cut off and the primary answers: a frozen standby (a stopped process, a hung
# disk, its host's kernel still acknowledging) answers no statement_timeout or cancel, and
# held the worker until gunicorn killed it (30 s), /readyz too. Above what a report takes
# on a live standby (its statements each end within statement_timeout, 5 s by default).
READ_DEADLINE_S = 10.0
PROBE_DEADLINE_S = 3.0
# The primary's check of the standby's head, within the standby's deadline: past it the
# primary counts as one that cannot be asked, and the standby answers.
VOUCH_DEADLINE_S = 1.0
MIN_SEQUENCE_POLL_S = 0.05

# Caught up: it has replayed all it received AND it is receiving: a standby cut off from
# the primary (no WAL receiver: a broken link, a refused login) has replayed all it ever
# received too, and read as current for ever. Without a streaming receiver its lag is the
# time since its last replayed transaction, which an idle primary also lets grow: the
# primary then serves, which is safe. (A role without pg_read_all_stats sees the
# receiver's row with its status NULL: a running receiver counts as streaming then.)
_PROBE = text(
    "SELECT pg_is_in_recovery(),"
    " pg_last_wal_receive_lsn() IS NOT NULL AND pg_last_wal_receive_lsn() <= pg_last_wal_replay_lsn()"
    " AND EXISTS (SELECT 1 FROM pg_stat_wal_receiver WHERE coalesce(status, 'streaming') = 'streaming'),"
    " EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp())"
)


class ReportSource(StrEnum):
    PRIMARY = "primary"
    REPLICA = "replica"


@dataclass(frozen=True, slots=True)
class AsOf:
    """How far a report reaches: the client's chain head in its snapshot."""

    sequence: int
    at: datetime | None  # the head record's time; None for an empty chain
    source: ReportSource


class Replica:
    """The reports' standby: a read-only `Database` and its lag, probed at most every STATE_TTL_S."""

    def __init__(
        self, url: str, keyring: Keyring | None = None, max_lag_s: float = DEFAULT_MAX_LAG_S, **options: Any
    ) -> None:
        connect_args = dict(options.pop("connect_args", None) or {"connect_timeout": 3})
        postgres: PostgresSettings = options.get("postgres") or PostgresSettings.from_env()
        # Every transaction read-only by default: a standby refuses writes anyway, and a
        # READ_DATABASE_URL that finds a primary (after a failover) is not written either
        # (nor is it by this code: a read-only Database opens no write unit of work).
        # pgbouncer refuses the `options` startup parameter: there the reader's role carries
        # it (`ALTER ROLE ... SET default_transaction_read_only = on`, docs/operations.md).
        if postgres.pooler is Pooler.NONE:
            connect_args["options"] = " ".join([connect_args.get("options", ""), "-c default_transaction_read_only=on"])
            connect_args["options"] = connect_args["options"].strip()
        if make_url(normalise_url(url)).get_backend_name() == "sqlite":
            connect_args = {}
        self.db = Database(url, keyring=keyring, read_only=True, connect_args=connect_args, **options)
        self.max_lag_s = max_lag_s
        self.on_probe: Callable[[ReplicaState], None] | None = None
        self._lock = threading.Lock()
        self._state: ReplicaState | None = None
        self._checked = 0.0

    def state(self, fresh: bool = False) -> ReplicaState:
        now = time.monotonic()
        with self._lock:
            if not fresh and self._state is not None and now - self._checked < STATE_TTL_S:
                return self._state
        found = self._probe()
        with self._lock:
            self._state, self._checked = found, time.monotonic()
        if self.on_probe is not None:
            self.on_probe(found)
        return found

    def mark_unavailable(self) -> None:
        with self._lock:
            self._state, self._checked = ReplicaState(ReplicaStatus.UNAVAILABLE, None), time.monotonic()

    def _probe(self) -> ReplicaState:
        if self.db.dialect != "postgresql":
            return ReplicaState(ReplicaStatus.OK, 0.0)  # a file copy: nothing to measure
        try:
            with contextlib.ExitStack() as armed, self.db.engine.connect() as conn:
                armed.enter_context(_cut_off_after(self.db, conn, PROBE_DEADLINE_S))  # until returned
                in_recovery, caught_up, behind = conn.execute(_PROBE).one()
        except Exception as exc:  # any failure to answer is the same: the primary serves
            log.warning("reports' standby does not answer: %s", exc)
            return ReplicaState(ReplicaStatus.UNAVAILABLE, None)
        if not in_recovery:
            return ReplicaState(ReplicaStatus.PRIMARY, 0.0)
        if caught_up:
            return ReplicaState(ReplicaStatus.OK, 0.0)
        lag = None if behind is None else max(0.0, float(str(behind)))
        current = lag is not None and lag <= self.max_lag_s
        return ReplicaState(ReplicaStatus.OK if current else ReplicaStatus.LAGGING, lag)


def read_deadline_s(db: Database) -> float:
    """How long a report may read the standby `db`: READ_DEADLINE_S, or twice its statement
    timeout where that is longer (a report's statements each end within it on a live one)."""
    statement_s = db.timeouts_ms[0] / 1000
    return max(READ_DEADLINE_S, 2 * statement_s)


def _cut_off_after(db: Database, conn: Any, seconds: float) -> contextlib.AbstractContextManager[None]:
    """`db.read_deadline` on the psycopg connection under a SQLAlchemy one (or a session's)."""
    driver = conn.connection.driver_connection
    if not isinstance(driver, psycopg.Connection):  # SQLite: a file, nothing to wait on
        return contextlib.nullcontext()
    return db.read_deadline(driver, seconds)


def lag_gauge_value(state: ReplicaState) -> float:
    """What `capsa_replica_lag_seconds` shows: the lag, NaN when it is unknown."""
    return math.nan if state.lag_seconds is None else state.lag_seconds


def _head(uow: UnitOfWork, client_id: str, source: ReportSource) -> AsOf:
    head = uow.chain.head(client_id)
    return AsOf(head.sequence, head.created_at, source)


class Vouched(StrEnum):
    """What the primary says of the standby's head for one client."""

    YES = "yes"
    STALE = "stale"  # the primary holds a newer record, written more than max_lag_s ago
    AHEAD = "ahead"  # the primary's snapshot does not reach the standby's head (yet)
    DIVERGED = "diverged"  # the primary holds another record there, or none: not its standby


def _on_replica(
    replica: Standby,
    client_id: str,
    need: int,
    pinned: AsOf | None,
    work: Callable[[UnitOfWork, AsOf], T],
    primary_head: Callable[[], int],
    vouch: Callable[[Head], Vouched],
) -> list[T]:
    """[work's result] when the standby served; [] when it stayed behind `need`, or at
    once when the primary's head (`primary_head`, asked once the standby is found behind)
    is behind it too: no standby reaches a sequence the client has not stored, and a wait
    for one would hold the worker for nothing. Before it serves, the primary vouches for the
    head it reached (`vouch`): [] when it does not."""
    deadline = time.monotonic() + MIN_SEQUENCE_WAIT_S
    first = True
    while True:
        # Armed until the snapshot has ended: its ROLLBACK and the pool's reset wait on the
        # standby too.
        with contextlib.ExitStack() as armed, replica.db.snapshot() as uow:
            armed.enter_context(_cut_off_after(replica.db, uow.session.connection(), read_deadline_s(replica.db)))
            head = uow.chain.head(client_id)
            as_of = AsOf(head.sequence, head.created_at, ReportSource.REPLICA)
            if as_of.sequence >= need:
                said = vouch(head)
                if said is Vouched.DIVERGED:
                    log.warning("reports' standby is not the primary's: client %s's record %d differs or is "
                                "not on the primary; the primary serves", client_id, head.sequence)
                    replica.mark_unavailable()
                    return []
                if said is Vouched.AHEAD or (said is Vouched.STALE and pinned is None):
                    return []
                if pinned is not None:
                    as_of = AsOf(pinned.sequence, pinned.at, ReportSource.REPLICA)
                return [work(uow, as_of)]
        if first and primary_head() < need:
            return []
        first = False
        if time.monotonic() + MIN_SEQUENCE_POLL_S > deadline:
            return []
        time.sleep(MIN_SEQUENCE_POLL_S)


def report(
    db: Database,
    client_id: str,
    work: Callable[[UnitOfWork, AsOf], T],
    *,
    min_sequence: int | None = None,
    pinned: AsOf | None = None,
) -> T:
    """`work(uow, as_of)` in one read-only snapshot of the standby or the primary (see the
    module's docstring). `pinned`: a cursor's as_of; the answer keeps it, and `work` reads
    nothing past its sequence."""
    need = max(min_sequence or 0, pinned.sequence if pinned is not None else 0)
    replica = db.replica

    def primary_head() -> int:
        """The client's head on the primary; past every sequence when the primary cannot be
        asked (then the standby is waited for as before: its failure is not the standby's)."""
        try:
            with db.snapshot() as uow:
                return uow.chain.head(client_id).sequence
        except DatabaseUnavailable:
            return need

    def vouch(head: Head) -> Vouched:
        """Whether the primary vouches for the standby's head of this client: it holds the
        same record at that sequence (not a fork, another cluster's or a promoted standby's
        own), and nothing newer written more than max_lag_s ago (the standby's own lag
        figures miss a WAL receiver that has stalled, or a standby no longer streaming). A
        primary that cannot be asked vouches, as before: the standby's answer is the best."""
        try:
            with contextlib.ExitStack() as armed, db.snapshot() as uow:
                armed.enter_context(_cut_off_after(db, uow.session.connection(), VOUCH_DEADLINE_S))
                there, primary_at, next_at = uow.chain.vouch(client_id, head.sequence)
        except DatabaseUnavailable:
            return Vouched.YES
        if primary_at < head.sequence:
            # A commit the standby shows first: a synchronous standby acknowledges it before
            # the primary makes it visible (or a fork ahead of it: never served either way).
            return Vouched.AHEAD
        if there != head.hash:
            return Vouched.DIVERGED
        if primary_at > head.sequence and (
            next_at is None or datetime.now(UTC) - next_at > timedelta(seconds=replica_lag_s)
        ):
            return Vouched.STALE
        return Vouched.YES

    replica_lag_s = replica.max_lag_s if replica is not None else DEFAULT_MAX_LAG_S
    if replica is not None and replica.state().serves:
        for attempt in range(2):
            try:
                served = _on_replica(replica, client_id, need, pinned, work, primary_head, vouch)
            except SerializationFailure:
                if attempt == 0:
                    continue
                break
            except DatabaseUnavailable:
                replica.mark_unavailable()
                break
            except ProgrammingError as exc:  # a standby on another migration: a table or column missing
                log.warning("reports' standby cannot run the report (%s); the primary serves", exc.orig)
                replica.mark_unavailable()
                break
            if served:
                return served[0]
            break
    with db.snapshot() as uow:
        as_of = _head(uow, client_id, ReportSource.PRIMARY)
        if pinned is not None:
            if pinned.sequence > as_of.sequence:
                raise PinnedPastHead(pinned.sequence, as_of.sequence)
            as_of = AsOf(pinned.sequence, pinned.at, ReportSource.PRIMARY)
        return work(uow, as_of)


class PinnedPastHead(Exception):
    """A cursor pins the answer to a sequence the client's chain has not reached: not a
    cursor the service gave (it pins heads it read), and no answer could hold what it says."""

    def __init__(self, pinned: int, head: int) -> None:
        super().__init__(f"the cursor pins sequence {pinned}, past the chain's head {head}")
        self.pinned, self.head = pinned, head


__all__ = [
    "DEFAULT_MAX_LAG_S",
    "AsOf",
    "PinnedPastHead",
    "Replica",
    "ReplicaState",
    "ReplicaStatus",
    "ReportSource",
    "lag_gauge_value",
    "report",
]
