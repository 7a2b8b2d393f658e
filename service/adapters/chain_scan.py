"""Reading a client's chain for the verifier: each record once, in sequence order, with the
live copies a round record is compared with, in the unit of work's own snapshot.

A scanned record is a plain tuple (`ScannedRecord`):

    (sequence, kind, round_id, previous_hash, hash, canonical,
     game, preset, table, reference, currency, time, round_sequence, line_nos, lines, players)

the chain row, then the round row that has the record's round id (None where there is
none; `time` the round's moment, an aware datetime in UTC: the checker parses the record's
text rather than have the database format every row's; on SQLite, text in any other form
than the service writes stays text, `models.stored_time`), then the record's ledger lines folded
into three texts, or None where there are none:

    line_nos  "0,1,...,n-1": the lines' numbers in the order they were folded (so it says
              both how many there are and that the other two texts follow line order)
    lines     [{"account":...,"amount":...,"kind":...}, ... every line]: exactly the RFC
              8785 bytes a record's `ledger_lines` has when the lines are its copies
    players   [{"id":...,"points":...,"winnings":...}, ... every settlement line]

A line that disagrees with its round row (time, currency, table), whose basis is not its
kind, or that carries points or winnings without being a settlement, is folded as `!`, so
`lines` can never equal a record's bytes. Money is formatted as records write it (the
currency's minor digits). Values go into the texts as they are: a text whose quotes are
not exactly its own structure's (`QUOTES_PER_LINE`), or that holds a backslash, must not
be trusted (`verification.copies_match` checks).

On PostgreSQL the scan is a statement per SCAN_STATEMENT records in the unit of work's
transaction (a snapshot: REPEATABLE READ), each joining the round row by index and merging
the records with their lines, read as one index range and folded per record, streamed in
small chunks while the caller checks; on SQLite it reads pages in the unit of work's
transaction and folds the same texts here. `scan`
yields one iterator per statement: between two, the connection is idle and the caller
may read from it (the records it could not match on the way).
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Sequence
from typing import Any

import psycopg
from sqlalchemy import Connection, text

from service.domain.audit import HOUSE, PLAYER_PREFIX, SETTLEMENT
from service.domain.money import currencies_by_digits, format_money

from .ledger import LineCopy
from .models import as_bytes, stored_time

# A plain tuple, as the database hands it over: the scan yields one per record at tens of
# thousands a second.
ScannedRecord = tuple[Any, ...]
# One statement's records: exhaust or close it before asking for the next statement.
Statement = Generator[ScannedRecord, None, None]

SQLITE_PAGE = 2000
# Rows per chunk PostgreSQL sends: small enough that a chunk (about 3 KB a record) stays in
# the CPU's cache while it is checked (500 cost a third more of the client's CPU).
STREAM_CHUNK = 64
# Records per statement: each ends well within a statement timeout of seconds (5 s by
# default) even at a few thousand records a second.
SCAN_STATEMENT = 5000
QUOTES_PER_LINE = 12  # {"account":"...","amount":"...","kind":"..."}
BAD_LINE = "!"


def _codes(digits: int) -> str:
    return "'{" + ",".join(currencies_by_digits().get(digits, ())) + "}'::text[]"


# Money as records write it, by the line's currency: NULL for no minor digits (the integer
# as it is), else the numeric unit whose product with the minor units prints exactly the
# currency's digits (-5 x 0.01 = -0.05). A code CLDR does not know has 2 digits, as
# `format_money` says; the currency itself is compared with the round row's too.
_UNIT = (
    f"CASE WHEN l.currency = ANY({_codes(0)}) THEN NULL WHEN l.currency = ANY({_codes(3)}) THEN 0.001"
    f" WHEN l.currency = ANY({_codes(4)}) THEN 0.0001 ELSE 0.01 END"
)


def _money(column: str) -> str:
    return f"CASE WHEN u.unit IS NULL THEN l.{column}::text ELSE (l.{column} * u.unit)::text END"


# The round by its primary key, a LATERAL index look-up per record; the statement's lines in
# one range of their primary key, folded per record in key order (a group per sequence) and
# merged with the records by sequence: nothing is sorted, hashed or materialised (`_PG_PLAN`
# rules the other plans out, whatever the planner knows of the tables: ledger_lines is never
# analysed where autovacuum is off). A look-up of each record's lines instead cost a fifth
# more of PostgreSQL's time: the per-record aggregate's set-up, not the index. `line_nos`,
# folded by the same aggregate node, says what the lines' order was. Each line's money is
# formatted by its own currency, and its time, currency and table are compared with the
# round row's after the fold (the least and the greatest of each, and how many lines have a
# table): where any line differs from its round row, `lines` is the bad text.
_PG_SCAN = f"""
SELECT c.sequence, c.kind, c.round_id, c.previous_hash, c.hash, c.canonical,
       r.game, r.preset, r.table_ref, r.reference, r.currency,
       r.created_at, r.sequence,
       f.line_nos,
       CASE WHEN f.lines IS NULL THEN NULL
            WHEN f.first_at = r.created_at AND f.last_at = r.created_at
             AND f.first_currency = r.currency AND f.last_currency = r.currency
             AND CASE WHEN r.table_ref IS NULL THEN f.at_tables = 0
                      ELSE f.at_tables = f.count AND f.first_table = r.table_ref AND f.last_table = r.table_ref END
            THEN f.lines ELSE '{BAD_LINE}' END,
       f.players
  FROM chain_records c
  LEFT JOIN LATERAL (
        SELECT game, preset, table_ref, reference, currency, created_at, sequence
          FROM rounds WHERE rounds.id = c.round_id AND rounds.client_id = c.client_id LIMIT 1) r ON true
  LEFT JOIN (
        SELECT l.sequence,
               string_agg(l.line_no::text, ',') AS line_nos,
               '[' || string_agg(
                   CASE WHEN l.basis = l.kind AND (l.kind = 'settlement' OR l.points = 0 AND l.winnings = 0)
                        THEN '{{"account":"' || coalesce('player:' || l.player_id, 'house') || '","amount":"'
                             || {_money("amount")} || '","kind":"' || l.kind || '"}}'
                        ELSE '{BAD_LINE}' END, ',') || ']' AS lines,
               '[' || coalesce(string_agg('{{"id":"' || l.player_id || '","points":' || l.points
                                          || ',"winnings":"' || {_money("winnings")} || '"}}', ',')
                                   FILTER (WHERE l.kind = 'settlement'), '') || ']' AS players,
               min(l.created_at) AS first_at, max(l.created_at) AS last_at,
               min(l.currency) AS first_currency, max(l.currency) AS last_currency,
               min(l.table_ref) AS first_table, max(l.table_ref) AS last_table,
               count(l.table_ref) AS at_tables, count(*) AS count
          FROM ledger_lines l CROSS JOIN LATERAL (SELECT {_UNIT} AS unit) u
         WHERE l.client_id = %(c)s AND l.sequence >= %(lo)s AND l.sequence < %(hi)s
         GROUP BY l.sequence) f ON f.sequence = c.sequence
 WHERE c.client_id = %(c)s AND c.sequence >= %(lo)s AND c.sequence < %(hi)s
 ORDER BY c.sequence
"""
# The plan `_PG_SCAN` is written for, in the scan's transaction: no sort, hash, bitmap or
# materialised rescan (each would read or hold a statement's lines before its first record
# is sent, or read them again per record; with no statistics the planner chose a nested
# loop over the grouped lines). The verifier's other reads in that transaction are look-ups
# by key, which these settings leave as they are.
_PG_PLAN = ("enable_sort", "enable_hashagg", "enable_hashjoin", "enable_nestloop", "enable_material", "enable_bitmapscan")
_PG_SETTINGS = "SELECT " + ", ".join(
    f"set_config('{name}', '{value}', true)"
    for name, value in (("jit", "off"), ("timezone", "UTC"), *((setting, "off") for setting in _PG_PLAN))
)

# SQLite has no LATERAL; its planner looks rounds up by primary key on its own.
_SQLITE_RECORDS = """
SELECT c.sequence, c.kind, c.round_id, c.previous_hash, c.hash, c.canonical,
       r.game, r.preset, r.table_ref, r.reference, r.currency, r.created_at, r.sequence
  FROM chain_records c
  LEFT JOIN rounds r ON r.id = c.round_id AND r.client_id = c.client_id
 WHERE c.client_id = :c AND c.sequence >= :lo AND c.sequence < :hi
 ORDER BY c.sequence
"""
_SQLITE_LINES = """
SELECT sequence, line_no, created_at, player_id, kind, basis, amount, currency, table_ref, points, winnings
  FROM ledger_lines
 WHERE client_id = :c AND sequence >= :lo AND sequence < :hi
 ORDER BY sequence, line_no
"""


def scan(connection: Connection, client_id: str, start: int, stop: int) -> Iterator[Statement]:
    """The records [start, stop) in sequence order, read on `connection` (a unit of work's,
    in its transaction): one iterator per statement, each to be exhausted or closed before
    the next is asked for. Closing one early stops the database sending."""
    if connection.dialect.name == "postgresql":
        driver = connection.connection.driver_connection
        assert isinstance(driver, psycopg.Connection)
        return _pg_scan(driver, client_id, start, stop)
    return _sqlite_scan(connection, client_id, start, stop)


def _pg_scan(conn: psycopg.Connection[Any], client_id: str, start: int, stop: int) -> Iterator[Statement]:
    # Until the unit of work's transaction ends, in one statement: no JIT (a long plan over a
    # large range would otherwise be compiled: seconds of CPU to save less than that); times
    # as datetimes in UTC (psycopg's `timezone.utc`, cheaper to make and compare than a
    # named zone's); and `_PG_SCAN`'s plan.
    conn.execute(_PG_SETTINGS)
    for low in range(start, stop, SCAN_STATEMENT):
        params = {"c": client_id, "lo": low, "hi": min(low + SCAN_STATEMENT, stop)}
        # Past the chain's last record a statement finds nothing, in about a millisecond.
        yield _pg_statement(conn, params)


def _pg_statement(conn: psycopg.Connection[Any], params: dict[str, Any]) -> Statement:
    with conn.cursor(binary=True) as cursor:
        yield from cursor.stream(_PG_SCAN, params, size=STREAM_CHUNK)


def _sqlite_scan(connection: Connection, client_id: str, start: int, stop: int) -> Iterator[Statement]:
    for low in range(start, stop, SQLITE_PAGE):
        params = {"c": client_id, "lo": low, "hi": min(low + SQLITE_PAGE, stop)}
        rows = connection.execute(text(_SQLITE_RECORDS), params).all()
        lines: dict[int, list[LineCopy]] = {}
        for line in connection.execute(text(_SQLITE_LINES), params):
            lines.setdefault(line[0], []).append(LineCopy._make(line))
        page = []
        for r in rows:
            round_row = None if r[6] is None else (*r[6:11], r[11])
            copies = live_copies(r[0], r[1], round_row, r[12], lines.get(r[0], ()))
            page.append((r[0], r[1], r[2], r[3], r[4], as_bytes(r[5]), *copies))
        yield _page(page)
        if not rows:
            return


def _page(records: list[ScannedRecord]) -> Statement:
    yield from records


def live_copies(
    sequence: int,
    kind: str,
    round_row: Sequence[Any] | None,
    round_sequence: int | None,
    lines: Sequence[LineCopy],
) -> tuple[Any, ...]:
    """The scanned record's columns after the chain row's (see the module's docstring), from
    a record's live rows, as the PostgreSQL scan gives them: `round_row` is (game, preset,
    table_ref, reference, currency, created_at), `lines` are its lines in line order.
    `sequence` and `kind` are the record's (unused: the texts do not depend on them)."""
    del sequence, kind
    if round_row is None:
        head: tuple[Any, ...] = (None,) * 7
        game = preset = table = currency = created = None
    else:
        game, preset, table, reference, currency, created = round_row
        created = stored_time(created)
        head = (game, preset, table, reference, currency, created, round_sequence)
    if not lines:
        return (*head, None, None, None)
    folded, players = [], []
    for line in lines:
        if (
            round_row is not None
            and stored_time(line.created_at) == created
            and line.currency == currency
            and line.table == table
            and line.basis == line.kind
            and (line.kind == SETTLEMENT or (line.points, line.winnings) == (0, 0))
        ):
            account = HOUSE if line.player is None else PLAYER_PREFIX + line.player
            amount = format_money(line.amount, currency)
            folded.append(f'{{"account":"{account}","amount":"{amount}","kind":"{line.kind}"}}')
        else:
            folded.append(BAD_LINE)
        if line.kind == SETTLEMENT and line.player is not None:
            money = str(line.winnings) if currency is None else format_money(line.winnings, currency)
            players.append(f'{{"id":"{line.player}","points":{line.points},"winnings":"{money}"}}')
    line_nos = ",".join(str(line.line_no) for line in lines)
    return (*head, line_nos, "[" + ",".join(folded) + "]", "[" + ",".join(players) + "]")
