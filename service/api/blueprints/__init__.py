"""One flask-smorest blueprint per resource; views load, call a service, return."""

from __future__ import annotations

import http
import json
from collections.abc import Callable
from copy import deepcopy
from functools import wraps
from typing import Any

from flask import Response, g
from flask_smorest import Blueprint as _Blueprint

from service.services.idempotency import StoredResponse
from service.services.jsondoc import dump
from service.services.preconditions import refuse_stale

from ..body import parser
from ..context import current_request
from ..headers import not_modified, parse_if_match


class Blueprint(_Blueprint):  # type: ignore[misc]  # flask-smorest ships no types
    """Reads bodies through the strict parser (g.body) instead of webargs' json.loads."""

    ARGUMENTS_PARSER = parser

    def body(self, schema: Any, example: Any = None) -> Callable[[Any], Any]:
        """Document `schema` as the JSON request body, and pass the parsed body as is.

        For bodies the domain validates itself (a round): one validation pass, whose errors
        name every field; the schema only describes the shape for OpenAPI."""
        parameters: dict[str, Any] = {"in": "json", "required": True, "schema": schema}
        if example is not None:
            parameters["example"] = example

        def decorate(fn: Any) -> Any:
            @wraps(fn)
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                return fn(*args, g.body, **kwargs)

            wrapper._apidoc = deepcopy(getattr(wrapper, "_apidoc", {}))  # type: ignore[attr-defined]
            docs = wrapper._apidoc.setdefault("arguments", {})  # type: ignore[attr-defined]
            docs.setdefault("parameters", []).append(parameters)
            docs.setdefault("responses", {})[422] = http.HTTPStatus(422).name
            return wrapper

        return decorate

    def problems(self, *statuses: int) -> Callable[[Any], Any]:
        """Document these problem responses (components registered by CapsaApi).

        Documentation only: flask-smorest's `alt_response` would wrap the view once per
        status, a call layer each on every request for nothing but the spec."""

        def decorate(fn: Any) -> Any:
            doc = fn.__dict__.setdefault("_apidoc", {})
            responses = doc.setdefault("response", {}).setdefault("responses", {})
            for status in statuses:
                names = responses.setdefault(status, [])
                if http.HTTPStatus(status).name not in names:
                    names.append(http.HTTPStatus(status).name)
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


# -- versioned resources (Big Two games and matches, Susun games) --------------------------

IDEMPOTENCY_KEY = {
    "in": "header",
    "name": "Idempotency-Key",
    "required": False,
    "description": "1-255 printable ASCII characters (a quoted string is accepted), scoped to "
    "this path, kept 24 hours. The same key with the same body replays the first answer byte for byte with "
    "`Idempotent-Replayed: true`; with another body: 422; while the first runs: 409.",
    "schema": {"type": "string", "minLength": 1, "maxLength": 257},
    "example": "9f1c7a4e-3b8d-4c55-a0a3-2b7f1d9e6c10",
}
IF_MATCH = {
    "in": "header",
    "name": "If-Match",
    "required": False,
    "description": 'The game version the move was decided on, `"7"` or `7` (or a list); a stale '
    "one is 412 `precondition-failed` and changes nothing. Compared strongly (RFC 9110): a weak "
    '`W/"7"` matches no version, so it is 412 too.',
    "schema": {"type": "string", "maxLength": 40},
    "example": '"1"',
}
# A GET of a versioned resource (`send_state`): its preconditions and its 304.
READ_PRECONDITIONS = [
    {
        "in": "header",
        "name": "If-Match",
        "required": False,
        "description": 'Answer only at this version, `"7"` or `7` (or a list): at another the answer is '
        "412 `precondition-failed`. Compared strongly, as on a write.",
        "schema": {"type": "string", "maxLength": 40},
        "example": '"1"',
    },
    {
        "in": "header",
        "name": "If-None-Match",
        "required": False,
        "description": 'The version you hold already, `"7"` (or a list, or `*`): while it is the current '
        'one the answer is 304 without a body. Compared weakly (RFC 9110): `W/"7"` names version 7 too.',
        "schema": {"type": "string", "maxLength": 40},
        "example": '"1"',
    },
]
NOT_MODIFIED = {
    "304": {
        "description": "Not Modified: `If-None-Match` names the current version. No body; the ETag, "
        "as a 200 would send it.",
        "headers": {"ETag": {"description": 'The version, `"7"`.', "schema": {"type": "string"}}},
    }
}
# The Capsa-As-Of header of a report or an export (`reporting.as_of_header`).
AS_OF = {
    "description": "How far the answer reaches: `sequence=N; at=<RFC 3339>; source=replica|primary`, "
    "the client's chain head in the report's snapshot (`at` absent for an empty chain).",
    "schema": {"type": "string"},
}
STATE_HEADERS = {
    "ETag": {"description": 'The game version, `"7"`.', "schema": {"type": "string"}},
    "Idempotent-Replayed": {
        "description": "`true` on a replay of a stored answer.",
        "schema": {"type": "string", "example": "true"},
    },
}


def send_state(document: dict[str, Any], what: str = "game") -> Response:
    """A versioned resource's state for a GET, its version as a strong ETag, under RFC 9110's
    preconditions: an `If-Match` that names another version is 412 (as a write's is), and an
    `If-None-Match` that names this one is 304 without a body (a client polling for the next
    move pays no body until there is one)."""
    version = document["version"]
    headers = current_request().headers
    # Both read before either is judged: a malformed one is 422 whatever the version.
    wanted = parse_if_match(headers.get("If-Match"), what)
    unchanged = not_modified(headers.get("If-None-Match"), version)
    refuse_stale(wanted, version, what)
    etag = f'"{version}"'
    if unchanged:
        return Response(status=304, headers={"ETag": etag})
    return json_response(document, headers={"ETag": etag})


def send_versioned(stored: StoredResponse) -> Response:
    """A stored answer of a versioned resource, its version as a strong ETag when it is 2xx."""
    response = send_stored(stored)
    if 200 <= stored.status < 300:
        response.headers["ETag"] = f'"{json.loads(stored.body)["version"]}"'
    return response


# Every HTML page (/view, /problems, GET / for a browser): no script at all, styles only from
# /view/static, never framed, and a token in the URL never leaves in a Referer header.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}

# Every /v1 operation: 422 too, for a query parameter it does not take (queryguard).
AUTH = (401, 406, 422, 429, 503)
BODY = (400, 401, 403, 406, 413, 415, 422, 429, 503)
