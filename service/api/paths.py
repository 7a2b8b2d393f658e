"""Path parameters a client chooses (a player's id): the body's whole-string pattern, or 422.

A route names such a parameter `<id:player>`. The converter routes any segment, as
`string` does, so that a value outside the pattern is a 422 on `path.<name>` quoting it
(like the same id in a body) rather than a 404 or, worse, an answer about a player no
body could ever have named (`a b`, `a\\n`, 65 characters).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from flask import request
from werkzeug.routing import BaseConverter
from werkzeug.routing.converters import IntegerConverter, UnicodeConverter

from service.domain.errors import FieldError

from .fields import ID_PATTERN
from .problems import Problem

_ID = re.compile(ID_PATTERN)
_ARGUMENT = re.compile(r"<id:([A-Za-z_][A-Za-z0-9_]*)>")


class ClientIdConverter(BaseConverter):
    """`<id:name>`: one path segment, checked against ID_PATTERN before the view runs."""


def id_schema(converter: BaseConverter) -> dict[str, str]:
    """The parameter's OpenAPI schema (flask-smorest `register_converter`)."""
    return {"type": "string", "pattern": ID_PATTERN}


class AsciiIntegerConverter(IntegerConverter):
    """`<int:name>`: ASCII digits as the number is written, without leading zeros. Werkzeug's
    own reads any Unicode digit (a fullwidth `１` was 1) and `01`; those are no route (404),
    as letters are."""

    regex = r"(?:0|[1-9][0-9]*)"


class DealIdConverter(UnicodeConverter):
    """`<deal:name>`: a deal's id, any segment but `commitments`, the route beside it:
    `GET /v1/deals/commitments` is that route's 405, not a search for a deal of that name."""

    def __init__(self, map: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(map, *args, **kwargs)
        self.regex = r"(?!commitments\Z)" + self.regex


@cache
def _id_parameters(rule: str) -> tuple[str, ...]:
    return tuple(_ARGUMENT.findall(rule))


def check_path_ids() -> None:
    """422 on `path.<name>` for each `<id:...>` value of the matched route that breaks the pattern."""
    rule, values = request.url_rule, request.view_args or {}
    if rule is None:
        return
    errors = [
        FieldError(f"path.{name}", f"{values[name]!r} must match {ID_PATTERN}")
        for name in _id_parameters(rule.rule)
        if _ID.fullmatch(values[name]) is None
    ]
    if errors:
        detail = f"{errors[0].field}: {errors[0].message}" if len(errors) == 1 else f"{len(errors)} problems"
        raise Problem(422, "validation", detail, errors)
