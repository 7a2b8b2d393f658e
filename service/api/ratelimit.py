"""Rate limits (Flask-Limiter): counted after authentication, before the body is read.

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
  often it asks, must not see 429 and take a healthy instance out.

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
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import structlog
from flask import Flask, Response, current_app, g, request
from flask_limiter import ApplicationLimit, Limiter, RequestLimit
from limits import parse_many
from limits.storage import MemoryStorage, Storage

from service.adapters.db import without_password

from .problems import problem_response

log = structlog.get_logger("service.api")

DEFAULT_RATE_LIMIT = "1200/minute"
DEFAULT_RATE_LIMIT_ANONYMOUS = "600/minute"
_OFF = frozenset({"", "0", "off", "none", "false", "disabled"})
PROBES = ("/healthz", "/readyz")


def _client_key() -> str:
    principal = g.get("principal")
    return principal.client_id if principal is not None else ""


def _address_key() -> str:
    return request.remote_addr or "unknown"


def _anonymous() -> bool:
    return g.get("principal") is None


def _authenticated() -> bool:
    return g.get("principal") is not None


def _not_anonymous() -> bool:
    """Left out of the anonymous limit: a client with a valid key, or a probe."""
    return _authenticated() or request.path in PROBES


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


def _seconds_left(limit: RequestLimit) -> int:
    """Whole seconds until the limit's window resets: at least 1, at most the window. A
    shared store's reset is its key's TTL, which Redis gives in whole seconds, rounded to the
    nearest: a second more, so that a client that waits that long is not refused again."""
    rounding = 0 if isinstance(limit.limiter.storage, (LocalCounters, MemoryStorage)) else 1
    left = max(1, math.ceil(limit.window[0] - time.time()) + rounding)
    return min(limit.limit.get_expiry() + rounding, left)


def _breached(limit: RequestLimit) -> Response:
    try:
        retry_after = _seconds_left(limit)
    except Exception:  # the store stopped answering since it counted: the whole window
        retry_after = limit.limit.get_expiry()
    who = "this client" if _authenticated() else "requests without an API key from this address"
    return problem_response(
        429,
        "rate-limited",
        f"rate limit of {limit.limit} exceeded for {who}; retry after {retry_after} s",
        headers={"Retry-After": str(retry_after)},
    )


def _rate_limit_headers(response: Response) -> Response:
    """The RateLimit-Policy and RateLimit fields of the limit that counted this request."""
    if not g.get("capsa_limited") or not request.path.startswith("/v1/"):
        return response  # no limit counted this request: no fields
    limiter: Limiter | None = current_app.extensions.get("capsa_limiter")
    current = limiter.current_limit if limiter is not None else None
    if current is None:
        return response
    try:
        quota, window = current.limit.amount, current.limit.get_expiry()
        remaining = 0 if current.breached else max(0, current.remaining)
        reset = _seconds_left(current)
    except Exception:  # the store stopped answering: no figures rather than wrong ones
        log.warning("rate_limit_headers_unavailable", exc_info=True)
        return response
    policy = '"client"' if _authenticated() else '"anonymous"'
    response.headers["RateLimit-Policy"] = f"{policy};q={quota};w={window}"
    response.headers["RateLimit"] = f"{policy};r={remaining};t={reset}"
    return response


UNROUTED = "unrouted"


def _request_name() -> str:
    """What Flask-Limiter calls the request: its endpoint, or UNROUTED for a path no route
    takes (404) or a method it does not (405), which it would otherwise leave uncounted."""
    return request.endpoint or UNROUTED


def enabled(value: str | None) -> bool:
    return (value or "").strip().lower() not in _OFF


def _checked(name: str, value: str) -> str:
    # Flask-Limiter parses limits per request and, swallowing errors, would let a typo
    # switch limiting off: refuse it when the app starts.
    try:
        parse_many(value)
    except ValueError as exc:
        raise ValueError(f"{name}={value!r} is not a rate limit such as '600/minute': {exc}") from None
    return value.strip()


def install(app: Flask) -> Limiter | None:
    """Register the limiter's hooks (call between the authentication and body hooks)."""
    limits: list[str | Callable[[], str] | ApplicationLimit] = []
    per_client = str(app.config.get("RATE_LIMIT") or "")
    if enabled(per_client):
        limits.append(ApplicationLimit(
            _checked("RATE_LIMIT", per_client), key_function=_client_key, exempt_when=_anonymous,
        ))
    anonymous = str(app.config.get("RATE_LIMIT_ANONYMOUS") or "")
    if enabled(anonymous):
        limits.append(ApplicationLimit(
            _checked("RATE_LIMIT_ANONYMOUS", anonymous), key_function=_address_key,
            scope="anonymous", exempt_when=_not_anonymous,
        ))
    if not limits:
        return None
    storage = app.config.get("RATELIMIT_STORAGE_URI") or "memory://"
    options: dict[str, Any] = {}
    if storage.startswith(("redis://", "rediss://", "redis+unix://", "redis+sentinel://", "redis+cluster://")):
        # A Redis that hangs must not hang requests: short timeouts, then memory fallback;
        # for every scheme (without them a stopped Redis behind a unix socket or a Sentinel
        # held each request until gunicorn killed its worker), and for the Sentinels too.
        timeouts = {"socket_timeout": 0.5, "socket_connect_timeout": 0.5}
        options = dict(timeouts)
        if storage.startswith("redis+sentinel://"):
            options["sentinel_kwargs"] = dict(timeouts)
    limiter = Limiter(
        key_func=_client_key,
        request_identifier=_request_name,
        application_limits=limits,
        storage_uri="capsa-memory://" if storage == "memory://" else storage,
        storage_options=options,
        strategy="fixed-window",
        key_prefix=str(app.config.get("RATELIMIT_KEY_PREFIX") or "capsa"),
        headers_enabled=False,
        swallow_errors=True,
        in_memory_fallback_enabled=storage != "memory://",
        on_breach=_breached,
    )
    limiter.init_app(app)
    if storage != "memory://" and not limiter.storage.check():
        # Requests still count, each worker in memory until the store answers: a mistyped
        # host or password would otherwise show as one vague fallback warning per worker.
        structlog.get_logger("service.ratelimit").error(
            "rate_limit_storage_unreachable", storage=without_password(storage),
            consequence="each worker counts in memory until it answers: the limit is then per worker",
        )
    _only_where_a_limit_applies(app, limiter, enabled(per_client), enabled(anonymous))
    app.extensions["capsa_limiter"] = limiter
    app.after_request(_rate_limit_headers)
    return limiter


def _only_where_a_limit_applies(app: Flask, limiter: Limiter, per_client: bool, anonymous: bool) -> None:
    """Run Flask-Limiter's hooks only for a request one of our limits counts.

    Each limit is exempt for the other kind of request (`exempt_when`), but Flask-Limiter
    learns that only after resolving every limit of the request, through ~20 request-context
    look-ups: 7% of a stored round's CPU with `RATE_LIMIT=off`, to count nothing. A request
    no limit applies to (a valid key with the per-client limit off; no valid key with the
    anonymous limit off, or a probe) skips its hooks: no limit counted, no RateLimit fields,
    as before. Anything else runs them unchanged."""
    checked = limiter._check_request_limit
    befores = app.before_request_funcs.setdefault(None, [])
    afters = app.after_request_funcs.setdefault(None, [])
    teardowns = app.teardown_request_funcs.setdefault(None, [])
    inject = next(f for f in afters if isinstance(f, partial) and f.args[:1] == (limiter,))
    release = next(f for f in teardowns if getattr(f, "__self__", None) is limiter)

    def limit() -> None:
        counted = per_client if g.get("principal") is not None else anonymous and request.path not in PROBES
        if counted:
            g.capsa_limited = True
            checked()

    def inject_headers(response: Response) -> Response:
        return inject(response) if g.get("capsa_limited") else response

    def release_context(exc: BaseException | None = None) -> None:
        if g.get("capsa_limited"):
            release(exc)

    befores[befores.index(checked)] = limit
    afters[afters.index(inject)] = inject_headers
    teardowns[teardowns.index(release)] = release_context
