"""The request being answered, its `g` and the view that answers it, without Flask's
context proxies.

Each attribute read through `flask.request` or `flask.g` looks the request's context up
again (0.8 us); the hooks every request passes read a dozen, so they take the objects once.
"""

from __future__ import annotations

from typing import Any

from flask import Request, current_app
from flask.ctx import _AppCtxGlobals
from flask.globals import app_ctx, request_ctx


def current_request() -> Request:
    """`flask.request` itself."""
    return request_ctx.request


def current_g() -> _AppCtxGlobals:
    """`flask.g` itself."""
    return app_ctx.g


def view_method() -> Any:
    """The function that answers this request: its MethodView's method for the request's
    HTTP method, or its view function (None for a route that does not exist). Views are
    marked by attributes on it (`auth.allow_read`, `body.optional_body`)."""
    req = current_request()
    view = current_app.view_functions.get(req.endpoint or "")
    view_class = getattr(view, "view_class", None)
    return getattr(view_class, req.method.lower(), None) if view_class else view
