"""Ledger reports: a player's totals, a summary by player/table/day, the lines themselves.

Periods sum the lines dated in them (`since` inclusive, `until` exclusive): a round counts
in the period of its created_at, its reversal in the period of the void. Totals are SQL
aggregates over the ledger lines' own columns; no round document is read.
"""

from __future__ import annotations

import base64
import csv
import io
import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from service.adapters.ledger import AuditRepository, Totals
from service.adapters.uow import Database
from service.domain.errors import CapsaError, FieldError
from service.domain.money import check_currency, format_money

from .errors import InvalidInput
from .ids import rfc3339

CSV_COLUMNS = ("round", "sequence", "created_at", "account", "kind", "amount", "currency")
CSV_PAGE = 1000


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
        t = AuditRepository(uow.session).player_totals(client_id, player_id, currency, since, until)
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
        groups = AuditRepository(uow.session).summary(client_id, currency, since, until, group_by)
    house = sum(g.house for g in groups)
    if group_by == "player":
        groups = [g for g in groups if g.key is not None]  # the house's own group
    return {
        "currency": currency,
        "rows": [_row(g, currency) for g in groups],
        "house_fee": format_money(house, currency),
    }


def encode_cursor(created_at: datetime, line_id: int) -> str:
    raw = json.dumps([created_at.isoformat(), line_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, int]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        stamp, line_id = json.loads(raw)
        when = datetime.fromisoformat(stamp)
    except Exception as exc:  # any garbage is the same client error
        raise _bad_cursor() from exc
    if not isinstance(line_id, int) or isinstance(line_id, bool) or when.tzinfo is None:
        raise _bad_cursor()
    return when, line_id


def _bad_cursor() -> InvalidInput:
    return InvalidInput(
        "the cursor is not one this service gave",
        errors=[FieldError("query.cursor", "not a cursor from this service")],
    )


def _line(row: tuple[Any, ...]) -> dict[str, Any]:
    _id, round_id, sequence, created_at, account, kind, amount, currency = row
    return {
        "round": round_id,
        "sequence": sequence,
        "created_at": rfc3339(created_at),
        "account": account,
        "kind": kind,
        "amount": format_money(amount, currency),
        "currency": currency,
    }


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
    after = None if cursor is None else decode_cursor(cursor)
    with db.unit_of_work() as uow:
        rows = AuditRepository(uow.session).entries(
            client_id, currency, player=player, round_id=round, since=since, until=until, after=after,
            limit=limit + 1,
        )
    page = rows[:limit]
    more = len(rows) > limit
    return {
        "items": [_line(r) for r in page],
        "next_cursor": encode_cursor(page[-1][3], page[-1][0]) if more else None,
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
) -> Iterator[str]:
    """Every matching line from `cursor` on, as CSV text chunks (a header row first).

    Checked before the first chunk is produced (so a bad parameter is still a 422), then
    read in keyset pages of CSV_PAGE lines, each page its own short query."""
    del limit  # the CSV carries every matching line
    currency = _currency(currency)
    _period(since, until)
    start = None if cursor is None else decode_cursor(cursor)

    def generate() -> Iterator[str]:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\r\n")
        writer.writerow(CSV_COLUMNS)
        after = start
        while True:
            with db.unit_of_work() as uow:
                rows = AuditRepository(uow.session).entries(
                    client_id, currency, player=player, round_id=round, since=since, until=until,
                    after=after, limit=CSV_PAGE,
                )
            for r in rows:
                line = _line(r)
                writer.writerow([line[c] for c in CSV_COLUMNS])
            yield out.getvalue()
            out.seek(0)
            out.truncate()
            if len(rows) < CSV_PAGE:
                return
            after = (rows[-1][3], rows[-1][0])

    return generate()
