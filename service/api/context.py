"""The request being answered and its `g`, without Flask's context proxies.

Each attribute read through `flask.request` or `flask.g` looks the request's context up
again (0.8 us); the hooks every request passes read a dozen, so they take the objects once.
"""

from __future__ import annotations

from flask import Request, g, request
from flask.ctx import _AppCtxGlobals


def current_request() -> Request:
    """`flask.request` itself."""
    unwrapped: Request = request._get_current_object()  # type: ignore[attr-defined]  # the proxy's own method
    return unwrapped


def current_g() -> _AppCtxGlobals:
    """`flask.g` itself."""
    unwrapped: _AppCtxGlobals = g._get_current_object()
    return unwrapped
