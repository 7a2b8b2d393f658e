"""Rate limits: counted after authentication, before the body is read.

Two limits, fixed windows, each answered 429 `/problems/rate-limited` with `Retry-After` (the
seconds until the window resets):

- `RATE_LIMIT` (e.g. "1200/minute") per authenticated client over every `/v1` route: the
  key is the client id, so two keys of one client share a budget.
- `RATE_LIMIT_ANONYMOUS` (e.g. "600/minute") per client address over every request
  without a valid key: `/v1` with a missing, unknown or revoked key (so guessing keys is
  counted), docs, the OpenAPI document and the round view pages. The
  address is `request.remote_addr`, which behind nginx is the address nginx saw
  (proxies.TrustedProxies, from FORWARDED_ALLOW_IPS peers only). The health and readiness
  probes (`PROBES`) are never counted: a load balancer's or orchestrator's probe, however
  often it asks, must not see 429 and take a healthy instance out; nor are static files
  (the pages' stylesheet, any blueprint's `static` route), so a page costs one request.

Counters live in memory (per gunicorn worker: the effective limit is then workers x the
limit) unless `RATELIMIT_STORAGE_URI` names a shared store such as `redis://host:6379/0`.
When that store does not answer, requests fall back to in-memory counting (never a 500).

Every `/v1` answer that a limit counted carries the IETF httpapi RateLimit header fields
(draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "client";q=1200;w=60` (the
quota and its window in seconds; the policy is `"anonymous"` for a request without a valid
key) and `RateLimit: "client";r=1187;t=42` (what is left of the quota and the seconds until
the window resets). A 429 of the rate limit has `r=0` and `t` equal to its Retry-After (a
heavy read's 429, for want of a slot, carries the quota's fields as they stand and its own
`Retry-After: 1`).

The counting is one before-request hook over the `limits` library's limits and stores: one
counter a request (a count and its window's end), about 10 us in memory, one round trip to
Redis (a script: `limits`' own count, returning the counter's TTL with it). Flask-Limiter,
used before, resolved every limit and its exemptions again for each request: 0.11-0.14 ms of
CPU a request here, 15-18% of a stored round's. The counters keep the keys it gave them, so
a shared store's counts carry over.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from typing import Any

import structlog
from flask import Flask, Response, g, request
from limits import RateLimitItem, parse_many
from limits.storage import RedisStorage, Storage, storage_from_string

from service.adapters.db import without_password
from service.domain.errors import SettingError

from .problems import problem_response

log = structlog.get_logger("service.api")

DEFAULT_RATE_LIMIT = "1200/minute"
DEFAULT_RATE_LIMIT_ANONYMOUS = "600/minute"
_OFF = frozenset({"", "0", "off", "none", "false", "disabled"})
PROBES = ("/healthz", "/readyz")
SHARED_STORES = ("redis://", "rediss://", "redis+unix://", "redis+sentinel://", "redis+cluster://")
BACKOFF_STEPS = 5  # a store that stopped answering is tried again after 1, 2, 4 ... 2**5 s, then from 1
# `limits`' own count (its incr_expire.lua, the same key and the same expiry on the first
# count), returning the counter's TTL with it: one round trip a request instead of two.
INCR_TTL = b"""
local amount = tonumber(ARGV[2])
local current = redis.call("incrby", KEYS[1], amount)
if tonumber(current) == amount then
    redis.call("expire", KEYS[1], ARGV[1])
end
return {current, redis.call("ttl", KEYS[1])}
"""


class LocalCounters(Storage):
    """Fixed-window counters in this process's memory: what `memory://` (the default) means.

    `limits`' own MemoryStorage starts a thread to expire its keys 10 ms after a count
    whenever the last such thread has ended, so on a worker whose requests come more than
    10 ms apart every request started a thread (about 0.35 ms of CPU here, and a context
    switch while the request waits for it to start). Here a count past its window starts
    again where it is read, and the keys whose windows have ended are dropped at most once a
    second, in the request that finds them due: memory stays bounded by the keys of the
    windows still running (one a client, one an address)."""

    STORAGE_SCHEME = ["capsa-memory"]
    PURGE_EVERY_S = 1.0

    def __init__(self, uri: str | None = None, wrap_exceptions: bool = False, **options: Any) -> None:
        self._counts: dict[str, tuple[int, float]] = {}  # key -> (count, its window's end)
        self._lock = threading.Lock()
        self._purge_at = 0.0
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)

    @property
    def base_exceptions(self) -> type[Exception]:
        return ValueError

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        now = time.time()
        with self._lock:
            if now >= self._purge_at:
                self._counts = {k: v for k, v in self._counts.items() if v[1] > now}
                self._purge_at = now + self.PURGE_EVERY_S
            count, ends = self._counts.get(key, (0, 0.0))
            if ends <= now:
                count, ends = 0, now + expiry
            self._counts[key] = (count + amount, ends)
            return count + amount

    def get(self, key: str) -> int:
        count, ends = self._counts.get(key, (0, 0.0))
        return count if ends > time.time() else 0

    def get_expiry(self, key: str) -> float:
        now = time.time()
        ends = self._counts.get(key, (0, 0.0))[1]
        return ends if ends > now else now

    def check(self) -> bool:
        return True

    def reset(self) -> int | None:
        with self._lock:
            dropped = len(self._counts)
            self._counts = {}
        return dropped

    def clear(self, key: str) -> None:
        with self._lock:
            self._counts.pop(key, None)


@dataclass(frozen=True)
class Policy:
    """One limit: its name in the RateLimit fields, its quota, and its counters' scope in the
    store (`global` for a client and `anonymous` for an address, the names Flask-Limiter gave
    them, so that counts in a shared store carried over)."""

    name: str
    limit: RateLimitItem
    scope: str

    @property
    def window(self) -> int:
        return self.limit.get_expiry()


@dataclass(frozen=True)
class Counted:
    """A request counted: the count of its window (itself included) and the whole seconds
    until the window resets (`Retry-After`, and the RateLimit field's `t`), or None where the
    store stopped answering between the two."""

    policy: Policy
    count: int
    seconds_left: int | None

    @property
    def breached(self) -> bool:
        return self.count > self.policy.limit.amount

    @property
    def remaining(self) -> int:
        return max(0, self.policy.limit.amount - self.count)


class Limiter:
    """The counters of a worker: in its store, or in its memory while a shared store does not
    answer (never a 500), trying the store again after 1, 2, 4 ... 32 s. Each count asks its
    window's end too (from Redis in the same script, one round trip): an end kept from an
    earlier request would be too early once a flush of the store, or another worker at the
    window's roll-over, has started the window again."""

    def __init__(self, storage_uri: str, options: dict[str, Any], prefix: str) -> None:
        # `memory://`, in any of its forms, counts here: not in `limits`' MemoryStorage, whose
        # expiring thread LocalCounters was written to avoid.
        storage = LocalCounters() if storage_uri.startswith("memory:") else storage_from_string(storage_uri, **options)
        if not isinstance(storage, Storage):  # `async+...`: its counts would need an event loop
            raise SettingError(f"RATELIMIT_STORAGE_URI={without_password(storage_uri)!r} is an asyncio store")
        self.storage = storage
        self.shared = not isinstance(self.storage, LocalCounters)
        # Made here without a round trip (the script's digest); loaded into Redis on first use.
        self._incr_ttl = storage.get_connection().register_script(INCR_TTL) if isinstance(storage, RedisStorage) else None
        self.prefix = prefix
        self._fallback = LocalCounters()
        self._store_down = False
        self._tries = 0
        self._tried_at = 0.0

    def count(self, policy: Policy, key: str) -> Counted:
        counter = policy.limit.key_for(self.prefix, key, policy.scope)
        store = self._store()
        try:
            count, resets_at = self._counted(store, counter, policy.window)
        except Exception:
            if store is self._fallback:
                raise
            log.warning("rate_limit_storage_unavailable", exc_info=True,
                        consequence="counted in this worker's memory until the store answers")
            self._store_down, self._tries, self._tried_at = True, 0, time.time()
            store = self._fallback
            count, resets_at = self._counted(store, counter, policy.window)
        if resets_at is None:  # the store stopped answering since it counted
            return Counted(policy, count, None)
        shared = self.shared and store is self.storage
        return Counted(policy, count, _seconds_left(resets_at, policy.window, shared))

    def _counted(self, store: Storage, counter: str, window: int) -> tuple[int, float | None]:
        """The counter's count after this request and its window's end (a time.time()): from
        Redis in one script; from any other store in two calls, the end None when the
        second fails."""
        if self._incr_ttl is not None and isinstance(store, RedisStorage):
            count, ttl = self._incr_ttl([store.prefixed_key(counter)], [window, 1])
            return int(count), max(int(ttl), 0) + time.time()  # as RedisStorage.get_expiry reads it
        count = store.incr(counter, window)
        try:
            return count, store.get_expiry(counter)
        except Exception:
            return count, None

    def _store(self) -> Storage:
        if not self._store_down:
            return self.storage
        now = time.time()
        if now - self._tried_at > 2**self._tries:
            self._tried_at = now
            self._tries = 0 if self._tries >= BACKOFF_STEPS else self._tries + 1
            if self.answers():
                log.warning("rate_limit_storage_recovered")  # seen wherever the fall-back's warning is
                self._store_down = False
                return self.storage
        return self._fallback

    def answers(self) -> bool:
        """Whether the store answers a ping (a memory store always does)."""
        try:
            return bool(self.storage.check())
        except Exception:
            return False


def _seconds_left(resets_at: float, window: int, shared: bool) -> int:
    """Whole seconds until the window resets: at least 1, at most the window (a second more
    from a shared store). A shared store's reset is its key's TTL, which Redis gives in whole
    seconds, rounded to the nearest: a second more, so that a client that waits that long
    is not refused again."""
    rounding = 1 if shared else 0
    left = max(1, math.ceil(resets_at - time.time()) + rounding)
    return min(window + rounding, left)


def _breached(counted: Counted) -> Response:
    retry_after = counted.policy.window if counted.seconds_left is None else counted.seconds_left
    who = "this client" if counted.policy.name == "client" else "requests without an API key from this address"
    return problem_response(
        429,
        "rate-limited",
        f"rate limit of {counted.policy.limit} exceeded for {who}; retry after {retry_after} s",
        headers={"Retry-After": str(retry_after)},
    )


def _rate_limit_headers(response: Response) -> Response:
    """The RateLimit-Policy and RateLimit fields of the limit that counted this request."""
    counted: Counted | None = g.get("capsa_rate")
    if counted is None or counted.seconds_left is None or not request.path.startswith("/v1/"):
        return response  # nothing counted, or the store could not say: no fields rather than wrong ones
    policy = f'"{counted.policy.name}"'
    response.headers["RateLimit-Policy"] = f"{policy};q={counted.policy.limit.amount};w={counted.policy.window}"
    response.headers["RateLimit"] = f"{policy};r={counted.remaining};t={counted.seconds_left}"
    return response


def enabled(value: str | None) -> bool:
    return (value or "").strip().lower() not in _OFF


def _policy(name: str, setting: str, value: str, scope: str) -> Policy:
    try:
        (limit,) = parse_many(value)
    except ValueError as exc:  # also more than one limit: the RateLimit fields name one quota
        raise SettingError(f"{setting}={value!r} is not a rate limit such as '600/minute': {exc}") from None
    if limit.amount < 1:  # "0" is off; "0/minute" would refuse every request
        raise SettingError(f"{setting}={value!r} allows no request: 'off' switches the limit off")
    return Policy(name, limit, scope)


def install(app: Flask) -> Limiter | None:
    """Register the limit's hooks (call between the authentication and body hooks).

    A request with a valid key counts against its client (`RATE_LIMIT`); one without,
    against its address (`RATE_LIMIT_ANONYMOUS`), except the probes and static files. A
    limit that is off counts nothing and sends no fields; both off, nothing is installed."""
    per_client, anonymous = (str(app.config.get(name) or "") for name in ("RATE_LIMIT", "RATE_LIMIT_ANONYMOUS"))
    client_policy = _policy("client", "RATE_LIMIT", per_client, "global") if enabled(per_client) else None
    address_policy = (
        _policy("anonymous", "RATE_LIMIT_ANONYMOUS", anonymous, "anonymous") if enabled(anonymous) else None
    )
    if client_policy is None and address_policy is None:
        return None
    storage = app.config.get("RATELIMIT_STORAGE_URI") or "memory://"
    options: dict[str, Any] = {}
    if storage.startswith(SHARED_STORES):
        # A Redis that hangs must not hang requests: short timeouts, then memory fallback;
        # for every scheme (without them a stopped Redis behind a unix socket or a Sentinel
        # held each request until gunicorn killed its worker), and for the Sentinels too.
        timeouts = {"socket_timeout": 0.5, "socket_connect_timeout": 0.5}
        options = dict(timeouts)
        if storage.startswith("redis+sentinel://"):
            options["sentinel_kwargs"] = dict(timeouts)
    limiter = Limiter(
        storage,
        options,
        str(app.config.get("RATELIMIT_KEY_PREFIX") or "capsa"),
    )
    if limiter.shared and not limiter.answers():
        # Requests still count, each worker in memory until the store answers: a mistyped
        # host or password would otherwise show as one vague fallback warning per worker.
        structlog.get_logger("service.ratelimit").error(
            "rate_limit_storage_unreachable", storage=without_password(storage),
            consequence="each worker counts in memory until it answers: the limit is then per worker",
        )

    def count_request() -> Response | None:
        principal = g.get("principal")
        if principal is not None:
            policy, key = client_policy, principal.client_id
        elif request.path in PROBES or (request.endpoint or "").rpartition(".")[2] == "static":
            return None
        else:
            policy, key = address_policy, request.remote_addr or "unknown"
        if policy is None:
            return None
        try:
            counted = limiter.count(policy, key)
        except Exception:  # never a 500 for want of a counter
            log.exception("rate_limit_not_counted")
            return None
        g.capsa_rate = counted
        return _breached(counted) if counted.breached else None

    app.before_request(count_request)
    app.after_request(_rate_limit_headers)
    app.extensions["capsa_limiter"] = limiter
    return limiter
