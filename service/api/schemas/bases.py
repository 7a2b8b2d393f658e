"""What the resources' schemas share: the strict bases, the rule-set echo, a report's reach."""

from __future__ import annotations

from marshmallow import EXCLUDE, RAISE, Schema, fields, validate

from service.domain.audit import MAX_SEQUENCE
from service.domain.susun.round import CURRENCY_MAX
from service.services.reporting import ReportSource

from ..fields import QueryInteger, openapi_meta

CURSOR_MAX = 512  # characters of an opaque cursor (ours are far shorter)


class Strict(Schema):
    """Request bodies: an unknown field is a 422 naming it."""

    class Meta:
        unknown = RAISE
        ordered = True


class Out(Schema):
    """Response shapes: documentation and schema conformance only (views return JSON bytes)."""

    class Meta:
        unknown = RAISE
        ordered = True


class Query(Schema):
    """Query parameters."""

    class Meta:
        unknown = EXCLUDE  # names the route does not take are refused before (queryguard)
        ordered = True


class PagedQuery(Schema):
    """Query parameters of a list paged by an opaque cursor."""

    class Meta:
        unknown = RAISE  # a misspelt filter is a 422, not a silently unfiltered list
        ordered = True

    cursor = fields.String(
        validate=validate.Length(1, CURSOR_MAX),
        metadata=openapi_meta("WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiwiZGxfMDFKIl0", "Opaque: `next_cursor` of the previous page."),
    )


def currency_code() -> fields.String:
    """A request's `currency`: a code's shape only; the domain asks CLDR whether it knows it."""
    return fields.String(
        required=True,
        validate=validate.Length(1, CURRENCY_MAX),
        metadata=openapi_meta("IDR", "ISO 4217 code known to CLDR."),
    )


def page_limit(default: int, most: int, description: str = "Page size, 1-{most}.") -> QueryInteger:
    """A list's `limit`: how many items a page holds."""
    return QueryInteger(
        load_default=default,
        validate=validate.Range(1, most),
        metadata=openapi_meta(default, description.format(most=most)),
    )


def next_cursor_field() -> fields.String:
    """A page's `next_cursor`."""
    return fields.String(
        required=True,
        allow_none=True,
        metadata=openapi_meta(None, "Pass as `cursor` for the next page; null on the last."),
    )


class AsOfSchema(Out):
    sequence = fields.Integer(
        required=True,
        metadata=openapi_meta(42, "The client's chain head in the report's snapshot: every record up to it is in."),
    )
    at = fields.String(
        required=True,
        allow_none=True,
        metadata=openapi_meta(
            "2026-11-29T10:00:00.000Z", "When that record was stored; null for an empty chain.", format="date-time"
        ),
    )
    source = fields.String(
        required=True,
        validate=validate.OneOf([ReportSource.REPLICA.value, ReportSource.PRIMARY.value]),
        metadata=openapi_meta("replica", "`replica` (READ_DATABASE_URL's standby) or `primary`."),
    )


def as_of_field() -> fields.Nested:
    return fields.Nested(
        AsOfSchema,
        required=True,
        metadata={
            "description": "How far the answer reaches; a cursor keeps its first page's, so later pages see no more."
        },
    )


def min_sequence_field() -> QueryInteger:
    return QueryInteger(
        validate=validate.Range(1, MAX_SEQUENCE),
        metadata=openapi_meta(
            42,
            "The chain sequence the answer must reach (a reader that just stored a round): a "
            "standby behind it is waited for briefly (up to 1 s), then the primary answers.",
        ),
    )
