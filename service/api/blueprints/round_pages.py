"""Round view for people: a signed, expiring link (API) and the HTML page it opens (no key).

The page is rendered from the round document (the answer of `GET /v1/rounds/{id}`) by
`round.html`, styled by `static/round.css` (served under /view/static: the page has no
inline style or script, so its Content-Security-Policy allows only that stylesheet).

Money: the document's amounts are decimal strings with the currency's own number of
decimals; the page formats them with Babel's `format_currency` in the locale that
currency is written in at home, from `CURRENCY_LOCALES` below (IDR -> id_ID: "Rp49.000",
USD -> en_US: "$300.00"). A currency missing from the table is formatted in `en_US`
(Babel still knows its symbol and decimals).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import flask
from babel.numbers import format_currency
from flask import Response, current_app, render_template, request
from flask.views import MethodView

from service.domain.audit import LedgerLine, reversal_lines, round_lines
from service.domain.banting.rules import BANTING, SettlementRule
from service.domain.banting.settlement import Outcome
from service.domain.money import format_money, minor_digits
from service.domain.susun.scoring import PairOutcome
from service.services import view_links
from service.services.errors import NotFound

from ..auth import allow_read
from ..body import no_body
from ..schemas.view_links import ViewLinkSchema
from ..state import db, principal
from . import BODY, SECURITY_HEADERS, Blueprint, json_response
from .round_page_rules import foul_reasons, tricks

blp = Blueprint("view-links", __name__, url_prefix="/v1", description="Links to a round's HTML view.")
pages = flask.Blueprint(
    "view",
    __name__,
    template_folder="../templates",
    static_folder="../static",
    static_url_path="/view/static",
)

# The locale each currency's amounts are written in (symbol, separators, sign placement).
CURRENCY_LOCALES = {
    "IDR": "id_ID",
    "USD": "en_US",
    "SGD": "en_SG",
    "MYR": "ms_MY",
    "PHP": "en_PH",
    "THB": "th_TH",
    "VND": "vi_VN",
    "CNY": "zh_Hans_CN",
    "HKD": "zh_Hant_HK",
    "MOP": "zh_Hant_MO",
    "TWD": "zh_Hant_TW",
    "JPY": "ja_JP",
    "KRW": "ko_KR",
    "INR": "en_IN",
    "AUD": "en_AU",
    "NZD": "en_NZ",
    "CAD": "en_CA",
    "GBP": "en_GB",
    "EUR": "de_DE",  # many countries; German grouping and a trailing symbol
    "CHF": "de_CH",
}
FALLBACK_LOCALE = "en_US"

_lock = threading.Lock()
SUITS = {"c": ("♣", "black"), "d": ("♦", "red"), "h": ("♥", "red"), "s": ("♠", "black")}
RANKS = {"T": "10"}


def _setting(name: str) -> str | None:
    value = current_app.config.get(name) or os.environ.get(name)
    return str(value) if value else None


def links() -> view_links.ViewLinks:
    """The app's signer: VIEW_LINK_SECRET, else the secret shared through the database;
    links signed with VIEW_LINK_PREVIOUS_SECRET (comma-separated) still open."""
    found: view_links.ViewLinks | None = current_app.extensions.get("capsa_view_links")
    if found is None:
        with _lock:
            found = current_app.extensions.get("capsa_view_links")
            if found is None:
                secret = _setting("VIEW_LINK_SECRET")
                previous = view_links.previous_secrets(_setting("VIEW_LINK_PREVIOUS_SECRET"))
                ttl = int(_setting("VIEW_LINK_TTL") or view_links.DEFAULT_TTL)
                found = view_links.ViewLinks(secret or view_links.stored_secret(db()), ttl, previous)
                current_app.extensions["capsa_view_links"] = found
    return found


@blp.route("/rounds/<string:round_id>/view-link")
class ViewLink(MethodView):
    @allow_read
    @no_body
    @blp.response(201, ViewLinkSchema)
    @blp.problems(*BODY, 404)
    def post(self, round_id: str) -> Response:
        """A link to an HTML view of the round: HMAC-signed, expires (default 1 hour)."""
        return json_response(links().create(db(), principal().client_id, round_id), status=201)


# -- what the template shows ---------------------------------------------------------------------


def locale_for(currency: str) -> str:
    return CURRENCY_LOCALES.get(currency, FALLBACK_LOCALE)


def money(amount: str, currency: str) -> str:
    """A document amount ("-1000", "12.50") as people read it in that currency's locale."""
    return str(format_currency(Decimal(amount), currency, locale=locale_for(currency)))


def negated(amount: str) -> str:
    if amount.startswith("-"):
        return amount[1:]
    return amount if Decimal(amount) == 0 else "-" + amount


def signed(points: int) -> str:
    """Points with their sign: +13, -1, 0."""
    return f"{points:+d}" if points else "0"


def card(text: str) -> dict[str, str]:
    rank, suit = text[:-1], text[-1]
    symbol, colour = SUITS[suit]
    return {"rank": RANKS.get(rank, rank), "symbol": symbol, "colour": colour, "text": text}


def side_label(outcome: str, points: int) -> str:
    """A pair's outcome as seen by one of its two players (the other sees the mirror).

    The document names a pair's outcome once for both sides (Big Two's `win` is the
    winner's); each side's cell says whether that player won or lost it.
    """
    if outcome == Outcome.BOMB:
        return "won (bomb)" if points > 0 else "lost (bombed)" if points < 0 else "bomb (not owed)"
    side = "won" if points > 0 else "lost" if points < 0 else "even"
    if outcome in (Outcome.WIN, PairOutcome.NORMAL, PairOutcome.TIE, Outcome.EVEN):
        return side
    if outcome == Outcome.LOST_LESS:  # two losers of everyone pays everyone
        return "lost less" if points > 0 else "lost more" if points < 0 else "even"
    if outcome == Outcome.TAKES_ALL:
        return "collected" if points > 0 else "took on all losses" if points < 0 else "even"
    return f"{side} ({outcome})"


def _matrix(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows of the pairwise matrix: what each player got from each opponent (points, money)."""
    ids = [p["id"] for p in doc["players"]]
    cells: dict[tuple[str, str], dict[str, Any]] = {}
    for pair in doc["pairs"]:
        a, b = pair["players"]
        amount, points = pair["amount"], pair["points"]
        cells[(a, b)] = {"points": points, "amount": amount, "label": side_label(pair["outcome"], points)}
        cells[(b, a)] = {
            "points": -points,
            "amount": negated(amount),
            "label": side_label(pair["outcome"], -points),
        }
    rows = []
    for i in ids:
        row = []
        for j in ids:
            row.append({"self": True} if i == j else cells.get((i, j), {"none": True}))
        rows.append({"id": i, "cells": row})
    return rows


def _payments(doc: dict[str, Any]) -> list[dict[str, str]]:
    """Who pays whom, pair by pair: {payer, payee, amount} (amount empty when even)."""
    out = []
    for pair in doc["pairs"]:
        a, b = pair["players"]
        amount = pair["amount"]
        if Decimal(amount) < 0:
            out.append({"payer": a, "payee": b, "amount": negated(amount)})
        elif Decimal(amount) > 0:
            out.append({"payer": b, "payee": a, "amount": amount})
        else:
            out.append({"payer": a, "payee": b, "amount": ""})
    return out


def _minor(amount: str, currency: str) -> int:
    return int(Decimal(amount).scaleb(minor_digits(currency)))


def _ledger(doc: dict[str, Any]) -> list[dict[str, str]]:
    """The round's booked lines and, for a voided round, each one's reversal (negated)."""
    currency = doc["currency"]
    booked = round_lines(
        [(p["id"], _minor(p["result"], currency), _minor(p["fee"], currency)) for p in doc["players"]],
        _minor(doc["house_fee"], currency),
    )
    reversed_: Sequence[LedgerLine | None] = (
        reversal_lines(booked) if doc.get("void") else (None,) * len(booked)
    )
    return [
        {
            "account": line.account.removeprefix("player:"),
            "kind": line.kind,
            "amount": format_money(line.amount, currency),
            "reversal": "" if rev is None else format_money(rev.amount, currency),
        }
        for line, rev in zip(booked, reversed_)
    ]


def _winner(doc: dict[str, Any]) -> dict[str, Any] | None:
    """A Big Two round's winner: who made the last play (out of cards, or a bomb that ended
    the game), not the first pair's first player (under everyone pays everyone, pairs go by
    seat, each from the side that lost less: two losers where the winner sits third);
    `bombed` when a bomb ended it; `everyone` when every player pays every other."""
    if doc.get("game") != BANTING or not doc.get("history"):
        return None
    bombed = [p["players"][1] for p in doc["pairs"] if p["outcome"] == Outcome.BOMB and p["points"]]
    return {
        "id": doc["history"][-1]["player"],
        "bombed": bombed[0] if bombed else None,
        "everyone": doc["rules"]["params"].get("settlement") == SettlementRule.EVERYONE_PAYS_EVERYONE,
    }


def _moment(text: str | None) -> str:
    """`2026-12-01T08:13:38.914Z` as `2026-12-01 08:13:38 UTC`."""
    if not text:
        return ""
    return text.replace("T", " ").split(".")[0].removesuffix("Z") + " UTC"


@pages.after_app_request
def _security_headers(response: Response) -> Response:
    if request.path.startswith("/view/"):
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        if "/rounds/" in request.path:  # a link's token is in it (the page, its 404, a redirect's Location): kept by no cache
            response.headers.setdefault("Cache-Control", "private, no-store")
    return response


@pages.get("/view/rounds/<path:token>")
def round_page(token: str) -> Response:
    try:
        doc = links().open(db(), token)
    except NotFound:
        html = render_template("round_not_found.html")
        return Response(html, status=404, content_type="text/html; charset=utf-8")  # no-store: the hook above
    ledger = _ledger(doc)
    html = render_template(
        "round.html",
        doc=doc,
        card=card,
        money=lambda amount: money(amount, doc["currency"]),
        negate=negated,
        signed=signed,
        moment=_moment,
        matrix=_matrix(doc),
        payments=_payments(doc),
        ledger=ledger,
        ledger_sum={
            "booked": str(sum((Decimal(line["amount"]) for line in ledger), Decimal(0))),
            "reversed": str(sum((Decimal(line["reversal"] or 0) for line in ledger), Decimal(0))),
        },
        winner=_winner(doc),
        tricks=tricks(doc),
        foul_reasons=foul_reasons(doc),
    )
    return Response(html, content_type="text/html; charset=utf-8")  # no-store: the hook above
