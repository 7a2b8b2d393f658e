"""Text no database can store: NUL characters and unpaired surrogates, refused at the door.

PostgreSQL text cannot hold U+0000 (psycopg raises DataError) and neither engine can encode
a lone surrogate such as the JSON escape `"\\ud800"` (UnicodeEncodeError): both used to reach
the database from a path id, a query value or a free-text body field, and answer 500. They
never name anything and are never a legitimate value, so they are refused here for every
route at once:

- in the path: 404 `not-found` (no resource has such an id), but for a player's id, which
  `paths.check_path_ids` has answered first with 422 on `path.<name>` quoting it;
- in a query value: 422 `validation` on `query.<name>`;
- in any key or string of a JSON body: 422 `validation` at its path (`players[0].id`).
"""

from __future__ import annotations

import re
from typing import Any

from flask import request

from service.domain.errors import FieldError

from .problems import Problem

_BAD = re.compile("[\x00\ud800-\udfff]")
_MESSAGE = "must not contain NUL characters or unpaired surrogates"


def check_request_line() -> None:
    """The path and the query string (call before routing-dependent work)."""
    if _BAD.search(request.path) or _encoded_slash(request.environ):
        raise Problem(404, "not-found", "no such resource")
    errors = [
        FieldError(f"query.{name}", _MESSAGE)
        for name, value in request.args.items(multi=True)
        if _BAD.search(name) or _BAD.search(value)
    ]
    if errors:
        raise Problem(422, "validation", f"{errors[0].field}: {_MESSAGE}", errors)


def _encoded_slash(environ: dict[str, Any]) -> bool:
    """Whether the path as sent holds `%2F`: the server decodes it before routing, so
    `/players/a%2Fstatement` would reach a's statement. No id holds a slash: 404."""
    raw = environ.get("RAW_URI") or environ.get("REQUEST_URI") or ""
    return "%2f" in raw.partition("?")[0].lower()


def check_body(value: Any, raw: bytes | None = None) -> None:
    """Every key and string of a parsed JSON body.

    With the body's `raw` bytes, a body without any `\\u` escape is passed at once: JSON
    can carry NUL or a lone surrogate only as such an escape (a raw control character is
    malformed JSON, and UTF-8 cannot encode a surrogate)."""
    if raw is not None and b"\\u" not in raw:
        return
    errors: list[FieldError] = []
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, str):
            if _BAD.search(node):
                errors.append(FieldError(path or "body", _MESSAGE))
        elif isinstance(node, dict):
            for key, item in node.items():
                child = f"{path}.{key}" if path else str(key)
                if _BAD.search(key):
                    errors.append(FieldError(path or "body", f"a key {_MESSAGE}"))
                    continue
                stack.append((item, child))
        elif isinstance(node, list):
            stack.extend((item, f"{path}[{i}]") for i, item in enumerate(node))
    if errors:
        errors.sort(key=lambda e: e.field)
        detail = f"{errors[0].field}: {_MESSAGE}" if len(errors) == 1 else f"{len(errors)} problems"
        raise Problem(422, "validation", detail, errors)
