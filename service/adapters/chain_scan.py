"""Reading a client's chain for the verifier: each record once, in sequence order, with its
live copies as one JSON text.

A scanned record is `(sequence, kind, round_id, previous_hash, hash, canonical, copies)`:
the chain row, and `copies`, the live copies a round's record is compared with (its round
row and ledger lines) as UTF-8 JSON in the format below; None where they cannot match a
round's bytes whatever they say (a void, no round row, a round row naming another
sequence, no lines, or lines that disagree with their round row on time, currency or
table, whose basis is not their kind, or that carry points or winnings without being a
settlement). The verifier builds the same JSON from the hashed bytes and compares the
two; where they differ (or copies is None) it reads the record's copies in full to say
where (`ledger.copies_of`, `rounds.copies_of`).

The JSON, compact, keys in this order:

    ["0,1,...,n-1", game, preset, table, reference, currency, "time",
     [{"account": ..., "kind": ..., "amount": "money"}, ... every line],
     [{"id": ..., "points": ..., "winnings": "money"}, ... every settlement line]]

The first item is the lines' numbers in the order the lines were folded, so it says both
how many there are and that the two lists follow line order; `time` is the round row's as
records write it (UTC, milliseconds); `account` is `player:<id>` or `house`; money is
formatted with the currency's minor digits, as records write it. A live value holding a
quote or a backslash gets no text (it could pose as more than itself), so equal texts
mean equal columns.

On PostgreSQL the scan is a statement per 5,000 records in one snapshot (REPEATABLE READ),
each joining the round row by index and folding each record's lines in the database,
streamed in chunks while the caller checks; on SQLite it reads pages and builds the same
texts here.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec
from sqlalchemy import Engine, text

from service.domain.audit import HOUSE, PLAYER_PREFIX, SETTLEMENT, timestamp
from service.domain.money import currencies_by_digits, format_money

# (sequence, kind, round_id, previous_hash, hash, canonical, copies): a plain tuple, as
# the database hands it over: the scan yields one per record at tens of thousands a second.
ScannedRecord = tuple[int, str, str, str, str, bytes, bytes | None]

SQLITE_PAGE = 2000
STREAM_CHUNK = 500  # rows per chunk PostgreSQL sends (about 2 MB)
# Records per statement: each ends well within a statement timeout of seconds (5 s by
# default) even at a few thousand records a second.
SCAN_STATEMENT = 5000


def _codes(digits: int) -> str:
    return "'{" + ",".join(currencies_by_digits().get(digits, ())) + "}'::text[]"


# Money as records write it: minor units over 10^digits, the digits from CLDR (2 for a
# code it does not know: the currency itself is compared too).
_SCALE = (
    f"CASE WHEN currency = ANY({_codes(0)}) THEN 1 WHEN currency = ANY({_codes(3)}) THEN 1000"
    f" WHEN currency = ANY({_codes(4)}) THEN 10000 ELSE 100 END"
)


def _money(column: str) -> str:
    return (
        f"CASE WHEN scale = 1 THEN {column}::text ELSE CASE WHEN {column} < 0 THEN '-' ELSE '' END"
        f" || abs({column}) / scale || '.' || substr((abs({column}) %% scale + scale)::text, 2) END"
    )


# The round by its primary key (LATERAL, an index look-up per record); the lines in key
# order, folded per record; both joined to the records in sequence order, so nothing is
# sorted or hashed in memory. The lines' texts are folded in the order they arrive, and
# `line_nos` in the same aggregate node says what that order was. Values go into the JSON
# as they are, and a text is given only when none of them holds a quote or a backslash:
# the text then has exactly its own quotes (`_QUOTES`) and no backslash, so every value
# is one JSON string that needs no escape (control characters would: such a text never
# matches), and equal texts mean equal values.
# The lines' fold is a MATERIALIZED CTE, computed once per statement: as a joined subquery,
# a planner without statistics on ledger_lines (never analysed: a new table, autovacuum off)
# chose a nested loop that re-ran the grouped scan for every chain record, and 2,000 records
# passed the 5 s statement timeout (tests/api/test_api_ledger.py's history chain).
_PG_SCAN = f"""
WITH l AS MATERIALIZED (
        SELECT sequence,
               string_agg(line_no::text, ',') AS line_nos,
               string_agg('{{"account":"' || coalesce('player:' || player_id, 'house') || '","kind":"' || kind
                          || '","amount":"' || {_money("amount")} || '"}}', ',') AS lines,
               string_agg('{{"id":"' || player_id || '","points":' || points || ',"winnings":"'
                          || {_money("winnings")} || '"}}', ',') FILTER (WHERE kind = 'settlement') AS players,
               count(*) AS n, count(*) FILTER (WHERE kind = 'settlement') AS settlements,
               bool_and(basis = kind AND (kind = 'settlement' OR points = 0 AND winnings = 0)) AS lines_ok,
               min(created_at) AS time_min, max(created_at) AS time_max,
               min(currency COLLATE "C") AS currency_min, max(currency COLLATE "C") AS currency_max,
               count(table_ref) AS tables_set,
               min(table_ref COLLATE "C") AS table_min, max(table_ref COLLATE "C") AS table_max
          FROM (SELECT *, {_SCALE} AS scale FROM ledger_lines
                 WHERE client_id = %(c)s AND sequence >= %(lo)s AND sequence < %(hi)s
                 ORDER BY client_id, sequence, line_no) ordered
         GROUP BY sequence)
SELECT c.sequence, c.kind, c.round_id, c.previous_hash, c.hash, c.canonical,
       CASE WHEN c.kind = 'round' AND r.sequence = c.sequence AND l.lines_ok
                 AND l.time_min = r.created_at AND l.time_max = r.created_at
                 AND l.currency_min = r.currency COLLATE "C" AND l.currency_max = r.currency COLLATE "C"
                 AND (r.table_ref IS NULL AND l.tables_set = 0
                      OR l.tables_set = l.n AND l.table_min = r.table_ref COLLATE "C"
                         AND l.table_max = r.table_ref COLLATE "C")
                 AND strpos(j.text, '\\') = 0
                 AND octet_length(j.text) - octet_length(replace(j.text, '"', ''))
                     = 10 + 12 * l.n + 10 * l.settlements
                       + CASE WHEN r.table_ref IS NULL THEN 0 ELSE 2 END
                       + CASE WHEN r.reference IS NULL THEN 0 ELSE 2 END
            THEN convert_to(j.text, 'UTF8')
       END
  FROM chain_records c
  LEFT JOIN LATERAL (
        SELECT game, preset, table_ref, reference, currency, created_at, sequence FROM rounds
         WHERE rounds.id = c.round_id AND rounds.client_id = c.client_id LIMIT 1) r ON true
  LEFT JOIN l ON l.sequence = c.sequence
  LEFT JOIN LATERAL (
        SELECT '["' || l.line_nos || '","' || r.game || '","' || r.preset || '",'
               || coalesce('"' || r.table_ref || '"', 'null') || ',' || coalesce('"' || r.reference || '"', 'null')
               || ',"' || r.currency || '","'
               || to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
               || '",[' || l.lines || '],[' || coalesce(l.players, '') || ']]' AS text
        OFFSET 0) j ON true
 WHERE c.client_id = %(c)s AND c.sequence >= %(lo)s AND c.sequence < %(hi)s
 ORDER BY c.sequence
"""

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


def scan(engine: Engine, client_id: str, start: int, stop: int) -> Generator[ScannedRecord, None, None]:
    """The records [start, stop) in sequence order. Close the iterator to stop early (the
    database stops sending)."""
    if engine.dialect.name == "postgresql":
        return _pg_scan(engine, client_id, start, stop)
    return _sqlite_scan(engine, client_id, start, stop)


def _pg_scan(engine: Engine, client_id: str, start: int, stop: int) -> Generator[ScannedRecord, None, None]:
    fairy = engine.raw_connection()
    try:
        conn: Any = fairy.driver_connection
        with conn.cursor(binary=True) as cursor:
            # One snapshot for every statement of the scan.
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            # A long plan over a large range would otherwise be JIT-compiled: seconds of
            # CPU to save less than that.
            cursor.execute("SET LOCAL jit = off")
            for low in range(start, stop, SCAN_STATEMENT):
                params = {"c": client_id, "lo": low, "hi": min(low + SCAN_STATEMENT, stop)}
                # Chunks of rows loaded at once while the server goes on with the next
                # ones; closing early cancels the statement. Past the chain's last record
                # a statement finds nothing, in about a millisecond.
                yield from cursor.stream(_PG_SCAN, params, size=STREAM_CHUNK)
        conn.rollback()
    finally:
        fairy.close()  # back to the pool, which rolls back what an early stop left open


def _sqlite_scan(engine: Engine, client_id: str, start: int, stop: int) -> Generator[ScannedRecord, None, None]:
    for low in range(start, stop, SQLITE_PAGE):
        params = {"c": client_id, "lo": low, "hi": min(low + SQLITE_PAGE, stop)}
        with engine.connect() as conn:
            rows = conn.execute(text(_SQLITE_RECORDS), params).all()
            lines: dict[int, list[tuple[Any, ...]]] = {}
            for line in conn.execute(text(_SQLITE_LINES), params):
                lines.setdefault(line[0], []).append(tuple(line))
        for r in rows:
            round_row = None if r[6] is None else (*r[6:11], _sqlite_time(r[11]))
            copies = live_copies(r[0], r[1], round_row, r[12], lines.get(r[0], ()))
            yield (r[0], r[1], r[2], r[3], r[4], bytes(r[5]), copies)
        if not rows:
            return


_encode = msgspec.json.Encoder().encode


def live_copies(
    sequence: int,
    kind: str,
    round_row: Sequence[Any] | None,
    round_sequence: int | None,
    lines: Sequence[Sequence[Any]],
) -> bytes | None:
    """The copies JSON (see the module's docstring) of a record's live rows, as the
    PostgreSQL scan builds it (escaping a value that holds a quote or a backslash, where
    PostgreSQL gives no text): `round_row` is (game, preset, table_ref, reference,
    currency, created_at), `lines` are `ledger.copies_of`'s (sequence, line_no, created_at,
    player_id, kind, basis, amount, currency, table_ref, points, winnings) in line order."""
    if kind != "round" or round_row is None or round_sequence != sequence or not lines:
        return None
    game, preset, table, reference, currency, created = round_row
    for line in lines:
        if (
            line[5] != line[4]
            or (line[4] != SETTLEMENT and (line[9], line[10]) != (0, 0))
            or _time(line[2]) != _time(created)
            or line[7] != currency
            or line[8] != table
        ):
            return None
    return _encode(
        [
            ",".join(str(line[1]) for line in lines),
            game,
            preset,
            table,
            reference,
            currency,
            timestamp(_time(created)),
            [
                {
                    "account": HOUSE if line[3] is None else PLAYER_PREFIX + line[3],
                    "kind": line[4],
                    "amount": format_money(line[6], currency),
                }
                for line in lines
            ],
            [
                {"id": line[3], "points": line[9], "winnings": format_money(line[10], currency)}
                for line in lines
                if line[4] == SETTLEMENT
            ],
        ]
    )


def _time(value: Any) -> datetime:
    return value if isinstance(value, datetime) and value.tzinfo is not None else _sqlite_time(value)


def _sqlite_time(value: Any) -> datetime:
    """SQLite keeps naive UTC text."""
    when = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return when.replace(tzinfo=UTC)
