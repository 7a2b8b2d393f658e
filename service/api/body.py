"""Request bodies: JSON only, UTF-8, at most 64 KiB, parsed strictly before any schema sees them."""

from __future__ import annotations

from typing import Any

from flask import current_app, g
from marshmallow import RAISE
from webargs import core
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import RequestEntityTooLarge

from service import strictjson
from service.domain.errors import FieldError, quoted

from .context import current_g, current_request, view_method
from .problems import Problem


def parse_strict(data: bytes) -> dict[str, Any]:
    """The body as a JSON object, or a 400 `malformed-json` problem saying why."""
    if not data:
        raise _bad("the request body is empty; a JSON object is expected")
    try:
        value = strictjson.loads(data)
    except strictjson.MalformedJSON as exc:
        raise _bad(str(exc)) from exc
    if not isinstance(value, dict):
        raise _bad("the body must be a JSON object")
    return value


def _bad(message: str) -> Problem:
    return Problem(400, "malformed-json", message, [FieldError("body", message)])


def optional_body(fn: Any) -> Any:
    """Mark a POST view whose body is optional (its schema's fields all are: `POST
    /v1/events/{id}/redeliver`): an empty one is `{}` whatever its Content-Type."""
    fn.capsa_optional_body = True
    return fn


def no_body(fn: Any) -> Any:
    """Mark a POST view that reads no body (`POST /v1/deals/{id}/reveal`): none, or `{}`; a
    field in it is a 422 naming it, as on every other route, never dropped unread."""
    fn.capsa_no_fields = True
    return optional_body(fn)


def _body_is_optional() -> bool:
    return bool(getattr(view_method(), "capsa_optional_body", False))


def check_no_fields(body: dict[str, Any] | None) -> None:
    """A 422 naming each field of a body sent to a view that reads none (`no_body`); call
    after the text guard, so a key it refuses is named as it names it."""
    if not body or not getattr(view_method(), "capsa_no_fields", False):
        return
    message = "Unknown field: this operation reads no body (send none, or {})"
    errors = [FieldError(name, message) for name in body]
    detail = f"{errors[0].field}: {message}" if len(errors) == 1 else f"{len(errors)} problems"
    raise Problem(422, "validation", detail, errors)


def read_bytes() -> bytes:
    """The body's bytes, at most MAX_CONTENT_LENGTH, or 413 `payload-too-large`.

    With a Content-Length, werkzeug refuses one over the limit. A chunked body has none, and
    werkzeug's limit on it only stops reading at the limit: `get_data()` would answer the first
    64 KiB as the body (valid JSON, then whitespace cut off: a 200). So a chunked body is read
    here from the server's stream, one byte past the limit, and that byte is a 413."""
    state = current_g()
    cached = state.get("raw_body")
    if cached is not None:
        return bytes(cached)
    limit = current_app.config["MAX_CONTENT_LENGTH"]
    req = current_request()
    if req.content_length is None and "wsgi.input_terminated" in req.environ:
        data = req.environ["wsgi.input"].read(limit + 1)
        if len(data) > limit:
            raise RequestEntityTooLarge()
    else:
        data = req.get_data(cache=True)  # 413 past MAX_CONTENT_LENGTH
    state.raw_body = data
    return bytes(data)


def load_body() -> None:
    """Check the content type and parse the body into `g.body` (and `g.raw_body`)."""
    empty = not read_bytes()  # at most one byte past the limit: a chunked body over it is 413
    req, state = current_request(), current_g()
    if empty and req.method == "PATCH":
        # Every field of a PATCH is optional: read as `{}`, no body would be a 200 that changed nothing.
        message = "a PATCH needs a JSON object with the fields to change"
        raise Problem(422, "validation", f"body: {message}", [FieldError("body", message)])
    if empty and (_body_is_optional() or not req.content_type):
        # No body and no Content-Type (`curl -X POST`): the empty object, so the schema names
        # every required field. An empty body that claims to be JSON stays malformed (400).
        state.raw_body, state.body = b"", {}
        return
    mimetype = req.mimetype
    if not req.content_type:
        raise Problem(
            415,
            "unsupported-media-type",
            "Content-Type must be application/json",
            [FieldError("header.Content-Type", "missing: a body must be sent as application/json")],
        )
    coding = req.headers.get("Content-Encoding", "").strip()
    if coding and coding.lower() != "identity":
        # Bodies are read as sent: a compressed one would be refused as not UTF-8, and a
        # plain one labelled compressed stored as if the label were not there.
        raise Problem(
            415,
            "unsupported-media-type",
            f"Content-Encoding {quoted(coding)} is not supported; send the body uncompressed",
            [FieldError("header.Content-Encoding", f"not supported, got {quoted(coding)}: send the body uncompressed")],
        )
    if mimetype != "application/json" and not mimetype.endswith("+json"):
        raise Problem(
            415,
            "unsupported-media-type",
            f"Content-Type {mimetype!r} is not application/json",
            [FieldError("header.Content-Type", "must be application/json")],
        )
    charset = req.mimetype_params.get("charset")
    if charset is not None and charset.lower().replace("_", "-") not in ("utf-8", "utf8"):
        raise Problem(
            415,
            "unsupported-media-type",
            f"charset {charset!r} is not UTF-8",
            [FieldError("header.Content-Type", "the charset must be UTF-8")],
        )
    state.body = parse_strict(read_bytes())


class StrictParser(FlaskParser):
    """webargs parser that reads the body parsed by `load_body` instead of `json.loads`.

    An unknown query parameter is a 422 naming it (webargs ignores them by default), so a
    misspelt filter never answers an unfiltered list."""

    DEFAULT_UNKNOWN_BY_LOCATION = {**FlaskParser.DEFAULT_UNKNOWN_BY_LOCATION, "query": RAISE, "querystring": RAISE}

    def _raw_load_json(self, req: Any) -> Any:
        body = g.get("body")
        return core.missing if body is None else body


parser = StrictParser()
