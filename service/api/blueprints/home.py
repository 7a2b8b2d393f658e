"""`GET /`: where a person or a client starts. A browser gets a small HTML page (name,
versions, links to /docs, /openapi.yaml, /problems); `Accept: application/json` (or any
client that prefers JSON, curl's `*/*` included) gets the same as a JSON index. `/docs/`
redirects to `/docs`. No key is needed, as for /docs and /problems.
"""

from __future__ import annotations

from importlib import metadata

import flask
from flask import Response, redirect, render_template, request

from service.domain.version import ENGINE_VERSION
from service.services.jsondoc import dump

from . import SECURITY_HEADERS

pages = flask.Blueprint("home", __name__, template_folder="../templates")

NAME = "Capsa scoring service"
LINKS = (
    ("/docs", "the API, rendered (Swagger UI)"),
    ("/openapi.yaml", "the HTTP contract (OpenAPI 3.1)"),
    ("/problems", "every problem type an error answer names"),
)


def package_version() -> str:
    try:
        return metadata.version("capsa-service")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from an unpacked tree
        return "unknown"


def index_document() -> dict[str, object]:
    return {
        "name": NAME,
        "version": package_version(),
        "engine_version": ENGINE_VERSION,
        "links": {href.lstrip("/").replace(".", "_"): href for href, _ in LINKS},
    }


@pages.get("/")
def index() -> Response:
    accept = request.accept_mimetypes
    if accept["text/html"] > accept["application/json"]:  # a browser: HTML over JSON
        html = render_template("home.html", doc=index_document(), links=LINKS)
        response = Response(html, content_type="text/html; charset=utf-8")
        response.headers.update(SECURITY_HEADERS)
    else:
        response = Response(dump(index_document()), content_type="application/json")
    response.headers["Vary"] = "Accept"
    response.headers["Cache-Control"] = "no-cache"
    return response


@pages.get("/docs/")
def docs_slash() -> Response:
    return redirect("/docs", code=308)  # type: ignore[return-value]
