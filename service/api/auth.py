"""Bearer API keys on every /v1 route; `write` scope unless a view is marked `allow_read`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from flask import g, request

from service.services import clients
from service.services.errors import Forbidden

from .context import current_g, current_request, view_method
from .state import state

F = TypeVar("F", bound=Callable[..., Any])
_SAFE = frozenset({"GET", "HEAD", "OPTIONS"})


def allow_read(fn: F) -> F:
    """Mark a non-GET view method that a `read` key may call (score, evaluate)."""
    fn.capsa_allow_read = True  # type: ignore[attr-defined]
    return fn


def _view_allows_read() -> bool:
    return bool(getattr(view_method(), "capsa_allow_read", False))


def holds_write() -> bool:
    """Whether the calling key has the write scope: for answers that show a read key less
    (an unused deal's hands)."""
    return bool(g.principal.scope == clients.Scope.WRITE)


def require_write() -> None:
    """For views marked `allow_read` that name a resource: 403 for a read key once it is found,
    so another client's key gets the same 404 whatever its scope."""
    scope = g.principal.scope
    if scope != clients.Scope.WRITE:
        raise Forbidden(f"a {scope} key cannot call {request.method} {request.path}")


def authenticate_request() -> None:
    req, capsa = current_request(), state()
    principal = clients.authenticate(capsa.db, req.headers.get("Authorization"), capsa.keys)
    current_g().principal = principal
    if req.method not in _SAFE and principal.scope != clients.Scope.WRITE and not _view_allows_read():
        raise Forbidden(f"a {principal.scope} key cannot call {req.method} {req.path}")
