"""RFC 9457 problem details for every error: HTTP, webargs, domain, service, storage, crashes."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping
from typing import Any

import structlog
from flask import Flask, Response, g, request
from werkzeug.exceptions import HTTPException

from service.adapters.errors import DatabaseUnavailable, LockTimeout, NumericOverflow, UniqueViolation
from service.adapters.replicas import PinnedPastHead
from service.domain.errors import CapsaError, FieldError, quoted
from service.services.errors import ServiceError
from service.services.jsondoc import dump

from .schemas.problems import PROBLEM_TYPES

log = structlog.get_logger("service.api")

PROBLEM_CONTENT_TYPE = "application/problem+json"
RETRY_AFTER_UNAVAILABLE = 5
RETRY_AFTER_LOCKED = 1  # a row held by another request: it ends within its own deadline

PROBLEM_BY_STATUS = {
    400: "malformed-json",
    401: "unauthorized",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    406: "not-acceptable",
    409: "conflict",
    412: "precondition-failed",
    413: "payload-too-large",
    415: "unsupported-media-type",
    422: "validation",
    429: "rate-limited",
    503: "unavailable",
}
TITLES = {
    "malformed-json": "Malformed JSON",
    "validation": "Validation failed",
    "unauthorized": "Unauthorized",
    "forbidden": "Forbidden",
    "not-found": "Not found",
    "method-not-allowed": "Method not allowed",
    "not-acceptable": "Not acceptable",
    "conflict": "Conflict",
    "precondition-failed": "Precondition failed",
    "payload-too-large": "Payload too large",
    "uri-too-long": "URI too long",
    "request-header-fields-too-large": "Request header fields too large",
    "bad-request": "Bad request",
    "not-implemented": "Not implemented",
    "http-version-not-supported": "HTTP version not supported",
    "unsupported-media-type": "Unsupported media type",
    "rate-limited": "Too many requests",
    "unavailable": "Service unavailable",
    "internal": "Internal error",
}


def _subclasses(root: type) -> list[Any]:
    out: list[Any] = []
    for sub in root.__subclasses__():
        out += [sub, *_subclasses(sub)]
    return out


def title_of(problem: str) -> str:
    """The `title` the API answers a problem type with: the exception's own, or the HTTP one."""
    for cls in (*_subclasses(CapsaError), *_subclasses(ServiceError)):
        if getattr(cls, "problem", None) == problem:
            return str(cls.title)
    return TITLES.get(problem, problem.replace("-", " ").capitalize())


class Problem(Exception):
    """Raised by the HTTP layer itself (body parsing, Accept): answered as it says."""

    def __init__(
        self,
        status: int,
        problem: str,
        detail: str,
        errors: Iterable[FieldError] = (),
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.problem = problem
        self.detail = detail
        self.errors = list(errors)
        self.headers = dict(headers or {})


# What a problem quotes of a request, at most: its messages quote the caller's values and
# keys, and a 64 KiB body echoed whole came back two to four times its size. The service's
# own texts are far shorter (350 characters at most, 27 errors for the worst legal round).
MAX_TEXT = 512  # characters of `detail` and of each error's `message`
MAX_FIELD = 256  # characters of each error's `field`
MAX_ERRORS = 50  # errors listed; `detail` says how many there were


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def problem_body(
    status: int,
    problem: str,
    detail: str,
    errors: Iterable[FieldError] = (),
    title: str | None = None,
) -> bytes:
    """An RFC 9457 document as the API answers it, its texts cut to the limits above."""
    return dump({
        "type": f"/problems/{problem}",
        "title": title or TITLES.get(problem, problem.replace("-", " ").capitalize()),
        "status": status,
        "detail": _cut(detail, MAX_TEXT),
        "errors": [
            {"field": _cut(e.field, MAX_FIELD), "message": _cut(e.message, MAX_TEXT)}
            for e in itertools.islice(errors, MAX_ERRORS)
        ],
    })


def problem_response(
    status: int,
    problem: str,
    detail: str,
    errors: Iterable[FieldError] = (),
    title: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> Response:
    body = problem_body(status, problem, detail, errors, title)
    response = Response(body, status=status, content_type=PROBLEM_CONTENT_TYPE)
    if status == 401:
        response.headers["WWW-Authenticate"] = 'Bearer realm="capsa"'
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


_ABSENT = object()
SHOWN_VALUE = 80  # characters of a refused value quoted after a schema's message


def flatten_messages(messages: Any, prefix: str = "", sent: Any = _ABSENT) -> list[FieldError]:
    """marshmallow's nested messages as `players[1].arrangement.front[2]` paths. With `sent`
    (what the caller sent there), a message that does not quote the value it refuses gets
    it, as JSON: `Not a valid string: got 5` (marshmallow's own messages name none)."""
    out: list[FieldError] = []

    def walk(node: Any, path: str, value: Any) -> None:
        if isinstance(node, Mapping):
            for key, inner in node.items():
                if key == "_schema":
                    walk(inner, path, value)
                elif isinstance(key, int):
                    walk(inner, f"{path}[{key}]", _item(value, key))
                else:
                    walk(inner, f"{path}.{key}" if path else str(key), _item(value, key))
        elif isinstance(node, list | tuple):
            for item in node:
                walk(item, path, value)
        else:
            out.append(FieldError(path or "body", _with_value(str(node), value)))

    walk(messages, prefix, sent)
    return out


def _item(container: Any, key: Any) -> Any:
    if isinstance(container, Mapping) and isinstance(key, str) and key in container:
        return container[key]
    if isinstance(container, list) and isinstance(key, int) and 0 <= key < len(container):
        return container[key]
    return _ABSENT


# marshmallow's refusals of a value's type ("Not a valid list.", "Invalid input type.") and
# of a list's length ("Length must be between 1 and 4."): the messages about an object or a
# list as a whole, which is then quoted too.
_TYPE_REFUSAL = re.compile(
    r"(?:Not a valid|Invalid input type|Invalid type|Length must be|Shorter than minimum length|Longer than maximum length)\b"
)


def _with_value(message: str, value: Any) -> str:
    if value is _ABSENT:  # a missing field
        return message
    if isinstance(value, Mapping | list) and not _TYPE_REFUSAL.match(message):
        return message  # about what the object holds, which its own fields' messages name
    shown = quoted(value, SHOWN_VALUE)
    # Already named: null by "may not be null", a string by its quoted form, a number or a
    # boolean as "value 1000" or "got 1000" (not by its digits alone: "Must be greater than or
    # equal to 1 and less than or equal to 20" holds a 0 and a 1 of its own).
    if value is None:
        named = "null" in message
    elif isinstance(value, str):
        named = shown in message or repr(value) in message
    else:
        named = re.search(rf"\b(?:value|got) {re.escape(shown)}(?![\w.])", message) is not None
    if named:
        return message
    return f"{message.rstrip('.')}: got {shown}"


_LOCATIONS = {"json": "", "query": "query", "headers": "header", "view_args": "path"}


def _sent(location: str) -> Any:
    """What the request carried at `location`, to quote in its refusals (never its headers:
    they hold the key)."""
    if location == "json":
        return g.get("body", _ABSENT)
    if location == "query":
        return request.args.to_dict(flat=True)
    if location == "view_args":
        return dict(request.view_args or {})
    return _ABSENT


def _webargs_errors(data: Mapping[str, Any]) -> list[FieldError]:
    messages = data.get("messages") or {}
    errors: list[FieldError] = []
    for location, nested in messages.items():
        errors += flatten_messages(nested, _LOCATIONS.get(location, str(location)), _sent(str(location)))
    return errors


def handle_http_exception(error: HTTPException) -> Response:
    status = error.code or 500
    problem = PROBLEM_BY_STATUS.get(status, "internal" if status >= 500 else "validation")
    data = getattr(error, "data", None) or {}
    errors = _webargs_errors(data) if status == 422 else []
    headers: dict[str, str] = {}
    for name, value in error.get_headers():
        if name.lower() not in ("content-type", "content-length"):
            headers[name] = value
    headers.update(data.get("headers") or {})
    if status == 422 and errors:
        detail = (
            f"{errors[0].field}: {errors[0].message}"
            if len(errors) == 1
            else f"{len(errors)} problems in the request"
        )
    else:
        detail = error.description or error.name
    if status == 413:
        detail = "the request body is over the limit of 64 KiB"
    if status >= 500:
        problem = "internal"
        log.error("internal_error", request_id=g.get("request_id"), error=repr(error))
    return problem_response(status, problem, detail, errors, headers=headers)


def register(app: Flask) -> None:
    """Error handlers for everything but HTTPException (flask-smorest's Api routes that one)."""

    @app.errorhandler(Problem)
    def _http_layer_problem(exc: Problem) -> Response:
        return problem_response(exc.status, exc.problem, exc.detail, exc.errors, headers=exc.headers)

    @app.errorhandler(CapsaError)
    def _domain_error(exc: CapsaError) -> Response:
        problem = exc.problem if exc.problem in PROBLEM_TYPES else "validation"
        return problem_response(422, problem, exc.message, exc.errors, title=exc.title)

    @app.errorhandler(ServiceError)
    def _service_error(exc: ServiceError) -> Response:
        status = PROBLEM_TYPES[exc.problem][0]
        headers = {}
        if exc.retry_after is not None:
            headers["Retry-After"] = str(exc.retry_after)
        return problem_response(
            status, exc.problem, exc.message, exc.errors, title=exc.title, headers=headers
        )

    def _retry_later(event: str, exc: Exception, detail: str, retry_after: int) -> Response:
        """503 `unavailable` with Retry-After: the request changed nothing and may be sent again."""
        log.warning(event, request_id=g.get("request_id"), error=str(exc))
        return problem_response(503, "unavailable", detail, headers={"Retry-After": str(retry_after)})

    @app.errorhandler(DatabaseUnavailable)
    def _unavailable(exc: DatabaseUnavailable) -> Response:
        return _retry_later("database_unavailable", exc, "the database is unavailable; retry later", RETRY_AFTER_UNAVAILABLE)

    @app.errorhandler(PinnedPastHead)
    def _pinned_past_head(exc: PinnedPastHead) -> Response:
        message = "the cursor is not one this service gave"
        return problem_response(422, "validation", message, [FieldError("query.cursor", f"not a cursor from this service: {exc}")])

    @app.errorhandler(LockTimeout)
    def _lock_timeout(exc: LockTimeout) -> Response:
        # Another request held a row this one needs (a game's, a client's counter) past the
        # lock timeout: the first of two retries of a move, say, still committing. Where the
        # Idempotency-Key was known it is 409 idempotency-in-flight; elsewhere the request
        # changed nothing.
        return _retry_later(
            "lock_timeout", exc, "another request held what this one needs for too long; retry later", RETRY_AFTER_LOCKED
        )

    @app.errorhandler(NumericOverflow)
    def _overflow(exc: NumericOverflow) -> Response:
        # Amounts are bounded (10^18) and sums cannot overflow, so this is a defect of ours:
        # a 500 that says so, never a 503 with Retry-After that invites retries forever.
        log.error("numeric_overflow", request_id=g.get("request_id"), error=str(exc))
        return problem_response(
            500,
            "internal",
            "a number went beyond the 64-bit integers the database stores; retrying will not "
            f"help: quote request id {g.get('request_id')} when reporting it",
        )

    @app.errorhandler(UniqueViolation)
    def _unique(exc: UniqueViolation) -> Response:
        # Two requests raced for the same row; the loser may retry and find the winner's.
        return problem_response(409, "conflict", "a concurrent request stored the same thing")

    @app.errorhandler(Exception)
    def _internal(exc: Exception) -> Response:
        if isinstance(exc, HTTPException):  # pragma: no cover - routed to the Api handler
            return handle_http_exception(exc)
        log.exception("unhandled_exception", request_id=g.get("request_id"))
        return problem_response(
            500,
            "internal",
            f"an unexpected error; quote request id {g.get('request_id')} when reporting it",
        )
