"""Ledger reports over the booked lines: a player, a summary, the lines (JSON or CSV)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlencode

from flask import Response, request
from flask.views import MethodView

from service.services.ledger import reports as ledger
from service.services.reporting import AS_OF_HEADER, AsOf, as_of_header

from ..context import current_g
from ..heavy_reads import answer_heavy, in_slot_or_refused
from ..schemas.ledger import (
    COUNTING,
    EntriesQuerySchema,
    EntryListSchema,
    LedgerQuerySchema,
    PlayerLedgerSchema,
    StatementQuerySchema,
    StatementSchema,
    SummaryQuerySchema,
    SummarySchema,
)
from ..state import db, principal
from . import AS_OF, AUTH, Blueprint, json_response

blp = Blueprint("ledger", __name__, url_prefix="/v1/ledger", description="Ledger reports.\n\n" + COUNTING)

CSV_LINK = {
    "description": "CSV only, when more than 100,000 lines match: "
    '`<...&cursor=...>; rel="next"`, the URL of the rest.',
    "schema": {"type": "string"},
}

CSV_EXAMPLE = (
    "round,sequence,created_at,account,kind,amount,currency\r\n"
    "rnd_01JDQ8V6R3X5M2N7P9K4T1W0YZ,1,2026-11-29T10:00:00.000Z,player:a,settlement,11000,IDR\r\n"
)


def _period_heavy(query: dict[str, Any], make: Callable[[], Response]) -> Response:
    """A report over a period sums its lines in full: a heavy read (`answer_heavy`); all
    time reads the rollups and is light."""
    if query.get("since") is None and query.get("until") is None:
        return make()
    return answer_heavy(make)


@blp.route("/players/<id:player>")
class PlayerLedger(MethodView):
    @blp.arguments(LedgerQuerySchema, location="query")
    @blp.response(200, PlayerLedgerSchema)
    @blp.problems(*AUTH, 422)
    def get(self, query: dict[str, Any], player: str) -> Response:
        """One player's totals over the lines dated in the period.

        Over a period (`since` or `until`) the lines are summed in full: a heavy read (see
        rate limits); all time reads the kept totals."""
        return _period_heavy(query, lambda: json_response(ledger.player(db(), principal().client_id, player, **query)))

    get.__doc__ = (get.__doc__ or "") + "\n\n" + COUNTING


STATEMENT_CSV_EXAMPLE = (
    "created_at,round,sequence,kind,amount,balance,currency\r\n"
    "2026-11-28T17:00:00.000Z,,,opening_balance,,10000,IDR\r\n"
    "2026-11-29T10:00:00.000Z,rnd_01JDQ8V6R3X5M2N7P9K4T1W0YZ,42,settlement,11000,21000,IDR\r\n"
    "2026-11-29T17:00:00.000Z,,,closing_balance,,21000,IDR\r\n"
)


@blp.route("/players/<id:player>/statement")
class PlayerStatement(MethodView):
    @blp.arguments(StatementQuerySchema, location="query")
    @blp.response(200, StatementSchema)
    @blp.doc(
        responses={
            "200": {
                "description": "OK",
                "content": {
                    "application/json": {"schema": StatementSchema},
                    "text/csv": {"schema": {"type": "string"}, "example": STATEMENT_CSV_EXAMPLE},
                },
                "headers": {"Link": CSV_LINK, "Capsa-As-Of": AS_OF},
            }
        }
    )
    @blp.problems(*AUTH, 422)
    def get(self, query: dict[str, Any], player: str) -> Response:
        """A player's statement: opening balance, the period's lines, closing balance.

        The opening balance sums every line of the player's account dated before `since`;
        the closing balance adds every line of the period. JSON pages the lines (oldest
        first, each with the balance after it) with `limit` and `cursor`. `Accept: text/csv`
        streams the period between an `opening_balance` and a `closing_balance` row, at most
        100,000 lines an answer (`limit` does not apply): when more remain, the answer closes
        with a `carried_forward` row instead, and a `Link: <...&cursor=...>; rel="next"`
        header names the next answer, which opens with that balance `brought_forward`."""
        if wants_csv():
            return answer_heavy(lambda: csv_response(*ledger.statement_csv(db(), principal().client_id, player, **query)))
        # its balances sum the account's lines: a heavy read, as the CSV
        return answer_heavy(lambda: json_response(ledger.statement(db(), principal().client_id, player, **query)))


@blp.route("/summary")
class Summary(MethodView):
    @blp.arguments(SummaryQuerySchema, location="query")
    @blp.response(200, SummarySchema)
    @blp.problems(*AUTH, 422)
    def get(self, query: dict[str, Any]) -> Response:
        """Totals per player, table or day (in `tz`, UTC by default) over the lines dated in the period."""

        # All time by day in a zone whose days are not kept yet gathers them in a slot.
        return _period_heavy(query, lambda: json_response(
            ledger.summary(db(), principal().client_id, **query, guard=in_slot_or_refused)))

    get.__doc__ = (
        (get.__doc__ or "")
        + "\n\nEach row sums the players' lines of its group; `house_fee` sums the house's "
        "fee lines (less reversals) of the period. By table or day, `rounds` counts rounds "
        "booked (+1) and reversed (-1).\n\nOver a period (`since` or `until`) the lines are summed "
        "in full: a heavy read (see rate limits); all time reads the kept totals. All time by day "
        "in a zone whose days are not kept gathers them from the quarter hours: a heavy read "
        "too (the first such read keeps the zone's days, for up to 8 zones a currency).\n\n"
        + COUNTING
    )


@blp.route("/entries")
class Entries(MethodView):
    @blp.arguments(EntriesQuerySchema, location="query")
    @blp.response(200, EntryListSchema)
    @blp.doc(
        responses={
            "200": {
                "description": "OK",
                "content": {
                    "application/json": {"schema": EntryListSchema},
                    "text/csv": {
                        "schema": {"type": "string"},
                        "example": CSV_EXAMPLE,
                    }
                },
                "headers": {"Link": CSV_LINK, "Capsa-As-Of": AS_OF},
            }
        }
    )
    @blp.problems(*AUTH, 422)
    def get(self, query: dict[str, Any]) -> Response:
        """Ledger lines, newest first by (created_at, id); `Accept: text/csv` streams CSV.

        JSON pages with `limit` and an opaque `cursor`. With `Accept: text/csv` the answer is
        CSV (columns round, sequence, created_at, account, kind, amount, currency, a header
        row) carrying the matching lines from `cursor` on, streamed, at most 100,000 of them
        (`limit` does not apply): when more remain, a `Link: <...&cursor=...>; rel="next"`
        header names the next answer's URL.
        """
        if wants_csv():
            return answer_heavy(lambda: csv_response(*ledger.entries_csv(db(), principal().client_id, **query)))
        return json_response(ledger.entries(db(), principal().client_id, **query))


def csv_response(chunks: Iterator[str], next_cursor: str | None, as_of: AsOf) -> Response:
    """A streamed CSV answer, its `Capsa-As-Of`; with a `Link` to the rest when it stops at its cap."""
    response = Response(chunks, content_type="text/csv; charset=utf-8")
    response.headers[AS_OF_HEADER] = as_of_header(as_of)
    if next_cursor is not None:
        args = {**request.args.to_dict(), "cursor": next_cursor}
        response.headers["Link"] = f'<{request.path}?{urlencode(args)}>; rel="next"'
    return response


def wants_csv() -> bool:
    """Whether Accept chooses CSV over JSON (the answer then varies by Accept)."""
    current_g().negotiated = True
    best = request.accept_mimetypes.best_match(["application/json", "text/csv"])
    return best == "text/csv"
