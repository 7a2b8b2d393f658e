"""Per-client rate limits (Flask-Limiter): counted after authentication, before the body is read.

One limit (`RATE_LIMIT`, e.g. "1200/minute", fixed window) shared by every `/v1` route of a
client: the key is the authenticated client id, so two keys of one client share a budget and
unauthenticated routes (health, metrics, docs) are never limited. Counters live in memory
(per gunicorn worker: the effective limit is then workers x the limit) unless
`RATELIMIT_STORAGE_URI` names a shared store such as `redis://host:6379/0`. When that store
does not answer, requests fall back to in-memory counting (never a 500).

A request over the limit is answered 429 `/problems/rate-limited` with `Retry-After` (the
seconds until the window resets).
"""

from __future__ import annotations

import math
import time
from typing import Any

from flask import Flask, Response, g
from flask_limiter import Limiter, RequestLimit

from .problems import problem_response

DEFAULT_RATE_LIMIT = "1200/minute"
_OFF = frozenset({"", "0", "off", "none", "false", "disabled"})


def _client_key() -> str:
    principal = g.get("principal")
    return principal.client_id if principal is not None else ""


def _exempt() -> bool:
    # Only authenticated /v1 requests are counted (auth runs before the limiter).
    return g.get("principal") is None


def _breached(limit: RequestLimit) -> Response:
    retry_after = max(1, math.ceil(limit.reset_at - time.time()))
    return problem_response(
        429,
        "rate-limited",
        f"rate limit of {limit.limit} exceeded for this client; retry after {retry_after} s",
        headers={"Retry-After": str(retry_after)},
    )


def enabled(value: str | None) -> bool:
    return (value or "").strip().lower() not in _OFF


def install(app: Flask) -> Limiter | None:
    """Register the limiter's hooks (call between the authentication and body hooks)."""
    value = str(app.config.get("RATE_LIMIT") or "")
    if not enabled(value):
        return None
    storage = app.config.get("RATELIMIT_STORAGE_URI") or "memory://"
    options: dict[str, Any] = {}
    if storage.startswith(("redis://", "rediss://")):
        # A Redis that hangs must not hang requests: short timeouts, then memory fallback.
        options = {"socket_timeout": 0.5, "socket_connect_timeout": 0.5}
    limiter = Limiter(
        key_func=_client_key,
        application_limits=[value.strip()],
        application_limits_exempt_when=_exempt,
        storage_uri=storage,
        storage_options=options,
        strategy="fixed-window",
        key_prefix=str(app.config.get("RATELIMIT_KEY_PREFIX") or "capsa"),
        headers_enabled=False,
        swallow_errors=True,
        in_memory_fallback_enabled=storage != "memory://",
        on_breach=_breached,
    )
    limiter.init_app(app)
    app.extensions["capsa_limiter"] = limiter
    return limiter
