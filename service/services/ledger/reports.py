"""Ledger reports: a player's totals, a summary by player/table/day, the lines themselves.

Periods sum the lines dated in them (`since` inclusive, `until` exclusive): a round counts
in the period of its created_at, its reversal in the period of the void. Totals are SQL
aggregates over the ledger lines' own columns; no round document is read. A report over
all history (no `since`, no `until`) reads the totals the database keeps up to a record
sequence and adds the lines of the records after it (`rollups`; docs/limits.md).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from datetime import UTC, date, datetime, time
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

# The API names the groupings through this module.
from service.adapters.ledger import SUMMARY_GROUPINGS as SUMMARY_GROUPINGS
from service.adapters.ledger import Entry, Totals
from service.adapters.ledger import Grouping as Grouping
from service.adapters.replicas import AsOf, report
from service.adapters.uow import Database, UnitOfWork
from service.domain.audit import PLAYER_PREFIX
from service.domain.errors import CapsaError, FieldError
from service.domain.money import check_currency, format_money
from service.services.clock import bound_text, rfc3339
from service.services.errors import InvalidInput
from service.services.ledger import rollups
from service.services.reporting import as_of_json, decode_line_cursor, encode_line_cursor
from service.services.slots import RequiredGuard

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


def zone_of(name: str) -> ZoneInfo:
    """The IANA time zone `name` (zoneinfo); 422 naming `query.tz` when there is none."""
    try:
        # ZoneInfo refuses each of these itself (spaces around a name: not found; a path out of
        # its folders or an absolute one: ValueError): checked here first all the same.
        if name != name.strip() or ".." in name or name.startswith("/"):  # pragma: no mutate (ZoneInfo refuses them too)
            raise ValueError(name)  # pragma: no mutate (caught below, its argument never read)
        return rollups.ledger_zone(name)
    except (ZoneInfoNotFoundError, ValueError, OSError) as exc:
        # `Etc/GMT+5` sent unencoded arrives as `Etc/GMT 5`: say how to send the +
        hint = "; a + in a query reads as a space: send it as %2B" if " " in name.strip() else ""
        raise InvalidInput(
            f"unknown time zone {name!r}",
            errors=[FieldError("query.tz", f"{name!r} is not an IANA time zone name (e.g. Asia/Jakarta){hint}")],
        ) from exc


def moment(value: datetime | date | None, zone: ZoneInfo, field: str) -> datetime | None:
    """A query bound as an aware datetime: a date is its midnight in `zone`. A date whose
    midnight there lies outside the datetime range (year 1 east of UTC, 9999 west) is 422."""
    if value is None or isinstance(value, datetime):
        return value
    try:
        return datetime.combine(value, time(0), zone).astimezone(UTC)
    except (OverflowError, ValueError) as exc:
        raise InvalidInput(
            f"{field} {value.isoformat()!r} in {zone.key} is outside the supported range",
            errors=[FieldError(f"query.{field}", f"{value.isoformat()!r} in {zone.key} is out of range")],
        ) from exc


def _period(
    since: datetime | date | None, until: datetime | date | None, tz: str
) -> tuple[datetime | None, datetime | None, ZoneInfo]:
    """since, until (aware datetimes, dates read in `tz`) and the zone; until < since is 422."""
    zone = zone_of(tz)
    start, end = moment(since, zone, "since"), moment(until, zone, "until")
    if start is not None and end is not None and end < start:
        raise InvalidInput(
            "until is before since", errors=[FieldError("query.until", "must not be before since")]
        )
    return start, end, zone


def player(
    db: Database,
    client_id: str,
    player_id: str,
    *,
    currency: str,
    since: datetime | date | None = None,
    until: datetime | date | None = None,
    tz: str,
    min_sequence: int | None = None,
) -> dict[str, Any]:
    currency = _currency(currency)
    since, until, zone = _period(since, until, tz)
    if since is None and until is None:
        t, as_of = rollups.all_time(
            db, client_id, lambda uow, as_of, start: rollups.player(uow, as_of, start, client_id, player_id, currency),
            min_sequence,
        )
    else:
        t, as_of = report(
            db,
            client_id,
            lambda uow, as_of: (uow.ledger.player_totals(client_id, player_id, currency, since, until), as_of),
            min_sequence=min_sequence,
        )
    return {
        "player": player_id,
        "currency": currency,
        "rounds": t.rounds,
        "points": t.points,
        "result": format_money(t.result, currency),
        "winnings": format_money(t.winnings, currency),
        "fees": format_money(t.fees, currency),
        "net": format_money(t.net, currency),
        "as_of": as_of_json(as_of),
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
    *,
    currency: str,
    since: datetime | date | None = None,
    until: datetime | date | None = None,
    tz: str,
    group_by: Grouping,
    min_sequence: int | None = None,
    guard: RequiredGuard | None = None,
) -> dict[str, Any]:
    """`GET /v1/ledger/summary`. With `guard`, gathering a zone's days from the quarter
    hours (all time, by day, in a zone whose days are not kept: three years of history took
    210 ms of PostgreSQL), and keeping them after, run in it (a heavy read's slot)."""
    currency = _currency(currency)
    since, until, zone = _period(since, until, tz)

    if since is None and until is None:
        unkept: set[str] = set()
        groups, as_of = rollups.all_time(
            db, client_id, lambda uow, as_of, start: rollups.summary(
                uow, as_of, start, client_id, currency, group_by, zone, unkept, guard), min_sequence,
        )
        if unkept:  # gathered from the quarter hours: the next reads take a row a day
            def keep() -> bool:
                return rollups.keep_zone(db, client_id, currency, zone)

            keep() if guard is None else guard(keep)
    else:
        groups, as_of = report(
            db, client_id, lambda uow, as_of: (uow.ledger.summary(client_id, currency, since, until, group_by, zone),
                                               as_of), min_sequence=min_sequence,
        )
    house = sum(g.house for g in groups)
    if group_by == Grouping.PLAYER:
        groups = [g for g in groups if g.key is not None]  # the house's own group
    return {
        "currency": currency,
        "rows": [_row(g, currency) for g in groups],
        "house_fee": format_money(house, currency),
        "as_of": as_of_json(as_of),
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


def _sequences(uow: UnitOfWork, client_id: str, round_id: str | None) -> list[int] | None:
    """The records of a round (its own and its void's), for `?round=`."""
    if round_id is None:
        return None
    return [
        r.sequence
        for kind in (
            "round",
            "void",  # pragma: no mutate (the chain's of_round reads every kind but "round" as the void's)
        )
        if (r := uow.chain.of_round(client_id, round_id, kind))
    ]


def entries(
    db: Database,
    client_id: str,
    *,
    currency: str,
    player: str | None = None,
    round: str | None = None,
    since: datetime | date | None = None,
    until: datetime | date | None = None,
    tz: str,
    limit: int,
    cursor: str | None = None,
    min_sequence: int | None = None,
) -> dict[str, Any]:
    """A page of lines, newest first by (created_at, id), with an opaque cursor that keeps
    the first page's as_of."""
    currency = _currency(currency)
    since, until, zone = _period(since, until, tz)
    after, pinned = decode_line_cursor(cursor)

    def work(uow: UnitOfWork, as_of: AsOf) -> tuple[list[Entry], AsOf]:
        rows = uow.ledger.entries(
            client_id, currency, player=player, sequences=_sequences(uow, client_id, round), since=since,
            until=until, after=after, limit=limit + 1, through=as_of.sequence,
        )
        return rows, as_of

    rows, as_of = report(db, client_id, work, min_sequence=min_sequence, pinned=pinned)
    page = rows[:limit]
    more = len(rows) > limit
    last = page[-1] if page else None
    return {
        "items": [_line(r) for r in page],
        "next_cursor": encode_line_cursor(last.position, as_of) if more and last else None,
        "as_of": as_of_json(as_of),
    }


def _stop_at(edge: list[Entry], as_of: AsOf) -> tuple[tuple[datetime, int, int] | None, str | None]:
    """Where a capped CSV answer ends, and the next answer's cursor, from the two lines read
    at the cap (offset CSV_MAX_LINES - 1): with a line beyond the cap, the answer ends at the
    cap-th, edge[0]; otherwise it takes every line (None, None)."""
    if len(edge) < 2:
        return None, None
    return edge[0].position, encode_line_cursor(edge[0].position, as_of)


def entries_csv(
    db: Database,
    client_id: str,
    *,
    currency: str,
    player: str | None = None,
    round: str | None = None,
    since: datetime | date | None = None,
    until: datetime | date | None = None,
    tz: str,
    limit: int,
    cursor: str | None = None,
    min_sequence: int | None = None,
) -> tuple[Iterator[str], str | None, AsOf]:
    """The matching lines from `cursor` on, at most CSV_MAX_LINES, as CSV text chunks (a
    header row first), the cursor of the lines after them (None: there are none), and the
    answer's as_of: every page reads records up to its sequence only.

    Checked before the first chunk is produced (so a bad parameter is still a 422), and the
    next cursor found with one look at the line CSV_MAX_LINES on (an index range), so it can
    go in a header; then read in keyset pages of CSV_PAGE lines, each its own short query."""
    del limit  # JSON's page size; a CSV answer carries up to CSV_MAX_LINES
    currency = _currency(currency)
    since, until, zone = _period(since, until, tz)
    start, pinned = decode_line_cursor(cursor)
    cap = CSV_MAX_LINES

    def plan(uow: UnitOfWork, as_of: AsOf) -> tuple[list[int] | None, list[Entry], AsOf]:
        sequences = _sequences(uow, client_id, round)
        edge = uow.ledger.entries(
            client_id, currency, player=player, sequences=sequences, since=since, until=until,
            after=start, limit=2, offset=cap - 1, through=as_of.sequence,
        )
        return sequences, edge, as_of

    sequences, edge, as_of = report(db, client_id, plan, min_sequence=min_sequence, pinned=pinned)
    last, next_cursor = _stop_at(edge, as_of)

    def generate() -> Iterator[str]:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\r\n")  # pragma: no mutate (csv's default is \r\n too)
        writer.writerow(CSV_COLUMNS)
        after = start
        while True:
            def page(uow: UnitOfWork, pin: AsOf, after: tuple[datetime, int, int] | None = after) -> list[Entry]:
                return uow.ledger.entries(
                    client_id, currency, player=player, sequences=sequences, since=since, until=until,
                    after=after, limit=CSV_PAGE, through=pin.sequence,
                )

            rows = report(db, client_id, page, pinned=as_of)
            for r in rows:
                # Up to the line the next cursor names, by position, not by count: a line
                # booked meanwhile is newer and goes first, and still none is skipped.
                if last is not None and r.position < last:
                    rows = []
                    break
                line = _line(r)
                writer.writerow([line[c] for c in CSV_COLUMNS])
            yield out.getvalue()
            out.seek(0)
            out.truncate()
            if len(rows) < CSV_PAGE:
                return
            after = rows[-1].position

    return generate(), next_cursor, as_of


STATEMENT_COLUMNS = ("created_at", "round", "sequence", "kind", "amount", "balance", "currency")


def _statement_line(entry: Entry, balance: int) -> dict[str, Any]:
    return {
        "created_at": rfc3339(entry.created_at),
        "round": entry.round_id,
        "sequence": entry.sequence,
        "kind": entry.kind,
        "amount": format_money(entry.amount, entry.currency),
        "balance": format_money(balance, entry.currency),
    }


def _statement_head(
    uow: UnitOfWork,
    client_id: str,
    player_id: str,
    currency: str,
    since: datetime | None,
    until: datetime | None,
    as_of: AsOf,
    start: int | None = None,
) -> tuple[int, int]:
    """(opening, closing): the sum of the account's lines before `since`, and that plus
    the lines of the period (of the records up to the as_of). Over all history, with the
    rollups up to record `start`: the player's rollup net plus the lines after it."""
    through = as_of.sequence
    if start is not None:  # all history: only the rollups' branch of `statement` hands a start
        return 0, rollups.player(uow, as_of, start, client_id, player_id, currency).net
    opening = _opening(uow, client_id, player_id, currency, since, through)
    period = uow.ledger.balance(client_id, player_id, currency, until, since=since, through=through)
    return opening, opening + period


def _opening(
    uow: UnitOfWork, client_id: str, player_id: str, currency: str, since: datetime | None, through: int
) -> int:
    """The sum of the account's lines dated before `since` (0 without one), of the records up
    to `through`."""
    return 0 if since is None else uow.ledger.balance(client_id, player_id, currency, since, through=through)


def _through(
    uow: UnitOfWork,
    client_id: str,
    player_id: str,
    currency: str,
    start: datetime | None,
    end: datetime | None,
    after: tuple[datetime, int, int] | None,
    through: int,
) -> int:
    """What the period's lines up to and including the cursor's line add to the opening
    balance (0 without a cursor): where a later page or CSV answer starts its balance."""
    if after is None:
        return 0
    return uow.ledger.balance(
        client_id, player_id, currency, end, since=start, before_line=(after[0], after[1], after[2] + 1),
        through=through,
    )


def statement(
    db: Database,
    client_id: str,
    player_id: str,
    *,
    currency: str,
    since: datetime | date | None = None,
    until: datetime | date | None = None,
    tz: str,
    limit: int,
    cursor: str | None = None,
    min_sequence: int | None = None,
) -> dict[str, Any]:
    """A player's statement: the opening balance (every line of the account before `since`),
    a page of the period's lines oldest first, each with the balance after it, and the
    closing balance (opening plus every line of the period, whatever the page), all of one
    snapshot, and on later pages of the first page's as_of."""
    currency = _currency(currency)
    start, end, zone = _period(since, until, tz)
    after, pinned = decode_line_cursor(cursor)

    def work(uow: UnitOfWork, as_of: AsOf, first: int | None = None) -> tuple[int, int, list[Entry], int]:
        n = as_of.sequence
        opening, closing = _statement_head(uow, client_id, player_id, currency, start, end, as_of, first)
        rows = uow.ledger.statement_lines(client_id, player_id, currency, start, end, after, limit + 1, through=n)
        balance = opening + _through(
            uow, client_id, player_id, currency, start,
            end,  # pragma: no mutate (a line is shown only after a cursor before end: so is every line to it)
            after, n,
        )
        return opening, closing, rows, balance

    if start is None and end is None:  # all history: the closing balance from the rollups
        (opening, closing, rows, balance), as_of = rollups.all_time(db, client_id, work, min_sequence, pinned)
    else:
        (opening, closing, rows, balance), as_of = report(
            db, client_id, lambda uow, as_of: (work(uow, as_of), as_of), min_sequence=min_sequence, pinned=pinned
        )
    page = rows[:limit]
    lines = []
    for entry in page:
        balance += entry.amount
        lines.append(_statement_line(entry, balance))
    last = page[-1] if page else None
    return {
        "player": player_id,
        "account": PLAYER_PREFIX + player_id,
        "currency": currency,
        "tz": zone.key,
        "since": None if start is None else bound_text(start),
        "until": None if end is None else bound_text(end),
        "opening_balance": format_money(opening, currency),
        "closing_balance": format_money(closing, currency),
        "lines": lines,
        "next_cursor": encode_line_cursor(last.position, as_of) if len(rows) > limit and last else None,
        "as_of": as_of_json(as_of),
    }


def statement_csv(
    db: Database,
    client_id: str,
    player_id: str,
    *,
    currency: str,
    since: datetime | date | None = None,
    until: datetime | date | None = None,
    tz: str,
    limit: int,
    cursor: str | None = None,
    min_sequence: int | None = None,
) -> tuple[Iterator[str], str | None, AsOf]:
    """The statement as CSV, at most CSV_MAX_LINES lines an answer, streamed in pages of
    CSV_PAGE: a header, an opening row, the lines oldest first with the balance after each,
    a closing row; and the cursor of the next answer (None: this one ends the period).

    The opening row is the period's `opening_balance`, or, from a `cursor`, the balance
    `brought_forward` from the answers before; the closing row is the `closing_balance`, or,
    when lines remain, the balance `carried_forward` to the next answer. Checked, and the
    next cursor found (one look at the line CSV_MAX_LINES on), before the first chunk, so a
    bad parameter is still a 422 and the cursor can go in a header. Every page reads the
    records up to the answer's as_of (a cursor's, from the first answer) only."""
    del limit  # JSON's page size; a CSV answer carries up to CSV_MAX_LINES
    currency = _currency(currency)
    start, end, _ = _period(since, until, tz)
    after, pinned = decode_line_cursor(cursor)
    cap = CSV_MAX_LINES

    def plan(uow: UnitOfWork, as_of: AsOf) -> tuple[int, list[Entry], AsOf]:
        n = as_of.sequence
        # The opening alone: the closing row is the running balance (no sum of the period).
        opening = _opening(uow, client_id, player_id, currency, start, n)
        opening += _through(uow, client_id, player_id, currency, start, end, after, n)
        edge = uow.ledger.statement_lines(
            client_id, player_id, currency, start, end, after, 2, offset=cap - 1, through=n
        )
        return opening, edge, as_of

    opening, edge, as_of = report(db, client_id, plan, min_sequence=min_sequence, pinned=pinned)
    last, next_cursor = _stop_at(edge, as_of)

    def generate() -> Iterator[str]:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\r\n")  # pragma: no mutate (csv's default is \r\n too)
        writer.writerow(STATEMENT_COLUMNS)
        if after is None:
            head = ("" if start is None else bound_text(start), "opening_balance")
        else:
            head = (rfc3339(after[0]), "brought_forward")
        writer.writerow([head[0], "", "", head[1], "", format_money(opening, currency), currency])
        balance, position = opening, after
        while True:
            def page(
                uow: UnitOfWork, pin: AsOf, position: tuple[datetime, int, int] | None = position
            ) -> list[Entry]:
                return uow.ledger.statement_lines(
                    client_id, player_id, currency, start, end, position, CSV_PAGE, through=pin.sequence
                )

            rows = report(db, client_id, page, pinned=as_of)
            for entry in rows:
                # Up to the line the next cursor names, by position: a line booked meanwhile
                # sorts after it and is the next answer's.
                if last is not None and entry.position > last:
                    rows = []
                    break
                balance += entry.amount
                line = _statement_line(entry, balance)
                writer.writerow([*(line[c] for c in STATEMENT_COLUMNS[:-1]), currency])
            if len(rows) < CSV_PAGE:
                break
            position = rows[-1].position
            yield out.getvalue()
            out.seek(0)
            out.truncate()
        # The lines are read page by page while rounds may be stored: the closing row is the
        # running balance, which is what the rows above add up to.
        if last is None:
            tail = ("" if end is None else bound_text(end), "closing_balance")
        else:
            tail = (rfc3339(last[0]), "carried_forward")
        writer.writerow([tail[0], "", "", tail[1], "", format_money(balance, currency), currency])
        yield out.getvalue()

    return generate(), next_cursor, as_of
