"""Round view for people: a signed, expiring link (API) and the HTML page it opens (no key)."""

from __future__ import annotations

import os
import threading
from typing import Any

import flask
from flask import Response, current_app, render_template
from flask.views import MethodView

from service.services import viewlinks
from service.services.errors import NotFound

from ..audit_schemas import ViewLinkSchema
from ..auth import allow_read
from ..body import optional_body
from ..state import db, principal
from . import AUTH, Blueprint, json_response

blp = Blueprint("view-links", __name__, url_prefix="/v1", description="Links to a round's HTML view.")
pages = flask.Blueprint("view", __name__, template_folder="../templates")

_lock = threading.Lock()
SUITS = {"c": ("♣", "black"), "d": ("♦", "red"), "h": ("♥", "red"), "s": ("♠", "black")}
RANKS = {"T": "10"}


def links() -> viewlinks.ViewLinks:
    """The app's signer: VIEW_LINK_SECRET, else the secret shared through the database."""
    found: viewlinks.ViewLinks | None = current_app.extensions.get("capsa_view_links")
    if found is None:
        with _lock:
            found = current_app.extensions.get("capsa_view_links")
            if found is None:
                secret = current_app.config.get("VIEW_LINK_SECRET") or os.environ.get("VIEW_LINK_SECRET")
                ttl = int(current_app.config.get("VIEW_LINK_TTL", viewlinks.DEFAULT_TTL))
                found = viewlinks.ViewLinks(secret or viewlinks.stored_secret(db()), ttl)
                current_app.extensions["capsa_view_links"] = found
    return found


@blp.route("/rounds/<string:round_id>/view-link")
class ViewLink(MethodView):
    @allow_read
    @optional_body
    @blp.response(201, ViewLinkSchema)
    @blp.problems(*AUTH, 404)
    def post(self, round_id: str) -> Response:
        """A link to an HTML view of the round: HMAC-signed, expires (default 1 hour)."""
        return json_response(links().create(db(), principal().client_id, round_id), status=201)


def card(text: str) -> dict[str, str]:
    rank, suit = text[:-1], text[-1]
    symbol, colour = SUITS[suit]
    return {"rank": RANKS.get(rank, rank), "symbol": symbol, "colour": colour, "text": text}


def _matrix(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows of the pairwise matrix: what each player got from each opponent (points, money)."""
    ids = [p["id"] for p in doc["players"]]
    cells: dict[tuple[str, str], dict[str, Any]] = {}
    for pair in doc["pairs"]:
        a, b = pair["players"]
        amount = pair["amount"]
        negated = amount[1:] if amount.startswith("-") else ("-" + amount if amount.strip("0.") else amount)
        cells[(a, b)] = {"points": pair["points"], "amount": amount, "outcome": pair["outcome"]}
        cells[(b, a)] = {"points": -pair["points"], "amount": negated, "outcome": pair["outcome"]}
    return [{"id": i, "cells": [cells.get((i, j)) if i != j else None for j in ids]} for i in ids]


def _payments(doc: dict[str, Any]) -> list[str]:
    out = []
    for pair in doc["pairs"]:
        a, b = pair["players"]
        amount = pair["amount"]
        if amount.startswith("-"):
            out.append(f"{a} pays {b} {amount[1:]} {doc['currency']}")
        elif amount.strip("0.") != "":
            out.append(f"{b} pays {a} {amount} {doc['currency']}")
        else:
            out.append(f"{a} and {b}: nothing changes hands")
    return out


@pages.get("/view/rounds/<path:token>")
def round_page(token: str) -> Response:
    try:
        doc = links().open(db(), token)
    except NotFound:
        html = render_template("round_not_found.html")
        return Response(html, status=404, content_type="text/html; charset=utf-8")
    html = render_template(
        "round.html", doc=doc, card=card, matrix=_matrix(doc), payments=_payments(doc)
    )
    response = Response(html, content_type="text/html; charset=utf-8")
    response.headers["Cache-Control"] = "private, no-store"
    response.headers["Referrer-Policy"] = "no-referrer"  # the token is the credential
    return response
