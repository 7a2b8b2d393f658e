"""Ledger reports: a player's totals, a summary by player/table/day, the lines themselves.

Periods sum the lines dated in them (`since` inclusive, `until` exclusive): a round counts
in the period of its created_at, its reversal in the period of the void. Totals are SQL
aggregates over the ledger lines' own columns; no round document is read.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from service.adapters.ledger import Entry, Totals
from service.adapters.uow import Database, UnitOfWork
from service.domain.errors import CapsaError, FieldError
from service.domain.money import check_currency, format_money

from .errors import InvalidInput
from .ids import rfc3339
from .pages import decode_cursor, encode_cursor

CSV_COLUMNS = ("round", "sequence", "created_at", "account", "kind", "amount", "currency")
CSV_PAGE = 1000
# Lines in one CSV answer at most: its time and the worker it holds stay bounded (about 2 s
# of database reads here); the rest is the next answer's, from the `next_cursor` it names.
CSV_MAX_LINES = 100_000


def _currency(code: str) -> str:
    try:
        return check_currency(code, "query.currency")
    except CapsaError as exc:
        raise InvalidInput(exc.message, errors=exc.errors) from exc


def _period(since: datetime | None, until: datetime | None) -> None:
    if since is not None and until is not None and until < since:
        raise InvalidInput(
            "until is before since", errors=[FieldError("query.until", "must not be before since")]
        )


def player(
    db: Database,
    client_id: str,
    player_id: str,
    currency: str,
    since: datetime | None = None,
    until: datetime | None = None,
) -> dict[str, Any]:
    currency = _currency(currency)
    _period(since, until)
    with db.unit_of_work() as uow:
        t = uow.ledger.player_totals(client_id, player_id, currency, since, until)
    return {
        "player": player_id,
        "currency": currency,
        "rounds": t.rounds,
        "points": t.points,
        "result": format_money(t.result, currency),
        "winnings": format_money(t.winnings, currency),
        "fees": format_money(t.fees, currency),
        "net": format_money(t.net, currency),
    }


def _row(t: Totals, currency: str) -> dict[str, Any]:
    return {
        "key": t.key,
        "rounds": t.rounds,
        "result": format_money(t.result, currency),
        "fees": format_money(t.fees, currency),
        "net": format_money(t.net, currency),
    }


def summary(
    db: Database,
    client_id: str,
    currency: str,
    since: datetime | None = None,
    until: datetime | None = None,
    group_by: str = "player",
) -> dict[str, Any]:
    currency = _currency(currency)
    _period(since, until)
    with db.unit_of_work() as uow:
        groups = uow.ledger.summary(client_id, currency, since, until, group_by)
    house = sum(g.house for g in groups)
    if group_by == "player":
        groups = [g for g in groups if g.key is not None]  # the house's own group
    return {
        "currency": currency,
        "rows": [_row(g, currency) for g in groups],
        "house_fee": format_money(house, currency),
    }


def _line(entry: Entry) -> dict[str, Any]:
    return {
        "round": entry.round_id,
        "sequence": entry.sequence,
        "created_at": rfc3339(entry.created_at),
        "account": entry.account,
        "kind": entry.kind,
        "amount": format_money(entry.amount, entry.currency),
        "currency": entry.currency,
    }


def _after(cursor: str | None) -> tuple[datetime, int, int] | None:
    if cursor is None:
        return None
    when, sequence, line_no = decode_cursor(cursor, int, int)
    return when, sequence, line_no


def _sequences(uow: UnitOfWork, client_id: str, round_id: str | None) -> list[int] | None:
    """The records of a round (its own and its void's), for `?round=`."""
    if round_id is None:
        return None
    return [r.sequence for kind in ("round", "void") if (r := uow.chain.of_round(client_id, round_id, kind))]


def entries(
    db: Database,
    client_id: str,
    *,
    currency: str,
    player: str | None = None,
    round: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: int = 50,
    cursor: str | None = None,
) -> dict[str, Any]:
    """A page of lines, newest first by (created_at, id), with an opaque cursor."""
    currency = _currency(currency)
    _period(since, until)
    after = _after(cursor)
    with db.unit_of_work() as uow:
        rows = uow.ledger.entries(
            client_id, currency, player=player, sequences=_sequences(uow, client_id, round), since=since,
            until=until, after=after, limit=limit + 1,
        )
    page = rows[:limit]
    more = len(rows) > limit
    last = page[-1] if page else None
    return {
        "items": [_line(r) for r in page],
        "next_cursor": encode_cursor(last.created_at, last.sequence, last.line_no) if more and last else None,
    }


def entries_csv(
    db: Database,
    client_id: str,
    *,
    currency: str,
    player: str | None = None,
    round: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: int = 50,
    cursor: str | None = None,
) -> tuple[Iterator[str], str | None]:
    """The matching lines from `cursor` on, at most CSV_MAX_LINES, as CSV text chunks (a
    header row first), and the cursor of the lines after them (None: there are none).

    Checked before the first chunk is produced (so a bad parameter is still a 422), and the
    next cursor found with one look at the line CSV_MAX_LINES on (an index range), so it can
    go in a header; then read in keyset pages of CSV_PAGE lines, each its own short query."""
    del limit  # JSON's page size; a CSV answer carries up to CSV_MAX_LINES
    currency = _currency(currency)
    _period(since, until)
    start = _after(cursor)
    cap = CSV_MAX_LINES
    with db.unit_of_work() as uow:
        sequences = _sequences(uow, client_id, round)
        edge = uow.ledger.entries(
            client_id, currency, player=player, sequences=sequences, since=since, until=until,
            after=start, limit=2, offset=cap - 1,
        )
    last: tuple[datetime, int, int] | None = None
    next_cursor = None
    if len(edge) == 2:  # a line beyond the cap: the answer ends at the cap-th, edge[0]
        last = (edge[0].created_at, edge[0].sequence, edge[0].line_no)
        next_cursor = encode_cursor(*last)

    def generate() -> Iterator[str]:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\r\n")
        writer.writerow(CSV_COLUMNS)
        after = start
        while True:
            with db.unit_of_work() as uow:
                rows = uow.ledger.entries(
                    client_id, currency, player=player, sequences=sequences, since=since, until=until,
                    after=after, limit=CSV_PAGE,
                )
            for r in rows:
                # Up to the line the next cursor names, by position, not by count: a line
                # booked meanwhile is newer and goes first, and still none is skipped.
                if last is not None and (r.created_at, r.sequence, r.line_no) < last:
                    rows = []
                    break
                line = _line(r)
                writer.writerow([line[c] for c in CSV_COLUMNS])
            yield out.getvalue()
            out.seek(0)
            out.truncate()
            if len(rows) < CSV_PAGE:
                return
            after = (rows[-1].created_at, rows[-1].sequence, rows[-1].line_no)

    return generate(), next_cursor
