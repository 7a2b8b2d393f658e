"""One flask-smorest blueprint per resource; views load, call a service, return."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Response
from flask_smorest import Blueprint as _Blueprint

from service.services.idempotency import StoredResponse
from service.services.jsondoc import dump

from ..body import parser


class Blueprint(_Blueprint):
    """Reads bodies through the strict parser (g.body) instead of webargs' json.loads."""

    ARGUMENTS_PARSER = parser

    def problems(self, *statuses: int) -> Callable[[Any], Any]:
        """Document these problem responses (components registered by CapsaApi)."""
        import http

        def decorate(fn: Any) -> Any:
            for status in statuses:
                fn = self.alt_response(status, response=http.HTTPStatus(status).name)(fn)
            return fn

        return decorate


def json_response(document: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    response = Response(dump(document), status=status, content_type="application/json")
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def send_stored(stored: StoredResponse) -> Response:
    """A stored answer as sent the first time, byte for byte, marked when it is a replay."""
    response = Response(stored.body, status=stored.status, content_type=stored.content_type)
    if stored.location:
        response.headers["Location"] = stored.location
    if stored.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return response


AUTH = (401, 406, 429, 503)
BODY = (400, 401, 403, 406, 413, 415, 429, 503)
