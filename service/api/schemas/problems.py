"""The problem types every error answer names, and the problem+json document."""

from __future__ import annotations

from marshmallow import fields

from ..fields import open_enum, openapi_meta
from .bases import Out

PROBLEM_TYPES = {
    "malformed-json": (
        400,
        (
            "The body is not JSON (or not UTF-8), has NaN/Infinity, duplicate keys, nesting "
            "deeper than 32, a number too large for a double, or is not an object."
        ),
    ),
    "validation": (
        422,
        (
            "The body, a query parameter or a header does not fit the schema, or "
            "breaks a game-independent bound (player count, money, ids)."
        ),
    ),
    "invalid-cards": (
        422,
        ("Unknown cards, wrong counts, duplicate cards, rows that do not use exactly the dealt hand."),
    ),
    "unknown-rules": (
        422,
        "An unknown preset, a preset of the other game, or an unknown parameter.",
    ),
    "unauthorized": (401, "Missing, malformed, unknown or revoked API key (WWW-Authenticate: Bearer)."),
    "forbidden": (403, "A read key on a writing endpoint."),
    "not-found": (
        404,
        "No such resource for this client (another client's round too), or no such route.",
    ),
    "conflict": (
        409,
        "Conflicting state: `reference` already used, a deal or a commitment used twice, a move on a finished game, "
        "a chain head that matches no stored record (not signed).",
    ),
    "deal-in-play": (
        409,
        "The deal is used by a game still in play: its seed and hands stay hidden until the game ends.",
    ),
    "idempotency-key-reused": (422, "The Idempotency-Key was used with another body."),
    "idempotency-in-flight": (
        409,
        ("The first request with this Idempotency-Key is still running; retry after Retry-After seconds."),
    ),
    "illegal-move": (422, "A Big Two move that the rules refuse."),
    "payload-too-large": (413, "The body is over the limit (64 KiB)."),
    "uri-too-long": (414, "The request line is over 8189 bytes (answered by nginx in front)."),
    "request-header-fields-too-large": (
        431,
        "A header line is over 8189 bytes, all of them over 32 KiB or over 1,000 lines (answered by nginx in front).",
    ),
    "bad-request": (400, "The request line or a header is not valid HTTP (answered by nginx in front)."),
    "not-implemented": (501, "A Transfer-Encoding other than chunked (answered by nginx in front)."),
    "http-version-not-supported": (505, "A request line naming an HTTP version other than 1.0 or 1.1 (answered by nginx in front)."),
    "unsupported-media-type": (415, "The body is not application/json."),
    "rate-limited": (429, "Too many requests; retry after Retry-After seconds."),
    "unavailable": (503, "The database is unavailable; retry after Retry-After seconds."),
    "method-not-allowed": (405, "The route does not take this method (see Allow)."),
    "not-acceptable": (
        406,
        "The Accept header does not allow the route's answer type (application/json; also text/csv "
        "for ledger lines, application/x-ndjson for the audit export).",
    ),
    "precondition-failed": (412, "A stale If-Match version."),
    "internal": (
        500,
        (
            "A safety net for an unexpected error; the tests assert it never "
            "happens. The request id is logged."
        ),
    ),
}


class FieldErrorSchema(Out):
    field = fields.String(
        required=True,
        metadata=openapi_meta(
            "players[1].arrangement.front[2]",
            "A path into the body, or header.<Name> / query.<name>.",
        ),
    )
    message = fields.String(required=True, metadata=openapi_meta("unknown card 'Xx'"))


class ProblemSchema(Out):
    type = fields.String(
        required=True,
        metadata=open_enum(
            "ProblemType",
            [f"/problems/{p}" for p in PROBLEM_TYPES],
            "/problems/invalid-cards",
            "Problem type; one of:\n\n"
            + "\n".join(f"- `/problems/{p}` ({s}): {d}" for p, (s, d) in PROBLEM_TYPES.items()),
        ),
    )
    title = fields.String(required=True, metadata=openapi_meta("Invalid cards"))
    status = fields.Integer(required=True, metadata=openapi_meta(422))
    detail = fields.String(required=True, metadata=openapi_meta("2 problems in the request body"))
    errors = fields.List(
        fields.Nested(FieldErrorSchema),
        required=True,
        metadata={"description": "Every problem found, each at its place."},
    )
