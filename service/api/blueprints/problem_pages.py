"""`/problems/<type>`: the problem types of every error answer, as pages for people.

Every problem+json answer names its `type` as a relative URI (`/problems/invalid-cards`);
opened in a browser it is this page: the type's status, title and meaning, and where the
client developers' guide (docs/api.md#problem-types) says more. `/problems` lists them all.
No key is needed (as for `/docs`); an unknown type is a 404 page.
"""

from __future__ import annotations

import re

import flask
from flask import Response, render_template
from markupsafe import Markup, escape

from ..problems import title_of
from ..schemas.problems import PROBLEM_TYPES
from . import SECURITY_HEADERS

pages = flask.Blueprint("problems", __name__, template_folder="../templates")

GUIDE = "docs/api.md#problem-types"
HEADERS = {**SECURITY_HEADERS, "Cache-Control": "public, max-age=3600"}


def _page(body: str, status: int = 200) -> Response:
    response = Response(body, status=status, content_type="text/html; charset=utf-8")
    response.headers.update(HEADERS)
    return response


def code_spans(text: str) -> Markup:
    """A meaning's `code` spans as <code> elements (the rest escaped): no literal backticks."""
    parts = re.split(r"`([^`]+)`", str(escape(text)))
    return Markup("".join(f"<code>{part}</code>" if i % 2 else part for i, part in enumerate(parts)))


def _problem_rows() -> list[dict[str, object]]:
    return [
        {"type": name, "status": status, "title": title_of(name), "meaning": code_spans(meaning)}
        for name, (status, meaning) in PROBLEM_TYPES.items()
    ]


@pages.get("/problems")
def index() -> Response:
    return _page(render_template("problems.html", rows=_problem_rows(), guide=GUIDE))


@pages.get("/problems/<string:name>")
def problem_type(name: str) -> Response:
    if name not in PROBLEM_TYPES:
        return _page(render_template("problem.html", row=None, name=name, guide=GUIDE), 404)
    row = next(r for r in _problem_rows() if r["type"] == name)
    return _page(render_template("problem.html", row=row, name=name, guide=GUIDE))
