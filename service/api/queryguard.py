"""Query parameters a route does not take are refused (422 naming them), as unknown body
fields are: `?plyer=a` must not quietly answer every player's lines.

The names a route takes are those of its `@blp.arguments(..., location="query")` schema
(none for a route without one), read once per view from flask-smorest's documentation, so
the check and `openapi.yaml` cannot disagree. A name given twice is refused too: the
schema would read the first and silently drop the other.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from flask import current_app, request

from service.domain.errors import FieldError

from .problems import Problem


@cache
def _query_names(view: Any, method: str) -> frozenset[str]:
    view_class = getattr(view, "view_class", None)
    function = getattr(view_class, method.lower(), None) if view_class is not None else view
    parameters = getattr(function, "_apidoc", {}).get("arguments", {}).get("parameters", [])
    names: set[str] = set()
    for parameter in parameters:
        if parameter.get("in") == "query":
            schema = parameter["schema"]
            fields = (schema() if isinstance(schema, type) else schema).fields
            names.update(f.data_key or name for name, f in fields.items())
    return frozenset(names)


def check_query_names() -> None:
    """422 on `query.<name>` for every name the route does not take or that comes twice."""
    if not request.args or request.method == "OPTIONS":  # OPTIONS reads no query: it answers Allow
        return
    view = current_app.view_functions.get(request.endpoint or "")
    method = "GET" if request.method == "HEAD" else request.method
    allowed = _query_names(view, method)
    errors = []
    for name in request.args:
        if name not in allowed:
            expected = ", ".join(sorted(allowed)) or "none"
            errors.append(FieldError(f"query.{name}", f"unknown query parameter (this route takes: {expected})"))
        elif len(request.args.getlist(name)) > 1:
            errors.append(FieldError(f"query.{name}", "given more than once"))
    if errors:
        detail = f"{errors[0].field}: {errors[0].message}" if len(errors) == 1 else f"{len(errors)} problems"
        raise Problem(422, "validation", detail, errors)
