from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.problem_type import ProblemType, check_problem_type

if TYPE_CHECKING:
    from ..models.field_error import FieldError


T = TypeVar("T", bound="Problem")


@_attrs_define
class Problem:
    """
    Attributes:
        type_ (ProblemType | str): Problem type; one of:

            - `/problems/malformed-json` (400): The body is not JSON (or not UTF-8), has NaN/Infinity, duplicate keys,
            nesting deeper than 32, a number too large for a double, or is not an object.
            - `/problems/validation` (422): The body, a query parameter or a header does not fit the schema, or breaks a
            game-independent bound (player count, money, ids).
            - `/problems/invalid-cards` (422): Unknown cards, wrong counts, duplicate cards, rows that do not use exactly
            the dealt hand.
            - `/problems/unknown-rules` (422): An unknown preset, a preset of the other game, or an unknown parameter.
            - `/problems/unauthorized` (401): Missing, malformed, unknown or revoked API key (WWW-Authenticate: Bearer).
            - `/problems/forbidden` (403): A read key on a writing endpoint.
            - `/problems/not-found` (404): No such resource for this client (another client's round too), or no such route.
            - `/problems/conflict` (409): Conflicting state: `reference` already used, a deal or a commitment used twice, a
            move on a finished game, a chain head that matches no stored record (not signed).
            - `/problems/deal-in-play` (409): The deal is used by a game still in play: its seed and hands stay hidden until
            the game ends.
            - `/problems/idempotency-key-reused` (422): The Idempotency-Key was used with another body.
            - `/problems/idempotency-in-flight` (409): The first request with this Idempotency-Key is still running; retry
            after Retry-After seconds.
            - `/problems/illegal-move` (422): A Big Two move that the rules refuse.
            - `/problems/payload-too-large` (413): The body is over the limit (64 KiB).
            - `/problems/uri-too-long` (414): The request line is over 8189 bytes (answered by nginx in front).
            - `/problems/request-header-fields-too-large` (431): A header line is over 8189 bytes, all of them over 32 KiB
            or over 1,000 lines (answered by nginx in front).
            - `/problems/bad-request` (400): The request line or a header is not valid HTTP (answered by nginx in front).
            - `/problems/not-implemented` (501): A Transfer-Encoding other than chunked (answered by nginx in front).
            - `/problems/http-version-not-supported` (505): A request line naming an HTTP version other than 1.0 or 1.1
            (answered by nginx in front).
            - `/problems/unsupported-media-type` (415): The body is not application/json.
            - `/problems/rate-limited` (429): Too many requests; retry after Retry-After seconds.
            - `/problems/unavailable` (503): The database is unavailable; retry after Retry-After seconds.
            - `/problems/method-not-allowed` (405): The route does not take this method (see Allow).
            - `/problems/not-acceptable` (406): The Accept header does not allow the route's answer type (application/json;
            also text/csv for ledger lines, application/x-ndjson for the audit export).
            - `/problems/precondition-failed` (412): A stale If-Match version.
            - `/problems/internal` (500): A safety net for an unexpected error; the tests assert it never happens. The
            request id is logged. Example: /problems/invalid-cards.
        title (str):  Example: Invalid cards.
        status (int):  Example: 422.
        detail (str):  Example: 2 problems in the request body.
        errors (list[FieldError]): Every problem found, each at its place.
    """

    type_: ProblemType | str
    title: str
    status: int
    detail: str
    errors: list[FieldError]

    def to_dict(self) -> dict[str, Any]:
        type_: str
        if isinstance(self.type_, str):
            type_ = self.type_
        else:
            type_ = self.type_

        title = self.title

        status = self.status

        detail = self.detail

        errors = []
        for errors_item_data in self.errors:
            errors_item = errors_item_data.to_dict()
            errors.append(errors_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "title": title,
                "status": status,
                "detail": detail,
                "errors": errors,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.field_error import FieldError

        d = dict(src_dict)

        def _parse_type_(data: object) -> ProblemType | str:
            try:
                if not isinstance(data, str):
                    raise TypeError()
                type_type_0 = check_problem_type(data)

                return type_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ProblemType | str, data)

        type_ = _parse_type_(d.pop("type"))

        title = d.pop("title")

        status = d.pop("status")

        detail = d.pop("detail")

        errors = []
        _errors = d.pop("errors")
        for errors_item_data in _errors:
            errors_item = FieldError.from_dict(errors_item_data)

            errors.append(errors_item)

        problem = cls(
            type_=type_,
            title=title,
            status=status,
            detail=detail,
            errors=errors,
        )

        return problem
