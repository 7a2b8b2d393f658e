"""The Swagger UI page (`/docs`): its Content-Security-Policy, like the other HTML pages'.

The page (templates/swagger_ui.html, flask-smorest's own with a nonce) loads the UI's
scripts and stylesheet from /docs/assets and runs one inline script, its configuration:
that script carries a fresh nonce each request, and the policy allows scripts from this
origin and that nonce only, so markup injected into the page could run nothing. The UI
reads /openapi.json and, with "Try it out", calls the API (connect-src 'self'); its icons
are data: images. Never framed, no Referer leaves it.
"""

from __future__ import annotations

import secrets

from flask import Flask, Response, g, request

ENDPOINT = "api-docs.openapi_swagger_ui"  # flask-smorest's endpoint of OPENAPI_SWAGGER_UI_PATH


def csp_nonce() -> str:
    """This request's script nonce (made on first use)."""
    nonce: str | None = g.get("csp_nonce")
    if nonce is None:
        nonce = g.csp_nonce = secrets.token_urlsafe(18)
    return nonce


def policy(nonce: str | None) -> str:
    """The page's policy; without a nonce (the template asked for none) no inline script runs."""
    scripts = "'self'" if nonce is None else f"'self' 'nonce-{nonce}'"
    return (
        f"default-src 'none'; script-src {scripts}; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )


def _swagger_page_headers(response: Response) -> Response:
    if request.endpoint == ENDPOINT:
        response.headers["Content-Security-Policy"] = policy(g.get("csp_nonce"))
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["Cache-Control"] = "no-store"  # a nonce is for one answer
    return response


def install(app: Flask) -> None:
    app.jinja_env.globals["csp_nonce"] = csp_nonce
    app.after_request(_swagger_page_headers)
