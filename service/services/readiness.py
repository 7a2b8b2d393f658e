"""Readiness: whether this app may take writes on the database it reaches, and how durably."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from service.adapters.db import Pooler, Replication
from service.adapters.errors import DatabaseUnavailable
from service.adapters.replicas import ReplicaState, ReplicaStatus, lag_gauge_value
from service.adapters.uow import Database

# What the API names of the database's state comes from here, not from the adapters.
__all__ = [
    "DEFAULT_CACHE_S",
    "DatabaseUnavailable",
    "Probe",
    "Readiness",
    "ReplicaState",
    "ReplicaStatus",
    "Replication",
    "check",
    "lag_gauge_value",
    "replica_now",
    "Seen",
]

# How long a process answers /readyz with what it last found: a probe every few seconds
# always sees a fresh check, and a flood of them (the route is never rate limited, so a
# probe is never refused) costs one check a second a process, not one a request.
DEFAULT_CACHE_S = 1.0


@dataclass(frozen=True)
class Readiness:
    """`refusals` empty: ready. `replication` None on SQLite."""

    refusals: tuple[str, ...]
    replication: Replication | None
    standbys: int | None


def check(db: Database) -> Readiness:
    """The connection's timeouts (the role's own through pgbouncer, which refuses them as
    startup parameters), whether the node takes writes, its replication (one statement),
    and the schema's migration: a database never migrated, or behind this release, is not
    ready (every request would fail on it). DatabaseUnavailable when it does not answer."""
    state = db.server_state()
    schema = db.schema_refusal()
    if state is None:
        return Readiness(() if schema is None else (schema,), None, None)
    refusals = [] if schema is None else [schema]
    if state.in_recovery:
        refusals.append("the database is a standby (read-only): the URL or the pooler names the wrong node")
    elif state.read_only:
        refusals.append("the database refuses writes (default_transaction_read_only is on)")
    statement_ms, lock_ms = db.timeouts_ms
    pooled = db.postgres.pooler is Pooler.PGBOUNCER
    how = "ALTER ROLE ... SET {name} = {want} (DATABASE_POOLER=pgbouncer)" if pooled else "the connection's options"
    for name, have, want in (
        ("statement_timeout", state.statement_timeout_ms, statement_ms),
        ("lock_timeout", state.lock_timeout_ms, lock_ms),
    ):
        if have != want:
            refusals.append(f"{name} is {have} ms, expected {want} ms: set it with " + how.format(name=name, want=want))
    return Readiness(tuple(refusals), state.replication, state.standbys)


def replica_now(db: Database) -> ReplicaState | None:
    """The reports' standby as probed now (None without READ_DATABASE_URL): whether it
    serves and how far behind it is. Its state never decides readiness."""
    return None if db.replica is None else db.replica.state(fresh=True)


@dataclass(frozen=True)
class Seen:
    """What one readiness check found: `readiness` None when the database did not answer;
    `replica` probed only when ready (`replica_now`)."""

    readiness: Readiness | None
    replica: ReplicaState | None


class Probe:
    """The readiness check of one process, reused for `cache_s` seconds after it ran (0:
    every call checks). A check costs two or three statements and about 2 ms of CPU here,
    ten times an answer without one."""

    def __init__(self, cache_s: float = DEFAULT_CACHE_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.cache_s = cache_s
        self.clock = clock
        self._last: tuple[float, Seen] | None = None

    def seen(self, db: Database) -> tuple[Seen, bool]:
        """What the last check found, made now unless it is younger than `cache_s`; and
        whether it was made now."""
        last = self._last
        if last is not None and self.clock() - last[0] < self.cache_s:
            return last[1], False
        try:
            found: Readiness | None = check(db)
        except DatabaseUnavailable:
            found = None
        seen = Seen(found, replica_now(db) if found is not None and not found.refusals else None)
        # Kept from when it ended: a check slower than `cache_s` (a database that does not
        # answer: seconds to the connect timeout) would otherwise be stale when kept, and
        # every request of an outage's flood would check again.
        self._last = (self.clock(), seen)
        return seen, True
